//! Unit tests of the Vespa layer: type specs, literals, printing, JSON and Java number text.
//! Expectations are written as the printed result (`to_text`, canonical type, JSON text) or
//! `"error:CODE"`.

use super::javanum::{double_to_string, float_to_string, parse_double, parse_float};
use super::*;
use crate::code::Coded;

fn outcome<T>(got: Result<T, VespaError>, show: impl Fn(&T) -> String) -> String {
    match got {
        Ok(v) => show(&v),
        Err(e) => {
            assert!(e.span().end as usize <= 1 << 20, "span out of range: {e}");
            format!("error:{}", e.code())
        }
    }
}

fn check_type(spec: &str, expected: &str) {
    assert_eq!(outcome(TensorType::parse(spec), |t| t.to_string()), expected, "spec {spec:?}");
}

fn check_literal(literal: &str, ty: Option<&str>, expected: &str) {
    let ty = ty.map(|t| TensorType::parse(t).expect("test type parses"));
    let got = outcome(Tensor::from_literal(literal, ty.as_ref()), Tensor::to_text);
    assert_eq!(got, expected, "literal {literal:?} with type {ty:?}");
}

fn check_json(json: &str, ty: &str, expected: &str) {
    let ty = TensorType::parse(ty).expect("test type parses");
    assert_eq!(outcome(decode_json(json, Some(&ty)), Tensor::to_text), expected, "json {json:?}");
}

fn check_encode(literal: &str, flags: (bool, bool, bool), expected: &str) {
    let t = Tensor::from_literal(literal, None).expect("test literal parses");
    let options = EncodeOptions { short_form: flags.0, direct_values: flags.1, hex_dense: flags.2 };
    let expected: serde_json::Value = serde_json::from_str(expected).expect("expected JSON parses");
    assert_eq!(encode_json(&t, options), expected, "encode {literal:?} {flags:?}");
}

#[test]
fn type_specs() {
    for (spec, expected) in [
        ("tensor(x[5])", "tensor(x[5])"),
        ("tensor<int8>(x{})", "tensor<int8>(x{})"),
        ("tensor<float>()", "tensor<float>()"),
        ("tensor<double>(x[])", "tensor(x[])"),
        ("  tensor(x[3])  ", "tensor(x[3])"),
        (
            "tensor(category{}, brand{}, a[3], x[768], d0[1])",
            "tensor(a[3],brand{},category{},d0[1],x[768])",
        ),
        ("tensor(b{},a9{},a10{},_x{},B{},1a{})", "tensor(1a{},B{},_x{},a10{},a9{},b{})"),
        ("tensor(x{},)", "tensor(x{})"),
        ("tensor(,)", "tensor()"),
        ("tensor(x[007])", "tensor(x[7])"),
        ("tensor(x[2147483647])", "tensor(x[2147483647])"),
        ("tensor(x[2147483648])", "error:value"),
        ("tensor(x[0])", "error:value"),
        ("tensor(x[10],y[20],x[30])", "error:label"),
        ("tensor(x{},x[3])", "error:label"),
        ("tensor(x_@[10])", "error:syntax"),
        ("tensor(x{10})", "error:syntax"),
        ("tensor(x[ 3 ])", "error:syntax"),
        ("tensor (x[3])", "error:syntax"),
        ("tensor<(x{})", "error:syntax"),
        ("tensor<>(x{})", "error:syntax"),
        ("tensor<float >(x[2])", "error:syntax"),
        ("tensor(,x{})", "error:syntax"),
        ("tensor(x-y{})", "error:syntax"),
        ("tensor(é{})", "error:syntax"),
        ("tensor(x[3]", "error:syntax"),
        ("double", "error:syntax"),
        ("", "error:syntax"),
    ] {
        check_type(spec, expected);
    }
}

