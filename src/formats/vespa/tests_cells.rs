//! The cell-list rules of literals and JSON, as data: a `,` before the closing `}` only in the
//! general form (as Java reads it), and no address given twice, whatever the type. An expected error is written
//! `error:CODE@TEXT`, `TEXT` being the bytes its span covers.

use super::*;
use crate::code::{Coded, ErrorCode};
use crate::span::Span;

fn show(text: &str, got: Result<Tensor, VespaError>) -> String {
    match got {
        Ok(t) => t.to_text(),
        Err(e) => format!("error:{}@{}", e.code(), text.get(e.span().range()).unwrap_or("?")),
    }
}

fn check(literal: &str, ty: Option<&str>, expected: &str) {
    let ty = ty.map(|t| TensorType::parse(t).expect("test type parses"));
    let got = show(literal, Tensor::from_literal(literal, ty.as_ref()));
    assert_eq!(got, expected, "literal {literal:?} with type {ty:?}");
}

fn check_json(json: &str, ty: &str, expected: &str) {
    let ty = TensorType::parse(ty).expect("test type parses");
    assert_eq!(show(json, decode_json(json, Some(&ty))), expected, "json {json:?}");
}

#[test]
fn trailing_comma_only_in_the_general_form() {
    for (literal, ty, expected) in [
        ("{{x:a}:1,}", None, "tensor(x{}):{a:1.0}"),
        ("{{x:a}:1, }", None, "tensor(x{}):{a:1.0}"),
        ("{{x:a}:1 ,\n}", None, "tensor(x{}):{a:1.0}"),
        ("tensor(x{}):{{x:a}:1,}", None, "tensor(x{}):{a:1.0}"),
        ("{{x:a}:1,,}", None, "error:syntax@,"),
        ("tensor(x{}):{a:1,}", None, "error:syntax@,"),
        ("tensor(x{}):{a:1, b:2 , }", None, "error:syntax@,"),
        ("{a:1,}", Some("tensor(x{})"), "error:syntax@,"),
        ("tensor(k{},x[1]):{a:[1],}", None, "error:syntax@,"),
        ("tensor(k{},x[2]):{a:[1,2], }", None, "error:syntax@,"),
        ("tensor(x{},y{}):{a:{b:1,}}", None, "error:syntax@,"),
        ("tensor(x{},y{}):{a:{b:1},}", None, "error:syntax@,"),
        ("tensor(x[]):{0:1.0,}", None, "error:syntax@,"),
        ("{0:1, 2:3 ,}", Some("tensor(x[])"), "error:syntax@,"),
        ("tensor(x[2]):{{x:0}:1,}", None, "tensor(x[2]):[1.0, 0.0]"),
        ("tensor():{5,}", None, "tensor():{5.0}"),
        ("tensor(x[2]):[1,2,]", None, "error:elems@,"),
        ("{{x:a}:1,{x:b}:2}", None, "tensor(x{}):{a:1.0, b:2.0}"),
        ("tensor(x{}):{a:1 , b:2 }", None, "tensor(x{}):{a:1.0, b:2.0}"),
        ("tensor(k{},x[1]):{a:[1], b:[2]}", None, "tensor(k{},x[1]):{a:1.0, b:2.0}"),
        ("tensor(x{},y{}):{a:{b:1, c:2}}", None, "tensor(x{},y{}):{{x:a,y:b}:1.0, {x:a,y:c}:2.0}"),
        ("tensor(x[]):{0:1.0, 1:2.0 }", None, "tensor(x[]):{0:1.0, 1:2.0}"),
        ("tensor(x{}):{}", None, "tensor(x{}):{}"),
        ("{}", None, "tensor():{0.0}"),
    ] {
        check(literal, ty, expected);
    }
}

