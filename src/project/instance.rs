//! Plans of a [`Scheme`](crate::infer::Scheme) instance: derived from the instance's sizes,
//! exactly as from a graph solved for them, without solving.

use smallvec::SmallVec;

use super::compiled_graph::CompiledGraph;
use super::derive::{assemble, Compute};
use super::error::ProjectError;
use super::plan::IndexPlan;
use super::positional::positional_part;
use super::sizes::Sizes;
use super::spec::{spec_parts, LabelSizes, SpecSizes};
use crate::ids::{StepId, TensorId};
use crate::infer::Instance;
use crate::spec::ast::{Name, RowKind};

/// A tensor's sizes in an instance.
fn sizes_of(inst: &Instance, t: TensorId) -> Result<Sizes, ProjectError> {
    let rows = RowKind::ALL.map(|k| inst.row(t, k));
    let [b, i, o] = rows;
    let rows = [b?, i?, o?];
    Ok(Sizes::from_rows(|kind, dims| {
        let (row, lead) = rows[kind.index()];
        for &s in row {
            dims.push(s);
        }
        lead
    }))
}

/// The plan of a step of a scheme instance, as [`super::derive_plan`] gives it for a graph
/// solved with the instance's sizes; derived from the sizes alone (nothing is solved).
///
/// ```
/// use einrow::infer::{Graph, ShapeBuilder};
/// use einrow::project::{instance_plan, Compute};
/// use einrow::infer::OpKind;
///
/// let mut g = Graph::new();
/// let batch = g.row_var("batch");
/// let x = g.input("x", &ShapeBuilder::new().batch_var(batch).output([3]))?;
/// let y = g.einsum("...|i; ...|i => ...|", &[x, x])?;
/// let scheme = g.solve_scheme(&[batch])?;
/// let inst = scheme.instantiate(&[&[4]])?;
/// let step = g.producer(y).expect("a result");
/// let plan = instance_plan(&inst, step, Compute::default_for(OpKind::Einsum, 2))?;
/// assert_eq!(plan.result_dims, [4]);
/// assert!(plan.to_string().contains("in 0..4"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn instance_plan(
    inst: &Instance,
    step: StepId,
    compute: Compute,
) -> Result<IndexPlan, ProjectError> {
    let s = inst
        .steps()
        .get(step.index())
        .ok_or_else(|| ProjectError::Data(format!("no step {step}")))?;
    let out = sizes_of(inst, s.out)?;
    let args: SmallVec<[Sizes; 3]> =
        s.args.iter().map(|a| sizes_of(inst, *a)).collect::<Result<_, _>>()?;
    let mut plan = IndexPlan::empty(s.op);
    match &s.spec {
        Some(spec) => {
            let sizes = inst.label_sizes(step);
            let labels: SmallVec<[(&Name, Option<u64>); 8]> =
                spec.labels().iter().zip(sizes).map(|(n, &size)| (n, Some(size))).collect();
            let sizes = SpecSizes { out: &out, args: &args, labels: LabelSizes(&labels) };
            spec_parts(&spec.parsed, sizes, &mut plan.parts)?;
        }
        None => plan.parts.push(positional_part(s.op, &out, &args, 0)?),
    }
    assemble(&mut plan, (s.op, compute), &out, &args);
    Ok(plan)
}

impl CompiledGraph {
    /// Derives and compiles the plan of every step of a scheme instance, each with the
    /// computation `compute` gives it (nothing is solved).
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
            .map(|i| inst.memory_dims(TensorId::from_index(i)).map(|d| d.to_vec()))
            .collect::<Result<Vec<_>, _>>()?;
        let steps = (0..inst.steps().len()).map(|i| {
            let step = StepId::from_index(i);
            let s = &inst.steps()[i];
            instance_plan(inst, step, compute(step)).map(|p| (s.out, s.args.clone(), p))
        });
        let steps: Vec<_> = steps.collect::<Result<_, _>>()?;
        CompiledGraph::from_plans(dims, steps)
    }

    /// [`CompiledGraph::compile_instance`] with each step's default computation.
    pub fn compile_instance_defaults(inst: &Instance) -> Result<CompiledGraph, ProjectError> {
        let computes: Vec<Compute> =
            inst.steps().iter().map(|s| Compute::default_for(s.op, s.args.len())).collect();
        CompiledGraph::compile_instance(inst, &|s| computes[s.index()])
    }
}
