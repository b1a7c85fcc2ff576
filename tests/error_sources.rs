//! Errors that wrap another keep it as their `source()`, and say only their own context in
//! `Display`, so a report that walks the chain (anyhow, eyre, tracing) shows each message
//! once; lifting an error to a higher layer (`ProjectError::Infer`, `EinsumError::Spec`) is
//! transparent: the same message and the same chain.

use std::error::Error;

use einrow::infer::{Graph, InferError, ShapeBuilder};
use einrow::project::ProjectError;
use einrow::spec::SpecError;
use einrow::{Coded, ErrorCode};

/// Every message of the chain from `e` down, outermost first.
fn chain(e: &dyn Error) -> Vec<String> {
    let mut out = vec![e.to_string()];
    let mut cause = e.source();
    while let Some(c) = cause {
        assert!(out.len() < 16, "a chain of errors that does not end: {out:?}");
        out.push(c.to_string());
        cause = c.source();
    }
    out
}

/// No message of a chain repeats a message below it.
fn each_message_once(e: &dyn Error) {
    let messages = chain(e);
    for (i, outer) in messages.iter().enumerate() {
        for inner in &messages[i + 1..] {
            assert!(!outer.contains(inner.as_str()), "{outer:?} repeats {inner:?}");
        }
    }
}

fn spec_error() -> InferError {
    let mut g = Graph::new();
    let a = g.input("a", &ShapeBuilder::new().output([2, 3])).expect("declares");
    let b = g.input("b", &ShapeBuilder::new().output([3, 4])).expect("declares");
    g.einsum("ij;jk=>i,,k", &[a, b]).expect_err("a stray comma")
}

#[test]
fn a_step_whose_spec_does_not_parse_has_the_parse_error_as_its_source() {
    let e = spec_error();
    let InferError::Spec { spec, error, .. } = &e else { panic!("a spec error: {e:?}") };
    assert_eq!(spec, "ij;jk=>i,,k");
    let source = e.source().expect("the parse error");
    let parse = source.downcast_ref::<SpecError>().expect("a SpecError");
    assert_eq!(parse, error);
    assert_eq!(e.code(), parse.code());
    assert_eq!(e.code(), ErrorCode::Syntax);
    assert!(e.to_string().contains("ij;jk=>i,,k"), "{e}");
    assert_eq!(chain(&e).len(), 2, "{:?}", chain(&e));
    each_message_once(&e);
}

#[test]
fn lifting_to_a_higher_layer_keeps_the_message_and_the_chain() {
    let e = spec_error();
    let lifted = ProjectError::from(e.clone());
    assert_eq!(chain(&lifted), chain(&e));
    assert!(lifted.source().and_then(|s| s.downcast_ref::<SpecError>()).is_some());
    assert_eq!(lifted.code(), e.code());
}

#[test]
fn errors_without_a_cause_have_no_source() {
    let mut g = Graph::new();
    let a = g.input("a", &ShapeBuilder::new().output([2, 3])).expect("declares");
    let b = g.input("b", &ShapeBuilder::new().output([4, 5])).expect("declares");
    let e = g.einsum("ij;jk=>ik", &[a, b]).expect_err("j is 3 and 4");
    assert_eq!(e.code(), ErrorCode::Mismatch);
    assert!(e.source().is_none(), "{:?}", e.source());
    let e = einrow::spec::parse_labels("i,,j").expect_err("a stray comma");
    assert!(e.source().is_none());
}

#[cfg(feature = "kernel")]
#[test]
fn a_named_einsum_operand_that_cannot_be_read_has_the_reason_as_its_source() {
    use einrow::formats::convert::{read_vespa, ConvertError};
    use einrow::formats::named::{named_einsum, NamedError};
    let mapped = read_vespa("tensor(k{}):{a:1.0,b:2.0}").expect("a mapped tensor");
    let dense = read_vespa("tensor(x[2]):[1,2]").expect("a dense tensor");
    let e = named_einsum(&["x"], &[&dense, &mapped]).expect_err("a mapped dimension");
    let ConvertError::Named(n) = &e else { panic!("a named einsum error: {e:?}") };
    assert!(matches!(n, NamedError::Operand { operand: 1, .. }), "{n:?}");
    let why = n.source().expect("why the operand cannot be read");
    // Boxed, as the error types nest: it downcasts as the box.
    assert!(why.downcast_ref::<Box<ConvertError>>().is_some());
    assert_eq!(e.code(), ErrorCode::Unsupported, "{e}");
    assert_eq!(chain(&e).len(), 2, "{:?}", chain(&e));
    each_message_once(&e);
}
