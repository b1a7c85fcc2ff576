//! Rows as the steps relate them, for what a row's length (rather than one axis's size) came
//! from: a broadcast relates each result row to the operands' rows of its kind, a compose and
//! a transpose swap and contract rows, a spec's row variable ties every row it stands in.
//!
//! [`RowWalk::origin`] finds, for a row of a given length, the nearest declaration that writes
//! a closed row of that length (a rank conflict's origin); [`RowWalk::reach`] finds the open
//! rows a set of rows can still change (the rows a guessed closing reaches).

use std::collections::{HashMap, HashSet, VecDeque};

use super::declared::Declared;
use super::rows::RowView;
use crate::ids::{StepId, TensorId};
use crate::infer::{Graph, OpKind};
use crate::spec::ast::{RowKind, ShapeSpec};

/// A tensor's row.
pub type RowRef = (TensorId, RowKind);

/// One step of a row walk: the step related row `from` to row `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowHop {
    /// The step.
    pub step: StepId,
    /// The row the length came from.
    pub from: RowRef,
    /// The row it went to.
    pub to: RowRef,
}

/// Where a row's length came from: the declared row that writes it, and the steps between.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowTrace {
    /// The declared row, closed, of that length.
    pub origin: Option<RowRef>,
    /// The steps from the origin toward the row asked about.
    pub hops: Vec<RowHop>,
}

const B: RowKind = RowKind::Batch;
const I: RowKind = RowKind::Input;
const O: RowKind = RowKind::Output;

/// The pairs of rows a step relates.
pub fn step_rows(g: &Graph, s: StepId) -> Vec<(RowRef, RowRef)> {
    let Some(step) = g.steps().get(s.index()) else { return Vec::new() };
    let out = step.out;
    let mut pairs = Vec::new();
    match (step.op, &step.args[..]) {
        (OpKind::Pointwise | OpKind::BatchSlice, args) => {
            for &a in args {
                for k in RowKind::ALL {
                    if step.op == OpKind::Pointwise || k != B {
                        pairs.push(((out, k), (a, k)));
                    }
                }
            }
        }
        (OpKind::Compose, &[a, b]) => {
            pairs.extend([((out, B), (a, B)), ((out, B), (b, B)), ((out, I), (b, I))]);
            pairs.extend([((out, O), (a, O)), ((a, I), (b, O))]);
        }
        (OpKind::Transpose, &[a]) => {
            pairs.extend([((out, B), (a, B)), ((out, I), (a, O)), ((out, O), (a, I))]);
        }
        _ => {}
    }
    if let Some(spec) = &step.spec {
        let slots = spec.parsed.rhs.iter().zip(step.args.iter().copied());
        let slots: Vec<(&ShapeSpec, TensorId)> = slots.chain([(&spec.parsed.lhs, out)]).collect();
        // Rows that share a row variable; closed rows of one kind that the spec writes with
        // as many axes (a permute's operand and result).
        let mut by_var: HashMap<(&str, usize), Vec<RowRef>> = HashMap::new();
        for &(slot, t) in &slots {
            for (kind, row) in slot.rows() {
                let key = match &row.ellipsis {
                    Some(e) => (e.var_name(kind), usize::MAX),
                    None => (kind.name(), row.len()),
                };
                by_var.entry(key).or_default().push((t, kind));
            }
        }
        for rows in by_var.values() {
            pairs.extend(rows.iter().skip(1).map(|&r| (rows[0], r)));
        }
    }
    if step.op == OpKind::Numpy {
        pairs.extend(step.args.iter().map(|&a| ((out, O), (a, O))));
    }
    pairs
}

/// A walk over the rows of a graph.
pub struct RowWalk<'g, 'd> {
    g: &'g Graph,
    declared: &'d dyn Fn(TensorId) -> Option<Declared>,
    /// Each tensor's steps (the producer and the consumers).
    steps: HashMap<TensorId, Vec<StepId>>,
    /// A step not walked (the failing one).
    skip: Option<StepId>,
}

/// Shows the type only: its state is borrowed tables and closures.
impl std::fmt::Debug for RowWalk<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowWalk").finish_non_exhaustive()
    }
}

impl<'g, 'd> RowWalk<'g, 'd> {
    /// A walk over `g`'s rows, not through `skip`; `declared` reads a tensor's declaration.
    pub fn new(
        g: &'g Graph,
        skip: Option<StepId>,
        declared: &'d dyn Fn(TensorId) -> Option<Declared>,
    ) -> RowWalk<'g, 'd> {
        let mut steps: HashMap<TensorId, Vec<StepId>> = HashMap::new();
        for s in g.step_ids() {
            let step = &g.steps()[s.index()];
            for t in step.args.iter().copied().chain([step.out]) {
                steps.entry(t).or_default().push(s);
            }
        }
        RowWalk { g, declared, steps, skip }
    }

    /// The rows related to `r` by its tensor's steps.
    fn next(&self, r: RowRef) -> Vec<(RowRef, StepId)> {
        let mut out = Vec::new();
        for &s in self.steps.get(&r.0).into_iter().flatten() {
            if Some(s) == self.skip {
                continue;
            }
            for (x, y) in step_rows(self.g, s) {
                match () {
                    _ if x == r => out.push((y, s)),
                    _ if y == r => out.push((x, s)),
                    _ => {}
                }
            }
        }
        out
    }

    /// The number of axes of a closed row (`None` while it is open).
    fn closed_len(&self, r: RowRef) -> Option<usize> {
        let v = RowView::of(self.g, r.0, r.1);
        (!v.is_open()).then_some(v.len())
    }

    /// Where the `len` axes of row `start` came from: breadth first through closed rows of
    /// the same length to the nearest declaration that writes a closed row of that length.
    pub fn origin(&self, start: RowRef, len: usize) -> RowTrace {
        let mut parent: HashMap<RowRef, Option<(RowRef, StepId)>> = HashMap::new();
        parent.insert(start, None);
        let mut queue = VecDeque::from([start]);
        while let Some(r) = queue.pop_front() {
            if (self.declared)(r.0).is_some_and(|d| d.closed_len(r.1) == Some(len)) {
                let mut hops = Vec::new();
                let mut at = r;
                while let Some(Some((prev, step))) = parent.get(&at) {
                    hops.push(RowHop { step: *step, from: at, to: *prev });
                    at = *prev;
                }
                return RowTrace { origin: Some(r), hops };
            }
            for (n, s) in self.next(r) {
                if !parent.contains_key(&n) && self.closed_len(n) == Some(len) {
                    parent.insert(n, Some((r, s)));
                    queue.push_back(n);
                }
            }
        }
        RowTrace::default()
    }

    /// The rows open in the graph that `from` reaches through open rows: the rows whose
    /// closing a change of `from` changes.
    pub fn reach(&self, from: impl IntoIterator<Item = RowRef>) -> HashSet<RowRef> {
        let mut seen: HashSet<RowRef> = from.into_iter().collect();
        let mut queue: VecDeque<RowRef> = seen.iter().copied().collect();
        while let Some(r) = queue.pop_front() {
            for (n, _) in self.next(r) {
                if !seen.contains(&n) && self.closed_len(n).is_none() && seen.insert(n) {
                    queue.push_back(n);
                }
            }
        }
        seen
    }
}
