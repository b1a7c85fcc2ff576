//! Tests of the thread splits and of fresh outputs: each way a GEMM-shaped nest shares its
//! threads (asserted through the choice itself, so the sizes keep hitting it), and fresh
//! outputs (in order, transposed, filled) at sizes around the parallel threshold.

use super::gemm::{choose, find_core, Split};
use super::parallel::disjoint_loop;
use super::simplify::Plan;
use super::tests::{check_typed, matmul, values};
use super::*;
use crate::tensor::{Layout, SliceSpec};

/// The split a nest's plan gets with `threads` threads and every size parallel.
fn split_of(nest: &Nest, threads: usize) -> Split {
    let plan = Plan::from_nest(nest);
    let core = find_core(&plan).expect("GEMM-shaped");
    let outer = disjoint_loop(&plan, |d| !core.has(d)).map(|d| plan.extents[d]);
    choose(&plan, core, threads, 16, outer)
}

fn opts(threads: usize, min_work: usize) -> RunOptions {
    RunOptions { threads, gemm: true, min_parallel_points: 1, gemm_min_work: min_work }
}

/// `out[b?, i, k] = Σ_{b?, j} a[b, i, j]·b[b, j, k]`: batched (`sum_batch` false) or summed
/// over the batch.
fn bmm(batch: usize, m: usize, k: usize, n: usize, sum_batch: bool) -> (Nest, usize) {
    let (m_, k_, n_) = (m as isize, k as isize, n as isize);
    let ob = if sum_batch { 0 } else { m_ * n_ };
    let nest = Nest {
        extents: vec![batch, m, k, n],
        output: Access::new(0, vec![ob, n_, 0, 1]),
        inputs: vec![
            Access::new(0, vec![m_ * k_, k_, 1, 0]),
            Access::new(0, vec![k_ * n_, 0, n_, 1]),
        ],
        accum: Accum::Add,
        combine: Combine::Mul,
        init: Init::Touched,
    };
    (nest, if sum_batch { m * n } else { batch * m * n })
}

fn check(nest: &Nest, lens: &[usize], out_len: usize, o: &RunOptions) {
    let bufs: Vec<Vec<f64>> =
        lens.iter().enumerate().map(|(k, &l)| values(k as u64 + 1, l)).collect();
    let r = check_typed::<f64>(nest, &bufs, values(9, out_len), o, 0.0)
        .and_then(|()| check_typed::<f32>(nest, &bufs, values(9, out_len), o, 0.0));
    if let Err(e) = r {
        panic!("{o:?}: {e}");
    }
}

#[test]
fn deep_narrow_products_split_the_sum() {
    // ijk,jkl->il shaped: a small output over a long summed loop.
    for threads in [2, 3, 4] {
        let probe = Nest {
            extents: vec![10, 300, 10],
            output: Access::new(0, vec![10, 0, 1]),
            inputs: vec![Access::new(0, vec![300, 1, 0]), Access::new(0, vec![0, 10, 1])],
            accum: Accum::Add,
            combine: Combine::Mul,
            init: Init::Touched,
        };
        assert_eq!(split_of(&probe, threads), Split::Sum(1), "{threads} threads");
        for min_work in [0, usize::MAX] {
            for bits in [0, 1, 2, 4, 8] {
                matmul(10, 300, 10, bits, &opts(threads, min_work));
            }
        }
    }
    // Just under the per-thread minimum of the summed loop: no sum split.
    let plan_k = 4 * 32 - 1;
    let probe = bmm(1, 10, plan_k, 10, false).0;
    assert_ne!(split_of(&probe, 4), Split::Sum(1));
    matmul(10, plan_k, 10, 0, &opts(4, 0));
}

#[test]
fn batches_split_across_outer_loops() {
    for (batch, threads) in [(4, 4), (5, 4), (8, 2), (3, 2)] {
        let (nest, out_len) = bmm(batch, 6, 5, 7, false);
        assert_eq!(split_of(&nest, threads), Split::Outer, "batch {batch}, {threads} threads");
        for min_work in [0, usize::MAX] {
            check(&nest, &[batch * 30, batch * 35], out_len, &opts(threads, min_work));
        }
    }
    // A batch summed away: the sum split runs along the batch loop.
    let (nest, out_len) = bmm(200, 3, 2, 4, true);
    assert_eq!(split_of(&nest, 4), Split::Sum(0));
    for min_work in [0, usize::MAX] {
        check(&nest, &[200 * 6, 200 * 8], out_len, &opts(4, min_work));
    }
}

