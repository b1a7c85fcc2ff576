//! The operations a graph can hold.

use std::fmt;

/// What an operation computes, shape-wise.
///
/// `Serialize` and `Deserialize` with the `serde` feature.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum OpKind {
    /// Elementwise over 1, 2 or 3 arguments with broadcasting.
    Pointwise,
    /// Matrix-multiply style: the first's input row contracts with the second's output row.
    Compose,
    /// Swaps input and output rows.
    Transpose,
    /// A one-operand einsum spec (permute, reduce, embed, diagonal).
    Permute,
    /// A two-operand einsum spec.
    Einsum,
    /// A three-operand einsum spec.
    Einsum3,
    /// An n-operand concatenation spec.
    Concat,
    /// Drops the leftmost batch axis.
    BatchSlice,
    /// A numpy einsum (`ij,jk->ik`): operands are output rows; labels broadcast numpy-style
    /// (declare numpy's size-1 axes as the broadcast top `1!`).
    Numpy,
}

impl OpKind {
    /// Every operation, in declaration order.
    pub const ALL: [OpKind; 9] = [
        OpKind::Pointwise,
        OpKind::Compose,
        OpKind::Transpose,
        OpKind::Permute,
        OpKind::Einsum,
        OpKind::Einsum3,
        OpKind::Concat,
        OpKind::BatchSlice,
        OpKind::Numpy,
    ];

    /// The name used in case files (`pointwise`, `compose`, …).
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Pointwise => "pointwise",
            OpKind::Compose => "compose",
            OpKind::Transpose => "transpose",
            OpKind::Permute => "permute",
            OpKind::Einsum => "einsum",
            OpKind::Einsum3 => "einsum3",
            OpKind::Concat => "concat",
            OpKind::BatchSlice => "batch_slice",
            OpKind::Numpy => "numpy",
        }
    }

    /// Whether the operation takes a spec.
    pub fn has_spec(self) -> bool {
        matches!(
            self,
            OpKind::Permute | OpKind::Einsum | OpKind::Einsum3 | OpKind::Concat | OpKind::Numpy
        )
    }
}

impl fmt::Display for OpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
