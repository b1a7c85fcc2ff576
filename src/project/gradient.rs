//! Gradient plans: see [`GradientPlan`].

use super::error::ProjectError;
use super::plan::{accum_text, combine_text, IndexPlan, PartOperand, PlanPart};
use crate::kernel::{Accum, Combine};

/// One operand of a gradient plan.
///
/// `Serialize` and `Deserialize` with the `serde` feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum GradInput {
    /// The gradient of the forward result: a buffer of the forward result's sizes.
    Cotangent,
    /// Forward operand `k`, as the forward plan read it.
    Operand(usize),
}

/// The plan of one forward operand's gradient ([`IndexPlan::gradient`]): its operands are
/// `inputs`, in order; its result has the operand's sizes. Gradients of a tensor that several
/// steps (or several operands of one step) read add up: compile it with
/// [`Executable::compile_accumulating`](super::Executable::compile_accumulating) to add into
/// the gradient buffer instead of overwriting it.
///
/// Gradient plans: from the plan of a step, for each operand, the plan that computes the
/// operand's gradient from the gradient of the result (the cotangent) and the other operands,
/// over the same product space (OCANNL's backpropagation reuses each step's projections the
/// same way).
///
/// A forward plan computes, for every point `p` of each part's product space,
/// `out[R(p)] ⊕= x_0[I_0(p)] ⊗ x_1[I_1(p)] ⊗ …`. With `⊕` a sum, the gradient of operand `k`
/// gathers, over the same points, `g_k[I_k(p)] += ḡ[R(p)] ⊗' …`: the cotangent `ḡ` read where
/// the result was written, times the other operands where they were read when `⊗` is a
/// product (`∂(Π x_j)/∂x_k = Π_{j≠k} x_j`), alone when it is a sum or the operand alone. So:
///
/// - a loop the operand does not follow (a reduction in the forward plan, or a broadcast of
///   the operand) becomes a sum over the gradient: the gradient of a broadcast bias sums the
///   batch;
/// - a diagonal, a fixed index or a strided or padded (affine) index of the operand becomes
///   where the gradient is written: elements the step never read get 0, and points whose
///   padded index leaves the operand write nothing;
/// - a concatenation reads each operand in its own part: the operand's gradient is its part
///   of the cotangent.
///
/// Only what a sum of products computes has such a gradient: `+=` over `*`, `+` or a lone
/// operand (and `=` when every element is written once: a copy). A maximum, a minimum, a
/// product or a quotient needs the forward values to choose or scale, and is a
/// `unsupported` error ([`ProjectError::NoGradient`]).
///
/// With the `serde` feature, gradient plans are `Serialize` and `Deserialize`; deserialising
/// checks the plan (as [`IndexPlan`]'s) and that `inputs` names one input per operand of the
/// plan, the cotangent first.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(
    feature = "serde",
    derive(serde::Deserialize),
    serde(try_from = "super::serde_form::GradientForm")
)]
#[non_exhaustive]
pub struct GradientPlan {
    /// The forward operand whose gradient the plan computes.
    pub operand: usize,
    /// The plan.
    pub plan: IndexPlan,
    /// What each of the plan's operands is.
    pub inputs: Vec<GradInput>,
}

impl IndexPlan {
    /// The plan of operand `k`'s gradient (see [`GradientPlan`]).
    ///
    /// ```
    /// use einrow::project::{plan_einsum, Concrete, GradInput};
    /// // y = x @ w; the gradient of w is x^T @ ȳ: the same loops, `j` now the reduction.
    /// let plan = plan_einsum("ij;jk=>ik", &[&Concrete::output(&[2, 3]), &Concrete::output(&[3, 4])])?;
    /// let dw = plan.gradient(1)?;
    /// assert_eq!(dw.inputs, [GradInput::Cotangent, GradInput::Operand(0)]);
    /// assert_eq!(dw.plan.result_dims, [3, 4]);
    /// # #[cfg(feature = "kernel")] {
    /// let (x, dy) = ([1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0f64; 8]);
    /// let mut g = [0.0f64; 12];
    /// dw.plan.compile()?.run(&[&dy, &x], &mut g)?;
    /// assert_eq!(g[..4], [5.0; 4]); // row j = 0 of w: x[0][0] + x[1][0]
    /// # }
    /// # Ok::<(), einrow::project::ProjectError>(())
    /// ```
    pub fn gradient(&self, k: usize) -> Result<GradientPlan, ProjectError> {
        if k >= self.operand_dims.len() {
            let n = self.operand_dims.len();
            return Err(ProjectError::NoGradient(format!(
                "the step has {n} operands, not {}",
                k + 1
            )));
        }
        let products = self.differentiable()?;
        let mut others: Vec<usize> = Vec::new();
        if products {
            for p in self.parts.iter().filter(|p| p.operand(k).is_some()) {
                others.extend(p.reads().filter(|&j| j != k));
            }
            others.sort_unstable();
            others.dedup();
        }
        let inputs: Vec<GradInput> = std::iter::once(GradInput::Cotangent)
            .chain(others.iter().map(|&j| GradInput::Operand(j)))
            .collect();
        let parts = self.parts.iter().filter_map(|p| gradient_part(p, k, &others)).collect();
        let mut operand_dims = vec![self.result_dims.clone()];
        operand_dims.extend(others.iter().map(|&j| self.operand_dims[j].clone()));
        let mut plan = IndexPlan {
            op: self.op,
            result_dims: self.operand_dims[k].clone(),
            operand_dims,
            parts,
            accum: Accum::Add,
            combine: if others.is_empty() { Combine::First } else { Combine::Mul },
            bijective: false,
        };
        plan.bijective = plan.writes_each_once();
        Ok(GradientPlan { operand: k, plan, inputs })
    }

    /// The gradient plan of every operand, in order.
    pub fn gradients(&self) -> Result<Vec<GradientPlan>, ProjectError> {
        (0..self.operand_dims.len()).map(|k| self.gradient(k)).collect()
    }

    /// Whether the plan has gradient plans, and whether its combine is a product (the
    /// other operands take part in each gradient): `+=` over a product, a sum or one
    /// operand, or `=` writing each element once.
    fn differentiable(&self) -> Result<bool, ProjectError> {
        let copy = self.accum == Accum::Store && self.writes_each_once();
        let sum = self.accum == Accum::Add;
        match self.combine {
            Combine::Mul if sum || copy => Ok(self.operand_dims.len() > 1),
            Combine::Add | Combine::First if sum || copy => Ok(false),
            _ => Err(ProjectError::NoGradient(format!(
                "the step computes `{}` over `{}`: only sums (`+=`) of products, sums or single \
                 operands, and copies, have gradient plans",
                accum_text(self.accum),
                combine_text(self.combine)
            ))),
        }
    }
}

/// The part of operand `k`'s gradient made from forward part `p` (`None` when `p` does not
/// read `k`): the cotangent at `p`'s result index, then the operands `others` (numbered from
/// 1 in that order) that `p` reads, at their indices.
fn gradient_part(p: &PlanPart, k: usize, others: &[usize]) -> Option<PlanPart> {
    let result = p.operand(k)?.to_vec();
    let mut operands = vec![PartOperand { operand: 0, index: p.result.clone() }];
    for (slot, &j) in others.iter().enumerate() {
        if let Some(index) = p.operand(j) {
            operands.push(PartOperand { operand: slot + 1, index: index.to_vec() });
        }
    }
    Some(PlanPart { loops: p.loops.clone(), result, operands })
}
