//! The `einrow` binary for the tests that run it, and the JSON Schema its documents follow.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs einrow with `args`, `stdin` on its standard input: the exit code (-1 when killed),
/// standard output and standard error.
#[allow(dead_code)]
pub fn run(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_einrow"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("einrow starts");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin.unwrap_or("").as_bytes()).expect("writes stdin");
    drop(input);
    let out = child.wait_with_output().expect("einrow ends");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// The schema of every `--json` document (`docs/diagnostics.schema.json`).
#[allow(dead_code)]
pub fn schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string("docs/diagnostics.schema.json").expect("the schema");
    let schema: serde_json::Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::validator_for(&schema).expect("a valid JSON Schema")
}
