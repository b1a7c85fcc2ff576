//! Times einrow's path planning (`einsum_path`: parse, shapes, plan, report) on the cases of
//! `tests/data/paths/opt_einsum.json` with a given operand count, and prints one JSON object
//! per case (`{"case", "strategy", "best_s", "median_s", "runs", "opt_flops"}`);
//! `benches/paths_opt_einsum.py` drives it and times opt_einsum on the same cases in the same
//! run.
//!
//! Usage: `bench_paths [--operands N] [--optimize auto|greedy|optimal|dp] [--min-time S]`.

use std::time::Duration;

use einrow::numpy::{einsum_path, time_runs, Optimize, PathOptions};
use serde_json::Value;

fn main() -> Result<(), String> {
    let mut operands = 10usize;
    let mut optimize = Optimize::Auto;
    let mut min_time = 0.2f64;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let value = it.next().ok_or_else(|| format!("{arg} needs a value"))?;
        match arg.as_str() {
            "--operands" => operands = value.parse().map_err(|e| format!("--operands: {e}"))?,
            "--optimize" => optimize = Optimize::parse(&value).map_err(|e| e.to_string())?,
            "--min-time" => min_time = value.parse().map_err(|e| format!("--min-time: {e}"))?,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    let doc: Value = serde_json::from_str(include_str!("../tests/data/paths/opt_einsum.json"))
        .map_err(|e| e.to_string())?;
    let opts = PathOptions::new(optimize);
    for case in doc["cases"].as_array().into_iter().flatten() {
        let shapes: Vec<Vec<usize>> =
            serde_json::from_value(case["shapes"].clone()).map_err(|e| e.to_string())?;
        if shapes.len() != operands {
            continue;
        }
        let name = case["name"].as_str().unwrap_or("?");
        let spec = case["subscripts"].as_str().unwrap_or("");
        let refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
        let report = einsum_path(spec, &refs, &opts).map_err(|e| format!("{name}: {e}"))?;
        let t = time_runs(10, 1_000_000, Duration::from_secs_f64(min_time), || {
            std::hint::black_box(einsum_path(spec, &refs, &opts)?);
            Ok::<(), einrow::numpy::EinsumError>(())
        })
        .map_err(|e| format!("{name}: {e}"))?;
        println!(
            "{{\"case\": \"{name}\", \"strategy\": \"{}\", \"best_s\": {:e}, \"median_s\": {:e}, \"runs\": {}, \"opt_flops\": {}}}",
            report.strategy().name(),
            t.best.as_secs_f64(),
            t.median.as_secs_f64(),
            t.runs,
            report.opt_flops()
        );
    }
    Ok(())
}
