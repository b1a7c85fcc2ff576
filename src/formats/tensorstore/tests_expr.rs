//! Data-driven tests of dimension expressions, mostly TensorStore's documented examples
//! (`python/tensorstore/dim_expression.cc` docstrings) written as normal-form JSON.

use serde_json::{json, Value};

use super::*;
use crate::code::{Coded, ErrorCode};

/// Applies each op of `ops` in turn to `input` (both JSON, as in the `ts_dim_expr` suite).
fn run(input: &Value, ops: &Value) -> Result<Value, ErrorCode> {
    let mut t = IndexTransform::from_json(input).map_err(|e| e.code())?;
    for (i, op) in ops.as_array().into_iter().flatten().enumerate() {
        let e = dim_expr_from_json(op, &JsonPath::root().index(i)).map_err(|e| e.code())?;
        t = t.apply(&e).map_err(|e| e.code())?;
    }
    Ok(t.to_json())
}

fn check(input: Value, ops: Value, expect: Value) {
    assert_eq!(run(&input, &ops), Ok(expect), "{input} {ops}");
}

fn check_err(input: Value, ops: Value, code: ErrorCode) {
    assert_eq!(run(&input, &ops), Err(code), "{input} {ops}");
}

fn xyz_456() -> Value {
    json!({"input_shape": [4, 5, 6], "input_labels": ["x", "y", "z"]})
}

fn xyz() -> Value {
    json!({"input_labels": ["x", "y", "z"]})
}

#[test]
fn translations() {
    check(
        xyz_456(),
        json!([{"op": "translate_to", "dims": ["x", "y"], "origins": [10, null]}]),
        json!({"input_inclusive_min": [10, 0, 0], "input_exclusive_max": [14, 5, 6],
               "input_labels": ["x", "y", "z"],
               "output": [{"input_dimension": 0, "offset": -10}, {"input_dimension": 1}, {"input_dimension": 2}]}),
    );
    check(
        xyz_456(),
        json!([{"op": "translate_to", "dims": ["x", "y"], "origins": 10}]),
        json!({"input_inclusive_min": [10, 10, 0], "input_exclusive_max": [14, 15, 6],
               "input_labels": ["x", "y", "z"],
               "output": [{"input_dimension": 0, "offset": -10}, {"input_dimension": 1, "offset": -10}, {"input_dimension": 2}]}),
    );
    let shifted = json!({"input_inclusive_min": [2, 3, 4], "input_shape": [4, 5, 6], "input_labels": ["x", "y", "z"]});
    check(
        shifted.clone(),
        json!([{"op": "translate_backward_by", "dims": ["x", "y"], "offsets": [10, 20]}]),
        json!({"input_inclusive_min": [-8, -17, 4], "input_exclusive_max": [-4, -12, 10],
               "input_labels": ["x", "y", "z"],
               "output": [{"input_dimension": 0, "offset": 10}, {"input_dimension": 1, "offset": 20}, {"input_dimension": 2}]}),
    );
    check(
        json!({"input_rank": 3}),
        json!([{"op": "translate_by", "dims": [0, 1], "offsets": 2}]),
        json!({"input_rank": 3, "output": [{"input_dimension": 0, "offset": -2}, {"input_dimension": 1, "offset": -2}, {"input_dimension": 2}]}),
    );
    check_err(
        shifted.clone(),
        json!([{"op": "translate_by", "dims": ["x"], "offsets": [1, 2]}]),
        ErrorCode::Arity,
    );
    check_err(
        shifted,
        json!([{"op": "translate_by", "dims": [0], "offsets": 4611686018427387900_i64}]),
        ErrorCode::Bounds,
    );
    check_err(
        xyz_456(),
        json!([{"op": "translate_to", "dims": [0], "origins": 4611686018427387903_i64}]),
        ErrorCode::Bounds,
    );
}