#[test]
fn general_form_and_inference() {
    for (literal, expected) in [
        ("{}", "tensor():{0.0}"),
        ("{5.7}", "tensor():{5.7}"),
        ("5.7", "tensor():{5.7}"),
        ("0000000000000010", "tensor():{10.0}"),
        ("{{x:l0}:1.0}", "tensor(x{}):{l0:1.0}"),
        (
            "{ {d1:l1,d2:l1}: 5,   {d2:l2, d1:l1}:6.0} ",
            "tensor(d1{},d2{}):{{d1:l1,d2:l1}:5.0, {d1:l1,d2:l2}:6.0}",
        ),
        ("{{x:key.1}:1,{x:-5}:2}", "tensor(x{}):{-5:2.0, 'key.1':1.0}"),
        ("{{x:\"..'..\"}:1.0}", "tensor(x{}):{\"..'..\":1.0}"),
        ("{{x:\"a b\"}:1, {x:''}:2}", "tensor(x{}):{'':2.0, 'a b':1.0}"),
        ("tensor(x{}):{'aé':1, 日:2}", "tensor(x{}):{'aé':1.0, '日':2.0}"),
        ("{{x:a}:1,}", "tensor(x{}):{a:1.0}"),
        ("tensor(x[3]):{{x:1}:1, {x:1}:2}", "error:label"),
        ("tensor(x{},y[2]):{{x:a,y:1}:5}", "tensor(x{},y[2]):{a:[0.0, 5.0]}"),
        ("tensor(x{},y[]):{{x:a,y:2}:5}", "tensor(x{},y[3]):{a:[0.0, 0.0, 5.0]}"),
        ("tensor(x[],y[]):{{x:1,y:0}:5}", "tensor(x[],y[]):{{x:0,y:0}:0.0, {x:1,y:0}:5.0}"),
        ("tensor(x[2]):{}", "tensor(x[2]):[0.0, 0.0]"),
        ("{{'x':\"l0\"}:1.0}", "error:syntax"),
        ("{{x:a}:1, {y:b}:2}", "error:label"),
        ("{{x:a,x:b}:1}", "error:label"),
        ("tensor(x{}):{a:1, a:2}", "error:label"),
        ("tensor(x{},y{}):{{x:a}:1}", "error:label"),
        ("tensor(x[3]):{{x:5}:1}", "error:bounds"),
        ("tensor(x[3]):{{x:-5}:1}", "error:type"),
        ("tensor(x{}):{{x:'it''s'}:1}", "error:syntax"),
        ("{{x:0}:1.0} foo", "error:syntax"),
        ("{{x:a}:inf}", "error:syntax"),
        ("{{x:a}:1", "error:syntax"),
        ("tensor(x[]):{}", "error:elems"),
        ("inf", "error:syntax"),
        ("{", "error:syntax"),
        ("", "error:syntax"),
    ] {
        check_literal(literal, None, expected);
    }
}

#[test]
fn dense_forms() {
    for (literal, expected) in [
        (
            "tensor(x[2],y[3]):[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]",
            "tensor(x[2],y[3]):[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]",
        ),
        (
            "tensor(y[2],x[3]):[[1,2,3],[4,5,6]]",
            "tensor(x[3],y[2]):[[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]",
        ),
        ("tensor(y[2],x[2]):[1,2,3,4]", "tensor(x[2],y[2]):[[1.0, 3.0], [2.0, 4.0]]"),
        ("tensor<int8>(y[3],x[2]): 010203040506", "tensor<int8>(x[2],y[3]):[[1, 3, 5], [2, 4, 6]]"),
        ("tensor<bfloat16>(x[2]):3F804049", "tensor<bfloat16>(x[2]):[1.0, 3.140625]"),
        (
            "tensor(x[],y[]):[[1,2],[3,4]]",
            "tensor(x[],y[]):{{x:0,y:0}:1.0, {x:0,y:1}:2.0, {x:1,y:0}:3.0, {x:1,y:1}:4.0}",
        ),
        ("tensor(y[],x[]):[[1,2]]", "tensor(x[],y[]):{{x:0,y:0}:1.0, {x:0,y:1}:2.0}"),
        ("tensor(x[]):[1,2,3]", "tensor(x[]):{0:1.0, 1:2.0, 2:3.0}"),
        ("tensor(x[]):{0:1.0, 3:2.0}", "tensor(x[]):{0:1.0, 1:0.0, 2:0.0, 3:2.0}"),
        ("tensor(x[2]):[Infinity, NaN]", "tensor(x[2]):[Infinity, NaN]"),
        ("tensor(x[2]):[1.0f, 2d]", "tensor(x[2]):[1.0, 2.0]"),
        ("tensor(x[2]):[1e400, -1e-400]", "tensor(x[2]):[Infinity, -0.0]"),
        ("tensor<float>(x[2]):[0.1, 1e40]", "tensor<float>(x[2]):[0.1, Infinity]"),
        (
            "tensor<float>(x[3]):[1e-45, 3.4028235e38, 1e7]",
            "tensor<float>(x[3]):[1.4E-45, 3.4028235E38, 1.0E7]",
        ),
        (
            "tensor<bfloat16>(x[5]):[1.00390625, 3.14159, 257, -1.9999, 0.1]",
            "tensor<bfloat16>(x[5]):[1.0, 3.140625, 256.0, -1.9921875, 0.099609375]",
        ),
        (
            "tensor<int8>(x[7]):[1.7,-1.7,128,200,-129,300,NaN]",
            "tensor<int8>(x[7]):[1, -1, -128, -56, 127, 44, 0]",
        ),
        ("tensor(x[],y[3]):[[1,2],[3,4]]", "error:elems"),
        ("tensor(x[],y[]):[[1,2],[3]]", "error:elems"),
        ("tensor(x[]):[]", "error:elems"),
        ("tensor(x[3]):[1, 2, 3, 4]", "error:elems"),
        ("tensor(x[3]):[1, 2]", "error:elems"),
        ("tensor(x[2],y[2]):[[1,2,3],[4]]", "error:elems"),
        ("tensor(x[1]):[1-.0]", "error:syntax"),
        ("tensor(x[2]):[1,2", "error:syntax"),
        ("tensor(x[2]):[1,2] x", "tensor(x[2]):[1.0, 2.0]"),
        ("tensor(x{}):[1,2]", "error:type"),
        ("tensor<int8>(x[2]):01GG", "error:syntax"),
        ("tensor(x[2]):3F80", "error:elems"),
        ("[1,2,3]", "error:unresolved"),
        ("tensor(i[3])(i)", "error:syntax"),
    ] {
        check_literal(literal, None, expected);
    }
}

