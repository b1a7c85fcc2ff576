//! Criterion benchmarks of contraction-path planning (`einsum_path`: parse, shapes, plan,
//! report) on 10-operand expressions of `tests/data/paths/opt_einsum.json` (opt_einsum's
//! `rand_equation`, regularity 2, 3 and 4). For the side-by-side with opt_einsum run
//! `python3 benches/paths_opt_einsum.py`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use einrow::numpy::{einsum_path, Optimize, PathOptions};
use serde_json::Value;

/// The table's 10-operand cases with two output labels and no global dimension.
fn cases() -> Vec<(String, String, Vec<Vec<usize>>)> {
    let doc: Value = serde_json::from_str(include_str!("../tests/data/paths/opt_einsum.json"))
        .expect("the golden table is JSON");
    doc["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| {
            let name = c["name"].as_str().unwrap_or("");
            name.starts_with("rand n=10 ") && name.contains("out=2 global=False")
        })
        .map(|c| {
            let shapes = serde_json::from_value(c["shapes"].clone()).expect("shapes");
            let name = c["name"].as_str().unwrap_or("?").split(" seed").next().unwrap_or("?");
            (name.to_string(), c["subscripts"].as_str().unwrap_or("").to_string(), shapes)
        })
        .collect()
}

fn planning(c: &mut Criterion) {
    let mut g = c.benchmark_group("paths");
    for (name, spec, shapes) in cases() {
        let refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
        let strategies: &[Optimize] = if name.contains("reg=3") {
            &[Optimize::Auto, Optimize::Greedy, Optimize::Dp, Optimize::Optimal]
        } else {
            &[Optimize::Auto]
        };
        for optimize in strategies {
            let opts = PathOptions::new(optimize.clone());
            g.bench_function(format!("{}/{name}", optimize.name()), |b| {
                b.iter(|| einsum_path(black_box(&spec), &refs, &opts).expect("plan"))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, planning);
criterion_main!(benches);
