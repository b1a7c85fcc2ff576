//! Scale benchmark of shape inference on the programs `einrow fuzz infer` draws: for each
//! size N, programs of N operations are drawn from the fuzzing generator (leaves opened, as
//! `einrow fuzz infer --open` draws them), built and solved, and the table reports, over the
//! programs of that size, the time per statement, the largest solver work per byte of program
//! text ([`Graph::work`](einrow::infer::Graph::work), which the fuzz campaigns hold to a
//! linear budget) and the slowest program. Linear behaviour shows as a flat time per statement
//! from one size to the next.
//!
//! ```text
//! cargo run --release --example generated_scale -- 100 300 1000
//! ```
//!
//! Arguments: sizes (default 100, 300, 1000; at most 1000, the generator's limit),
//! `--programs K` for the programs drawn per size (default 20), and `--write DIR` to also
//! write each program as text (`DIR/SIZE-SEED.ein`), for timing `einrow infer` on them.

use std::time::Instant;

use einrow::fuzzing::case_file::program_text;
use einrow::fuzzing::gen::{GenConfig, Recipe, StepRecipe, MAX_STEPS};

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut sizes, mut programs, mut write) = (Vec::new(), 20usize, None);
    while let Some(a) = args.next() {
        match (a.as_str(), a.parse::<usize>()) {
            ("--programs", _) => programs = args.next().and_then(|p| p.parse().ok()).unwrap_or(20),
            ("--write", _) => write = args.next().map(std::path::PathBuf::from),
            (_, Ok(n)) => sizes.push(n.clamp(1, MAX_STEPS)),
            _ => {
                eprintln!("usage: generated_scale [--programs K] [--write DIR] [SIZE ...]");
                std::process::exit(2);
            }
        }
    }
    if sizes.is_empty() {
        sizes = vec![100, 300, 1000];
    }
    println!(
        "{:>6} {:>9} {:>11} {:>9} {:>13} {:>14} {:>14}",
        "size",
        "programs",
        "statements",
        "total ms",
        "us/statement",
        "max work/byte",
        "slowest us/st"
    );
    for n in sizes {
        let cfg = GenConfig { max_steps: n, open_leaves: true, ..GenConfig::default() };
        let (mut statements, mut total, mut max_ratio, mut slowest) =
            (0usize, 0.0f64, 0.0f64, 0.0f64);
        for seed in 0..programs as u64 {
            let g = recipe(n, seed).build(&cfg);
            let count = g.program.decls.len() + g.program.stmts.len();
            let text = program_text(&g.program);
            let bytes = text.len();
            if let Some(dir) = &write {
                let path = dir.join(format!("{n}-{seed}.ein"));
                std::fs::write(&path, &text).expect("the program is written");
            }
            let start = Instant::now();
            let built = g.program.build();
            let seconds = start.elapsed().as_secs_f64();
            statements += count;
            total += seconds;
            max_ratio = max_ratio.max(built.graph.work() as f64 / bytes.max(1) as f64);
            slowest = slowest.max(seconds * 1e6 / count.max(1) as f64);
        }
        println!(
            "{n:>6} {programs:>9} {statements:>11} {:>9.1} {:>13.1} {max_ratio:>14.2} {slowest:>14.1}",
            total * 1e3,
            total * 1e6 / statements.max(1) as f64,
        );
    }
}

/// A recipe of exactly `n` operations, drawn from `seed` (xorshift).
fn recipe(n: usize, seed: u64) -> Recipe {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 16) as u32
    };
    let steps = (0..n)
        .map(|_| StepRecipe { op: next(), choices: (0..48).map(|_| next()).collect() })
        .collect();
    Recipe { steps }
}
