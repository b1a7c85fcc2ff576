//! The compiled training step: see [`Training`].

use std::collections::HashMap;
use std::sync::Arc;

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{Bfs, Reversed};
use smallvec::SmallVec;

use super::arena::{plan_arena, Life};
use super::compiled::Executable;
use super::derive::{derive_plan, Compute};
use super::error::ProjectError;
use super::gradient::GradInput;
use super::plan::IndexPlan;
use super::sizes::Sizes;
use crate::ids::{GraphId, StepId, TensorId};
use crate::infer::{Graph, InferError};
use crate::spec::ast::Name;

/// One forward step.
#[derive(Clone, Debug)]
pub(super) struct Forward {
    pub step: StepId,
    pub out: TensorId,
    pub args: SmallVec<[TensorId; 3]>,
    /// The plan the executable was compiled from.
    pub plan: Arc<IndexPlan>,
    pub exe: Arc<Executable>,
}

/// What a gradient plan reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Read {
    /// The gradient of this tensor (the step's result).
    Grad(TensorId),
    /// The value of this tensor.
    Value(TensorId),
}

/// One gradient plan of a backward step: adds into `target`'s gradient.
#[derive(Clone, Debug)]
pub(super) struct GradRun {
    pub target: TensorId,
    pub reads: SmallVec<[Read; 3]>,
    pub exe: Arc<Executable>,
}

/// The backward work of one step.
#[derive(Clone, Debug)]
pub(super) struct Backward {
    pub step: StepId,
    pub out: TensorId,
    pub runs: Vec<GradRun>,
}

/// Where a buffer lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Place {
    /// Nowhere (not needed).
    None,
    /// The caller's buffer number `k` (a leaf's value, a parameter's gradient).
    Caller(usize),
    /// The arena, from this offset.
    Arena(usize),
}

/// The forward and backward passes of a solved graph, compiled once and run on a caller's
/// leaf buffers, with every intermediate value and gradient placed by liveness in one arena.
///
/// The forward pass runs every step in order. The backward pass seeds the loss's gradient
/// with ones, then takes the steps that lead from the parameters to the loss in reverse
/// order; each runs the [gradient plans](super::GradientPlan) of its operands that need one,
/// adding into their gradients (a tensor read by several steps gets the sum). Identical plans
/// are compiled once. The operation graph (petgraph) gives which tensors lead to the loss
/// and which depend on a parameter; the schedule then gives each buffer's life, and
/// [`plan_arena`](super::plan_arena) its place.
///
/// With the `serde` feature, training steps are `Serialize` and `Deserialize`: the form is a
/// [`CompiledGraph`](super::CompiledGraph)'s (tensor sizes, distinct forward plans, each
/// step's tensors and plan) with the loss and the parameters. Deserialising checks it as a
/// compiled graph's, checks that the loss is a tensor and the parameters leaves, then builds
/// the rest again as compiling does (gradient plans, executables, buffer places), under a
/// fresh graph id.
///
/// ```
/// use einrow::infer::{Graph, ShapeBuilder};
/// use einrow::project::{Compute, Training};
///
/// let mut g = Graph::new();
/// let x = g.input("x", &ShapeBuilder::new().batch([2]).output([3]))?;
/// let w = g.parameter("w", &ShapeBuilder::new().input([3]).output([1]))?;
/// let y = g.compose(w, x)?;
/// let loss = g.einsum("b|o; b|o => ", &[y, y])?; // Σ y²
/// g.solve()?;
/// let computes: Vec<Compute> =
///     g.steps().iter().map(|s| Compute::default_for(s.op, s.args.len())).collect();
/// let train = Training::compile(&g, loss, &[w], &|s| computes[s.index()])?;
/// let mut ws = train.workspace::<f64>()?;
/// let (xs, ws_) = ([1.0, 2.0, 3.0, 1.0, 0.0, 1.0], [1.0, 1.0, 1.0]);
/// let mut dw = [0.0f64; 3];
/// train.run(&mut ws, &[&xs, &ws_], &mut [&mut dw], &mut ())?;
/// // y = [6, 2]; dL/dw = Σ_b 2 y_b x_b = 2·6·[1,2,3] + 2·2·[1,0,1].
/// assert_eq!(dw, [16.0, 24.0, 40.0]);
/// assert_eq!(ws.value(&train, loss)?, [40.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Training {
    pub(super) graph: GraphId,
    /// Each tensor's name, as errors write it (empty for a training read back by serde:
    /// errors then write ids).
    pub(super) names: Vec<Name>,
    /// Each tensor's sizes in memory order (what the `serde` form writes).
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    pub(super) dims: Vec<Vec<u64>>,
    pub(super) lens: Vec<usize>,
    pub(super) leaves: Vec<TensorId>,
    pub(super) params: Vec<TensorId>,
    pub(super) loss: TensorId,
    pub(super) forward: Vec<Forward>,
    pub(super) backward: Vec<Backward>,
    pub(super) values: Vec<Place>,
    pub(super) grads: Vec<Place>,
    /// Arena buffers zeroed (or, for the loss, set to ones) before the backward step at each
    /// position reads them: `(backward position, tensor)`.
    pub(super) zero_at: Vec<(usize, TensorId)>,
    pub(super) arena_len: usize,
    pub(super) executables: usize,
}

