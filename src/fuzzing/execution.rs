//! Execution properties of programs: running a solved graph with einrow's projections and
//! kernel gives the values of the naive reference evaluator ([`super::exec`]), in an element
//! type drawn per program ([`ExecType`]: f64, f32, f16, bf16, i64, i32, i16 or i8).

use std::panic::{catch_unwind, AssertUnwindSafe};

use super::exec::{eval_step, numel};
use super::exec_type::ExecType;
use super::gen::Choices;
use super::model::ConcreteShape;
use super::props::{panic_message, Failure, FailureKind};
use super::solution::Solution;
use crate::ids::{StepId, TensorId};
use crate::infer::program::Program;
use crate::project::Compute;

/// Every tensor's values in definition order (`None`: neither given nor computed).
type Values = Vec<Option<Vec<f64>>>;
/// Leaf values for [`run_graph`].
type Leaves = Vec<(TensorId, Vec<f64>)>;

/// Most elements of one tensor for an execution check.
const MAX_ELEMENTS: usize = 1 << 12;

/// Leaf values and the naive evaluator's values of every tensor (definition order); `None`
/// when the evaluator does not model a step.
fn naive_values(
    p: &Program,
    names: &[(String, TensorId)],
    shapes: &[Option<&ConcreteShape>],
    used: &[TensorId],
    ch: &mut Choices,
) -> Result<Option<(Values, Leaves)>, Failure> {
    let mut values: Values = Vec::with_capacity(names.len());
    let mut leaves = Vec::new();
    for (i, shape) in shapes.iter().take(p.decls.len()).enumerate() {
        let v = shape.and_then(numel).map(|n| leaf_values(ch, n));
        if let (Some(v), true) = (&v, used.contains(&names[i].1)) {
            leaves.push((names[i].1, v.clone()));
        }
        values.push(v);
    }
    Ok(evaluate(p, names, shapes, values)?.map(|values| (values, leaves)))
}

/// Extends the leaves' values (`values`, one per declaration) with every step's, in
/// definition order; `None` when the evaluator does not model a step.
fn evaluate(
    p: &Program,
    names: &[(String, TensorId)],
    shapes: &[Option<&ConcreteShape>],
    mut values: Values,
) -> Result<Option<Values>, Failure> {
    for (i, s) in p.stmts.iter().enumerate() {
        let out = shapes[p.decls.len() + i]
            .ok_or_else(|| Failure::new(FailureKind::Unsolved, "a result is open"))?;
        let mut args = Vec::new();
        for a in &s.args {
            let j = names[..p.decls.len() + i].iter().rposition(|(n, _)| n == a);
            let (Some(shape), Some(v)) =
                (j.and_then(|j| shapes[j]), j.and_then(|j| values[j].as_deref()))
            else {
                return Ok(None);
            };
            args.push((shape, v));
        }
        match eval_step(s, &args, out) {
            Ok(v) => values.push(Some(v)),
            Err(_) => return Ok(None),
        }
    }
    Ok(Some(values))
}

/// Whether einrow's value `have` of an element agrees with the reference's `want`, given
/// `bound`: the element evaluated on the absolute values of the leaves. The default steps
/// only add and multiply, so `bound` is at least the magnitude of every partial sum either
/// side formed. Integers are exact in f64 up to 2^53 whatever the order of the sums; past
/// that, einrow may add in another order than the reference, and the two may differ by a
/// few roundings of `bound` (allowed: 2^-30 of it, far below what a wrong index changes).
fn agree(have: f64, want: f64, bound: f64) -> bool {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if bound <= EXACT {
        return have == want;
    }
    (have - want).abs() <= bound * (1.0 / (1u64 << 30) as f64)
}

/// Small integer leaf values (in -3..=3), so every result is exact in f64.
pub fn leaf_values(ch: &mut Choices, n: usize) -> Vec<f64> {
    (0..n).map(|_| ch.below(7) as f64 - 3.0).collect()
}

