//! Kernel tests: random nests over strided views (transposed, sliced with steps ±1 and 2,
//! broadcast, fixed indices, diagonals) compared with the naive reference, on every path
//! (strided executor, GEMM, thread splits, guarded slow path).

use proptest::prelude::*;

use super::*;
use crate::tensor::{Layout, SliceSpec};

/// One axis of a random operand: which loop it follows and how its view is made.
#[derive(Clone, Debug)]
struct AxisSpec {
    pick: usize,
    flags: u8,
}

const REVERSE: u8 = 1;
const STEP2: u8 = 2;
const BROADCAST: u8 = 4;
const FIXED: u8 = 8;

#[derive(Clone, Debug)]
struct Case {
    extents: Vec<usize>,
    out: Vec<AxisSpec>,
    ins: Vec<(Vec<AxisSpec>, usize)>,
    out_perm: usize,
    accum: Accum,
    combine: Combine,
    init: Init,
    threads: usize,
    /// `(gemm, gemm_min_work)`: the strided executor, direct loops or the `gemm` crate.
    gemm: (bool, usize),
    seed: u64,
}

fn axes() -> impl Strategy<Value = Vec<AxisSpec>> {
    prop::collection::vec(
        (0..8usize, 0..16u8).prop_map(|(pick, flags)| AxisSpec { pick, flags }),
        0..=3,
    )
}

fn case() -> impl Strategy<Value = Case> {
    let accum = prop_oneof![
        Just(Accum::Store),
        Just(Accum::Add),
        Just(Accum::Mul),
        Just(Accum::Max),
        Just(Accum::Min)
    ];
    let combine = prop_oneof![
        Just(Combine::First),
        Just(Combine::Mul),
        Just(Combine::Add),
        Just(Combine::Sub),
        Just(Combine::Div),
        Just(Combine::Max),
        Just(Combine::Min)
    ];
    let init = prop_oneof![Just(Init::No), Just(Init::Touched), Just(Init::Whole)];
    (
        prop::collection::vec(prop_oneof![1 => Just(0usize), 8 => 1..5usize], 0..=4),
        axes(),
        prop::collection::vec((axes(), 0..6usize), 1..=3),
        (0..6usize, accum, combine, init),
        (
            1..=4usize,
            prop_oneof![Just((true, 0usize)), Just((true, usize::MAX)), Just((false, 0))],
            any::<u64>(),
        ),
    )
        .prop_map(
            |(extents, out, ins, (out_perm, accum, combine, init), (threads, gemm, seed))| Case {
                extents,
                out,
                ins,
                out_perm,
                accum,
                combine,
                init,
                threads,
                gemm,
                seed,
            },
        )
}

/// A strided view realising `axes` over a fresh buffer: the buffer length, the layout and the
/// index of each axis.
fn operand(
    extents: &[usize],
    axes: &[AxisSpec],
    perm: usize,
    is_output: bool,
) -> (usize, Layout, Vec<AxisIndex>) {
    let mut sizes = Vec::new();
    let mut base = Vec::new();
    let mut index = Vec::new();
    let mut bcasts = Vec::new();
    for a in axes {
        let fixed = extents.is_empty() || a.flags & FIXED != 0;
        let size = if fixed { 2 } else { extents[a.pick % extents.len()] };
        index.push(if fixed {
            AxisIndex::Fixed(1)
        } else {
            AxisIndex::Iter(a.pick % extents.len())
        });
        let bcast = !is_output && !fixed && a.flags & BROADCAST != 0;
        sizes.push(size);
        bcasts.push(bcast);
        base.push(if bcast {
            1
        } else if a.flags & STEP2 != 0 {
            2 * size + 1
        } else {
            size
        });
    }
    // Store the base in a rotated (and maybe reversed) axis order: a transposed view.
    let r = axes.len();
    let mut order: Vec<usize> = (0..r).map(|k| (k + perm) % r.max(1)).collect();
    if perm % 2 == 1 {
        order.reverse();
    }
    let stored: Vec<usize> = order.iter().map(|&k| base[k]).collect();
    let mut inverse = vec![0; r];
    for (pos, &k) in order.iter().enumerate() {
        inverse[k] = pos;
    }
    let mut l = Layout::contiguous(&stored).unwrap().permute(&inverse).unwrap();
    for (k, a) in axes.iter().enumerate() {
        if bcasts[k] {
            let mut shape = l.shape().to_vec();
            shape[k] = sizes[k];
            l = l.broadcast_to(&shape).unwrap();
        } else if a.flags & STEP2 != 0 {
            l = l.slice(k, SliceSpec { start: Some(1), stop: None, step: 2 }).unwrap();
            l = l
                .slice(k, SliceSpec { start: None, stop: Some(sizes[k] as i64), step: 1 })
                .unwrap();
        }
        if a.flags & REVERSE != 0 {
            l = l.slice(k, SliceSpec::full(-1)).unwrap();
        }
    }
    assert_eq!(l.shape(), sizes.as_slice());
    (stored.iter().product(), l, index)
}