impl Training {
    /// Compiles the forward pass of every step of a solved graph (each step computing what
    /// `compute` gives it) and the backward pass from `loss` to the gradients of `params`
    /// (leaves of the graph). Errors: ids of another graph (`name`), a parameter that is not a
    /// leaf (`value`), a step on the way from a parameter to the loss without gradient plans
    /// (`unsupported`), unsolved shapes.
    pub fn compile(
        g: &Graph,
        loss: TensorId,
        params: &[TensorId],
        compute: &dyn Fn(StepId) -> Compute,
    ) -> Result<Training, ProjectError> {
        g.check_tensor(loss)?;
        for &p in params {
            g.check_tensor(p)?;
            if !g.tensor_entry(p).leaf {
                let name = g.name_or_id(p);
                let msg = format!("`{name}` is computed by a step: gradients are of leaves");
                return Err(
                    InferError::Usage { code: crate::ErrorCode::Value, message: msg }.into()
                );
            }
        }
        let (mut dims, mut lens) = (Vec::new(), Vec::with_capacity(g.tensor_count()));
        for t in g.tensor_ids().collect::<Vec<_>>() {
            let sizes = Sizes::of(g, t)?.memory().to_vec();
            let n = sizes.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
            let n = n.and_then(|n| usize::try_from(n).ok());
            lens.push(n.ok_or_else(|| ProjectError::TooLarge(format!("`{}`", g.name_or_id(t))))?);
            dims.push(sizes);
        }
        let mut steps = Vec::with_capacity(g.steps().len());
        for step in g.step_ids().collect::<Vec<_>>() {
            let plan = derive_plan(g, step, compute(step), 0)?;
            let s = &g.steps()[step.index()];
            steps.push((step, s.out, s.args.clone(), Arc::new(plan)));
        }
        let leaves: Vec<TensorId> = g.tensor_ids().filter(|&t| g.tensor_entry(t).leaf).collect();
        let ends = Ends { loss, params: params.to_vec(), leaves };
        let mut train = Training::assemble(g.id(), (dims, lens), ends, steps)?;
        train.names = g.tensor_ids().map(|t| g.name_or_id(t)).collect();
        Ok(train)
    }

    /// `t`'s name as errors write it.
    pub(super) fn name_of(&self, t: TensorId) -> String {
        self.names.get(t.index()).map_or_else(|| t.to_string(), |n| n.to_string())
    }

    /// The training step of a graph given by each tensor's sizes and buffer length, its
    /// loss, parameters and leaves, and each step's tensors and forward plan (checked to fit
    /// together by the caller): compiles the forward plans, derives and compiles the gradient
    /// plans, and places the buffers.
    pub(super) fn assemble(
        graph: GraphId,
        (dims, lens): (Vec<Vec<u64>>, Vec<usize>),
        ends: Ends,
        steps: Vec<ForwardStep>,
    ) -> Result<Training, ProjectError> {
        // The arena holds at most every tensor's value and gradient: its offsets stay in
        // `usize` when their sum does.
        let total = lens.iter().try_fold(0usize, |n, &l| n.checked_add(l)?.checked_add(l));
        if total.is_none() {
            let msg = "a training step whose values and gradients hold more than 2^64 elements";
            return Err(ProjectError::TooLarge(msg.into()));
        }
        let mut cache = Cache::default();
        let mut forward = Vec::with_capacity(steps.len());
        for (step, out, args, plan) in steps {
            let exe = cache.get(&plan, false)?;
            forward.push(Forward { step, out, args, plan, exe });
        }
        let flow = Flow::of(lens.len(), &forward, ends.loss, &ends.params);
        let backward = backward_steps(&forward, &flow, &mut cache)?;
        let mut t = Training {
            graph,
            names: Vec::new(),
            dims,
            lens,
            leaves: ends.leaves,
            params: ends.params,
            loss: ends.loss,
            forward,
            backward,
            values: Vec::new(),
            grads: Vec::new(),
            zero_at: Vec::new(),
            arena_len: 0,
            executables: cache.count,
        };
        t.place_buffers();
        Ok(t)
    }

