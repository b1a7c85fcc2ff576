//! A tensor's row as the walk sees it: each axis at its position, with its size when solved.
//!
//! Positions are as numpy counts: an axis of a row's leading flank (before its row variable,
//! in a row not yet closed) from the left, `0` the first; every other axis from the right,
//! `-1` the last. A closed row counts all its axes from the right, so that an axis keeps its
//! position while the rows around it are still being inferred.

use smallvec::SmallVec;

use crate::ids::TensorId;
use crate::infer::Graph;
use crate::shape::Row;
use crate::spec::ast::RowKind;

/// A row's axes, positioned.
#[derive(Clone, Debug, Default)]
pub struct RowView {
    /// Each axis's size (when solved), leading flank first.
    sizes: SmallVec<[Option<u64>; 6]>,
    /// The leading flank's length (0 for a closed row).
    lead: usize,
    /// Whether the row still has a row variable.
    open: bool,
}

impl RowView {
    /// The row of kind `kind` of tensor `t`, as far as it is solved.
    pub fn of(g: &Graph, t: TensorId, kind: RowKind) -> RowView {
        let shape = g.shape_of(t);
        let row: &Row = shape.row(kind);
        let open = row.var.is_some();
        let dims: SmallVec<[crate::shape::Dim; 6]> =
            row.beg.iter().chain(row.dims.iter()).copied().collect();
        let lead = if open { row.beg.len() } else { 0 };
        let sizes = dims.into_iter().map(|d| g.dim_size(d)).collect();
        RowView { sizes, lead, open }
    }

    /// The number of axes known.
    pub fn len(&self) -> usize {
        self.sizes.len()
    }

    /// Whether no axis is known.
    pub fn is_empty(&self) -> bool {
        self.sizes.is_empty()
    }

    /// Whether the row has a row variable.
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// The number of axes counted from the right.
    pub fn trailing(&self) -> usize {
        self.sizes.len() - self.lead
    }

    /// The position of the `i`-th axis from the left, when known.
    pub fn left(&self, i: usize) -> Option<i16> {
        if self.open {
            (i < self.lead).then(|| i16::try_from(i).ok()).flatten()
        } else {
            (i < self.sizes.len()).then(|| pos_from_right(self.sizes.len() - i)).flatten()
        }
    }

    /// The position of the `j`-th axis from the right (1 the last), when known.
    pub fn right(&self, j: usize) -> Option<i16> {
        (j >= 1 && j <= self.trailing()).then(|| pos_from_right(j)).flatten()
    }

    /// The size at a position, when solved.
    pub fn size(&self, pos: i16) -> Option<u64> {
        self.index(pos).and_then(|i| self.sizes[i])
    }

    /// The index (from the left, among the known axes) of a position.
    fn index(&self, pos: i16) -> Option<usize> {
        let p = usize::from(pos.unsigned_abs());
        if pos >= 0 {
            (self.open && p < self.lead).then_some(p)
        } else {
            (p <= self.trailing()).then(|| self.sizes.len() - p)
        }
    }

    /// The position as a reader counts it: from the left in a closed row (axis 0 the first),
    /// as stored otherwise.
    pub fn shown(&self, pos: i16) -> i16 {
        match self.index(pos) {
            Some(i) if !self.open => i16::try_from(i).unwrap_or(pos),
            _ => pos,
        }
    }

    /// The positions of every axis, left to right.
    pub fn positions(&self) -> impl Iterator<Item = i16> + '_ {
        (0..self.sizes.len()).filter_map(move |i| {
            if i < self.lead {
                i16::try_from(i).ok()
            } else {
                pos_from_right(self.sizes.len() - i)
            }
        })
    }
}

fn pos_from_right(j: usize) -> Option<i16> {
    i16::try_from(j).ok().map(|j| -j)
}

/// The pairs of positions a broadcast relates between a result row `r` and an operand row `o`:
/// the operand's leading flank against the result's first axes, the rest from the right.
pub fn aligned(r: &RowView, o: &RowView) -> SmallVec<[(i16, i16); 6]> {
    let mut out = SmallVec::new();
    if o.open {
        for i in 0..o.lead {
            if let (Some(pr), Some(po)) = (r.left(i), o.left(i)) {
                out.push((pr, po));
            }
        }
    }
    for j in 1..=o.trailing() {
        if let (Some(pr), Some(po)) = (r.right(j), o.right(j)) {
            out.push((pr, po));
        }
    }
    out
}
