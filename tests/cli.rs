//! The `einrow` binary on hostile input: every run ends with a coded error or the correct
//! answer and an exit status of 0, 1 or 2, never a panic (101) or a signal. Each test names the
//! class of input it freezes.
#![cfg(feature = "cli")]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn einrow() -> Command {
    Command::new(env!("CARGO_BIN_EXE_einrow"))
}

/// Runs einrow with `args` (and `stdin`), checks that it ended by itself with 0, 1 or 2.
fn run_with(args: &[&str], stdin: &str) -> Output {
    let mut child = einrow()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("einrow starts");
    if let Some(mut input) = child.stdin.take() {
        let _ = input.write_all(stdin.as_bytes());
    }
    let out = child.wait_with_output().expect("einrow ends");
    let status = out.status.code();
    assert!(
        matches!(status, Some(0..=2)),
        "einrow {args:?} ended with {:?}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn run(args: &[&str]) -> Output {
    run_with(args, "")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("einrow-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Asserts a failed run with `error[code]` on stderr.
#[track_caller]
fn assert_error(out: &Output, code: &str) -> String {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("error[{code}]")), "expected error[{code}]: {err}");
    err
}

#[test]
fn results_too_large_to_allocate_are_value_errors() {
    let err = assert_error(&run(&["run", "i=>4611686018427387903", "[1,2]"]), "value");
    assert!(err.contains("cannot allocate"), "{err}");
    let err = assert_error(&run(&["run", "i->", "--random", "4611686018427387904"]), "value");
    assert!(err.contains("cannot allocate"), "{err}");
    assert_error(&run(&["run", "ij->", "--random", "2147483648,2147483648"]), "value");
}

#[test]
fn unknown_element_types_are_unsupported_errors() {
    let err =
        assert_error(&run(&["run", "i->", "--random", "3", "--dtype", "uint16"]), "unsupported");
    assert!(err.contains("uint16") && err.contains("int32"), "{err}");
    let out = run(&["run", "i,i->", "--random", "3", "--random", "3", "--dtype", "int32"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for complex in ["c128", "complex64"] {
        let err =
            assert_error(&run(&["run", "i->", "--random", "3", "--dtype", complex]), "unsupported");
        assert!(err.contains("real numbers"), "{err}");
    }
}

#[test]
fn check_continues_after_a_case_that_cannot_allocate() {
    let dir = temp_dir("alloc");
    let file = dir.join("cases.json");
    std::fs::write(
        &file,
        r#"{"cases":[
 {"id":"huge","kind":"infer","tensors":[{"name":"a","shape":"2","values":[1,2]}],
  "steps":[{"op":"permute","out":"b","args":["a"],"spec":"i=>4611686018427387903"}],
  "expect":{"shapes":{"b":"4611686018427387904"},"values":{"b":[1]}}},
 {"id":"view","kind":"view","base":{"axes":[{"name":"A","length":1000000000}],"dtype_bytes":8},
  "ops":[],"expect":{"values":[]}},
 {"id":"fine","kind":"parse","spec":"i","as":"labels","expect":{"rows":{"output":["i"]}}}
]}"#,
    )
    .unwrap();
    let out = run(&["check", file.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains(":huge: ") && stdout.contains("cannot allocate"), "{stdout}");
    assert!(stdout.contains(":view: ") && stdout.ends_with("1 passed, 2 failed\n"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A reader that closes its end of the pipe early ends the command quietly: no panic, the
/// status the command had reached.
#[test]
fn a_closed_stdout_ends_every_subcommand_quietly() {
    let dir = temp_dir("pipe");
    let program = dir.join("p.ein");
    let mut p = String::from("tensor x: 2|3->4\n");
    for i in 0..20_000 {
        p.push_str(&format!("y{i} = pointwise_un x\n"));
    }
    std::fs::write(&program, p).unwrap();
    let cases = dir.join("c.json");
    let case =
        r#"{"id":"a","kind":"parse","spec":"i","as":"labels","expect":{"rows":{"output":["j"]}}}"#;
    let many = vec![case; 20_000].join(",");
    std::fs::write(&cases, format!(r#"{{"cases":[{many}]}}"#)).unwrap();
    let fuzz_out = dir.join("fuzz");
    let (program, cases, fuzz_out) =
        (program.to_str().unwrap(), cases.to_str().unwrap(), fuzz_out.to_str().unwrap());
    let commands: Vec<(Vec<&str>, i32)> = vec![
        (vec!["infer", program], 0),
        (vec!["infer", "--dot", program], 0),
        (vec!["check", cases], 1),
        (vec!["check", "--json", cases], 1),
        (vec!["parse", "b|i->o"], 0),
        (vec!["parse", "--json", "b|i->o"], 0),
        (vec!["run", "i,j->ij", "--random", "1000", "--random", "1000"], 0),
        (vec!["run", "i,j->ij", "--random", "300", "--random", "300", "--vespa-names", "a,b"], 0),
        (vec!["run", "ij->ij", "--random", "300,300", "--vespa-names", "a,b", "--vespa-json"], 0),
        (vec!["run", "ij->ij", "--random", "3,3", "--plan"], 0),
        (vec!["fuzz", "specs", "--count", "200", "--seed", "1", "--out", fuzz_out], 0),
    ];
    for (args, status) in commands {
        let mut child = einrow()
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("einrow starts");
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("einrow ends");
        let err = text(&out.stderr);
        assert!(!err.contains("panicked"), "einrow {args:?}: {err}");
        assert_eq!(out.status.code(), Some(status), "einrow {args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn thread_counts_are_capped() {
    let err = assert_error(&run(&["run", "i->", "[1]", "--threads", "100000"]), "value");
    assert!(err.contains("cap"), "{err}");
    let out = run(&["run", "i->", "[1,2]", "--threads", "2"]);
    assert_eq!(text(&out.stdout), "3.0\n");
    let help = text(&run(&["run", "--help"]).stdout);
    assert!(help.contains("At most 4 per available CPU"), "{help}");
}

/// `--bench N` kept the time of every run for the median: a count of 2^32 ran out of memory
/// (an abort) after filling gigabytes. The count is capped, and the cap is stated. `--bench 0`
/// reported one run's time as if asked for: it is refused.
#[test]
fn bench_run_counts_are_capped() {
    for n in ["1000001", "4294967296", "18446744073709551615"] {
        let err = assert_error(&run(&["run", "i->", "[1]", "--bench", n]), "value");
        assert!(err.contains("cap of 1000000 runs"), "{err}");
    }
    let err = assert_error(&run(&["run", "i->", "[1]", "--bench", "0"]), "value");
    assert!(err.contains("--bench 0 times no run"), "{err}");
    let out = run(&["run", "i->", "[1,2]", "--bench", "3"]);
    assert!(text(&out.stdout).contains("runs: 3"), "{}", text(&out.stdout));
}

/// `einrow fuzz --max-steps` above what a range can hold panicked in the generator (exit 101,
/// silently: the fuzzer's panic hook was already set), and 100000 ran past any time budget
/// (one recipe is drawn whole before it is checked). The count is from 1 to 1000, checked
/// with the other arguments.
#[test]
fn fuzz_step_counts_are_bounded() {
    for n in ["0", "1001", "18446744073709551615"] {
        let out = run(&["fuzz", "--max-steps", n, "--count", "1"]);
        assert_eq!(out.status.code(), Some(2), "{n}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains("is not in 1..=1000"), "{}", text(&out.stderr));
    }
    let dir = temp_dir("fuzz_steps");
    let out_dir = dir.join("out");
    let args = ["fuzz", "--max-steps", "1000", "--count", "1", "--seed", "3", "--no-exec"];
    let out = run(&[&args[..], &["--out", out_dir.to_str().unwrap()]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--named` read its operands as literals only: `@path` was taken for a literal (a syntax
/// error), unlike every other operand. Options it does not use are refused.
#[test]
fn named_operands_read_files_too() {
    let dir = temp_dir("named");
    let path = dir.join("a.vespa");
    std::fs::write(&path, "tensor(x[2]):[1,2]").unwrap();
    let at = format!("@{}", path.display());
    let out = run(&["run", "--named", "", &at, "tensor(x[2]):[3,4]"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("11"), "{}", text(&out.stdout));
    let missing = format!("@{}", dir.join("none").display());
    assert_error(&run(&["run", "--named", "x", &missing]), "io");
    let out = run(&["run", "--named", "x", &at, "--random", "2"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--named` read every operand as a Vespa literal: a JSON document got the literal reader's
/// error (`'"type"' is not a valid double number` at the first key) instead of its own. It
/// reads operands as every other operand is read: a JSON document by the JSON reader.
#[test]
fn named_operands_may_be_json_documents() {
    let json = r#"{"type":"tensor(x[2])","values":[3,4]}"#;
    let out = run(&["run", "--named", "", "tensor(x[2]):[1,2]", json]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("11"), "{}", text(&out.stdout));
    let bad = r#"{"type":"tensor(x[2])","values":[1,2,3]}"#;
    let err = assert_error(&run(&["run", "--named", "", bad]), "elems");
    assert!(err.contains("cannot set the cell at position 2"), "{err}");
}

/// `--named` errors spoke of the einsum letters it runs on (`label 'b' has size 4 ...`,
/// `output subscript `a` is repeated`). Every error speaks of the dimension names the user
/// wrote, with the operands counted as given (from 0) and carets into SPEC or the types.
#[test]
fn named_errors_speak_of_dimension_names() {
    let m = "tensor(x[2],y[3]):[[1,2,3],[4,5,6]]";
    let err = assert_error(&run(&["run", "x", "--named", m, "tensor(y[4]):[1,1,1,1]"]), "mismatch");
    assert_eq!(
        err,
        "error[mismatch]: dimension mismatch: `y` is 3 in operand 0 but 4 in operand 1\n  \
         | tensor(y[4])\n  |        ^ size 4 in operand 1\n  1. size 3 in operand 0\n     \
         | tensor(x[2],y[3])\n     |             ^\n  = help: a dimension's sizes must be equal \
         in every operand, or 1 (which broadcasts)\n"
    );
    // The operand that fixed the size, past size-1 operands; a third operand.
    let three = ["tensor(z[1]):[1]", "tensor(z[2]):[1,2]", "tensor(z[3]):[1,2,3]"];
    let err = assert_error(&run(&["run", "", "--named", three[0], three[1], three[2]]), "mismatch");
    assert!(err.contains("dimension mismatch: `z` is 2 in operand 1 but 3 in operand 2"), "{err}");

    let err = assert_error(&run(&["run", "x, y,x", "--named", m]), "label");
    assert!(err.contains("output dimension `x` is named twice (output positions 0 and 2)\n  | x, y,x\n  |      ^\n  | ^ first named here\n"), "{err}");
    let err = assert_error(&run(&["run", "x,q", "--named", m]), "label");
    assert!(err.contains("output dimension `q` is in no operand\n  | x,q\n  |   ^\n"), "{err}");
    assert!(err.contains("= help: the operands' dimensions are x, y"), "{err}");
    for (spec, bad, caret) in
        [("x,,y", "''", "  | x,,y\n  |   ^\n"), ("x y", "'x y'", "  | x y\n  | ^^^\n")]
    {
        let err = assert_error(&run(&["run", spec, "--named", m]), "syntax");
        assert!(err.contains(&format!("output names: {bad} is not a dimension name")), "{err}");
        assert!(err.contains(caret), "{err}");
    }
    let err = assert_error(&run(&["run", "x", "--named", m, "tensor(x{}):{a:1}"]), "unsupported");
    assert!(err.contains("reading operand 1: tensor(x{}) has mapped dimensions"), "{err}");
    let many: Vec<String> = (0..53).map(|i| format!("tensor(d{i}[1]):[1]")).collect();
    let mut args = vec!["run", "", "--named"];
    args.extend(many.iter().map(String::as_str));
    let err = assert_error(&run(&args), "unsupported");
    assert!(err.contains("the operands have 53 distinct dimension names; at most 52"), "{err}");

    // No message names an einsum letter or label.
    let json = run(&["run", "x", "--named", m, "tensor(y[4]):[1,1,1,1]", "--json"]);
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    let d = &doc["diagnostics"][0];
    assert_eq!(d["message"], "dimension mismatch: `y` is 3 in operand 0 but 4 in operand 1");
    assert_eq!(d["primary"]["text"], "tensor(y[4])");
    assert_eq!(bytes(&d["primary"]["span"]), (7, 8));
    assert_eq!(d["related"][0]["text"], "tensor(x[2],y[3])");
    assert_eq!(bytes(&d["related"][0]["span"]), (12, 13));
}

#[cfg(unix)]
#[test]
fn check_walks_symlink_loops_once() {
    let dir = temp_dir("loops");
    let case = r#"{"cases":[{"id":"a","kind":"parse","spec":"i","as":"labels","expect":{"rows":{"output":["i"]}}}]}"#;
    std::fs::write(dir.join("a.json"), case).unwrap();
    std::os::unix::fs::symlink(".", dir.join("self")).unwrap();
    std::os::unix::fs::symlink(".", dir.join("self2")).unwrap();
    let out = run(&["check", dir.to_str().unwrap()]);
    assert_eq!(text(&out.stdout), "1 passed, 0 failed\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn malformed_infer_cases_are_rejected_with_their_own_code() {
    let cases = [
        (
            r#"{"tensors":[{"name":"a","shape":5}],"steps":[{"op":"pointwise_un","out":"b","args":["a"]}]}"#,
            "syntax",
        ),
        (r#"{"tensors":{"a":1},"steps":{"b":2}}"#, "syntax"),
        (
            r#"{"tensors":[{"name":"a","shape":"2"}],"steps":[{"op":"pointwise_un","out":"b","args":[1,"a"]}]}"#,
            "syntax",
        ),
        (
            r#"{"tensors":[{"name":"a","shape":"2"}],"steps":[{"op":"pointwise","out":"b","args":["a"]}]}"#,
            "arity",
        ),
    ];
    for (case, code) in cases {
        assert_error(&run_with(&["infer", "-"], case), code);
    }
    let err =
        assert_error(&run_with(&["infer", "-"], "tensor a: 2\nb = pointwise_un a a\n"), "arity");
    assert!(err.contains("`pointwise_un` expects 1 operand, got 2\n  --> -:2:18\n"), "{err}");
    assert!(err.contains("  | b = pointwise_un a a\n  |                  ^^^\n"), "{err}");
    let err = assert_error(&run_with(&["infer", "-"], "tensor a: 2\nc = pointwise3 a\n"), "arity");
    assert!(err.contains("expects 3 operands, got 1"), "{err}");
}

#[test]
fn declaration_errors_show_their_line_and_carets() {
    let program: String = (0..1000)
        .map(|i| format!("tensor x{i}: {}\n", if i == 500 { "3 4" } else { "3" }))
        .collect();
    let err = assert_error(&run_with(&["infer", "-"], &program), "syntax");
    assert!(err.contains("tensor `x500`: bad shape string: `3 4` is not a size"), "{err}");
    assert!(err.contains("  --> -:501:14\n  | tensor x500: 3 4\n  |              ^^^\n"), "{err}");
    let case = r#"{"tensors":[{"name":"a","shape":"2"},{"name":"b","shape":"2,x"}],"steps":[]}"#;
    let err = assert_error(&run_with(&["infer", "-"], case), "syntax");
    assert!(err.contains("  | 2,x\n  |   ^\n  = at tensors[1]\n"), "{err}");
}

/// A declaration whose line also holds `= WORD "` (a second statement written on the same
/// line, a quote after `=`) was located as a statement: the carets went under the text after
/// the quote, past the end of the line when it was not closed. A declaration is read as one
/// first, so its shape error points into its shape, comments and quotes aside.
#[test]
fn declaration_errors_keep_their_carets_whatever_the_line_holds() {
    let cases = [
        (
            "tensor x: 2,3 = einsum \"ab\n",
            "`3 = einsum \"ab` is not a size",
            "  | tensor x: 2,3 = einsum \"ab\n  |             ^^^^^^^^^^^^^^\n",
            [12, 26],
        ),
        (
            "tensor y: 4 = numpy \"ij,jk\"  x   # c \"d\n",
            "`4 = numpy \"ij` is not a size",
            "  | tensor y: 4 = numpy \"ij,jk\"  x   # c \"d\n  |           ^^^^^^^^^^^^^\n",
            [10, 23],
        ),
        (
            "  param w: 2; y = permute \"i=>i\" a # \"\n",
            "a basis is a name",
            "  |   param w: 2; y = permute \"i=>i\" a # \"\n  |            ^^^^^^^^^^^^^^^^^^^^^^^\n",
            [11, 34],
        ),
        (
            "tensor a\"b = c \"d: 2,q\n",
            "`q` is not a size",
            "  | tensor a\"b = c \"d: 2,q\n  |                      ^\n",
            [21, 22],
        ),
    ];
    for (program, message, carets, span) in cases {
        let program = format!("tensor ok: 2\n{program}");
        let err = assert_error(&run_with(&["infer", "-"], &program), "syntax");
        assert!(err.contains(message), "{program}{err}");
        let column = span[0] + 1;
        assert!(err.contains(&format!("  --> -:2:{column}\n{carets}")), "{program}{err}");
        let json = run_with(&["infer", "--json", "-"], &program);
        let doc: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
        let primary = &doc["diagnostics"][0]["primary"];
        assert_eq!(primary["line"], 2, "{program}{doc}");
        assert_eq!(bytes(&primary["span"]), (span[0], span[1]), "{program}{doc}");
    }
}

#[test]
fn json_operands_report_their_own_error() {
    let err = assert_error(
        &run(&["run", "i->i", r#"{"type":"tensor(x[2])","values":[1,2,3]}"#]),
        "elems",
    );
    assert!(!err.contains("valid double"), "{err}");
    let err = run(&["run", "i->i", r#"{"type":"tensor(x[2])"}"#]);
    assert!(!text(&err.stderr).contains("valid double"), "{}", text(&err.stderr));
}

#[test]
fn vespa_names_are_checked_and_printed_literals_read_back() {
    let err = assert_error(&run(&["run", "ij->ij", "[[1]]", "--vespa-names", "x, a b"]), "syntax");
    assert!(
        err.contains("'a b' is not a dimension name") && err.contains("  | x, a b\n  |    ^^^"),
        "{err}"
    );
    for bad in ["a b", "", "\"", ")"] {
        assert_error(&run(&["run", "i->i", "[1,2]", "--vespa-names", bad]), "syntax");
        let json = run(&["run", "i->i", "[1,2]", "--vespa-names", bad, "--vespa-json"]);
        assert_error(&json, "syntax");
    }
    let out = run(&["run", "ij->ji", "[[1,2,3],[4,5,6]]", "--vespa-names", "b,a_1"]);
    let literal = text(&out.stdout);
    assert_eq!(literal, "tensor(a_1[2],b[3]):[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]\n");
    let back = run(&["run", "a_1,b", "--named", literal.trim()]);
    assert_eq!(text(&back.stdout), literal);
    let json = run(&["run", "i->i", "[1,2]", "--vespa-names", "x", "--vespa-json"]);
    assert_eq!(text(&json.stdout), "{\"type\":\"tensor(x[2])\",\"values\":[1.0,2.0]}\n");
    let one = run(&["run", "ij->ij", "[[7]]", "--vespa-names", "x,y"]);
    assert_eq!(text(&one.stdout), "tensor(x[1],y[1]):[7.0]\n");
}

#[test]
fn results_print_as_nested_json() {
    let out = run(&["run", "ij,jk->ik", "[[1,2],[3,4]]", "[[1,0],[0,1]]"]);
    assert_eq!(text(&out.stdout), "[[1.0,2.0],[3.0,4.0]]\n");
    let out = run(&["run", "ij->", "[[1,2],[3,4]]"]);
    assert_eq!(text(&out.stdout), "10.0\n");
    let out = run(&["run", "ij;jk=>ik", "[[1,2],[3,4]]", "[[1,0],[0,1]]"]);
    assert_eq!(text(&out.stdout), "[[1.0,2.0],[3.0,4.0]]\n");
}

/// A JSON span's start and end byte offsets.
fn bytes(span: &serde_json::Value) -> (u64, u64) {
    let at = |k: &str| span[k]["byte"].as_u64().unwrap_or(u64::MAX);
    (at("start"), at("end"))
}
