//! Every `infer` case of the conformance suites, given to `einrow infer --json` as a program,
//! writes one document valid against `docs/diagnostics.schema.json`, whatever its error:
//! every place of every diagnostic is positioned (a JSON pointer into the case) or absent.
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};

#[path = "support/binary.rs"]
mod binary;

use serde_json::Value;

fn case_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(dir).expect("reads").map(|e| e.expect("entry").path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            case_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
}

fn infer_json(case: &Value) -> (i32, String, String) {
    binary::run(&["infer", "-", "--json"], Some(&case.to_string()))
}

#[test]
fn every_infer_case_writes_a_valid_document() {
    let schema = binary::schema();
    let mut files = Vec::new();
    case_files(Path::new("tests/data/cases"), &mut files);
    let (mut run, mut failing) = (0, 0);
    for file in files {
        let Ok(doc) =
            serde_json::from_str::<Value>(&std::fs::read_to_string(&file).expect("reads"))
        else {
            continue;
        };
        let cases = doc["cases"].as_array().cloned().unwrap_or_default();
        for case in cases.iter().filter(|c| c["kind"] == "infer") {
            let (status, stdout, stderr) = infer_json(case);
            let id = format!("{}:{}", file.display(), case["id"]);
            assert_eq!(stderr, "", "{id}");
            let out: Value =
                serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{id}: {e}: {stdout}"));
            let errors: Vec<String> =
                schema.iter_errors(&out).map(|e| format!("{e} at {}", e.instance_path())).collect();
            assert!(errors.is_empty(), "{id}: {errors:#?}");
            assert_eq!(out["ok"] == true, status == 0, "{id}");
            run += 1;
            failing += usize::from(status != 0);
        }
    }
    assert!(run >= 500, "{run} infer cases");
    assert!(failing >= 100, "{failing} infer cases with an error");
}
