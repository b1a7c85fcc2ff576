//! Runs the public Vespa conformance suite through the conformance runner; every case must pass.

#![cfg(feature = "kernel")]

use std::path::Path;

#[test]
fn every_vespa_case_passes() {
    let results = einrow::check::run_file(Path::new("tests/conformance/vespa.json"), &|_| true)
        .expect("the Vespa suite is readable");
    assert!(!results.is_empty(), "the Vespa suite has no cases");
    let failures: Vec<String> = results
        .iter()
        .filter(|r| !r.pass)
        .map(|r| format!("FAIL {}: {}", r.id, r.detail))
        .collect();
    for f in &failures {
        println!("{f}");
    }
    println!("{} passed, {} failed", results.len() - failures.len(), failures.len());
    assert!(
        failures.is_empty(),
        "{} of {} Vespa cases failed:\n{}",
        failures.len(),
        results.len(),
        failures.join("\n")
    );
}
