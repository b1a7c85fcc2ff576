//! Golden files: `tests/data/parse/{ok,err}/NNNN_name.spec` hold a front end name (`labels`,
//! `einsum` or `numpy`) on the first line and the spec on the second; the sibling `.expected`
//! holds the canonical text and ROWS JSON (ok) or the rendered error (err). Run with
//! `EINROW_BLESS=1` to rewrite the `.expected` files after an intended change.

use std::path::{Path, PathBuf};

use einrow::diagnostic::{render, Label};
use einrow::spec::{parse_einsum, parse_labels, parse_numpy, SpecError};
use einrow::Coded;

fn render_error(spec: &str, e: &SpecError) -> String {
    let mut labels = vec![Label { span: e.span(), note: String::new() }];
    labels.extend(e.related().into_iter().map(|(span, note)| Label { span, note: note.into() }));
    render(spec, e.code(), &e.to_string(), &labels)
}

/// Parses with the named front end; the canonical text and JSON, or the error.
fn run(front: &str, spec: &str) -> Result<String, String> {
    let res = match front {
        "labels" => parse_labels(spec).map(|s| format!("{s}\n{}\n", s.to_json())),
        "einsum" => parse_einsum(spec).map(|s| format!("{s}\n{}\n", s.to_json())),
        "numpy" => parse_numpy(spec).map(|s| format!("{s}\n")),
        other => panic!("unknown front end {other:?}"),
    };
    res.map_err(|e| render_error(spec, &e))
}

fn spec_files(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("golden folder exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "spec"))
        .collect();
    v.sort();
    v
}

fn check_dir(dir: &str, want_ok: bool) {
    let bless = std::env::var_os("EINROW_BLESS").is_some();
    let files = spec_files(dir);
    assert!(!files.is_empty(), "no golden files in {dir}");
    let mut mismatches = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("golden file reads");
        let (front, spec) = text.split_once('\n').expect("two lines: front end, spec");
        let spec = spec.strip_suffix('\n').unwrap_or(spec);
        let got = match (run(front, spec), want_ok) {
            (Ok(out), true) | (Err(out), false) => out,
            (Ok(out), false) => panic!("{}: expected an error, parsed as\n{out}", file.display()),
            (Err(out), true) => panic!("{}: expected success, got\n{out}", file.display()),
        };
        let expected_path = file.with_extension("expected");
        if bless {
            std::fs::write(&expected_path, &got).expect("write .expected");
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != got {
            mismatches.push(format!("{}:\n--- expected\n{expected}--- got\n{got}", file.display()));
        }
    }
    assert!(mismatches.is_empty(), "golden mismatches:\n{}", mismatches.join("\n"));
}

#[test]
fn parse_ok() {
    check_dir("tests/data/parse/ok", true);
}

#[test]
fn parse_err() {
    check_dir("tests/data/parse/err", false);
}

#[test]
fn canonical_text_reparses_to_itself() {
    for file in spec_files("tests/data/parse/ok") {
        let text = std::fs::read_to_string(&file).expect("reads");
        let (front, spec) = text.split_once('\n').expect("two lines");
        let first = run(front, spec.trim_end_matches('\n')).expect("ok file parses");
        let canonical = first.lines().next().expect("canonical line");
        let second = run(front, canonical).expect("canonical text parses");
        assert_eq!(first, second, "{}", Path::new(&file).display());
    }
}

/// Golden inference programs: `tests/data/infer/{ok,err}/NNNN_name.ein` in the text format
/// of `einrow infer`; the `.expected` file holds every tensor's shape (ok) or the rendered,
/// explained error (err).
fn infer_output(path: &Path, want_ok: bool) -> String {
    use einrow::infer::{explain::render_error, program::Program};
    let text = std::fs::read_to_string(path).expect("program reads");
    let program = Program::parse_text(&text).expect("golden program parses");
    let built = program.build();
    let g = &built.graph;
    match (built.result, want_ok) {
        (Ok(()), true) => built
            .names
            .iter()
            .map(|(n, id)| format!("{n}: {}\n", g.shape_string(*id).expect("solved")))
            .collect(),
        (Err((e, _)), false) => render_error(Some(g), &e, true),
        (Ok(()), false) => panic!("{}: expected an error", path.display()),
        (Err((e, _)), true) => panic!("{}: {e}", path.display()),
    }
}

fn check_infer_dir(dir: &str, want_ok: bool) {
    let bless = std::env::var_os("EINROW_BLESS").is_some();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("golden folder exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ein"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no programs in {dir}");
    for file in files {
        let got = infer_output(&file, want_ok);
        let expected_path = file.with_extension("expected");
        if bless {
            std::fs::write(&expected_path, &got).expect("write .expected");
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        assert_eq!(expected, got, "{}", file.display());
    }
}

#[test]
fn infer_ok() {
    check_infer_dir("tests/data/infer/ok", true);
}

#[test]
fn infer_err() {
    check_infer_dir("tests/data/infer/err", false);
}
