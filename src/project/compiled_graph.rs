//! [`CompiledGraph`]: every step of a solved graph compiled once ([`Executable`]), then run
//! forward as often as wanted on a caller's buffers, one per tensor.

use std::collections::HashMap;
use std::sync::Arc;

use smallvec::SmallVec;

use super::compiled::Executable;
use super::derive::{derive_plan, Compute};
use super::error::ProjectError;
use super::instance::distinct_plans;
use super::plan::IndexPlan;
use super::sizes::Sizes;
use super::storage::Storage;
use crate::ids::{GraphId, StepId, TensorId};
use crate::infer::{Graph, InferError, Instance};
use crate::kernel::{KernelError, RunOptions};
use crate::tensor::hugepage;

/// A plan and the executable compiled from it.
pub(crate) type CompiledPlan = (Arc<IndexPlan>, Arc<Executable>);

/// One compiled step.
#[derive(Clone, Debug)]
struct CompiledStep {
    out: TensorId,
    args: SmallVec<[TensorId; 3]>,
    /// The plan the executable was compiled from (shared by the steps with the same plan).
    plan: Arc<IndexPlan>,
    /// Shared by the steps with the same plan.
    exe: Arc<Executable>,
}

/// The steps of a solved graph (or of a [`Scheme`](crate::infer::Scheme) instance), each
/// compiled once. [`CompiledGraph::run`] executes them in order on one buffer per tensor,
/// owned by the caller: leaves are read, results overwritten, nothing is allocated for f32 and
/// f64 data.
///
/// With the `serde` feature, compiled graphs are `Serialize` and `Deserialize`: the form holds
/// each tensor's sizes, the distinct plans and each step's result, operands and plan, never
/// the executables, which deserialising compiles again. Deserialising checks that the plans
/// chain (each step's plan has the sizes of its tensors, steps read leaves or earlier results)
/// and gives the graph a fresh [`GraphId`]: take its ids from [`CompiledGraph::tensor_ids`] and
/// [`CompiledGraph::step_ids`].
///
/// ```
/// use einrow::infer::{Graph, ShapeBuilder};
/// use einrow::project::CompiledGraph;
///
/// let mut g = Graph::new();
/// let x = g.input("x", &ShapeBuilder::new().batch([2]).output([3]))?;
/// let w = g.parameter("w", &ShapeBuilder::new().input([3]).output([1]))?;
/// let y = g.compose(w, x)?;
/// g.solve()?;
/// let program = CompiledGraph::compile_defaults(&g)?;
/// let (mut xs, mut ws, mut ys) = (vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], vec![1.0f32, 1.0, 1.0], vec![0.0f32; 2]);
/// let mut buffers: Vec<&mut [f32]> = vec![&mut xs, &mut ws, &mut ys];
/// program.run(&mut buffers)?;
/// assert_eq!(ys, [6.0, 15.0]);
/// assert_eq!(program.tensor_dims(y)?, &[2, 1]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct CompiledGraph {
    /// The graph whose ids name the tensors and steps.
    graph: GraphId,
    steps: Vec<CompiledStep>,
    /// Each tensor's sizes in memory order.
    dims: Vec<Vec<u64>>,
}

impl CompiledGraph {
    /// Derives and compiles the plan of every step of a solved graph, each with the
    /// computation `compute` gives it.
    pub fn compile(g: &Graph, compute: &dyn Fn(StepId) -> Compute) -> Result<Self, ProjectError> {
        let mut dims = Vec::with_capacity(g.tensor_count());
        for i in 0..g.tensor_count() {
            dims.push(Sizes::of(g, g.tensor_at(i))?.memory().to_vec());
        }
        let mut steps = Vec::with_capacity(g.steps().len());
        // A model repeats a few blocks: identical plans share one executable.
        let mut compiled: HashMap<Arc<IndexPlan>, Arc<Executable>> = HashMap::new();
        for i in 0..g.steps().len() {
            let step = g.step_at(i);
            let plan = derive_plan(g, step, compute(step), 0)?;
            let s = &g.steps()[i];
            let (plan, exe) = match compiled.get_key_value(&plan) {
                Some((plan, exe)) => (plan.clone(), exe.clone()),
                None => {
                    let exe = Arc::new(plan.compile()?);
                    let plan = Arc::new(plan);
                    compiled.insert(plan.clone(), exe.clone());
                    (plan, exe)
                }
            };
            steps.push(CompiledStep { out: s.out, args: s.args.clone(), plan, exe });
        }
        Ok(CompiledGraph { graph: g.id(), steps, dims })
    }

