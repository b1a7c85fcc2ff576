//! Element types of generated operands and results, by numpy's names: every storage type of
//! einrow ([`DType::ALL`]), plus `uint64`, which numpy's `sum` gives for `uint8` operands.
//! Results follow numpy's promotion ([`crate::tensor::result_type`]).

use crate::tensor::DType;

/// The element types generators draw, simplest first (the first is `float64`).
pub const DTYPES: [&str; 10] = [
    "float64", "float32", "int64", "bool", "int8", "uint8", "int16", "int32", "float16", "bfloat16",
];

/// The type of `numpy.sum` over `uint8` and `uint64` operands: not an einrow storage type.
pub const UINT64: &str = "uint64";

/// The static name of a dtype numpy calls `name` (one of [`DTYPES`] or [`UINT64`]; einrow's
/// short names such as `f32` are read too).
pub fn dtype_name(name: &str) -> Option<&'static str> {
    if name == UINT64 || name == "u64" {
        return Some(UINT64);
    }
    DType::from_name(name).map(DType::numpy_name)
}

fn storage(name: &str) -> Option<DType> {
    DType::from_name(name)
}

/// numpy's `result_type` of arrays of these types (`float64` for none). `uint64` with a
/// signed integer or a float gives `float64`, as in numpy.
pub fn result_type(dtypes: &[&str]) -> &'static str {
    if dtypes.contains(&UINT64) {
        let other = |d: &&str| {
            storage(d).is_some_and(|t| t.is_float() || (t.is_integer() && t != DType::U8))
        };
        return if dtypes.iter().any(other) { "float64" } else { UINT64 };
    }
    crate::tensor::result_type(dtypes.iter().filter_map(|d| storage(d)))
        .map_or("float64", DType::numpy_name)
}

/// The type of `numpy.sum` of an operand of type `d`: bool and signed integers sum in
/// `int64`, unsigned ones in `uint64`, floats in their own type.
pub fn sum_type(d: &str) -> &'static str {
    match storage(d) {
        Some(t) if t.is_float() => t.numpy_name(),
        Some(DType::U8) => UINT64,
        Some(_) => "int64",
        None => UINT64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpy_promotions() {
        assert_eq!(result_type(&["int8", "uint8"]), "int16");
        assert_eq!(result_type(&["uint64", "int8"]), "float64");
        assert_eq!(result_type(&["uint64", "uint8", "bool"]), "uint64");
        assert_eq!(result_type(&["bool", "bool"]), "bool");
        assert_eq!(sum_type("bool"), "int64");
        assert_eq!(sum_type("uint8"), "uint64");
        assert_eq!(sum_type("float16"), "float16");
        for d in DTYPES {
            assert_eq!(dtype_name(d), Some(d));
        }
    }
}
