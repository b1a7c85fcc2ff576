//! Solving a graph: closing the world for what was added since the last solve, replayed
//! carefully when the default closing policy fails.

use super::events::Event;
use super::Graph;
use crate::code::{Coded, ErrorCode};
use crate::infer::error::InferError;

impl Graph {
    /// Closes the world for everything added since the last solve (closing stages 2–7, see
    /// the [architecture](crate::architecture#the-pipeline)). Afterwards every shape touched so
    /// far is fully known; more operations may still be added.
    ///
    /// When the default closing policy fails, the graph is rebuilt and closed carefully (each
    /// leaf takes its cap, else the broadcast top, else stays open, see `close/careful.rs`); the
    /// original error is returned if that fails too. Open leaf row lengths are searched only
    /// when the failure is a contradiction: when the program leaves something undetermined
    /// (`unresolved`, e.g. a parameter's row), picking a length would be a guess. Neither is
    /// tried for a size above 2^62 (`value`) or the solver's guard (`resource`). All of it
    /// shares one budget of careful work in proportion to the program ([`Graph::work`] counts
    /// what it did).
    pub fn solve(&mut self) -> Result<(), InferError> {
        let result = self.solve_and_recover();
        self.named_result(result)
    }

    /// [`solve`](Graph::solve) with the error as the solver wrote it.
    fn solve_and_recover(&mut self) -> Result<(), InferError> {
        let result = self.solve_once();
        if result.is_ok() || self.solver.careful {
            self.events.push(Event::Solve);
            return result;
        }
        // A size overflow or the solver's guard is not a closing choice to revisit.
        let code = result.as_ref().err().map(Coded::code);
        if matches!(code, Some(ErrorCode::Value | ErrorCode::Resource)) {
            return result;
        }
        let undetermined = code == Some(ErrorCode::Unresolved);
        // One budget of careful work for the replay and every replay of the search: a
        // constant times the work of copying this solver, whatever the program's parts.
        let mut r = self.recovery();
        let allowance = r.budget;
        let recovered = match self.replay_carefully(&mut r) {
            None if !undetermined => self.search_lengths(&mut r),
            other => other,
        };
        match recovered {
            Some(g) => {
                *self = g;
                self.solver.careful = false;
                self.events.push(Event::SolveRecovered(allowance));
                Ok(())
            }
            None => {
                self.solver.work = r.work;
                result
            }
        }
    }

    pub(super) fn solve_once(&mut self) -> Result<(), InferError> {
        // Eager use: every step was evaluated directly, so there is nothing to close.
        if self.declared.is_empty() && self.pending.is_empty() && self.solver.idle() {
            return Ok(());
        }
        self.solver.clear_scratch();
        // Both lists are emptied in place: their buffers serve the next round.
        let mut declared = std::mem::take(&mut self.declared);
        for t in declared.drain(..) {
            self.touch(t);
        }
        self.declared = declared;
        let mut pending = std::mem::take(&mut self.pending);
        let solved = pending.iter().all(|&t| self.is_solved(t));
        let result = self.solver.finish((&self.tensors, &self.names), &pending, solved);
        // Every shape substituted once through the node table (when there is one), so that
        // reads (`&self`, see `infer/solve/read/accessors.rs`) find every node they reach fresh.
        let nodes = !self.solver.env.exprs.is_empty();
        for t in pending.drain(..) {
            self.in_pending[t.index()] = false;
            if nodes {
                for row in self.tensors[t.index()].shape.rows() {
                    self.solver.env.freshen_row(&row);
                }
            }
        }
        self.pending = pending;
        let result = match (result, self.solver.overflow_error()) {
            (Ok(_), Some(e)) => Err(e),
            (result, _) => result,
        };
        // Every touched shape is now variable-free; a concatenation or convolution whose parts
        // have conflicting bases is the one thing that can still be left unsimplified.
        for t in result? {
            self.dims(t)?;
        }
        Ok(())
    }
}
