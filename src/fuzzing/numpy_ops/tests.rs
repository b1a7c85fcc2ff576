//! The generators' promises, over many draws: valid programs are valid, every operation,
//! element type and edge case is drawn, near-valid programs are mostly refused for every
//! class of error, programs survive JSON.

use std::collections::HashSet;

use super::*;
use crate::code::ErrorCode;
use crate::fuzzing::gen::Choices;

/// Deterministic pseudo-random choice lists.
fn words(seed: u64, n: usize) -> Vec<u32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 16) as u32
        })
        .collect()
}

fn steps_of(p: &NpProgram) -> Vec<(&NpOp, &[usize])> {
    p.values
        .iter()
        .filter_map(|v| match v {
            NpValue::Step { op, args } => Some((op, args.as_slice())),
            NpValue::Leaf { .. } => None,
        })
        .collect()
}

#[test]
fn drawn_programs_are_valid_and_cover_every_operation_and_type() {
    let cfg = NpConfig::default();
    let (mut kinds, mut dtypes) = (HashSet::new(), HashSet::new());
    let (mut zero, mut derived, mut negative) = (false, false, false);
    for seed in 0..3000 {
        let p = draw_program(&cfg, &mut Choices::new(&words(seed, 400)));
        for (i, o) in p.evaluate().iter().enumerate() {
            assert!(
                matches!(o, Outcome::Value(_)),
                "value {i}: {}\n{}",
                outcome_text(o),
                p.to_text()
            );
        }
        for v in &p.values {
            if let NpValue::Leaf { shape, dtype } = v {
                dtypes.insert(*dtype);
                zero |= shape.contains(&0);
            }
        }
        for (op, args) in steps_of(&p) {
            kinds.insert(op.kind());
            derived |= args.iter().any(|&a| matches!(p.values[a], NpValue::Step { .. }));
            negative |= op.to_json().to_string().contains(":-");
        }
        assert_eq!(NpProgram::from_json(&p.to_json()), Ok(p));
    }
    assert_eq!(kinds.len(), NpKind::ALL.len(), "{kinds:?}");
    assert_eq!(dtypes.len(), DTYPES.len(), "{dtypes:?}");
    assert!(zero && derived && negative);
}

#[test]
fn einsum_cases_are_valid_with_every_feature() {
    let cfg = NpConfig { max_operands: 6, ..NpConfig::default() };
    let mut seen: HashSet<&str> = HashSet::new();
    for seed in 0..3000 {
        let p = draw_einsum_case(&cfg, &mut Choices::new(&words(seed, 300)));
        let outcomes = p.evaluate();
        let (op, args) = steps_of(&p)[0];
        let NpOp::Einsum { subscripts } = op else { panic!("{op:?}") };
        assert!(matches!(outcomes.last(), Some(Outcome::Value(_))), "{}", p.to_text());
        let (lhs, out) =
            subscripts.split_once("->").map_or((subscripts.as_str(), None), |(l, o)| (l, Some(o)));
        let diagonal = lhs.split(',').any(|t| {
            let ls: Vec<char> = t.chars().filter(char::is_ascii_alphabetic).collect();
            ls.iter().enumerate().any(|(i, c)| ls[..i].contains(c))
        });
        if diagonal {
            seen.insert("diagonal");
            if out.is_some_and(|o| {
                lhs.chars()
                    .any(|c| c.is_ascii_alphabetic() && o.contains(c) && lhs.matches(c).count() > 1)
            }) {
                seen.insert("kept diagonal");
            }
        }
        if subscripts.contains("...") {
            seen.insert("ellipsis");
        }
        if out.is_none() {
            seen.insert("implicit");
        }
        if args.len() >= 4 {
            seen.insert("many operands");
        }
        for v in &p.values {
            if let NpValue::Leaf { shape, .. } = v {
                if shape.contains(&0) {
                    seen.insert("size 0");
                }
                if shape.contains(&1) {
                    seen.insert("size 1");
                }
            }
        }
    }
    assert_eq!(seen.len(), 7, "{seen:?}");
}

#[test]
fn near_valid_programs_are_mostly_refused_with_every_class_of_error() {
    let cfg = NpConfig::default();
    let mut codes = HashSet::new();
    let (mut refused, mut mixed_ranks, n) = (0u64, false, 3000u64);
    for seed in 0..n {
        let w = words(seed, 500);
        let mut d = Choices::new(&w);
        let p = draw_program(&cfg, &mut d);
        let m = near_valid(&p, &cfg, &mut d);
        assert_ne!(m.program, p, "{}", m.what);
        let outcomes = m.program.evaluate();
        if let Some((_, code)) = first_rejection(&outcomes) {
            refused += 1;
            codes.insert(code);
        }
        for (op, args) in steps_of(&m.program) {
            if op.kind() == NpKind::Concatenate {
                let ranks: HashSet<usize> = args
                    .iter()
                    .filter_map(|&a| outcomes[a].typed())
                    .map(|t| t.shape.len())
                    .collect();
                mixed_ranks |= ranks.len() > 1;
            }
        }
    }
    assert!(refused * 10 > n * 6, "only {refused} of {n} refused");
    for code in [
        ErrorCode::Mismatch,
        ErrorCode::Rank,
        ErrorCode::Bounds,
        ErrorCode::Value,
        ErrorCode::Elems,
        ErrorCode::Label,
        ErrorCode::Arity,
    ] {
        assert!(codes.contains(&code), "{code} never drawn: {codes:?}");
    }
    assert!(mixed_ranks);
}

#[test]
fn shrinking_keeps_the_failure_and_narrows_einsum() {
    let mut p = NpProgram::default();
    let a = p.leaf(vec![3, 3, 5], "int8");
    let b = p.leaf(vec![5, 4], "float32");
    p.step(NpOp::Einsum { subscripts: "iij,jk->ik".into() }, vec![a, b]);
    // A stand-in failure: an einsum with a diagonal in its first term.
    let mut fails = |q: &NpProgram| {
        steps_of(q).iter().any(
            |(op, _)| matches!(op, NpOp::Einsum { subscripts } if subscripts.starts_with("ii")),
        ) && is_valid(q)
    };
    let small = shrink_np_program(&p, 1000, &mut fails);
    assert!(fails(&small));
    let text = small.to_text();
    assert!(
        text.contains("\"ii->\"") || text.contains("\"ii->i\"") || text.contains("\"ii\""),
        "{text}"
    );
    assert!(text.contains("np.zeros((1, 1)") || text.contains("np.zeros((0, 0)"), "{text}");
}

#[test]
fn broadcast_cases_with_row_variables() {
    let cfg = NpConfig::default();
    let sig = Signature::parse("..b..ij,..b..jk,k").expect("parses");
    let (mut refused, n) = (0usize, 500u64);
    for seed in 0..n {
        let w = words(seed, 100);
        let mut d = Choices::new(&w);
        let case = BroadcastCase::draw(&cfg, 2, Some(sig.clone()), &mut d);
        let v = case.verdict().expect("drawn cases broadcast");
        assert_eq!(v.rows.len(), 1);
        let plain = BroadcastCase::draw(&cfg, 3, None, &mut d);
        let joined = plain.verdict().expect("broadcasts").result.expect("one row");
        let shapes: Vec<&[usize]> = plain.shapes.iter().map(Vec::as_slice).collect();
        assert_eq!(broadcast_shapes(&shapes), Ok(joined));
        refused += usize::from(plain.mutate(&cfg, &mut d).verdict().is_err());
    }
    assert!(refused as u64 * 2 > n, "{refused}");
}
