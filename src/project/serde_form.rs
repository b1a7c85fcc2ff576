//! The `serde` feature's forms of plans, gradient plans, compiled graphs and training steps,
//! and the checks that deserialising runs: data read from outside is an error when it is not
//! consistent, never an object that fails (or panics) later.
//!
//! A plan is checked for what a derived plan holds: every index within its axis (a loop
//! followed as it is spans the axis; fixed and unpadded affine indices stay inside it),
//! loops and operands that exist, each operand read once and in order, index lists as long
//! as their tensors' ranks, sizes at most 2^62 and a `bijective` flag that agrees with the
//! parts. A plan too large to compile (more than 2^62 elements in a tensor) is still a plan:
//! compiling it is the same error as compiling the plan it was written from.
//!
//! A compiled graph is stored without its executables: its distinct plans, each step's
//! tensors and plan, and each tensor's sizes; reading it checks that the plans chain and
//! compiles them again. A training step is stored as its forward graph with its loss and
//! parameters, and built again from them.

use std::collections::HashMap;
use std::sync::Arc;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use smallvec::SmallVec;

use super::compiled::Executable;
use super::compiled_graph::{CompiledGraph, CompiledPlan};
use super::error::ProjectError;
use super::gradient::{GradInput, GradientPlan};
use super::plan::{Index, IndexPlan, Loop, PlanPart};
use super::training::{Ends, Training};
use crate::ids::{GraphId, StepId, TensorId};
use crate::infer::OpKind;
use crate::kernel::{Accum, Combine};
use crate::spec::lexer::MAX_INT;

/// An [`IndexPlan`] as read, before its checks.
#[derive(Deserialize)]
pub(super) struct PlanForm {
    op: OpKind,
    result_dims: Vec<u64>,
    operand_dims: Vec<Vec<u64>>,
    parts: Vec<PlanPart>,
    accum: Accum,
    combine: Combine,
    bijective: bool,
}

fn bad(msg: String) -> ProjectError {
    ProjectError::Misaligned(format!("not a consistent plan: {msg}"))
}

fn sizes_at_most_max(what: &str, sizes: &[u64]) -> Result<(), ProjectError> {
    match sizes.iter().find(|&&s| s > MAX_INT) {
        Some(s) => Err(ProjectError::TooLarge(format!("{what} has size {s}, above 2^62"))),
        None => Ok(()),
    }
}

/// Checks one axis index list against its tensor's sizes: one index per axis, loops that
/// exist, a loop followed as it is spanning its axis, and where the part has points, every
/// fixed or unpadded affine index within its axis.
fn check_indices(
    what: &str,
    index: &[Index],
    dims: &[u64],
    loops: &[Loop],
) -> Result<(), ProjectError> {
    if index.len() != dims.len() {
        let (n, rank) = (index.len(), dims.len());
        return Err(bad(format!("{what} has {n} axis indices for {rank} axes")));
    }
    let points = loops.iter().all(|l| l.size > 0);
    let within = |lo: i128, hi: i128, size: u64| !points || (lo >= 0 && hi < i128::from(size));
    for (i, &size) in index.iter().zip(dims) {
        let ok = match i {
            Index::Iter(l) => loops.get(*l).is_some_and(|l| l.size == size),
            Index::Fixed(n) => within(i128::from(*n), i128::from(*n), size),
            Index::Affine { terms, offset, padded } => {
                let (mut lo, mut hi) = (i128::from(*offset), i128::from(*offset));
                let mut exist = true;
                for &(c, l) in terms {
                    let Some(l) = loops.get(l) else {
                        exist = false;
                        break;
                    };
                    let far = i128::from(c) * i128::from(l.size.saturating_sub(1));
                    lo += far.min(0);
                    hi += far.max(0);
                }
                exist && (*padded || within(lo, hi, size))
            }
        };
        if !ok {
            let n = loops.len();
            return Err(bad(format!(
                "{what} has the index {i:?} over {n} loops on an axis of size {size}"
            )));
        }
    }
    Ok(())
}

/// Checks a plan as read (see the module's documentation).
fn check_plan(plan: &IndexPlan) -> Result<(), ProjectError> {
    sizes_at_most_max("the result", &plan.result_dims)?;
    for (k, dims) in plan.operand_dims.iter().enumerate() {
        sizes_at_most_max(&format!("operand {k}"), dims)?;
    }
    for (n, part) in plan.parts.iter().enumerate() {
        let loops = &part.loops;
        let sizes: SmallVec<[u64; 8]> = part.loops.iter().map(|l| l.size).collect();
        sizes_at_most_max(&format!("part {n}'s loop"), &sizes)?;
        check_indices(&format!("part {n}'s result"), &part.result, &plan.result_dims, loops)?;
        let mut next = 0;
        for o in &part.operands {
            let Some(dims) = plan.operand_dims.get(o.operand).filter(|_| o.operand >= next) else {
                let k = o.operand;
                return Err(bad(format!("part {n} reads operand {k} out of order or range")));
            };
            next = o.operand + 1;
            check_indices(&format!("part {n}'s operand {}", o.operand), &o.index, dims, loops)?;
        }
    }
    if plan.bijective != plan.writes_each_once() {
        let says = if plan.bijective { "writes" } else { "does not write" };
        return Err(bad(format!("it says it {says} each result element once; its parts disagree")));
    }
    Ok(())
}

