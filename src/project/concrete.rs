//! Solved shapes as plain sizes, keeping each row's split between leading and trailing axes
//! (operands align to results from both edges).

use crate::ids::TensorId;
use crate::infer::{Graph, InferError};
use crate::spec::ast::RowKind;

/// One solved row: leading-flank sizes and trailing-flank sizes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConcreteRow {
    /// Sizes of the leading flank.
    pub beg: Vec<u64>,
    /// Sizes of the trailing flank.
    pub dims: Vec<u64>,
}

impl ConcreteRow {
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
pub struct Concrete {
    /// Batch, input, output.
    pub rows: [ConcreteRow; 3],
}

impl Concrete {
    /// The solved shape of `t` (fails when something is still unknown).
    pub fn of(g: &mut Graph, t: TensorId) -> Result<Concrete, InferError> {
        let shape = g.shape(t);
        let mut c = Concrete::default();
        for (i, kind) in RowKind::ALL.into_iter().enumerate() {
            let row = shape.row(kind);
            let sizes = |dims: &[crate::shape::Dim]| -> Option<Vec<u64>> {
                dims.iter().map(|d| d.solved().map(|s| s.size)).collect()
            };
            match (row.var, sizes(&row.beg), sizes(&row.dims)) {
                (None, Some(beg), Some(dims)) => c.rows[i] = ConcreteRow { beg, dims },
                // Something is still unknown: `dims` names it.
                _ => return Err(g.dims(t).err().unwrap_or_else(|| unsolved(g, t))),
            }
        }
        Ok(c)
    }

    /// The row of a kind.
    pub fn row(&self, kind: RowKind) -> &ConcreteRow {
        &self.rows[kind_index(kind)]
    }

    /// All sizes in memory order (batch, output, input).
    pub fn memory_dims(&self) -> Vec<u64> {
        RowKind::MEMORY_ORDER.into_iter().flat_map(|k| self.row(k).flat()).collect()
    }
}

/// The position of a kind in [`RowKind::ALL`].
pub fn kind_index(kind: RowKind) -> usize {
    match kind {
        RowKind::Batch => 0,
        RowKind::Input => 1,
        RowKind::Output => 2,
    }
}

/// The error of a shape that `Graph::dims` accepts but that is not plain sizes (unreachable
/// while both read the same substituted shape; kept so that no input can panic here).
fn unsolved(g: &Graph, t: TensorId) -> InferError {
    let name = &g.tensor(t).name;
    InferError::shape(
        crate::code::ErrorCode::Unresolved,
        format!("the shape of `{name}` is not known"),
    )
}
