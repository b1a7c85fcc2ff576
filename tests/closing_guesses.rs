//! Closing choices that no operation forced are reported, never silent: an input's open row
//! closed to no axes, an underdetermined dimension closed to 1; a parameter's are errors.

use einrow::code::{Coded, ErrorCode};
use einrow::infer::{Graph, ShapeBuilder, Warning};
use einrow::spec::ast::RowKind;

#[cfg(feature = "cli")]
fn einrow() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_einrow"))
}

#[test]
fn an_inputs_open_batch_row_closing_empty_is_a_warning() {
    let mut g = Graph::new();
    let x = g.declare("x", Some("...|8"), false).expect("declares");
    let w = g.declare("w", Some("8->4"), true).expect("declares");
    g.compose(w, x).expect("adds");
    g.solve().expect("solves");
    let warnings = g.warnings();
    assert!(
        matches!(&warnings[..], [Warning::ClosedRow { tensor, row: RowKind::Batch, .. }] if *tensor == x),
        "{warnings:?}"
    );
    // A batch some operation sizes is no guess.
    let mut g = Graph::new();
    let x = g.declare("x", Some("...|8"), false).expect("declares");
    let y = g.input("y", &ShapeBuilder::new().batch([5]).output([8])).expect("declares");
    g.pointwise(&[x, y]).expect("adds");
    g.solve().expect("solves");
    assert!(g.warnings().is_empty(), "{:?}", g.warnings());
}

#[test]
fn an_underdetermined_strided_split_closing_to_one_is_a_warning() {
    let mut g = Graph::new();
    let x = g.declare("x", Some("8"), false).expect("declares");
    let y = g.permute("4*h<+k => h,k", x).expect("adds");
    g.solve().expect("solves");
    assert_eq!(g.shape_string(y).expect("solved"), "1,8");
    let warnings = g.warnings();
    let w = warnings.iter().find(|w| matches!(w, Warning::ClosedDim { .. })).expect("warned");
    assert!(
        matches!(w, Warning::ClosedDim { tensor, dim, size: 1, .. } if *tensor == y && dim == "h"),
        "{w:?}"
    );
    assert!(w.to_string().contains("other sizes fit"), "{w}");
}

#[test]
fn a_parameters_undetermined_axes_stay_errors() {
    let mut g = Graph::new();
    g.declare("x", Some("8|..."), true).expect("declares");
    let e = g.solve().expect_err("nothing sizes the output row");
    assert_eq!(e.code(), ErrorCode::Unresolved);
    let mut g = Graph::new();
    let x = g.declare("x", Some("8|..."), true).expect("declares");
    let y = g.declare("y", Some("8|1!,1!"), false).expect("declares");
    g.pointwise(&[x, y]).expect("adds");
    let e = g.solve().expect_err("broadcast axes do not size a parameter");
    assert_eq!(e.code(), ErrorCode::Unresolved);
}

#[cfg(feature = "cli")]
#[test]
fn the_cli_prints_the_warnings_and_denies_them_on_request() {
    let dir = std::env::temp_dir().join(format!("einrow-guesses-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("split.ein");
    std::fs::write(&file, "tensor x: 8\ny = permute \"4*h<+k => h,k\" x\n").expect("writes");
    let out = einrow().arg("infer").arg(&file).output().expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("warning[guessed-size]: dimension `h` of `y`"), "{stderr}");
    assert!(stderr.contains("split.ein:2:1"), "{stderr}");
    let out = einrow().arg("infer").arg("--deny-warnings").arg(&file).output().expect("runs");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let out = einrow().args(["infer", "--deny", "guessed-size"]).arg(&file).output().expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("error[guessed-size]: dimension `h` of `y`"), "{stderr}");
    let out =
        einrow().args(["infer", "--allow", "guessed-size"]).arg(&file).output().expect("runs");
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "an allowed lint says nothing");
    let _ = std::fs::remove_dir_all(&dir);
}