    /// [`CompiledGraph::compile`] with each step's default computation
    /// ([`Compute::default_for`] its operation and operand count).
    pub fn compile_defaults(g: &Graph) -> Result<Self, ProjectError> {
        let computes: Vec<Compute> =
            g.steps().iter().map(|s| Compute::default_for(s.op, s.args.len())).collect();
        Self::compile(g, &|s| computes[s.index()])
    }

    /// A compiled graph from each tensor's sizes (memory order) and each step's result,
    /// operands, plan and the executable compiled from it, in order.
    pub(crate) fn from_executables(
        graph: GraphId,
        dims: Vec<Vec<u64>>,
        steps: impl IntoIterator<Item = (TensorId, SmallVec<[TensorId; 3]>, CompiledPlan)>,
    ) -> Self {
        let steps = steps
            .into_iter()
            .map(|(out, args, (plan, exe))| CompiledStep { out, args, plan, exe })
            .collect();
        CompiledGraph { graph, steps, dims }
    }

    /// Each step's result, operands and plan, in order (what defines the graph, less its
    /// executables).
    #[cfg(feature = "serde")]
    pub(crate) fn step_plans(
        &self,
    ) -> impl ExactSizeIterator<Item = (TensorId, &[TensorId], &Arc<IndexPlan>)> + '_ {
        self.steps.iter().map(|s| (s.out, s.args.as_slice(), &s.plan))
    }

    /// Each tensor's sizes in memory order, in buffer order.
    #[cfg(feature = "serde")]
    pub(crate) fn all_dims(&self) -> &[Vec<u64>] {
        &self.dims
    }

    /// The number of tensors (of buffers [`CompiledGraph::run`] takes).
    pub fn tensor_count(&self) -> usize {
        self.dims.len()
    }

    /// The ids of the tensors, in buffer order.
    pub fn tensor_ids(&self) -> impl ExactSizeIterator<Item = TensorId> + '_ {
        (0..self.dims.len()).map(|i| TensorId::new(i, self.graph))
    }

    /// The ids of the steps, in the order they run.
    pub fn step_ids(&self) -> impl ExactSizeIterator<Item = StepId> + '_ {
        (0..self.steps.len()).map(|i| StepId::new(i, self.graph))
    }

    /// A tensor's sizes in memory order (batch, output, input). Errors (`name`): an id of
    /// another graph, or past the graph's tensors.
    pub fn tensor_dims(&self, t: TensorId) -> Result<&[u64], ProjectError> {
        if !t.belongs_to(self.graph) {
            return Err(InferError::ForeignId { id: t.to_string() }.into());
        }
        let dims = self.dims.get(t.index());
        dims.map(|d| d.as_slice())
            .ok_or_else(|| InferError::UnknownTensor { name: t.to_string() }.into())
    }

    /// The number of elements of a tensor's buffer (errors as [`CompiledGraph::tensor_dims`]).
    pub fn tensor_len(&self, t: TensorId) -> Result<usize, ProjectError> {
        let dims = self.tensor_dims(t)?;
        let n = dims.iter().try_fold(1usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?));
        n.ok_or_else(|| ProjectError::TooLarge(format!("a tensor of sizes {dims:?}")))
    }

    /// A step's executable. Errors (`name`): an id of another graph, or past its steps.
    pub fn executable(&self, step: StepId) -> Result<&Executable, ProjectError> {
        if !step.belongs_to(self.graph) {
            return Err(InferError::ForeignId { id: step.to_string() }.into());
        }
        let s = self.steps.get(step.index());
        s.map(|s| &*s.exe).ok_or_else(|| InferError::UnknownStep { id: step.to_string() }.into())
    }

    /// The plan a step's executable was compiled from. Errors (`name`): an id of another
    /// graph, or past its steps.
    pub fn plan(&self, step: StepId) -> Result<&IndexPlan, ProjectError> {
        if !step.belongs_to(self.graph) {
            return Err(InferError::ForeignId { id: step.to_string() }.into());
        }
        let s = self.steps.get(step.index());
        s.map(|s| &*s.plan).ok_or_else(|| InferError::UnknownStep { id: step.to_string() }.into())
    }

    /// Runs every step in order: `buffers[t]` is tensor `t`'s buffer, row-major in memory
    /// order; leaves are read and every step's result overwritten. Errors (coded): a buffer
    /// count other than the tensor count (`arity`), a buffer of the wrong length (`elems`).
    pub fn run<T: Storage>(&self, buffers: &mut [&mut [T]]) -> Result<(), ProjectError> {
        self.run_after(buffers, None, |_, _| Ok(()))
    }

    /// [`CompiledGraph::run`] with kernel options for this run (threads, GEMM dispatch), as
    /// `run_with` means everywhere in einrow.
    pub fn run_with<T: Storage>(
        &self,
        buffers: &mut [&mut [T]],
        opts: &RunOptions,
    ) -> Result<(), ProjectError> {
        self.run_after(buffers, Some(opts), |_, _| Ok(()))
    }

    /// [`CompiledGraph::run`] (with `opts`, or each plan's own options), calling `after` with
    /// each step and its result's buffer once the step has run: where a framework applies
    /// what the plans do not compute (an activation, an exponential) before the next step
    /// reads the result.
    pub fn run_after<T: Storage>(
        &self,
        buffers: &mut [&mut [T]],
        opts: Option<&RunOptions>,
        mut after: impl FnMut(StepId, &mut [T]) -> Result<(), ProjectError>,
    ) -> Result<(), ProjectError> {
        if buffers.len() != self.dims.len() {
            return Err(KernelError::Arity { expected: self.dims.len(), got: buffers.len() }.into());
        }
        for (i, s) in self.steps.iter().enumerate() {
            let Some(slot) = buffers.get_mut(s.out.index()) else { continue };
            // The result is taken out while its operands are read (a step never reads its
            // own result); it goes back whatever happens.
            let out = std::mem::take(slot);
            let ins: SmallVec<[&[T]; 3]> =
                s.args.iter().map(|a| buffers.get(a.index()).map_or(&[][..], |b| &**b)).collect();
            let result = match opts {
                Some(opts) => s.exe.run_with(&ins, out, opts),
                None => s.exe.run(&ins, out),
            };
            drop(ins);
            buffers[s.out.index()] = out;
            result?;
            after(StepId::new(i, self.graph), &mut *buffers[s.out.index()])?;
        }
        Ok(())
    }
}

