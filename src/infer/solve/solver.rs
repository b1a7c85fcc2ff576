//! The driver: a worklist of constraints over the [`Env`], with deferral of constraints that
//! cannot be decided yet and a stage number that unlocks the closing decisions.
//!
//! Constraints are processed in the order they were queued; each may bind variables and queue
//! more. A constraint that cannot be decided is deferred until a variable it mentions is bound
//! or united, or the stage advances (see [`super::deferred`]). The solver terminates on every
//! input: every binding removes a variable, templates are bounded in depth, and a fuel counter
//! bounds the total work. The fuel grows with the program (an allowance per constraint, per
//! variable and per stored axis), so that no well-formed program runs out; running out is reported as a
//! `resource` error, never as a property of the program.

use std::collections::{HashSet, VecDeque};

use smallvec::SmallVec;

use super::constraint::{AxisAt, Constraint, Origin, OriginId, Origins, Queued, RowArg};
use super::deferred::Deferred;
use super::env::{Env, Node};
use crate::code::ErrorCode;
use crate::ids::{DimVar, RowVar};
use crate::infer::error::{InferError, ShapeError};
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
    /// The number of variables and stored axes whose allowance has been added to `fuel`.
    vars_funded: usize,
    /// Closing decisions are tried one at a time and undone when they contradict the rest.
    pub careful: bool,
    /// The work careful closing may still do (see `close/careful.rs`).
    pub careful_budget: u64,
    /// The closing choices no operation forced, in the order made.
    pub guesses: Vec<super::guesses::Guess>,
    /// The work done so far: constraints processed, and copies made for careful trials (each
    /// the solver's size), failed trials included.
    pub work: u64,
}

/// Work allowed per constraint queued by an operation before the solver gives up (a guard,
/// never reached by well-formed programs).
const FUEL_PER_CONSTRAINT: u64 = 10_000;

