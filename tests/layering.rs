//! The stages import only lower stages (`docs/architecture.md`): every `crate::` path in a
//! module's code (comments and test modules aside) names a module of a lower layer, of its own
//! layer where the picture allows it, and never one of the other column. Inside `infer`, the
//! stage folders import only lower stages the same way (`src/infer/mod.rs`).

use std::collections::BTreeSet;
use std::path::Path;

/// Each top-level module with its layer.
const LAYERS: [(&str, u32); 16] = [
    ("code", 0),
    ("ids", 0),
    ("span", 0),
    ("diagnostic", 1),
    ("spec", 2),
    ("shape", 3),
    ("infer", 4),
    ("tensor", 5),
    ("kernel", 6),
    ("numpy", 7),
    ("project", 8),
    ("formats", 9),
    ("lint", 9),
    ("check", 10),
    ("fuzzing", 11),
    ("architecture", 12),
];

/// Shape inference and execution are two columns: neither imports the other.
fn other_column(from: &str, to: &str) -> bool {
    let exec = ["tensor", "kernel", "numpy"];
    (from == "infer" && exec.contains(&to)) || (exec.contains(&from) && to == "infer")
}

fn layer(module: &str) -> Option<u32> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|&(_, l)| l)
}

/// The code lines of a source file: comments dropped, and everything from a
/// `#[cfg(test)]` (or a `cfg` with `test` in it) that opens a module on (test modules close the files they are in).
fn code_lines(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let mut code = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let opens_tests = t.starts_with("#[cfg(")
            && t.contains("test")
            && lines.get(i + 1).is_some_and(|n| n.trim_start().starts_with("mod "));
        if opens_tests {
            break;
        }
        if !t.starts_with("//") {
            code.push(*line);
        }
    }
    code
}

/// The top-level modules a line names through `crate::`.
fn named_modules(line: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        let tail = &rest[at + "crate::".len()..];
        let name: String = tail.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        names.push(name);
        rest = tail;
    }
    names
}

/// Every `.rs` file of a module (its folder, or its one file), test files aside.
fn module_files(module: &str) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![Path::new("src").join(module)];
    let single = Path::new("src").join(format!("{module}.rs"));
    if single.is_file() {
        files.push(single);
    }
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries {
            let path = entry.expect("a folder entry").path();
            let name =
                path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if path.is_dir() {
                stack.push(path);
            } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
                files.push(path);
            }
        }
    }
    files
}

#[test]
fn stages_import_only_lower_stages() {
    let mut upward = BTreeSet::new();
    let mut scanned = 0;
    for (module, own) in LAYERS {
        for file in module_files(module) {
            let text = std::fs::read_to_string(&file).expect("a source file reads");
            scanned += 1;
            for line in code_lines(&text) {
                for to in named_modules(line) {
                    let Some(theirs) = layer(&to) else { continue };
                    let allowed = to == module || (theirs < own && !other_column(module, &to));
                    if !allowed {
                        upward.insert(format!("{}: {module} imports {to}", file.display()));
                    }
                }
            }
        }
    }
    assert!(scanned > 200, "only {scanned} source files found");
    assert!(upward.is_empty(), "imports of higher or other-column stages:\n{upward:#?}");
}

/// The stages inside `infer` (`src/infer/mod.rs`), lowest first: the shared vocabulary
/// (`op.rs`, `error.rs`), the solver (`solve/`, with `solve/read/`), then closing (`close/`) and
/// lowering (`lower/`), which never import each other, then everything above them (the graph,
/// schemes, provenance, warnings, programs and their diagnostics). Files of one stage other
/// than closing and lowering may import each other.
fn infer_stage(first: &str) -> u32 {
    match first {
        "op" | "error" => 0,
        "solve" => 1,
        "close" | "lower" => 2,
        _ => 3,
    }
}

