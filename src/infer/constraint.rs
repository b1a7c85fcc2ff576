//! Constraints between dims and rows, and where each came from.

use crate::ids::{StepId, TensorId};
use crate::shape::{Dim, Row};
use crate::span::Span;
use crate::spec::ast::RowKind;

/// A constraint of the solver.
#[derive(Clone, Debug)]
pub enum Constraint {
    /// Strict equality of two dims (sizes and bases; affine and concat arithmetic).
    DimEq(Dim, Dim),
    /// `res ⊑ opnd`: equal, or `opnd` is the broadcast top.
    DimIneq {
        /// The refined (result) side.
        res: Dim,
        /// The broadcasting (operand) side.
        opnd: Dim,
    },
    /// Flat equality of two rows (same axes in order).
    RowEq(Row, Row),
    /// `res ⊑ opnd` for rows: the operand broadcasts into the result.
    RowIneq {
        /// The result row.
        res: Row,
        /// The operand row.
        opnd: Row,
    },
    /// The dim's size is at least this (a fixed index `i` needs size `i + 1`).
    AtLeast(Dim, u64),
}

/// Index of an [`Origin`] in the solver's side table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OriginId(pub u32);

/// Which part of an operation a constraint relates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The result tensor's row of a kind.
    Result(RowKind),
    /// An operand's row of a kind (operand index from 0).
    Operand(u8, RowKind),
    /// A leaf declaration.
    Declaration,
    /// A side constraint added by the user.
    Side,
}

/// Where a constraint came from: the step, the part of it, the tensor and the spec text.
#[derive(Clone, Debug)]
pub struct Origin {
    /// The operation (none for declarations and side constraints).
    pub step: Option<StepId>,
    /// The tensor the constraint is about.
    pub tensor: Option<TensorId>,
    /// Which row of which argument.
    pub part: Part,
    /// The spec slot or axis the constraint was elaborated from.
    pub span: Option<Span>,
}

/// A constraint with its origin, as queued in the solver.
#[derive(Clone, Debug)]
pub struct Queued {
    /// The constraint.
    pub c: Constraint,
    /// Its origin.
    pub origin: OriginId,
}
