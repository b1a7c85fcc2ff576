//! Careful closing: where the default policy (a leaf takes its most material admissible value,
//! its cap) contradicts the rest of the program, try the less material choices instead.
//!
//! OCANNL commits to caps and so rejects satisfiable programs (caps `3 ⊑ α`, `5 ⊑ β` and
//! `γ ⊑ α`, `γ ⊑ β`: α = 3, β = 5 conflict through γ, while β = 1⊤ works). The graph first
//! solves with the default policy; only when that fails does it replay the program with
//! `careful` set, where each closing decision runs on a copy of the solver and is undone if
//! it fails: first the cap, then the cap with every axis the broadcast top, then nothing (the
//! variable closes later, to the empty row or the top).

use super::error::InferError;
use super::solver::Solver;
use crate::ids::RowVar;
use crate::shape::{Dim, Row};

type Decision<'a> = &'a dyn Fn(&mut Solver) -> Result<(), InferError>;

impl Solver {
    /// Takes decision `first`, or in careful mode whichever of `first`, `second` or neither
    /// leaves the constraints satisfiable so far.
    pub fn decide(
        &mut self,
        first: impl Fn(&mut Solver) -> Result<(), InferError>,
        second: impl Fn(&mut Solver) -> Result<(), InferError>,
    ) -> Result<(), InferError> {
        if !self.careful {
            return first(self);
        }
        for choice in [&first as Decision, &second as Decision] {
            let mut trial = self.clone();
            if choice(&mut trial).and_then(|()| trial.run()).is_ok() {
                *self = trial;
                return Ok(());
            }
        }
        Ok(())
    }

    /// Binds a row variable to its cap with every axis replaced by the broadcast top.
    pub fn close_row_to_top_cap(&mut self, v: RowVar) -> Result<(), InferError> {
        let v = self.env.row_root(v);
        if self.env.row_bound(v) {
            return Ok(());
        }
        let Some(&cap) = self.env.row_info[v.index()].caps().first() else { return Ok(()) };
        let cap = self.env.store.row(cap);
        let cap = self.env.row(&cap);
        let top = |r: &crate::shape::Dims| r.iter().map(|_| Dim::top()).collect();
        let value = Row { beg: top(&cap.beg), var: cap.var, dims: top(&cap.dims) };
        self.bind_row_var(v, value)
    }
}
