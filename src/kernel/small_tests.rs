//! The AVX2 kernels of small products (`small_avx.rs`) against the generic evaluator: the
//! same values within f32 rounding (the kernels fuse each multiply-add), and the shapes they
//! do not take left to the generic loops.

use super::{run_reference, Access, Accum, Combine, Init, Nest, RunOptions};

/// Values in [-1, 1] from a seed.
fn noise(n: usize, seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % 2001) as f32 / 1000.0 - 1.0
        })
        .collect()
}

/// A `+=` of products over loops `extents`: (offset, strides) of the output and two inputs.
fn product(extents: &[usize], out: &[isize], x: &[isize], y: &[isize], init: Init) -> Nest {
    Nest {
        extents: extents.to_vec(),
        output: Access::new(0, out.to_vec()),
        inputs: vec![Access::new(0, x.to_vec()), Access::new(0, y.to_vec())],
        accum: Accum::Add,
        combine: Combine::Mul,
        init,
    }
}

/// Products of rows of `n` points, `rows` rows, `m` runs (loops: rows, runs, points), and
/// whether the kernels take them wherever the processor has AVX2 and FMA (the left operand
/// transposed may have its loops reordered by the simplifier, away from the panel form).
fn shapes(rows: usize, m: usize, n: usize) -> Vec<(Nest, [usize; 3], bool)> {
    let (r, m_, n_) = (rows as isize, m as isize, n as isize);
    let lens = |x: usize, y: usize| [rows * n, x, y];
    let mut all = Vec::new();
    for init in [Init::No, Init::Whole] {
        let ext = [rows, m, n];
        all.extend([
            // ij,jk->ik; ji,jk->ik (the left operand transposed); jk,ij->ik (swapped).
            (
                product(&ext, &[n_, 0, 1], &[m_, 1, 0], &[0, n_, 1], init),
                lens(rows * m, m * n),
                true,
            ),
            (
                product(&ext, &[n_, 0, 1], &[1, r, 0], &[0, n_, 1], init),
                lens(rows * m, m * n),
                false,
            ),
            (
                product(&ext, &[n_, 0, 1], &[0, n_, 1], &[m_, 1, 0], init),
                lens(m * n, rows * m),
                true,
            ),
            // ij,ijk->ik: every row its own runs.
            (
                product(&ext, &[n_, 0, 1], &[m_, 1, 0], &[m_ * n_, n_, 1], init),
                lens(rows * m, rows * m * n),
                true,
            ),
        ]);
    }
    all
}

/// Runs `nest` prepared, in f32, and the reference; the largest difference and whether the
/// AVX2 kernels took it.
fn compare(nest: &Nest, lens: [usize; 3], seed: u64) -> (f32, bool) {
    let (x, y) = (noise(lens[1], seed), noise(lens[2], seed + 1));
    let start = noise(lens[0], seed + 2);
    let mut want = start.clone();
    run_reference(nest, &[&x, &y], &mut want).expect("reference runs");
    let prepared = nest.prepare(&lens[1..], lens[0]).expect("prepares");
    let mut got = start;
    let opts = RunOptions { threads: 1, ..RunOptions::default() };
    prepared.run(&[&x, &y], &mut got, &opts).expect("runs");
    let diff = got.iter().zip(&want).map(|(g, w)| (g - w).abs()).fold(0.0f32, f32::max);
    (diff, prepared.takes_small())
}

fn avx2_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Rows of 4, 8 and 16 points, 4, 8 and 12 rows, accumulating and not: the reference's
/// values within f32 rounding (each element sums `m` + 1 terms of at most 1).
#[test]
fn small_products_match_the_generic_path() {
    for (n, rows, m) in [(4, 4, 4), (8, 8, 8), (16, 16, 16), (4, 8, 3), (8, 12, 5), (16, 4, 9)] {
        for (k, (nest, lens, taken)) in shapes(rows, m, n).into_iter().enumerate() {
            let (diff, small) = compare(&nest, lens, k as u64 + 1);
            let tol = 4.0 * f32::EPSILON * (m + 1) as f32;
            assert!(diff <= tol, "{n}x{rows}x{m} {nest:?}: off by {diff}");
            assert!(small == avx2_fma() || !taken, "{n}x{rows}x{m} {nest:?}");
        }
    }
}

/// Sizes 0 and 1, rows of other lengths, row counts the blocks do not divide, other
/// operations: the generic loops, with the reference's values.
#[test]
fn other_shapes_take_the_generic_path() {
    let (m, n) = (4, 4);
    let ext = |rows| [rows, m, n];
    let cases = [
        (product(&[1, 1, 1], &[1, 0, 1], &[1, 1, 0], &[0, 1, 1], Init::No), [1, 1, 1]),
        (product(&[0, 4, 4], &[4, 0, 1], &[4, 1, 0], &[0, 4, 1], Init::Whole), [4, 16, 16]),
        (product(&[4, 4, 5], &[5, 0, 1], &[4, 1, 0], &[0, 5, 1], Init::No), [20, 16, 20]),
        (product(&ext(6), &[4, 0, 1], &[4, 1, 0], &[0, 4, 1], Init::No), [24, 24, 16]),
    ];
    for (nest, lens) in cases {
        let (diff, small) = compare(&nest, lens, 7);
        assert_eq!((diff, small), (0.0, false), "{nest:?}");
    }
    let max = Nest {
        accum: Accum::Max,
        ..product(&ext(4), &[4, 0, 1], &[4, 1, 0], &[0, 4, 1], Init::Whole)
    };
    assert_eq!(compare(&max, [16, 16, 16], 3), (0.0, false));
}

/// f64 products of the shapes the kernels take run the generic loops: the reference's
/// values exactly.
#[test]
fn f64_products_keep_the_generic_path() {
    for (nest, lens, _) in shapes(8, 8, 8) {
        let x: Vec<f64> = noise(lens[1], 5).into_iter().map(f64::from).collect();
        let y: Vec<f64> = noise(lens[2], 6).into_iter().map(f64::from).collect();
        let mut want = vec![0.5; lens[0]];
        run_reference(&nest, &[&x, &y], &mut want).expect("reference runs");
        let mut got = vec![0.5; lens[0]];
        let opts = RunOptions { threads: 1, ..RunOptions::default() };
        let prepared = nest.prepare(&lens[1..], lens[0]).expect("prepares");
        prepared.run(&[&x, &y], &mut got, &opts).expect("runs");
        assert_eq!(got, want, "{nest:?}");
    }
}