    /// The leaves, in the order [`Training::run`] takes their buffers.
    pub fn leaves(&self) -> &[TensorId] {
        &self.leaves
    }

    /// The parameters, in the order [`Training::run`] takes their gradients' buffers.
    pub fn params(&self) -> &[TensorId] {
        &self.params
    }

    /// The loss.
    pub fn loss(&self) -> TensorId {
        self.loss
    }

    /// The elements of the arena every [`Workspace`](super::Workspace) holds: the
    /// intermediate values and gradients, placed by liveness.
    pub fn arena_len(&self) -> usize {
        self.arena_len
    }

    /// The elements one buffer per intermediate value and per gradient would take (what the
    /// arena saves against).
    pub fn unplanned_len(&self) -> usize {
        let value = |t: &Forward| self.lens[t.out.index()];
        let grads: usize = (0..self.lens.len())
            .filter(|&t| matches!(self.grads[t], Place::Arena(_)))
            .map(|t| self.lens[t])
            .sum();
        self.forward.iter().map(value).sum::<usize>() + grads
    }

    /// The number of distinct executables compiled (identical plans share one).
    pub fn executable_count(&self) -> usize {
        self.executables
    }
}

/// One forward step before compiling: the step, its result, operands and plan.
pub(super) type ForwardStep = (StepId, TensorId, SmallVec<[TensorId; 3]>, Arc<IndexPlan>);

/// The tensors a training step starts and ends at: the loss, the parameters and the leaves.
pub(super) struct Ends {
    pub loss: TensorId,
    pub params: Vec<TensorId>,
    pub leaves: Vec<TensorId>,
}

/// Which tensors lead to the loss and which depend on a parameter, from the operation graph.
pub(super) struct Flow {
    /// A gradient of the tensor is needed: it depends on a parameter and leads to the loss.
    pub needs_grad: Vec<bool>,
}

impl Flow {
    fn of(tensors: usize, steps: &[Forward], loss: TensorId, params: &[TensorId]) -> Flow {
        let mut dag: DiGraph<(), ()> = DiGraph::with_capacity(tensors, 0);
        let nodes: Vec<NodeIndex> = (0..tensors).map(|_| dag.add_node(())).collect();
        for s in steps {
            for a in &s.args {
                dag.add_edge(nodes[a.index()], nodes[s.out.index()], ());
            }
        }
        // One walk from every parameter at once.
        let mut from_params = vec![false; nodes.len()];
        if let Some((first, rest)) = params.split_first() {
            let mut bfs = Bfs::new(&dag, nodes[first.index()]);
            for p in rest {
                if !bfs.discovered.put(nodes[p.index()].index()) {
                    bfs.stack.push_back(nodes[p.index()]);
                }
            }
            while let Some(n) = bfs.next(&dag) {
                from_params[n.index()] = true;
            }
        }
        let mut to_loss = vec![false; nodes.len()];
        let reversed = Reversed(&dag);
        let mut bfs = Bfs::new(reversed, nodes[loss.index()]);
        while let Some(n) = bfs.next(reversed) {
            to_loss[n.index()] = true;
        }
        let needs_grad = from_params.iter().zip(&to_loss).map(|(a, b)| *a && *b).collect();
        Flow { needs_grad }
    }
}

/// Executables by plan: identical plans are compiled once.
#[derive(Default)]
struct Cache {
    map: HashMap<(IndexPlan, bool), Arc<Executable>>,
    count: usize,
}

impl Cache {
    fn get(&mut self, plan: &IndexPlan, accumulate: bool) -> Result<Arc<Executable>, ProjectError> {
        let key = (plan.clone(), accumulate);
        if let Some(exe) = self.map.get(&key) {
            return Ok(exe.clone());
        }
        let exe = match accumulate {
            true => Executable::compile_accumulating(plan)?,
            false => Executable::compile(plan)?,
        };
        let exe = Arc::new(exe);
        self.count += 1;
        self.map.insert(key, exe.clone());
        Ok(exe)
    }
}

