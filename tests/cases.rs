//! Runs the project's own case files in `tests/data/cases/` (the FORMAT.md format of the public
//! suites) through the same code path as `einrow check`. Every case must pass: there is no
//! expected-failure list here.

#![cfg(feature = "kernel")]

use std::path::Path;

use einrow::check::{collect_files, run_file};

fn check_folder(folder: &str, at_least: usize) {
    let files = collect_files(&[Path::new(folder).to_path_buf()]).expect("case folder reads");
    let results: Vec<_> =
        files.iter().flat_map(|f| run_file(f, &|_| true).expect("case file reads")).collect();
    assert!(results.len() >= at_least, "cases went missing: only {} in {folder}", results.len());
    let failures: Vec<String> = results
        .iter()
        .filter(|r| !r.pass)
        .map(|r| format!("FAIL {}:{}: {}", r.file, r.id, r.detail))
        .collect();
    assert!(failures.is_empty(), "{} failed:\n{}", failures.len(), failures.join("\n"));
}

/// Cases written from `ocannl-semantics.md` section by section, and numpy einsum cases made
/// with the oracle.
#[test]
fn ocannl_and_numpy_reference_cases_pass() {
    check_folder("tests/data/cases/ocannl", 340);
}

/// Edge cases of the OCANNL rules (lexing modes, stages of closing, flanks, arity).
#[test]
fn ocannl_edge_cases_pass() {
    check_folder("tests/data/cases/edges", 360);
}

/// Cases converted from the upstream projects' own tests (OCANNL's test files and their
/// `.expected` outputs, vespajlib's test cases, TensorStore's tests and docstrings, and the
/// einsum tests of PyTorch, JAX and opt_einsum with numpy's results).
#[test]
fn upstream_test_cases_pass() {
    check_folder("tests/data/cases/upstream", 970);
}

/// numpy einsum edge cases, expected results from numpy 2.4.6 itself (grammar, implicit
/// output, broadcasting, size-0 dimensions, the 64-dimension limit).
#[test]
fn numpy_edge_cases_pass() {
    check_folder("tests/data/cases/numpy", 500);
}

/// Computed values: projections and the kernel (OCANNL steps with padding, concatenation,
/// reductions; numpy einsum against numpy; Nervana views).
#[test]
fn value_reference_cases_pass() {
    check_folder("tests/data/cases/values", 230);
}

/// Cases written from `seed-systems.md`: Vespa types, literals, JSON and cell casts;
/// TensorStore domains, transforms, dimension expressions and alignment; Nervana views.
#[test]
fn seed_format_reference_cases_pass() {
    check_folder("tests/data/cases/formats", 720);
}
