//! Plans of the broadcasting operations (pointwise, compose, transpose) and batch slicing:
//! every result axis is a loop; an operand axis follows the result axis it aligns with
//! (leading flank from the left edge, trailing flank from the right edge), or index 0 where
//! a size-1 axis broadcasts. Compose adds one loop per contracted axis.

use smallvec::SmallVec;

use super::error::ProjectError;
use super::plan::{Index, Loop, PartOperand, PlanPart};
use super::sizes::{RowSizes, Sizes};
use crate::infer::OpKind;
use crate::spec::ast::RowKind;

/// Loops of a row: (loop index, size) per axis.
type RowLoops = SmallVec<[(usize, u64); 4]>;

/// The indices of one row.
type RowIndices = SmallVec<[Index; 4]>;

struct Builder {
    loops: Vec<Loop>,
}

impl Builder {
    fn row_loops(&mut self, prefix: &str, row: RowSizes) -> RowLoops {
        row.all()
            .iter()
            .enumerate()
            .map(|(i, &size)| {
                self.loops.push(Loop { name: Loop::numbered(prefix, "", i, ""), size });
                (self.loops.len() - 1, size)
            })
            .collect()
    }
}

/// The indices of an operand row that broadcasts into `res`.
fn align(res: &RowLoops, opnd: RowSizes) -> Result<RowIndices, ProjectError> {
    let n = res.len();
    if opnd.len() > n {
        return Err(ProjectError::Misaligned(format!(
            "an operand row of {} against a result row of {}",
            crate::shape::axes_count(opnd.len()),
            crate::shape::axes_count(n)
        )));
    }
    let (beg, dims) = (opnd.beg(), opnd.dims());
    let pairs = beg.iter().zip(&res[..beg.len()]);
    let pairs = pairs.chain(dims.iter().zip(&res[n - dims.len()..]));
    pairs
        .map(|(&size, &(l, rsize))| match size {
            s if s == rsize => Ok(Index::Iter(l)),
            1 => Ok(Index::Fixed(0)),
            s => Err(ProjectError::Misaligned(format!("size {s} against a loop of {rsize}"))),
        })
        .collect()
}

fn iters(r: &RowLoops) -> RowIndices {
    r.iter().map(|(l, _)| Index::Iter(*l)).collect()
}

/// Memory order of per-kind index lists (given in [`RowKind::ALL`] order).
fn memory_order(rows: [RowIndices; 3]) -> Vec<Index> {
    let [b, i, o] = rows;
    let mut out = Vec::with_capacity(b.len() + i.len() + o.len());
    out.extend(b);
    out.extend(o);
    out.extend(i);
    out
}

/// The operand rows of `a` in [`RowKind::ALL`] order.
fn rows(a: &Sizes) -> [RowSizes<'_>; 3] {
    RowKind::ALL.map(|k| a.row(k))
}

/// The plan part of a broadcasting operation or a batch slice.
pub fn positional_part(
    op: OpKind,
    out: &Sizes,
    args: &[Sizes],
    slice_index: u64,
) -> Result<PlanPart, ProjectError> {
    let mut b = Builder { loops: Vec::with_capacity(out.memory().len()) };
    let cb = b.row_loops("b", out.row(RowKind::Batch));
    let co = b.row_loops("o", out.row(RowKind::Output));
    let ci = b.row_loops("i", out.row(RowKind::Input));
    let result = memory_order([iters(&cb), iters(&ci), iters(&co)]);
    let missing = || ProjectError::Misaligned(format!("{op} is missing an operand"));
    let indices = match op {
        OpKind::Pointwise => args
            .iter()
            .map(|a| {
                let [ab, ai, ao] = rows(a);
                Ok(memory_order([align(&cb, ab)?, align(&ci, ai)?, align(&co, ao)?]))
            })
            .collect::<Result<Vec<_>, ProjectError>>()?,
        OpKind::Transpose => {
            let [ab, ai, ao] = rows(args.first().ok_or_else(missing)?);
            vec![memory_order([align(&cb, ab)?, align(&co, ai)?, align(&ci, ao)?])]
        }
        OpKind::Compose => {
            let (Some(a), Some(x)) = (args.first(), args.get(1)) else { return Err(missing()) };
            let contracted = b.row_loops("k", a.row(RowKind::Input));
            let [ab, _, ao] = rows(a);
            let a_idx = memory_order([align(&cb, ab)?, iters(&contracted), align(&co, ao)?]);
            let [xb, xi, xo] = rows(x);
            let x_idx = memory_order([align(&cb, xb)?, align(&ci, xi)?, align(&contracted, xo)?]);
            vec![a_idx, x_idx]
        }
        OpKind::BatchSlice => {
            let first =
                args.first().ok_or_else(missing)?.row(RowKind::Batch).all().first().copied();
            if first.is_none_or(|n| slice_index >= n) {
                let axis =
                    first.map_or("no batch axis".to_string(), |n| format!("a batch axis of {n}"));
                return Err(ProjectError::TooLarge(format!("batch index {slice_index} of {axis}")));
            }
            let mut batch = RowIndices::new();
            batch.push(Index::Fixed(slice_index));
            batch.extend(iters(&cb));
            vec![memory_order([batch, iters(&ci), iters(&co)])]
        }
        other => return Err(ProjectError::Misaligned(format!("{other} is not positional"))),
    };
    // Every operand is read, in order.
    let operands = indices
        .into_iter()
        .enumerate()
        .map(|(operand, index)| PartOperand { operand, index })
        .collect();
    Ok(PlanPart { loops: b.loops, result, operands })
}
