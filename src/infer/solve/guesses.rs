//! The closing choices that are guesses: an open row no operation sizes closed to no axes, a
//! dimension no operation determines closed to the broadcast size 1 (or 0). The solution is
//! legal, but another was equally so; each guess is recorded while closing and reported as a
//! [`Warning`](crate::infer::Warning).

use super::solver::Solver;
use crate::ids::{DimVar, RowVar, TensorId};
use crate::spec::ast::RowKind;

/// A closing choice the operations did not force.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guess {
    /// The tensor whose shape held the variable when it was closed.
    pub tensor: TensorId,
    /// What was chosen.
    pub what: Guessed,
}

/// The choice of a [`Guess`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Guessed {
    /// A row with no axis known, all of it a row variable, closed to no axes (rank 0).
    EmptyRow(RowKind),
    /// A dimension closed to `size` (1, the broadcast size, or 0 where an axis may vanish);
    /// its name (a label, or `$n`).
    Dim {
        /// The dimension's name.
        name: String,
        /// The size it took.
        size: u64,
    },
}

impl Solver {
    /// Records that row variable `v` of `tensor`'s shape closes to no axes, when it is the
    /// whole of one of its rows: the row's rank is then a choice. (A variable after known axes,
    /// `[4].<v>`, closes where those axes already are: nothing is chosen.)
    pub(in crate::infer) fn note_empty_row(
        &mut self,
        tensor: TensorId,
        shape: super::store::ShapeRef,
        v: RowVar,
    ) {
        let root = self.env.row_root(v);
        let kind = RowKind::ALL.into_iter().find(|&k| {
            let row = self.env.row_arg(&shape.row(k));
            let alone = row.beg.is_empty() && row.dims.is_empty();
            alone && row.var.is_some_and(|t| self.env.row_root(t) == root)
        });
        if let Some(kind) = kind {
            self.guesses.push(Guess { tensor, what: Guessed::EmptyRow(kind) });
        }
    }

    /// Records that dimension `v` of `tensor` closes to `size` with nothing determining it.
    pub(in crate::infer) fn note_dim_guess(&mut self, tensor: TensorId, v: DimVar, size: u64) {
        let name = self.var_name(v);
        self.guesses.push(Guess { tensor, what: Guessed::Dim { name, size } });
    }
}