impl TryFrom<PlanForm> for IndexPlan {
    type Error = ProjectError;

    fn try_from(f: PlanForm) -> Result<IndexPlan, ProjectError> {
        let plan = IndexPlan {
            op: f.op,
            result_dims: f.result_dims,
            operand_dims: f.operand_dims,
            parts: f.parts,
            accum: f.accum,
            combine: f.combine,
            bijective: f.bijective,
        };
        check_plan(&plan)?;
        Ok(plan)
    }
}

/// A [`GradientPlan`] as read, before its checks (its plan is checked already).
#[derive(Deserialize)]
pub(super) struct GradientForm {
    operand: usize,
    plan: IndexPlan,
    inputs: Vec<GradInput>,
}

impl TryFrom<GradientForm> for GradientPlan {
    type Error = ProjectError;

    fn try_from(f: GradientForm) -> Result<GradientPlan, ProjectError> {
        let n = f.plan.operand_dims.len();
        let mut last = None;
        for (i, input) in f.inputs.iter().enumerate() {
            let ok = match (i, input) {
                (0, GradInput::Cotangent) => true,
                (_, GradInput::Operand(j)) if i > 0 && *j != f.operand => {
                    let increasing = last.is_none_or(|l| l < *j);
                    last = Some(*j);
                    increasing
                }
                _ => false,
            };
            if !ok {
                return Err(bad(format!("gradient input {i} is {input:?}")));
            }
        }
        if f.inputs.len() != n {
            let got = f.inputs.len();
            return Err(bad(format!("a gradient plan of {n} operands lists {got} inputs")));
        }
        Ok(GradientPlan { operand: f.operand, plan: f.plan, inputs: f.inputs })
    }
}

/// One step of a compiled graph's form: its tensors (by position) and its plan (by position
/// in the graph's distinct plans).
#[derive(Serialize, Deserialize)]
struct StepForm {
    out: usize,
    args: Vec<usize>,
    plan: usize,
}

/// A compiled graph's form, written from borrowed plans.
#[derive(Serialize)]
struct GraphOut<'a> {
    dims: &'a [Vec<u64>],
    plans: Vec<&'a IndexPlan>,
    steps: Vec<StepForm>,
}

impl<'a> GraphOut<'a> {
    /// The form of a graph of tensors of sizes `dims` and steps `(result, operands, plan)`,
    /// equal plans written once.
    fn of(
        dims: &'a [Vec<u64>],
        steps: impl Iterator<Item = (TensorId, &'a [TensorId], &'a IndexPlan)>,
    ) -> GraphOut<'a> {
        let mut plans: Vec<&IndexPlan> = Vec::new();
        let mut seen: HashMap<&IndexPlan, usize> = HashMap::new();
        let mut forms = Vec::new();
        for (out, args, plan) in steps {
            let k = *seen.entry(plan).or_insert_with(|| {
                plans.push(plan);
                plans.len() - 1
            });
            let args = args.iter().map(|a| a.index()).collect();
            forms.push(StepForm { out: out.index(), args, plan: k });
        }
        GraphOut { dims, plans, steps: forms }
    }
}

/// A compiled graph's form as read: plans unchecked.
#[derive(Deserialize)]
struct GraphIn {
    dims: Vec<Vec<u64>>,
    plans: Vec<PlanForm>,
    steps: Vec<StepForm>,
}

/// A graph's form checked: its tensors' sizes, its plans, and each step's tensors (ids of a
/// fresh graph) and plan (a position in `plans`).
struct Checked {
    graph: GraphId,
    dims: Vec<Vec<u64>>,
    plans: Vec<Arc<IndexPlan>>,
    steps: Vec<(TensorId, SmallVec<[TensorId; 3]>, usize)>,
    /// Whether each tensor is a step's result (the others are leaves).
    written: Vec<bool>,
}

impl Serialize for CompiledGraph {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let steps = self.step_plans().map(|(out, args, plan)| (out, args, &**plan));
        GraphOut::of(self.all_dims(), steps).serialize(s)
    }
}

impl<'de> Deserialize<'de> for CompiledGraph {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CompiledGraph, D::Error> {
        graph_from(GraphIn::deserialize(d)?).map_err(D::Error::custom)
    }
}

