//! Scale benchmark of shape inference: builds a generated transformer-like graph of N
//! operations, solves it, and reports the time and the peak memory of the process.
//!
//! ```text
//! cargo run --profile bench --example infer_scale -- 10000 100000 1000000
//! ```
//!
//! The bench profile (fat LTO, one codegen unit) is how the figures of `benches/README.md` are
//! measured: in the release profile an unrelated edit can move hot functions between codegen
//! units and change their inlining, which shifts the figures by a few percent.
//!
//! With several sizes (or several rounds), each run is a child process of its own
//! (re-executing this binary), so that every peak-memory figure (`VmHWM` from
//! `/proc/self/status`) belongs to one size.
//!
//! `--repeat N` runs N rounds of all sizes, interleaved (every round runs each size once, so
//! that the machine's drift touches all sizes alike), and ends with each size's median and
//! best time and the ratios of the medians:
//!
//! ```text
//! cargo run --profile bench --example infer_scale -- --repeat 5 10000 100000 1000000
//! ```

#[path = "../benches/support/peak.rs"]
mod peak;
#[path = "../benches/support/transformer.rs"]
mod transformer;

use std::process::Command;
use std::time::Instant;

fn main() {
    let (sizes, repeat) = parse_args();
    let sizes = if sizes.is_empty() { vec![10_000, 100_000, 1_000_000] } else { sizes };
    if let ([n], 1) = (&sizes[..], repeat) {
        run_one(*n);
        return;
    }
    println!(
        "{:>9} {:>10} {:>10} {:>10} {:>9} {:>10}",
        "ops", "build ms", "solve ms", "total ms", "µs/op", "peak MiB"
    );
    let exe = std::env::current_exe().expect("the benchmark knows its own path");
    let mut totals: Vec<Vec<f64>> = vec![Vec::new(); sizes.len()];
    let mut ops = vec![0; sizes.len()];
    for _ in 0..repeat {
        for (i, n) in sizes.iter().enumerate() {
            let (count, ms) = run_child(&exe, *n);
            ops[i] = count;
            totals[i].push(ms);
        }
    }
    let medians: Vec<f64> = totals.iter_mut().map(|t| median(t)).collect();
    if repeat > 1 {
        for ((n, m), t) in ops.iter().zip(&medians).zip(&totals) {
            let per_op = |ms: f64| ms * 1e3 / *n as f64;
            let best = t.iter().copied().fold(f64::INFINITY, f64::min);
            println!(
                "{n} ops, {repeat} runs: median {m:.1} ms ({:.3} µs/op), best {best:.1} ms ({:.3} µs/op)",
                per_op(*m),
                per_op(best)
            );
        }
    }
    for (w, m) in sizes.windows(2).zip(medians.windows(2)) {
        println!("time({})/time({}) = {:.2}", w[1], w[0], m[1] / m[0]);
    }
}

/// The sizes and the number of rounds given on the command line; exits with a usage message
/// on anything else.
fn parse_args() -> (Vec<usize>, usize) {
    let mut args = std::env::args().skip(1);
    let (mut sizes, mut repeat) = (Vec::new(), 1);
    while let Some(a) = args.next() {
        let ok = if a == "--repeat" {
            let n = args.next().and_then(|n| n.parse::<usize>().ok()).filter(|n| *n >= 1);
            n.map(|n| repeat = n).is_some()
        } else {
            a.parse().map(|n| sizes.push(n)).is_ok()
        };
        if !ok {
            eprintln!("usage: infer_scale [--repeat N] [OPERATIONS ...] (N ≥ 1; not `{a}`)");
            std::process::exit(2);
        }
    }
    (sizes, repeat)
}

/// Runs one size in a child process, echoes its table row, and returns its number of
/// operations and total time (ms).
fn run_child(exe: &std::path::Path, n: usize) -> (usize, f64) {
    let out = Command::new(exe).arg(n.to_string()).output().expect("child runs");
    let text = String::from_utf8_lossy(&out.stdout);
    print!("{text}");
    if !out.status.success() {
        eprintln!("{}", String::from_utf8_lossy(&out.stderr));
        std::process::exit(1);
    }
    let field = |i: usize| text.split_whitespace().nth(i);
    let ops = field(0).and_then(|t| t.parse().ok());
    let ms = field(3).and_then(|t| t.parse().ok());
    let (Some(ops), Some(ms)) = (ops, ms) else {
        eprintln!("the run of {n} operations printed no table row");
        std::process::exit(1);
    };
    (ops, ms)
}

/// The median (the mean of the middle two for an even count).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
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
        peak::peak_mib()
    );
}
