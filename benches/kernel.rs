//! Criterion benchmarks of einsum on the kernel: the cases of `benches/cases.rs` (GEMM-shaped
//! contractions, a 5-operand chain, memory-bound sums, transposes, Hadamard, trace, the small
//! per-call cases), on the calling thread only (`einsum/`) and on every thread of the machine
//! (`einsum-all-threads/`), plus the GEMM microbenchmark (an n×n f32 product straight through
//! the kernel). For ratios against numpy and torch run `python3 benches/compare_numpy.py`.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use einrow::kernel::RunOptions;
use einrow::numpy::einsum_with;

#[path = "cases.rs"]
mod cases;

fn einsum_cases(c: &mut Criterion, group: &str, opts: RunOptions) {
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    for case in cases::cases() {
        let ops = cases::operands(&case);
        let refs: Vec<_> = ops.iter().collect();
        let id =
            if case.gemm { format!("gemm-shaped/{}", case.name) } else { case.name.to_string() };
        g.bench_function(id, |b| {
            b.iter(|| {
                let r = einsum_with(black_box(case.spec), &refs, &opts).expect("einsum");
                if case.copy {
                    black_box(r.contiguous());
                } else {
                    black_box(r);
                }
            })
        });
    }
    g.finish();
}

fn kernel(c: &mut Criterion) {
    einsum_cases(c, "einsum", RunOptions { threads: 1, ..RunOptions::default() });
    einsum_cases(c, "einsum-all-threads", RunOptions::default());
}

/// `C = A·B` for n×n f32 matrices as one nest, at one thread and at all.
fn gemm_micro(c: &mut Criterion) {
    let n = 512;
    let (nest, a, b, mut out) = cases::gemm_micro(n);
    let mut g = c.benchmark_group("gemm-micro");
    g.sample_size(20);
    g.throughput(Throughput::Elements(2 * (n as u64).pow(3)));
    for (name, opts) in [
        ("f32-512/1-thread", RunOptions { threads: 1, ..RunOptions::default() }),
        ("f32-512/all-threads", RunOptions::default()),
    ] {
        g.bench_function(name, |bch| {
            bch.iter(|| nest.run_with(&[&a, &b], &mut out, &opts).expect("gemm"))
        });
    }
    g.finish();
}

criterion_group!(benches, kernel, gemm_micro);
criterion_main!(benches);