#[test]
fn mixed_and_map_forms() {
    for (literal, expected) in [
        (
            "tensor(key{}, x[2]):{a:[1, 2], b:[3, 4]}",
            "tensor(key{},x[2]):{a:[1.0, 2.0], b:[3.0, 4.0]}",
        ),
        ("tensor(x{},y{}):{a:{b:1}}", "tensor(x{},y{}):{{x:a,y:b}:1.0}"),
        ("tensor(y{},x{}):{a:{b:1}}", "tensor(x{},y{}):{{x:b,y:a}:1.0}"),
        ("tensor(x[2], a{}):{k:[1,2]}", "tensor(a{},x[2]):{k:[1.0, 2.0]}"),
        ("tensor(key{},x[1]):{a:5, b:6}", "tensor(key{},x[1]):{a:5.0, b:6.0}"),
        ("tensor<int8>(key{},x[1]):{a:10}", "tensor<int8>(key{},x[1]):{a:16.0}"),
        ("tensor(x{},y[2]):{a:[1,2], a:[3,4]}", "error:label"),
        ("tensor(x{}):{}", "tensor(x{}):{}"),
        ("tensor(x{},y[]):{}", "tensor(x{},y[1]):{}"),
        ("tensor(x{},y{}):{a:1}", "error:syntax"),
        ("tensor(x{}):{a:{b:1}}", "error:syntax"),
        ("tensor(x{},y[2]):{a:[1]}", "error:elems"),
        ("tensor(x[3]):{1:[1,2,3]}", "error:type"),
        ("tensor(x{},y[]):{a:[1,2]}", "error:type"),
        ("tensor(x{}):{a:1} b", "tensor(x{}):{a:1.0}"),
    ] {
        check_literal(literal, None, expected);
    }
}

