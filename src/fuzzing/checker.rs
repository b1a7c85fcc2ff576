//! The independent checker: does a solution satisfy every constraint of a program?
//!
//! The checker is one-sided: it accepts every shape that satisfies the constraints, and a
//! shape can satisfy them without being the result (a pointwise result with a spurious
//! leading axis still refines both operands; a compose result's batch may be longer than
//! both batches). That is what judging a whole solution needs (where nothing determines a
//! size, any admissible one is right). To judge a framework's result for one step, use
//! [`judge_step`](super::judge::judge_step), which says whether a claim is THE result.
//!
//! Each rule is re-implemented here from the specification (OCANNL's constraint generation per
//! operation), on concrete shapes, without the solver:
//! - leaves keep their declared shape (closed rows exactly; open rows keep their flanks, and a
//!   row variable named twice in one declaration has one value);
//! - pointwise: every result row refines (`⊑`) the same row of every operand;
//! - compose `a * b`: `a`'s input refines `b`'s output; the result's batch refines both
//!   batches, its input `b`'s input, its output `a`'s output;
//! - transpose: batch to batch, input to output and output to input, each by `⊑`;
//! - batch slice: the operand's batch row is one axis followed by the result's, the other rows
//!   are equal (flat equalities);
//! - spec operations: see [`super::spec_rules`]; numpy steps: see [`super::numpy_rules`].

use super::model::{text_dim, ConcreteDim, ConcreteShape};
use super::numpy_rules::check_numpy;
use super::rules::row_leq;
use super::solution::Solution;
use super::spec_rules::check_spec;
use crate::infer::program::{Decl, Program, Stmt};
use crate::infer::OpKind;
use crate::shape::{parse_shape_string, TextRow};
use crate::spec::ast::RowKind;
use crate::spec::parse_einsum;

/// A constraint a solution breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The statement (index into `Program::stmts`), `None` for a leaf declaration.
    pub stmt: Option<usize>,
    /// The tensor whose definition is broken.
    pub tensor: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.stmt {
            Some(i) => write!(f, "statement {i} (`{}`): {}", self.tensor, self.message),
            None => write!(f, "leaf `{}`: {}", self.tensor, self.message),
        }
    }
}

const B: RowKind = RowKind::Batch;
const I: RowKind = RowKind::Input;
const O: RowKind = RowKind::Output;

/// Checks a solution of a whole program. `solution` holds one entry per declaration and per
/// statement, in that order (as [`Solution::from_graph`] reads a fully built program).
pub fn check_solution(program: &Program, solution: &Solution) -> Result<(), Violation> {
    let want = program.decls.len() + program.stmts.len();
    if solution.tensors.len() != want {
        let message = format!("{} shapes for {want} definitions", solution.tensors.len());
        return Err(Violation { stmt: None, tensor: String::new(), message });
    }
    let open = ConcreteShape::default();
    for (d, (_, shape)) in program.decls.iter().zip(&solution.tensors) {
        let Some(shape) = shape else { continue };
        check_leaf(d, shape).map_err(|message| Violation {
            stmt: None,
            tensor: d.name.clone(),
            message,
        })?;
    }
    // A leaf left open is used by no operation, so its stand-in is never looked at.
    let mut defined: Vec<(&str, &ConcreteShape)> = solution.tensors[..program.decls.len()]
        .iter()
        .map(|(n, s)| (n.as_str(), s.as_ref().unwrap_or(&open)))
        .collect();
    for (i, s) in program.stmts.iter().enumerate() {
        let Some(result) = &solution.tensors[program.decls.len() + i].1 else {
            let message = "the result is left open".to_string();
            return Err(Violation { stmt: Some(i), tensor: s.out.clone(), message });
        };
        let lookup = |a: &String| defined.iter().rev().find(|(n, _)| *n == a).map(|(_, s)| *s);
        let args: Option<Vec<&ConcreteShape>> = s.args.iter().map(lookup).collect();
        let outcome = match args {
            Some(args) => check_step(s, &args, result),
            None => Err("an operand is not defined".to_string()),
        };
        outcome.map_err(|message| Violation { stmt: Some(i), tensor: s.out.clone(), message })?;
        defined.push((s.out.as_str(), result));
    }
    Ok(())
}

