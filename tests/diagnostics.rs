//! Golden diagnostics: each case in `tests/data/diagnostics/` is a buggy program (`NAME.ein`)
//! or an `einrow` command line (`NAME.cmd`, one argument per line, run in that folder). Its
//! text output is `NAME.out` (the command, exit status, standard output and standard error;
//! `einrow infer --explain` for a program) and its JSON output `NAME.json` (standard output of
//! the same with `--json`: one line, one JSON document valid against
//! `docs/diagnostics.schema.json`, nothing on standard error, the same exit status; kept
//! pretty-printed so that its changes read line by line).
//! `EINROW_BLESS=1 cargo test --test diagnostics` writes the expected files.
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const DIR: &str = "tests/data/diagnostics";

/// The arguments of a case, without `--json`.
fn args_of(path: &Path) -> Vec<String> {
    let name = path.file_name().and_then(|n| n.to_str()).expect("a file name").to_string();
    match path.extension().and_then(|e| e.to_str()) {
        Some("ein") => vec!["infer".into(), "--explain".into(), name],
        _ => {
            let text = std::fs::read_to_string(path).expect("reads");
            text.lines().filter(|l| !l.starts_with('#')).map(String::from).collect()
        }
    }
}

/// Runs einrow in the cases' folder; the exit status, standard output and standard error.
fn einrow(args: &[String]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_einrow"))
        .args(args)
        .current_dir(DIR)
        .output()
        .expect("einrow runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

fn shown(args: &[String], (code, stdout, stderr): &(i32, String, String)) -> String {
    format!("$ einrow {}\nexit {code}\n--- stdout\n{stdout}--- stderr\n{stderr}", args.join(" "))
}

/// The JSON run: `--json` added (after `--explain`'s place for a program).
fn json_args(path: &Path) -> Vec<String> {
    let mut args = args_of(path);
    args.retain(|a| a != "--explain");
    args.push("--json".into());
    args
}

fn cases() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(DIR)
        .expect("the folder exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ein" || x == "cmd"))
        .collect();
    files.sort();
    files
}

/// The longest chain of steps one size of a document's diagnostics went through: the related
/// places of a size that say a step carried it.
fn longest_chain(doc: &Value) -> usize {
    let mut best = 0;
    for d in doc["diagnostics"].as_array().into_iter().flatten() {
        let related = d["related"].as_array().cloned().unwrap_or_default();
        let mut sizes: Vec<&str> = related.iter().filter_map(|r| r["size"].as_str()).collect();
        sizes.dedup();
        for size in sizes {
            let hops = related
                .iter()
                .filter(|r| {
                    r["size"] == size && r["note"].as_str().is_some_and(|n| n.contains(" gets "))
                })
                .count();
            best = best.max(hops);
        }
    }
    best
}

/// The kinds of bug the suite must hold a program of, each with what its explanation says.
const KINDS: [(&str, &str); 11] = [
    ("a valid convolution's extent", "the output extent of a valid convolution"),
    ("a padded convolution's extent", "the output extent of a padded convolution"),
    ("a stride", "the output extent of a strided axis"),
    ("a dilation", "(3*(5 - 1) + 1)"),
    ("a concatenation", "a concatenation"),
    ("a flattened axis", "(a flattened axis at line"),
    ("a floor convolution's extent", "(PyTorch's floor)"),
    ("a rank conflict", "error[rank]"),
    ("an unresolved size", "error[unresolved]"),
    ("a transposed weight", "256 comes from `a` (declared at line 2 as `32|256`)"),
    ("a lint's warning", "warning["),
];

#[path = "support/binary.rs"]
mod binary;

use binary::schema;