pub(super) fn values(seed: u64, n: usize) -> Vec<f64> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            [-3.0, -2.0, -1.0, 1.0, 2.0, 3.0, 0.5][(x % 7) as usize]
        })
        .collect()
}

fn check_case(c: &Case) -> Result<(), TestCaseError> {
    let loops = c.extents.len();
    let (out_len, out_layout, out_index) = operand(&c.extents, &c.out, c.out_perm, true);
    let mut nest = Nest {
        extents: c.extents.clone(),
        output: Access::project(&out_layout, &out_index, loops).unwrap(),
        inputs: vec![],
        accum: c.accum,
        combine: c.combine,
        init: c.init,
    };
    let mut bufs = vec![];
    for (k, (axes, perm)) in c.ins.iter().enumerate() {
        let (len, layout, index) = operand(&c.extents, axes, *perm, false);
        nest.inputs.push(Access::project(&layout, &index, loops).unwrap());
        bufs.push(values(c.seed.wrapping_add(k as u64 + 1), len));
    }
    let plan_points: usize = c.extents.iter().product();
    let injective_out = super::simplify::injective(&nest.extents, &nest.output.strides);
    if c.accum == Accum::Store && !injective_out && plan_points > 0 {
        nest.accum = Accum::Add; // which Store wins is unspecified
    }
    let opts = RunOptions {
        threads: c.threads,
        gemm: c.gemm.0,
        min_parallel_points: 1,
        gemm_min_work: c.gemm.1,
    };
    check_typed::<f64>(&nest, &bufs, values(c.seed, out_len), &opts, 1e-9)?;
    check_typed::<f32>(&nest, &bufs, values(c.seed, out_len), &opts, 1e-4)
}

/// Runs `nest` in `T` (in place over `start` and into a fresh output) against the reference
/// in `T`.
pub(super) fn check_typed<T: Scalar>(
    nest: &Nest,
    bufs: &[Vec<f64>],
    start: Vec<f64>,
    opts: &RunOptions,
    tol: f64,
) -> Result<(), TestCaseError> {
    let conv = |v: &[f64]| -> Vec<T> { v.iter().map(|&x| T::from_f64(x)).collect() };
    let bufs: Vec<Vec<T>> = bufs.iter().map(|b| conv(b)).collect();
    let ins: Vec<&[T]> = bufs.iter().map(|b| b.as_slice()).collect();
    let start = conv(&start);
    let mut want = start.clone();
    run_reference(nest, &ins, &mut want).unwrap();
    let mut got = start.clone();
    nest.run_with(&ins, &mut got, opts).unwrap();
    same(&want, &got, nest, tol)?;
    // A fresh output starts out holding the neutral element (0 for Store).
    let fill = T::from_f64(nest.accum.neutral().unwrap_or(0.0));
    let mut want = vec![fill; start.len()];
    run_reference(nest, &ins, &mut want).unwrap();
    let got = nest.run_fresh(&ins, start.len(), opts).unwrap();
    same(&want, &got, nest, tol)
}

