//! The record of what was done to a graph, in order, and rebuilding a graph from it (to undo
//! a failed step, and for careful re-solving).
//!
//! An event keeps only what the graph does not: a declaration refers to its tensor (name and
//! flags) and shares the shape text with the parse cache; a step refers to its [`Step`] (operation,
//! operands, spec) and keeps a result name or numpy subscripts only when there is one. A large
//! program therefore pays a few bytes per operation for being replayable.

use std::sync::Arc;

use super::typed::ShapeBuilder;
use super::{DeclaredShape, Graph, Step};
use crate::ids::{StepId, TensorId};
use crate::shape::Solved;
use crate::spec::ast::{Name, RowKind};

/// One thing done to a graph.
#[derive(Clone, Debug)]
pub(super) enum Event {
    /// A leaf was declared, with this shape text.
    Declare(TensorId, Option<Arc<DeclaredShape>>),
    /// A step was added (it succeeded: failed steps are undone).
    Step(StepId, Option<Box<StepExtra>>),
    /// Two tensors were required to have equal shapes.
    Equal(TensorId, TensorId),
    /// A tensor was required to hold this many elements.
    TotalElems(TensorId, u64),
    /// A tensor was renamed.
    Name(Box<(TensorId, Name)>),
    /// The graph was solved.
    Solve,
    /// The graph was solved after the default closing failed, carefully within this much
    /// careful work. Replayed as the recovery ended: the events before it rebuild the graph
    /// the recovery replayed, and a careful solve with the same allowance closes it alike
    /// (without replaying the events once more, which would nest one replay per earlier
    /// recovered solve).
    SolveRecovered(u64),
    /// A leaf was declared from a typed shape.
    Typed(TensorId, Box<ShapeBuilder>),
    /// A row variable was made for a handle, with this name.
    RowVar(Box<Name>),
    /// A handle was made for a leaf's declared row variable.
    RowOf(TensorId, RowKind),
    /// A handle's size was set.
    SetDim(u32, u64),
    /// Two handles were set equal.
    SetEqual(u32, u32),
    /// A row handle was bound to these axes (the probes of a scheme).
    Probe(Box<(u32, Vec<Solved>)>),
}

// One event per declaration and per step of a program: keep an event at 24 bytes (a
// tensor id is its index and its graph's identity).
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Event>() == 24);

/// What a step event keeps besides the step (whose result's name the graph keeps): numpy
/// subscripts, captures.
#[derive(Clone, Debug)]
pub(super) struct StepExtra {
    pub numpy: Option<String>,
    /// The labels and row variables captured as handles.
    pub captures: Option<Box<[Name]>>,
}

impl Graph {
    /// The solver work this graph has done: constraints processed, and copies of the solver
    /// made for careful trials (each counted at the solver's size), in every trial, replay
    /// and rollback, failed ones included. A measure of the time inference took that is the
    /// same on every run of the same program: what the fuzz campaigns hold to a budget linear
    /// in the program.
    pub fn work(&self) -> u64 {
        self.solver.work
    }

    /// The careful work that recovering from a failed solve may still do, and the work its
    /// replays have done (see [`Graph::work`]), carried from one replay to the next.
    pub(super) fn recovery(&self) -> Recovery {
        Recovery { budget: self.solver.careful_allowance(), work: self.solver.work }
    }

    /// An empty graph with this graph's settings (direct evaluation on or off), to replay
    /// events into.
    pub(super) fn empty_like(&self) -> Graph {
        let mut g = Graph::new();
        g.direct = self.direct;
        g.axis_limit = self.axis_limit;
        // The same graph, rebuilt: its handles stay valid.
        g.id = self.id;
        g.solver.origins.set_graph(self.id);
        g
    }

    /// Rebuilds the graph from its first `events` events (deterministic: the same ids).
    pub(super) fn roll_back_to(&mut self, events: usize) {
        let mut g = self.empty_like();
        g.solver.work = self.solver.work;
        let ok = self.events[..events].iter().all(|e| g.replay_event(self, e).is_some());
        if ok {
            *self = g;
        }
    }

