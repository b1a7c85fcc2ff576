//! Hostile input at the library level: sizes that cannot be allocated, malformed programs and
//! cases, folder walks with symbolic-link loops, streamed case files and printers, and the Vespa
//! readers and writers on inputs an attacker (or a fuzzer) would try. Each test names the class
//! of input it freezes; `tests/cli.rs` runs the same classes through the `einrow` binary.

#![cfg(feature = "kernel")]

use std::path::{Path, PathBuf};

use einrow::check::{collect_files, run_case, run_file_with, CaseResult};
use einrow::diagnostic::{render, Label};
use einrow::formats::convert::{read_tensor, to_vespa, write_nested_json};
use einrow::formats::vespa::{self, is_dimension_name, EncodeOptions, Tensor as VespaTensor};
use einrow::infer::explain::render_error;
use einrow::infer::program::{Program, MAX_STATEMENTS};
use einrow::numpy::{einsum_path, Optimize, PathOptions, MAX_REMAINING_TERMS};
use einrow::project::{plan_einsum, run_plan, Concrete};
use einrow::tensor::{DType, Tensor};
use einrow::{Coded, ErrorCode, Span};
use serde_json::{json, Value};

// ---- allocation ------------------------------------------------------------------------------

/// A plan whose result has 2^62 elements (a fixed output index) is a `value` error when it runs,
/// not a capacity-overflow panic.
#[test]
fn plan_result_of_2_pow_62_elements_is_a_value_error() {
    let a = Concrete::output(&[2]);
    let plan = plan_einsum("i=>4611686018427387903", &[&a]).expect("plans");
    let e = run_plan(&plan, &[&[1.0, 2.0]]).expect_err("cannot allocate 2^62 elements");
    assert_eq!(e.code(), ErrorCode::Value, "{e}");
    assert!(e.to_string().contains("cannot allocate"), "{e}");
}

/// Random operands of sizes that pass the 2^62 check but not the allocator are errors.
#[test]
fn operand_buffers_are_allocated_fallibly() {
    let values = std::iter::repeat(0.5);
    let e = Tensor::from_f64_iter(DType::F64, &[1 << 62], values).expect_err("too large");
    assert_eq!(e.code(), ErrorCode::Value);
    let e = Tensor::from_f64_iter(DType::I8, &[1 << 31, 1 << 31], std::iter::repeat(1.0));
    assert_eq!(e.expect_err("2^62 bytes").code(), ErrorCode::Value);
    let t = Tensor::from_f64_iter(DType::BF16, &[2, 3], (0..).map(f64::from)).expect("small");
    assert_eq!(t.try_to_f64_vec(), Ok(vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]));
}

fn infer_case(shape: &str, values: Value, spec: &str) -> Value {
    json!({"id": "c", "kind": "infer",
        "tensors": [{"name": "a", "shape": shape, "values": values}],
        "steps": [{"op": "permute", "out": "b", "args": ["a"], "spec": spec}],
        "expect": {"shapes": {}, "values": {"b": [0]}}})
}

/// `infer` cases whose values need a 2^62-element result fail (the case), without a panic.
#[test]
fn infer_case_values_of_2_pow_62_elements_fail_the_case() {
    let zero_rows = infer_case("0,4611686018427387904", json!([]), "ij=>j");
    let fixed = infer_case("2", json!([1, 2]), "i=>4611686018427387903");
    for case in [zero_rows, fixed] {
        let detail = run_case(&case).expect_err("the result cannot be allocated");
        assert!(detail.contains("cannot allocate"), "{detail}");
    }
}

