//! Plans of a [`Scheme`](crate::infer::Scheme) instance: derived from the instance's sizes,
//! exactly as from a graph solved for them, without solving.

use std::collections::HashMap;
use std::sync::Arc;

use smallvec::SmallVec;

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
/// let step = g.producer(y)?.expect("a result");
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
    let s = &inst.steps()[inst.check_step(step)?];
    let out = sizes_of(inst, s.out)?;
    let args: SmallVec<[Sizes; 3]> =
        s.args.iter().map(|a| sizes_of(inst, *a)).collect::<Result<_, _>>()?;
    let mut plan = IndexPlan::empty(s.op);
    match &s.spec {
        Some(spec) => {
            let sizes = inst.label_sizes(step)?;
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

/// The plans of every step of a scheme instance ([`instance_plan`] each), each with the
/// computation `compute` gives it. Steps with the same spec (or operation), computation and
/// sizes have the same plan: it is derived once and copied (a model repeats a few blocks many
/// times).
///
/// ```
/// use einrow::infer::{Graph, OpKind, ShapeBuilder};
/// use einrow::project::{instance_plan, instance_plans, Compute};
/// let mut g = Graph::new();
/// let batch = g.row_var("batch");
/// let mut x = g.input("x", &ShapeBuilder::new().batch_var(batch).output([4]))?;
/// for _ in 0..3 {
///     x = g.permute("...|i => ...|i", x)?;
/// }
/// let inst = g.solve_scheme(&[batch])?.instantiate(&[&[2]])?;
/// let compute = |_| Compute::default_for(OpKind::Permute, 1);
/// let plans = instance_plans(&inst, &compute)?;
/// assert_eq!(plans.len(), 3);
/// let third = inst.step_ids().nth(2).expect("three steps");
/// assert_eq!(*plans[2], instance_plan(&inst, third, compute(third))?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn instance_plans(
    inst: &Instance,
    compute: &dyn Fn(StepId) -> Compute,
) -> Result<Vec<Arc<IndexPlan>>, ProjectError> {
    let (distinct, of_step) = distinct_plans(inst, compute)?;
    let distinct: Vec<Arc<IndexPlan>> = distinct.into_iter().map(Arc::new).collect();
    Ok(of_step.into_iter().map(|k| distinct[k].clone()).collect())
}

/// The distinct plans of an instance's steps, and which one each step has.
pub(super) fn distinct_plans(
    inst: &Instance,
    compute: &dyn Fn(StepId) -> Compute,
) -> Result<(Vec<IndexPlan>, Vec<usize>), ProjectError> {
    let mut seen: HashMap<Vec<u64>, usize, foldhash::fast::RandomState> = HashMap::default();
    let (mut distinct, mut of_step) = (Vec::new(), Vec::with_capacity(inst.steps().len()));
    let mut key = Vec::new();
    for i in 0..inst.steps().len() {
        let step = inst.step_at(i);
        let c = compute(step);
        plan_key(inst, step, c, &mut key)?;
        let k = match seen.get(key.as_slice()) {
            Some(&k) => k,
            None => {
                seen.insert(key.clone(), distinct.len());
                distinct.push(instance_plan(inst, step, c)?);
                distinct.len() - 1
            }
        };
        of_step.push(k);
    }
    Ok((distinct, of_step))
}

/// What a step's plan depends on: its spec (by identity) or operation, its computation, its
/// labels' sizes, and its tensors' sizes row by row with their leading flanks.
fn plan_key(
    inst: &Instance,
    step: StepId,
    c: Compute,
    key: &mut Vec<u64>,
) -> Result<(), ProjectError> {
    let s = &inst.steps()[step.index()];
    let spec = s.spec.as_ref().map_or(0, |sp| Arc::as_ptr(sp) as usize as u64);
    key.clear();
    key.extend([spec, s.op as u64, c.accum as u64, c.combine as u64]);
    let labels = inst.label_sizes(step)?;
    key.push(labels.len() as u64);
    key.extend_from_slice(labels);
    for t in std::iter::once(s.out).chain(s.args.iter().copied()) {
        for kind in RowKind::ALL {
            let (row, lead) = inst.row(t, kind)?;
            key.extend([row.len() as u64, lead as u64]);
            key.extend_from_slice(row);
        }
    }
    Ok(())
}
