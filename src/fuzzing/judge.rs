//! A judge, not only a checker: given one step, its operands and a claimed result, is the
//! claim THE result? For a step of einrow's program format the answer is einrow's (the step
//! solved alone, its operands declared with their shapes; [`judge_step`]); for a numpy
//! operation it is numpy's ([`judge_np`], from [`verdict`]).
//!
//! [`checker::check_step`](super::checker::check_step) stays what it is: one-sided. It says
//! whether a result satisfies the step's constraints, and a result can satisfy them without
//! being the result (a pointwise result with a spurious leading axis still refines both
//! operands). A framework's rules are judged with [`judge_step`]; a solution of a whole
//! program, which may pick any admissible shape where nothing determines one, is checked
//! with the checker.

use super::checker::check_step;
use super::model::{ConcreteBasis, ConcreteShape};
use super::numpy_ops::{shape_text, verdict, NpOp};
use super::solution::Solution;
use crate::code::{Coded, ErrorCode};
use crate::infer::program::{Decl, Program, Stmt};
use crate::infer::Warning;
use crate::spec::ast::RowKind;

/// What the judge says of a claimed result.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Judgement {
    /// The claim is the result (or a refusal where the step is refused).
    Correct,
    /// The step has a result and the claim is another one.
    Wrong {
        /// The result.
        expected: String,
        /// The claim.
        claimed: String,
    },
    /// The step has a result and the claim refuses it.
    WronglyRefused {
        /// The result.
        expected: String,
    },
    /// The step is refused and the claim is a result.
    ShouldRefuse {
        /// The class of the error.
        code: ErrorCode,
        /// Why.
        message: String,
        /// The claim.
        claimed: String,
    },
    /// The step's constraints leave its result open (a size or row nothing determines,
    /// closed by a guess) and the claim meets every constraint: not wrong, but not einrow's
    /// choice either.
    Admissible {
        /// einrow's choice.
        einrow: String,
        /// The guess, in words.
        why: String,
    },
}

impl Judgement {
    /// Whether the claim is accepted (the result, or admissible where none is determined).
    pub fn is_ok(&self) -> bool {
        matches!(self, Judgement::Correct | Judgement::Admissible { .. })
    }
}

impl std::fmt::Display for Judgement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Judgement::Correct => f.write_str("correct"),
            Judgement::Wrong { expected, claimed } => {
                write!(f, "wrong: the result is {expected}, not {claimed}")
            }
            Judgement::WronglyRefused { expected } => {
                write!(f, "wrongly refused: the result is {expected}")
            }
            Judgement::ShouldRefuse { code, message, claimed } => {
                write!(f, "should be refused (error[{code}]: {message}), not give {claimed}")
            }
            Judgement::Admissible { einrow, why } => {
                write!(
                    f,
                    "admissible: nothing determines the result ({why}); einrow gives {einrow}"
                )
            }
        }
    }
}

/// Judges a claimed result of a numpy operation on operands of these shapes and types: the
/// claim is a shape (with its numpy type name, when the framework's types are judged too), or
/// `None` for a refusal.
///
/// ```
/// use einrow::fuzzing::judge::{judge_np, Judgement};
/// use einrow::fuzzing::numpy_ops::NpOp;
///
/// let ops: [(&[usize], &str); 2] = [(&[1, 2, 3], "float64"), (&[3, 4], "float64")];
/// assert_eq!(judge_np(&NpOp::Matmul, &ops, Some((&[1, 2, 4], None))), Judgement::Correct);
/// assert!(matches!(judge_np(&NpOp::Matmul, &ops, Some((&[2, 4], None))), Judgement::Wrong { .. }));
/// ```
pub fn judge_np(
    op: &NpOp,
    operands: &[(&[usize], &str)],
    claimed: Option<(&[usize], Option<&str>)>,
) -> Judgement {
    let text = |s: &[usize], d: Option<&str>| match d {
        Some(d) => format!("{} {d}", shape_text(s)),
        None => shape_text(s),
    };
    match (verdict(op, operands), claimed) {
        (Ok(t), Some((s, d))) if s == t.shape && d.is_none_or(|d| d == t.dtype) => {
            Judgement::Correct
        }
        (Ok(t), Some((s, d))) => {
            Judgement::Wrong { expected: text(&t.shape, d.map(|_| t.dtype)), claimed: text(s, d) }
        }
        (Ok(t), None) => Judgement::WronglyRefused { expected: text(&t.shape, Some(t.dtype)) },
        (Err(_), None) => Judgement::Correct,
        (Err(r), Some((s, d))) => {
            Judgement::ShouldRefuse { code: r.code, message: r.message, claimed: text(s, d) }
        }
    }
}

