//! Once compiled, running a plan allocates nothing: counted with a global allocator that
//! counts allocations made by this thread.

#![cfg(feature = "kernel")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use einrow::project::{plan_einsum, Concrete, Executable, View, ViewMut};

struct Counting;

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The allocations `f` makes on this thread.
fn allocations(mut f: impl FnMut()) -> usize {
    let before = ALLOCS.with(|c| c.get());
    f();
    ALLOCS.with(|c| c.get()) - before
}

fn matmul(n: u64) -> Executable {
    let m = Concrete::output(&[n, n]);
    Executable::compile(&plan_einsum("ij;jk=>ik", &[&m, &m]).expect("plans")).expect("compiles")
}

#[test]
fn contiguous_f32_and_f64_runs_allocate_nothing() {
    let exe = matmul(8);
    let (a, b) = (vec![1.5f32; 64], vec![0.5f32; 64]);
    let mut c = vec![0.0f32; 64];
    exe.run(&[&a, &b], &mut c).expect("runs");
    let n = allocations(|| {
        for _ in 0..100 {
            exe.run(&[&a, &b], &mut c).expect("runs");
        }
    });
    assert_eq!(n, 0, "allocations in 100 f32 runs");
    assert!(c.iter().all(|&v| v == 6.0));
    let (a, b) = (vec![2.0f64; 64], vec![0.25f64; 64]);
    let mut c = vec![0.0f64; 64];
    exe.run(&[&a, &b], &mut c).expect("runs");
    let n = allocations(|| exe.run(&[&a, &b], &mut c).expect("runs"));
    assert_eq!(n, 0, "allocations in an f64 run");
    assert!(c.iter().all(|&v| v == 4.0));
}

#[test]
fn strided_and_converted_runs_allocate_nothing_once_warm() {
    let exe = matmul(4);
    let data: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let mut out = vec![0.0f32; 40];
    // Blocks of larger matrices (row pitches 8 and 16, from offsets), written into a block of
    // another: strided views whose rows are contiguous.
    let run = |out: &mut [f32]| {
        let a = View::strided(&data, &[4, 4], &[8, 1], 2).expect("view");
        let b = View::strided(&data, &[4, 4], &[16, 1], 3).expect("view");
        let mut c = ViewMut::strided(out, &[4, 4], &[10, 1], 1).expect("view");
        exe.run_views(&[a, b], &mut c).expect("runs");
    };
    run(&mut out);
    assert_eq!(allocations(|| run(&mut out)), 0, "allocations in a strided f32 run");

    let a: Vec<half::bf16> = (0..16).map(|i| half::bf16::from_f32(i as f32)).collect();
    let mut c = vec![half::bf16::ZERO; 16];
    exe.run(&[&a, &a], &mut c).expect("runs");
    assert_eq!(allocations(|| exe.run(&[&a, &a], &mut c).expect("runs")), 0, "bf16 run");
    let a: Vec<i8> = (0..16).map(|i| i as i8 - 8).collect();
    let mut c = vec![0i8; 16];
    exe.run(&[&a, &a], &mut c).expect("runs");
    assert_eq!(allocations(|| exe.run(&[&a, &a], &mut c).expect("runs")), 0, "int8 run");
    let views = |c: &mut [i8]| {
        let v = View::strided(&a, &[4, 4], &[1, 4], 0).expect("view");
        let mut o = ViewMut::contiguous(c, &[4, 4]).expect("view");
        exe.run_views(&[v.clone(), v], &mut o).expect("runs");
    };
    views(&mut c);
    assert_eq!(allocations(|| views(&mut c)), 0, "int8 run on transposed views");
}
