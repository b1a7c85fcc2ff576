//! Decoding Vespa tensor JSON keeps no tree of the document: the most memory it holds at once
//! stays near the tensor's own cells, measured with a global allocator that tracks the live
//! bytes this thread has allocated.

#![cfg(feature = "kernel")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use einrow::formats::vespa::decode_json;

struct Tracking;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn add(bytes: isize) {
    let _ = LIVE.try_with(|live| {
        live.set(live.get() + bytes);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(live.get())));
    });
}

unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        add(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        add(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        add(new_size as isize - layout.size() as isize);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Tracking = Tracking;

/// The most bytes `f` holds at once beyond what was live when it started.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let out = f();
    (out, (PEAK.with(Cell::get) - base).max(0) as usize)
}

const N: usize = 200_000;

/// A tree of the document took about 40 bytes a value, five times the cells.
#[test]
fn dense_values_take_about_their_cells() {
    let values: Vec<String> = (0..N).map(|i| (i % 10).to_string()).collect();
    let text = format!("{{\"type\":\"tensor(x[{N}])\",\"values\":[[{}]]}}", values.join(","));
    let (tensor, peak) = peak_of(|| decode_json(&text, None).expect("decodes"));
    assert_eq!(tensor.cells().count(), N);
    let cells = N * std::mem::size_of::<f64>();
    assert!(peak <= cells + 64 * 1024, "peak {peak} bytes for {cells} bytes of cells");
}

/// Blocks of a mixed tensor: each block's values are read where they lie.
#[test]
fn dense_blocks_take_about_their_cells() {
    let block: Vec<String> = (0..N / 2).map(|i| (i % 10).to_string()).collect();
    let block = block.join(",");
    let text = format!(
        "{{\"type\":\"tensor(k{{}},x[{}])\",\"blocks\":{{\"a\":[{block}],\"b\":[{block}]}}}}",
        N / 2
    );
    let (tensor, peak) = peak_of(|| decode_json(&text, None).expect("decodes"));
    assert_eq!(tensor.cells().count(), N);
    // The cells, and one block's values before they are copied in.
    let cells = N * std::mem::size_of::<f64>() * 3 / 2;
    assert!(peak <= cells + 64 * 1024, "peak {peak} bytes for {cells} bytes of cells");
}

/// A sparse tensor: each subspace keeps its labels once (with their lookup and its cell),
/// about 160 bytes counted here, where it took 230 when the lookup held a second copy of the
/// labels and a set entry marked each cell.
#[test]
fn sparse_cells_take_their_labels_once() {
    let cells: Vec<String> = (0..N).map(|i| format!("\"l{i}\":{}", i % 10)).collect();
    let text = format!("{{\"type\":\"tensor(k{{}})\",\"cells\":{{{}}}}}", cells.join(","));
    let (tensor, peak) = peak_of(|| decode_json(&text, None).expect("decodes"));
    assert_eq!(tensor.cells().count(), N);
    let per_subspace = peak / N;
    assert!(per_subspace <= 190, "{per_subspace} bytes a subspace");
}