#[test]
fn no_address_given_twice() {
    for (literal, ty, expected) in [
        ("{{x:a}:1,{x:a}:2}", None, "error:label@{x:a}:2"),
        ("tensor(key{}):{a:1, b:2, a:3}", None, "error:label@a:3"),
        ("tensor(x[3]):{{x:1}:1, {x:1}:2}", None, "error:label@{x:1}:2"),
        ("tensor(x[3]):{{x:1}:1, {x:01}:2}", None, "error:label@{x:01}:2"),
        ("tensor(k{},x[1]):{{k:a,x:0}:1,{x:0,k:a}:2}", None, "error:label@{x:0,k:a}:2"),
        ("tensor(k{},x[2]):{a:[1,2], a:[3,4]}", None, "error:label@a:[3,4]"),
        ("tensor(k{},x[2]):{a:[1,2], b:[5,6], a:[3,4]}", None, "error:label@a:[3,4]"),
        ("tensor(x{},y{},z[1]):{a:{b:[1], b:[2]}}", None, "error:label@b:[2]"),
        ("tensor(x{},y{},z[1]):{a:{b:[1]}, a:{b:[2]}}", None, "error:label@b:[2]"),
        ("tensor(k{},x[1]):{a:1, a:2}", None, "error:label@a:2"),
        ("tensor(x{},y{}):{a:{b:1}, a:{b:2}}", None, "error:label@b:2"),
        ("tensor(x[]):{0:1, 0:2}", None, "error:label@0:2"),
        ("tensor(x[],y[]):{{x:1,y:0}:5, {y:0,x:1}:6}", None, "error:label@{y:0,x:1}:6"),
        ("tensor(x{},y[]):{{x:a,y:2}:5, {x:a,y:2}:6}", None, "error:label@{x:a,y:2}:6"),
        ("tensor():{5, 6}", None, "error:label@6"),
        ("tensor(x[3]):{{x:1}:1, {x:2}:2}", None, "tensor(x[3]):[0.0, 1.0, 2.0]"),
        (
            "tensor(k{},x[2]):{a:[1,2], b:[3,4]}",
            None,
            "tensor(k{},x[2]):{a:[1.0, 2.0], b:[3.0, 4.0]}",
        ),
        ("tensor(k{},x[2]):{{k:a,x:0}:1, {k:a,x:1}:2}", None, "tensor(k{},x[2]):{a:[1.0, 2.0]}"),
        (
            "tensor(x[],y[]):{{x:1,y:0}:5, {x:0,y:1}:6}",
            None,
            "tensor(x[],y[]):{{x:0,y:0}:0.0, {x:0,y:1}:6.0, {x:1,y:0}:5.0, {x:1,y:1}:0.0}",
        ),
    ] {
        check(literal, ty, expected);
    }
}

