//! Gradient plans against central finite differences (f64): for plans of every kind
//! (broadcasting, reductions, diagonals, fixed indices, strided, dilated and padded
//! convolutions, concatenations, batch slices, numpy steps) at sizes including 0 and 1, the
//! gradient of `L(x) = Σ c · f(x)` with respect to each operand, computed by its gradient
//! plan from the cotangent `c`, equals the finite differences of `L`. Every plan here is
//! linear in each operand, so central differences are exact up to rounding.

#![cfg(feature = "kernel")]

use einrow::code::{Coded, ErrorCode};
use einrow::infer::{Graph, OpKind};
use einrow::kernel::{Accum, Combine};
use einrow::project::{derive_plan, run_plan, Compute, Executable, GradInput, IndexPlan};
use proptest::prelude::*;

#[path = "support/noise.rs"]
mod noise;

/// (operation, spec, operand shapes with sizes `a`, `b`, `c` substituted).
const TEMPLATES: &[(OpKind, Option<&str>, &[&str])] = &[
    (OpKind::Pointwise, None, &["a|b", "b"]),
    (OpKind::Pointwise, None, &["a,b", "1!,b"]),
    (OpKind::Pointwise, None, &["a|b", "a|b"]),
    (OpKind::Compose, None, &["b->c", "a|b"]),
    (OpKind::Transpose, None, &["b->c"]),
    (OpKind::Einsum, Some("ij;jk=>ik"), &["a,b", "b,c"]),
    (OpKind::Einsum, Some("ij;ij=>"), &["a,b", "a,b"]),
    (OpKind::Einsum, Some("bi;bj=>bij"), &["a,b", "a,c"]),
    (OpKind::Permute, Some("ii=>i"), &["b,b"]),
    (OpKind::Permute, Some("i=>ii"), &["b"]),
    (OpKind::Permute, Some("ij=>i0"), &["a,b"]),
    (OpKind::Permute, Some("ij=>j"), &["a,b"]),
    (OpKind::Permute, Some("..r..|i->o => o|..r..->i"), &["a|b->c"]),
    (OpKind::Einsum, Some("2*o<+k; k => o"), &["7", "3"]),
    (OpKind::Einsum, Some("o=+k; k => o"), &["b", "3"]),
    (OpKind::Einsum, Some("b,2*o=+k; k => b,o"), &["a,6", "3"]),
    (OpKind::Einsum, Some("2*o=+3*k; k => o"), &["8", "2"]),
    (OpKind::Einsum, Some("2*o<+3*k; k => o"), &["8", "2"]),
    (OpKind::Numpy, Some("ij,kj->ij"), &["a,b", "1!,b"]),
    (OpKind::Numpy, Some("ii->i"), &["b,b"]),
    (OpKind::Einsum, Some("2*o~1+k; k => o"), &["9", "3"]),
    (OpKind::Einsum, Some("b,o~+2*k; k => b,o"), &["a,7", "2"]),
    (OpKind::Einsum3, Some("i;i;i=>i"), &["b", "b", "b"]),
    (OpKind::Concat, Some("a; b => a^b"), &["b", "c"]),
    (OpKind::Concat, Some("i,a; i,b => i,a^b"), &["a,b", "a,c"]),
    (OpKind::BatchSlice, None, &["a,b|c"]),
];

fn shapes_of(template: &[&str], [a, b, c]: [u64; 3]) -> Vec<String> {
    template
        .iter()
        .map(|s| {
            s.replace('a', &a.to_string()).replace('b', &b.to_string()).replace('c', &c.to_string())
        })
        .collect()
}

/// The plan of the template's step, or `None` when the sizes do not fit it (a convolution
/// longer than its input).
fn plan_of(op: OpKind, spec: Option<&str>, shapes: &[String]) -> Option<IndexPlan> {
    let mut g = Graph::new();
    let ids: Vec<_> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| g.declare(&format!("x{i}"), Some(s), false).expect("declares"))
        .collect();
    g.add_step(op, &ids, spec).ok()?;
    g.solve().ok()?;
    let step = g.step_ids().next()?;
    derive_plan(&g, step, Compute::default_for(op, ids.len()), 0).ok()
}

fn numel(dims: &[u64]) -> usize {
    dims.iter().product::<u64>() as usize
}

/// `Σ c · plan(xs)`.
fn loss(plan: &IndexPlan, xs: &[Vec<f64>], c: &[f64]) -> f64 {
    let refs: Vec<&[f64]> = xs.iter().map(Vec::as_slice).collect();
    let out = run_plan(plan, &refs).expect("runs");
    out.iter().zip(c).map(|(o, c)| o * c).sum()
}

