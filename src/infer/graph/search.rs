//! The last resort of careful solving: search the lengths of open leaf rows.
//!
//! Row templates commit to flanks that do not overlap (`[a,b].<r>` broadcast against
//! `<r>.[b,a]` gets at least four axes), which loses solutions where the row is short and its
//! flanks share axes (OCANNL's periodic counterexample: `x` against its rotation
//! `a,b,..r.. => ..r..,b,a` has the solution `x = [3,5,3]`). When the default and the careful
//! closing both fail, each open row of a leaf is fixed in turn to `L` fresh axes for
//! `L = 0, 1, …` (shortest first) and the program is replayed; the first length that lets the
//! whole program solve is kept.

use super::events::Event;
use super::events::Recovery;
use super::Graph;
use crate::ids::TensorId;
use crate::shape::{Dim, Row};
use crate::spec::ast::RowKind;

/// Longest row tried.
const MAX_LENGTH: usize = 8;
/// Largest program (in events) searched; bigger ones report the original error.
const MAX_EVENTS: usize = 2_000;
/// Most open leaf rows searched.
const MAX_ROWS: usize = 6;

/// A leaf row fixed to a length during the search.
type Choice = (TensorId, RowKind, usize);

impl Graph {
    /// Searches lengths of open leaf rows, every replay's careful closing within the one
    /// careful work `budget` leaves (which it spends); `None` when no combination solves.
    pub(super) fn search_lengths(&self, budget: &mut Recovery) -> Option<Graph> {
        if self.events.len() > MAX_EVENTS {
            return None;
        }
        let open = self.open_leaf_rows();
        if open.is_empty() || open.len() > MAX_ROWS {
            return None;
        }
        let mut chosen: Vec<Choice> = Vec::new();
        for &(t, kind) in &open {
            for len in 0..=MAX_LENGTH {
                let mut trial = chosen.clone();
                trial.push((t, kind, len));
                if self.replay_with(&trial, budget).is_some() {
                    chosen = trial;
                    break;
                }
            }
        }
        self.replay_with(&chosen, budget)
    }

    /// Leaf rows declared open (with a row variable), in declaration order.
    fn open_leaf_rows(&self) -> Vec<(TensorId, RowKind)> {
        let mut out = Vec::new();
        for i in 0..self.tensors.len() {
            if !self.tensors[i].leaf {
                continue;
            }
            let shape = self.raw_shape(self.tensor_at(i));
            for kind in RowKind::ALL {
                if shape.row(kind).var.is_some() {
                    out.push((self.tensor_at(i), kind));
                }
            }
        }
        out
    }

    /// Replays the events with the chosen rows fixed right after their declarations, solving
    /// the last round carefully within what `budget` leaves.
    fn replay_with(&self, choices: &[Choice], budget: &mut Recovery) -> Option<Graph> {
        self.replay_solving(budget, &mut |g, e| {
            if let Event::Declare(t, _) | Event::Typed(t, _) = e {
                for &(ct, kind, len) in choices.iter().filter(|c| c.0 == *t) {
                    g.fix_row_length(ct, kind, len).ok()?;
                }
            }
            Some(())
        })
    }

    /// Binds the row variable of `t`'s `kind` row to `len` fresh axes.
    fn fix_row_length(
        &mut self,
        t: TensorId,
        kind: RowKind,
        len: usize,
    ) -> Result<(), crate::infer::InferError> {
        let Some(var) = self.raw_shape(t).row(kind).var else { return Ok(()) };
        let dims = (0..len).map(|_| Dim::Var(self.solver.env.new_dim(None))).collect();
        self.solver.bind_row_var(var, Row { beg: Default::default(), var: None, dims })?;
        self.solver.run()
    }
}
