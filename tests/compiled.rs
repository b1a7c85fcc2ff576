//! Compiled plans against a plan interpreter written here (every point of every part, its
//! indices evaluated one by one, in the storage type's compute type): contiguous and strided
//! views, in every storage type (f64, f32, f16, bf16, i64, i32, i16, i8, u8, bool),
//! for plans of every kind (reductions, diagonals, fixed indices, broadcasts, strided and
//! padded convolutions, concatenations), with other accumulations and combines; `run_plan`
//! too; and the coded errors of bad buffers.

#![cfg(feature = "kernel")]

use einrow::code::{Coded, ErrorCode};
use einrow::infer::{Graph, OpKind};
use einrow::kernel::{Accum, Combine, RunOptions, Scalar};
use einrow::project::{
    derive_plan, run_plan, Compute, Executable, Index, IndexPlan, View, ViewMut,
};
use half::{bf16, f16};
use proptest::prelude::*;

/// The plans tested: (operation, spec, operand shapes).
const CASES: &[(OpKind, Option<&str>, &[&str])] = &[
    (OpKind::Einsum, Some("ij;jk=>ik"), &["3,4", "4,5"]),
    (OpKind::Einsum, Some("ij;jk=>ki"), &["2,3", "3,2"]),
    (OpKind::Permute, Some("ii=>i"), &["3,3"]),
    (OpKind::Permute, Some("ij=>"), &["3,4"]),
    (OpKind::Permute, Some("i=>ii"), &["3"]),
    (OpKind::Permute, Some("ij=>i0"), &["2,3"]),
    (OpKind::Permute, Some("ij=>j1"), &["3,2"]),
    (OpKind::Pointwise, None, &["2,3", "1!"]),
    (OpKind::Pointwise, None, &["2|3", "3"]),
    (OpKind::Compose, None, &["3->2", "4|3"]),
    (OpKind::Transpose, None, &["2->3"]),
    (OpKind::Concat, Some("a; b => a^b"), &["3", "2"]),
    (OpKind::Concat, Some("i,a; i,b => i,a^b"), &["2,3", "2,1"]),
    (OpKind::Einsum, Some("2*o<+k; k => o"), &["7", "3"]),
    (OpKind::Einsum, Some("o=+k; k => o"), &["5", "3"]),
    (OpKind::Einsum, Some("b,2*o=+k; k => b,o"), &["2,6", "3"]),
    (OpKind::Einsum3, Some("i;i;i=>i"), &["4", "4", "4"]),
    (OpKind::Permute, Some("..r..|i->o => o|..r..->i"), &["2,3|4->2"]),
    // Size-0 axes: an empty contraction, an empty batch summed away, an empty vector
    // reduced, an empty result.
    (OpKind::Einsum, Some("ij;jk=>ik"), &["3,0", "0,2"]),
    (OpKind::Permute, Some("ij=>j"), &["0,3"]),
    (OpKind::Permute, Some("i=>"), &["0"]),
    (OpKind::Pointwise, None, &["0,3", "3"]),
    (OpKind::Compose, None, &["0->2", "4|0"]),
    (OpKind::Einsum, Some("b,2*o=+k; k => b,o"), &["2,6", "0"]),
];

/// A deterministic stream of small integers (exact in every storage type).
struct Ints(u64);

impl Ints {
    fn next(&mut self, lo: i64, hi: i64) -> i64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        lo + ((self.0 >> 33) % ((hi - lo + 1) as u64)) as i64
    }
}

fn plan_of(op: OpKind, spec: Option<&str>, shapes: &[&str]) -> IndexPlan {
    let mut g = Graph::new();
    let ids: Vec<_> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| g.declare(&format!("x{i}"), Some(s), false).expect("declares"))
        .collect();
    g.add_step(op, &ids, spec).expect("adds");
    g.solve().expect("solves");
    let step = g.step_ids().next().expect("a step");
    derive_plan(&g, step, Compute::default_for(op, ids.len()), 0).expect("plans")
}

fn numel(dims: &[u64]) -> usize {
    dims.iter().product::<u64>() as usize
}