#[test]
fn strides_labels_transposes() {
    let t = json!({"input_inclusive_min": [0, 2, 1], "input_inclusive_max": [6, 5, 8], "input_labels": ["x", "y", "z"]});
    check(
        t.clone(),
        json!([{"op": "stride", "dims": ["x", "z"], "strides": 3}]),
        json!({"input_inclusive_min": [0, 2, 1], "input_exclusive_max": [3, 6, 3], "input_labels": ["x", "y", "z"],
               "output": [{"input_dimension": 0, "stride": 3}, {"input_dimension": 1}, {"input_dimension": 2, "stride": 3}]}),
    );
    check_err(t, json!([{"op": "stride", "dims": [0], "strides": [0]}]), ErrorCode::Value);
    check(
        json!({"input_rank": 3}),
        json!([{"op": "label", "dims": [{"range": [null, null, null]}], "labels": ["x", "y", "z"]}]),
        json!({"input_labels": ["x", "y", "z"]}),
    );
    check_err(xyz(), json!([{"op": "label", "dims": [0], "labels": ["y"]}]), ErrorCode::Label);
    check(
        json!({"input_shape": [2, 3, 4], "input_labels": ["x", "y", "z"]}),
        json!([{"op": "transpose", "dims": ["x", "z"], "target": [0, 1]}]),
        json!({"input_inclusive_min": [0, 0, 0], "input_exclusive_max": [2, 4, 3], "input_labels": ["x", "z", "y"],
               "output": [{"input_dimension": 0}, {"input_dimension": 2}, {"input_dimension": 1}]}),
    );
    let abcd = json!({"input_shape": [2, 3, 4, 5], "input_labels": ["a", "b", "c", "d"]});
    let to_end = json!({"input_inclusive_min": [0, 0, 0, 0], "input_exclusive_max": [3, 4, 2, 5],
        "input_labels": ["b", "c", "a", "d"],
        "output": [{"input_dimension": 2}, {"input_dimension": 0}, {"input_dimension": 1}, {"input_dimension": 3}]});
    check(
        abcd.clone(),
        json!([{"op": "transpose", "dims": ["a", "d"], "target": -1}]),
        to_end.clone(),
    );
    check(abcd.clone(), json!([{"op": "move_to", "dims": ["a", "d"], "target": 2}]), to_end);
    check_err(
        abcd.clone(),
        json!([{"op": "transpose", "dims": ["a", "d"], "target": ["b", 0]}]),
        ErrorCode::Label,
    );
    check_err(
        abcd,
        json!([{"op": "transpose", "dims": ["a", "d"], "target": [0, 0]}]),
        ErrorCode::Label,
    );
}

#[test]
fn diagonals_and_new_axes() {
    check(
        json!({"input_rank": 3}),
        json!([{"op": "diagonal", "dims": [0, 2]}]),
        json!({"input_rank": 2, "output": [{"input_dimension": 0}, {"input_dimension": 1}, {"input_dimension": 0}]}),
    );
    check(
        json!({"input_rank": 1}),
        json!([{"op": "diagonal", "dims": []}]),
        json!({"input_rank": 2, "output": [{"input_dimension": 1}]}),
    );
    check(
        json!({"input_labels": ["x", "y"]}),
        json!([{"op": "diagonal", "dims": [1]}]),
        json!({"input_labels": ["", "x"], "output": [{"input_dimension": 1}, {"input_dimension": 0}]}),
    );
    check(
        json!({"input_labels": ["x", "y"]}),
        json!([{"op": "newaxis", "dims": [1]}]),
        json!({"input_inclusive_min": [["-inf"], [0], ["-inf"]], "input_exclusive_max": [["+inf"], [1], ["+inf"]],
               "input_labels": ["x", "", "y"], "output": [{"input_dimension": 0}, {"input_dimension": 2}]}),
    );
    check(
        json!({"input_labels": ["x", "y"]}),
        json!([{"op": "newaxis", "dims": [0, -1]}]),
        json!({"input_inclusive_min": [[0], ["-inf"], ["-inf"], [0]], "input_exclusive_max": [[1], ["+inf"], ["+inf"], [1]],
               "input_labels": ["", "x", "y", ""], "output": [{"input_dimension": 1}, {"input_dimension": 2}]}),
    );
    check_err(
        json!({"input_labels": ["x", "y"]}),
        json!([{"op": "newaxis", "dims": ["x"]}]),
        ErrorCode::Label,
    );
}

