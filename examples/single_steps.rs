//! Scale benchmark of explicit paths of many single-operand steps (numpy allows them:
//! `optimize=['einsum_path', (0,), (0,), …, (0, 1)]`): `ij,j->i` on a `side`×`side` matrix
//! and a vector, along `n` steps `[0]` then `[0, 1]`. Each `[0]` step takes the first tensor
//! of the list alone and sums nothing, so numpy takes a view; the benchmark reports the time
//! of the whole einsum through [`einsum_optimized`] and through [`EinsumPlan::run`] (the
//! strided path of bindings), and the time per step.
//!
//! ```text
//! cargo run --release --example single_steps -- 2000 1000
//! ```
//!
//! Arguments: the number of single-operand steps (default 2000) and the matrix side (default
//! 1000, a matrix of 10^6 elements).

use std::time::Instant;

use einrow::kernel::RunOptions;
use einrow::numpy::{einsum_optimized, EinsumPlan, Optimize, PathOptions, StridedMut, StridedRef};
use einrow::tensor::Tensor;

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>());
    let steps = args.next().and_then(Result::ok).unwrap_or(2000);
    let side = args.next().and_then(Result::ok).unwrap_or(1000);
    let mut path: Vec<Vec<usize>> = vec![vec![0]; steps];
    path.push(vec![0, 1]);
    let options = PathOptions::new(Optimize::Explicit(path));
    let m: Vec<f64> = (0..side * side).map(|i| (i % 7) as f64).collect();
    let v: Vec<f64> = (0..side).map(|i| (i % 3) as f64).collect();
    let expected: Vec<f64> =
        (0..side).map(|i| (0..side).map(|j| m[i * side + j] * v[j]).sum()).collect();

    let a = Tensor::from_vec(&[side, side], m.clone()).expect("a matrix");
    let b = Tensor::from_vec(&[side], v.clone()).expect("a vector");
    let start = Instant::now();
    let r = einsum_optimized("ij,j->i", &[&a, &b], &options).expect("runs");
    report("einsum_optimized", steps, start.elapsed().as_secs_f64());
    assert_eq!(r.to_f64_vec(), expected);

    let shapes: [&[usize]; 2] = [&[side, side], &[side]];
    let plan = EinsumPlan::new("ij,j->i", &shapes, Some(&options)).expect("plans");
    let inputs = [
        StridedRef::contiguous(&m, &[side, side]).expect("fits"),
        StridedRef::contiguous(&v, &[side]).expect("fits"),
    ];
    let mut out = vec![0.0f64; side];
    let mut view = StridedMut::contiguous(&mut out, &[side]).expect("fits");
    let start = Instant::now();
    plan.run(&inputs, &mut view, &RunOptions::default()).expect("runs");
    report("EinsumPlan::run", steps, start.elapsed().as_secs_f64());
    assert_eq!(out, expected);
}

fn report(what: &str, steps: usize, seconds: f64) {
    let per_step = seconds * 1e6 / steps.max(1) as f64;
    println!("{what:<17} {steps:>6} steps {:>10.1} ms {per_step:>10.2} us/step", seconds * 1e3);
}