/// Checks a graph's form: sizes at most 2^62, consistent plans, and steps that chain (each
/// writes a tensor no other step writes, of its plan's result sizes, from leaves and earlier
/// results of its plan's operand sizes).
fn check_graph(f: GraphIn) -> Result<Checked, ProjectError> {
    if f.dims.len() > u32::MAX as usize || f.steps.len() > u32::MAX as usize {
        return Err(ProjectError::TooLarge("a graph of more than 2^32 tensors or steps".into()));
    }
    for (t, dims) in f.dims.iter().enumerate() {
        sizes_at_most_max(&format!("tensor {t}"), dims)?;
    }
    let plans = f
        .plans
        .into_iter()
        .map(|p| IndexPlan::try_from(p).map(Arc::new))
        .collect::<Result<Vec<_>, _>>()?;
    let graph = GraphId::fresh();
    let mut written = vec![false; f.dims.len()];
    for s in &f.steps {
        if let Some(w) = written.get_mut(s.out) {
            *w = true;
        }
    }
    // Which tensors hold values when a step runs: leaves, and the results of earlier steps.
    let mut ready: Vec<bool> = written.iter().map(|w| !w).collect();
    let mut steps = Vec::with_capacity(f.steps.len());
    for (i, s) in f.steps.into_iter().enumerate() {
        let plan = plans
            .get(s.plan)
            .ok_or_else(|| bad(format!("step {i} names plan {}, of {}", s.plan, plans.len())))?;
        let dims = |t: usize| f.dims.get(t).map(Vec::as_slice);
        if ready.get(s.out) != Some(&false) {
            let t = s.out;
            return Err(bad(format!(
                "step {i} writes tensor {t}: a leaf, an earlier result or none"
            )));
        }
        if dims(s.out) != Some(&plan.result_dims[..]) {
            return Err(bad(format!("step {i}'s result is not of its plan's result sizes")));
        }
        if s.args.len() != plan.operand_dims.len() {
            let (n, want) = (s.args.len(), plan.operand_dims.len());
            return Err(bad(format!("step {i} has {n} operands, its plan {want}")));
        }
        for (&a, want) in s.args.iter().zip(&plan.operand_dims) {
            if ready.get(a) != Some(&true) || dims(a) != Some(&want[..]) {
                return Err(bad(format!(
                    "step {i} reads tensor {a}: not a leaf or earlier result of its plan's sizes"
                )));
            }
        }
        ready[s.out] = true;
        let args = s.args.iter().map(|&a| TensorId::new(a, graph)).collect();
        steps.push((TensorId::new(s.out, graph), args, s.plan));
    }
    Ok(Checked { graph, dims: f.dims, plans, steps, written })
}

/// Checks a compiled graph's form and compiles its plans.
fn graph_from(f: GraphIn) -> Result<CompiledGraph, ProjectError> {
    let c = check_graph(f)?;
    let compiled = c
        .plans
        .into_iter()
        .map(|p| Ok((p.clone(), Arc::new(Executable::compile(&p)?))))
        .collect::<Result<Vec<CompiledPlan>, ProjectError>>()?;
    let steps = c.steps.into_iter().map(|(out, args, k)| (out, args, compiled[k].clone()));
    Ok(CompiledGraph::from_executables(c.graph, c.dims, steps))
}

/// A training step's form: its graph's, with the loss and the parameters.
#[derive(Serialize)]
struct TrainingOut<'a> {
    graph: GraphOut<'a>,
    loss: usize,
    params: Vec<usize>,
}

/// A training step's form as read.
#[derive(Deserialize)]
struct TrainingIn {
    graph: GraphIn,
    loss: usize,
    params: Vec<usize>,
}

impl Serialize for Training {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let steps = self.forward.iter().map(|f| (f.out, f.args.as_slice(), &*f.plan));
        let graph = GraphOut::of(&self.dims, steps);
        let params = self.params.iter().map(|p| p.index()).collect();
        TrainingOut { graph, loss: self.loss.index(), params }.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Training {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Training, D::Error> {
        training_from(TrainingIn::deserialize(d)?).map_err(D::Error::custom)
    }
}

/// Checks a training step's form (its graph as a compiled graph's, a loss among its tensors,
/// parameters among its leaves) and builds it again: gradient plans, executables, buffers.
fn training_from(f: TrainingIn) -> Result<Training, ProjectError> {
    let c = check_graph(f.graph)?;
    let n = c.dims.len();
    if f.loss >= n {
        return Err(bad(format!("the loss is tensor {}, of {n}", f.loss)));
    }
    if let Some(p) = f.params.iter().find(|&&p| c.written.get(p) != Some(&false)) {
        return Err(bad(format!("parameter {p} is not a leaf of the graph")));
    }
    let mut lens = Vec::with_capacity(n);
    for (t, dims) in c.dims.iter().enumerate() {
        let len = dims.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
        let len = len.and_then(|n| usize::try_from(n).ok());
        lens.push(len.ok_or_else(|| ProjectError::TooLarge(format!("tensor {t}")))?);
    }
    let graph = c.graph;
    let ends = Ends {
        loss: TensorId::new(f.loss, graph),
        params: f.params.iter().map(|&p| TensorId::new(p, graph)).collect(),
        leaves: (0..n).filter(|&t| !c.written[t]).map(|t| TensorId::new(t, graph)).collect(),
    };
    let steps = c
        .steps
        .into_iter()
        .enumerate()
        .map(|(i, (out, args, k))| (StepId::new(i, graph), out, args, c.plans[k].clone()));
    Training::assemble(graph, (c.dims, lens), ends, steps.collect())
}
