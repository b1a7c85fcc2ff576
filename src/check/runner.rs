//! Reading case files and dispatching each case to its kind.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::case::{CaseOutcome, CaseResult};
use super::{einsum, infer, parse, tensorstore, vespa, view};

/// A case file that could not be read or is not a case file.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct RunError {
    /// The offending path.
    pub path: String,
    /// What went wrong.
    pub message: String,
}

/// Expands the given paths: files as they are, folders to their `*.json` files, subfolders
/// included (sorted).
pub fn collect_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, RunError> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            collect_folder(p, &mut out)?;
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// The `*.json` files of a folder and of its subfolders, in path order.
fn collect_folder(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), RunError> {
    let entries = std::fs::read_dir(dir).map_err(|e| io_error(dir, e))?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            collect_folder(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
    Ok(())
}

fn io_error(p: &Path, e: impl std::fmt::Display) -> RunError {
    RunError { path: p.display().to_string(), message: e.to_string() }
}

/// Runs every case of one file whose kind passes `keep`.
pub fn run_file(path: &Path, keep: &dyn Fn(&str) -> bool) -> Result<Vec<CaseResult>, RunError> {
    let text = std::fs::read_to_string(path).map_err(|e| io_error(path, e))?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| io_error(path, e))?;
    let cases = doc
        .get("cases")
        .and_then(Value::as_array)
        .ok_or_else(|| io_error(path, "no \"cases\" list"))?;
    let file = path.display().to_string();
    let mut results = Vec::with_capacity(cases.len());
    for case in cases {
        let kind = case.get("kind").and_then(Value::as_str).unwrap_or("").to_string();
        if !keep(&kind) {
            continue;
        }
        let id = case.get("id").and_then(Value::as_str).unwrap_or("?").to_string();
        let outcome = run_case(case);
        let (pass, detail) = match outcome {
            Ok(()) => (true, String::new()),
            Err(d) => (false, d),
        };
        results.push(CaseResult { file: file.clone(), id, kind, pass, detail });
    }
    Ok(results)
}

/// Runs one case (a JSON object with `kind`, inputs and `expect`).
pub fn run_case(case: &Value) -> CaseOutcome {
    let kind = case.get("kind").and_then(Value::as_str).unwrap_or("");
    match kind {
        "parse" => parse::run(case),
        "infer" => infer::run(case),
        "einsum" => einsum::run(case),
        "view" => view::run(case),
        k if k.starts_with("vespa_") => vespa::run(k, case),
        k if k.starts_with("ts_") => tensorstore::run(k, case),
        other => Err(format!("unsupported kind {other:?}")),
    }
}
