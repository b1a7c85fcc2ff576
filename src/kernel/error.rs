//! Errors of the kernel layer: a nest that does not fit its buffers or is malformed.

use crate::code::{Coded, ErrorCode};

/// What can go wrong validating or running a [`Nest`](super::Nest).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KernelError {
    /// A stride or coefficient list whose length is not the number of loops.
    #[error("{what} has {got} entries for {expected} loops")]
    Rank {
        /// Which list.
        what: String,
        /// The number of loops.
        expected: usize,
        /// Entries given.
        got: usize,
    },
    /// A different number of input buffers than the nest has inputs.
    #[error("the nest has {expected} inputs, {got} buffers were given")]
    Arity {
        /// Inputs of the nest.
        expected: usize,
        /// Buffers given.
        got: usize,
    },
    /// An operand address outside its buffer.
    #[error("{operand} reaches element {reach}, outside its buffer of {len} elements")]
    OutOfBounds {
        /// `output` or `input k`.
        operand: String,
        /// The address reached.
        reach: i128,
        /// The buffer length.
        len: usize,
    },
    /// Arithmetic on extents, strides or addresses that overflows.
    #[error("size arithmetic overflows: {what}")]
    Overflow {
        /// What was being computed.
        what: &'static str,
    },
    /// An operation the nest cannot express (e.g. a combine without inputs).
    #[error("{message}")]
    Unsupported {
        /// What is not supported.
        message: String,
    },
    /// An error from the tensor layer while preparing operands.
    #[error(transparent)]
    Tensor(#[from] crate::tensor::TensorError),
}

impl Coded for KernelError {
    fn code(&self) -> ErrorCode {
        match self {
            KernelError::Rank { .. } => ErrorCode::Rank,
            KernelError::Arity { .. } => ErrorCode::Arity,
            KernelError::OutOfBounds { .. } => ErrorCode::Bounds,
            KernelError::Overflow { .. } => ErrorCode::Value,
            KernelError::Unsupported { .. } => ErrorCode::Unsupported,
            KernelError::Tensor(e) => e.code(),
        }
    }
}