/// Imports of a higher `infer` stage that are known and allowed: closing reads each tensor's
/// entry (`TensorEntry`, a public type of the graph) as it goes.
const INFER_EXCEPTIONS: [(&str, &str); 1] = [("src/infer/close/stages.rs", "graph")];

/// The module path of a file under `src/infer` (`["solve", "read", "accessors"]`; a `mod.rs`
/// is its folder).
fn infer_module(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix("src/infer").expect("a file under src/infer");
    let mut parts: Vec<String> =
        rel.iter().map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string()).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The first module under `infer` of each path a line names inside `infer`: through
/// `crate::infer::`, or through `super::` relative to the file's module `at`.
fn infer_targets(line: &str, at: &[String]) -> Vec<String> {
    let mut targets = Vec::new();
    let ident = |s: &str| -> String {
        s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
    };
    let mut rest = line;
    while let Some(i) = rest.find("crate::infer::") {
        rest = &rest[i + "crate::infer::".len()..];
        targets.push(ident(rest));
    }
    let mut rest = line;
    while let Some(i) = rest.find("super::") {
        let before = rest[..i].chars().last();
        if before.is_some_and(|c| c == ':' || c.is_alphanumeric() || c == '_') {
            rest = &rest[i + "super::".len()..];
            continue;
        }
        let mut path = at.to_vec();
        let mut tail = &rest[i..];
        while let Some(t) = tail.strip_prefix("super::") {
            path.pop();
            tail = t;
        }
        rest = tail;
        match path.first() {
            Some(first) => targets.push(first.clone()),
            None if tail.starts_with('{') => {
                let group = &tail[1..tail.find('}').unwrap_or(tail.len())];
                targets.extend(group.split(',').map(|p| ident(p.trim())));
            }
            None => targets.push(ident(tail)),
        }
    }
    targets.retain(|t| !t.is_empty());
    targets
}

#[test]
fn infer_stages_import_only_lower_ones() {
    let mut upward = BTreeSet::new();
    let mut seen = 0;
    for file in module_files("infer") {
        let at = infer_module(&file);
        let Some(own) = at.first() else { continue };
        let own_stage = infer_stage(own);
        let text = std::fs::read_to_string(&file).expect("a source file reads");
        for line in code_lines(&text) {
            for to in infer_targets(line, &at) {
                seen += 1;
                let theirs = infer_stage(&to);
                let allowed = to == *own
                    || theirs < own_stage
                    || (theirs == own_stage && own_stage != 2)
                    || INFER_EXCEPTIONS.contains(&(file.to_string_lossy().as_ref(), to.as_str()));
                if !allowed {
                    upward.insert(format!("{}: {own} imports {to}", file.display()));
                }
            }
        }
    }
    assert!(seen > 200, "only {seen} paths inside infer found");
    assert!(upward.is_empty(), "imports of higher stages inside infer:\n{upward:#?}");
}

#[test]
fn the_infer_scan_resolves_super_paths() {
    let at = ["solve".to_string(), "read".to_string(), "accessors".to_string()];
    assert_eq!(infer_targets("use super::super::env::Env;", &at), ["solve"]);
    assert_eq!(infer_targets("use crate::infer::graph::Graph;", &at), ["graph"]);
    let top = ["graph".to_string()];
    assert_eq!(infer_targets("use super::{error::InferError, op::OpKind};", &top), ["error", "op"]);
    assert_eq!(infer_targets("x: super::solve::guesses::Guess", &top), ["solve"]);
}

#[test]
fn the_scan_sees_imports_and_skips_comments_and_tests() {
    assert_eq!(
        named_modules("use crate::infer::{Graph, x}; crate::spec::parse(s)"),
        ["infer", "spec"]
    );
    let text = "use crate::tensor::Layout;\n// crate::check::x\n#[cfg(test)]\nmod tests {\nuse crate::fuzzing;\n}";
    assert_eq!(code_lines(text), ["use crate::tensor::Layout;"]);
}