/// [`super::run_graph`]: every step of a solved graph run in order from leaf values.
pub(super) fn run_graph<T: Storage>(
    g: &Graph,
    leaves: &[(TensorId, Vec<T>)],
    compute: &dyn Fn(StepId) -> Compute,
) -> Result<Vec<Option<Vec<T>>>, ProjectError> {
    let mut values: Vec<Option<Vec<T>>> = Vec::new();
    values.resize_with(g.tensor_count(), || None);
    for (t, v) in leaves {
        let sizes = Sizes::of(g, *t)?;
        let n = sizes.memory().iter().try_fold(1u64, |n, &s| n.checked_mul(s));
        if n != Some(v.len() as u64) {
            let name = g.name_or_id(*t);
            let n = n.map_or("too many".to_string(), |n| n.to_string());
            return Err(ProjectError::Data(format!(
                "`{name}` has {n} elements but {} values were given",
                v.len()
            )));
        }
        if let Some(slot) = values.get_mut(t.index()) {
            let mut copy =
                hugepage::try_with_capacity(v.len()).map_err(|e| ProjectError::Kernel(e.into()))?;
            copy.extend_from_slice(v);
            *slot = Some(copy);
        }
    }
    for i in 0..g.steps().len() {
        let step = g.step_at(i);
        let (out, args) = (g.steps()[i].out, g.steps()[i].args.clone());
        let plan = derive_plan(g, step, compute(step), 0)?;
        let exe = plan.compile()?;
        let mut result =
            fresh::<T>(plan.result_dims.iter().try_fold(1u64, |n, &s| n.checked_mul(s)))?;
        let mut inputs: SmallVec<[&[T]; 3]> = SmallVec::new();
        for a in &args {
            let v = values[a.index()].as_deref().ok_or_else(|| {
                ProjectError::Data(format!("no values for `{}`", g.name_or_id(*a)))
            })?;
            inputs.push(v);
        }
        exe.run(&inputs, &mut result)?;
        drop(inputs);
        values[out.index()] = Some(result);
    }
    Ok(values)
}