/// The plan's result, point by point, in the compute type `C`: the result starts at the
/// accumulation's neutral element; a read outside an operand's axis (padding) yields it too.
fn interpret<C: Scalar>(plan: &IndexPlan, operands: &[Vec<C>]) -> Vec<C> {
    let neutral = plan.accum.neutral_value::<C>().unwrap_or(C::ZERO);
    let mut out = vec![neutral; numel(&plan.result_dims)];
    for part in &plan.parts {
        let sizes: Vec<i64> = part.loops.iter().map(|l| l.size as i64).collect();
        let mut point = vec![0i64; sizes.len()];
        let at = |ix: &Index, point: &[i64]| match ix {
            Index::Iter(l) => point[*l],
            Index::Fixed(n) => *n as i64,
            Index::Affine { terms, offset, .. } => {
                terms.iter().map(|(c, l)| c * point[*l]).sum::<i64>() + offset
            }
            other => panic!("an index kind this reference does not know: {other:?}"),
        };
        // The flat address of an index list, `None` when an index leaves its axis.
        let address = |idx: &[Index], dims: &[u64], point: &[i64]| {
            let mut a = 0i64;
            for (ix, &d) in idx.iter().zip(dims) {
                let i = at(ix, point);
                if i < 0 || i >= d as i64 {
                    return None;
                }
                a = a * d as i64 + i;
            }
            Some(a as usize)
        };
        if sizes.contains(&0) {
            continue;
        }
        loop {
            let reads: Vec<C> = part
                .operands
                .iter()
                .map(|o| (o.operand, &o.index))
                .map(|(i, idx)| match address(idx, &plan.operand_dims[i], &point) {
                    Some(a) => operands[i][a],
                    None => neutral,
                })
                .collect();
            let combine = if reads.len() == 1 { Combine::First } else { plan.combine };
            let v = reads[1..].iter().fold(reads[0], |acc, &x| combine.apply(acc, x));
            if let Some(a) = address(&part.result, &plan.result_dims, &point) {
                out[a] = plan.accum.apply(out[a], v);
            }
            let mut k = sizes.len();
            loop {
                if k == 0 {
                    break;
                }
                k -= 1;
                point[k] += 1;
                if point[k] < sizes[k] {
                    break;
                }
                point[k] = 0;
            }
            if k == 0 && point.iter().all(|&p| p == 0) {
                break;
            }
        }
    }
    out
}

/// A strided layout of `dims` inside a larger buffer: axes laid out in a shuffled order, some
/// reversed, rows padded, from an offset. Returns (strides, offset, buffer length).
fn layout(dims: &[u64], rng: &mut Ints) -> (Vec<isize>, usize, usize) {
    let mut order: Vec<usize> = (0..dims.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.next(0, i as i64) as usize);
    }
    let mut strides = vec![0isize; dims.len()];
    let mut pitch: isize = 1;
    for &a in order.iter().rev() {
        strides[a] = pitch;
        pitch *= dims[a] as isize + rng.next(0, 2) as isize;
    }
    let base = rng.next(0, 3) as isize;
    let mut offset = base;
    for (a, s) in strides.iter_mut().enumerate() {
        if rng.next(0, 2) == 0 && dims[a] > 1 {
            offset += *s * (dims[a] as isize - 1);
            *s = -*s;
        }
    }
    (strides, offset as usize, (pitch + base + 1) as usize)
}

/// Writes `values` (row-major) into `buf` at the view's addresses.
fn scatter<T: Copy>(buf: &mut [T], dims: &[u64], strides: &[isize], offset: usize, values: &[T]) {
    for (k, &v) in values.iter().enumerate() {
        buf[address(dims, strides, offset, k)] = v;
    }
}

fn address(dims: &[u64], strides: &[isize], offset: usize, mut k: usize) -> usize {
    let mut at = offset as isize;
    for (d, s) in dims.iter().zip(strides).rev() {
        at += (k % *d as usize) as isize * s;
        k /= *d as usize;
    }
    at as usize
}

