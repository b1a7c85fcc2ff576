//! Scale benchmark of shape inference: builds a generated transformer-like graph of N
//! operations, solves it, and reports the time and the peak memory of the process.
//!
//! ```text
//! cargo run --profile bench --example infer_scale -- 10000 100000 1000000
//! ```
//!
//! The bench profile (fat LTO, one codegen unit) is how the README's figures are measured: in
//! the release profile an unrelated edit can move hot functions between codegen units and
//! change their inlining, which shifts the figures by a few percent.
//!
//! With several sizes, each size runs in a child process of its own (re-executing this binary),
//! so that every peak-memory figure (`VmHWM` from `/proc/self/status`) belongs to one size.

#[path = "../benches/support/transformer.rs"]
mod transformer;

use std::process::Command;
use std::time::Instant;

fn main() {
    let sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![10_000, 100_000, 1_000_000] } else { sizes };
    if let [n] = sizes[..] {
        run_one(n);
        return;
    }
    println!(
        "{:>9} {:>10} {:>10} {:>10} {:>9} {:>10}",
        "ops", "build ms", "solve ms", "total ms", "µs/op", "peak MiB"
    );
    let exe = std::env::current_exe().expect("the benchmark knows its own path");
    let mut totals = Vec::new();
    for n in sizes {
        let out = Command::new(&exe).arg(n.to_string()).output().expect("child runs");
        let text = String::from_utf8_lossy(&out.stdout);
        print!("{text}");
        if !out.status.success() {
            eprintln!("{}", String::from_utf8_lossy(&out.stderr));
            std::process::exit(1);
        }
        let total = text.split_whitespace().nth(3).and_then(|t| t.parse::<f64>().ok());
        totals.push((n, total.unwrap_or(f64::NAN)));
    }
    for w in totals.windows(2) {
        let ((n0, t0), (n1, t1)) = (w[0], w[1]);
        println!("time({n1})/time({n0}) = {:.2}", t1 / t0);
    }
}

/// Builds and solves one graph; prints one table row.
fn run_one(n: usize) {
    let start = Instant::now();
    let (mut g, ops, logits) =
        transformer::build(n, transformer::Sizes::default()).expect("the graph builds");
    let built = start.elapsed();
    g.solve().expect("the graph solves");
    let total = start.elapsed();
    let shape = g.shape_string(logits).expect("the logits are sized");
    assert_eq!(shape, "16|1000", "unexpected logits shape");
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    println!(
        "{ops:>9} {:>10.1} {:>10.1} {:>10.1} {:>9.3} {:>10.1}",
        ms(built),
        ms(total - built),
        ms(total),
        total.as_secs_f64() * 1e6 / ops as f64,
        peak_mib()
    );
}

/// The peak resident set of this process (`VmHWM`), in MiB.
fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}