/// A buffer of `n` elements, its allocation failing as an error rather than an abort.
pub(super) fn fresh<T: Storage>(n: Option<u64>) -> Result<Vec<T>, ProjectError> {
    let too_large = || ProjectError::TooLarge(format!("a result of {n:?} elements"));
    let n = n.and_then(|n| usize::try_from(n).ok()).ok_or_else(too_large)?;
    hugepage::zeroed(n, T::default()).map_err(|e| ProjectError::Kernel(e.into()))
}

impl CompiledGraph {
    /// Derives and compiles the plan of every step of a scheme instance, each with the
    /// computation `compute` gives it (nothing is solved). Steps with the same plan share one
    /// executable ([`instance_plans`](super::instance_plans)).
    ///
    /// ```
    /// use einrow::infer::{Graph, ShapeBuilder};
    /// use einrow::project::CompiledGraph;
    /// let mut g = Graph::new();
    /// let batch = g.row_var("batch");
    /// let x = g.input("x", &ShapeBuilder::new().batch_var(batch).output([2]))?;
    /// let y = g.einsum("...|i; ...|i => ...|", &[x, x])?;
    /// let scheme = g.solve_scheme(&[batch])?;
    /// let program = CompiledGraph::compile_instance_defaults(&scheme.instantiate(&[&[3]])?)?;
    /// let (mut xs, mut ys) = (vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], vec![0.0f32; 3]);
    /// program.run(&mut [&mut xs[..], &mut ys[..]])?;
    /// assert_eq!(ys, [5.0, 25.0, 61.0]);
    /// # let _ = y;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn compile_instance(
        inst: &Instance,
        compute: &dyn Fn(StepId) -> Compute,
    ) -> Result<CompiledGraph, ProjectError> {
        let dims = (0..inst.tensor_count())
            .map(|i| inst.memory_dims(inst.tensor_at(i)).map(|d| d.to_vec()))
            .collect::<Result<Vec<_>, _>>()?;
        let (distinct, of_step) = distinct_plans(inst, compute)?;
        let mut exes: Vec<(Arc<IndexPlan>, Arc<Executable>)> = Vec::with_capacity(distinct.len());
        for p in distinct {
            let exe = Arc::new(p.compile()?);
            exes.push((Arc::new(p), exe));
        }
        let steps =
            inst.steps().iter().zip(of_step).map(|(s, k)| (s.out, s.args.clone(), exes[k].clone()));
        Ok(CompiledGraph::from_executables(inst.graph(), dims, steps))
    }

    /// [`CompiledGraph::compile_instance`] with each step's default computation.
    pub fn compile_instance_defaults(inst: &Instance) -> Result<CompiledGraph, ProjectError> {
        let computes: Vec<Compute> =
            inst.steps().iter().map(|s| Compute::default_for(s.op, s.args.len())).collect();
        CompiledGraph::compile_instance(inst, &|s| computes[s.index()])
    }
}