#[test]
fn index_and_interval_slices() {
    check(
        xyz(),
        json!([{"op": "index_slice", "dims": ["x", "z"], "indices": [5, 6]}]),
        json!({"input_labels": ["y"], "output": [{"offset": 5}, {"input_dimension": 0}, {"offset": 6}]}),
    );
    check(
        xyz(),
        json!([{"op": "index_slice", "dims": ["x", "y"], "indices": 5}]),
        json!({"input_labels": ["z"], "output": [{"offset": 5}, {"offset": 5}, {"input_dimension": 0}]}),
    );
    check(
        xyz(),
        json!([{"op": "interval_slice", "dims": ["x", "z"], "intervals": {"start": 5, "stop": 30}}]),
        json!({"input_inclusive_min": [5, ["-inf"], 5], "input_exclusive_max": [30, ["+inf"], 30],
               "input_labels": ["x", "y", "z"]}),
    );
    check(
        json!({"input_shape": [10]}),
        json!([{"op": "interval_slice", "dims": [0], "intervals": [{"step": -1}]}]),
        json!({"input_inclusive_min": [-9], "input_exclusive_max": [1], "output": [{"input_dimension": 0, "stride": -1}]}),
    );
    check(
        json!({"input_inclusive_min": [0], "input_exclusive_max": [[10]]}),
        json!([{"op": "interval_slice", "dims": [0], "intervals": [{"start": 5, "stop": 15}]}]),
        json!({"input_inclusive_min": [5], "input_exclusive_max": [15]}),
    );
    check_err(
        json!({"input_shape": [10]}),
        json!([{"op": "index_slice", "dims": [0], "indices": [10]}]),
        ErrorCode::Bounds,
    );
    check(
        json!({"input_inclusive_min": [0], "input_exclusive_max": [[10]]}),
        json!([{"op": "index_slice", "dims": [0], "indices": [10]}]),
        json!({"input_rank": 0, "output": [{"offset": 10}]}),
    );
}

#[test]
fn implicit_flags() {
    let steps = [
        (
            json!({"op": "mark_bounds_implicit", "dims": [0, 2], "lower": false, "upper": false}),
            json!({"input_inclusive_min": ["-inf", ["-inf"], "-inf"], "input_exclusive_max": ["+inf", ["+inf"], "+inf"]}),
        ),
        (
            json!({"op": "mark_bounds_implicit", "dims": [0, 1], "lower": null, "upper": true}),
            json!({"input_inclusive_min": ["-inf", ["-inf"], "-inf"], "input_exclusive_max": [["+inf"], ["+inf"], "+inf"]}),
        ),
        (
            json!({"op": "mark_bounds_implicit", "dims": [1, 2], "lower": true, "upper": false}),
            json!({"input_inclusive_min": ["-inf", ["-inf"], ["-inf"]], "input_exclusive_max": [["+inf"], "+inf", "+inf"]}),
        ),
    ];
    let mut t = json!({"input_rank": 3});
    for (op, expect) in steps {
        let got = run(&t, &json!([op])).unwrap();
        assert_eq!(got, expect, "{op}");
        t = got;
    }
    let arr = json!({"input_shape": [2], "output": [{"index_array": [1, 2]}]});
    check_err(
        arr,
        json!([{"op": "mark_bounds_implicit", "dims": [0], "lower": true}]),
        ErrorCode::Bounds,
    );
}

