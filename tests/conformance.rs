//! Runs every public conformance suite in `tests/conformance/` through the same code path as
//! `einrow check`, against the expected-failure list `tests/conformance/expected-failures.txt`.

use std::collections::BTreeSet;
use std::path::Path;

use einrow::check::{collect_files, run_file, CaseResult};

fn expected_failures() -> BTreeSet<String> {
    let text = std::fs::read_to_string("tests/conformance/expected-failures.txt")
        .expect("tests/conformance/expected-failures.txt is readable");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

fn all_results() -> Vec<CaseResult> {
    let files = collect_files(&[Path::new("tests/conformance").to_path_buf()]).expect("folder");
    files.iter().flat_map(|f| run_file(f, &|_| true).expect("case file reads")).collect()
}

fn file_name(r: &CaseResult) -> String {
    Path::new(&r.file).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

#[test]
fn public_suites_pass_except_listed() {
    let expected = expected_failures();
    let results = all_results();
    assert!(results.len() > 400, "suites went missing: only {} cases", results.len());
    let listed = |r: &CaseResult| {
        expected.contains(&format!("kind:{}", r.kind))
            || expected.contains(&format!("{}:{}", file_name(r), r.id))
    };
    let unexpected: Vec<String> = results
        .iter()
        .filter(|r| !r.pass && !listed(r))
        .map(|r| format!("FAIL {}:{}: {}", file_name(r), r.id, r.detail))
        .collect();
    let passed = results.iter().filter(|r| r.pass).count();
    println!("{passed} passed, {} failed", results.len() - passed);
    assert!(unexpected.is_empty(), "unexpected failures:\n{}", unexpected.join("\n"));
    let stale: Vec<&String> = expected
        .iter()
        .filter(|entry| {
            let matching: Vec<&CaseResult> = results
                .iter()
                .filter(|r| {
                    **entry == format!("kind:{}", r.kind)
                        || **entry == format!("{}:{}", file_name(r), r.id)
                })
                .collect();
            matching.iter().all(|r| r.pass)
        })
        .collect();
    assert!(stale.is_empty(), "listed as expected failures but passing (remove them): {stale:?}");
}

#[test]
fn conformance_copies_match_shared_when_present() {
    let shared = Path::new("../shared/conformance");
    if !shared.is_dir() {
        return;
    }
    for entry in std::fs::read_dir(shared).expect("shared/conformance lists") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "json") {
            let name = path.file_name().expect("name");
            let ours = Path::new("tests/conformance").join(name);
            let a = std::fs::read(&path).expect("shared suite reads");
            let b = std::fs::read(&ours).unwrap_or_default();
            assert!(a == b, "{} differs from ../shared/conformance: copy it in", ours.display());
        }
    }
}
