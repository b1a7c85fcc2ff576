//! Running plans: lowering an [`IndexPlan`] onto kernel nests, and executing a solved graph
//! end to end from leaf values.

use super::derive::{derive_plan, Compute};
use super::error::ProjectError;
use super::plan::{Index, IndexPlan};
use crate::ids::{StepId, TensorId};
use crate::infer::Graph;
use crate::kernel::{Access, AxisIndex, Init, Nest};
use crate::tensor::{hugepage, Layout};

fn usize_dims(dims: &[u64]) -> Result<Vec<usize>, ProjectError> {
    dims.iter()
        .map(|d| usize::try_from(*d).map_err(|_| ProjectError::TooLarge(format!("size {d}"))))
        .collect()
}

fn axis_index(i: &Index) -> AxisIndex {
    match i {
        Index::Iter(l) => AxisIndex::Iter(*l),
        Index::Fixed(n) => AxisIndex::Fixed(i64::try_from(*n).unwrap_or(i64::MAX)),
        Index::Affine { terms, offset, padded } => AxisIndex::Affine {
            terms: terms.iter().map(|(c, l)| (*c as isize, *l)).collect(),
            offset: *offset as isize,
            padded: *padded,
        },
    }
}

/// Runs a plan on contiguous operand buffers (memory order) into a fresh result buffer. The
/// buffer is allocated fallibly: a result the system cannot hold (2^62 elements, or more bytes
/// than the process may map) is a `value` error, not an abort.
pub fn run_plan(plan: &IndexPlan, operands: &[&[f64]]) -> Result<Vec<f64>, ProjectError> {
    let tensor = |e: crate::tensor::TensorError| ProjectError::Kernel(e.into());
    let out_layout = Layout::contiguous(&usize_dims(&plan.result_dims)?).map_err(tensor)?;
    let neutral = plan.accum.neutral().unwrap_or(0.0);
    let mut out = if neutral == 0.0 {
        hugepage::zeroed(out_layout.numel(), 0.0)
    } else {
        hugepage::filled(out_layout.numel(), neutral)
    }
    .map_err(tensor)?;
    let layouts: Vec<Layout> = plan
        .operand_dims
        .iter()
        .map(|d| Layout::contiguous(&usize_dims(d)?).map_err(|e| ProjectError::Kernel(e.into())))
        .collect::<Result<_, _>>()?;
    for part in &plan.parts {
        let extents = usize_dims(&part.loops.iter().map(|l| l.size).collect::<Vec<_>>())?;
        let loops = extents.len();
        let result: Vec<AxisIndex> = part.result.iter().map(axis_index).collect();
        let output = Access::project(&out_layout, &result, loops)?;
        let mut inputs = Vec::new();
        let mut buffers = Vec::new();
        for (i, idx) in part.operands.iter().enumerate() {
            if let Some(idx) = idx {
                let axes: Vec<AxisIndex> = idx.iter().map(axis_index).collect();
                let mut access = Access::project(&layouts[i], &axes, loops)?;
                // A padded read yields the accumulation's neutral element (OCANNL's
                // `padding_elem`, §5.3): 0 for `+`, 1 for `*`, -inf for max.
                access.fill = neutral;
                inputs.push(access);
                buffers.push(operands[i]);
            }
        }
        let combine = if inputs.len() == 1 { crate::kernel::Combine::First } else { plan.combine };
        let nest = Nest { extents, output, inputs, accum: plan.accum, combine, init: Init::No };
        nest.run(&buffers, &mut out)?;
    }
    Ok(out)
}

/// Runs every step of a solved graph in order from leaf values (flat, memory order). Returns
/// each tensor's values (`None` for tensors that are neither given nor computed).
pub fn run_graph(
    g: &mut Graph,
    leaves: &[(TensorId, Vec<f64>)],
    compute: &dyn Fn(StepId) -> Compute,
) -> Result<Vec<Option<Vec<f64>>>, ProjectError> {
    let mut values: Vec<Option<Vec<f64>>> = vec![None; g.tensor_count()];
    for (t, v) in leaves {
        let dims = g.dims(*t)?;
        let n: u64 = dims.iter().flatten().map(|s| s.size).product();
        if n != v.len() as u64 {
            let name = g.name(*t);
            return Err(ProjectError::Data(format!(
                "`{name}` has {n} elements but {} values were given",
                v.len()
            )));
        }
        let mut copy =
            hugepage::try_with_capacity(v.len()).map_err(|e| ProjectError::Kernel(e.into()))?;
        copy.extend_from_slice(v);
        values[t.index()] = Some(copy);
    }
    for i in 0..g.steps().len() {
        let step = StepId::from_index(i);
        // Only the tensors are needed: no clone of the step's spec and labels.
        let (out, args) = (g.steps()[i].out, g.steps()[i].args.clone());
        let plan = derive_plan(g, step, compute(step), 0)?;
        let mut inputs: Vec<&[f64]> = Vec::with_capacity(args.len());
        for a in &args {
            let v = values[a.index()]
                .as_deref()
                .ok_or_else(|| ProjectError::Data(format!("no values for `{}`", g.name(*a))))?;
            inputs.push(v);
        }
        let result = run_plan(&plan, &inputs)?;
        values[out.index()] = Some(result);
    }
    Ok(values)
}
