//! Constraints between dims and rows, and where each came from.

use super::store::{RowId, ShapeRef};
use crate::ids::{GraphId, RowVar, StepId, TensorId};
use crate::shape::{Dim, ExprId};
use crate::span::Span;
use crate::spec::ast::RowKind;

/// A constraint of the solver. It owns nothing (rows it holds live in the solver's tables),
/// so queuing, deferring and dropping one copies a few words.
#[derive(Clone, Copy, Debug)]
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
    /// `res ⊑ opnd` with every operand axis aligned right, as numpy broadcasts (an operand
    /// row's leading flank does not pin its axes to the result's left edge).
    RowIneqRight {
        /// The result row.
        res: RowArg,
        /// The operand row.
        opnd: RowArg,
    },
    /// The dim's size is at least this (a fixed index `i` needs size `i + 1`).
    AtLeast(Dim, Count),
    /// The product of all axes of a tensor's rows (batch, input, output) is this (OCANNL's
    /// `Total_elems`).
    TotalElems(ShapeRef, Count),
    /// A flattened axis `(h*d)` is the product of its parts (held in the dim table).
    Product(Dim, ExprId),
    /// The input axis of a PyTorch-style convolution `o~P+k` (held in the dim table) and its
    /// output: `o = floor((input + 2P - dilation·(k-1) - 1) / stride) + 1`.
    FloorConv(Dim, ExprId),
}

/// A size or count held by a constraint, aligned to 4 bytes: a constraint is then 36 bytes,
/// and a queued one (with its origin, axis position and flag) 48.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, packed(4))]
pub struct Count(pub u64);

impl Count {
    /// The value.
    pub fn get(self) -> u64 {
        self.0
    }
}

/// A row held by a constraint: a bare row variable (most constraints the solver derives relate
/// variables), a row of the row store, or a scratch row. Keeps queued constraints small.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowArg {
    /// The empty closed row.
    Empty,
    /// The open row `<v>` with no explicit axes.
    Var(RowVar),
    /// A row of the solver's row store (a bound value or a cap), as stored.
    Stored(RowId),
    /// Any other row, among the env's scratch rows, which live while the constraint is queued
    /// (a deferred constraint moves its scratch rows into the store).
    Scratch(u32),
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
    Operand(u32, RowKind),
    /// A leaf declaration.
    Declaration,
    /// A side constraint added by the user.
    Side,
    /// The setting of a captured dimension or row (`Graph::set_dim`, `Graph::set_equal`).
    Setting,
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
    /// Where a dim constraint pairs the axes of its origin's row.
    pub axis: AxisAt,
    /// Whether the constraint relates its origin's rows as given (queued by lowering), rather
    /// than rows it was derived through: only then do positions on its rows name the
    /// origin's axes.
    pub exact: bool,
}

// Checked at compile time: the axis and the flag fill the padding of a queued constraint.
const _: () = assert!(std::mem::size_of::<Queued>() == 48);

/// Where on a row a dim constraint pairs two axes, counted as numpy counts axes: from the left
/// edge (0 is the first axis) or from the right edge (-1 is the last). Rows align at both
/// edges, so the position is the same on both rows of the pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AxisAt(i32);

impl Default for AxisAt {
    fn default() -> AxisAt {
        AxisAt::NONE
    }
}

impl AxisAt {
    /// No known position.
    pub const NONE: AxisAt = AxisAt(i32::MIN);

    /// The `i`-th axis from the left edge (no known position beyond 2^31 axes).
    pub fn left(i: usize) -> AxisAt {
        i32::try_from(i).map_or(AxisAt::NONE, AxisAt)
    }

    /// The `n`-th axis from the right edge (1 is the last).
    pub fn right(n: usize) -> AxisAt {
        i32::try_from(n).ok().filter(|n| *n > 0).map_or(AxisAt::NONE, |n| AxisAt(-n))
    }

    /// The position of the `k`-th of a row's explicit axes (its leading flank of `beg` axes
    /// counted from the left, the rest of its `len` axes from the right).
    pub fn in_flanks(k: usize, beg: usize, len: usize) -> AxisAt {
        if k < beg {
            AxisAt::left(k)
        } else {
            AxisAt::right(len - k)
        }
    }

    /// The position, if known.
    pub fn get(self) -> Option<i32> {
        (self != AxisAt::NONE).then_some(self.0)
    }
}