fn same<T: Scalar>(want: &[T], got: &[T], nest: &Nest, tol: f64) -> Result<(), TestCaseError> {
    prop_assert_eq!(want.len(), got.len());
    for (k, (w, g)) in want.iter().zip(got).enumerate() {
        let (w, g) = (w.to_f64(), g.to_f64());
        let ok = (w.is_nan() && g.is_nan()) || w == g || (w - g).abs() <= tol * (1.0 + w.abs());
        prop_assert!(ok, "element {k}: reference {w}, kernel {g}\nnest {nest:?}");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]
    #[test]
    fn kernel_matches_reference(c in case()) {
        check_case(&c)?;
    }

    /// Contractions (`+` of `*`, two inputs, initialised output) built from loop roles
    /// (M, N, K, batch, one-sided), GEMM allowed at any size: exercises GEMM core detection,
    /// outer loops around core calls and the thread splits.
    #[test]
    fn contractions_match_reference(
        mut c in case(),
        roles in prop::collection::vec((0..7u8, 0..16u8, 0..16u8, 0..16u8), 1..=5),
        perms in (0..6usize, 0..6usize),
    ) {
        c.extents = roles.iter().enumerate().map(|(d, _)| [3, 5, 2, 4, 1][d % 5]).collect();
        let (mut a, mut b, mut o) = (vec![], vec![], vec![]);
        for (d, &(role, fa, fb, fo)) in roles.iter().enumerate() {
            // role: 0 M, 1 N, 2 K, 3 batch, 4 A only, 5 B only, 6 output only
            let (in_a, in_b, in_o) = [(1, 0, 1), (0, 1, 1), (1, 1, 0), (1, 1, 1), (1, 0, 0), (0, 1, 0), (0, 0, 1)][role as usize];
            let spec = |flags: u8| AxisSpec { pick: d, flags: flags & !FIXED };
            if in_a == 1 { a.push(spec(fa)); }
            if in_b == 1 { b.push(spec(fb)); }
            if in_o == 1 { o.push(spec(fo)); }
        }
        c.out = o;
        c.ins = vec![(a, perms.0), (b, perms.1)];
        c.accum = Accum::Add;
        c.combine = Combine::Mul;
        c.init = Init::Touched;
        c.gemm.0 = true;
        check_case(&c)?;
    }
}

/// A contraction `out[i,k] (+)= Σ_j a[i,j]·b[j,k]` with each operand possibly transposed
/// (`bits` 1, 2, 4 for a, b, out) and `a`'s rows reversed (`bits & 8`: negative strides).
pub(super) fn matmul(m: usize, k: usize, n: usize, bits: u8, opts: &RunOptions) {
    let lay = |r: usize, c: usize, t: bool| {
        if t {
            Layout::contiguous(&[c, r]).unwrap().transposed()
        } else {
            Layout::contiguous(&[r, c]).unwrap()
        }
    };
    let mut la = lay(m, k, bits & 1 != 0);
    if bits & 8 != 0 {
        la = la.slice(0, SliceSpec::full(-1)).unwrap();
    }
    let (lb, lo) = (lay(k, n, bits & 2 != 0), lay(m, n, bits & 4 != 0));
    let nest = Nest {
        extents: vec![m, k, n],
        output: Access::project(&lo, &[AxisIndex::Iter(0), AxisIndex::Iter(2)], 3).unwrap(),
        inputs: vec![
            Access::project(&la, &[AxisIndex::Iter(0), AxisIndex::Iter(1)], 3).unwrap(),
            Access::project(&lb, &[AxisIndex::Iter(1), AxisIndex::Iter(2)], 3).unwrap(),
        ],
        accum: Accum::Add,
        combine: Combine::Mul,
        init: Init::Touched,
    };
    let bufs = [values(1, m * k), values(2, k * n)];
    // Sums of these values are exact in f32 too: any order gives the same result.
    let r = check_typed::<f64>(&nest, &bufs, values(3, m * n), opts, 0.0)
        .and_then(|()| check_typed::<f32>(&nest, &bufs, values(3, m * n), opts, 0.0));
    if let Err(e) = r {
        panic!("{m}x{k}x{n} bits {bits} {opts:?}: {e}");
    }
}