/// Checks one statement's constraints on concrete shapes. One-sided: a result that passes
/// satisfies the constraints, which does not make it the result
/// ([`judge_step`](super::judge::judge_step) says that).
pub fn check_step(s: &Stmt, args: &[&ConcreteShape], c: &ConcreteShape) -> Result<(), String> {
    let leq = |res: &ConcreteShape, rk: RowKind, opnd: &ConcreteShape, ok: RowKind, what: &str| {
        row_leq(res.row(rk), opnd.row(ok)).map_err(|e| format!("{what}: {e}"))
    };
    match (s.op, args) {
        (OpKind::Pointwise, args) if (1..=3).contains(&args.len()) => {
            for (i, a) in args.iter().enumerate() {
                for k in RowKind::ALL {
                    leq(c, k, a, k, &format!("operand {i} {} row", k.name()))?;
                }
            }
            Ok(())
        }
        (OpKind::Compose, [a, b]) => {
            leq(a, I, b, O, "a's input against b's output")?;
            leq(c, B, a, B, "batch against a")?;
            leq(c, B, b, B, "batch against b")?;
            leq(c, I, b, I, "input against b's input")?;
            leq(c, O, a, O, "output against a's output")
        }
        (OpKind::Transpose, [a]) => {
            leq(c, B, a, B, "batch")?;
            leq(c, I, a, O, "input against the operand's output")?;
            leq(c, O, a, I, "output against the operand's input")
        }
        (OpKind::BatchSlice, [a]) => check_batch_slice(a, c),
        (OpKind::Numpy, args) => {
            let text = s.spec.as_deref().ok_or("a numpy step without subscripts")?;
            check_numpy(text, args, c).map_err(|e| format!("subscripts {text:?}: {e}"))
        }
        (op, args) if op.has_spec() => {
            let text = s.spec.as_deref().ok_or("a spec operation without a spec")?;
            let spec = parse_einsum(text).map_err(|e| format!("spec {text:?}: {e}"))?;
            check_spec(&spec, args, c).map(|_| ()).map_err(|e| format!("spec {text:?}: {e}"))
        }
        (op, args) => Err(format!("{op} with {} operands", args.len())),
    }
}

fn check_batch_slice(a: &ConcreteShape, c: &ConcreteShape) -> Result<(), String> {
    let ab = a.batch.flat();
    let Some((_, rest)) = ab.split_first() else {
        return Err("the operand has no batch axis".into());
    };
    if rest != c.batch.flat().as_slice() {
        return Err("the result's batch row is not the operand's without its first axis".into());
    }
    for k in [I, O] {
        if a.row(k).flat() != c.row(k).flat() {
            return Err(format!("the {} rows differ", k.name()));
        }
    }
    Ok(())
}

/// Checks that a leaf's solved shape fits its declaration.
pub fn check_leaf(d: &Decl, shape: &ConcreteShape) -> Result<(), String> {
    let Some(text) = &d.shape else { return Ok(()) };
    let t = parse_shape_string(text).map_err(|e| e.to_string())?;
    let mut vars: Vec<(String, Vec<ConcreteDim>)> = Vec::new();
    for k in RowKind::ALL {
        let flat = shape.row(k).flat();
        let middle = fit_row(t.row(k), &flat).map_err(|e| format!("{} row: {e}", k.name()))?;
        if let (Some(name), Some(middle)) = (&t.row(k).var, middle) {
            match vars.iter().find(|(n, _)| n == name) {
                Some((_, v)) if *v != middle => {
                    return Err(format!("row variable {name} takes two values"));
                }
                Some(_) => {}
                None => vars.push((name.clone(), middle)),
            }
        }
    }
    Ok(())
}

/// Matches a declared row against solved axes; returns the row variable's part.
fn fit_row(row: &TextRow, flat: &[ConcreteDim]) -> Result<Option<Vec<ConcreteDim>>, String> {
    let beg: Vec<ConcreteDim> = row.beg.iter().map(text_dim).collect();
    let dims: Vec<ConcreteDim> = row.dims.iter().map(text_dim).collect();
    let n = beg.len() + dims.len();
    let ok_len = if row.var.is_some() { flat.len() >= n } else { flat.len() == n };
    if !ok_len || flat[..beg.len()] != beg[..] || flat[flat.len() - dims.len()..] != dims[..] {
        let declared = super::model::join_dims(&[beg, dims].concat());
        return Err(format!("declared [{declared}], solved [{}]", super::model::join_dims(flat)));
    }
    Ok(row.var.as_ref().map(|_| flat[row.beg.len()..flat.len() - row.dims.len()].to_vec()))
}
