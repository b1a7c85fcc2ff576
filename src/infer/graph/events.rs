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
        let ok = self.events[..events].iter().all(|e| g.replay_event(self, e).is_some());
        if ok {
            *self = g;
        }
    }

    /// Rebuilds the graph from its events and solves the last round carefully; `None` when
    /// that fails too (or the graph cannot be rebuilt).
    pub(super) fn replay_carefully(&self) -> Option<Graph> {
        let mut g = self.empty_like();
        for e in &self.events {
            g.replay_event(self, e)?;
        }
        g.solver.set_careful();
        g.solve_once().ok()?;
        Some(g)
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
            Event::Solve => self.solve_once().ok()?,
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
