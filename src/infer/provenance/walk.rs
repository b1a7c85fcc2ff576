//! The walk: from the axes where a size shows at a failing step, breadth first through the
//! axes other steps relate (only those of the same size), to the nearest declaration that
//! writes the size or `set_dim` that sets it. Run only when an error is reported; it reads the graph as solved so far.

use std::collections::{HashMap, VecDeque};

use super::declared::Declared;
use super::derive::Found;
use super::links::{
    label_axes, links, numpy_label_axes, operand_links, view, Link, StepInfo, Views,
};
use super::settings::set_axes;
use crate::ids::{StepId, TensorId};
use crate::infer::error::{AxisRef, Derivation, DerivedFrom, Hop, SetBy, Trace};
use crate::infer::Graph;
use crate::span::Span;
use crate::spec::ast::{NumpySpec, Row, RowKind, ShapeSpec};

/// The most axes one walk visits (a guard: a walk is linear in the graph).
const MAX_VISITED: usize = 1 << 22;

/// A walk over a graph, reusing what it read (rows, steps' links) from one size to the next.
pub struct Walker<'g, 'd> {
    pub(super) g: &'g Graph,
    pub(super) views: Views,
    /// Each tensor's producing step and consuming steps (built on the first walk).
    index: Option<StepIndex>,
    links: HashMap<StepId, Vec<Link>>,
    /// The failing step, whose own links are not walked.
    pub(super) skip: Option<StepId>,
    /// Computations traced so far (a guard: each may trace its inputs in turn).
    computed: usize,
    declared: &'d dyn Fn(TensorId) -> Option<&'d str>,
    numpy: &'d dyn Fn(StepId) -> Option<&'d NumpySpec>,
    parsed: HashMap<TensorId, Option<Declared>>,
    /// The axes `set_dim` settings sized (read on the first walk).
    set: Option<HashMap<AxisRef, SetBy>>,
}

/// Shows the type only: its state is borrowed tables and closures.
impl std::fmt::Debug for Walker<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Walker").finish_non_exhaustive()
    }
}

/// Steps by tensor: the one producing it, the ones consuming it.
#[derive(Debug)]
pub(super) struct StepIndex {
    graph: crate::ids::GraphId,
    producer: Vec<u32>,
    starts: Vec<u32>,
    consumers: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl StepIndex {
    fn new(g: &Graph) -> StepIndex {
        let n = g.tensor_count();
        let mut producer = vec![NONE; n];
        let mut counts = vec![0u32; n + 1];
        for (i, s) in g.steps().iter().enumerate() {
            if let Some(p) = producer.get_mut(s.out.index()) {
                *p = u32::try_from(i).unwrap_or(NONE);
            }
            for a in &s.args {
                if let Some(c) = counts.get_mut(a.index() + 1) {
                    *c += 1;
                }
            }
        }
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        let mut fill = counts.clone();
        let mut consumers = vec![0u32; counts[n] as usize];
        for (i, s) in g.steps().iter().enumerate() {
            for a in &s.args {
                if let Some(at) = fill.get_mut(a.index()) {
                    consumers[*at as usize] = u32::try_from(i).unwrap_or(NONE);
                    *at += 1;
                }
            }
        }
        StepIndex { graph: g.id(), producer, starts: counts, consumers }
    }

    pub(super) fn steps_of(&self, t: TensorId) -> impl Iterator<Item = StepId> + '_ {
        let i = t.index();
        let produced = self.producer.get(i).copied().filter(|&p| p != NONE);
        let from = self.starts.get(i).copied().unwrap_or(0) as usize;
        let to = self.starts.get(i + 1).copied().unwrap_or(0) as usize;
        let consumed = self.consumers.get(from..to).unwrap_or_default().iter().copied();
        produced.into_iter().chain(consumed).map(|s| StepId::new(s as usize, self.graph))
    }
}

