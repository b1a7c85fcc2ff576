//! Comparison helpers shared by the kinds: JSON values with numeric tolerance, float lists, and
//! the `{"error": CODE}` expectation.

use serde_json::Value;

use super::case::CaseOutcome;
use crate::code::ErrorCode;

/// Relative tolerance for f64 results.
pub const F64_TOL: f64 = 1e-9;
/// Relative tolerance for f32 results.
pub const F32_TOL: f64 = 1e-5;
/// Absolute tolerance near zero.
pub const ABS_TOL: f64 = 1e-12;

/// Whether two floats agree within `rel` (relative) or [`ABS_TOL`]; NaN equals NaN, and an
/// infinity equals only the same infinity (no tolerance reaches it, nor reaches a finite
/// value from it).
pub fn close(a: f64, b: f64, rel: f64) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    if a == b {
        return true;
    }
    if a.is_infinite() || b.is_infinite() {
        return false;
    }
    let diff = (a - b).abs();
    diff <= ABS_TOL || diff <= rel * a.abs().max(b.abs())
}

/// Compares two JSON values: objects by members in any order, arrays in order, numbers by
/// value within `rel`, everything else exactly. Returns the path of the first difference.
pub fn json_diff(expected: &Value, actual: &Value, rel: f64) -> Option<String> {
    json_diff_at(expected, actual, rel, &mut String::from("$"))
}

fn json_diff_at(e: &Value, a: &Value, rel: f64, path: &mut String) -> Option<String> {
    match (e, a) {
        (Value::Number(x), Value::Number(y)) => {
            let same = match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(p), Some(q), _, _) => p == q,
                (_, _, Some(p), Some(q)) => p == q,
                _ => close(x.as_f64().unwrap_or(f64::NAN), y.as_f64().unwrap_or(f64::NAN), rel),
            };
            (!same).then(|| format!("{path}: expected {e}, got {a}"))
        }
        (Value::Array(xs), Value::Array(ys)) => {
            if xs.len() != ys.len() {
                return Some(format!("{path}: expected {} items, got {}", xs.len(), ys.len()));
            }
            xs.iter().zip(ys).enumerate().find_map(|(i, (x, y))| {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                let d = json_diff_at(x, y, rel, path);
                path.truncate(len);
                d
            })
        }
        (Value::Object(xs), Value::Object(ys)) => {
            if let Some(k) = ys.keys().find(|k| !xs.contains_key(*k)) {
                return Some(format!("{path}: unexpected member {k:?}"));
            }
            xs.iter().find_map(|(k, x)| {
                let len = path.len();
                path.push_str(&format!(".{k}"));
                let d = match ys.get(k) {
                    Some(y) => json_diff_at(x, y, rel, path),
                    None => Some(format!("{path}: missing")),
                };
                path.truncate(len);
                d
            })
        }
        _ => (e != a).then(|| format!("{path}: expected {e}, got {a}")),
    }
}

/// Compares flat value lists within `rel`.
pub fn values_diff(expected: &[f64], actual: &[f64], rel: f64) -> Option<String> {
    if expected.len() != actual.len() {
        return Some(format!("expected {} values, got {}", expected.len(), actual.len()));
    }
    expected
        .iter()
        .zip(actual)
        .position(|(e, a)| !close(*e, *a, rel))
        .map(|i| format!("value [{i}]: expected {}, got {}", expected[i], actual[i]))
}

/// Reads a JSON number list (numbers, or the strings `"Infinity"`, `"-Infinity"`, `"NaN"`).
pub fn f64_list(v: &Value) -> Option<Vec<f64>> {
    v.as_array()?.iter().map(number).collect()
}

/// Reads one number, accepting the string spellings of the non-finite values.
pub fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => match s.as_str() {
            "Infinity" | "inf" | "+inf" => Some(f64::INFINITY),
            "-Infinity" | "-inf" => Some(f64::NEG_INFINITY),
            "NaN" | "nan" => Some(f64::NAN),
            _ => None,
        },
        _ => None,
    }
}

/// The expected error code when `expect` is `{"error": CODE}`.
pub fn expected_error(expect: &Value) -> Option<&str> {
    expect.get("error").and_then(Value::as_str)
}

/// Settles a case whose expectation is an error: an error passes whatever its code (the code is
/// reported for information), a success fails.
pub fn settle_error<T>(expected_code: &str, got: Result<T, (ErrorCode, String)>) -> CaseOutcome {
    match got {
        Err(_) => Ok(()),
        Ok(_) => Err(format!("expected error {expected_code}, got success")),
    }
}

/// A required member of a case.
pub fn member<'a>(case: &'a Value, key: &str) -> Result<&'a Value, String> {
    case.get(key).ok_or_else(|| format!("case has no {key:?}"))
}

/// A required string member of a case.
pub fn str_member<'a>(case: &'a Value, key: &str) -> Result<&'a str, String> {
    member(case, key)?.as_str().ok_or_else(|| format!("{key:?} is not a string"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn infinities_equal_only_themselves() {
        let inf = f64::INFINITY;
        for rel in [0.0, F32_TOL, F64_TOL, 1.0] {
            assert!(close(inf, inf, rel) && close(-inf, -inf, rel));
            for other in [-inf, 0.0, 1.0, -1.0, 1e308, f64::MAX, f64::NAN] {
                assert!(!close(inf, other, rel), "inf ~ {other} at {rel}");
                assert!(!close(other, inf, rel), "{other} ~ inf at {rel}");
            }
            assert!(!close(-inf, 0.0, rel) && !close(1.0, -inf, rel));
        }
        assert!(values_diff(&[inf, 1.0], &[2.0, 1.0], F32_TOL).is_some());
        assert!(values_diff(&[0.0], &[inf], F32_TOL).is_some());
    }

    /// Any value: `close` accepts only what is within the tolerance of the expected value.
    fn any_f64() -> impl Strategy<Value = f64> {
        prop_oneof![
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(f64::NAN),
            Just(0.0),
            Just(1.0),
            Just(f64::MAX),
            any::<f64>(),
            -1e6f64..1e6,
        ]
    }

    proptest! {
        #[test]
        fn close_never_accepts_a_value_out_of_tolerance(
            a in any_f64(),
            b in any_f64(),
            rel in prop_oneof![Just(0.0), Just(F32_TOL), Just(F64_TOL)],
        ) {
            let within = if a.is_nan() || b.is_nan() {
                a.is_nan() && b.is_nan()
            } else if a.is_infinite() || b.is_infinite() {
                a == b
            } else {
                let diff = (a - b).abs();
                diff <= ABS_TOL || diff <= rel * a.abs().max(b.abs())
            };
            prop_assert_eq!(close(a, b, rel), within);
        }
    }
}