/// The document is valid against the schema.
fn check_schema(schema: &jsonschema::Validator, doc: &Value, case: &Path) {
    let errors: Vec<String> =
        schema.iter_errors(doc).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{}: not valid against the schema: {errors:#?}", case.display());
}

#[test]
fn diagnostics_match_their_goldens() {
    let bless = std::env::var_os("EINROW_BLESS").is_some();
    let files = cases();
    let (mut chains, mut mismatches) = (0, 0);
    let schema = schema();
    let mut commands = std::collections::BTreeSet::new();
    let mut covered = std::collections::BTreeSet::new();
    for case in &files {
        let args = args_of(case);
        let text = shown(&args, &einrow(&args));
        let json_args = json_args(case);
        let run = einrow(&json_args);
        let lines: Vec<&str> = run.1.lines().collect();
        assert_eq!(lines.len(), 1, "{}: --json writes one document: {}", case.display(), run.1);
        let doc: Value = serde_json::from_str(lines[0])
            .unwrap_or_else(|e| panic!("{}: {e}: {}", case.display(), lines[0]));
        check_schema(&schema, &doc, case);
        commands.insert(doc["command"].as_str().unwrap_or_default().to_string());
        if longest_chain(&doc) >= 3 {
            chains += 1;
        }
        let pretty = serde_json::to_string_pretty(&doc).expect("prints") + "\n";
        mismatches += usize::from(text.contains("error[mismatch]"));
        for (kind, mark) in KINDS {
            if text.contains(mark) {
                covered.insert(kind);
            }
        }
        let code = text.lines().nth(1).unwrap_or("").to_string();
        assert_eq!(format!("exit {}", run.0), code, "{}: the status of --json", case.display());
        assert_eq!(run.2, "", "{}: --json writes nothing on standard error", case.display());
        for (ext, got) in [("out", &text), ("json", &pretty)] {
            let expected = case.with_extension(ext);
            if bless {
                std::fs::write(&expected, got).expect("writes");
            } else {
                let want = std::fs::read_to_string(&expected).unwrap_or_default();
                assert_eq!(&want, got, "{}", expected.display());
            }
        }
    }
    assert!(files.len() >= 30, "{} cases", files.len());
    let all = ["check", "infer", "parse", "path", "run"];
    assert_eq!(commands, all.map(String::from).into(), "every command's document is checked");
    assert!(chains >= 8, "{chains} cases with a chain of 3 or more steps");
    let missing: Vec<&str> = KINDS.iter().map(|k| k.0).filter(|k| !covered.contains(k)).collect();
    assert!(missing.is_empty(), "no buggy program of these kinds: {missing:?}");
    assert!(mismatches >= 10, "{mismatches} mismatch cases");
}

/// `einrow infer --dot` draws a failing program too: the steps and tensors that carried each
/// conflicting size in red, the failing step (taken back from the graph) as a dashed node.
#[test]
fn dot_draws_a_failing_program_with_its_conflict_in_red() {
    let args: Vec<String> =
        ["infer", "--dot", "0001_chain_attributes_size_to_src.ein"].map(String::from).to_vec();
    let (code, dot, stderr) = einrow(&args);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("error[mismatch]"), "{stderr}");
    assert!(dot.starts_with("digraph {\n") && dot.ends_with("}\n"), "{dot}");
    let red = |line: &str| line.contains("color = red");
    let node =
        |name: &str| dot.lines().find(|l| l.contains(&format!("label = \"{name}: "))).unwrap_or("");
    for carried in ["src", "b", "c", "other"] {
        assert!(red(node(carried)), "`{carried}` is not red in\n{dot}");
    }
    assert!(!red(node("a")), "`a` carries no conflicting size\n{dot}");
    let failed = dot.lines().find(|l| l.starts_with("    failed [")).expect("the failing step");
    assert!(failed.contains("d = einsum") && failed.contains("dashed"), "{failed}");
    assert_eq!(dot.lines().filter(|l| l.contains("-> failed")).count(), 2, "{dot}");
}

/// `einrow fuzz numpy` needs nothing outside the repository but Python 3 with numpy, and says
/// which is missing: an interpreter that is not there, or one without numpy.
#[test]
fn fuzz_numpy_says_what_is_missing() {
    let out = std::env::temp_dir().join(format!("einrow-fuzz-{}", std::process::id()));
    let out = out.display().to_string();
    let base = ["fuzz", "numpy", "--count", "20", "--seed", "7", "--out", &out];
    let mut args: Vec<String> = base.map(String::from).to_vec();
    args.extend(["--python".into(), "no-such-python-here".into()]);
    let (code, _, stderr) = einrow(&args);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("`no-such-python-here` was not found"), "{stderr}");
    // The built-in oracle through the machine's python3: it runs when numpy is there, and
    // says that numpy is missing when it is not.
    let has_python =
        Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success());
    if has_python {
        let (code, stdout, stderr) = einrow(&base.map(String::from));
        let numpy = Command::new("python3")
            .args(["-c", "import numpy"])
            .output()
            .is_ok_and(|o| o.status.success());
        if numpy {
            assert_eq!(code, 0, "{stdout}{stderr}");
            assert!(stdout.contains("20 numpy cases: 0 failures"), "{stdout}");
        } else {
            assert_eq!(code, 2, "{stderr}");
            assert!(stderr.contains("numpy is not installed"), "{stderr}");
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}