/// A `view` case that lists the values of a 10^9-element view fails with a `value` error at
/// once (the view itself is described lazily).
#[test]
fn view_values_of_a_billion_elements_fail_the_case() {
    let case = json!({"id": "v", "kind": "view",
        "base": {"axes": [{"name": "A", "length": 1_000_000_000u64}], "dtype_bytes": 8},
        "ops": [], "expect": {"values": []}});
    let detail = run_case(&case).expect_err("too many values to list");
    assert!(detail.contains("error [value]") && detail.contains("at most"), "{detail}");
    let shape_only = json!({"id": "v", "kind": "view",
        "base": {"axes": [{"name": "A", "length": 1_000_000_000u64}], "dtype_bytes": 8},
        "ops": [], "expect": {"shape": [1_000_000_000u64]}});
    assert_eq!(run_case(&shape_only), Ok(()));
}

// ---- programs and cases ----------------------------------------------------------------------

fn case_error(case: Value) -> (ErrorCode, String) {
    let e = Program::from_case(&case).expect_err("malformed case");
    (e.code(), e.to_string())
}

/// Members of the wrong JSON type are `syntax` errors naming the member, never read as
/// "nothing known" or dropped.
#[test]
fn infer_cases_with_members_of_the_wrong_type_are_rejected() {
    let step = json!({"op": "pointwise_un", "out": "b", "args": ["a"]});
    let wrong = [
        (json!({"tensors": [{"name": "a", "shape": 5}], "steps": [step]}), "tensors[0].shape"),
        (json!({"tensors": {"a": 1}, "steps": {"b": 2}}), "\"tensors\" must be a list"),
        (json!({"tensors": [], "steps": {"b": 2}}), "\"steps\" must be a list"),
        (
            json!({"tensors": [{"name": "a", "shape": "2"}],
                "steps": [{"op": "pointwise_un", "out": "b", "args": [1, "a"]}]}),
            "steps[0].args[0] must be a tensor name, not 1",
        ),
        (json!({"tensors": [{"name": "a", "param": "yes"}], "steps": []}), "tensors[0].param"),
        (json!({"tensors": [{"name": "a", "values": [1, "x"]}], "steps": []}), "tensors[0].values"),
        (json!({"tensors": [{"name": 7}], "steps": []}), "tensors[0].name must be a string"),
        (json!({"tensors": [3]}), "tensors[0] must be an object"),
        (json!({"steps": []}), "no \"tensors\" list"),
        (json!({"tensors": []}), "no \"steps\" list"),
        (
            json!({"tensors": [], "steps": [{"op": "transpose", "out": "b"}]}),
            "steps[0]: no \"args\"",
        ),
        (json!({"suite": "s", "cases": []}), "a case file, not an infer case"),
        (json!([1, 2]), "an infer case is an object"),
        (
            json!({"tensors": [{"name": "a"}],
                "steps": [{"op": "permute", "out": "b", "args": ["a"], "spec": 4}]}),
            "steps[0].spec",
        ),
        (
            json!({"tensors": [{"name": "a"}], "steps": [{"op": "permute", "out": "b", "args": "a"}]}),
            "steps[0]: \"args\" must be a list",
        ),
    ];
    for (case, place) in wrong {
        let (code, message) = case_error(case.clone());
        assert_eq!(code, ErrorCode::Syntax, "{case}: {message}");
        assert!(message.contains(place), "{case}: {message:?} does not name {place:?}");
    }
    let ok = json!({"tensors": [{"name": "a", "shape": null, "param": false, "values": null}],
        "steps": [{"op": "pointwise_un", "out": "b", "args": ["a"], "spec": null}]});
    assert!(Program::from_case(&ok).is_ok());
}

/// The `pointwise*` ops fix their operand counts, in cases and in text programs alike: an
/// `arity` error that states both counts.
#[test]
fn pointwise_operand_counts_are_checked_in_cases_and_text() {
    let case = json!({"tensors": [{"name": "a", "shape": "2"}],
        "steps": [{"op": "pointwise", "out": "b", "args": ["a"]}]});
    let (code, message) = case_error(case);
    assert_eq!(code, ErrorCode::Arity);
    assert!(message.contains("`pointwise` expects 2 operands, got 1"), "{message}");
    let text = |t: &str| Program::parse_text(t).expect_err("wrong operand count");
    let e = text("tensor a: 2\nb = pointwise_un a a\n");
    assert_eq!((e.code(), e.line), (ErrorCode::Arity, 2));
    assert!(e.to_string().contains("`pointwise_un` expects 1 operand, got 2"), "{e}");
    let e = text("tensor a: 2\n\nc = pointwise3 a\n");
    assert_eq!((e.code(), e.line), (ErrorCode::Arity, 3));
    assert!(e.to_string().contains("`pointwise3` expects 3 operands, got 1"), "{e}");
    assert!(Program::parse_text("tensor a: 2\nb = pointwise3 a a a\n").is_ok());
}

