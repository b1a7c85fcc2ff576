//! Data-driven tests of the TensorStore layer: JSON normal forms, errors with their codes,
//! dimension expressions (TensorStore's documented examples) and alignment.

use serde_json::{json, Value};

use super::*;
use crate::code::{Coded, ErrorCode};

fn domain(v: Value) -> Result<Value, ErrorCode> {
    IndexDomain::from_json(&v).map(|d| d.to_json()).map_err(|e| e.code())
}

fn transform(v: Value) -> Result<Value, ErrorCode> {
    IndexTransform::from_json(&v).map(|t| t.to_json()).map_err(|e| e.code())
}

fn check_domain(input: Value, expect: Result<Value, ErrorCode>) {
    assert_eq!(domain(input.clone()), expect, "domain {input}");
}

fn check_transform(input: Value, expect: Result<Value, ErrorCode>) {
    assert_eq!(transform(input.clone()), expect, "transform {input}");
}

#[test]
fn domain_normal_forms() {
    check_domain(json!({"rank": 2}), Ok(json!({"rank": 2})));
    check_domain(json!({"rank": 0}), Ok(json!({"rank": 0})));
    check_domain(json!({"labels": ["", ""]}), Ok(json!({"rank": 2})));
    check_domain(json!({"labels": ["x", ""]}), Ok(json!({"labels": ["x", ""]})));
    check_domain(json!({"inclusive_max": [5]}), Ok(json!({"exclusive_max": [6]})));
    check_domain(json!({"inclusive_max": ["+inf"]}), Ok(json!({"exclusive_max": ["+inf"]})));
    check_domain(
        json!({"shape": [[3]]}),
        Ok(json!({"inclusive_min": [0], "exclusive_max": [[3]]})),
    );
    check_domain(
        json!({"inclusive_min": [-4611686018427387903_i64]}),
        Ok(json!({"inclusive_min": ["-inf"]})),
    );
    check_domain(
        json!({"exclusive_max": [4611686018427387904_i64]}),
        Ok(json!({"exclusive_max": ["+inf"]})),
    );
    check_domain(
        json!({"inclusive_min": [0], "shape": [9223372036854775807_i64]}),
        Ok(json!({"inclusive_min": [0], "exclusive_max": ["+inf"]})),
    );
    check_domain(
        json!({"inclusive_min": [0], "exclusive_max": [["+inf"]]}),
        Ok(json!({"inclusive_min": [0]})),
    );
    check_domain(
        json!({"inclusive_min": [1.0, 2], "exclusive_max": [1, 9]}),
        Ok(json!({"inclusive_min": [1, 2], "exclusive_max": [1, 9]})),
    );
}

#[test]
fn domain_errors() {
    use ErrorCode::*;
    check_domain(json!({"rank": 33}), Err(Rank));
    check_domain(json!({"rank": -1}), Err(Rank));
    check_domain(json!({"inclusive_min": vec![0; 33]}), Err(Rank));
    check_domain(json!({"labels": ["x", "x"]}), Err(Label));
    check_domain(
        json!({"shape": [2], "labels": ["a"], "rank": 1, "inclusive_max": [1]}),
        Err(Syntax),
    );
    check_domain(json!({"inclusive_min": [[1, 2]]}), Err(Syntax));
    check_domain(json!({"inclusive_min": 3}), Err(Syntax));
    check_domain(json!([1]), Err(Syntax));
    check_domain(json!({"exclusive_max": ["-inf"]}), Err(Value));
    check_domain(json!({"shape": [2], "labels": ["x", "y"]}), Err(Rank));
    check_domain(json!({"inclusive_min": [4611686018427387903_i64]}), Err(Bounds));
    check_domain(
        json!({"inclusive_min": [0], "exclusive_max": [4611686018427387905_i64]}),
        Err(Value),
    );
    check_domain(json!({"exclusive_max": [-4611686018427387902_i64]}), Err(Bounds));
    check_domain(json!({"inclusive_min": [9223372036854775808_u64]}), Err(Value));
}

