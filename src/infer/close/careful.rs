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
//! Each trial copies the solver and runs the copy, and a trial's own decisions may try
//! choices in turn, so careful closing gets one budget of work in proportion to the program
//! ([`Solver::set_careful`]): every copy costs the solver's size and every constraint a trial
//! processes costs one, a trial that fails included (with the trials nested in it). Past the
//! budget, decisions take their first choice, as the default policy does, so careful closing
//! costs at most a constant times one solve, however many parts the program has.

use crate::ids::RowVar;
use crate::infer::error::InferError;
use crate::infer::solve::constraint::RowArg;
use crate::infer::solve::solver::Solver;
use crate::shape::{Dim, Row};

type Decision<'a> = &'a dyn Fn(&mut Solver) -> Result<(), InferError>;

/// The work careful closing may do, in copies of the solver as it is when careful closing
/// starts (each copy costs the solver's size; each constraint processed in careful mode
/// costs one).
pub const CAREFUL_COPIES: u64 = 64;

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

    /// Turns careful closing on, with a budget of work of `budget` (see
    /// [`Solver::careful_allowance`]); what is left of it after solving is
    /// [`Solver::careful_budget`].
    pub fn set_careful(&mut self, budget: u64) {
        self.careful = true;
        self.careful_budget = budget;
    }

    /// The work careful closing may do on this solver: [`CAREFUL_COPIES`] copies of it.
    pub fn careful_allowance(&self) -> u64 {
        CAREFUL_COPIES.saturating_mul(self.size())
    }

    /// The size of the solver, as the cost of copying it: its variables, stored axes,
    /// origins and deferred constraints.
    fn size(&self) -> u64 {
        let env = self.env.dim_count() + self.env.row_count() + self.env.store.dim_len();
        (env + self.origins.count() + self.deferred_slots()) as u64 + 1
    }

    /// Pays for one constraint processed in careful mode.
    #[inline]
    pub(in crate::infer) fn charge_step(&mut self) {
        if self.careful {
            self.careful_budget = self.careful_budget.saturating_sub(1);
        }
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
    /// one did. What a failed trial spent (its copy, its constraints, its own trials) is paid
    /// for all the same: the budget it left is the budget left, and its work is counted.
    fn try_choices(&mut self, first: Decision, second: Decision) -> bool {
        for choice in [first, second] {
            let mut trial = self.clone();
            trial.work = trial.work.saturating_add(self.size());
            if choice(&mut trial).and_then(|()| trial.run()).is_ok() {
                *self = trial;
                return true;
            }
            (self.careful_budget, self.work) = (trial.careful_budget, trial.work);
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