/// Runs `plan` in storage type `T` on contiguous slices and on strided views, and compares
/// both with the reference computed in `C` (the operands stored in `T`, read in `C`, the
/// result stored back in `T`).
fn check_in<T: einrow::project::Storage, C: Scalar>(
    plan: &IndexPlan,
    operands: &[Vec<i64>],
    rng: &mut Ints,
) {
    let exe = Executable::compile(plan).expect("compiles");
    let ins: Vec<Vec<T>> =
        operands.iter().map(|v| v.iter().map(|&x| T::from_i64(x)).collect()).collect();
    let wide: Vec<Vec<C>> = ins.iter().map(|v| v.iter().map(|x| x.cast::<C>()).collect()).collect();
    // An element a maximum (minimum) never reaches is the storage type's least (greatest).
    let extremes = matches!(plan.accum, Accum::Max | Accum::Min);
    let back = |x: C| match x {
        x if extremes && x == C::NEG_INFINITY => T::LOWEST,
        x if extremes && x == C::INFINITY => T::HIGHEST,
        x => x.cast::<T>(),
    };
    let want: Vec<T> = interpret::<C>(plan, &wide).into_iter().map(back).collect();
    let refs: Vec<&[T]> = ins.iter().map(|v| v.as_slice()).collect();
    // A result buffer holding garbage: the run overwrites every element.
    let mut out = vec![T::from_f64(7.0); want.len()];
    exe.run(&refs, &mut out).expect("runs");
    assert_eq!(out, want, "{} contiguous\n{plan}", T::DTYPE.name());

    let mut bufs = Vec::new();
    for (v, dims) in ins.iter().zip(&plan.operand_dims) {
        let (strides, offset, len) = layout(dims, rng);
        let mut buf = vec![T::from_f64(9.0); len];
        scatter(&mut buf, dims, &strides, offset, v);
        bufs.push((buf, strides, offset));
    }
    let views: Vec<View<T>> = bufs
        .iter()
        .zip(&plan.operand_dims)
        .map(|((b, s, o), d)| View::strided(b, d, s, *o).expect("view fits"))
        .collect();
    let dims = &plan.result_dims;
    let (strides, offset, len) = layout(dims, rng);
    let mut out = vec![T::from_f64(5.0); len];
    exe.run_views(&views, &mut ViewMut::strided(&mut out, dims, &strides, offset).expect("fits"))
        .expect("runs");
    let got: Vec<T> = (0..numel(dims)).map(|k| out[address(dims, &strides, offset, k)]).collect();
    assert_eq!(got, want, "{} strided {strides:?}+{offset}\n{plan}", T::DTYPE.name());
}

fn check_plan(plan: &IndexPlan, rng: &mut Ints) {
    let operands: Vec<Vec<i64>> = plan
        .operand_dims
        .iter()
        .map(|d| (0..numel(d)).map(|_| rng.next(-3, 3)).collect())
        .collect();
    let f64s: Vec<Vec<f64>> =
        operands.iter().map(|v| v.iter().map(|&x| x as f64).collect()).collect();
    let refs: Vec<&[f64]> = f64s.iter().map(|v| v.as_slice()).collect();
    let expect = interpret::<f64>(plan, &f64s);
    assert_eq!(run_plan(plan, &refs).expect("runs"), expect, "run_plan\n{plan}");
    check_in::<f64, f64>(plan, &operands, rng);
    check_in::<f32, f32>(plan, &operands, rng);
    check_in::<f16, f32>(plan, &operands, rng);
    check_in::<bf16, f32>(plan, &operands, rng);
    check_in::<i64, i64>(plan, &operands, rng);
    check_in::<i32, i64>(plan, &operands, rng);
    check_in::<i16, i64>(plan, &operands, rng);
    check_in::<i8, i64>(plan, &operands, rng);
    check_in::<u8, i64>(plan, &operands, rng);
    check_in::<bool, bool>(plan, &operands, rng);
}

#[test]
fn compiled_plans_agree_with_the_reference() {
    let mut rng = Ints(7);
    for &(op, spec, shapes) in CASES {
        let plan = plan_of(op, spec, shapes);
        for _ in 0..3 {
            check_plan(&plan, &mut rng);
        }
    }
}

#[test]
fn other_accumulations_and_combines_agree() {
    let mut rng = Ints(11);
    for (accum, combine) in [
        (Accum::Max, Combine::Sub),
        (Accum::Min, Combine::Add),
        (Accum::Mul, Combine::Max),
        (Accum::Add, Combine::Min),
    ] {
        for &(op, spec, shapes) in CASES {
            let mut plan = plan_of(op, spec, shapes);
            if plan.operand_dims.len() < 2 && combine != Combine::First {
                plan.combine = Combine::First;
            } else {
                plan.combine = combine;
            }
            plan.accum = accum;
            check_plan(&plan, &mut rng);
        }
    }
}

