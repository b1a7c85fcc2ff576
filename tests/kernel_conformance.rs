//! Runs the public `view` (Nervana) and `einsum` (numpy) conformance suites through the
//! conformance runner and requires every case to pass.

#![cfg(feature = "kernel")]

use std::path::Path;

fn run_suite(file: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance").join(file);
    let results = einrow::check::run_file(&path, &|_| true).expect("suite file readable");
    assert!(!results.is_empty(), "{file} has no cases");
    let failed: Vec<_> = results.iter().filter(|r| !r.pass).collect();
    for r in &failed {
        eprintln!("FAIL {}:{}: {}", file, r.id, r.detail);
    }
    assert!(failed.is_empty(), "{} of {} cases of {file} failed", failed.len(), results.len());
    eprintln!("{file}: {} passed", results.len());
}

#[test]
fn nervana_views() {
    run_suite("nervana-views.json");
}

#[test]
fn numpy_einsum() {
    run_suite("numpy-einsum.json");
}
