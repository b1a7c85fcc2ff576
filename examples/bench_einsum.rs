//! Times einrow's einsum on the benchmark cases of `benches/cases.rs` and prints one JSON
//! object per case (`{"case", "best_s", "median_s", "runs"}`); `benches/compare_numpy.py`
//! drives it and times numpy on the same cases in the same run.
//!
//! Usage: `bench_einsum [--threads N] [--min-time SECONDS] [--case NAME]... [--list]`,
//! plus `--gemm-micro N` to time an `N×N` f32 matrix product straight through the kernel
//! (the machine's reachable FLOP/s).

use std::time::Duration;

use einrow::kernel::RunOptions;
use einrow::numpy::{einsum_with, time_runs, Timing};

#[path = "../benches/cases.rs"]
mod cases;

struct Args {
    threads: usize,
    min_time: f64,
    names: Vec<String>,
    list: bool,
    gemm_micro: Option<usize>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args { threads: 1, min_time: 0.5, names: vec![], list: false, gemm_micro: None };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |what: &str| it.next().ok_or_else(|| format!("{what} needs a value"));
        match arg.as_str() {
            "--threads" => {
                a.threads = value("--threads")?.parse().map_err(|e| format!("--threads: {e}"))?
            }
            "--min-time" => {
                a.min_time = value("--min-time")?.parse().map_err(|e| format!("--min-time: {e}"))?
            }
            "--case" => a.names.push(value("--case")?),
            "--gemm-micro" => {
                a.gemm_micro = Some(value("--gemm-micro")?.parse().map_err(|e| format!("{e}"))?)
            }
            "--list" => a.list = true,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(a)
}

fn print(name: &str, t: &Timing, extra: &str) {
    println!(
        "{{\"case\": \"{name}\", \"best_s\": {:e}, \"median_s\": {:e}, \"runs\": {}{extra}}}",
        t.best.as_secs_f64(),
        t.median.as_secs_f64(),
        t.runs
    );
}

/// `C = A·B` for n×n f32 matrices as one kernel nest (dispatched to GEMM).
fn gemm_micro(n: usize, opts: &RunOptions, min_time: Duration) -> Result<(), String> {
    let (nest, a, b, mut c) = cases::gemm_micro(n);
    let t = time_runs(3, 10_000, min_time, || nest.run_with(&[&a, &b], &mut c, opts))
        .map_err(|e| e.to_string())?;
    let gflops = 2.0 * (n as f64).powi(3) / t.best.as_secs_f64() / 1e9;
    print(&format!("gemm_micro{n}_f32"), &t, &format!(", \"gflops\": {gflops:.2}"));
    Ok(())
}

fn main() -> Result<(), String> {
    let args = parse_args()?;
    // The global pool gets the same number of threads: copies made through
    // `Tensor::contiguous` (default options) then use them too.
    rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.max(1))
        .build_global()
        .map_err(|e| format!("thread pool: {e}"))?;
    let opts = RunOptions { threads: args.threads, ..RunOptions::default() };
    let min_time = Duration::from_secs_f64(args.min_time);
    if let Some(n) = args.gemm_micro {
        return gemm_micro(n, &opts, min_time);
    }
    for case in cases::cases() {
        if args.list {
            println!(
                "{} {} {:?} {} copy={} gemm={}",
                case.name,
                case.spec,
                case.shapes,
                case.dtype.name(),
                case.copy,
                case.gemm
            );
            continue;
        }
        if !args.names.is_empty() && !args.names.iter().any(|n| n == case.name) {
            continue;
        }
        let ops = cases::operands(&case);
        let refs: Vec<_> = ops.iter().collect();
        let t = time_runs(3, 100_000, min_time, || {
            let r = einsum_with(case.spec, &refs, &opts)?;
            std::hint::black_box(if case.copy { r.contiguous() } else { r });
            Ok::<(), einrow::numpy::EinsumError>(())
        })
        .map_err(|e| format!("{}: {e}", case.name))?;
        print(case.name, &t, "");
    }
    Ok(())
}