#[test]
fn index_arrays() {
    let t = json!({"input_shape": [4], "output": [{"index_array": [10, 11, 12, 13]}]});
    let one_d = |lo: i64, hi: i64, arr: Value| json!({"input_inclusive_min": [lo], "input_exclusive_max": [hi], "output": [{"index_array": arr}]});
    check(
        t.clone(),
        json!([{"op": "interval_slice", "dims": [0], "intervals": [{"start": 1, "stop": 3}]}]),
        one_d(1, 3, json!([11, 12])),
    );
    check(
        t.clone(),
        json!([{"op": "stride", "dims": [0], "strides": 2}]),
        one_d(0, 2, json!([10, 12])),
    );
    check(
        t.clone(),
        json!([{"op": "translate_by", "dims": [0], "offsets": 5}]),
        one_d(5, 9, json!([10, 11, 12, 13])),
    );
    check(
        t.clone(),
        json!([{"op": "oindex", "dims": [0], "arrays": [[3, 0]]}]),
        one_d(0, 2, json!([13, 10])),
    );
    check(
        t.clone(),
        json!([{"op": "index_slice", "dims": [0], "indices": 2}]),
        json!({"input_rank": 0, "output": [{"offset": 12}]}),
    );
    check(
        t.clone(),
        json!([{"op": "oindex", "dims": [0], "arrays": [[2]]}]),
        json!({"input_inclusive_min": [0], "input_exclusive_max": [1], "output": [{"offset": 12}]}),
    );
    check_err(t, json!([{"op": "oindex", "dims": [0], "arrays": [[4]]}]), ErrorCode::Bounds);
    let grid = json!({"input_shape": [3, 3], "output": [{"index_array": [[0, 1, 2], [3, 4, 5], [6, 7, 8]]}]});
    check(grid.clone(), json!([{"op": "diagonal", "dims": [0, 1]}]), one_d(0, 3, json!([0, 4, 8])));
    check(
        grid,
        json!([{"op": "transpose", "dims": [1], "target": 0}]),
        json!({"input_inclusive_min": [0, 0], "input_exclusive_max": [3, 3],
               "output": [{"index_array": [[0, 3, 6], [1, 4, 7], [2, 5, 8]]}]}),
    );
}

#[test]
fn array_indexing_of_plain_transforms() {
    check(
        json!({"input_shape": [3, 4]}),
        json!([{"op": "vindex", "dims": [0, 1], "arrays": [[0, 1], [2]]}]),
        json!({"input_inclusive_min": [0], "input_exclusive_max": [2], "output": [{"index_array": [0, 1]}, {"offset": 2}]}),
    );
    check(
        json!({"input_shape": [10]}),
        json!([{"op": "oindex", "dims": [0], "arrays": [[1, 12]]}]),
        json!({"input_inclusive_min": [0], "input_exclusive_max": [2],
               "output": [{"index_array": [1, 12], "index_array_bounds": [0, 9]}]}),
    );
    check_err(
        json!({"input_shape": [10]}),
        json!([{"op": "oindex", "dims": [0], "arrays": [[12]]}]),
        ErrorCode::Bounds,
    );
    check(
        json!({"input_shape": [2, 3], "input_labels": ["x", "y"]}),
        json!([{"op": "oindex", "dims": ["y"], "arrays": [[false, true, true]]}]),
        json!({"input_inclusive_min": [0, 0], "input_exclusive_max": [2, 2], "input_labels": ["x", ""],
               "output": [{"input_dimension": 0}, {"index_array": [[1, 2]]}]}),
    );
    check(
        json!({"input_shape": [2, 2, 3], "input_labels": ["x", "y", "z"]}),
        json!([{"op": "vindex", "dims": ["x", "z"], "arrays": [[[true, false, false], [true, true, false]]]}]),
        json!({"input_inclusive_min": [0, 0], "input_exclusive_max": [3, 2], "input_labels": ["", "y"],
               "output": [{"index_array": [[0], [1], [1]]}, {"input_dimension": 1}, {"index_array": [[0], [0], [1]]}]}),
    );
    check(
        json!({"input_shape": [5]}),
        json!([{"op": "oindex", "dims": [0], "arrays": [[]]}]),
        json!({"input_inclusive_min": [0], "input_exclusive_max": [0], "output": [{}]}),
    );
    check_err(
        json!({"input_shape": [3, 4]}),
        json!([{"op": "vindex", "dims": [0, 1], "arrays": [[0, 1], [0, 1, 2]]}]),
        ErrorCode::Mismatch,
    );
    check_err(
        json!({"input_shape": [3, 4]}),
        json!([{"op": "oindex", "dims": [0, 1], "arrays": [[0, 1]]}]),
        ErrorCode::Arity,
    );
}