/// Bounds are JSON integers (integral floats included) or the member's infinity marker:
/// `"-inf"` for lower bounds, `"+inf"` for upper ones. Any other string is a `value` error,
/// decimal strings included (TensorStore reads them with `JsonRequireInteger(strict)`).
#[test]
fn bound_entries_are_numbers_or_infinity_markers() {
    use ErrorCode::Value as V;
    for (member, entry, expect) in [
        ("inclusive_min", json!("-inf"), Ok(())),
        ("inclusive_min", json!(["-inf"]), Ok(())),
        ("inclusive_min", json!("7"), Err(V)),
        ("inclusive_min", json!(["7"]), Err(V)),
        ("inclusive_min", json!(" 7"), Err(V)),
        ("inclusive_min", json!("+inf"), Err(V)),
        ("inclusive_min", json!("inf"), Err(V)),
        ("inclusive_min", json!("-Inf"), Err(V)),
        ("inclusive_min", json!(""), Err(V)),
        ("inclusive_min", json!(true), Err(V)),
        ("inclusive_min", json!(null), Err(V)),
        ("inclusive_min", json!(1.5), Err(V)),
        ("shape", json!("+inf"), Ok(())),
        ("shape", json!("3"), Err(V)),
        ("shape", json!(["3"]), Err(V)),
        ("shape", json!("-inf"), Err(V)),
        ("inclusive_max", json!("+inf"), Ok(())),
        ("inclusive_max", json!("5"), Err(V)),
        ("inclusive_max", json!("-inf"), Err(V)),
        ("exclusive_max", json!(["+inf"]), Ok(())),
        ("exclusive_max", json!("6"), Err(V)),
        ("exclusive_max", json!([" +inf"]), Err(V)),
    ] {
        let got_domain = domain(json!({ member: [entry.clone()] })).map(|_| ());
        assert_eq!(got_domain, expect, "domain member {member} entry {entry}");
        let input = format!("input_{member}");
        let got_transform = transform(json!({ input.as_str(): [entry.clone()] })).map(|_| ());
        assert_eq!(got_transform, expect, "transform member {input} entry {entry}");
    }
    check_domain(json!({"shape": ["3"]}), Err(V));
    check_domain(json!({"inclusive_min": ["7"]}), Err(V));
    check_domain(json!({"inclusive_min": [0, "1"], "shape": [2, 2]}), Err(V));
    check_transform(
        json!({"input_shape": [2], "output": [{"index_array": [1, 2], "index_array_bounds": ["0", 5]}]}),
        Err(V),
    );
    check_transform(
        json!({"input_shape": [2], "output": [{"index_array": [1, 2], "index_array_bounds": [0, "+inf"]}]}),
        Ok(
            json!({"input_inclusive_min": [0], "input_exclusive_max": [2], "output": [{"index_array": [1, 2]}]}),
        ),
    );
    check_transform(
        json!({"input_shape": [2], "output": [{"index_array": [1, 2], "index_array_bounds": [0, "-inf"]}]}),
        Err(V),
    );
}

