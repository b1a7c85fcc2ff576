//! Concrete shapes, independent of the solver's representation: what a solution assigns to a
//! tensor, what a generator knows to be a valid assignment (a *witness*), and their shape
//! strings (as in the [case format](crate::check::format#shared-notations)).

use std::fmt;

use crate::shape::{parse_shape_string, TextAxis};
use crate::spec::ast::RowKind;

/// The basis of a concrete dimension.
#[derive(Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum ConcreteBasis {
    /// A user-written size (`3`); a size-1 axis of this basis does not broadcast.
    Default,
    /// OCANNL's reserved broadcast basis; at size 1 this is the broadcast top `1!`.
    Bcast,
    /// A user-named basis (`rgb=3`).
    Named(String),
}

/// A dimension with a known size and basis.
#[derive(Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct ConcreteDim {
    /// The size.
    pub size: u64,
    /// The basis.
    pub basis: ConcreteBasis,
}

impl ConcreteDim {
    /// A size with the default basis.
    pub fn new(size: u64) -> ConcreteDim {
        ConcreteDim { size, basis: ConcreteBasis::Default }
    }

    /// The broadcast top `1!`.
    pub fn top() -> ConcreteDim {
        ConcreteDim { size: 1, basis: ConcreteBasis::Bcast }
    }

    /// A size with a named basis.
    pub fn named(name: &str, size: u64) -> ConcreteDim {
        ConcreteDim { size, basis: ConcreteBasis::Named(name.into()) }
    }

    /// Whether this is the broadcast top (the only dimension that broadcasts).
    pub fn is_top(&self) -> bool {
        self.size == 1 && self.basis == ConcreteBasis::Bcast
    }

    /// The case format's comparison of an expected axis (`self`) with a found one: a plain `1`
    /// matches a size-1 axis of either reserved basis; everything else compares exactly (see
    /// [the broadcast top](crate::check::format#the-broadcast-top-1)).
    pub fn matches_expected(&self, found: &ConcreteDim) -> bool {
        if self.size == 1 && self.basis == ConcreteBasis::Default {
            return found.size == 1
                && matches!(found.basis, ConcreteBasis::Default | ConcreteBasis::Bcast);
        }
        self == found
    }
}

impl fmt::Display for ConcreteDim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.basis {
            _ if self.is_top() => f.write_str("1!"),
            ConcreteBasis::Default => write!(f, "{}", self.size),
            ConcreteBasis::Bcast => write!(f, "bcast_if_1={}", self.size),
            ConcreteBasis::Named(n) => write!(f, "{n}={}", self.size),
        }
    }
}

/// A concrete row: a leading flank and a trailing flank. The split matters for broadcasting:
/// an operand's leading flank aligns with the left edge of the result row, its trailing flank
/// with the right edge.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct ConcreteRow {
    /// The leading flank (axes written before a row variable in a spec, or kept by slicing).
    pub beg: Vec<ConcreteDim>,
    /// The trailing flank (all axes of a row declared by a shape string).
    pub dims: Vec<ConcreteDim>,
}

impl ConcreteRow {
    /// A row whose axes are all in the trailing flank.
    pub fn trailing(dims: Vec<ConcreteDim>) -> ConcreteRow {
        ConcreteRow { beg: Vec::new(), dims }
    }

    /// All axes, leading flank first.
    pub fn flat(&self) -> Vec<ConcreteDim> {
        self.beg.iter().chain(&self.dims).cloned().collect()
    }

    /// Number of axes.
    pub fn len(&self) -> usize {
        self.beg.len() + self.dims.len()
    }

    /// Whether the row has no axis.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A concrete shape: three rows.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct ConcreteShape {
    /// Batch axes.
    pub batch: ConcreteRow,
    /// Input axes.
    pub input: ConcreteRow,
    /// Output axes.
    pub output: ConcreteRow,
}

impl ConcreteShape {
    /// A shape from three flat rows (batch, input, output), all axes trailing.
    pub fn from_rows(
        batch: Vec<ConcreteDim>,
        input: Vec<ConcreteDim>,
        output: Vec<ConcreteDim>,
    ) -> ConcreteShape {
        ConcreteShape {
            batch: ConcreteRow::trailing(batch),
            input: ConcreteRow::trailing(input),
            output: ConcreteRow::trailing(output),
        }
    }

    /// The row of a kind.
    pub fn row(&self, kind: RowKind) -> &ConcreteRow {
        match kind {
            RowKind::Batch => &self.batch,
            RowKind::Input => &self.input,
            RowKind::Output => &self.output,
        }
    }

    /// The row of a kind, mutably.
    pub fn row_mut(&mut self, kind: RowKind) -> &mut ConcreteRow {
        match kind {
            RowKind::Batch => &mut self.batch,
            RowKind::Input => &mut self.input,
            RowKind::Output => &mut self.output,
        }
    }

    /// All axes in memory order (batch, output, input).
    pub fn memory_order(&self) -> Vec<ConcreteDim> {
        RowKind::MEMORY_ORDER.iter().flat_map(|k| self.row(*k).flat()).collect()
    }

    /// Whether the flat rows are equal (flank splits ignored).
    pub fn same_flat(&self, other: &ConcreteShape) -> bool {
        RowKind::ALL.iter().all(|k| self.row(*k).flat() == other.row(*k).flat())
    }

    /// The case format's comparison with `self` as the expectation: flat rows of equal length whose
    /// axes match under [`ConcreteDim::matches_expected`].
    pub fn matches_expected(&self, found: &ConcreteShape) -> bool {
        RowKind::ALL.iter().all(|k| {
            let (want, got) = (self.row(*k).flat(), found.row(*k).flat());
            want.len() == got.len() && want.iter().zip(&got).all(|(w, g)| w.matches_expected(g))
        })
    }

    /// Parses a shape string without row variables (`2|4->3`, `rgb=3`, `1!`).
    pub fn parse(text: &str) -> Result<ConcreteShape, String> {
        let t = parse_shape_string(text).map_err(|e| e.to_string())?;
        let mut shape = ConcreteShape::default();
        for kind in RowKind::ALL {
            let row = t.row(kind);
            if row.var.is_some() {
                return Err(format!("{text:?} has a row variable: not a concrete shape"));
            }
            shape.row_mut(kind).dims = row.beg.iter().chain(&row.dims).map(text_dim).collect();
        }
        Ok(shape)
    }
}

/// The concrete dimension a shape-string axis denotes.
pub fn text_dim(a: &TextAxis) -> ConcreteDim {
    if a.top {
        return ConcreteDim::top();
    }
    match a.basis.as_deref() {
        None | Some("default") => ConcreteDim::new(a.size),
        Some("bcast_if_1") => ConcreteDim { size: a.size, basis: ConcreteBasis::Bcast },
        Some(n) => ConcreteDim::named(n, a.size),
    }
}

/// Writes axes separated by commas.
pub fn join_dims(dims: &[ConcreteDim]) -> String {
    dims.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")
}

impl fmt::Display for ConcreteShape {
    /// The shape string (flank splits are not shown: shape strings cannot say them).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.batch.is_empty() {
            write!(f, "{}|", join_dims(&self.batch.flat()))?;
        }
        if !self.input.is_empty() {
            write!(f, "{}->", join_dims(&self.input.flat()))?;
        }
        f.write_str(&join_dims(&self.output.flat()))
    }
}