/// A composition that recomputes index arrays for several output dimensions shares one
/// element limit: four outputs of 2^24 elements each once took 4 GiB and aborted.
#[test]
fn recomputed_index_arrays_share_one_element_limit() {
    let n = 4096usize;
    let col: Vec<Value> = (0..n).map(|i| json!([i % 2])).collect();
    let row: Vec<Value> = vec![Value::from((0..n).map(|i| i % 2).collect::<Vec<_>>())];
    let map = json!({"index_array": [[1, 2], [3, 4]]});
    let input =
        |outputs: usize| json!({"input_shape": [2, 2], "output": vec![map.clone(); outputs]});
    let ops = json!([{"op": "vindex", "dims": [0, 1], "arrays": [col, row]}]);
    let t = IndexTransform::from_json(&input(4)).unwrap();
    let e = t.apply(&dim_expr_from_json(&ops[0], &JsonPath::root()).unwrap()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Bounds);
    assert!(e.message().contains("output dimension 1 would have shape [4096, 4096]"), "{e}");
    // Four outputs of 4096 × 2 elements each stay well within the limit.
    let small_row: Vec<Value> = vec![Value::from((0..2).collect::<Vec<_>>())];
    let ops = json!([{"op": "vindex", "dims": [0, 1], "arrays": [col, small_row]}]);
    let got = run(&input(4), &ops).unwrap();
    assert_eq!(got["output"][3]["index_array"][4094], json!([1, 2]));
    assert_eq!(got["output"][3]["index_array"][4095], json!([3, 4]));
}

/// `-2^63` is TensorStore's implicit value: translations by or to it and slice bounds given as
/// it leave the dimension alone, as `None` does.
#[test]
fn implicit_value_leaves_translations_and_slice_bounds_alone() {
    let n = i64::MIN;
    for op in ["translate_to", "translate_by", "translate_backward_by"] {
        let member = if op == "translate_to" { "origins" } else { "offsets" };
        check(
            json!({"input_shape": [3]}),
            json!([{"op": op, "dims": [0], member: n}]),
            json!({"input_inclusive_min": [0], "input_exclusive_max": [3]}),
        );
    }
    check(
        json!({"input_shape": [10]}),
        json!([{"op": "interval_slice", "dims": [0], "intervals": {"start": n, "stop": n, "step": -1}}]),
        json!({"input_inclusive_min": [-9], "input_exclusive_max": [1],
               "output": [{"input_dimension": 0, "stride": -1}]}),
    );
    // A stride of -2^63 is a number, as in TensorStore: it overflows on a bounded domain.
    check_err(
        json!({"input_shape": [10]}),
        json!([{"op": "stride", "dims": [0], "strides": n}]),
        ErrorCode::Bounds,
    );
}

/// Overflow messages name what overflowed, and a rank error names the true rank.
#[test]
fn overflow_and_rank_messages_are_exact() {
    let message = |input: Value, ops: Value| {
        let mut t = IndexTransform::from_json(&input).unwrap();
        for op in ops.as_array().unwrap() {
            match t.apply(&dim_expr_from_json(op, &JsonPath::root()).unwrap()) {
                Ok(next) => t = next,
                Err(e) => return e.to_string(),
            }
        }
        panic!("no error for {ops}");
    };
    let m = i64::MAX;
    assert_eq!(
        message(
            json!({"input_shape": [10]}),
            json!([{"op": "stride", "dims": [0], "strides": m}, {"op": "stride", "dims": [0], "strides": 2}])
        ),
        "Integer overflow computing stride for output dimension 0"
    );
    assert_eq!(
        message(
            json!({"input_rank": 1}),
            json!([{"op": "newaxis", "dims": [{"range": [null, m, 1]}]}])
        ),
        "Rank 9223372036854775808 is outside valid range [0, 32]"
    );
}