/// A program text of millions of statements needs about 500 bytes a statement to build, and
/// the reader took up to 1 GiB of text: 6M statements (150 MB) ran out of memory under 4 GiB.
/// The reader stops at the first line past [`MAX_STATEMENTS`], with its line and span.
#[test]
fn program_texts_past_the_statement_limit_are_a_resource_error() {
    let mut text = "tensor x\n".repeat(MAX_STATEMENTS);
    text.push_str("# the limit\n\n  y = pointwise x x\n");
    let e = Program::parse_text(&text).expect_err("one statement too many");
    assert_eq!((e.code(), e.line), (ErrorCode::Resource, MAX_STATEMENTS + 3), "{e}");
    assert_eq!(e.span.map(|s| (s.start, s.end)), Some((2, 19)), "{e}");
    text.truncate(text.len() - "  y = pointwise x x\n".len());
    assert_eq!(Program::parse_text(&text).expect("at the limit").decls.len(), MAX_STATEMENTS);
}

/// A byte-order mark before the first statement (some editors write one) is skipped, and
/// spans still point into the line as written.
#[test]
fn a_byte_order_mark_before_a_program_is_skipped() {
    let p =
        Program::parse_text("\u{feff}tensor a: 2,3\nb = transpose \"ij=>ji\" a\n").expect("parses");
    assert_eq!((p.decls.len(), p.stmts.len()), (1, 1));
    let e = Program::parse_text("\u{feff}  what\n").expect_err("not a statement");
    assert_eq!((e.code(), e.line), (ErrorCode::Syntax, 1), "{e}");
    assert_eq!(e.span.map(|s| (s.start, s.end)), Some((5, 9)), "{e}");
    // The mark is drawn with no width: the carets stand under `what`.
    let label = Label { span: Span::new(5, 9), note: String::new() };
    let text = render("\u{feff}  what", ErrorCode::Syntax, "not a statement", &[label]);
    assert!(text.ends_with("\n  |   ^^^^\n"), "{text}");
}

/// The same limit for an `infer` case: its lists are counted before they are read.
#[test]
fn infer_cases_past_the_statement_limit_are_a_resource_error() {
    let case = json!({"tensors": [{"name": "x"}], "steps": vec![Value::Null; MAX_STATEMENTS]});
    let e = Program::from_case(&case).expect_err("one past the limit");
    assert_eq!(e.code(), ErrorCode::Resource, "{e}");
    assert!(e.to_string().contains(&MAX_STATEMENTS.to_string()), "{e}");
}

/// A bad shape string in a declaration is reported with the declaration's line and a span
/// into the shape text, rendered with carets like a step's spec.
#[test]
fn declaration_errors_carry_their_line_and_a_span() {
    let mut text: String = (0..1000).map(|i| format!("tensor x{i}: 3\n")).collect();
    text = text.replace("tensor x500: 3\n", "tensor x500: 3, 4 5\n");
    let program = Program::parse_text(&text).expect("reads");
    let built = program.build();
    let (e, line) = built.result.clone().expect_err("bad shape");
    assert_eq!((e.code(), line), (ErrorCode::Syntax, Some(501)));
    assert_eq!(built.names.len(), 500, "the failing declaration is not recorded");
    let shown = render_error(Some(&built.graph), &e, false);
    assert!(shown.contains("tensor `x500`: bad shape string: `4 5` is not a size"), "{shown}");
    assert!(shown.contains("  | 3, 4 5\n  |   ^^^^"), "{shown}");
}