#[test]
fn bad_buffers_are_coded_errors() {
    let plan = plan_of(OpKind::Einsum, Some("ij;jk=>ik"), &["2,3", "3,4"]);
    let exe = plan.compile().expect("compiles");
    let (a, b, mut c) = (vec![1.0f32; 6], vec![1.0f32; 12], vec![0.0f32; 8]);
    let code = |r: Result<(), einrow::project::ProjectError>| r.expect_err("rejected").code();
    assert_eq!(code(exe.run(&[&a, &b[..11]], &mut c)), ErrorCode::Elems);
    assert_eq!(code(exe.run(&[&a, &b], &mut c[..7])), ErrorCode::Elems);
    assert_eq!(code(exe.run(&[&a], &mut c)), ErrorCode::Arity);
    let wrong = View::contiguous(&b, &[4, 3]).expect("view");
    let right = View::contiguous(&a, &[2, 3]).expect("view");
    let mut out = ViewMut::contiguous(&mut c, &[2, 4]).expect("view");
    assert_eq!(code(exe.run_views(&[right.clone(), wrong], &mut out)), ErrorCode::Elems);
    assert_eq!(code(exe.run_views(&[right], &mut out)), ErrorCode::Arity);
    let err = View::strided(&a, &[2, 3], &[3, 2], 0).expect_err("reaches past the slice");
    assert_eq!(err.code(), ErrorCode::Elems);
}

#[test]
fn per_call_options_change_the_threads_not_the_result() {
    let plan = plan_of(OpKind::Einsum, Some("ij;jk=>ik"), &["300,200", "200,100"]);
    let exe = plan.compile().expect("compiles");
    let a: Vec<f64> = (0..60_000).map(|k| (k % 7) as f64 - 3.0).collect();
    let b: Vec<f64> = (0..20_000).map(|k| (k % 5) as f64 - 2.0).collect();
    let mut own = vec![0.0f64; 30_000];
    exe.run(&[&a, &b], &mut own).expect("runs");
    for threads in [1, 2, 4] {
        let opts = RunOptions { threads, ..RunOptions::default() };
        let mut out = vec![f64::NAN; 30_000];
        exe.run_with(&[&a, &b], &mut out, &opts).expect("runs");
        assert_eq!(out, own, "{threads} threads, contiguous");
        let mut out = vec![f64::NAN; 30_000];
        let views = [
            View::contiguous(&a, &[300, 200]).expect("view"),
            View::contiguous(&b, &[200, 100]).expect("view"),
        ];
        let mut o = ViewMut::strided(&mut out, &[300, 100], &[1, 300], 0).expect("view");
        exe.run_views_with(&views, &mut o, &opts).expect("runs");
        let transposed: Vec<f64> = (0..30_000).map(|k| out[(k % 100) * 300 + k / 100]).collect();
        assert_eq!(transposed, own, "{threads} threads, strided result");
    }
    let bad = exe.run_with(&[&a], &mut own, &RunOptions::default()).expect_err("one operand");
    assert_eq!(bad.code(), ErrorCode::Arity);
}

