//! Errors that wrap another keep it as their `source()`, and say only their own context in
//! `Display`, so a report that walks the chain (anyhow, eyre, tracing) shows each message
//! once; lifting an error to a higher layer (`ProjectError::Infer`, `EinsumError::Spec`) is
//! transparent: the same message and the same chain.

use std::error::Error;

use einrow::infer::{Graph, InferError, OpKind, ShapeBuilder};
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

/// Whether `message` writes a tensor id (`t0`, `t12`) as a word.
fn writes_an_id(message: &str) -> bool {
    message
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .any(|w| w.len() > 1 && w.starts_with('t') && w[1..].bytes().all(|b| b.is_ascii_digit()))
}

#[test]
fn messages_name_tensors_as_the_framework_named_them() {
    let mut g = Graph::new();
    let a = g.input("a", &ShapeBuilder::new().output([2, 3])).expect("declares");
    let b = g.input("b", &ShapeBuilder::new().output([4, 5])).expect("declares");
    let c = g.input("c", &ShapeBuilder::new().output([7])).expect("declares");
    let open = g.input("open", &ShapeBuilder::new().output_open()).expect("declares");
    let sum = g.add_named_step("sum", OpKind::Pointwise, &[open, c], None).expect("adds");
    let nine = g.input("nine", &ShapeBuilder::new().output([9])).expect("declares");
    let errors: Vec<InferError> = vec![
        g.einsum("ij;jk=>ik", &[a, b]).expect_err("j is 3 and 4"),
        g.pointwise(&[a, c]).expect_err("3 and 7"),
        g.compose(a, c).expect_err("ranks"),
        g.pointwise(&[sum, nine]).expect_err("7 and 9"),
        g.equal_shapes(a, b).expect_err("2,3 and 4,5"),
        g.total_elems(c, 8).expect_err("7 elements"),
    ];
    for e in &errors {
        let message = e.to_string();
        assert!(!writes_an_id(&message), "an id in {message:?}");
        if let InferError::Shape(s) = e {
            for fact in &s.chain {
                assert!(!writes_an_id(fact), "an id in the fact {fact:?} of {message:?}");
            }
        }
    }
    let named = |name: &str| errors.iter().any(|e| e.to_string().contains(&format!("`{name}`")));
    assert!(["a", "b", "c", "nine"].into_iter().all(named), "{errors:#?}");
    // A failing side constraint leaves the graph as it was: the next one meets only its own
    // conflict.
    let last = errors.last().expect("errors").to_string();
    assert!(last.contains("`c`") && !last.contains("`a`"), "{last}");
}

#[test]
fn a_failing_steps_own_result_is_named_too() {
    let mut g = Graph::new();
    let a = g.input("a", &ShapeBuilder::new().output([2, 3])).expect("declares");
    let b = g.input("b", &ShapeBuilder::new().output([4, 5])).expect("declares");
    let e = g.add_named_step("bad", OpKind::Pointwise, &[a, b], None).expect_err("2,3 and 4,5");
    assert!(!writes_an_id(&e.to_string()), "{e}");
    let InferError::Shape(s) = &e else { panic!("a shape error: {e:?}") };
    assert!(s.statement.as_deref().is_some_and(|st| st.starts_with("bad = ")), "{s:?}");
}