/// Names resolve through a map to their latest definition (a name may be defined again), so a
/// wide fan-in program builds in linear time.
#[test]
fn names_resolve_to_their_latest_definition() {
    let text = "tensor x: 2\ntensor y: 3\nx = pointwise_un y\nz = pointwise x x\n";
    let built = Program::parse_text(text).expect("reads").build();
    assert!(built.result.is_ok());
    let z = built.tensor("z").expect("defined");
    let x = built.tensor("x").expect("defined");
    assert_eq!(built.names.iter().filter(|(n, _)| n == "x").count(), 2);
    let g = built.graph;
    assert_eq!(g.shape_string(x).expect("solved"), "3");
    assert_eq!(g.shape_string(z).expect("solved"), "3");
    let mut wide = String::from("tensor x: 2|3->4\n");
    for i in 0..100_000 {
        wide.push_str(&format!("y{i} = pointwise_un x\n"));
    }
    let built = Program::parse_text(&wide).expect("reads").build();
    assert!(built.result.is_ok());
    assert_eq!(built.names.len(), 100_001);
}

// ---- case files and folders ------------------------------------------------------------------

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("einrow-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

const PARSE_CASE: &str =
    r#"{"id":"a","kind":"parse","spec":"i","as":"labels","expect":{"rows":{"output":["i"]}}}"#;

/// Symbolic links back up the tree (loops) are walked once: each file is found once and the
/// walk ends.
#[cfg(unix)]
#[test]
fn folder_walks_visit_each_file_once_through_symlink_loops() {
    let dir = temp_dir("loops");
    std::fs::write(dir.join("a.json"), format!(r#"{{"cases":[{PARSE_CASE}]}}"#)).expect("write");
    std::fs::create_dir(dir.join("sub")).expect("sub");
    std::fs::write(dir.join("sub/b.json"), format!(r#"{{"cases":[{PARSE_CASE}]}}"#)).unwrap();
    for (link, target) in [("self", "."), ("self2", "."), ("sub/up", ".."), ("sub/again", ".")] {
        std::os::unix::fs::symlink(target, dir.join(link)).expect("symlink");
    }
    let files = collect_files(&[dir.clone(), dir.join("a.json")]).expect("walks");
    let names: Vec<String> =
        files.iter().map(|f| f.strip_prefix(&dir).unwrap().display().to_string()).collect();
    assert_eq!(names, ["a.json", "sub/b.json"]);
    let _ = std::fs::remove_dir_all(&dir);
}

fn run_streamed(path: &Path) -> (Vec<CaseResult>, Result<(), String>) {
    let mut results = Vec::new();
    let r = run_file_with(path, &|_| true, &mut |r| results.push(r));
    (results, r.map_err(|e| e.to_string()))
}

/// Case files are read one case at a time: members around `cases` are skipped in any order,
/// and the cases before a syntax error later in the file have run when it is reported.
#[test]
fn case_files_are_streamed_case_by_case() {
    let dir = temp_dir("stream");
    let good = dir.join("good.json");
    let text = format!(
        r#"{{"about":{{"x":[1,2]}},"cases":[{PARSE_CASE},{PARSE_CASE}],"suite":"s","more":null}}"#
    );
    std::fs::write(&good, text).unwrap();
    let (results, r) = run_streamed(&good);
    assert_eq!((results.len(), r), (2, Ok(())));
    assert!(results.iter().all(|c| c.pass));
    let broken = dir.join("broken.json");
    std::fs::write(&broken, format!(r#"{{"cases":[{PARSE_CASE}, {{"id": oops}}]}}"#)).unwrap();
    let (results, r) = run_streamed(&broken);
    assert_eq!(results.len(), 1, "the first case ran before the error");
    assert!(r.is_err());
    for (text, what) in [
        (r#"{"suite":"s"}"#, "no \"cases\" list"),
        (r#"{"cases":{"a":1}}"#, "a list of cases"),
        (r#"[1]"#, "a case file"),
        (r#"{"cases":[]} extra"#, "trailing characters"),
    ] {
        let p = dir.join("bad.json");
        std::fs::write(&p, text).unwrap();
        let (results, r) = run_streamed(&p);
        let e = r.expect_err(text);
        assert!(results.is_empty() && e.contains(what), "{text}: {e}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- printers --------------------------------------------------------------------------------

fn nested_text(t: &Tensor) -> String {
    let mut out = Vec::new();
    write_nested_json(t, &mut out).expect("writes");
    String::from_utf8(out).expect("UTF-8")
}

/// The streamed nested-JSON printer writes what a JSON value tree of the data prints, for
/// every rank, size-0 axes included.
#[test]
fn nested_json_is_streamed_with_the_shape_of_the_data() {
    fn tree(shape: &[usize], data: &[f64]) -> Value {
        match shape.split_first() {
            None => json!(data[0]),
            Some((&n, rest)) => {
                let step: usize = rest.iter().product();
                Value::Array((0..n).map(|i| tree(rest, &data[i * step..(i + 1) * step])).collect())
            }
        }
    }
    for shape in [&[][..], &[1], &[3], &[2, 3], &[2, 1, 3], &[1, 1, 1, 1], &[3, 2, 2, 2]] {
        let n: usize = shape.iter().product();
        let data: Vec<f64> = (0..n).map(|i| i as f64 * 0.5 - 1.0).collect();
        let t = Tensor::from_vec(shape, data.clone()).unwrap();
        assert_eq!(nested_text(&t), tree(shape, &data).to_string(), "{shape:?}");
        assert_eq!(nested_text(&t.transpose()), {
            let c = t.transpose().to_f64_vec();
            let s: Vec<usize> = shape.iter().rev().copied().collect();
            tree(&s, &c).to_string()
        });
    }
    let empty = |shape: &[usize]| nested_text(&Tensor::zeros(DType::F64, shape).unwrap());
    assert_eq!(empty(&[0]), "[]");
    assert_eq!(empty(&[2, 0, 3]), "[[],[]]");
    assert_eq!(empty(&[2, 3, 0]), "[[[],[],[]],[[],[],[]]]");
    let t = Tensor::from_vec(&[3], vec![f64::INFINITY, f64::NEG_INFINITY, 1e300]).unwrap();
    assert_eq!(nested_text(&t), r#"["inf","-inf",1e+300]"#);
    let wide = Tensor::zeros(DType::F64, &[1 << 25, 0]).unwrap();
    assert_eq!(
        write_nested_json(&wide, &mut Vec::new()).map_err(|e| e.code()).err(),
        Some(ErrorCode::Unsupported)
    );
}

// ---- Vespa -----------------------------------------------------------------------------------

/// The six inputs the `formats` fuzz target found: a general-form literal naming a dimension
/// the type parser rejects. They must satisfy the target's property (whatever reads back, prints
/// to text that reads back), and now they do not read at all.
#[test]
fn formats_fuzz_artifacts_hold_the_round_trip_property() {
    let artifacts = [
        "{ {d1:@@@@*@@@@@@@@@@@@@@@@@00,00000000000@@@@d1:@@@@*@@@@@@@@@@@@@@@@@0@>\0@\\\\@@@@@000000000l1}:6.0} ",
        "{{x$:a[d}:2}",
        "{{@:a,y:l}:2}",
        "{ {d1@:@@@@@@@@@@@@\u{13f}@@@@@@@@@@@@@@@@@@@@@@@00000000000000000002[00000000000000@\u{13f}@@@@@@@@@\u{7f}\u{7f}\u{7f}l1}:6.0} ",
        "{{-:*\u{1}\0\0\0.'..1*.}:8}",
        "{ {d@1@:000%00000[0000000000000000l1\u{7f}{\0\0\0\0\0\u{7f}\u{7f}l2}:6.0} ",
    ];
    for text in artifacts {
        assert_eq!(einrow::formats::roundtrip::check_text(text), Ok(()), "{text:?}");
        let e = VespaTensor::from_literal(text, None).expect_err("a bad dimension name");
        assert_eq!(e.code(), ErrorCode::Syntax, "{text:?}: {e}");
    }
    // Names made of letters, digits and '_' (a leading digit included) still read and print.
    let t = VespaTensor::from_literal("{{00d1:a,_y:l}:2}", None).expect("reads");
    assert_eq!(t.to_text(), "tensor(00d1{},_y{}):{{00d1:a,_y:l}:2.0}");
    assert!(VespaTensor::from_literal(&t.to_text(), None).is_ok());
}

/// A 41-byte literal of a ten-million-cell dense tensor (the `formats` target timed out on it,
/// printing and reading back its text four times): it reads, within the readers' cell limit,
/// and the round trips are checked on smaller tensors only.
#[test]
fn a_short_literal_of_a_huge_tensor_is_not_round_tripped() {
    let text = "\n\u{11}\u{11}\u{11}tensor(x[0000000000010000000]):{}\u{11}\u{11}\u{11}\u{11}";
    assert_eq!(einrow::formats::roundtrip::check_text(text), Ok(()));
    let t = VespaTensor::from_literal(text.trim_matches(|c| c == '\n' || c == '\u{11}'), None)
        .expect("ten million cells are within the readers' limit");
    assert_eq!(t.len(), 10_000_000);
    assert!(t.len() > einrow::formats::roundtrip::ROUNDTRIP_CELLS);
    let small = "tensor(x[3]):{}";
    let t = VespaTensor::from_literal(small, None).expect("reads");
    assert_eq!(t.to_text(), "tensor(x[3]):[0.0, 0.0, 0.0]");
    assert_eq!(einrow::formats::roundtrip::check_text(small), Ok(()));
}

/// Every seed of the `formats` fuzz target holds the target's property.
#[test]
fn formats_fuzz_seeds_hold_the_round_trip_property() {
    let dir = Path::new("fuzz/seeds/formats");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).expect("seed folder") {
        let bytes = std::fs::read(entry.expect("entry").path()).expect("seed");
        if let Ok(text) = std::str::from_utf8(&bytes) {
            assert_eq!(einrow::formats::roundtrip::check_text(text), Ok(()), "{text:?}");
            n += 1;
        }
    }
    assert!(n >= 200, "seeds went missing: {n}");
}

/// One rule for dimension names in every reader and writer: names given to the converter are
/// checked too, so every printed literal reads back.
#[test]
fn dimension_names_follow_one_rule_everywhere() {
    for bad in ["a b", "", "\"", ")", "@", "x$", "-", "x[2]"] {
        assert!(!is_dimension_name(bad), "{bad:?}");
        let spec = format!("tensor({bad}[2])");
        assert!(vespa::TensorType::parse(&spec).is_err(), "{spec}");
        let t = Tensor::from_vec(&[2], vec![1.0, 2.0]).unwrap();
        let e = to_vespa(&t, &[bad.to_string()]).expect_err(bad);
        assert_eq!(e.code(), ErrorCode::Syntax, "{bad:?}: {e}");
    }
    let t = Tensor::from_vec(&[2, 3], (0..6).map(f64::from).collect()).unwrap();
    let v = to_vespa(&t, &["y".into(), "x_1".into()]).expect("valid names");
    assert_eq!(v.to_text(), "tensor(x_1[3],y[2]):[[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]");
    assert_eq!(VespaTensor::from_literal(&v.to_text(), None).expect("reads back"), v);
}

/// A Vespa JSON operand's own decoding error is reported (not the literal reader's).
#[test]
fn json_operands_report_the_json_readers_error() {
    let e = read_tensor(r#"{"type":"tensor(x[2])","values":[1,2,3]}"#).expect_err("3 for 2");
    assert!(!e.to_string().contains("not a valid double"), "{e}");
    assert!(e.to_string().contains('3') && e.to_string().contains('2'), "{e}");
    let e = read_tensor(r#"  { "type":"tensor(x[2])"}"#).expect_err("no values");
    assert!(!e.to_string().contains("not a valid double"), "{e}");
    let e = read_tensor(r#"{"values":[1,2]}"#).expect_err("no type");
    assert!(!e.to_string().contains("not a valid double"), "{e}");
    let ok = read_tensor(r#"{"type":"tensor(x[2])","values":[1,2]}"#).expect("JSON");
    assert_eq!(ok.tensor.to_f64_vec(), vec![1.0, 2.0]);
    let literal = read_tensor("{{x:0}:1.0}").map(|t| t.tensor.to_f64_vec());
    assert!(literal.is_err(), "a mapped dimension is not dense");
    let e = read_tensor("{{x:0}:1.0").expect_err("unclosed literal");
    assert!(e.to_string().contains("'}'"), "{e}");
}

/// Java's printing and leniency, from vespajlib's own tests: a one-cell dense tensor of any rank
/// prints as `[v]`, text after a complete dense or mixed literal is ignored, and the general
/// form takes a trailing comma.
#[test]
fn vespa_literals_are_read_and_printed_as_java_does() {
    let read = |s: &str| VespaTensor::from_literal(s, None).unwrap_or_else(|e| panic!("{s}: {e}"));
    for (literal, text) in [
        ("tensor(x[1],y[1]):[[1.0]]", "tensor(x[1],y[1]):[1.0]"),
        ("tensor(x[1],y[1]):[1]", "tensor(x[1],y[1]):[1.0]"),
        ("tensor<float>(a[1],b[1],c[1]):[[[2.5]]]", "tensor<float>(a[1],b[1],c[1]):[2.5]"),
        ("tensor(x[1]):[3]", "tensor(x[1]):[3.0]"),
        ("tensor(x[2]):[1.0, 2.0]]", "tensor(x[2]):[1.0, 2.0]"),
        ("tensor(x[2],y[1]):[[1],[2]] trailing", "tensor(x[2],y[1]):[[1.0], [2.0]]"),
        ("tensor(x[]):[1,2]]", "tensor(x[]):{0:1.0, 1:2.0}"),
        ("tensor(k{},x[2]):{a:[1,2]}}", "tensor(k{},x[2]):{a:[1.0, 2.0]}"),
        ("{{x:a}:1.0,}", "tensor(x{}):{a:1.0}"),
        ("{{x:a,y:b,}:1.0, {x:c,y:d}:2,}", "tensor(x{},y{}):{{x:a,y:b}:1.0, {x:c,y:d}:2.0}"),
        ("tensor(x{}):{{x:a}:1.0 , }", "tensor(x{}):{a:1.0}"),
    ] {
        assert_eq!(read(literal).to_text(), text, "{literal}");
        assert_eq!(read(text).to_text(), text, "{text} reads back");
    }
    for still_wrong in ["{{x:a}:1.0} trailing", "{{x:a}:1.0,,}", "tensor(k{}):{a:1,}"] {
        assert!(VespaTensor::from_literal(still_wrong, None).is_err(), "{still_wrong}");
    }
    // The streamed JSON writer agrees with the document read back as a value.
    let t = read("tensor<int8>(k{},x[2]):{a:[1,-2], 'b c':[3,4]}");
    let opts = EncodeOptions { short_form: true, ..Default::default() };
    let mut bytes = Vec::new();
    vespa::write_json(&t, opts, &mut bytes).expect("writes");
    assert_eq!(String::from_utf8(bytes).unwrap(), vespa::encode_json(&t, opts).to_string());
    assert_eq!(
        vespa::encode_json(&t, opts),
        json!({"type": "tensor<int8>(k{},x[2])", "blocks": {"a": [1, -2], "b c": [3, 4]}})
    );
}

// ---- reports and operands linear in their input ----------------------------------------------

/// The path report wrote the whole remaining einsum at every step: n operands made a report of
/// n^2/2 terms (50k operands of one label ran out of memory). Past
/// [`MAX_REMAINING_TERMS`] operands the remaining einsum names the first and the last ones
/// around a count of the rest.
#[test]
fn a_path_report_over_many_operands_is_linear() {
    let n = 2_000;
    let spec = format!("{}->", vec!["ab"; n].join(","));
    let shapes = vec![&[3usize, 3][..]; n];
    let report = einsum_path(&spec, &shapes, &PathOptions::new(Optimize::Greedy)).expect("plans");
    let steps = report.contractions();
    assert_eq!(steps.len(), n - 1);
    let written: usize = steps.iter().map(|c| c.remaining.len()).sum();
    assert!(written < 4 * MAX_REMAINING_TERMS * n, "{written} bytes of remaining einsums");
    let first = &steps[0].remaining;
    assert!(first.contains(&format!(",[{} more],", n - 1 - MAX_REMAINING_TERMS)), "{first}");
    assert!(first.starts_with("ab,ab,") && first.ends_with(",ab->"), "{first}");
    let short = &steps[n - 1 - MAX_REMAINING_TERMS].remaining;
    assert_eq!(short, &format!("{}->", vec!["ab"; MAX_REMAINING_TERMS].join(",")));
    assert_eq!(steps[n - 2].remaining, "->");
}

/// A nested JSON operand was read into a JSON tree first (about 40 bytes a number): a 300 MB
/// operand ran out of memory under 4 GiB. It is read straight into its values; its errors say
/// where reading stopped.
#[test]
fn nested_json_operands_are_read_without_a_tree() {
    let n = 1 << 20;
    let text = format!("[{}]", vec!["[1.5,-2]"; n].join(","));
    let t = read_tensor(&text).expect("reads").tensor;
    assert_eq!(t.shape(), &[n, 2]);
    let values = t.to_f64_vec();
    assert_eq!((values[0], values[1], values[2 * n - 1]), (1.5, -2.0, -2.0));
    for (bad, at) in [("[[1,2],\n [3]]", 11), ("[[1,2],[3,\"x\"]]", 12), ("[1,2", 3)] {
        let e = read_tensor(bad).expect_err(bad);
        assert_eq!(e.code(), ErrorCode::Syntax, "{bad}: {e}");
        let Some(span) = e.span() else { panic!("{bad}: {e} has no span") };
        assert_eq!(span.start, at, "{bad}: {e}");
    }
}

/// An operand of more than 64 axes was analysed before its rank was checked: an ellipsis
/// over n axes looked each of its dims up in a list of the others (n^2: 40k axes took 1.5 s,
/// a case file's 10M axes hung), and the error then reported the einsum's other dimensions
/// ("iterates over 1 dimensions ... at most 64"). The rank is checked first and named.
#[test]
fn operands_of_more_than_64_axes_are_named_at_once() {
    use einrow::numpy::{einsum_shape, EinsumError};
    let wide = vec![1usize; 1 << 20];
    for (spec, shapes) in [("...->...", vec![&wide[..]]), ("i,...->", vec![&[3][..], &wide[..]])] {
        let e = einsum_shape(spec, &shapes).expect_err("too many axes");
        assert_eq!(e.code(), ErrorCode::Rank, "{e}");
        let operand = shapes.len() - 1;
        assert!(
            matches!(e, EinsumError::OperandRank { operand: o, axes, .. } if o == operand && axes == wide.len()),
            "{e}"
        );
        assert!(
            e.to_string().contains(&format!("operand {operand} has {} axes", wide.len())),
            "{e}"
        );
        assert_eq!(
            e.span().map(|s| &spec[s.range()]),
            Some(spec.split([',', '-']).nth(operand).unwrap())
        );
    }
    let long = "a".repeat(100);
    let e = einsum_shape(&long, &[&[1; 100][..]]).expect_err("100 axes");
    assert!(e.to_string().contains("operand 0 has 100 axes"), "{e}");
}