#[test]
fn literals_with_a_given_type() {
    for (literal, ty, expected) in [
        ("{a:1, b:2}", "tensor(x{})", "tensor(x{}):{a:1.0, b:2.0}"),
        ("[1,2,3]", "tensor(x[3])", "tensor(x[3]):[1.0, 2.0, 3.0]"),
        ("{0:1, 2:3}", "tensor(x[])", "tensor(x[]):{0:1.0, 1:0.0, 2:3.0}"),
        (
            "01147FFF3280",
            "tensor<int8>(x[2],y[3])",
            "tensor<int8>(x[2],y[3]):[[1, 20, 127], [-1, 50, -128]]",
        ),
        (
            "{a: 00000000, b:3FA00000 }",
            "tensor<float>(key{}, x[1])",
            "tensor<float>(key{},x[1]):{a:0.0, b:1.25}",
        ),
        (
            "{'a': 'a102', 'b': 'A304'}",
            "tensor<int8>(key{}, x[2])",
            "tensor<int8>(key{},x[2]):{a:[-95.0, 2.0], b:[-93.0, 4.0]}",
        ),
        ("{'values':[1,2]}", "tensor(x[2])", "tensor(x[2]):[1.0, 2.0]"),
        ("\"3FF00000000000004000000000000000\"", "tensor(x[2])", "tensor(x[2]):[1.0, 2.0]"),
        ("tensor(x{}):{a:1}", "tensor(x{})", "tensor(x{}):{a:1.0}"),
        ("tensor():{5}", "tensor<float>()", "tensor():{5.0}"),
        ("5", "tensor<float>()", "tensor<float>():{5.0}"),
        ("tensor(x{}):{a:1}", "tensor(y{})", "error:type"),
        ("{0:1, 2:3}", "tensor(x[3])", "error:type"),
        ("5", "tensor(x{})", "error:type"),
        ("3F8000004000000", "tensor(x[2])", "error:elems"),
    ] {
        check_literal(literal, Some(ty), expected);
    }
}

#[test]
fn json_decoding() {
    for (json, ty, expected) in [
        ("{'a':2.0, 'b':3.0}", "tensor(x{})", "tensor(x{}):{a:2.0, b:3.0}"),
        ("{a:1, 'b':2, \"c\":3}", "tensor(x{})", "tensor(x{}):{a:1.0, b:2.0, c:3.0}"),
        ("{'cells':2.0, 'b':3.0}", "tensor(x{})", "tensor(x{}):{b:3.0, cells:2.0}"),
        ("{\"values\":[1,2]}", "tensor(x{},y[2])", "tensor(x{},y[2]):{values:[1.0, 2.0]}"),
        ("{\"type\":\"tensor(y[2])\",\"values\":[1,2]}", "tensor(x[2])", "tensor(x[2]):[1.0, 2.0]"),
        (
            "{\"values\":[[1,2,3],[4]]}",
            "tensor(x[2],y[2])",
            "tensor(x[2],y[2]):[[1.0, 2.0], [3.0, 4.0]]",
        ),
        ("{\"values\":[1,2,3]}", "tensor(x[2],y[2])", "tensor(x[2],y[2]):[[1.0, 2.0], [3.0, 0.0]]"),
        (
            "[\"Infinity\", \"-inf\"]",
            "tensor<float>(x[2])",
            "tensor<float>(x[2]):[Infinity, -Infinity]",
        ),
        ("[1,null]", "tensor(x[2])", "tensor(x[2]):[1.0, NaN]"),
        ("{\"values\":\"3F800000\"}", "tensor<bfloat16>(x[1])", "tensor<bfloat16>(x[1]):[1.0]"),
        ("\"0102\"", "tensor<bfloat16>(x[2])", "tensor<bfloat16>(x[2]):[1.0, 2.0]"),
        ("\"3F800000\"", "tensor<float>(x[3])", "tensor<float>(x[3]):[1.0, 0.0, 0.0]"),
        ("{'cells':{'0':1,'2':3}}", "tensor(x[3])", "tensor(x[3]):[1.0, 0.0, 3.0]"),
        (
            "[{'address':{'x':'a','y':'0'},'value':2}]",
            "tensor(x{},y{})",
            "tensor(x{},y{}):{{x:a,y:0}:2.0}",
        ),
        (
            "{\"blocks\":{\"0\":[2.0,3.0],\"1\":\"40804040\"}}",
            "tensor<bfloat16>(x{},y[2])",
            "tensor<bfloat16>(x{},y[2]):{0:[2.0, 3.0], 1:[4.0, 3.0]}",
        ),
        (
            "{\"blocks\":[{\"address\":{\"x\":\"a\",\"y\":\"b\"},\"values\":[1,2]}]}",
            "tensor(x{},y{},z[2])",
            "tensor(x{},y{},z[2]):{{x:a,y:b,z:0}:1.0, {x:a,y:b,z:1}:2.0}",
        ),
        ("[5]", "tensor()", "tensor():{5.0}"),
        ("{}", "tensor(x{},y{})", "tensor(x{},y{}):{}"),
        ("{\"values\":\"\"}", "tensor(x[3])", "error:elems"),
        ("{\"blocks\":{ \"a\": [] } }", "tensor(x{},y[3])", "error:elems"),
        ("{\"values\":[1,2,3,4,5]}", "tensor(x[2],y[2])", "error:elems"),
        ("{\"values\":[true]}", "tensor(x[2])", "error:type"),
        ("\"3F800000\"", "tensor<int8>(x[1])", "error:elems"),
        ("\"abXc\"", "tensor<bfloat16>(x[1])", "error:syntax"),
        ("{\"cells\":[{\"address\":{\"x\":\"2\"},\"value\":5.0}]}", "tensor(x[2])", "error:bounds"),
        ("{\"cells\":[{\"address\":{\"x\":1},\"value\":5.0}]}", "tensor(x{})", "error:type"),
        ("{\"values\":[1,2]} x", "tensor(x[2])", "error:syntax"),
        ("[[1,2],[3,4]]", "tensor(x[],y[])", "error:type"),
        ("5", "tensor()", "error:type"),
        ("{\"a\":", "tensor(x{})", "error:syntax"),
        ("'\\ud800'", "tensor(x[1])", "error:syntax"),
    ] {
        check_json(json, ty, expected);
    }
}