/// The einsum specs of the property below, each with its labels' positions in the sizes drawn.
const SIZED: &[(&str, &[&[usize]])] = &[
    ("ij;jk=>ik", &[&[0, 1], &[1, 2]]),
    ("ij=>i", &[&[0, 1]]),
    ("ij=>", &[&[0, 1]]),
    ("i;i=>", &[&[0], &[0]]),
    ("ij;j=>i", &[&[0, 1], &[1]]),
    ("bij;bjk=>bik", &[&[0, 1, 2], &[0, 2, 3]]),
    ("ii=>i", &[&[0, 0]]),
    ("i;j=>ij", &[&[0], &[1]]),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A compiled plan run into a caller's buffer, whatever it held, equals the plan's result
    /// in a fresh buffer (`run_plan`) and the reference, for every accumulation and for sizes
    /// including 0 and 1: a reduction over nothing leaves the neutral element, not the
    /// buffer's old contents.
    #[test]
    fn caller_buffers_equal_fresh_results(
        which in 0..SIZED.len(),
        sizes in proptest::collection::vec(0u64..4, 4),
        accum in prop::sample::select(vec![Accum::Add, Accum::Max, Accum::Min, Accum::Mul]),
        garbage in -9.0f64..9.0,
        seed in any::<u64>(),
    ) {
        let (spec, axes) = SIZED[which];
        let shapes: Vec<String> = axes
            .iter()
            .map(|a| a.iter().map(|&k| sizes[k].to_string()).collect::<Vec<_>>().join(","))
            .collect();
        let shapes: Vec<&str> = shapes.iter().map(String::as_str).collect();
        let op = if shapes.len() == 1 { OpKind::Permute } else { OpKind::Einsum };
        let mut plan = plan_of(op, Some(spec), &shapes);
        plan.accum = accum;
        let mut rng = Ints(seed);
        let operands: Vec<Vec<f64>> = plan
            .operand_dims
            .iter()
            .map(|d| (0..numel(d)).map(|_| rng.next(-3, 3) as f64).collect())
            .collect();
        let refs: Vec<&[f64]> = operands.iter().map(|v| v.as_slice()).collect();
        let want = interpret::<f64>(&plan, &operands);
        prop_assert_eq!(&run_plan(&plan, &refs).expect("runs"), &want);
        let exe = plan.compile().expect("compiles");
        let mut out = vec![garbage; want.len()];
        exe.run(&refs, &mut out).expect("runs");
        prop_assert_eq!(&out, &want, "contiguous {}", plan);
        let mut buf = vec![garbage; want.len() * 2 + 1];
        let dims = plan.result_dims.clone();
        let mut strides = vec![0isize; dims.len()];
        let mut pitch = 2isize;
        for (s, d) in strides.iter_mut().zip(&dims).rev() {
            *s = pitch;
            pitch *= (*d as isize).max(1);
        }
        let mut view = ViewMut::strided(&mut buf, &dims, &strides, 0).expect("fits");
        let views: Vec<View<f64>> = operands
            .iter()
            .zip(&plan.operand_dims)
            .map(|(v, d)| View::contiguous(v, d).expect("view"))
            .collect();
        exe.run_views(&views, &mut view).expect("runs");
        let got: Vec<f64> = (0..want.len()).map(|k| buf[address(&dims, &strides, 0, k)]).collect();
        prop_assert_eq!(&got, &want, "strided {}", plan);
    }
}

/// A maximum or minimum over nothing in a narrow integer type is that type's own extreme
/// (int8's -128), not the low bits of int64's (0).
#[test]
fn narrow_integer_extremes_over_nothing_are_their_own() {
    let mut plan = plan_of(OpKind::Permute, Some("i=>"), &["0"]);
    for (accum, i8s, u8s, i32s) in
        [(Accum::Max, i8::MIN, u8::MIN, i32::MIN), (Accum::Min, i8::MAX, u8::MAX, i32::MAX)]
    {
        plan.accum = accum;
        let exe = plan.compile().expect("compiles");
        let (mut a, mut b, mut c) = ([7i8], [7u8], [7i32]);
        exe.run(&[&[]], &mut a).expect("runs");
        exe.run(&[&[]], &mut b).expect("runs");
        exe.run(&[&[]], &mut c).expect("runs");
        assert_eq!((a[0], b[0], c[0]), (i8s, u8s, i32s), "{accum:?}");
        let mut h = [half::f16::ONE];
        exe.run(&[&[]], &mut h).expect("runs");
        assert!(h[0].is_infinite(), "{accum:?}: {}", h[0]);
    }
}

