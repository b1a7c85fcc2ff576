//! Constraints between dims and rows, and where each came from.

use super::store::RowId;
use crate::ids::{RowVar, StepId, TensorId};
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
    RowEq(RowArg, RowArg),
    /// `res ⊑ opnd` for rows: the operand broadcasts into the result.
    RowIneq {
        /// The result row.
        res: RowArg,
        /// The operand row.
        opnd: RowArg,
    },
    /// The dim's size is at least this (a fixed index `i` needs size `i + 1`).
    AtLeast(Dim, u64),
}

/// A row held by a constraint: a bare row variable (most constraints the solver derives relate
/// variables), or a boxed row. Keeps queued constraints small.
#[derive(Clone, Debug)]
pub enum RowArg {
    /// The empty closed row.
    Empty,
    /// The open row `<v>` with no explicit axes.
    Var(RowVar),
    /// A row of the solver's row store (a bound value or a cap), as stored.
    Stored(RowId),
    /// Any other row.
    Row(Box<Row>),
}

impl From<Row> for RowArg {
    fn from(r: Row) -> RowArg {
        match (r.var, r.explicit_len()) {
            (None, 0) => RowArg::Empty,
            (Some(v), 0) => RowArg::Var(v),
            _ => RowArg::Row(Box::new(r)),
        }
    }
}

impl From<&Row> for RowArg {
    fn from(r: &Row) -> RowArg {
        match (r.var, r.explicit_len()) {
            (None, 0) => RowArg::Empty,
            (Some(v), 0) => RowArg::Var(v),
            _ => RowArg::Row(Box::new(r.clone())),
        }
    }
}

impl From<RowVar> for RowArg {
    fn from(v: RowVar) -> RowArg {
        RowArg::Var(v)
    }
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

/// The origins of all constraints, packed to 20 bytes each (an operation adds several).
#[derive(Clone, Default)]
pub struct Origins {
    packed: Vec<Packed>,
}

#[derive(Clone, Copy)]
struct Packed {
    step: u32,
    tensor: u32,
    span_start: u32,
    span_end: u32,
    part: [u8; 2],
}

const NONE: u32 = u32::MAX;

fn kind_code(k: RowKind) -> u8 {
    match k {
        RowKind::Batch => 0,
        RowKind::Input => 1,
        RowKind::Output => 2,
    }
}

fn code_kind(c: u8) -> RowKind {
    match c & 3 {
        0 => RowKind::Batch,
        1 => RowKind::Input,
        _ => RowKind::Output,
    }
}

impl Origins {
    /// Records an origin.
    pub fn push(&mut self, o: Origin) -> OriginId {
        let part = match o.part {
            Part::Result(k) => [kind_code(k), 0],
            Part::Operand(i, k) => [4 | kind_code(k), i],
            Part::Declaration => [8, 0],
            Part::Side => [12, 0],
        };
        let (span_start, span_end) = o.span.map_or((NONE, NONE), |s| (s.start, s.end));
        self.packed.push(Packed {
            step: o.step.map_or(NONE, |s| s.0),
            tensor: o.tensor.map_or(NONE, |t| t.0),
            span_start,
            span_end,
            part,
        });
        OriginId(u32::try_from(self.packed.len() - 1).unwrap_or(u32::MAX))
    }

    /// An origin recorded before.
    pub fn get(&self, id: OriginId) -> Option<Origin> {
        let p = self.packed.get(id.0 as usize)?;
        let part = match p.part[0] >> 2 {
            0 => Part::Result(code_kind(p.part[0])),
            1 => Part::Operand(p.part[1], code_kind(p.part[0])),
            2 => Part::Declaration,
            _ => Part::Side,
        };
        Some(Origin {
            step: (p.step != NONE).then_some(StepId(p.step)),
            tensor: (p.tensor != NONE).then_some(TensorId(p.tensor)),
            part,
            span: (p.span_start != NONE).then_some(Span { start: p.span_start, end: p.span_end }),
        })
    }
}