#[test]
fn json_encoding() {
    let dense = "tensor(x[2],y[2]):[[2,3],[5,7]]";
    for (literal, flags, expected) in [
        (
            dense,
            (true, false, false),
            r#"{"type":"tensor(x[2],y[2])","values":[[2.0,3.0],[5.0,7.0]]}"#,
        ),
        (dense, (true, true, false), "[[2.0,3.0],[5.0,7.0]]"),
        (
            dense,
            (false, false, false),
            r#"{"type":"tensor(x[2],y[2])","cells":[{"address":{"x":"0","y":"0"},"value":2.0},{"address":{"x":"0","y":"1"},"value":3.0},{"address":{"x":"1","y":"0"},"value":5.0},{"address":{"x":"1","y":"1"},"value":7.0}]}"#,
        ),
        (
            "tensor(x{}):{a:1,b:2}",
            (true, false, false),
            r#"{"type":"tensor(x{})","cells":{"a":1.0,"b":2.0}}"#,
        ),
        (
            "tensor(x{}):{b:1,a:2}",
            (false, true, false),
            r#"[{"address":{"x":"b"},"value":1.0},{"address":{"x":"a"},"value":2.0}]"#,
        ),
        (
            "tensor(x{},y[2]):{a:[1,2], b:[3,4] }",
            (true, false, false),
            r#"{"type":"tensor(x{},y[2])","blocks":{"a":[1.0,2.0],"b":[3.0,4.0]}}"#,
        ),
        (
            "tensor(x{},y{},z[2]):{{x:a,y:b,z:1}:2}",
            (true, true, true),
            r#"[{"address":{"x":"a","y":"b"},"values":"00000000000000004000000000000000"}]"#,
        ),
        (
            "tensor<int8>(x[3]):[1.7,200,-129]",
            (true, false, false),
            r#"{"type":"tensor<int8>(x[3])","values":[1,-56,127]}"#,
        ),
        ("tensor<int8>(x[3]):[1.7,200,-129]", (true, true, true), r#""01C87F""#),
        (
            "tensor<bfloat16>(x[3]):[1.00390625, 3.14159, 257]",
            (true, true, true),
            r#""3F8040494380""#,
        ),
        ("tensor<float>(x[2]):[0.1, -2]", (true, true, true), r#""3DCCCCCDC0000000""#),
        ("tensor():{5.0}", (true, false, false), r#"{"type":"tensor()","values":[5.0]}"#),
        ("tensor(x[2]):[Infinity, NaN]", (true, true, false), "[null,null]"),
    ] {
        check_encode(literal, flags, expected);
    }
}

#[test]
fn cell_casts() {
    let t =
        Tensor::from_literal("tensor(x[5]):[1.7, 200, -129, 3.14159, 0.1]", None).expect("parses");
    for (to, expected) in [
        (CellType::Float, "tensor<float>(x[5]):[1.7, 200.0, -129.0, 3.14159, 0.1]"),
        (
            CellType::BFloat16,
            "tensor<bfloat16>(x[5]):[1.6953125, 200.0, -129.0, 3.140625, 0.099609375]",
        ),
        (CellType::Int8, "tensor<int8>(x[5]):[1, -56, 127, 3, 0]"),
        (CellType::Double, "tensor(x[5]):[1.7, 200.0, -129.0, 3.14159, 0.1]"),
    ] {
        assert_eq!(t.cast(to).to_text(), expected);
    }
}

#[test]
fn java_number_text() {
    for (v, expected) in [
        (1.0, "1.0"),
        (0.001, "0.001"),
        (0.0001, "1.0E-4"),
        (1e7, "1.0E7"),
        (9999999.0, "9999999.0"),
        (123456789.0, "1.23456789E8"),
        (-0.0, "-0.0"),
        (f64::MIN_POSITIVE * f64::EPSILON, "4.9E-324"),
        (f64::from(0.1f32), "0.10000000149011612"),
        (f64::NEG_INFINITY, "-Infinity"),
    ] {
        assert_eq!(double_to_string(v), expected);
    }
    assert_eq!(float_to_string(0.1), "0.1");
    assert_eq!(float_to_string(f32::from_bits(1)), "1.4E-45");
    for (text, expected) in [
        ("1.5f", Some(1.5)),
        (".5", Some(0.5)),
        ("5.", Some(5.0)),
        ("+2e1d", Some(20.0)),
        (" 3 ", Some(3.0)),
        ("0x1p3", Some(8.0)),
        ("0x1.8p1", Some(3.0)),
        ("-0X.8P-2f", Some(-0.125)),
        ("0x10p-4d", Some(1.0)),
        ("0x1.fffffffffffff8p0", Some(2.0)),
        ("0x1p-1074", Some(f64::from_bits(1))),
        ("0x1p1024", Some(f64::INFINITY)),
        ("0x1p99999999999999999999", Some(f64::INFINITY)),
    ] {
        assert_eq!(parse_double(text), expected, "{text:?}");
    }
    for text in ["inf", "nan", "1e", ".", "1.0ff", "0x10", "0xp1", "0x1p", "0x1.gp1", "", "--1"] {
        assert_eq!(parse_double(text), None, "{text:?}");
    }
    assert_eq!(parse_float("1e40"), Some(f32::INFINITY));
}

#[test]
fn dense_data_for_the_kernel() {
    let t = Tensor::from_literal("tensor(y[2],x[3]):[[1,2,3],[4,5,6]]", None).expect("parses");
    assert_eq!(t.to_dense(), Some((vec![3, 2], vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0])));
    let cells: Vec<(Vec<String>, f64)> = t.cells().take(2).collect();
    assert_eq!(
        cells,
        vec![(vec!["0".into(), "0".into()], 1.0), (vec!["0".into(), "1".into()], 4.0)]
    );
    let m = Tensor::from_literal("tensor(k{}):{a:1}", None).expect("parses");
    assert_eq!(m.to_dense(), None);
}

#[test]
fn errors_carry_spans_into_the_text() {
    let e = Tensor::from_literal("tensor(x[3]):{{x:5}:1}", None).expect_err("out of bounds");
    assert_eq!(e.span(), crate::span::Span::new(14, 21));
    let e = TensorType::parse("tensor(x{},y[0])").expect_err("size 0");
    assert_eq!(e.span(), crate::span::Span::new(11, 15));
}

#[test]
fn hostile_inputs_fail_cleanly() {
    let deep_json = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert_eq!(outcome(decode_json(&deep_json, None), Tensor::to_text), "error:syntax");
    let dims: Vec<String> = (0..300).map(|i| format!("d{i}[1]")).collect();
    let spec = format!("tensor({})", dims.join(","));
    assert_eq!(outcome(TensorType::parse(&spec), |t| t.to_string()), "error:value");
    let nested = format!("tensor(x[]):{}1{}", "[".repeat(50_000), "]".repeat(50_000));
    assert!(Tensor::from_literal(&nested, None).is_err());
    check_literal("tensor(x[2147483647]):{}", None, "error:value");
    check_literal("tensor(x[]):{{x:99999999999}:1}", None, "error:bounds");
    check_literal("tensor(k{},x[16777217]):{}", None, "error:value");
    check_literal("tensor(x[4096],y[4097]):[1]", None, "error:value");
    let keys: Vec<String> = (0..200_000).map(|i| format!("'k{i}':{i}")).collect();
    let many = format!("{{{}}}", keys.join(","));
    let t = decode_json(&many, Some(&TensorType::parse("tensor(x{})").expect("type")))
        .expect("decodes");
    assert_eq!(t.len(), 200_000);
}
