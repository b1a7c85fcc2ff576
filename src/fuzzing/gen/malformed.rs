//! Programs that are *not* well-formed: random operations on random operands (wrong arities,
//! undefined names, names used twice), random shape strings (row variables, `1!`, bases,
//! sometimes garbage, sizes near 2^62) and random spec text (valid, near-valid, arbitrary).
//! Solving them may fail, but must never panic, and a solution must still pass the checker.

use proptest::prelude::*;

use crate::fuzzing::specs::{einsum_text, numpy_text};
use crate::infer::program::{Decl, Program, Stmt};
use crate::infer::OpKind;

const OPS: [OpKind; 9] = OpKind::ALL;

fn shape_text() -> impl Strategy<Value = Option<String>> {
    let axis = prop_oneof![
        4 => (1u64..6).prop_map(|n| n.to_string()),
        1 => Just("1!".to_string()),
        1 => (1u64..4).prop_map(|n| format!("h={n}")),
        1 => Just("...".to_string()),
        1 => "\\.\\.[a-c]\\.\\.".prop_map(String::from),
        1 => Just("0".to_string()),
        // Sizes near the limit: sums, strides and products of them overflow 2^62.
        1 => prop_oneof![
            Just("4611686018427387904".to_string()),
            Just("4611686018427387903".to_string()),
            Just("2305843009213693953".to_string()),
        ],
    ];
    let row = || proptest::collection::vec(axis.clone(), 0..4).prop_map(|v| v.join(","));
    prop_oneof![
        1 => Just(None),
        6 => (row(), row(), row(), 0u8..4).prop_map(|(b, i, o, form)| Some(match form {
            0 => o,
            1 => format!("{b}|{o}"),
            2 => format!("{i}->{o}"),
            _ => format!("{b}|{i}->{o}"),
        })),
        1 => "[ 0-9a-z,.|>!=-]{0,12}".prop_map(Some),
    ]
}

/// The usual operand count of an operation.
fn arity(op: OpKind) -> usize {
    match op {
        OpKind::Transpose | OpKind::Permute | OpKind::BatchSlice => 1,
        OpKind::Einsum3 => 3,
        _ => 2,
    }
}

fn stmt(i: usize) -> impl Strategy<Value = Stmt> {
    let spec = prop_oneof![3 => einsum_text(), 1 => numpy_text()];
    // Operands: mostly names defined before (leaves x0..x3, results t0..), sometimes not.
    let args = proptest::collection::vec(0usize..(4 + i + 1), 0..4);
    (0..OPS.len(), args, any::<bool>(), proptest::option::of(spec), any::<bool>()).prop_map(
        move |(op, mut args, usual, spec, reuse)| {
            let op = OPS[op];
            if usual {
                args.resize(arity(op), 0);
            }
            Stmt {
                op,
                out: if reuse && i > 0 { format!("t{}", i - 1) } else { format!("t{i}") },
                args: args
                    .into_iter()
                    .map(|a| if a < 4 { format!("x{a}") } else { format!("t{}", a - 4) })
                    .collect(),
                spec: if op.has_spec() { spec } else { None },
                accum: None,
                combine: None,
                line: i,
            }
        },
    )
}

/// Random, mostly malformed programs: four leaves and up to `max_steps` operations (1 to
/// [`MAX_STEPS`](super::recipe::MAX_STEPS)).
pub fn malformed_programs(max_steps: usize) -> impl Strategy<Value = Program> {
    let decls = proptest::collection::vec((shape_text(), any::<bool>()), 4).prop_map(|ds| {
        ds.into_iter()
            .enumerate()
            .map(|(i, (shape, param))| Decl {
                name: format!("x{i}"),
                shape,
                param,
                values: None,
                line: i,
            })
            .collect::<Vec<_>>()
    });
    let stmts = (1..=max_steps.clamp(1, super::recipe::MAX_STEPS))
        .prop_flat_map(|n| (0..n).map(stmt).collect::<Vec<_>>());
    (decls, stmts).prop_map(|(decls, stmts)| Program { decls, stmts })
}