#[test]
fn wide_products_split_inside_the_core() {
    let (nest, out_len) = bmm(1, 190, 3, 190, false);
    assert_eq!(split_of(&nest, 2), Split::Inner);
    check(&nest, &[190 * 3, 3 * 190], out_len, &opts(2, 0));
    // Serial below the size threshold.
    let plan = Plan::from_nest(&nest);
    let core = find_core(&plan).unwrap();
    assert_eq!(choose(&plan, core, 2, plan.points() + 1, None), Split::Serial);
}

/// A row-major `rows × cols` copy of the transpose of `x` (`x` stored `cols × rows`, its rows
/// reversed when `reverse`), and a Hadamard product with it, both as fresh outputs.
fn transposes(rows: usize, cols: usize, reverse: bool, o: &RunOptions) {
    let mut lx = Layout::contiguous(&[cols, rows]).unwrap();
    if reverse {
        lx = lx.slice(1, SliceSpec::full(-1)).unwrap();
    }
    let lx = lx.transposed();
    let xs = Access::project(&lx, &[AxisIndex::Iter(0), AxisIndex::Iter(1)], 2).unwrap();
    let out = Access::new(0, vec![cols as isize, 1]);
    let copy = Nest {
        extents: vec![rows, cols],
        output: out.clone(),
        inputs: vec![xs.clone()],
        accum: Accum::Store,
        combine: Combine::First,
        init: Init::No,
    };
    check(&copy, &[rows * cols], rows * cols, o);
    let hadamard = Nest {
        inputs: vec![xs, Access::new(0, vec![cols as isize, 1])],
        combine: Combine::Mul,
        ..copy
    };
    check(&hadamard, &[rows * cols, rows * cols], rows * cols, o);
}

#[test]
fn fresh_outputs_around_the_parallel_threshold() {
    for threads in [1, 2, 3] {
        let o = RunOptions { threads, gemm: true, min_parallel_points: 64, gemm_min_work: 4096 };
        for (rows, cols) in [(1, 1), (2, 31), (7, 9), (8, 8), (9, 7), (16, 4), (17, 65), (63, 3)] {
            for reverse in [false, true] {
                transposes(rows, cols, reverse, &o);
            }
            // A column sum (not in order: filled first) and a row-major Hadamard product.
            let colsum = Nest {
                extents: vec![rows, cols],
                output: Access::new(0, vec![0, 1]),
                inputs: vec![Access::new(0, vec![cols as isize, 1])],
                accum: Accum::Max,
                combine: Combine::First,
                init: Init::Touched,
            };
            check(&colsum, &[rows * cols], cols, &o);
            let had = Nest {
                extents: vec![rows * cols],
                output: Access::new(0, vec![1]),
                inputs: vec![Access::new(0, vec![1]), Access::new(0, vec![1])],
                accum: Accum::Add,
                combine: Combine::Sub,
                init: Init::Whole,
            };
            check(&had, &[rows * cols, rows * cols], rows * cols, &o);
        }
    }
}

/// Transposes through the tiled executor (both loops longer than a tile; tiles cut at the
/// edges), input rows forwards and reversed, and long transposed rows.
#[test]
fn tiled_transposes() {
    for (rows, cols) in [(33, 33), (40, 70), (65, 97)] {
        for reverse in [false, true] {
            for threads in [1, 2] {
                transposes(rows, cols, reverse, &opts(threads, 4096));
            }
        }
    }
    transposes(3, 70_000, false, &opts(1, 4096));
    transposes(20, 5000, true, &opts(2, 4096));
    // Outputs of 4.4 MB in f64: large enough for huge pages, so not filled before the tiles
    // write them.
    for (reverse, threads) in [(false, 1), (true, 2)] {
        transposes(730, 760, reverse, &opts(threads, 4096));
    }
}
