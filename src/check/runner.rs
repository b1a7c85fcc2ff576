//! Reading case files and dispatching each case to its kind.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::code::ErrorCode;

use super::bounded::{Bounded, MAX_CASE_VALUES};
use super::case::{CaseOutcome, CaseResult};
use super::{einsum, infer, parse, tensorstore, vespa, view};

/// A case file that could not be read or is not a case file.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct RunError {
    /// `io` when the file (or folder) cannot be read, `syntax` when it is not a case file
    /// (malformed JSON, no `cases` list): the codes `einrow infer` gives a case file too.
    pub code: ErrorCode,
    /// The offending path.
    pub path: String,
    /// What went wrong.
    pub message: String,
}

/// The most files and folders one walk of [`collect_files`] visits.
pub const MAX_WALK_ENTRIES: usize = 1_000_000;

/// Expands the given paths: files as they are, folders to their `*.json` files, subfolders
/// included, in path order (a folder's entries sorted, each subfolder walked where it sorts).
///
/// Symbolic links are followed, but every folder and file is visited once, identified by its
/// canonical path: a link back to a folder already on the walk (a loop) adds nothing, and a
/// file reached twice (given twice, or through two links) is run once. The walk keeps its own
/// stack (no recursion per level) and stops with an error after [`MAX_WALK_ENTRIES`] entries.
pub fn collect_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, RunError> {
    let mut out = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut visited = 0usize;
    // Paths still to visit, the next one last.
    let mut stack: Vec<PathBuf> = paths.iter().rev().cloned().collect();
    while let Some(p) = stack.pop() {
        visited += 1;
        if visited > MAX_WALK_ENTRIES {
            return Err(io_error(&p, format!("more than {MAX_WALK_ENTRIES} files and folders")));
        }
        let is_dir = p.is_dir();
        // A path that cannot be resolved (a missing file) is kept as given: reading it reports
        // the error.
        let key = std::fs::canonicalize(&p).unwrap_or_else(|_| p.clone());
        if !seen.insert(key) {
            continue;
        }
        if !is_dir {
            out.push(p);
            continue;
        }
        let entries = std::fs::read_dir(&p).map_err(|e| io_error(&p, e))?;
        let mut children: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|c| c.is_dir() || c.extension().is_some_and(|x| x == "json"))
            .collect();
        children.sort();
        stack.extend(children.into_iter().rev());
    }
    Ok(out)
}

fn io_error(p: &Path, e: impl std::fmt::Display) -> RunError {
    RunError { code: ErrorCode::Io, path: p.display().to_string(), message: e.to_string() }
}

/// A case file that is not one: malformed JSON, or no `cases` list (`syntax`); a read that
/// failed underneath the parser stays `io`.
fn format_error(p: &Path, e: impl std::fmt::Display, io: bool) -> RunError {
    let code = if io { ErrorCode::Io } else { ErrorCode::Syntax };
    RunError { code, path: p.display().to_string(), message: e.to_string() }
}

/// Runs every case of one file whose kind passes `keep`; returns their results.
pub fn run_file(path: &Path, keep: &dyn Fn(&str) -> bool) -> Result<Vec<CaseResult>, RunError> {
    let mut results = Vec::new();
    run_file_with(path, keep, &mut |r| results.push(r))?;
    Ok(results)
}

/// Runs every case of one file whose kind passes `keep`, handing each result to `report` as
/// soon as the case has run.
///
/// The file is read as a stream: only the case being run is held in memory (not the whole
/// document), so a file of any size runs in the memory of its largest case. Cases before a
/// syntax error later in the file have run (and been reported) when the error is returned. A
/// case of more than [`MAX_CASE_VALUES`] JSON values fails with a `resource` error without
/// being held whole.
pub fn run_file_with(
    path: &Path,
    keep: &dyn Fn(&str) -> bool,
    report: &mut dyn FnMut(CaseResult),
) -> Result<(), RunError> {
    let f = std::fs::File::open(path).map_err(|e| io_error(path, e))?;
    let file = path.display().to_string();
    let mut on_case = |case: Value, too_large: bool| {
        let text = |key: &str| case.get(key).and_then(Value::as_str);
        let kind = text("kind").unwrap_or("").to_string();
        if !keep(&kind) {
            return;
        }
        let id = text("id").unwrap_or("?").to_string();
        let outcome = if too_large {
            Err(format!(
                "error [resource]: the case holds more than {MAX_CASE_VALUES} JSON values (a \
                 guard on memory; split the case)"
            ))
        } else {
            run_owned_case(case)
        };
        let (pass, detail) = match outcome {
            Ok(()) => (true, String::new()),
            Err(d) => (false, d),
        };
        report(CaseResult { file: file.clone(), id, kind, pass, detail });
    };
    let mut de = serde_json::Deserializer::from_reader(std::io::BufReader::new(f));
    let found = CaseFile { on_case: &mut on_case }.deserialize(&mut de);
    let found = found
        .and_then(|found| de.end().map(|()| found))
        .map_err(|e| format_error(path, &e, e.is_io()))?;
    if found {
        Ok(())
    } else {
        Err(format_error(path, "no \"cases\" list", false))
    }
}

/// A case file read by serde: the top-level object's members are skipped except `cases`,
/// whose elements are read one at a time and handed to `on_case`. Its value says whether the
/// file had a `cases` member.
struct CaseFile<'a> {
    on_case: &'a mut dyn FnMut(Value, bool),
}

impl<'de> DeserializeSeed<'de> for CaseFile<'_> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for CaseFile<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a case file (an object with a \"cases\" list)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut found = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == "cases" && !found {
                map.next_value_seed(Cases { on_case: &mut *self.on_case })?;
                found = true;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// The `cases` list, read element by element.
struct Cases<'a> {
    on_case: &'a mut dyn FnMut(Value, bool),
}

impl<'de> DeserializeSeed<'de> for Cases<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Cases<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of cases")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        loop {
            let mut seen = 0;
            let bounded = Bounded { seen: &mut seen, limit: MAX_CASE_VALUES };
            let Some(case) = seq.next_element_seed(bounded)? else {
                return Ok(());
            };
            (self.on_case)(case, seen > MAX_CASE_VALUES);
        }
    }
}

/// Runs one case that is not needed afterwards: as [`run_case`], but an `infer` case frees its
/// program's members before building it.
fn run_owned_case(case: Value) -> CaseOutcome {
    match case.get("kind").and_then(Value::as_str) {
        Some("infer") => infer::run_owned(case),
        _ => run_case(&case),
    }
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