/// Judges a claimed result of a step of einrow's [program format](crate::infer::program) on
/// operands of these shapes (`None`: the claim is a refusal). The step is solved alone, each
/// operand declared with its shape (rows as shape strings write them: all axes trailing).
///
/// ```
/// use einrow::fuzzing::judge::{judge_step, Judgement};
/// use einrow::fuzzing::ConcreteShape;
/// use einrow::infer::program::Program;
///
/// let p = Program::parse_text("tensor a: 2|3\ntensor b: 3\nc = pointwise a b")?;
/// let (a, b) = (ConcreteShape::parse("2|3")?, ConcreteShape::parse("3")?);
/// let step = &p.stmts[0];
/// assert_eq!(judge_step(step, &[&a, &b], Some(&ConcreteShape::parse("2|3")?)), Judgement::Correct);
/// // A spurious axis meets the constraints (the one-sided checker passes it) but is wrong.
/// let extra = ConcreteShape::parse("5,2|3")?;
/// assert!(einrow::fuzzing::checker::check_step(step, &[&a, &b], &extra).is_ok());
/// assert!(matches!(judge_step(step, &[&a, &b], Some(&extra)), Judgement::Wrong { .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn judge_step(s: &Stmt, args: &[&ConcreteShape], claimed: Option<&ConcreteShape>) -> Judgement {
    let mut p = Program::default();
    for (i, a) in args.iter().enumerate() {
        let decl = Decl {
            name: format!("a{i}"),
            shape: Some(a.to_string()),
            param: false,
            values: None,
            line: 0,
        };
        p.decls.push(decl);
    }
    let stmt = Stmt {
        out: "result".into(),
        args: (0..args.len()).map(|i| format!("a{i}")).collect(),
        ..s.clone()
    };
    p.stmts.push(stmt);
    let built = p.build();
    let g = built.graph;
    let solved = match built.result {
        Err((e, _)) => Err((e.code(), e.to_string())),
        Ok(()) => Solution::from_graph(&g, &built.names[args.len()..], |_| false)
            .map_err(|e| (ErrorCode::Unresolved, e))
            .and_then(|sol| {
                sol.get("result")
                    .cloned()
                    .ok_or((ErrorCode::Unresolved, "the result is open".into()))
            }),
    };
    let guess = g.warnings().into_iter().find(|w| {
        matches!(
            w,
            Warning::ResultOnlyLabel { closed: true, .. }
                | Warning::ClosedDim { .. }
                | Warning::ClosedRow { .. }
        )
    });
    match (solved, claimed) {
        (Ok(want), Some(c)) if same_result(&want, c) => Judgement::Correct,
        (Ok(want), Some(c)) => match guess {
            Some(w) if check_step(s, args, c).is_ok() => {
                Judgement::Admissible { einrow: want.to_string(), why: w.to_string() }
            }
            _ => Judgement::Wrong { expected: want.to_string(), claimed: c.to_string() },
        },
        (Ok(want), None) => Judgement::WronglyRefused { expected: want.to_string() },
        (Err(_), None) => Judgement::Correct,
        (Err((code, message)), Some(c)) => {
            Judgement::ShouldRefuse { code, message, claimed: c.to_string() }
        }
    }
}

/// Whether a claimed shape is the result: the same rows, axis by axis the same size and
/// basis (a plain size 1 also stands for the broadcast `1!`, which a framework without bases
/// writes so).
fn same_result(want: &ConcreteShape, claimed: &ConcreteShape) -> bool {
    RowKind::ALL.iter().all(|&k| {
        let (w, c) = (want.row(k).flat(), claimed.row(k).flat());
        w.len() == c.len()
            && w.iter().zip(&c).all(|(w, c)| {
                w.size == c.size
                    && (w.basis == c.basis || (c.basis == ConcreteBasis::Default && w.is_top()))
            })
    })
}
