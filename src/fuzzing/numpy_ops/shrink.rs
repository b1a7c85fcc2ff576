//! Shrinking a failing numpy-semantics program: steps dropped (with what uses them) or cut
//! (replaced by a leaf of their result), unused leaves dropped, leaf axes removed, sizes made
//! smaller, einsum subscripts made narrower (a letter removed with its axes), element types
//! made `float64`. Any edit is kept while the program still fails: verdicts are recomputed,
//! so an edit may make a step invalid, which is right when the failure is about invalid
//! input.

use super::op::NpOp;
use super::program::{NpProgram, NpValue};

/// Shrinks `p` while `fails` holds, trying at most `budget` candidates.
///
/// ```
/// use einrow::fuzzing::numpy_ops::{shrink_np_program, NpOp, NpProgram};
///
/// let mut p = NpProgram::default();
/// let a = p.leaf(vec![5, 7, 3], "int8");
/// let b = p.step(NpOp::Transpose { axes: None }, vec![a]);
/// p.step(NpOp::Sum { axis: einrow::fuzzing::numpy_ops::Axes::All, keepdims: false }, vec![b]);
/// // "Fails" whenever some leaf has 3 axes or more.
/// let small = shrink_np_program(&p, 500, &mut |q| q.values.iter().any(|v| {
///     matches!(v, einrow::fuzzing::numpy_ops::NpValue::Leaf { shape, .. } if shape.len() >= 3)
/// }));
/// assert_eq!(small.values.len(), 1);
/// ```
pub fn shrink_np_program(
    p: &NpProgram,
    budget: usize,
    fails: &mut dyn FnMut(&NpProgram) -> bool,
) -> NpProgram {
    let mut best = p.clone();
    let mut tries = 0usize;
    loop {
        let mut progress = false;
        for cand in candidates(&best) {
            if tries >= budget {
                return best;
            }
            tries += 1;
            if cand != best && fails(&cand) {
                best = cand;
                progress = true;
                break;
            }
        }
        if !progress {
            return best;
        }
    }
}

/// Every one-edit simplification of `p`, biggest cuts first.
fn candidates(p: &NpProgram) -> Vec<NpProgram> {
    let mut out = Vec::new();
    let steps: Vec<usize> = p.steps().collect();
    for &i in steps.iter().rev() {
        out.push(without(p, i));
    }
    let outcomes = p.evaluate();
    for &i in &steps {
        if let Some(t) = outcomes[i].typed() {
            let mut q = p.clone();
            q.values[i] = NpValue::Leaf { shape: t.shape.clone(), dtype: t.dtype };
            out.push(drop_unused(&q));
        }
    }
    out.push(drop_unused(p));
    for (i, v) in p.values.iter().enumerate() {
        if let NpValue::Step { op: NpOp::Einsum { subscripts }, args } = v {
            for c in letters(subscripts) {
                if let Some(q) = without_letter(p, i, subscripts, args, c) {
                    out.push(q);
                }
            }
            for k in 0..args.len() {
                out.push(drop_unused(&without_operand(p, i, subscripts, args, k)));
            }
        }
    }
    for (i, v) in p.values.iter().enumerate() {
        let NpValue::Leaf { shape, dtype } = v else { continue };
        for s in smaller_shapes(shape) {
            let mut q = p.clone();
            q.values[i] = NpValue::Leaf { shape: s, dtype };
            out.push(q);
        }
        if *dtype != "float64" {
            let mut q = p.clone();
            q.values[i] = NpValue::Leaf { shape: shape.clone(), dtype: "float64" };
            out.push(q);
        }
    }
    out
}

/// Shapes one edit simpler: an axis removed, a size halved, made 1 or 0.
fn smaller_shapes(s: &[usize]) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    // Every axis of one size at once (the axes of a diagonal stay equal).
    let mut distinct: Vec<usize> = s.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    for &x in distinct.iter().filter(|&&x| x > 1) {
        for smaller in [1, 0] {
            out.push(s.iter().map(|&y| if y == x { smaller } else { y }).collect());
        }
    }
    for i in 0..s.len() {
        let mut t = s.to_vec();
        t.remove(i);
        out.push(t);
    }
    for i in 0..s.len() {
        let mut sizes = vec![s[i] / 2, 1, 0];
        sizes.retain(|&x| x < s[i]);
        sizes.dedup();
        for smaller in sizes {
            let mut t = s.to_vec();
            t[i] = smaller;
            out.push(t);
        }
    }
    out
}

/// `p` without value `i` and every value that uses it, directly or further down.
pub fn without(p: &NpProgram, i: usize) -> NpProgram {
    let mut gone = vec![false; p.values.len()];
    gone[i] = true;
    for j in i + 1..p.values.len() {
        if let NpValue::Step { args, .. } = &p.values[j] {
            gone[j] = args.iter().any(|&a| gone[a]);
        }
    }
    keep(p, &gone)
}