#[test]
fn gemm_dispatch_with_transposed_operands() {
    for &(m, k, n) in &[(33, 17, 29), (64, 64, 64), (1, 40, 7), (9, 100, 1), (8, 8, 8), (3, 0, 4)] {
        let all: Vec<u8> = if m * k * n > 100_000 { vec![0, 7, 8, 15] } else { (0..16).collect() };
        for bits in all {
            for (threads, min_work) in [(1, 0), (2, 0), (3, usize::MAX), (1, usize::MAX)] {
                let opts = RunOptions {
                    threads,
                    gemm: true,
                    min_parallel_points: 1,
                    gemm_min_work: min_work,
                };
                matmul(m, k, n, bits, &opts);
            }
        }
    }
}

/// Runs `nest` both ways (strided executor or tiles, fresh or in place) against the reference.
fn check_large(nest: &Nest, ins: &[&[f64]], out_len: usize) {
    for threads in [1, 2] {
        let opts = RunOptions { threads, gemm: true, min_parallel_points: 1, gemm_min_work: 4096 };
        let mut want = values(9, out_len);
        let mut got = want.clone();
        run_reference(nest, ins, &mut want).unwrap();
        nest.run_with(ins, &mut got, &opts).unwrap();
        assert!(
            want.iter().zip(&got).all(|(w, g)| (w - g).abs() <= 1e-9 * (1.0 + w.abs())),
            "{nest:?}"
        );
        let fill = nest.accum.neutral().unwrap_or(0.0);
        let mut want = vec![fill; out_len];
        run_reference(nest, ins, &mut want).unwrap();
        let got = nest.run_fresh(ins, out_len, &opts).unwrap();
        assert!(
            want.iter().zip(&got).all(|(w, g)| (w - g).abs() <= 1e-9 * (1.0 + w.abs())),
            "{nest:?}"
        );
    }
}

#[test]
fn tiles_and_long_runs() {
    let (m, n) = (70, 45);
    let (a, b) = (values(1, m * n), values(2, m * n));
    // Transposed copy and transposed Hadamard (tiled: the input is contiguous along the
    // outer loop), a column sum and a long full reduction.
    for (accum, combine, inputs) in [
        (Accum::Store, Combine::First, vec![Access::new(0, vec![1, m as isize])]),
        (
            Accum::Add,
            Combine::Mul,
            vec![Access::new(0, vec![1, m as isize]), Access::new(0, vec![n as isize, 1])],
        ),
    ] {
        let nest = Nest {
            extents: vec![m, n],
            output: Access::new(0, vec![n as isize, 1]),
            inputs,
            accum,
            combine,
            init: Init::Touched,
        };
        let bufs: Vec<&[f64]> =
            nest.inputs.iter().zip([&a, &b]).map(|(_, v)| v.as_slice()).collect();
        check_large(&nest, &bufs, m * n);
    }
    let colsum = Nest {
        extents: vec![m, n],
        output: Access::new(0, vec![0, 1]),
        inputs: vec![Access::new(0, vec![n as isize, 1])],
        accum: Accum::Add,
        combine: Combine::First,
        init: Init::Whole,
    };
    check_large(&colsum, &[&a], n);
    let long = values(4, 20_000);
    let total = Nest {
        extents: vec![20_000],
        output: Access::new(0, vec![0]),
        inputs: vec![Access::new(0, vec![1]), Access::new(0, vec![1])],
        accum: Accum::Add,
        combine: Combine::Mul,
        init: Init::No,
    };
    check_large(&total, &[&long, &long], 1);
}

