//! `einrow infer --help` lists every operation of the program format, and each name it lists
//! is one the program reader accepts.

#![cfg(feature = "cli")]

use std::process::Command;

use einrow::infer::program::{op_from_name, OP_NAMES as OPS};
use einrow::infer::OpKind;

#[test]
fn infer_help_lists_every_op_and_points_to_the_program_docs() {
    let out = Command::new(env!("CARGO_BIN_EXE_einrow"))
        .args(["infer", "--help"])
        .output()
        .expect("runs einrow infer --help");
    assert!(out.status.success(), "einrow infer --help failed: {out:?}");
    let help = String::from_utf8(out.stdout).expect("utf-8 help");
    for op in OPS {
        assert!(op_from_name(op).is_some(), "`{op}` is not an op the reader accepts");
        let listed = help
            .lines()
            .any(|l| l.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|word| word == op));
        assert!(listed, "`{op}` missing from einrow infer --help:\n{help}");
    }
    assert!(help.contains("einrow::infer::program"), "no pointer to the program docs:\n{help}");
}

#[test]
fn every_op_kind_is_in_the_list() {
    for k in OpKind::ALL {
        assert!(OPS.contains(&k.name()), "{k} is missing from the list of ops");
        assert_eq!(op_from_name(k.name()), Some(k));
    }
}