    /// Rebuilds the graph from its events and solves the last round carefully, within the
    /// careful work `r` leaves (which it spends); `None` when that fails too (or the graph
    /// cannot be rebuilt).
    pub(super) fn replay_carefully(&self, r: &mut Recovery) -> Option<Graph> {
        self.replay_solving(r, &mut |_, _| Some(()))
    }

    /// Rebuilds the graph from its events, calling `after` after each, and solves the last
    /// round carefully within the careful work `r` leaves. Whatever the outcome, the work
    /// done is counted in `r`.
    pub(super) fn replay_solving(
        &self,
        r: &mut Recovery,
        after: &mut dyn FnMut(&mut Graph, &Event) -> Option<()>,
    ) -> Option<Graph> {
        let mut g = self.empty_like();
        g.solver.work = r.work;
        let replayed = self
            .events
            .iter()
            .all(|e| g.replay_event(self, e).and_then(|()| after(&mut g, e)).is_some());
        let solved = replayed && {
            g.solver.set_careful(r.budget);
            let solved = g.solve_once().is_ok();
            r.budget = g.solver.careful_budget;
            solved
        };
        r.work = g.solver.work;
        solved.then_some(g)
    }

    /// Applies one event of `source` to this graph; `None` when it fails.
    pub(super) fn replay_event(&mut self, source: &Graph, e: &Event) -> Option<()> {
        match e {
            Event::Declare(t, shape) => {
                let entry = source.tensors.get(t.index())?;
                let text = shape.as_ref().map(|d| &*d.text);
                self.declare(&source.name_or_id(*t), text, entry.param).ok()?;
            }
            Event::Step(step, extra) => {
                let s @ Step { op, args, .. } = source.steps.get(step.index())?;
                let extra = extra.as_deref();
                let spec = s.spec_text().or(extra.and_then(|x| x.numpy.as_deref()));
                // The result's name as the graph has it now (a later rename replays after).
                self.next_name = source.given_name(s.out);
                match extra.and_then(|x| x.captures.as_deref()) {
                    Some(names) => {
                        let names: Vec<&str> = names.iter().map(|n| n.as_str()).collect();
                        let spec = spec?;
                        self.add_step_capturing(*op, args, spec, &names).ok()?;
                    }
                    None => {
                        self.add_step(*op, args, spec).ok()?;
                    }
                }
            }
            Event::Equal(a, b) => self.equal_shapes(*a, *b).ok()?,
            Event::TotalElems(t, n) => self.total_elems(*t, *n).ok()?,
            Event::Name(renamed) => self.set_name(renamed.0, &renamed.1).ok()?,
            Event::Solve => {
                // `solve_once`, not `solve`: this solve needed no recovery. The event is
                // recorded as `solve` records it, so that a graph rebuilt from its events
                // (taken back after a failed step, or replayed carefully) keeps the points
                // where the world was closed, and a later replay closes at them too.
                self.solve_once().ok()?;
                self.events.push(Event::Solve);
            }
            Event::SolveRecovered(budget) => {
                self.solver.set_careful(*budget);
                let solved = self.solve_once();
                self.solver.careful = false;
                solved.ok()?;
                self.events.push(Event::SolveRecovered(*budget));
            }
            Event::Typed(t, shape) => {
                let entry = source.tensors.get(t.index())?;
                self.declare_leaf(&source.name_or_id(*t), entry.kind()?, shape).ok()?;
            }
            Event::RowVar(name) => {
                self.row_var(name);
            }
            Event::RowOf(t, kind) => {
                self.row_of(*t, *kind).ok()?;
            }
            Event::SetDim(h, n) => self.set_dim(self.handle_at(*h), *n).ok()?,
            Event::SetEqual(a, b) => self.set_equal(self.handle_at(*a), self.handle_at(*b)).ok()?,
            Event::Probe(p) => self.bind_probe(self.handle_at(p.0), &p.1).ok()?,
        }
        Some(())
    }
}

/// What recovering from a failed solve may still spend on careful closing, and the work its
/// replays have done, carried from one replay to the next.
pub(super) struct Recovery {
    /// Careful work left (see [`Solver::careful_budget`](crate::infer::solve::solver::Solver)).
    pub budget: u64,
    /// Work done, the failed solve's and every replay's.
    pub work: u64,
}
