//! Running plans: lowering an [`IndexPlan`] onto kernel nests, and executing a solved graph
//! end to end from leaf values.

use super::compiled::{axis_index, usize_dims};
use super::derive::Compute;
use super::error::ProjectError;
use super::plan::IndexPlan;
use crate::ids::{StepId, TensorId};
use crate::infer::Graph;
use crate::kernel::{Access, AxisIndex, Init, Nest};
use crate::tensor::Layout;

/// Runs a plan on contiguous operand buffers (memory order) into a fresh result buffer.
pub fn run_plan(plan: &IndexPlan, operands: &[&[f64]]) -> Result<Vec<f64>, ProjectError> {
    let out_layout = Layout::contiguous(&usize_dims(&plan.result_dims)?)
        .map_err(crate::kernel::KernelError::from)?;
    let neutral = plan.accum.neutral().unwrap_or(0.0);
    let mut out = vec![neutral; out_layout.numel()];
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

/// Runs every step of a solved graph in order from leaf values (flat, memory order), in any
/// storage type (f32, f64, bf16, int8). Returns each tensor's values (`None` for tensors that
/// are neither given nor computed). To run a graph many times on buffers of one's own, compile
/// it once: [`super::CompiledGraph`].
///
/// ```
/// use einrow::infer::{Graph, OpKind};
/// use einrow::project::{run_graph, Compute};
/// let mut g = Graph::new();
/// let a = g.declare("a", Some("2,2"), false)?;
/// let t = g.permute("ij=>ji", a)?;
/// g.solve()?;
/// let values = run_graph(&mut g, &[(a, vec![1i8, 2, 3, 4])], &|_| Compute::default_for(OpKind::Permute, 1))?;
/// assert_eq!(values[t.index()].as_deref(), Some(&[1i8, 3, 2, 4][..]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run_graph<T: super::Storage>(
    g: &mut Graph,
    leaves: &[(TensorId, Vec<T>)],
    compute: &dyn Fn(StepId) -> Compute,
) -> Result<Vec<Option<Vec<T>>>, ProjectError> {
    super::compiled_graph::run_graph(g, leaves, compute)
}