/// A rejected string bound is reported at its own bytes, with TensorStore's wording.
#[test]
fn string_bound_locations() {
    for (text, member, bad) in [
        (r#"{"shape": [2, "3"]}"#, "/shape/1", r#""3""#),
        (r#"{"inclusive_min": [["7"]]}"#, "/inclusive_min/0/0", r#""7""#),
    ] {
        let e = IndexDomain::from_json_str(text).unwrap_err();
        assert_eq!(e.path().as_str(), member, "{text}");
        assert!(e.to_string().contains("but received: \""), "{e}");
        let span = locate(text, e.path()).expect("the path is in the text");
        assert_eq!(&text[span.range()], bad, "{text}");
    }
    let text = r#"{"input_exclusive_max": ["9"]}"#;
    let e = IndexTransform::from_json_str(text).unwrap_err();
    assert_eq!(e.path().as_str(), "/input_exclusive_max/0");
    assert!(e.to_string().contains(r#"Expected 64-bit signed integer or "+inf""#), "{e}");
}

#[test]
fn error_locations() {
    let e = IndexDomain::from_json(&json!({"inclusive_min": [1, "+inf"]})).unwrap_err();
    assert_eq!(e.path().as_str(), "/inclusive_min/1");
    let e = IndexTransform::from_json(&json!({"input_shape": [3], "output": [{}, {"stride": 2}]}))
        .unwrap_err();
    assert_eq!(e.path().as_str(), "/output/1/stride");
    let e = IndexTransform::from_json(
        &json!({"input_shape": [3], "output": [{"index_array": [1, 2]}]}),
    )
    .unwrap_err();
    assert_eq!(e.path().as_str(), "/output/0");
    assert!(e.to_string().contains("has shape {2} which does not match input_shape {3}"), "{e}");
    let e = IndexTransform::from_json_str("{\"input_rank\": 1,\n \"output\": [}").unwrap_err();
    assert!(e.to_string().contains("at byte 30"), "{e}");
}

#[test]
fn transform_normal_forms() {
    check_transform(
        json!({"input_rank": 2, "output": [{"input_dimension": 1}, {"input_dimension": 0}]}),
        Ok(json!({"input_rank": 2, "output": [{"input_dimension": 1}, {"input_dimension": 0}]})),
    );
    check_transform(
        json!({"input_shape": [3], "output": [{"input_dimension": 0, "stride": 0, "offset": 5}]}),
        Ok(
            json!({"input_inclusive_min": [0], "input_exclusive_max": [3], "output": [{"offset": 5}]}),
        ),
    );
    check_transform(
        json!({"input_rank": 1, "output": [{"offset": 0}, {"input_dimension": 0, "stride": 1}]}),
        Ok(json!({"input_rank": 1, "output": [{}, {"input_dimension": 0}]})),
    );
    check_transform(
        json!({"input_shape": [2], "output": [{"index_array": [1, 2], "index_array_bounds": [0, 1]}]}),
        Ok(json!({"input_inclusive_min": [0], "input_exclusive_max": [2],
                  "output": [{"index_array": [1, 2], "index_array_bounds": [0, 1]}]})),
    );
    check_transform(
        json!({"input_shape": [2], "output": [{"index_array": [1, 2], "index_array_bounds": ["-inf", 5]}]}),
        Ok(
            json!({"input_inclusive_min": [0], "input_exclusive_max": [2], "output": [{"index_array": [1, 2]}]}),
        ),
    );
    check_transform(
        json!({"input_shape": [0], "output": [{"index_array": [], "offset": 3}]}),
        Ok(json!({"input_inclusive_min": [0], "input_exclusive_max": [0], "output": [{}]})),
    );
    check_transform(
        json!({"input_shape": [1], "output": [{"index_array": [5]}]}),
        Ok(
            json!({"input_inclusive_min": [0], "input_exclusive_max": [1], "output": [{"index_array": [5]}]}),
        ),
    );
}

#[test]
fn transform_errors() {
    use ErrorCode::*;
    check_transform(json!({"output": []}), Err(Syntax));
    check_transform(
        json!({"input_rank": 1, "output": [{"index_array_bounds": [0, 1]}]}),
        Err(Syntax),
    );
    check_transform(
        json!({"input_shape": [3], "output": [{"index_array": [[1, 2, 3]]}]}),
        Err(Rank),
    );
    check_transform(json!({"input_shape": [3], "output": [{"input_dimension": -1}]}), Err(Bounds));
    check_transform(json!({"input_shape": [3], "output": [{"offset": 1.5}]}), Err(Value));
    check_transform(json!({"input_shape": [3], "output": [{"foo": 1}]}), Err(Syntax));
    check_transform(json!({"input_shape": [3], "output": {}}), Err(Syntax));
    check_transform(json!({"input_labels": ["a", "a"]}), Err(Label));
    check_transform(
        json!({"input_shape": [2], "output": [{"index_array": [1, 2], "index_array_bounds": [3, 1]}]}),
        Err(Bounds),
    );
    check_transform(
        json!({"input_shape": [2], "output": [{"index_array": [1, [2]]}]}),
        Err(Syntax),
    );
    check_transform(
        json!({"input_inclusive_min": [0], "input_exclusive_max": ["+inf"], "output": [{"index_array": [1, 2]}]}),
        Err(Mismatch),
    );
}

#[test]
fn static_rank_constraints() {
    let v = json!({"input_rank": 2, "output": [{"input_dimension": 0}]});
    let c = |input, output| RankConstraint { input, output };
    assert!(transform_from_json_with_ranks(&v, c(Some(2), Some(1))).is_ok());
    assert!(transform_from_json_with_ranks(&v, c(Some(3), None)).is_err());
    assert!(transform_from_json_with_ranks(&v, c(None, Some(2))).is_err());
    assert!(transform_from_json_with_ranks(&json!({"input_rank": 2}), c(None, Some(3))).is_err());
}

#[test]
fn printed_forms() {
    let d = IndexDomain::from_json(&json!({"inclusive_min": [0, 0, ["-inf"]], "exclusive_max": [2, 3, ["+inf"]], "labels": ["x", "", ""]})).unwrap();
    assert_eq!(d.to_string(), "{ \"x\": [0, 2), [0, 3), (-inf*, +inf*) }");
    let t = IndexTransform::from_json(&json!({"input_shape": [2], "input_labels": ["x"],
        "output": [{"offset": 5}, {"input_dimension": 0, "stride": 2, "offset": 1}, {"index_array": [3, 4]}]}))
    .unwrap();
    let expected = "Rank 1 -> 3 index space transform:\n  Input domain:\n    0: [0, 2) \"x\"\n  \
        Output index maps:\n    out[0] = 5\n    out[1] = 1 + 2 * in[0]\n    \
        out[2] = 0 + 1 * bounded((-inf, +inf), array(in)), where array =\n      {3, 4}\n";
    assert_eq!(t.to_string(), expected);
}

#[test]
fn strided_export() {
    let t = IndexTransform::from_strided(&[2, 3], &[4, 7], &[3, 0]).unwrap();
    assert_eq!(
        t.to_json(),
        json!({"input_inclusive_min": [0, 0], "input_exclusive_max": [2, 3],
               "output": [{"input_dimension": 0, "stride": 3, "offset": 4}, {"offset": 7}]})
    );
    let maps = [AxisMap::Input { dim: 1, stride: -1, offset: 2 }, AxisMap::Constant(0)];
    let t = IndexTransform::from_axis_maps(&[4, 3], &maps).unwrap();
    assert_eq!(t.output()[0], OutputMap::single(2, -1, 1));
    assert!(IndexTransform::from_axis_maps(
        &[4],
        &[AxisMap::Input { dim: 1, stride: 1, offset: 0 }]
    )
    .is_err());
    assert!(IndexTransform::from_strided(&[1 << 63], &[0], &[1]).is_err());
}

#[test]
fn tensorstore_json_test_examples() {
    let unlabeled = json!({
        "input_inclusive_min": ["-inf", 7, ["-inf"], [8]],
        "input_exclusive_max": ["+inf", 10, ["+inf"], [17]],
        "output": [
            {"offset": 3},
            {"stride": 2, "input_dimension": 2},
            {"offset": 7, "index_array": [[[[1]], [[2]], [[3]]]], "index_array_bounds": [1, 2]}
        ]
    });
    let mut labeled = unlabeled.clone();
    labeled["input_labels"] = json!(["x", "y", "z", "t"]);
    labeled["output"][2] = json!({"offset": 7, "index_array": [[[[1]], [[2]], [[3]]]]});
    for v in [
        unlabeled,
        labeled,
        json!({"input_labels": ["x", "y", "z"]}),
        json!({"input_inclusive_min": ["-inf"]}),
        json!({"input_exclusive_max": ["+inf"]}),
        json!({"input_rank": 1, "output": []}),
        json!({"input_rank": 0}),
    ] {
        check_transform(v.clone(), Ok(v));
    }
    check_transform(
        json!({"input_inclusive_min": [1, 2], "input_shape": [5, "+inf"]}),
        Ok(json!({"input_inclusive_min": [1, 2], "input_exclusive_max": [6, "+inf"]})),
    );
    check_transform(
        json!({"input_inclusive_min": [1, 2], "input_inclusive_max": [5, "+inf"]}),
        Ok(json!({"input_inclusive_min": [1, 2], "input_exclusive_max": [6, "+inf"]})),
    );
    check_transform(
        json!({"input_shape": [3], "output": [{"index_array": [1, 2, 3], "index_array_bounds": [1, 3]}]}),
        Ok(
            json!({"input_inclusive_min": [0], "input_exclusive_max": [3], "output": [{"index_array": [1, 2, 3]}]}),
        ),
    );
    check_transform(
        json!({"input_shape": [3], "output": [{"index_array": [1, 2, 3], "index_array_bounds": [5, 4]}]}),
        Ok(json!({"input_inclusive_min": [0], "input_exclusive_max": [3],
                  "output": [{"index_array": [1, 2, 3], "index_array_bounds": [5, 4]}]})),
    );
    use ErrorCode::*;
    check_transform(
        json!({"input_inclusive_min": [1, "a"], "input_exclusive_max": [5, 10]}),
        Err(Value),
    );
    check_transform(
        json!({"input_inclusive_min": [1, "-inf"], "input_exclusive_max": [5, "-inf"]}),
        Err(Value),
    );
    check_transform(
        json!({"input_inclusive_min": [1], "input_exclusive_max": [5], "output": [{"offset": "a"}]}),
        Err(Value),
    );
    check_transform(
        json!({"input_inclusive_min": [1], "input_exclusive_max": [5], "output": [{"index_array": "a"}]}),
        Err(Value),
    );
    check_transform(json!({"input_inclusive_min": [1, 2], "input_shape": [1, 2, 3]}), Err(Rank));
    check_transform(json!({"input_rank": -3}), Err(Rank));
    check_domain(json!({"labels": vec![""; 33]}), Err(Rank));
    check_domain(json!({"inclusive_min": [1], "exclusive_max": [2], "output": "abc"}), Err(Syntax));
}
