//! Copies of strided views into row-major buffers.

use crate::tensor::{Element, Layout};

/// The elements of `layout` over `src`, in row-major order of the view.
pub fn gather<T: Element>(src: &[T], layout: &Layout) -> Vec<T> {
    let mut out = Vec::with_capacity(layout.numel());
    layout.for_each_address(|a| out.push(src.get(a).copied().unwrap_or_default()));
    out
}
