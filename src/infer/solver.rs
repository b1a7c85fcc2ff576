//! The driver: a worklist of constraints over the [`Env`], with deferral of constraints that
//! cannot be decided yet and a stage number that unlocks the closing decisions.
//!
//! Constraints are processed in the order they were queued; each may bind variables and queue
//! more. A constraint that cannot be decided is deferred until a variable it mentions is bound
//! or united, or the stage advances (see [`super::deferred`]). The solver terminates on every
//! input: every binding removes a variable, templates are bounded in depth, and a fuel counter
//! bounds the total work.

use std::collections::{HashSet, VecDeque};

use smallvec::SmallVec;

use super::constraint::{AxisAt, Constraint, Origin, OriginId, Origins, Queued, RowArg};
use super::deferred::Deferred;
use super::env::Env;
use super::error::{InferError, ShapeError};
use crate::code::ErrorCode;
use crate::ids::{DimVar, RowVar};
use crate::shape::Dim;

/// What handling a constraint did.
pub enum Outcome {
    /// Decided (possibly queueing more constraints).
    Done,
    /// Cannot be decided yet: keep it for later.
    Defer,
}

/// The solver state.
#[derive(Clone, Default)]
pub struct Solver {
    /// Variables and their values.
    pub env: Env,
    queue: VecDeque<Queued>,
    deferred: Deferred,
    /// Names of bases.
    pub bases: crate::shape::BasisTable,
    /// Provenance of every constraint.
    pub origins: Origins,
    /// The current stage (1 while adding operations, 2..=7 while closing).
    pub stage: u8,
    /// The origin of the constraint being processed.
    pub current: Option<OriginId>,
    /// Where the dim constraint being processed pairs the axes of its origin's rows.
    pub current_axis: AxisAt,
    /// Whether the constraint being processed relates its origin's rows as given.
    current_exact: bool,
    fuel: u64,
    /// Closing decisions are tried one at a time and undone when they contradict the rest.
    pub careful: bool,
}

/// Work allowed per queued constraint before the solver gives up (a guard, never reached by
/// well-formed programs).
const FUEL_PER_CONSTRAINT: u64 = 10_000;

impl Solver {
    /// A solver at stage 1.
    pub fn new() -> Solver {
        Solver { stage: 1, ..Solver::default() }
    }

    /// Registers an origin.
    pub fn origin(&mut self, o: Origin) -> OriginId {
        self.origins.push(o)
    }

    /// Queues a constraint with an explicit origin, relating that origin's rows as given.
    pub fn push_with(&mut self, c: Constraint, origin: OriginId) {
        self.fuel += FUEL_PER_CONSTRAINT;
        self.queue.push_back(Queued { c, origin, axis: AxisAt::NONE, exact: true });
    }

    /// Queues a constraint derived from the one being processed.
    pub fn push(&mut self, c: Constraint) {
        self.push_at(c, AxisAt::NONE);
    }

    /// Queues the constraint being processed again (its rows given anew), with its origin.
    pub fn requeue(&mut self, c: Constraint) {
        let origin = self.current.unwrap_or(OriginId(0));
        let exact = self.current_exact;
        self.queue.push_back(Queued { c, origin, axis: AxisAt::NONE, exact });
    }

    /// Queues a dim constraint derived from the row constraint being processed, pairing the
    /// axes at `at` of its rows (kept only when those rows are its origin's).
    fn push_at(&mut self, c: Constraint, at: AxisAt) {
        let origin = self.current.unwrap_or(OriginId(0));
        let axis = if self.current_exact { at } else { AxisAt::NONE };
        self.queue.push_back(Queued { c, origin, axis, exact: false });
    }

    /// Queues `a = b` between the axes at `at` of two rows, unless they are the same
    /// (nothing to decide).
    pub fn push_dim_eq(&mut self, a: Dim, b: Dim, at: AxisAt) {
        if a != b {
            self.push_at(Constraint::DimEq(a, b), at);
        }
    }

    /// Queues `res ⊑ opnd` between the axes at `at` of two rows, unless they are the same
    /// (nothing to decide).
    pub fn push_dim_ineq(&mut self, res: Dim, opnd: Dim, at: AxisAt) {
        if res != opnd {
            self.push_at(Constraint::DimIneq { res, opnd }, at);
        }
    }

    /// Forgets the scratch rows of finished work: between operations, when nothing is queued
    /// (deferred constraints hold none).
    pub fn clear_scratch(&mut self) {
        if self.queue.is_empty() {
            self.env.clear_scratch();
        }
    }