impl<'g, 'd> Walker<'g, 'd> {
    /// A walker over `g`, not walking `skip`'s links; `declared` gives a leaf's declared shape
    /// string, `numpy` a numpy step's parsed subscripts.
    pub fn new(
        g: &'g Graph,
        skip: Option<StepId>,
        declared: &'d dyn Fn(TensorId) -> Option<&'d str>,
        numpy: &'d dyn Fn(StepId) -> Option<&'d NumpySpec>,
    ) -> Walker<'g, 'd> {
        Walker {
            g,
            views: Views::default(),
            index: None,
            links: HashMap::new(),
            skip,
            declared,
            numpy,
            parsed: HashMap::new(),
            set: None,
            computed: 0,
        }
    }

    /// Each tensor's producing and consuming steps (built on the first call).
    pub(super) fn step_index(&mut self) -> &StepIndex {
        self.index.get_or_insert_with(|| StepIndex::new(self.g))
    }

    /// The graph walked.
    pub fn graph(&mut self) -> &Graph {
        self.g
    }

    /// The size of an axis, when solved.
    pub fn size(&mut self, a: AxisRef) -> Option<u64> {
        view(self.g, &mut self.views, a.tensor, a.kind).size(a.axis)
    }

    /// The positions of the axes of a row.
    pub fn positions(&mut self, t: TensorId, kind: RowKind) -> Vec<i16> {
        view(self.g, &mut self.views, t, kind).positions().collect()
    }

    /// An axis's position as a reader counts it (from the left in a closed row).
    pub fn shown(&mut self, a: AxisRef) -> i16 {
        view(self.g, &mut self.views, a.tensor, a.kind).shown(a.axis)
    }

    /// The links of a step (not the skipped one) among the axes `ax` takes part in.
    pub fn step_links(&mut self, s: StepId) -> &[Link] {
        if !self.links.contains_key(&s) {
            let found = match self.g.steps().get(s.index()).cloned() {
                Some(step) if Some(s) != self.skip => {
                    let spec = step.spec.clone();
                    let numpy = (self.numpy)(s);
                    let info = StepInfo {
                        op: step.op,
                        args: &step.args,
                        out: step.out,
                        einsum: spec.as_ref().map(|sp| &sp.parsed),
                        numpy,
                    };
                    links(self.g, &mut self.views, &info)
                }
                _ => Vec::new(),
            };
            self.links.insert(s, found);
        }
        self.links.get(&s).map_or(&[], Vec::as_slice)
    }

    /// The axes the failing step relates: among its operands first, then with its result
    /// (`info.out`, when the graph has the step).
    pub fn failing_links(&mut self, info: &StepInfo, with_result: bool) -> Vec<Link> {
        let mut out = operand_links(self.g, &mut self.views, info);
        if with_result {
            out.extend(links(self.g, &mut self.views, info));
        }
        out
    }

    /// The axes of operand slots (each with its tensor) that hold `label`.
    pub fn label_axes(&mut self, slots: &[(&ShapeSpec, TensorId)], label: &str) -> Vec<AxisRef> {
        label_axes(self.g, &mut self.views, slots, label)
    }

    /// The axes of numpy input terms (each with its operand) that hold `label`.
    pub fn numpy_label_axes(&mut self, terms: &[(&Row, TensorId)], label: &str) -> Vec<AxisRef> {
        numpy_label_axes(self.g, &mut self.views, terms, label)
    }

    /// The size a declaration writes at an axis, and its span in the declared text.
    pub fn literal(&mut self, a: AxisRef) -> Option<(u64, Span)> {
        let declared = self.declared;
        let d = self
            .parsed
            .entry(a.tensor)
            .or_insert_with(|| declared(a.tensor).and_then(Declared::parse));
        let d = d.clone()?;
        let now = view(self.g, &mut self.views, a.tensor, a.kind);
        d.literal(a.kind, a.axis, now)
    }

    /// The setting that gave an axis `size`, when one did.
    pub fn setting(&mut self, a: AxisRef, size: u64) -> Option<SetBy> {
        if self.set.is_none() {
            let declared = self.declared;
            let parse = |t: TensorId| declared(t).and_then(Declared::parse);
            self.set = Some(set_axes(self.g, &mut self.views, &parse));
        }
        let by = self.set.as_ref()?.get(&a).filter(|by| by.size == size)?.clone();
        (self.size(a) == Some(size)).then_some(by)
    }

