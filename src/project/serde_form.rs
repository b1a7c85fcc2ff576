//! The `serde` feature's forms of plans, gradient plans and compiled graphs, and the checks
//! that deserialising runs: data read from outside is an error when it is not a consistent
//! plan, never an object that fails (or panics) later.
//!
//! A plan is checked for what a derived plan holds: every index within its axis (a loop
//! followed as it is spans the axis; fixed and unpadded affine indices stay inside it),
//! loops and operands that exist, each operand read once and in order, index lists as long
//! as their tensors' ranks, sizes at most 2^62 and a `bijective` flag that agrees with the
//! parts. A plan too large to compile (more than 2^62 elements in a tensor) is still a plan:
//! compiling it is the same error as compiling the plan it was written from. A compiled graph is
//! stored without its executables: its distinct plans, each step's tensors and plan, and
//! each tensor's sizes; reading it checks that the plans chain and compiles them again.

use std::sync::Arc;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use smallvec::SmallVec;

use super::compiled::Executable;
use super::compiled_graph::CompiledGraph;
use super::error::ProjectError;
use super::gradient::{GradInput, GradientPlan};
use super::plan::{Index, IndexPlan, Loop, PlanPart};
use crate::ids::{GraphId, TensorId};
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

/// A compiled graph's form as read: plans unchecked (checked and compiled once each).
#[derive(Deserialize)]
struct GraphIn {
    dims: Vec<Vec<u64>>,
    plans: Vec<PlanForm>,
    steps: Vec<StepForm>,
}

impl Serialize for CompiledGraph {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut plans: Vec<&IndexPlan> = Vec::new();
        let mut seen: std::collections::HashMap<*const IndexPlan, usize> = Default::default();
        let mut steps = Vec::with_capacity(self.step_ids().len());
        for (out, args, plan) in self.step_plans() {
            let k = *seen.entry(Arc::as_ptr(plan)).or_insert_with(|| {
                plans.push(plan);
                plans.len() - 1
            });
            let args = args.iter().map(|a| a.index()).collect();
            steps.push(StepForm { out: out.index(), args, plan: k });
        }
        GraphOut { dims: self.all_dims(), plans, steps }.serialize(s)
    }
}

impl<'de> Deserialize<'de> for CompiledGraph {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CompiledGraph, D::Error> {
        graph_from(GraphIn::deserialize(d)?).map_err(D::Error::custom)
    }
}

/// Checks a compiled graph's form and compiles its plans.
fn graph_from(f: GraphIn) -> Result<CompiledGraph, ProjectError> {
    if f.dims.len() > u32::MAX as usize || f.steps.len() > u32::MAX as usize {
        return Err(ProjectError::TooLarge("a graph of more than 2^32 tensors or steps".into()));
    }
    for (t, dims) in f.dims.iter().enumerate() {
        sizes_at_most_max(&format!("tensor {t}"), dims)?;
    }
    let mut compiled = Vec::with_capacity(f.plans.len());
    for form in f.plans {
        let plan = IndexPlan::try_from(form)?;
        let exe = Arc::new(Executable::compile(&plan)?);
        compiled.push((Arc::new(plan), exe));
    }
    let graph = GraphId::fresh();
    // Which tensors hold values when a step runs: leaves (written by no step) and the results
    // of earlier steps.
    let mut ready = vec![true; f.dims.len()];
    for s in &f.steps {
        if let Some(r) = ready.get_mut(s.out) {
            *r = false;
        }
    }
    let mut steps = Vec::with_capacity(f.steps.len());
    for (i, s) in f.steps.into_iter().enumerate() {
        let (plan, exe) = compiled
            .get(s.plan)
            .ok_or_else(|| bad(format!("step {i} names plan {}, of {}", s.plan, compiled.len())))?;
        let dims = |t: usize| f.dims.get(t).map(Vec::as_slice);
        if ready.get(s.out) != Some(&false) {
            return Err(bad(format!(
                "step {i} writes tensor {}, a leaf, an earlier result or none",
                s.out
            )));
        }
        if dims(s.out) != Some(&plan.result_dims[..]) {
            return Err(bad(format!("step {i}'s result is not of its plan's result sizes")));
        }
        if s.args.len() != plan.operand_dims.len() {
            return Err(bad(format!(
                "step {i} has {} operands, its plan {}",
                s.args.len(),
                plan.operand_dims.len()
            )));
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
        steps.push((TensorId::new(s.out, graph), args, (plan.clone(), exe.clone())));
    }
    Ok(CompiledGraph::from_executables(graph, f.dims, steps))
}
