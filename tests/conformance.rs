//! Runs every public conformance suite in `tests/conformance/` through the same code path as
//! `einrow check`, against the expected-failure list `tests/conformance/expected-failures.txt`.

#![cfg(feature = "kernel")]

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

/// FNV-1a (64 bits) of `bytes`: the content check of the suites list.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// The suites list `tests/data/conformance-suites.txt`: file name, byte length, FNV-1a hash.
fn listed_suites() -> Vec<(String, usize, String)> {
    let text = std::fs::read_to_string("tests/data/conformance-suites.txt").expect("suites list");
    let rows = text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#'));
    rows.map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        assert_eq!(f.len(), 3, "suites list row {l:?}: NAME BYTES HASH");
        (f[0].to_string(), f[1].parse().expect("a byte count"), f[2].to_string())
    })
    .collect()
}

/// The suite copies in `tests/conformance/` (case files and the format), by name.
fn suite_copies(dir: &Path) -> BTreeSet<String> {
    let entries = std::fs::read_dir(dir).expect("the suites folder lists");
    entries
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json") || n == "FORMAT.md")
        .collect()
}

#[test]
fn conformance_copies_are_the_listed_suites() {
    let listed = listed_suites();
    assert!(listed.len() >= 6, "the suites list lost rows: {listed:?}");
    let names: BTreeSet<String> = listed.iter().map(|(n, _, _)| n.clone()).collect();
    assert_eq!(suite_copies(Path::new("tests/conformance")), names, "list every suite copied");
    for (name, len, hash) in &listed {
        let bytes = std::fs::read(Path::new("tests/conformance").join(name)).expect("copy reads");
        assert_eq!(
            (bytes.len(), format!("{:016x}", fnv1a(&bytes))),
            (*len, hash.clone()),
            "{name}"
        );
    }
}

/// In a checkout with the shared source beside it, the copies are the source's files; elsewhere
/// (a clone on its own) the list above is what the copies are checked against.
#[test]
fn conformance_copies_match_shared_when_present() {
    let shared = Path::new("../shared/conformance");
    if !shared.is_dir() {
        eprintln!("../shared/conformance is absent: the copies are checked against the list only");
        return;
    }
    let names = suite_copies(shared);
    assert!(names.len() >= 6, "the shared source lists {names:?}");
    for name in names {
        let a = std::fs::read(shared.join(&name)).expect("shared suite reads");
        let b = std::fs::read(Path::new("tests/conformance").join(&name)).unwrap_or_default();
        assert!(a == b, "tests/conformance/{name} differs from ../shared/conformance: copy it in");
    }
}