/// Work allowed, besides, per variable created and per axis stored (a declared shape, a bound
/// row): binding a variable re-emits what was known about it, closing decides each variable in
/// turn, and a row constraint derives a constraint per axis of its rows.
const FUEL_PER_VAR: u64 = 1_000;

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
        self.fuel = self.fuel.saturating_add(FUEL_PER_CONSTRAINT);
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
                // A dim substituted outside a constraint (by closing) may have overflowed.
                if self.env.cache.overflow.is_none() {
                    return Ok(());
                }
                return self.overflow_error().map_or(Ok(()), Err);
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
        for n in self.env.cache.changed.drain(..) {
            self.deferred.node_changed(n);
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
        let mut watch = Watch::default();
        match &q.c {
            // A row rule waits on the lengths of its rows, never on their sizes: only the
            // variables at the rows' markers can change its outcome. (Watching every axis
            // of rows that grow with the program woke each such rule once per axis closed.)
            Constraint::RowEq(a, b)
            | Constraint::RowIneq { res: a, opnd: b }
            | Constraint::RowIneqRight { res: a, opnd: b } => {
                watch.rows.extend(self.env.tail_var(a));
                watch.rows.extend(self.env.tail_var(b));
            }
            c => vars_of(&mut self.env, c, &mut watch),
        }
        self.deferred.add(q, &watch.dims, &watch.rows, &watch.nodes);
        self.env.watching = true;
    }

    /// The unbound dim variables (roots) that deferred constraints mention, also inside their
    /// affine and concatenation dims.
    pub fn deferred_dims(&mut self) -> HashSet<DimVar> {
        let mut watch = Watch::default();
        for q in self.deferred.constraints() {
            vars_of(&mut self.env, &q.c, &mut watch);
        }
        let mut out: HashSet<DimVar> = watch.dims.into_iter().collect();
        for n in watch.nodes {
            self.env.for_each_root(n.dim(), &mut |v| {
                out.insert(v);
            });
        }
        out
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

    /// The slots of the deferred set (what copying it costs).
    pub(in crate::infer) fn deferred_slots(&self) -> usize {
        self.deferred.slot_count()
    }

    /// Retries every deferred constraint (the stage advanced).
    pub fn wake_deferred(&mut self) {
        self.deferred.wake_all();
    }

    fn step(&mut self, q: Queued) -> Result<(), InferError> {
        if self.fuel == 0 {
            // The allowance of the variables created and axes stored since the last top-up.
            let vars = self.env.dim_count() + self.env.row_count() + self.env.store.dim_len();
            let new = vars.saturating_sub(self.vars_funded) as u64;
            self.vars_funded = vars;
            self.fuel = FUEL_PER_VAR.saturating_mul(new);
        }
        if self.fuel == 0 {
            return Err(self.fail(
                ErrorCode::Resource,
                "shape inference stopped: it used up the work allowed for a program of this \
                 size (a guard against runaway solving, not a fault found in the program)"
                    .into(),
                q.origin,
            ));
        }
        self.fuel -= 1;
        self.work += 1;
        self.charge_step();
        self.current = Some(q.origin);
        self.current_axis = q.axis;
        self.current_exact = q.exact;
        let outcome = match &q.c {
            Constraint::DimEq(a, b) => self.unify_dim(a, b),
            Constraint::DimIneq { res, opnd } => self.dim_ineq(res, opnd),
            Constraint::RowEq(a, b) => self.unify_row(a, b),
            Constraint::RowIneq { res, opnd } => self.row_ineq(res, opnd),
            Constraint::RowIneqRight { res, opnd } => self.row_ineq_right(res, opnd),
            Constraint::AtLeast(d, n) => self.at_least(d, n.get()),
            Constraint::TotalElems(shape, n) => self.total_elems(&shape.rows(), n.get()),
            Constraint::Product(flat, id) => self.product(flat, *id),
            Constraint::FloorConv(input, id) => self.floor_conv(input, *id),
        };
        // A size past 2^62 found while substituting: reported here, at this constraint.
        let outcome = match outcome {
            Ok(_) if self.env.cache.overflow.is_some() => {
                self.overflow_error().map_or(outcome, Err)
            }
            other => other,
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

    /// The error for the first affine or concatenation dim found to be larger than 2^62 since
    /// the last call, if any (see [`Solver::overflow_at`]).
    #[cold]
    pub fn overflow_error(&mut self) -> Option<InferError> {
        let (node, _) = self.env.take_overflow()?;
        Some(self.overflow_at(node))
    }

    /// The `value` error for a dim larger than 2^62: at the step and spec axis that wrote the
    /// dim (or, for a dim made by the solver, at the constraint being processed).
    pub fn overflow_at(&self, node: Node) -> InferError {
        let text = self.env.show_dim(node.dim());
        let what = if matches!(node.dim(), Dim::Concat(_)) {
            format!("the concatenated axis `{text}` adds up to more than 2^62")
        } else {
            format!("the size of the axis `{text}` is above the limit 2^62")
        };
        let mut e = self.error(ErrorCode::Value, what);
        if let (InferError::Shape(s), Some((step, span))) = (&mut e, self.env.cache.origin(node)) {
            s.step = Some(step);
            s.spans.push(span);
        }
        e
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

    /// A rank error between rows (or patterns) of these lengths.
    pub fn rank_error(
        &self,
        message: String,
        lengths: [usize; 2],
        patterns: [bool; 2],
    ) -> InferError {
        let mut e = InferError::shape(ErrorCode::Rank, message);
        let o = self.current.and_then(|o| self.origins.get(o));
        let kind = o.as_ref().and_then(|o| match o.part {
            super::constraint::Part::Operand(_, k) | super::constraint::Part::Result(k) => Some(k),
            _ => None,
        });
        let row = o.and_then(|o| o.tensor).zip(kind);
        if let InferError::Shape(s) = &mut e {
            s.ranks = Some(crate::infer::error::RankConflict { lengths, patterns, row });
        }
        e
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
            format!("{step}operand {i}'s {} row{tensor}{span}", k.name())
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

/// What a deferred constraint waits on.
#[derive(Default)]
struct Watch {
    dims: SmallVec<[DimVar; 8]>,
    rows: SmallVec<[RowVar; 4]>,
    nodes: SmallVec<[Node; 2]>,
}

/// Concatenations with at most this many unknown parts are also watched part by part: uniting
/// two of their variables (which leaves the node's value as it is) may let equal parts cancel.
const WATCH_PARTS: u64 = 16;

/// Collects what a constraint's substituted form waits on: its unbound variables, and its
/// affine and concatenation dims as nodes (each fresh, so that a change below it marks it
/// stale), with an affine dim's own variables (read by `dim_eqs_waiting_on`) and a small
/// concatenation's unknown parts.
fn vars_of(env: &mut Env, c: &Constraint, w: &mut Watch) {
    let row_args = |env: &mut Env, args: &[&RowArg], w: &mut Watch| {
        for r in args {
            let r = env.row_arg(r);
            r.all().for_each(|d| watch_dim(env, d, w));
            w.rows.extend(r.var);
        }
    };
    match c {
        Constraint::DimEq(a, b) | Constraint::DimIneq { res: a, opnd: b } => {
            watch_dim(env, a, w);
            watch_dim(env, b, w);
        }
        Constraint::RowEq(a, b)
        | Constraint::RowIneq { res: a, opnd: b }
        | Constraint::RowIneqRight { res: a, opnd: b } => row_args(env, &[a, b], w),
        Constraint::AtLeast(d, _) => watch_dim(env, d, w),
        Constraint::TotalElems(shape, _) => {
            let [a, b, c] = shape.rows();
            row_args(env, &[&a, &b, &c], w);
        }
        Constraint::FloorConv(input, id) => {
            let c = env.exprs.get_floor_conv(*id);
            for d in [input, &c.over, &c.kernel] {
                watch_dim(env, d, w);
            }
        }
        Constraint::Product(flat, id) => {
            watch_dim(env, flat, w);
            let parts: SmallVec<[Dim; 4]> = env.exprs.product_parts(*id).iter().copied().collect();
            for p in &parts {
                watch_dim(env, p, w);
            }
        }
    }
}

/// What one dim of a deferred constraint waits on (see [`vars_of`]).
fn watch_dim(env: &mut Env, d: &Dim, w: &mut Watch) {
    let d = env.dim(d);
    let Some(n) = Node::of(d) else {
        w.dims.extend(match d {
            Dim::Var(v) => Some(v),
            _ => None,
        });
        return;
    };
    env.node_value(n);
    w.nodes.push(n);
    if let Dim::Affine(id) = d {
        let a = env.exprs.get_affine(id);
        for p in [Some(a.over), a.conv.map(|(_, k, _)| k)].into_iter().flatten() {
            if let Dim::Var(v) = env.dim(&p) {
                w.dims.push(v);
            }
        }
    } else if env.summary(d).unknown <= WATCH_PARTS {
        env.for_each_unknown_part(d, &mut |p| {
            if let Dim::Var(v) = p {
                w.dims.push(v);
            }
        });
    }
}