#[test]
fn guarded_convolution() {
    // out[o] = Σ_k x[o + k - 1]·w[k], x of length 5 padded with zeros, kernel 3.
    let (x, w) = ([1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 10.0, 100.0]);
    let xl = Layout::contiguous(&[5]).unwrap();
    let idx = AxisIndex::Affine { terms: vec![(1, 0), (1, 1)], offset: -1, padded: true };
    let nest = Nest {
        extents: vec![5, 3],
        output: Access::new(0, vec![1, 0]),
        inputs: vec![Access::project(&xl, &[idx], 2).unwrap(), Access::new(0, vec![0, 1])],
        accum: Accum::Add,
        combine: Combine::Mul,
        init: Init::Touched,
    };
    let mut out = vec![7.0; 5];
    nest.run(&[&x, &w], &mut out).unwrap();
    assert_eq!(out, vec![210.0, 321.0, 432.0, 543.0, 54.0]);
    let mut reference = vec![7.0; 5];
    run_reference(&nest, &[&x, &w], &mut reference).unwrap();
    assert_eq!(out, reference);
}

#[test]
fn bad_nests_are_errors() {
    let good = Nest {
        extents: vec![3],
        output: Access::new(0, vec![1]),
        inputs: vec![Access::new(0, vec![1])],
        accum: Accum::Store,
        combine: Combine::First,
        init: Init::No,
    };
    let x = [1.0, 2.0, 3.0];
    let mut out = [0.0; 3];
    assert!(good.run(&[&x], &mut out).is_ok());
    assert!(matches!(good.run(&[&x[..2]], &mut out), Err(KernelError::OutOfBounds { .. })));
    assert!(matches!(good.run::<f64>(&[], &mut out), Err(KernelError::Arity { .. })));
    let bad_rank = Nest { output: Access::new(0, vec![1, 0]), ..good.clone() };
    assert!(matches!(bad_rank.run(&[&x], &mut out), Err(KernelError::Rank { .. })));
    let huge = Nest {
        extents: vec![1 << 40, 1 << 40],
        output: Access::new(0, vec![0, 0]),
        inputs: vec![Access::new(0, vec![0, 0])],
        ..good
    };
    assert!(huge.run(&[&x], &mut out).is_err());
}

/// A long float32 sum is pairwise-accurate on every path that reduces a run into one
/// element: a contiguous run, a strided run gathered in blocks, a broadcast value, a product
/// of three inputs, a dot product. 10^7 values of 0.1 sum to 1000000.01 (a sequential
/// float32 sum gives 1087937, sixteen sequential partial sums 997297.56; numpy's pairwise sum
/// 999988.56).
#[test]
fn long_float32_sums_are_pairwise_accurate() {
    let n = 10_000_000usize;
    let exact = 0.1f32 as f64 * n as f64;
    let ones = vec![1.0f32; 2 * n];
    let tenths = vec![0.1f32; 2 * n];
    let one = |stride: isize| Access::new(0, vec![stride]);
    let sum = |inputs: Vec<Access>, bufs: &[&[f32]]| {
        let nest = Nest {
            extents: vec![n],
            output: one(0),
            inputs,
            accum: Accum::Add,
            combine: Combine::Mul,
            init: Init::Whole,
        };
        let mut out = [7.0f32];
        let opts = RunOptions { threads: 1, ..RunOptions::default() };
        nest.run_with(bufs, &mut out, &opts).expect("runs");
        out[0] as f64
    };
    let cases = [
        ("contiguous", sum(vec![one(1)], &[&tenths])),
        ("strided", sum(vec![one(2)], &[&tenths])),
        ("broadcast", sum(vec![one(0)], &[&tenths])),
        ("dot", sum(vec![one(1), one(2)], &[&tenths, &ones])),
        ("three inputs", sum(vec![one(1), one(0), one(2)], &[&tenths, &ones, &ones])),
    ];
    for (what, got) in cases {
        assert!((got - exact).abs() / exact < 1e-6, "{what}: {got} for {exact}");
    }
}
