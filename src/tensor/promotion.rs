//! numpy's type promotion ([`result_type`]): the element type of a result whose operands have
//! the given types, as `numpy.result_type` gives it for arrays.
//!
//! - bool with anything gives the other type.
//! - Integers give the narrowest signed type holding every operand's range (uint8 with int8
//!   gives int16).
//! - Floats give the widest operand float; float16 with bfloat16 gives float32.
//! - Integers with floats give the widest operand float unless an integer needs a wider one
//!   to be held exactly, each integer type on its own: int8 and uint8 need a 16-bit float,
//!   int16 needs float32, int32 and int64 need float64. (So int8 × uint8 × float16 is float16,
//!   as in numpy, although int8 × uint8 alone is int16.)
//!
//! - Any complex operand gives a complex result: complex64 unless a part needs float64 (a
//!   complex128 or float64 operand, an int32 or int64 one), as numpy: complex64 with int16 is
//!   complex64, with int32 complex128.
//!
//! bfloat16 is not a numpy type: its rules are ml_dtypes' where ml_dtypes has one (bool,
//! int8 and uint8 give bfloat16; float32 and float64 win), and where ml_dtypes refuses to
//! promote, the same rule as for float16: int16 gives float32, int32 and int64 give float64,
//! float16 gives float32.

use super::dtype::DType;

/// Float width classes: 16-bit (float16, bfloat16), float32, float64.
fn float_level(d: DType) -> u8 {
    match d {
        DType::F16 | DType::BF16 => 1,
        DType::F32 => 2,
        _ => 3,
    }
}

/// The float width class that holds every value of an integer type.
fn int_need(d: DType) -> u8 {
    match d {
        DType::I8 | DType::U8 => 1,
        DType::I16 => 2,
        _ => 3,
    }
}

/// Signed integer ranks (uint8 has none).
fn signed_rank(d: DType) -> Option<u8> {
    match d {
        DType::I8 => Some(1),
        DType::I16 => Some(2),
        DType::I32 => Some(3),
        DType::I64 => Some(4),
        _ => None,
    }
}

/// numpy's `result_type` of arrays of these element types (`None` for no type at all).
///
/// ```
/// use einrow::tensor::{result_type, DType};
/// assert_eq!(result_type([DType::F32, DType::I16]), Some(DType::F32));
/// assert_eq!(result_type([DType::I8, DType::U8]), Some(DType::I16));
/// assert_eq!(result_type([DType::I64, DType::F32]), Some(DType::F64));
/// assert_eq!(result_type([DType::F16, DType::I16]), Some(DType::F32));
/// assert_eq!(result_type([DType::I8, DType::U8, DType::F16]), Some(DType::F16));
/// assert_eq!(result_type([]), None);
/// ```
pub fn result_type(dtypes: impl IntoIterator<Item = DType>) -> Option<DType> {
    let mut any = false;
    let mut float: Option<DType> = None;
    // The float width class of the widest complex operand's parts.
    let mut complex: Option<u8> = None;
    let (mut need, mut signed, mut unsigned) = (0u8, 0u8, false);
    for d in dtypes {
        any = true;
        if d.is_complex() {
            let level = if d == DType::C64 { 2 } else { 3 };
            complex = Some(complex.map_or(level, |c: u8| c.max(level)));
        } else if d.is_float() {
            float = Some(match float {
                None => d,
                Some(f) if f == d => f,
                Some(f) => match float_level(d).cmp(&float_level(f)) {
                    std::cmp::Ordering::Greater => d,
                    std::cmp::Ordering::Less => f,
                    // float16 with bfloat16: float32 holds both.
                    std::cmp::Ordering::Equal => DType::F32,
                },
            });
        } else if d.is_integer() {
            need = need.max(int_need(d));
            match signed_rank(d) {
                Some(r) => signed = signed.max(r),
                None => unsigned = true,
            }
        }
    }
    if !any {
        return None;
    }
    if let Some(level) = complex {
        // The complex type whose parts hold every operand: complex64 unless a part needs f64.
        let level = level.max(need).max(float.map_or(0, float_level));
        return Some(if level <= 2 { DType::C64 } else { DType::C128 });
    }
    if let Some(f) = float {
        return Some(match need {
            n if n <= float_level(f) => f,
            2 => DType::F32,
            _ => DType::F64,
        });
    }
    Some(match (signed, unsigned) {
        (0, false) => DType::Bool,
        (0, true) => DType::U8,
        // uint8 with int8: int16 holds both ranges.
        (1, true) | (2, _) => DType::I16,
        (1, false) => DType::I8,
        (3, _) => DType::I32,
        _ => DType::I64,
    })
}

impl DType {
    /// numpy's `result_type` of two arrays of these types (see [`result_type`]).
    ///
    /// ```
    /// use einrow::tensor::DType;
    /// assert_eq!(DType::F32.result_type(DType::I16), DType::F32);
    /// assert_eq!(DType::Bool.result_type(DType::I8), DType::I8);
    /// assert_eq!(DType::U8.result_type(DType::I32), DType::I32);
    /// ```
    pub fn result_type(self, other: DType) -> DType {
        result_type([self, other]).unwrap_or(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;

    #[test]
    fn pairs_from_the_numpy_rules() {
        for (a, b, want) in [
            (F32, I16, F32),
            (I8, U8, I16),
            (I64, F32, F64),
            (F16, I8, F16),
            (F16, I16, F32),
            (Bool, I8, I8),
            (U8, I32, I32),
            (Bool, Bool, Bool),
            (U8, U8, U8),
            (F64, F32, F64),
            (F16, F32, F32),
            (BF16, I8, BF16),
            (BF16, U8, BF16),
            (BF16, F16, F32),
            (BF16, I16, F32),
            (BF16, I64, F64),
            (BF16, F64, F64),
            (C64, F16, C64),
            (C64, I16, C64),
            (C64, I32, C128),
            (C64, F64, C128),
            (C64, C128, C128),
            (C64, Bool, C64),
            (C64, U8, C64),
            (C128, F32, C128),
            (F32, C64, C64),
            (BF16, C64, C64),
        ] {
            assert_eq!(a.result_type(b), want, "{a:?} × {b:?}");
            assert_eq!(b.result_type(a), want, "{b:?} × {a:?}");
        }
    }

    #[test]
    fn each_integer_meets_the_float_on_its_own() {
        assert_eq!(result_type([I8, U8, F16]), Some(F16));
        assert_eq!(result_type([F16, U8, I8]), Some(F16));
        assert_eq!(result_type([I8, U8, BF16]), Some(BF16));
        assert_eq!(result_type([I8, I16, F16]), Some(F32));
        assert_eq!(result_type([Bool]), Some(Bool));
    }
}