#[test]
fn no_address_given_twice_in_json_lists() {
    let cells = |a: &str, b: &str| {
        format!(r#"{{"cells":[{{"address":{a},"value":1}},{{"address":{b},"value":2}}]}}"#)
    };
    for (json, ty, expected) in [
        (cells(r#"{"x":"1"}"#, r#"{"x":"1"}"#), "tensor(x[3])", r#"error:label@{"address":{"x":"1"},"value":2}"#),
        (cells(r#"{"x":"a"}"#, r#"{"x":"a"}"#), "tensor(x{})", r#"error:label@{"address":{"x":"a"},"value":2}"#),
        (
            cells(r#"{"k":"a","x":"0"}"#, r#"{"x":"0","k":"a"}"#),
            "tensor(k{},x[1])",
            r#"error:label@{"address":{"x":"0","k":"a"},"value":2}"#,
        ),
        (cells(r#"{"x":"1"}"#, r#"{"x":"2"}"#), "tensor(x[3])", "tensor(x[3]):[0.0, 1.0, 2.0]"),
        (
            r#"{"blocks":[{"address":{"k":"a"},"values":[1,2]},{"address":{"k":"a"},"values":[3,4]}]}"#.into(),
            "tensor(k{},x[2])",
            "error:label@[3,4]",
        ),
        (
            r#"{"blocks":[{"address":{"k":"a","j":"b"},"values":"0102"},{"address":{"j":"b","k":"a"},"values":[3,4]}]}"#.into(),
            "tensor<int8>(j{},k{},x[2])",
            "error:label@[3,4]",
        ),
        (
            r#"{"blocks":[{"address":{"k":"a"},"values":[1,2]},{"address":{"k":"b"},"values":[3,4]}]}"#.into(),
            "tensor(k{},x[2])",
            "tensor(k{},x[2]):{a:[1.0, 2.0], b:[3.0, 4.0]}",
        ),
        (r#"{"blocks":{"a":[1,2],"a":[3,4]}}"#.into(), "tensor(k{},x[2])", "tensor(k{},x[2]):{a:[1.0, 2.0]}"),
        (r#"{"cells":{"a":1,"a":2}}"#.into(), "tensor(x{})", "tensor(x{}):{a:1.0}"),
    ] {
        check_json(&json, ty, expected);
    }
}

/// A repeated key in a JSON object is not a repeated address: the reader keeps the first value
/// (as Vespa's Slime) before the decoder sees the object. So a literal whose duplicate address
/// makes it fail, read again as JSON because a type was given (vespa-092), decodes.
#[test]
fn repeated_json_keys_keep_the_first_value() {
    check("{a:1, a:2}", Some("tensor(x{})"), "tensor(x{}):{a:1.0}");
    check("{a:[1,2], a:[3,4]}", Some("tensor(k{},x[2])"), "tensor(k{},x[2]):{a:[1.0, 2.0]}");
    check("tensor(x{}):{a:1, a:2}", None, "error:label@a:2");
}

#[test]
fn address_pairs_are_separated_by_single_commas() {
    for (literal, ty, expected) in [
        ("{{x:a y:b}:1}", None, "error:syntax@y"),
        ("{{x:a,}:1}", None, "tensor(x{}):{a:1.0}"),
        ("tensor(x{},y{}):{{x:a y:b}:1}", None, "error:syntax@y"),
        ("tensor(x{},y{}):{{x:a,y:b,}:1}", None, "tensor(x{},y{}):{{x:a,y:b}:1.0}"),
        ("tensor(x{},y{}):{{x:a,y:b,,}:1}", None, "error:syntax@,"),
        ("tensor(x{},y{}):{{x:a,,y:b}:1}", None, "error:syntax@,"),
        ("{{x:a, y:b}:1}", None, "tensor(x{},y{}):{{x:a,y:b}:1.0}"),
        ("tensor(x{},y{}):{{ y:c , x:d }:2}", None, "tensor(x{},y{}):{{x:d,y:c}:2.0}"),
        ("tensor():{{}:5}", None, "tensor():{5.0}"),
    ] {
        check(literal, ty, expected);
    }
}

/// Cells of a type with unbound dimensions wait for the sizes, one entry each: a literal of
/// endless repeats of `0:1` (160 MB of text) ran out of memory before the repeated address was
/// noticed. Past the limit (every valid tensor's cells fit in it) a cell is a `value` error
/// with its span.
#[test]
fn cells_waiting_for_unbound_sizes_are_limited() {
    use super::builder::Builder;
    let ty = TensorType::parse("tensor(x[])").expect("type");
    let mut b = Builder::new(&ty, Span::new(0, 1)).expect("builder").with_limits(3, MAX_SUBSPACES);
    for i in 0..3 {
        b.cell(vec![Some("0".into())], 1.0, Span::new(i, i + 1)).expect("within the limit");
    }
    let e = b.cell(vec![Some("1".into())], 1.0, Span::new(7, 9)).expect_err("a fourth cell");
    assert_eq!((e.code(), e.span()), (ErrorCode::Value, Span::new(7, 9)), "{e}");
    assert!(e.to_string().contains("more than 3 cells"), "{e}");
}

/// Every combination of mapped labels costs a few hundred bytes: a sparse literal of 8M cells
/// (120 MB) took 2.5 GB, and 16M would not fit in 4 GB. Past the limit a new combination is a
/// `value` error with its span; an address given again is still the duplicate it is.
#[test]
fn mapped_label_combinations_are_limited() {
    use super::builder::Builder;
    let ty = TensorType::parse("tensor(k{},x[2])").expect("type");
    let mut b = Builder::new(&ty, Span::new(0, 1)).expect("builder").with_limits(MAX_CELLS, 2);
    for (i, k) in ["a", "b"].into_iter().enumerate() {
        b.block(vec![k.into()], &[1.0, 2.0], Span::new(i, i + 1)).expect("within the limit");
    }
    let e = b.block(vec!["c".into()], &[1.0, 2.0], Span::new(5, 8)).expect_err("a third");
    assert_eq!((e.code(), e.span()), (ErrorCode::Value, Span::new(5, 8)), "{e}");
    assert!(e.to_string().contains("at most 2 combinations of mapped labels"), "{e}");
    let again = b.cell(vec![Some("a".into()), Some("0".into())], 3.0, Span::new(9, 10));
    assert_eq!(again.expect_err("set before").code(), ErrorCode::Label);
}

/// A JSON document is read into a tree before it is decoded: 100M numbers (200 MB) ran out of
/// memory although the type held two cells. Past the limit the value where reading stopped is
/// a `value` error.
#[test]
fn json_documents_are_limited_in_values() {
    use super::json_reader::read_json_within;
    let text = "[1,[2,3],4]";
    assert!(read_json_within(text, 6).is_ok());
    let e = read_json_within(text, 4).expect_err("six values");
    assert_eq!(e.code(), ErrorCode::Value, "{e}");
    assert_eq!(&text[e.span().range()], "3", "{e}");
    assert!(e.to_string().contains("at most 4 values"), "{e}");
    assert_eq!(MAX_JSON_VALUES, 2 * MAX_CELLS);
}