    /// Processes queued constraints, and deferred ones whose variables changed, until nothing
    /// more can be decided.
    pub fn run(&mut self) -> Result<(), InferError> {
        // Every run may take at least one constraint's allowance: a run may have work without
        // any constraint queued with an allowance (a step whose constraints all held at once,
        // then closing decisions), and one run still cannot go on forever.
        self.fuel = self.fuel.max(FUEL_PER_CONSTRAINT);
        // Bindings made directly (closing decisions) since the last step wake their watchers
        // too, even when they queued nothing.
        self.note_changes();
        loop {
            while let Some(q) = self.queue.pop_front() {
                self.step(q)?;
                self.note_changes();
            }
            if !self.deferred.has_woken() {
                return Ok(());
            }
            let woken = self.deferred.take_woken();
            self.env.watching = !self.deferred.is_empty();
            self.queue.extend(woken);
        }
    }

    /// Passes the variables bound or united by the last step to the deferred set (inlined:
    /// it runs after every constraint, and mostly only reads one flag).
    #[inline(always)]
    fn note_changes(&mut self) {
        if self.env.watching {
            self.pass_changes();
        }
    }

    fn pass_changes(&mut self) {
        for v in self.env.changed_dims.drain(..) {
            self.deferred.dim_changed(v);
        }
        for v in self.env.changed_rows.drain(..) {
            self.deferred.row_changed(v);
        }
    }

    /// Defers a constraint until a variable of its substituted form changes. Its scratch rows
    /// move into the store: it outlives the queue.
    fn defer(&mut self, mut q: Queued) {
        match &mut q.c {
            Constraint::RowEq(a, b)
            | Constraint::RowIneq { res: a, opnd: b }
            | Constraint::RowIneqRight { res: a, opnd: b } => {
                self.env.settle(a);
                self.env.settle(b);
            }
            _ => {}
        }
        let mut dims: SmallVec<[DimVar; 8]> = SmallVec::new();
        let mut rows: SmallVec<[RowVar; 4]> = SmallVec::new();
        vars_of(&mut self.env, &q.c, &mut dims, &mut rows);
        self.deferred.add(q, &dims, &rows);
        self.env.watching = true;
    }

    /// The unbound dim variables (roots) that deferred constraints mention.
    pub fn deferred_dims(&mut self) -> HashSet<DimVar> {
        let (mut dims, mut rows): (SmallVec<[DimVar; 8]>, SmallVec<[RowVar; 4]>) = <_>::default();
        for q in self.deferred.constraints() {
            vars_of(&mut self.env, &q.c, &mut dims, &mut rows);
        }
        dims.into_iter().collect()
    }

    /// The unbound row variables (roots) at the markers of a deferred broadcast's rows: deciding
    /// that broadcast (stage 6) may give the operand's a cap, or the result's its fewest axes.
    pub fn deferred_broadcast_rows(&mut self) -> HashSet<RowVar> {
        let mut out = HashSet::new();
        for q in self.deferred.constraints() {
            if let Constraint::RowIneq { opnd, res } = &q.c {
                out.extend(self.env.row_arg(opnd).var);
                out.extend(self.env.row_arg(res).var);
            }
        }
        out
    }

    /// The deferred dim equalities waiting on `v`.
    pub fn dim_eqs_waiting_on(&self, v: DimVar) -> SmallVec<[(Dim, Dim); 2]> {
        let eqs = self.deferred.waiting_on(v).filter_map(|q| match q.c {
            Constraint::DimEq(a, b) => Some((a, b)),
            _ => None,
        });
        eqs.collect()
    }

    /// Retries every deferred constraint (the stage advanced).
    pub fn wake_deferred(&mut self) {
        self.deferred.wake_all();
    }

    fn step(&mut self, q: Queued) -> Result<(), InferError> {
        if self.fuel == 0 {
            return Err(self.fail(
                ErrorCode::Cycle,
                "shape inference did not converge (infinitely many axes?)".into(),
                q.origin,
            ));
        }
        self.fuel -= 1;
        self.current = Some(q.origin);
        self.current_axis = q.axis;
        self.current_exact = q.exact;
        let outcome = match &q.c {
            Constraint::DimEq(a, b) => self.unify_dim(a, b),
            Constraint::DimIneq { res, opnd } => self.dim_ineq(res, opnd),
            Constraint::RowEq(a, b) => self.unify_row(a, b),
            Constraint::RowIneq { res, opnd } => self.row_ineq(res, opnd),
            Constraint::RowIneqRight { res, opnd } => self.row_ineq_right(res, opnd),
            Constraint::AtLeast(d, n) => self.at_least(d, *n),
            Constraint::TotalElems(shape, n) => self.total_elems(&shape.rows(), *n),
        };
        match outcome {
            Ok(Outcome::Done) => Ok(()),
            Ok(Outcome::Defer) => {
                self.defer(q);
                Ok(())
            }
            Err(e) => Err(self.attach_at(e, q.origin, q.axis)),
        }
    }