/// The frozen examples: a compiled matmul over an empty contraction, a sum over an empty
/// batch, a sum and a maximum of an empty vector, into buffers prefilled with 7s.
#[test]
fn reductions_over_nothing_overwrite_caller_buffers() {
    let matmul = plan_of(OpKind::Einsum, Some("ij;jk=>ik"), &["2,0", "0,3"]);
    let mut out = [7.0f32; 6];
    matmul.compile().expect("compiles").run(&[&[], &[]], &mut out).expect("runs");
    assert_eq!(out, [0.0; 6]);
    let batch = plan_of(OpKind::Permute, Some("bi=>i"), &["0,3"]);
    let mut out = [7.0f64; 3];
    batch.compile().expect("compiles").run(&[&[]], &mut out).expect("runs");
    assert_eq!(out, [0.0; 3]);
    let mut sum = plan_of(OpKind::Permute, Some("i=>"), &["0"]);
    let mut out = [7i32];
    sum.compile().expect("compiles").run(&[&[]], &mut out).expect("runs");
    assert_eq!(out, [0]);
    sum.accum = Accum::Max;
    let mut out = [7.0f64];
    sum.compile().expect("compiles").run(&[&[]], &mut out).expect("runs");
    assert_eq!(out, [f64::NEG_INFINITY]);
}

/// Small matrix products take the register-held row paths (rows of 4, 8 or 16, four rows at
/// once when the row count allows): every size around them equals the naive sum exactly
/// (integer values), the transposed operands and a repeated-row result (`ij,jk->k`) too.
#[test]
fn small_products_equal_the_naive_sums() {
    for (m, k, n) in small_product_sizes() {
        for spec in ["ij;jk=>ik", "ij;jk=>k", "ji;jk=>ik"] {
            let (a_dims, b_dims) = match spec {
                "ji;jk=>ik" => ([k, m], [k, n]),
                _ => ([m, k], [k, n]),
            };
            let plan = einrow::project::plan_einsum(
                spec,
                &[
                    &einrow::project::Concrete::output(&a_dims),
                    &einrow::project::Concrete::output(&b_dims),
                ],
            )
            .expect("plans");
            let exe = einrow::project::Executable::compile(&plan).expect("compiles");
            let a: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32 - 3.0).collect();
            let b: Vec<f32> = (0..k * n).map(|i| (i % 5) as f32 - 2.0).collect();
            let at = |i: u64, j: u64| match spec {
                "ji;jk=>ik" => a[(j * m + i) as usize],
                _ => a[(i * k + j) as usize],
            };
            let mut want = vec![0.0f32; (m * n) as usize];
            for (i, j, l) in
                (0..m).flat_map(|i| (0..k).flat_map(move |j| (0..n).map(move |l| (i, j, l))))
            {
                want[(i * n + l) as usize] += at(i, j) * b[(j * n + l) as usize];
            }
            if spec == "ij;jk=>k" {
                want = (0..n).map(|l| (0..m).map(|i| want[(i * n + l) as usize]).sum()).collect();
            }
            let mut out = vec![f32::NAN; want.len()];
            exe.run(&[&a, &b], &mut out).expect("runs");
            assert_eq!(out, want, "{spec} with m={m} k={k} n={n}");
        }
    }
}

/// Small products at the size limit: a product space of 2^62 points compiles, and buffers
/// that cannot hold its operands are an `elems` error; past 2^62 compiling is a coded error.
/// Never a panic or an allocation.
#[test]
fn small_products_at_the_size_limit_are_checked() {
    use einrow::project::{plan_einsum, Concrete};
    let small = Concrete::output(&[8, 8]);
    let at_limit = Concrete::output(&[1 << 56, 8]);
    let plan = plan_einsum("ij;jk=>ik", &[&at_limit, &small]).expect("plans");
    let exe = Executable::compile(&plan).expect("compiles");
    let (a, b, mut out) = (vec![1.0f32; 64], vec![1.0f32; 64], vec![0.0f32; 64]);
    let e = exe.run(&[&a, &b], &mut out).expect_err("short buffers");
    assert_eq!(e.code(), ErrorCode::Elems);
    let past = Concrete::output(&[1 << 62, 8]);
    let plan = plan_einsum("ij;jk=>ik", &[&past, &small]).expect("plans");
    let e = Executable::compile(&plan).expect_err("past the limit");
    assert_eq!(e.code(), ErrorCode::Value);
}

/// Row counts, inner and row lengths on both sides of the fixed-length paths.
fn small_product_sizes() -> Vec<(u64, u64, u64)> {
    let mut v = Vec::new();
    for m in [0, 1, 3, 4, 8, 12, 16] {
        for k in [0, 1, 2, 8, 9] {
            for n in [0, 3, 4, 5, 8, 16, 17] {
                v.push((m, k, n));
            }
        }
    }
    v
}
