//! Careful closing: where the default policy (a leaf takes its most material admissible value,
//! its cap) contradicts the rest of the program, try the less material choices instead.
//!
//! OCANNL commits to caps and so rejects satisfiable programs (caps `3 ⊑ α`, `5 ⊑ β` and
//! `γ ⊑ α`, `γ ⊑ β`: α = 3, β = 5 conflict through γ, while β = 1⊤ works). The graph first
//! solves with the default policy; only when that fails does it replay the program with
//! `careful` set, where each closing decision runs on a copy of the solver and is undone if
//! it fails: first the cap, then the cap with every axis the broadcast top, then nothing (the
//! variable closes later, to the empty row or the top).
//!
//! Each trial copies the solver, so careful closing gets a budget of copying work in
//! proportion to the program ([`Solver::set_careful`]): a large program is not copied once per
//! decision. Past the budget, decisions take their first choice, as the default policy does.

use super::constraint::RowArg;
use super::error::InferError;
use super::solver::Solver;
use crate::ids::RowVar;
use crate::shape::{Dim, Row};

type Decision<'a> = &'a dyn Fn(&mut Solver) -> Result<(), InferError>;

/// The copies of the solver careful closing may make, in all.
const CAREFUL_COPIES: u64 = 64;

impl Solver {
    /// A closing decision: takes `first`, or in careful mode whichever of `first`, `second` or
    /// neither leaves the constraints satisfiable so far. Taking neither is sound here: the
    /// variable stays unbound and every constraint on it stays in force, to be closed later.
    pub fn decide(
        &mut self,
        first: impl Fn(&mut Solver) -> Result<(), InferError>,
        second: impl Fn(&mut Solver) -> Result<(), InferError>,
    ) -> Result<(), InferError> {
        if self.careful && self.afford_trial() {
            self.try_choices(&first, &second);
            return Ok(());
        }
        first(self)
    }

    /// A decision that resolves a constraint (its solutions split into `first` and `second`):
    /// one of them must be taken, since the constraint is done afterwards. In careful mode the
    /// first that leaves the constraints satisfiable so far; when neither does, `first`, so
    /// that the contradiction is reported rather than the constraint dropped.
    pub fn choose(
        &mut self,
        first: impl Fn(&mut Solver) -> Result<(), InferError>,
        second: impl Fn(&mut Solver) -> Result<(), InferError>,
    ) -> Result<(), InferError> {
        if self.careful && self.afford_trial() && self.try_choices(&first, &second) {
            return Ok(());
        }
        first(self)
    }

    /// Turns careful closing on, with a budget of copying work of
    /// [`CAREFUL_COPIES`] copies of the solver as it is now.
    pub fn set_careful(&mut self) {
        self.careful = true;
        self.careful_budget = CAREFUL_COPIES.saturating_mul(self.size());
    }

    /// The size of the solver, as the cost of copying it (its variables).
    fn size(&self) -> u64 {
        (self.env.dim_count() + self.env.row_count()) as u64 + 1
    }

    /// Whether the budget allows trying the choices of one more decision (two copies), which
    /// it then pays for.
    fn afford_trial(&mut self) -> bool {
        let cost = 2 * self.size();
        match self.careful_budget.checked_sub(cost) {
            Some(rest) => {
                self.careful_budget = rest;
                true
            }
            None => false,
        }
    }

    /// Runs each choice on a copy of the solver and keeps the first that succeeds; whether
    /// one did.
    fn try_choices(&mut self, first: Decision, second: Decision) -> bool {
        for choice in [first, second] {
            let mut trial = self.clone();
            if choice(&mut trial).and_then(|()| trial.run()).is_ok() {
                *self = trial;
                return true;
            }
        }
        false
    }

    /// Binds a row variable to its cap with every axis replaced by the broadcast top.
    pub fn close_row_to_top_cap(&mut self, v: RowVar) -> Result<(), InferError> {
        let v = self.env.row_root(v);
        if self.env.row_bound(v) {
            return Ok(());
        }
        let Some(cap) = self.env.row_caps(v).next() else { return Ok(()) };
        let cap = self.env.row_arg(&RowArg::Stored(cap));
        let top = |r: &crate::shape::Dims| r.iter().map(|_| Dim::top()).collect();
        let value = Row { beg: top(&cap.beg), var: cap.var, dims: top(&cap.dims) };
        self.bind_row_var(v, value)
    }
}
