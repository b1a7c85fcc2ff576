//! Lowering one einsum contraction step onto a kernel [`Nest`].
//!
//! The product space has one loop per distinct label (the result's labels first, then the
//! summed ones). Each operand axis follows its label's loop ([`AxisIndex::Iter`]): a label
//! repeated inside one operand gives that loop the sum of the axes' strides (a diagonal); an
//! operand axis of size 1 under a label of another size is broadcast ([`AxisIndex::Fixed`]`(0)`).
//! Summed labels have output stride 0, so they accumulate (`+` of `*`, output initialised
//! with 0).

use smallvec::SmallVec;

use super::error::EinsumError;
use crate::kernel::{Access, Accum, AxisIndex, Combine, Init, Nest, RunOptions, Scalar};
use crate::tensor::{Layout, Tensor};

/// One operand of a step: a tensor of the compute type and the label of each of its axes.
pub struct Operand<'a> {
    /// The tensor (its dtype is the compute type).
    pub tensor: &'a Tensor,
    /// The label of each axis.
    pub labels: &'a [usize],
}

/// The size of `label` among `ops`: the size of its axes, where 1 broadcasts (`None` when no
/// operand has the label).
fn step_size(ops: &[Operand<'_>], label: usize) -> Option<usize> {
    let mut size = None;
    for op in ops {
        for (&l, &s) in op.labels.iter().zip(op.tensor.shape()) {
            if l == label {
                size = Some(match size {
                    None | Some(1) => s,
                    Some(cur) => cur,
                });
            }
        }
    }
    size
}

/// Contracts `ops` into a fresh row-major tensor whose axes carry the labels `out`
/// (each of which must occur in some operand): the product of the operands, summed over
/// every label not in `out`.
pub fn contract<T: Scalar>(
    ops: &[Operand<'_>],
    out: &[usize],
    opts: &RunOptions,
) -> Result<Tensor, EinsumError> {
    let mut loops: SmallVec<[usize; 8]> = out.iter().copied().collect();
    for op in ops {
        for &l in op.labels {
            if !loops.contains(&l) {
                loops.push(l);
            }
        }
    }
    let extents: Vec<usize> = loops.iter().map(|&l| step_size(ops, l).unwrap_or(1)).collect();
    let loop_of = |l: usize| loops.iter().position(|&x| x == l).unwrap_or(0);
    let out_shape: SmallVec<[usize; 8]> = out.iter().map(|&l| extents[loop_of(l)]).collect();
    let out_layout = Layout::contiguous(&out_shape)?;
    let out_index: SmallVec<[AxisIndex; 8]> =
        out.iter().map(|&l| AxisIndex::Iter(loop_of(l))).collect();
    let mut inputs = Vec::with_capacity(ops.len());
    let mut bufs: SmallVec<[&[T]; 4]> = SmallVec::with_capacity(ops.len());
    for op in ops {
        let (data, layout) =
            op.tensor.typed::<T>().ok_or_else(|| crate::tensor::TensorError::DType {
                expected: T::DTYPE.name(),
                got: op.tensor.dtype().name(),
            })?;
        let index: SmallVec<[AxisIndex; 8]> = op
            .labels
            .iter()
            .zip(layout.shape())
            .map(|(&l, &s)| {
                let d = loop_of(l);
                if s == 1 && extents[d] != 1 {
                    AxisIndex::Fixed(0)
                } else {
                    AxisIndex::Iter(d)
                }
            })
            .collect();
        inputs.push(Access::project(layout, &index, loops.len())?);
        bufs.push(data);
    }
    let nest = Nest {
        extents,
        output: Access::project(&out_layout, &out_index, loops.len())?,
        inputs,
        accum: Accum::Add,
        combine: if ops.len() == 1 { Combine::First } else { Combine::Mul },
        init: Init::Touched,
    };
    let result = nest.run_fresh(&bufs, out_layout.numel(), opts)?;
    Ok(Tensor::from_vec(&out_shape, result)?)
}
