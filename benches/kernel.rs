//! Criterion benchmarks of einsum on the kernel: the cases of `benches/cases.rs` (GEMM-shaped
//! contractions, a 5-operand chain, memory-bound sums, transposes, Hadamard, trace), on the
//! calling thread only so numbers are comparable across machines and runs. For ratios
//! against numpy run `python3 benches/compare_numpy.py`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use einrow::kernel::RunOptions;
use einrow::numpy::einsum_with;

#[path = "cases.rs"]
mod cases;

fn kernel(c: &mut Criterion) {
    let opts = RunOptions { threads: 1, ..RunOptions::default() };
    let mut g = c.benchmark_group("einsum");
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

criterion_group!(benches, kernel);
criterion_main!(benches);