/// Solves `p`, runs it with random leaf values through einrow
/// ([`run_graph`](crate::project::run_graph), default accumulation and combine per
/// operation, in an element type drawn from `ch` where the values stay exact in it, else in
/// f64) and through the naive evaluator, and compares every tensor's values. Programs that are rejected, too large, or use what the naive
/// evaluator does not model (padded convolutions, concatenation in an operand) are skipped:
/// `Ok(false)`. `Ok(true)` when the values were compared and agree.
pub fn check_execution(p: &Program, ch: &mut Choices) -> Result<bool, Failure> {
    let run = catch_unwind(AssertUnwindSafe(|| execute_both(p, ch)));
    match run {
        Ok(r) => r,
        Err(payload) => Err(Failure::new(FailureKind::Panic, panic_message(&*payload))),
    }
}

fn execute_both(p: &Program, ch: &mut Choices) -> Result<bool, Failure> {
    // einrow's projections do not cover numpy steps in graphs yet.
    if p.stmts.iter().any(|s| s.op == crate::infer::OpKind::Numpy) {
        return Ok(false);
    }
    let built = p.build();
    let (g, names) = (built.graph, built.names);
    if built.result.is_err() {
        return Ok(false);
    }
    let used: Vec<TensorId> =
        g.steps().iter().flat_map(|s| s.args.iter().copied().chain([s.out])).collect();
    let Ok(sol) = Solution::from_graph(&g, &names, |t| !used.contains(&t)) else {
        return Ok(false);
    };
    let shapes: Vec<Option<&ConcreteShape>> = sol.tensors.iter().map(|(_, s)| s.as_ref()).collect();
    if shapes.iter().flatten().any(|s| numel(s).is_none_or(|n| n > MAX_ELEMENTS)) {
        return Ok(false);
    }
    let Some((values, leaves)) = naive_values(p, &names, &shapes, &used, ch)? else {
        return Ok(false);
    };
    let abs_leaves = values[..p.decls.len()].iter().map(|v| v.as_ref().map(|v| abs(v))).collect();
    let bounds = evaluate(p, &names, &shapes, abs_leaves)?.unwrap_or_default();
    let largest = bounds.iter().flatten().flatten().fold(0.0f64, |m, b| m.max(*b));
    let ty = ExecType::ALL[ch.below(ExecType::ALL.len())].fitting(largest);
    let steps: Vec<_> = g.steps().to_vec();
    let got = ty.run(&g, &leaves, &|st: StepId| {
        let s = &steps[st.index()];
        Compute::default_for(s.op, s.args.len())
    });
    let got = got.map_err(|e| {
        Failure::new(
            FailureKind::Differential,
            format!("einrow cannot run the program in {ty:?}: {e}"),
        )
    })?;
    for (i, (name, id)) in names.iter().enumerate().skip(p.decls.len()) {
        let want = values[i].as_deref().unwrap_or_default();
        let have = got.get(id.index()).and_then(|v| v.as_deref()).unwrap_or_default();
        let bound = bounds.get(i).and_then(|b| b.as_deref()).unwrap_or_default();
        let same = have.len() == want.len()
            && bound.len() == want.len()
            && have.iter().zip(want).zip(bound).all(|((h, w), b)| agree(*h, *w, *b));
        if !same {
            let msg = format!(
                "`{name}` in {ty:?}: einrow computes {have:?}, the naive reference {want:?}"
            );
            return Err(Failure::new(FailureKind::Differential, msg));
        }
    }
    Ok(true)
}

fn abs(v: &[f64]) -> Vec<f64> {
    v.iter().map(|x| x.abs()).collect()
}

#[cfg(test)]
mod tests {
    use super::agree;

    /// The numbers of the failure found by `einrow fuzz infer` (seed 2078071772): one
    /// rounding apart at 1.26e19, with a bound of at least the value itself.
    #[test]
    fn sums_past_two_to_the_53_agree_within_their_rounding() {
        let (have, want) = (1.25524238436e19, 1.2552423843599993e19);
        assert!(have != want);
        assert!(agree(have, want, want));
        assert!(agree(have, want, 4.0 * want));
    }

    /// A wrong value is still told apart: exactly below 2^53, and past it by more than a
    /// few roundings of the bound.
    #[test]
    fn wrong_values_disagree() {
        assert!(!agree(3.0, 4.0, 10.0));
        assert!(!agree(9.0e15, 9.0e15 + 2.0, 9.0e15));
        let want = 1.2552423843599993e19;
        assert!(!agree(want + 3.0, want + 3.0 + 1e12, want));
        assert!(!agree(0.0, 1.0e15, 1.0e19));
    }
}