    /// Where `size` came from, for the axes `starts` where it shows: the nearest axis a
    /// declaration writes it at, and the steps from there to one of `starts`; when no
    /// declaration or setting writes it, the step that computed it (a convolution, a stride, a
    /// concatenation) from sizes traced in turn.
    pub fn trace(&mut self, starts: &[AxisRef], size: u64) -> Trace {
        self.trace_at(starts, size, 0)
    }

    fn trace_at(&mut self, starts: &[AxisRef], size: u64, depth: usize) -> Trace {
        let mut parent: HashMap<AxisRef, Option<(AxisRef, StepId)>> = HashMap::new();
        let mut order: Vec<AxisRef> = Vec::new();
        let mut queue: VecDeque<AxisRef> = VecDeque::new();
        for &s in starts {
            if parent.insert(s, None).is_none() {
                queue.push_back(s);
            }
        }
        let ended = |a: AxisRef, parent: &HashMap<_, _>| {
            let hops = path(parent, a);
            let at = hops.last().map_or(a, |h: &Hop| h.to);
            Trace {
                at: Some(at),
                origin: Some(a),
                origin_span: None,
                setting: None,
                hops,
                derived: None,
            }
        };
        while let Some(a) = queue.pop_front() {
            order.push(a);
            if let Some((_, span)) = self.literal(a).filter(|(n, _)| *n == size) {
                return Trace { origin_span: Some(span), ..ended(a, &parent) };
            }
            if let Some(by) = self.setting(a, size) {
                return Trace { setting: Some(by), ..ended(a, &parent) };
            }
            if parent.len() > MAX_VISITED {
                break;
            }
            let steps: Vec<StepId> = self.step_index().steps_of(a.tensor).collect();
            for s in steps {
                let next: Vec<AxisRef> = self
                    .step_links(s)
                    .iter()
                    .filter_map(|&(x, y)| match () {
                        _ if x == a => Some(y),
                        _ if y == a => Some(x),
                        _ => None,
                    })
                    .collect();
                for b in next {
                    if !parent.contains_key(&b) && self.size(b) == Some(size) {
                        parent.insert(b, Some((a, s)));
                        queue.push_back(b);
                    }
                }
            }
        }
        if depth < MAX_DEPTH {
            for &a in &order {
                if self.computed >= MAX_COMPUTED {
                    break;
                }
                let Some(found) = self.computation(a, size) else { continue };
                self.computed += 1;
                let derived = self.derivation(a, found, depth);
                return Trace {
                    origin: None,
                    derived: Some(Box::new(derived)),
                    ..ended(a, &parent)
                };
            }
        }
        let at = starts.first().copied();
        Trace {
            at,
            origin: None,
            origin_span: None,
            setting: None,
            hops: Vec::new(),
            derived: None,
        }
    }

    /// A computation found at `a`, its inputs traced.
    fn derivation(&mut self, a: AxisRef, f: Found, depth: usize) -> Derivation {
        let inputs = f
            .inputs
            .into_iter()
            .map(|(role, value, starts)| {
                let trace = self.trace_at(&starts, value, depth + 1);
                DerivedFrom { role, value, trace }
            })
            .collect();
        let step = f.step.unwrap_or_else(|| StepId::new(0, self.g.id()));
        Derivation { step, at: a, span: Some(f.span), what: f.what, formula: f.formula, inputs }
    }
}

/// How deep computations are traced through the sizes they are computed from.
const MAX_DEPTH: usize = 8;

/// The most computations one walker traces.
const MAX_COMPUTED: usize = 64;

/// The hops from `origin` back to the start its walk began at: the walk went from a start to
/// the origin, so the hops are its steps reversed.
fn path(parent: &HashMap<AxisRef, Option<(AxisRef, StepId)>>, origin: AxisRef) -> Vec<Hop> {
    let mut hops = Vec::new();
    let mut at = origin;
    while let Some(Some((prev, step))) = parent.get(&at) {
        hops.push(Hop { step: *step, from: at, to: *prev });
        at = *prev;
    }
    hops
}
