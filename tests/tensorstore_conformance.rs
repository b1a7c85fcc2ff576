//! The public TensorStore conformance suite: every case must pass.

#![cfg(feature = "kernel")]

use std::path::Path;

#[test]
fn tensorstore_suite_passes() {
    let results =
        einrow::check::run_file(Path::new("tests/conformance/tensorstore.json"), &|_| true)
            .expect("the suite file is readable");
    assert!(!results.is_empty(), "the suite has cases");
    let failed: Vec<_> = results.iter().filter(|r| !r.pass).collect();
    for r in &failed {
        println!("FAIL {} [{}]: {}", r.id, r.kind, r.detail);
    }
    println!("{} passed, {} failed", results.len() - failed.len(), failed.len());
    assert!(failed.is_empty(), "{} of {} cases failed", failed.len(), results.len());
}
