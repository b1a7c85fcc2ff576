//! Plans of the broadcasting operations (pointwise, compose, transpose) and batch slicing:
//! every result axis is a loop; an operand axis follows the result axis it aligns with
//! (leading flank from the left edge, trailing flank from the right edge), or index 0 where
//! a size-1 axis broadcasts. Compose adds one loop per contracted axis.

use super::concrete::{Concrete, ConcreteRow};
use super::error::ProjectError;
use super::plan::{Index, Loop, PlanPart};
use crate::infer::OpKind;
use crate::spec::ast::RowKind;

/// Loops of a row: (loop index, size) per axis.
type RowLoops = Vec<(usize, u64)>;

struct Builder {
    loops: Vec<Loop>,
}

impl Builder {
    fn row_loops(&mut self, prefix: &str, row: &ConcreteRow) -> RowLoops {
        row.flat()
            .into_iter()
            .enumerate()
            .map(|(i, size)| {
                self.loops.push(Loop { name: smol_str::format_smolstr!("{prefix}{i}"), size });
                (self.loops.len() - 1, size)
            })
            .collect()
    }
}

/// The indices of an operand row that broadcasts into `res`.
fn align(res: &RowLoops, opnd: &ConcreteRow) -> Result<Vec<Index>, ProjectError> {
    let n = res.len();
    if opnd.len() > n {
        return Err(ProjectError::Misaligned(format!(
            "an operand row of {} axes against a result row of {n}",
            opnd.len()
        )));
    }
    let pairs = opnd.beg.iter().zip(&res[..opnd.beg.len()]);
    let pairs = pairs.chain(opnd.dims.iter().zip(&res[n - opnd.dims.len()..]));
    pairs
        .map(|(&size, &(l, rsize))| match size {
            s if s == rsize => Ok(Index::Iter(l)),
            1 => Ok(Index::Fixed(0)),
            s => Err(ProjectError::Misaligned(format!("size {s} against a loop of {rsize}"))),
        })
        .collect()
}

/// Memory order of per-kind index lists (given in [`RowKind::ALL`] order).
fn memory_order(rows: [Vec<Index>; 3]) -> Vec<Index> {
    let [b, i, o] = rows;
    b.into_iter().chain(o).chain(i).collect()
}

/// The plan part of a broadcasting operation or a batch slice.
pub fn positional_part(
    op: OpKind,
    out: &Concrete,
    args: &[Concrete],
    slice_index: u64,
) -> Result<PlanPart, ProjectError> {
    let mut b = Builder { loops: Vec::new() };
    let cb = b.row_loops("b", out.row(RowKind::Batch));
    let co = b.row_loops("o", out.row(RowKind::Output));
    let ci = b.row_loops("i", out.row(RowKind::Input));
    let iters = |r: &RowLoops| r.iter().map(|(l, _)| Index::Iter(*l)).collect::<Vec<_>>();
    let result = memory_order([iters(&cb), iters(&ci), iters(&co)]);
    let operands = match op {
        OpKind::Pointwise => args
            .iter()
            .map(|a| {
                let rows =
                    [align(&cb, &a.rows[0])?, align(&ci, &a.rows[1])?, align(&co, &a.rows[2])?];
                Ok(Some(memory_order(rows)))
            })
            .collect::<Result<Vec<_>, ProjectError>>()?,
        OpKind::Transpose => {
            let a = &args[0];
            vec![Some(memory_order([
                align(&cb, &a.rows[0])?,
                align(&co, &a.rows[1])?,
                align(&ci, &a.rows[2])?,
            ]))]
        }
        OpKind::Compose => {
            let (a, x) = (&args[0], &args[1]);
            let contracted = b.row_loops("k", a.row(RowKind::Input));
            let a_idx = memory_order([
                align(&cb, &a.rows[0])?,
                iters(&contracted),
                align(&co, &a.rows[2])?,
            ]);
            let x_idx = memory_order([
                align(&cb, &x.rows[0])?,
                align(&ci, &x.rows[1])?,
                align(&contracted, &x.rows[2])?,
            ]);
            vec![Some(a_idx), Some(x_idx)]
        }
        OpKind::BatchSlice => {
            let mut batch = vec![Index::Fixed(slice_index)];
            batch.extend(iters(&cb));
            vec![Some(memory_order([batch, iters(&ci), iters(&co)]))]
        }
        other => return Err(ProjectError::Misaligned(format!("{other} is not positional"))),
    };
    Ok(PlanPart { loops: b.loops, result, operands })
}
