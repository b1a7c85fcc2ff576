//! Errors of projection derivation and plan execution.

use crate::code::{Coded, ErrorCode};
use crate::infer::InferError;
#[cfg(feature = "kernel")]
use crate::kernel::KernelError;

/// A plan that cannot be derived or run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProjectError {
    /// The shapes are not solved.
    #[error(transparent)]
    Infer(#[from] InferError),
    /// Solved shapes that do not line up (a solver bug, reported rather than hidden).
    #[error("projection: {0}")]
    Misaligned(String),
    /// A plan too large to derive: too many combinations of concatenation parts, or parts
    /// that together would hold more index entries than the operation's size allows.
    #[error("projection: {0}")]
    TooLarge(String),
    /// Leaf data missing or of the wrong length.
    #[error("{0}")]
    Data(String),
    /// Buffers of different element types where a plan needs one.
    #[error("{0}")]
    DType(String),
    /// An output view whose elements share addresses: two results would be written to one
    /// place.
    #[error("the output view's axis {axis} (size {size}, stride {stride}) overlaps its other axes: two results would share an element")]
    OutputOverlap {
        /// The axis found to overlap the others.
        axis: usize,
        /// Its size.
        size: usize,
        /// Its stride, in elements.
        stride: isize,
    },
    /// A gradient plan asked of a step that has none (a maximum, a product accumulation…), or
    /// of an operand it does not have.
    #[error("no gradient plan: {0}")]
    NoGradient(String),
    /// numpy subscripts that do not fit the operands (as [`einsum`](crate::einsum) says).
    #[error(transparent)]
    Numpy(#[from] crate::numpy::EinsumError),
    /// The kernel refused the nest.
    #[cfg(feature = "kernel")]
    #[error(transparent)]
    Kernel(#[from] KernelError),
}

impl Coded for ProjectError {
    fn code(&self) -> ErrorCode {
        match self {
            ProjectError::Infer(e) => e.code(),
            ProjectError::Misaligned(_) => ErrorCode::Mismatch,
            ProjectError::TooLarge(_) => ErrorCode::Bounds,
            ProjectError::Data(_) => ErrorCode::Elems,
            ProjectError::DType(_) => ErrorCode::Type,
            ProjectError::OutputOverlap { .. } => ErrorCode::Value,
            ProjectError::NoGradient(_) => ErrorCode::Unsupported,
            ProjectError::Numpy(e) => e.code(),
            #[cfg(feature = "kernel")]
            ProjectError::Kernel(e) => e.code(),
        }
    }
}