    /// Whether constraints are still deferred.
    pub fn has_deferred(&self) -> bool {
        !self.deferred.is_empty()
    }

    /// Whether nothing is queued or deferred and no variable was linked since the last
    /// closing: closing no tensors would then change nothing.
    pub fn idle(&self) -> bool {
        self.queue.is_empty()
            && self.deferred.is_empty()
            && self.env.linked_dims.is_empty()
            && self.env.linked_rows.is_empty()
    }

    /// An error raised while processing the current constraint.
    pub fn error(&self, code: ErrorCode, message: String) -> InferError {
        InferError::shape(code, message)
    }

    /// An error with an explicit origin.
    pub fn fail(&self, code: ErrorCode, message: String, origin: OriginId) -> InferError {
        self.attach(InferError::shape(code, message), origin)
    }

    /// Adds the origin's step, tensor and span to an error that has none yet.
    pub fn attach(&self, e: InferError, origin: OriginId) -> InferError {
        self.attach_at(e, origin, AxisAt::NONE)
    }

    /// [`Solver::attach`] for a constraint on the axes at `axis` of its origin's rows.
    fn attach_at(&self, e: InferError, origin: OriginId, axis: AxisAt) -> InferError {
        let InferError::Shape(mut s) = e else { return e };
        if let Some(o) = &self.origins.get(origin) {
            if s.step.is_none() {
                s.step = o.step;
                s.tensors.extend(o.tensor);
                if let Some(span) = o.span.filter(|sp| !s.spans.contains(sp)) {
                    s.spans.push(span);
                }
            }
            s.chain.push(describe_origin(o, axis));
        }
        InferError::Shape(s)
    }

    /// The origin of the constraint being processed.
    pub fn current_origin(&self) -> OriginId {
        self.current.unwrap_or(OriginId(0))
    }
}

/// One line of an explanation: which part of which step a constraint relates, and at which
/// axis of that part's row when known.
pub fn describe_origin(o: &Origin, axis: AxisAt) -> String {
    use super::constraint::Part;
    let at = axis.get().map(|k| format!("axis {k} of ")).unwrap_or_default();
    let step = o.step.map(|s| format!("{s}: {at}")).unwrap_or(at);
    let tensor = o.tensor.map(|t| format!(" of {t}")).unwrap_or_default();
    let span = o.span.map(|s| format!(" (spec {s})")).unwrap_or_default();
    match o.part {
        Part::Result(k) => format!("{step}the result's {} row{tensor}{span}", k.name()),
        Part::Operand(i, k) => {
            format!("{step}operand {}'s {} row{tensor}{span}", i + 1, k.name())
        }
        Part::Declaration => format!("{step}the declared shape{tensor}"),
        Part::Side => format!("{step}a side constraint{tensor}"),
        Part::Setting => format!("{step}the setting of a captured dimension{tensor}"),
    }
}

impl From<ShapeError> for InferError {
    fn from(e: ShapeError) -> InferError {
        InferError::Shape(Box::new(e))
    }
}

/// Collects the unbound variables of a constraint's substituted form.
fn vars_of(
    env: &mut Env,
    c: &Constraint,
    dims: &mut SmallVec<[DimVar; 8]>,
    rows: &mut SmallVec<[RowVar; 4]>,
) {
    let mut dim = |env: &mut Env, d: &Dim| {
        let d = env.dim(d);
        d.for_each_var(&env.exprs, &mut |v| dims.push(v));
    };
    let mut row_args = |env: &mut Env, args: &[&RowArg], dim: &mut dyn FnMut(&mut Env, &Dim)| {
        for r in args {
            let r = env.row_arg(r);
            r.all().for_each(|d| dim(env, d));
            rows.extend(r.var);
        }
    };
    match c {
        Constraint::DimEq(a, b) | Constraint::DimIneq { res: a, opnd: b } => {
            dim(env, a);
            dim(env, b);
        }
        Constraint::RowEq(a, b)
        | Constraint::RowIneq { res: a, opnd: b }
        | Constraint::RowIneqRight { res: a, opnd: b } => row_args(env, &[a, b], &mut dim),
        Constraint::AtLeast(d, _) => dim(env, d),
        Constraint::TotalElems(shape, _) => {
            let [a, b, c] = shape.rows();
            row_args(env, &[&a, &b, &c], &mut dim);
        }
    }
}