/// Operand `k`'s gradient by its gradient plan, added onto a buffer holding `start`.
fn analytic(plan: &IndexPlan, k: usize, xs: &[Vec<f64>], c: &[f64], start: f64) -> Vec<f64> {
    let grad = plan.gradient(k).expect("a gradient plan");
    assert_eq!(grad.plan.result_dims, plan.operand_dims[k]);
    let reads: Vec<&[f64]> = grad
        .inputs
        .iter()
        .map(|i| match i {
            GradInput::Cotangent => c,
            GradInput::Operand(j) => xs[*j].as_slice(),
            _ => unreachable!("a new kind of gradient input"),
        })
        .collect();
    let mut out = vec![start; xs[k].len()];
    Executable::compile_accumulating(&grad.plan)
        .expect("compiles")
        .run(&reads, &mut out)
        .expect("runs");
    let fresh = grad.plan.compile().expect("compiles");
    let mut overwritten = vec![7.0; xs[k].len()];
    fresh.run(&reads, &mut overwritten).expect("runs");
    for (a, o) in out.iter().zip(&overwritten) {
        assert!((a - start - o).abs() <= 1e-12 * (1.0 + o.abs()), "accumulating = fresh + start");
    }
    overwritten
}

/// Operand `k`'s gradient by central differences.
fn numeric(plan: &IndexPlan, k: usize, xs: &[Vec<f64>], c: &[f64]) -> Vec<f64> {
    let h = 0.5;
    (0..xs[k].len())
        .map(|e| {
            let mut up = xs.to_vec();
            up[k][e] += h;
            let mut down = xs.to_vec();
            down[k][e] -= h;
            (loss(plan, &up, c) - loss(plan, &down, c)) / (2.0 * h)
        })
        .collect()
}

/// A deterministic value stream in [-2, 2].
fn values(seed: u64, n: usize) -> Vec<f64> {
    noise::xorshift(seed).take(n).map(|x| ((x % 9) as f64 - 4.0) / 2.0).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn gradient_plans_match_finite_differences(
        which in 0..TEMPLATES.len(),
        sizes in [0u64..4, 1u64..4, 0u64..4],
        seed in any::<u64>(),
    ) {
        let (op, spec, template) = TEMPLATES[which];
        let Some(plan) = plan_of(op, spec, &shapes_of(template, sizes)) else { return Ok(()) };
        let xs: Vec<Vec<f64>> = plan
            .operand_dims
            .iter()
            .enumerate()
            .map(|(k, d)| values(seed.wrapping_add(k as u64), numel(d)))
            .collect();
        let c = values(seed ^ 0x5eed, numel(&plan.result_dims));
        for k in 0..xs.len() {
            let got = analytic(&plan, k, &xs, &c, 3.0);
            let want = numeric(&plan, k, &xs, &c);
            for (e, (g, w)) in got.iter().zip(&want).enumerate() {
                prop_assert!((g - w).abs() <= 1e-9 * (1.0 + w.abs()), "operand {} element {}: {} vs {}\n{}", k, e, g, w, plan);
            }
        }
    }
}

#[test]
fn steps_without_gradients_are_unsupported_errors() {
    let mut plan =
        plan_of(OpKind::Einsum, Some("ij;jk=>ik"), &["2,3".into(), "3,4".into()]).expect("plans");
    for (accum, combine) in [
        (Accum::Max, Combine::Mul),
        (Accum::Add, Combine::Max),
        (Accum::Mul, Combine::Mul),
        (Accum::Add, Combine::Div),
    ] {
        plan.accum = accum;
        plan.combine = combine;
        assert_eq!(plan.gradient(0).expect_err("no gradient").code(), ErrorCode::Unsupported);
    }
    plan.accum = Accum::Add;
    plan.combine = Combine::Mul;
    assert_eq!(plan.gradient(2).expect_err("two operands").code(), ErrorCode::Unsupported);
    plan.accum = Accum::Max;
    assert!(Executable::compile_accumulating(&plan).is_err());
}

/// The gradient of a tensor read by two steps (or twice by one) is the sum of its shares:
/// accumulating gradient plans add into one buffer.
#[test]
fn a_tensor_read_twice_gets_the_sum_of_its_gradients() {
    let plan =
        plan_of(OpKind::Einsum, Some("ij;ij=>"), &["2,2".into(), "2,2".into()]).expect("plans");
    let x = [1.0, -2.0, 3.0, 0.5];
    let c = [2.0];
    let mut g = [0.0f64; 4];
    for k in 0..2 {
        let grad = plan.gradient(k).expect("a gradient");
        let exe = Executable::compile_accumulating(&grad.plan).expect("compiles");
        exe.run(&[&c[..], &x[..]], &mut g).expect("runs");
    }
    // d(Σ x²)/dx = 2x, times the cotangent 2.
    assert_eq!(g, [4.0, -8.0, 12.0, 2.0]);
}

/// Every template plans at sizes 2, 3, 2: none of them is skipped for good by the property.
#[test]
fn every_template_plans() {
    for &(op, spec, template) in TEMPLATES {
        let shapes = shapes_of(template, [2, 3, 2]);
        assert!(plan_of(op, spec, &shapes).is_some(), "{op} {spec:?} {shapes:?}");
    }
}