/// `p` without leaves no step uses, nor steps before the last that no step uses.
fn drop_unused(p: &NpProgram) -> NpProgram {
    let mut used = vec![false; p.values.len()];
    let last = p.steps().last();
    for v in &p.values {
        if let NpValue::Step { args, .. } = v {
            for &a in args {
                used[a] = true;
            }
        }
    }
    let gone: Vec<bool> = (0..p.values.len()).map(|i| !used[i] && Some(i) != last).collect();
    keep(p, &gone)
}

/// The values not `gone`, renumbered.
fn keep(p: &NpProgram, gone: &[bool]) -> NpProgram {
    let mut index = vec![usize::MAX; p.values.len()];
    let mut out = NpProgram::default();
    for (i, v) in p.values.iter().enumerate() {
        if gone[i] {
            continue;
        }
        let v = match v {
            NpValue::Step { op, args } => {
                let args: Option<Vec<usize>> = args
                    .iter()
                    .map(|&a| index.get(a).copied().filter(|&x| x != usize::MAX))
                    .collect();
                match args {
                    Some(args) => NpValue::Step { op: op.clone(), args },
                    None => continue,
                }
            }
            leaf => leaf.clone(),
        };
        index[i] = out.values.len();
        out.values.push(v);
    }
    out
}

fn letters(subscripts: &str) -> Vec<char> {
    let mut out: Vec<char> = Vec::new();
    for c in subscripts.chars().filter(char::is_ascii_alphabetic) {
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// The einsum at `i` without letter `c` (narrower subscripts), each leaf operand without the
/// axes `c` labelled; `None` when an operand with `c` is a step's result.
fn without_letter(
    p: &NpProgram,
    i: usize,
    subscripts: &str,
    args: &[usize],
    c: char,
) -> Option<NpProgram> {
    let (lhs, out) = match subscripts.split_once("->") {
        Some((l, o)) => (l, Some(o)),
        None => (subscripts, None),
    };
    let mut q = p.clone();
    let terms: Vec<&str> = lhs.split(',').collect();
    for (term, &a) in terms.iter().zip(args) {
        if !term.contains(c) {
            continue;
        }
        let NpValue::Leaf { shape, dtype } = &p.values[a] else { return None };
        let kept = axes_without(term, shape, c)?;
        q.values[a] = NpValue::Leaf { shape: kept, dtype };
    }
    let lhs: Vec<String> = terms.iter().map(|t| t.replace(c, "")).collect();
    let mut text = lhs.join(",");
    if let Some(o) = out {
        text.push_str("->");
        text.push_str(&o.replace(c, ""));
    }
    let args = args.to_vec();
    q.values[i] = NpValue::Step { op: NpOp::Einsum { subscripts: text }, args };
    Some(q)
}

/// The einsum at `i` without its operand `k` and that operand's term.
fn without_operand(
    p: &NpProgram,
    i: usize,
    subscripts: &str,
    args: &[usize],
    k: usize,
) -> NpProgram {
    let (lhs, out) = match subscripts.split_once("->") {
        Some((l, o)) => (l, Some(o)),
        None => (subscripts, None),
    };
    let mut terms: Vec<&str> = lhs.split(',').collect();
    let mut args = args.to_vec();
    if k < terms.len() && k < args.len() && args.len() > 1 {
        terms.remove(k);
        args.remove(k);
    }
    let mut text = terms.join(",");
    if let Some(o) = out {
        text.push_str("->");
        text.push_str(o);
    }
    let mut q = p.clone();
    q.values[i] = NpValue::Step { op: NpOp::Einsum { subscripts: text }, args };
    q
}

/// The axes of `shape` that `term` does not label `c` (`None` if the term does not fit).
fn axes_without(term: &str, shape: &[usize], c: char) -> Option<Vec<usize>> {
    let (lead, trail) = match term.split_once("...") {
        Some((l, t)) => (l, t),
        None => (term, ""),
    };
    let (nl, nt) = (lead.chars().count(), trail.chars().count());
    if shape.len() < nl + nt || (!term.contains("...") && shape.len() != nl) {
        return None;
    }
    let tail = shape.len() - nt;
    let mut out: Vec<usize> =
        lead.chars().zip(shape).filter(|(x, _)| *x != c).map(|(_, &s)| s).collect();
    out.extend_from_slice(&shape[nl..tail]);
    out.extend(trail.chars().zip(&shape[tail..]).filter(|(x, _)| *x != c).map(|(_, &s)| s));
    Some(out)
}
