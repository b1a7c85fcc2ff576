//! Copies of strided views into fresh row-major buffers.

use super::error::KernelError;
use super::nest::{Access, Init, Nest};
use super::operator::{Accum, Combine};
use super::run::RunOptions;
use super::scalar::Scalar;
use crate::tensor::{hugepage, row_major, Element, Layout};

/// The elements of `layout` over `src`, in row-major order of the view (any element type;
/// addresses outside `src` read the default value, which a checked tensor never produces);
/// an [`Allocation`](crate::tensor::TensorError::Allocation) error when the system cannot
/// hold the copy.
pub fn gather<T: Element>(src: &[T], layout: &Layout) -> Result<Vec<T>, KernelError> {
    let mut out = hugepage::try_with_capacity(layout.numel())?;
    layout.for_each_address(|a| out.push(src.get(a).copied().unwrap_or_default()));
    Ok(out)
}

/// A row-major copy of the view `layout` over `src` through the kernel (tiled for
/// transposes, parallel when large).
pub fn copy_contiguous<T: Scalar>(
    src: &[T],
    layout: &Layout,
    opts: &RunOptions,
) -> Result<Vec<T>, KernelError> {
    let nest = Nest {
        extents: layout.shape().to_vec(),
        output: Access::new(0, row_major(layout.shape())?.to_vec()),
        inputs: vec![Access::new(
            isize::try_from(layout.offset())
                .map_err(|_| KernelError::Overflow { what: "an offset" })?,
            layout.strides().to_vec(),
        )],
        accum: Accum::Store,
        combine: Combine::First,
        init: Init::No,
    };
    nest.run_fresh(&[src], layout.numel(), opts)
}
