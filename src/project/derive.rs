//! Deriving the [`IndexPlan`] of a solved step.

use smallvec::SmallVec;

use super::error::ProjectError;
use super::plan::{room_for, IndexPlan};
use super::positional::positional_part;
use super::sizes::Sizes;
use super::spec::{spec_parts, LabelSizes, SpecSizes};
use crate::ids::StepId;
use crate::infer::{Graph, OpKind};
use crate::kernel::{Accum, Combine};
use crate::spec::ast::Name;

/// What a step computes at each point: the accumulation and the combine.
///
/// `Serialize` and `Deserialize` with the `serde` feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct Compute {
    /// Accumulation into the result (`+` by default).
    pub accum: Accum,
    /// Combination of the operands (`*` for einsum and compose, `+` for pointwise).
    pub combine: Combine,
}

impl Compute {
    /// Accumulate with `accum`, combine the operands with `combine`.
    pub const fn new(accum: Accum, combine: Combine) -> Compute {
        Compute { accum, combine }
    }

    /// The defaults of an operation with `arity` operands.
    pub fn default_for(op: OpKind, arity: usize) -> Compute {
        let combine = match op {
            _ if arity == 1 => Combine::First,
            OpKind::Pointwise => Combine::Add,
            OpKind::Concat => Combine::First,
            _ => Combine::Mul,
        };
        Compute { accum: Accum::Add, combine }
    }
}

/// The plan of a step of a solved graph. `slice_index` is the batch index a batch slice reads.
pub fn derive_plan(
    g: &Graph,
    step: StepId,
    compute: Compute,
    slice_index: u64,
) -> Result<IndexPlan, ProjectError> {
    let i = g.check_step(step)?;
    let s = &g.steps()[i];
    let op = s.op;
    // Read in place: no copies of the inline buffers.
    let mut sizes: SmallVec<[Sizes; 4]> = SmallVec::new();
    sizes.resize_with(s.args.len() + 1, Sizes::default);
    for (sz, &t) in sizes.iter_mut().zip(std::iter::once(&s.out).chain(&s.args)) {
        sz.read(g, t)?;
    }
    let (out, args) = sizes.split_first().ok_or_else(|| ProjectError::Data("no result".into()))?;
    let label_sizes = label_sizes(g, step);
    let mut plan = IndexPlan::empty(op);
    match &s.spec {
        Some(spec) => {
            let mut labels: SmallVec<[(&Name, Option<u64>); 8]> = SmallVec::new();
            for (name, &size) in g.labels_of(i).names().iter().zip(&label_sizes) {
                labels.push((name, size));
            }
            let labels = LabelSizes(&labels);
            spec_parts(&spec.parsed, SpecSizes { out, args, labels }, &mut plan.parts)?
        }
        None if op == OpKind::Numpy => {
            let text = g.numpy_subscripts(step)?.unwrap_or_default();
            plan.parts.push(super::numpy_part::numpy_part(text, out, args)?)
        }
        None => plan.parts.push(positional_part(op, out, args, slice_index)?),
    };
    assemble(&mut plan, (op, compute), out, args);
    Ok(plan)
}

/// Completes a plan whose parts are in place: its operation, computation, and the sizes of
/// its result and operands (written into the plan's buffers, which keep their capacity).
pub(super) fn assemble(
    plan: &mut IndexPlan,
    (op, compute): (OpKind, Compute),
    out: &Sizes,
    args: &[Sizes],
) {
    plan.op = op;
    plan.accum = compute.accum;
    plan.combine = compute.combine;
    let fill = |dims: &mut Vec<u64>, sizes: &Sizes| {
        dims.clear();
        room_for(dims, sizes.memory().len());
        dims.extend_from_slice(sizes.memory());
    };
    fill(&mut plan.result_dims, out);
    room_for(&mut plan.operand_dims, args.len());
    plan.operand_dims.resize_with(args.len(), Vec::new);
    for (dims, a) in plan.operand_dims.iter_mut().zip(args) {
        fill(dims, a);
    }
    plan.bijective = plan.writes_each_once();
}

/// The solved size of each label of a step, in the order of its labels.
fn label_sizes(g: &Graph, step: StepId) -> SmallVec<[Option<u64>; 8]> {
    let dims = g.step_label_dims(step);
    let n = g.labels_of(step.index()).len();
    (0..n).map(|k| dims.get(k).and_then(|&d| g.dim_size(d))).collect()
}
