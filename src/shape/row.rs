//! Rows (the axes of one kind, with an optional row variable between two flanks) and shapes
//! (three rows: batch, input, output).

use smallvec::SmallVec;

use super::dim::Dim;
use crate::ids::RowVar;
use crate::spec::ast::RowKind;

/// An axis list.
pub type Dims = SmallVec<[Dim; 2]>;

/// Collects a few items into a small vector by pushing them one by one. `SmallVec`'s
/// `FromIterator` first reserves by the size hint, which for the two or three items of a row
/// (or none) costs more than the pushes themselves.
pub fn pushed<A: smallvec::Array>(items: impl IntoIterator<Item = A::Item>) -> SmallVec<A> {
    let mut out = SmallVec::new();
    for item in items {
        out.push(item);
    }
    out
}

/// A row: `beg . <var> . dims` when open, `beg . dims` when closed (`var` is `None`).
///
/// A row variable sits between the flanks; binding it splices its value at the marker.
#[derive(PartialEq, Eq, Hash, Debug, Default)]
pub struct Row {
    /// The leading flank.
    pub beg: Dims,
    /// The row variable, `None` for a closed row.
    pub var: Option<RowVar>,
    /// The trailing flank (all axes of a closed row written without a leading flank).
    pub dims: Dims,
}

impl Clone for Row {
    fn clone(&self) -> Row {
        // Dims are `Copy`: copy the flanks as slices rather than element by element.
        Row { beg: Dims::from_slice(&self.beg), var: self.var, dims: Dims::from_slice(&self.dims) }
    }
}

impl Row {
    /// A closed row of these dimensions.
    pub fn closed(dims: impl IntoIterator<Item = Dim>) -> Row {
        Row { beg: Dims::new(), var: None, dims: dims.into_iter().collect() }
    }

    /// An open row with no explicit axes.
    pub fn open(var: RowVar) -> Row {
        Row { beg: Dims::new(), var: Some(var), dims: Dims::new() }
    }

    /// The empty closed row.
    pub fn empty() -> Row {
        Row::default()
    }

    /// Number of explicit axes (the row variable's axes not counted).
    pub fn explicit_len(&self) -> usize {
        self.beg.len() + self.dims.len()
    }

    /// Whether there is no axis and no row variable.
    pub fn is_empty(&self) -> bool {
        self.explicit_len() == 0 && self.var.is_none()
    }

    /// All explicit axes, leading flank first, as one list.
    pub fn flat(&self) -> Dims {
        let mut all = Dims::from_slice(&self.beg);
        all.extend_from_slice(&self.dims);
        all
    }

    /// All explicit axes, leading flank first, as one slice: borrowed when one flank is empty
    /// (a closed row's axes are usually all trailing), copied otherwise.
    pub fn axes(&self) -> Axes<'_> {
        match (self.beg.is_empty(), self.dims.is_empty()) {
            (true, _) => Axes::Borrowed(&self.dims),
            (false, true) => Axes::Borrowed(&self.beg),
            (false, false) => Axes::Joined(self.flat()),
        }
    }

    /// All explicit axes, leading flank first.
    pub fn all(&self) -> impl Iterator<Item = &Dim> {
        self.beg.iter().chain(self.dims.iter())
    }
}

/// A row's explicit axes as one slice ([`Row::axes`]).
#[derive(Debug)]
pub enum Axes<'a> {
    /// The axes of the one flank that has any.
    Borrowed(&'a [Dim]),
    /// Both flanks, joined.
    Joined(Dims),
}

impl std::ops::Deref for Axes<'_> {
    type Target = [Dim];
    fn deref(&self) -> &[Dim] {
        match self {
            Axes::Borrowed(s) => s,
            Axes::Joined(d) => d,
        }
    }
}

/// The shape of a tensor: three rows. Memory order is batch, output, input.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Shape {
    /// Batch axes.
    pub batch: Row,
    /// Input axes.
    pub input: Row,
    /// Output axes.
    pub output: Row,
}

impl Shape {
    /// The row of a kind.
    pub fn row(&self, kind: RowKind) -> &Row {
        match kind {
            RowKind::Batch => &self.batch,
            RowKind::Input => &self.input,
            RowKind::Output => &self.output,
        }
    }

    /// The row of a kind, mutably.
    pub fn row_mut(&mut self, kind: RowKind) -> &mut Row {
        match kind {
            RowKind::Batch => &mut self.batch,
            RowKind::Input => &mut self.input,
            RowKind::Output => &mut self.output,
        }
    }

    /// All axes in memory order (batch, output, input).
    pub fn memory_order(&self) -> impl Iterator<Item = &Dim> {
        self.batch.all().chain(self.output.all()).chain(self.input.all())
    }
}

/// A number of axes in words, for messages: `1 axis`, `0 axes`, `3 axes`.
pub(crate) fn axes_count(n: usize) -> String {
    if n == 1 {
        "1 axis".to_string()
    } else {
        format!("{n} axes")
    }
}
