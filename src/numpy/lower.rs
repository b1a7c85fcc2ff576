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

/// One operand of a step as elements of the compute type `T`: a slice, the layout of the
/// operand over it, and the label of each axis.
pub struct Slab<'a, T> {
    /// The elements.
    pub data: &'a [T],
    /// The operand's layout over `data`.
    pub layout: &'a Layout,
    /// The label of each axis.
    pub labels: &'a [usize],
}

impl<'a> Operand<'a> {
    /// The operand's elements, which must be of the compute type `T`.
    fn slab<T: Scalar>(&self) -> Result<Slab<'a, T>, EinsumError> {
        let (data, layout) =
            self.tensor.typed::<T>().ok_or_else(|| crate::tensor::TensorError::DType {
                expected: T::DTYPE.name(),
                got: self.tensor.dtype().name(),
            })?;
        Ok(Slab { data, layout, labels: self.labels })
    }
}

/// The size of `label` among `ops`: the size of its axes, where 1 broadcasts (`None` when no
/// operand has the label).
fn step_size<T>(ops: &[Slab<'_, T>], label: usize) -> Option<usize> {
    let mut size = None;
    for op in ops {
        for (&l, &s) in op.labels.iter().zip(op.layout.shape()) {
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
    let slabs: SmallVec<[Slab<'_, T>; 4]> =
        ops.iter().map(Operand::slab).collect::<Result<_, _>>()?;
    contract_slabs(&slabs, out, opts)
}

/// [`contract`] of operands given as slices.
pub fn contract_slabs<T: Scalar>(
    ops: &[Slab<'_, T>],
    out: &[usize],
    opts: &RunOptions,
) -> Result<Tensor, EinsumError> {
    let (nest, out_shape) = lower(ops, out, None)?;
    let bufs: SmallVec<[&[T]; 4]> = ops.iter().map(|op| op.data).collect();
    let result = nest.run_fresh(&bufs, crate::tensor::numel(&out_shape)?, opts)?;
    Ok(Tensor::from_vec(&out_shape, result)?)
}

/// Contracts `ops` into the caller's `out`, viewed through `out_layout` (whose shape must be
/// the result's), with [`contract`]'s semantics: every element of the view is written.
pub fn contract_into<T: Scalar>(
    ops: &[Slab<'_, T>],
    labels: &[usize],
    out: &mut [T],
    out_layout: &Layout,
    opts: &RunOptions,
) -> Result<(), EinsumError> {
    let nest = nest_into(ops, labels, out_layout, out.len())?;
    let bufs: SmallVec<[&[T]; 4]> = ops.iter().map(|op| op.data).collect();
    Ok(nest.run_lean_or_general(&bufs, out, opts)?)
}

/// The nest of [`contract_into`] for an output slice of `out_len` elements.
pub fn nest_into<T>(
    ops: &[Slab<'_, T>],
    labels: &[usize],
    out_layout: &Layout,
    out_len: usize,
) -> Result<Nest, EinsumError> {
    let (mut nest, _) = lower(ops, labels, Some(out_layout))?;
    if out_layout.numel() == out_len {
        // The view covers the whole slice (its elements are disjoint and fit): filling the
        // slice first is the same as filling the touched elements, and lets small nests run
        // on the kernel's lean path.
        nest.init = Init::Whole;
    }
    Ok(nest)
}

/// The nest of one step and the result's shape; the result is laid out by `out_layout`, or
/// row-major from 0 when `None`.
fn lower<T>(
    ops: &[Slab<'_, T>],
    out: &[usize],
    out_layout: Option<&Layout>,
) -> Result<(Nest, Vec<usize>), EinsumError> {
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
    let out_shape: Vec<usize> = out.iter().map(|&l| extents[loop_of(l)]).collect();
    let fresh;
    let out_layout = match out_layout {
        Some(given) if given.shape() == out_shape.as_slice() => given,
        Some(given) => {
            let got = given.shape().to_vec();
            return Err(EinsumError::WrongShape { operand: None, expected: out_shape, got });
        }
        None => {
            fresh = Layout::contiguous(&out_shape)?;
            &fresh
        }
    };
    let out_index: SmallVec<[AxisIndex; 8]> =
        out.iter().map(|&l| AxisIndex::Iter(loop_of(l))).collect();
    let mut inputs = Vec::with_capacity(ops.len());
    for op in ops {
        let index: SmallVec<[AxisIndex; 8]> = op
            .labels
            .iter()
            .zip(op.layout.shape())
            .map(|(&l, &s)| {
                let d = loop_of(l);
                if s == 1 && extents[d] != 1 {
                    AxisIndex::Fixed(0)
                } else {
                    AxisIndex::Iter(d)
                }
            })
            .collect();
        inputs.push(Access::project(op.layout, &index, loops.len())?);
    }
    let nest = Nest {
        extents,
        output: Access::project(out_layout, &out_index, loops.len())?,
        inputs,
        accum: Accum::Add,
        combine: if ops.len() == 1 { Combine::First } else { Combine::Mul },
        init: Init::Touched,
    };
    Ok((nest, out_shape))
}
