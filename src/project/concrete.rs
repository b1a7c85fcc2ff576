//! Solved shapes as plain sizes, keeping each row's split between leading and trailing axes
//! (operands align to results from both edges).

use super::sizes::Sizes;
use crate::ids::TensorId;
use crate::infer::{Graph, InferError};
use crate::spec::ast::RowKind;

/// One solved row: leading-flank sizes and trailing-flank sizes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConcreteRow {
    /// Sizes of the leading flank.
    pub beg: Vec<u64>,
    /// Sizes of the trailing flank.
    pub dims: Vec<u64>,
}

impl ConcreteRow {
    /// A row of leading axes `beg` and trailing axes `dims`.
    pub fn new(beg: Vec<u64>, dims: Vec<u64>) -> ConcreteRow {
        ConcreteRow { beg, dims }
    }

    /// All sizes in order.
    pub fn flat(&self) -> Vec<u64> {
        self.beg.iter().chain(&self.dims).copied().collect()
    }

    /// Number of axes.
    pub fn len(&self) -> usize {
        self.beg.len() + self.dims.len()
    }

    /// Whether the row has no axes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A solved shape: rows in [`RowKind::ALL`] order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Concrete {
    /// Batch, input, output.
    pub rows: [ConcreteRow; 3],
}

impl Concrete {
    /// The shape of rows `[batch, input, output]`.
    pub fn new(rows: [ConcreteRow; 3]) -> Concrete {
        Concrete { rows }
    }

    /// A shape of one output row of these sizes (batch and input rows empty): a plain
    /// n-dimensional array.
    pub fn output(dims: &[u64]) -> Concrete {
        let output = ConcreteRow { beg: Vec::new(), dims: dims.to_vec() };
        Concrete { rows: [ConcreteRow::default(), ConcreteRow::default(), output] }
    }

    /// The solved shape of `t` (fails when something is still unknown).
    pub fn of(g: &Graph, t: TensorId) -> Result<Concrete, InferError> {
        Sizes::of(g, t).map(|s| s.to_concrete())
    }

    /// The row of a kind.
    pub fn row(&self, kind: RowKind) -> &ConcreteRow {
        &self.rows[kind.index()]
    }

    /// All sizes in memory order (batch, output, input).
    pub fn memory_dims(&self) -> Vec<u64> {
        RowKind::MEMORY_ORDER.into_iter().flat_map(|k| self.row(k).flat()).collect()
    }
}
