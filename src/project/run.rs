//! Running plans once: a plan into a fresh buffer, a solved graph end to end from leaf values
//! (both through compiled plans, `compiled.rs`).

use super::derive::Compute;
use super::error::ProjectError;
use super::plan::IndexPlan;
use crate::ids::{StepId, TensorId};
use crate::infer::Graph;

/// Runs a plan on contiguous operand buffers (memory order) into a fresh result buffer (see
/// [`super::Executable`] to run a plan many times, in other types, into buffers of one's own).
pub fn run_plan(plan: &IndexPlan, operands: &[&[f64]]) -> Result<Vec<f64>, ProjectError> {
    let exe = super::Executable::compile(plan)?;
    let n = plan.result_dims.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
    let mut out = super::compiled_graph::fresh::<f64>(n)?;
    // Longer buffers are read from their start, as the plan addresses them.
    let (lens, _) = exe.lens();
    let operands: Vec<&[f64]> = operands
        .iter()
        .enumerate()
        .map(|(i, o)| lens.get(i).and_then(|&n| o.get(..n)).unwrap_or(o))
        .collect();
    exe.run(&operands, &mut out)?;
    Ok(out)
}

/// Runs every step of a solved graph in order from leaf values (flat, memory order), in any
/// storage type ([`super::Storage`]). Returns each tensor's values (`None` for tensors that
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
/// let values = run_graph(&g, &[(a, vec![1i8, 2, 3, 4])], &|_| Compute::default_for(OpKind::Permute, 1))?;
/// assert_eq!(values[t.index()].as_deref(), Some(&[1i8, 3, 2, 4][..]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run_graph<T: super::Storage>(
    g: &Graph,
    leaves: &[(TensorId, Vec<T>)],
    compute: &dyn Fn(StepId) -> Compute,
) -> Result<Vec<Option<Vec<T>>>, ProjectError> {
    super::compiled_graph::run_graph(g, leaves, compute)
}
