//! Deriving the [`IndexPlan`] of a solved step.

use super::concrete::Concrete;
use super::error::ProjectError;
use super::plan::{Index, IndexPlan, PlanPart};
use super::positional::positional_part;
use super::spec::spec_parts;
use crate::ids::StepId;
use crate::infer::{Graph, OpKind};
use crate::kernel::{Accum, Combine};
use crate::spec::ast::Name;

/// What a step computes at each point: the accumulation and the combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Compute {
    /// Accumulation into the result (`+` by default).
    pub accum: Accum,
    /// Combination of the operands (`*` for einsum and compose, `+` for pointwise).
    pub combine: Combine,
}

impl Compute {
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
    g: &mut Graph,
    step: StepId,
    compute: Compute,
    slice_index: u64,
) -> Result<IndexPlan, ProjectError> {
    let s = g
        .steps()
        .get(step.index())
        .cloned()
        .ok_or_else(|| ProjectError::Data(format!("no step {step}")))?;
    let out = Concrete::of(g, s.out)?;
    let args: Vec<Concrete> =
        s.args.iter().map(|a| Concrete::of(g, *a)).collect::<Result<_, _>>()?;
    let parts = match (&s.spec, s.op) {
        (Some(spec), _) => {
            let sizes: Vec<(&Name, Option<u64>)> =
                s.labels.iter().map(|(n, v)| (n, g.var_size(*v))).collect();
            let label_size =
                |name: &str| sizes.iter().find(|(n, _)| n.as_str() == name).and_then(|(_, s)| *s);
            spec_parts(spec, &out, &args, &label_size)?
        }
        (None, op) => vec![positional_part(op, &out, &args, slice_index)?],
    };
    let result_dims = out.memory_dims();
    let bijective = parts.len() == 1 && is_bijective(&parts[0], &result_dims);
    Ok(IndexPlan {
        op: s.op,
        result_dims,
        operand_dims: args.iter().map(Concrete::memory_dims).collect(),
        parts,
        accum: compute.accum,
        combine: compute.combine,
        bijective,
    })
}

/// Every result element written exactly once: each result axis of size > 1 follows its own
/// loop, and every loop of size > 1 appears in the result.
fn is_bijective(part: &PlanPart, dims: &[u64]) -> bool {
    let mut used = vec![false; part.loops.len()];
    for (idx, &size) in part.result.iter().zip(dims) {
        match idx {
            Index::Iter(l) if !used[*l] => used[*l] = true,
            Index::Fixed(0) if size == 1 => {}
            _ => return false,
        }
    }
    part.loops.iter().zip(&used).all(|(l, u)| *u || l.size <= 1)
}
