//! Explicit paths may hold single-operand steps (numpy allows them:
//! `optimize=['einsum_path', (0,), (0, 1)]`). A step of one operand that sums nothing only
//! permutes axes or takes a diagonal: it is a view, so a path of many of them copies nothing.
//! Counted with a global allocator that counts the bytes this thread allocates, never timed;
//! `examples/single_steps.rs` measures the speed.

#![cfg(feature = "kernel")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use einrow::kernel::RunOptions;
use einrow::numpy::{
    einsum, einsum_optimized_with, EinsumPlan, Optimize, PathOptions, StridedMut, StridedRef,
};
use einrow::tensor::Tensor;

struct Counting;

thread_local! {
    static BYTES: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = BYTES.try_with(|c| c.set(c.get() + layout.size()));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = BYTES.try_with(|c| c.set(c.get() + new_size));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The bytes `f` allocates on this thread, and its result.
fn allocated<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let before = BYTES.with(|c| c.get());
    let r = f();
    (BYTES.with(|c| c.get()) - before, r)
}

/// One thread: every allocation of a run is counted.
fn one_thread() -> RunOptions {
    RunOptions { threads: 1, ..RunOptions::default() }
}

/// `n` single-operand steps over the first operand, then one contraction of the two left:
/// the matrix is taken at position 0 and then, being appended last, at position 1.
fn matrix_steps(n: usize) -> Vec<Vec<usize>> {
    let mut path = vec![vec![0]];
    path.extend(std::iter::repeat_n(vec![1], n - 1));
    path.push(vec![0, 1]);
    path
}

const SIDE: usize = 200;
/// The bytes of the 200x200 f64 matrix.
const MATRIX_BYTES: usize = SIDE * SIDE * 8;
/// Single-operand steps in each path.
const STEPS: usize = 500;
/// What a step may allocate besides a result: its entry in the planned path and the list of
/// tensors (a few hundred bytes here), far below a copy of the matrix.
const PER_STEP: usize = 4096;

fn operands() -> (Vec<f64>, Vec<f64>) {
    let m = (0..SIDE * SIDE).map(|i| (i % 11) as f64 - 5.0).collect();
    let v = (0..SIDE).map(|i| (i % 3) as f64).collect();
    (m, v)
}

/// 500 steps that each take a 200x200 matrix alone and keep its two labels (a transpose in
/// `ji,j->i`, the identity after) copied it each time: 160 MB allocated for a 320 KB operand.
/// They are views now: the path allocates its bookkeeping and the result.
#[test]
fn single_operand_steps_that_sum_nothing_copy_nothing() {
    let (m, v) = operands();
    let a = Tensor::from_vec(&[SIDE, SIDE], m.clone()).expect("a matrix");
    let b = Tensor::from_vec(&[SIDE], v.clone()).expect("a vector");
    for spec in ["ij,j->i", "ji,j->i"] {
        let want = einsum(spec, &[&a, &b]).expect("runs").to_f64_vec();
        let path = PathOptions::new(Optimize::Explicit(matrix_steps(STEPS)));
        let (bytes, got) =
            allocated(|| einsum_optimized_with(spec, &[&a, &b], &path, &one_thread()));
        assert_eq!(got.expect("runs").to_f64_vec(), want, "{spec}");
        assert!(bytes < STEPS * PER_STEP, "{spec}: {bytes} bytes allocated along the path");

        // The strided path of bindings: planned once, run on the caller's arrays.
        let shapes: [&[usize]; 2] = [&[SIDE, SIDE], &[SIDE]];
        let plan = EinsumPlan::new(spec, &shapes, Some(&path)).expect("plans");
        let inputs = [
            StridedRef::contiguous(&m, &[SIDE, SIDE]).expect("fits"),
            StridedRef::contiguous(&v, &[SIDE]).expect("fits"),
        ];
        let mut out = vec![0.0f64; SIDE];
        let mut view = StridedMut::contiguous(&mut out, &[SIDE]).expect("fits");
        let (bytes, r) = allocated(|| plan.run(&inputs, &mut view, &one_thread()));
        r.expect("runs");
        assert_eq!(out, want, "{spec} planned");
        assert!(bytes < STEPS * PER_STEP, "{spec}: {bytes} bytes allocated by the plan's run");
    }
}

/// A single-operand step that sums reads its operand where it is, and the steps after it
/// that sum nothing are views of its result: `ijk->ij` along `[[0], [0], …]` over a
/// 200x200x2 operand allocates one 200x200 result (a copy per step was 160 MB).
#[test]
fn a_single_operand_step_that_sums_allocates_only_its_result() {
    let data: Vec<f64> = (0..SIDE * SIDE * 2).map(|i| (i % 5) as f64).collect();
    let a = Tensor::from_vec(&[SIDE, SIDE, 2], data.clone()).expect("an operand");
    let want = einsum("ijk->ij", &[&a]).expect("runs").to_f64_vec();
    let path = PathOptions::new(Optimize::Explicit(vec![vec![0]; STEPS]));
    let (bytes, got) = allocated(|| einsum_optimized_with("ijk->ij", &[&a], &path, &one_thread()));
    assert_eq!(got.expect("runs").to_f64_vec(), want);
    assert!(bytes < MATRIX_BYTES + STEPS * PER_STEP, "{bytes} bytes allocated");

    let plan = EinsumPlan::new("ijk->ij", &[&[SIDE, SIDE, 2]], Some(&path)).expect("plans");
    let input = [StridedRef::contiguous(&data, &[SIDE, SIDE, 2]).expect("fits")];
    let mut out = vec![0.0f64; SIDE * SIDE];
    let mut view = StridedMut::contiguous(&mut out, &[SIDE, SIDE]).expect("fits");
    let (bytes, r) = allocated(|| plan.run(&input, &mut view, &one_thread()));
    r.expect("runs");
    assert_eq!(out, want);
    assert!(bytes < MATRIX_BYTES + STEPS * PER_STEP, "{bytes} bytes allocated by the plan's run");
}