/// The backward steps, in the order they run: each step whose result needs a gradient, last
/// step first, with the gradient plans of its operands that need one.
fn backward_steps(
    forward: &[Forward],
    flow: &Flow,
    cache: &mut Cache,
) -> Result<Vec<Backward>, ProjectError> {
    let mut out = Vec::new();
    for f in forward.iter().rev() {
        let plan = &f.plan;
        if !flow.needs_grad[f.out.index()] {
            continue;
        }
        let mut runs = Vec::new();
        for (k, &arg) in f.args.iter().enumerate() {
            if !flow.needs_grad[arg.index()] {
                continue;
            }
            let grad = plan.gradient(k)?;
            let reads = grad
                .inputs
                .iter()
                .map(|i| match i {
                    GradInput::Operand(j) => Read::Value(f.args[*j]),
                    _ => Read::Grad(f.out),
                })
                .collect();
            runs.push(GradRun { target: arg, reads, exe: cache.get(&grad.plan, true)? });
        }
        out.push(Backward { step: f.step, out: f.out, runs });
    }
    Ok(out)
}

impl Training {
    /// Gives every intermediate value and gradient its place: leaves' values and the
    /// parameters' gradients are the caller's; the rest live in the arena while they are
    /// needed (a value until the last forward or backward step that reads it, the loss's to
    /// the end; a gradient from its first writer to its step's backward).
    fn place_buffers(&mut self) {
        let n = self.lens.len();
        let fwd = self.forward.len();
        let end = fwd + self.backward.len();
        let mut value_life: Vec<Option<(usize, usize)>> = vec![None; n];
        let mut grad_life: Vec<Option<(usize, usize)>> = vec![None; n];
        let touch = |life: &mut Option<(usize, usize)>, at: usize| {
            *life = Some(life.map_or((at, at), |(a, b)| (a.min(at), b.max(at))));
        };
        for (i, f) in self.forward.iter().enumerate() {
            touch(&mut value_life[f.out.index()], i);
            for a in &f.args {
                touch(&mut value_life[a.index()], i);
            }
        }
        touch(&mut value_life[self.loss.index()], end);
        for (b, back) in self.backward.iter().enumerate() {
            let at = fwd + b;
            touch(&mut value_life[back.out.index()], at);
            touch(&mut grad_life[back.out.index()], at);
            for run in &back.runs {
                touch(&mut grad_life[run.target.index()], at);
                for r in &run.reads {
                    if let Read::Value(t) = r {
                        touch(&mut value_life[t.index()], at);
                    }
                }
            }
        }
        touch(&mut grad_life[self.loss.index()], fwd);
        self.assign_places(&value_life, &grad_life);
    }

    fn assign_places(
        &mut self,
        value_life: &[Option<(usize, usize)>],
        grad_life: &[Option<(usize, usize)>],
    ) {
        let n = self.lens.len();
        self.values = vec![Place::None; n];
        self.grads = vec![Place::None; n];
        for (k, &t) in self.leaves.iter().enumerate() {
            self.values[t.index()] = Place::Caller(k);
        }
        for (k, &p) in self.params.iter().enumerate() {
            self.grads[p.index()] = Place::Caller(k);
        }
        // (tensor, is a gradient) of each arena buffer, and its life.
        let mut owners: Vec<(TensorId, bool)> = Vec::new();
        let mut lives: Vec<Life> = Vec::new();
        for t in 0..n {
            let id = TensorId::new(t, self.graph);
            if let (Place::None, Some((first, last))) = (self.values[t], value_life[t]) {
                owners.push((id, false));
                lives.push(Life { first, last, len: self.lens[t] });
            }
            if let (Place::None, Some((first, last))) = (self.grads[t], grad_life[t]) {
                owners.push((id, true));
                lives.push(Life { first, last, len: self.lens[t] });
                self.zero_at.push((first, id));
            }
        }
        let arena = plan_arena(&lives);
        for ((t, grad), offset) in owners.into_iter().zip(arena.offsets) {
            let slot = if grad { &mut self.grads[t.index()] } else { &mut self.values[t.index()] };
            *slot = Place::Arena(offset);
        }
        self.zero_at.sort_unstable_by_key(|(at, t)| (*at, t.index()));
        self.arena_len = arena.len;
    }
}