/// The origins of all constraints. The constraints of one operation part (an operand, the
/// result) share a 16-byte record; an [`OriginId`] is the record's index and the row kind in
/// its two low bits. Spec spans live in a side table, three per record. A record packs the
/// part's tag in the three top bits of its operand number: an operand numbered 2^29 or more (no
/// spec is that long in practice) is recorded as a side constraint, without a number, rather
/// than under a wrong one.
#[derive(Clone)]
pub struct Origins {
    /// The graph whose tensors and steps the records name.
    graph: GraphId,
    records: Vec<Record>,
    spans: Vec<[Span; 3]>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct Record {
    step: u32,
    tensor: u32,
    spans: u32,
    /// The tag (result, operand, declaration, side, setting) in the three top bits, the
    /// operand number in the others.
    tagged: u32,
}

/// The bits of [`Record::tagged`] below the tag.
const OPERAND_BITS: u32 = 29;

// One record per operation part: keep it at 16 bytes.
const _: () = assert!(std::mem::size_of::<Record>() == 16);

const NONE: u32 = u32::MAX;
/// The kind bits of a part without a row kind.
const NO_KIND: u32 = 3;
/// A span slot not filled.
const NO_SPAN: Span = Span { start: NONE, end: NONE };

fn kind_code(k: RowKind) -> u32 {
    k.index() as u32
}

fn code_kind(c: u32) -> Option<RowKind> {
    match c {
        0 => Some(RowKind::Batch),
        1 => Some(RowKind::Input),
        2 => Some(RowKind::Output),
        _ => None,
    }
}

impl Default for Origins {
    fn default() -> Origins {
        Origins { graph: GraphId::UNSET, records: Vec::new(), spans: Vec::new() }
    }
}

impl Origins {
    /// Names the graph whose tensors and steps the records refer to.
    pub fn set_graph(&mut self, graph: GraphId) {
        self.graph = graph;
    }

    /// The number of origins recorded.
    pub fn count(&self) -> usize {
        self.records.len()
    }

    /// Records an origin.
    pub fn push(&mut self, o: Origin) -> OriginId {
        let (tag, operand, kind) = match o.part {
            Part::Result(k) => (0, 0, kind_code(k)),
            Part::Operand(i, k) if i < 1 << OPERAND_BITS => (1, i, kind_code(k)),
            Part::Operand(_, k) => (3, 0, kind_code(k)),
            Part::Declaration => (2, 0, NO_KIND),
            Part::Side => (3, 0, NO_KIND),
            Part::Setting => (4, 0, NO_KIND),
        };
        let rec = Record {
            step: o.step.map_or(NONE, |s| s.index() as u32),
            tensor: o.tensor.map_or(NONE, |t| t.index() as u32),
            spans: NONE,
            tagged: tag << OPERAND_BITS | operand,
        };
        let reuse = self.records.last().is_some_and(|last| {
            let same = Record { spans: last.spans, ..rec } == *last;
            let free = |i: u32| self.spans[i as usize][kind as usize] == NO_SPAN;
            same && kind != NO_KIND && (last.spans == NONE || free(last.spans))
        });
        if !reuse {
            self.records.push(rec);
        }
        let index = self.records.len() - 1;
        if let (Some(span), Some(last)) = (o.span, self.records.last_mut()) {
            if last.spans == NONE {
                self.spans.push([NO_SPAN; 3]);
                last.spans = u32::try_from(self.spans.len() - 1).unwrap_or(NONE);
            }
            if let Some(slot) = self.spans.get_mut(last.spans as usize) {
                slot[kind.min(2) as usize] = span;
            }
        }
        let index = u32::try_from(index).unwrap_or(u32::MAX >> 2).min(u32::MAX >> 2);
        OriginId(index << 2 | kind)
    }

    /// An origin recorded before.
    pub fn get(&self, id: OriginId) -> Option<Origin> {
        let r = self.records.get((id.0 >> 2) as usize)?;
        let kind = code_kind(id.0 & 3);
        let operand = r.tagged & ((1 << OPERAND_BITS) - 1);
        let part = match (r.tagged >> OPERAND_BITS, kind) {
            (0, Some(k)) => Part::Result(k),
            (1, Some(k)) => Part::Operand(operand, k),
            (2, _) => Part::Declaration,
            (4, _) => Part::Setting,
            _ => Part::Side,
        };
        let span = kind
            .and_then(|k| self.spans.get(r.spans as usize).map(|s| s[kind_code(k) as usize]))
            .filter(|s| *s != NO_SPAN);
        Some(Origin {
            step: (r.step != NONE).then(|| StepId::new(r.step as usize, self.graph)),
            tensor: (r.tensor != NONE).then(|| TensorId::new(r.tensor as usize, self.graph)),
            part,
            span,
        })
    }
}
