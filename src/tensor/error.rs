//! Errors of the tensor layer: layouts, views, storage and the named (Nervana) view model.

use crate::code::{Coded, ErrorCode};

/// What can go wrong building a tensor, a layout or a view.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TensorError {
    /// A dimension larger than [`MAX_DIM`](super::MAX_DIM) (2^62).
    #[error("dimension {dim} is larger than the limit 2^62")]
    DimTooLarge {
        /// The offending size.
        dim: u64,
    },
    /// Size or address arithmetic that does not fit (element counts above 2^62, strides or
    /// offsets outside `isize`).
    #[error("size arithmetic overflows while computing {what}")]
    Overflow {
        /// What was being computed.
        what: &'static str,
    },
    /// A buffer the system cannot allocate.
    #[error("cannot allocate {elements} elements of {bytes_each} bytes for a result")]
    Allocation {
        /// Elements requested.
        elements: usize,
        /// Bytes per element.
        bytes_each: usize,
    },
    /// A data list whose length does not match the shape's element count.
    #[error("{got} values given for a shape of {expected} elements")]
    DataLength {
        /// Elements the shape holds.
        expected: usize,
        /// Values given.
        got: usize,
    },
    /// An operation that needs a different number of axes.
    #[error("{what}: expected {expected} axes, got {got}")]
    Rank {
        /// The operation.
        what: &'static str,
        /// Axes expected.
        expected: usize,
        /// Axes found.
        got: usize,
    },
    /// An axis number outside `0..rank`.
    #[error("axis {axis} is out of range for a tensor of rank {rank}")]
    AxisOutOfRange {
        /// The axis asked for.
        axis: usize,
        /// The tensor's rank.
        rank: usize,
    },
    /// An index outside `-len..len`.
    #[error("index {index} is out of range for an axis of length {len}")]
    IndexOutOfRange {
        /// The index asked for.
        index: i64,
        /// The axis length.
        len: usize,
    },
    /// A slice step of zero.
    #[error("slice step cannot be zero")]
    ZeroStep,
    /// A permutation that is not one.
    #[error("{perm:?} is not a permutation of the {rank} axes")]
    NotAPermutation {
        /// The order given.
        perm: Vec<usize>,
        /// The tensor's rank.
        rank: usize,
    },
    /// A shape that cannot be broadcast to another.
    #[error("shape {from:?} cannot be broadcast to {to:?}")]
    Broadcast {
        /// The source shape.
        from: Vec<usize>,
        /// The target shape.
        to: Vec<usize>,
    },
    /// A reshape to a different number of elements.
    #[error("cannot reshape {from:?} ({from_elems} elements) to {to:?} ({to_elems} elements)")]
    Reshape {
        /// The source shape.
        from: Vec<usize>,
        /// Its element count.
        from_elems: usize,
        /// The target shape.
        to: Vec<usize>,
        /// Its element count.
        to_elems: usize,
    },
    /// A layout that addresses elements outside its buffer.
    #[error("the layout reaches element {reach}, outside a buffer of {len} elements")]
    OutOfStorage {
        /// The furthest (or a negative) element address reached.
        reach: i128,
        /// The buffer length.
        len: usize,
    },
    /// An element type that is not the one asked for.
    #[error("expected a {expected} tensor, got {got}")]
    DType {
        /// The type asked for.
        expected: &'static str,
        /// The tensor's type.
        got: &'static str,
    },
    /// An element type name that is not one of einrow's storage types.
    #[error(
        "unknown element type {name:?}: einrow stores bool, int8, uint8, int16, int32, int64, \
         float16, bfloat16, float32 and float64"
    )]
    UnknownDType {
        /// The name given.
        name: String,
    },
    /// Named-view error: an axis name used twice in one tensor.
    #[error("axis name {name:?} appears more than once")]
    DuplicateAxis {
        /// The repeated name.
        name: String,
    },
    /// Named-view error: an axis name the view does not have, or a set of names that is not
    /// the view's set.
    #[error("{message}")]
    AxisNames {
        /// What is wrong with the names.
        message: String,
    },
    /// Named-view error: two axes of one name with different lengths, or a flatten whose
    /// components are not the view's axes in order.
    #[error("{message}")]
    AxisMismatch {
        /// What does not match.
        message: String,
    },
    /// A value that is not allowed (a negative length, a slice step other than ±1 where only
    /// those are supported).
    #[error("{message}")]
    Value {
        /// What is wrong.
        message: String,
    },
    /// Wrong number of operands or list entries.
    #[error("{message}")]
    Arity {
        /// What is wrong.
        message: String,
    },
}

impl Coded for TensorError {
    fn code(&self) -> ErrorCode {
        use TensorError::*;
        match self {
            DimTooLarge { .. }
            | Overflow { .. }
            | Allocation { .. }
            | ZeroStep
            | NotAPermutation { .. } => ErrorCode::Value,
            Value { .. } => ErrorCode::Value,
            DataLength { .. } | Reshape { .. } => ErrorCode::Elems,
            Rank { .. } => ErrorCode::Rank,
            AxisOutOfRange { .. } | IndexOutOfRange { .. } | OutOfStorage { .. } => {
                ErrorCode::Bounds
            }
            Broadcast { .. } | AxisMismatch { .. } => ErrorCode::Mismatch,
            DType { .. } => ErrorCode::Type,
            UnknownDType { .. } => ErrorCode::Unsupported,
            DuplicateAxis { .. } | AxisNames { .. } => ErrorCode::Label,
            Arity { .. } => ErrorCode::Arity,
        }
    }
}

/// Shorthand for results of this layer.
pub type Result<T, E = TensorError> = std::result::Result<T, E>;
