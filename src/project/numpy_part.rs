//! The plan of a numpy step (`ij,jk->ik`): one loop per label, an operand's axis of size 1
//! read at index 0 where its label is longer (numpy's broadcasting), a repeated label a
//! diagonal.

use super::derive::{assemble, Compute};
use super::error::ProjectError;
use super::plan::{Index, IndexPlan, Loop, PartOperand, PlanPart};
use super::sizes::Sizes;
use crate::infer::OpKind;
use crate::numpy::{analyze, Label};
use crate::spec::ast::{Name, RowKind};
use crate::spec::parse_numpy;

/// The one part of numpy subscripts `text` over operands whose output rows are `args` (a numpy
/// step's operands and result have no batch or input axes) into a result sized `out`.
pub fn numpy_part(text: &str, out: &Sizes, args: &[Sizes]) -> Result<PlanPart, ProjectError> {
    let misaligned = |what: String| ProjectError::Misaligned(what);
    let only_output =
        |s: &Sizes| s.row(RowKind::Batch).len() == 0 && s.row(RowKind::Input).len() == 0;
    if !only_output(out) || !args.iter().all(only_output) {
        return Err(misaligned("a numpy step's tensors have batch or input axes".into()));
    }
    let parsed = parse_numpy(text).map_err(|e| misaligned(format!("numpy subscripts: {e}")))?;
    let shapes: Vec<Vec<usize>> =
        args.iter().map(|a| usizes(a.memory())).collect::<Result<_, _>>()?;
    let refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
    let an = analyze(&parsed, &refs).map_err(|e| misaligned(format!("numpy step: {e}")))?;
    if an.output_shape().iter().map(|&d| d as u64).ne(out.memory().iter().copied()) {
        return Err(misaligned(format!(
            "the numpy step's result is {:?} but its subscripts give {:?}",
            out.memory(),
            an.output_shape()
        )));
    }
    let loops = an
        .labels
        .iter()
        .zip(&an.sizes)
        .map(|(l, &size)| Loop { name: label_name(l), size: size as u64 })
        .collect();
    let result = an.output.iter().map(|&l| Index::Iter(l)).collect();
    let operands =
        an.operands
            .iter()
            .zip(&shapes)
            .enumerate()
            .map(|(k, (labels, shape))| {
                let index =
                    labels
                        .iter()
                        .zip(shape)
                        .map(|(&l, &d)| {
                            if d == 1 && an.sizes[l] != 1 {
                                Index::Fixed(0)
                            } else {
                                Index::Iter(l)
                            }
                        })
                        .collect();
                PartOperand { operand: k, index }
            })
            .collect();
    Ok(PlanPart { loops, result, operands })
}

/// A label's loop name: the letter, or `...k` for the ellipsis's dimension `k`.
fn label_name(l: &Label) -> Name {
    match l {
        Label::Letter(c) => Name::new(c.to_string()),
        Label::Ellipsis(k) => Loop::numbered("...", "", *k, ""),
    }
}

fn usizes(dims: &[u64]) -> Result<Vec<usize>, ProjectError> {
    dims.iter()
        .map(|&d| usize::try_from(d).map_err(|_| ProjectError::TooLarge(format!("size {d}"))))
        .collect()
}

/// The plan of numpy's einsum `subscripts` on operands of `shapes` (numpy's broadcasting of
/// size-1 axes, diagonals, ellipses, the implicit output): one part, one loop per label, a
/// sum of products (one operand: a sum). Errors: those of [`einsum`](crate::einsum), mapped
/// to projection errors.
///
/// ```
/// use einrow::project::plan_numpy;
/// let plan = plan_numpy("ij,jk->ik", &[&[2, 3], &[3, 4]])?;
/// assert_eq!(plan.result_dims, [2, 4]);
/// # #[cfg(feature = "kernel")] {
/// let mut out = [0.0f64; 8];
/// plan.compile()?.run(&[&[1.0; 6], &[1.0; 12]], &mut out)?;
/// assert_eq!(out, [3.0; 8]);
/// # }
/// # Ok::<(), einrow::project::ProjectError>(())
/// ```
pub fn plan_numpy(subscripts: &str, shapes: &[&[usize]]) -> Result<IndexPlan, ProjectError> {
    let parsed = parse_numpy(subscripts).map_err(|e| ProjectError::Numpy(e.into()))?;
    let an = analyze(&parsed, shapes).map_err(ProjectError::Numpy)?;
    let sizes = |dims: &[usize]| {
        Sizes::from_rows(|kind, out| {
            if kind == RowKind::Output {
                out.extend(dims.iter().map(|&d| d as u64));
            }
            0
        })
    };
    let out = sizes(&an.output_shape());
    let args: Vec<Sizes> = shapes.iter().map(|s| sizes(s)).collect();
    let mut plan = IndexPlan::empty(OpKind::Numpy);
    plan.parts.push(numpy_part(subscripts, &out, &args)?);
    assemble(
        &mut plan,
        (OpKind::Numpy, Compute::default_for(OpKind::Numpy, args.len())),
        &out,
        &args,
    );
    Ok(plan)
}
