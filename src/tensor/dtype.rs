//! [`DType`]: the storage element types — their names, sizes and kinds, and the compute type
//! each one is evaluated in.

use super::error::TensorError;

/// A storage element type.
///
/// numpy's `bool`, `int8`, `uint8`, `int16`, `int32`, `int64`, `float16`, `float32`,
/// `float64`, `complex64` and `complex128`, and bfloat16 (ml_dtypes' `bfloat16`, one of
/// Vespa's cell types). Values are evaluated in a wider compute type
/// ([`DType::compute_dtype`]) and stored back rounded (floats) or wrapped (integers), as
/// numpy stores them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum DType {
    /// Booleans (sums are ORs, products ANDs).
    Bool,
    /// Signed 8-bit integers (wrapping modulo 2^8).
    I8,
    /// Unsigned 8-bit integers (wrapping modulo 2^8).
    U8,
    /// Signed 16-bit integers (wrapping modulo 2^16).
    I16,
    /// Signed 32-bit integers (wrapping modulo 2^32).
    I32,
    /// Signed 64-bit integers (wrapping modulo 2^64).
    I64,
    /// IEEE half precision (computed in f32, stored rounded to nearest even).
    F16,
    /// bfloat16 (computed in f32, stored rounded to nearest even).
    BF16,
    /// IEEE single precision.
    F32,
    /// IEEE double precision.
    F64,
    /// Complex numbers of two f32 (numpy's `complex64`).
    C64,
    /// Complex numbers of two f64 (numpy's `complex128`).
    C128,
}

impl DType {
    /// Every storage type, narrowest kinds first.
    pub const ALL: [DType; 12] = [
        DType::Bool,
        DType::I8,
        DType::U8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::C64,
        DType::C128,
    ];

    /// The short name (`bool`, `i8`, `u8`, `i16`, `i32`, `i64`, `f16`, `bf16`, `f32`, `f64`,
    /// `c64`, `c128`).
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I8 => "i8",
            DType::U8 => "u8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::C64 => "c64",
            DType::C128 => "c128",
        }
    }

    /// numpy's name (`bool`, `int8`, `uint8`, …, `float64`, `complex64`, `complex128`;
    /// ml_dtypes' `bfloat16`).
    pub fn numpy_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I8 => "int8",
            DType::U8 => "uint8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::C64 => "complex64",
            DType::C128 => "complex128",
        }
    }

    /// Parses a name as printed by [`DType::name`] or [`DType::numpy_name`] (also `bool_`,
    /// `half`, `float` for f32, `double`, `csingle` and `cdouble`); `None` for any other.
    pub fn from_name(s: &str) -> Option<DType> {
        let alias = match s {
            "bool_" => DType::Bool,
            "half" => DType::F16,
            "float" => DType::F32,
            "double" => DType::F64,
            "csingle" => DType::C64,
            "cdouble" => DType::C128,
            _ => return DType::ALL.into_iter().find(|d| d.name() == s || d.numpy_name() == s),
        };
        Some(alias)
    }

    /// [`DType::from_name`] with an error a user can act on (code `unsupported`) for a name
    /// that is not one of einrow's storage types.
    ///
    /// ```
    /// use einrow::tensor::DType;
    /// assert_eq!(DType::parse("uint8"), Ok(DType::U8));
    /// let err = DType::parse("uint16").unwrap_err();
    /// assert_eq!(einrow::Coded::code(&err), einrow::ErrorCode::Unsupported);
    /// ```
    pub fn parse(s: &str) -> Result<DType, TensorError> {
        DType::from_name(s).ok_or_else(|| TensorError::UnknownDType { name: s.into() })
    }

    /// Bytes per element.
    pub const fn size_bytes(self) -> usize {
        match self {
            DType::Bool | DType::I8 | DType::U8 => 1,
            DType::I16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::F32 => 4,
            DType::I64 | DType::F64 | DType::C64 => 8,
            DType::C128 => 16,
        }
    }

    /// Whether this is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(self, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }

    /// Whether this is a complex type.
    pub fn is_complex(self) -> bool {
        matches!(self, DType::C64 | DType::C128)
    }

    /// Whether this is an integer type (not bool).
    pub fn is_integer(self) -> bool {
        matches!(self, DType::I8 | DType::U8 | DType::I16 | DType::I32 | DType::I64)
    }

    /// Whether this is one of Vespa's cell types (`int8`, `bfloat16`, `float`, `double`).
    pub fn is_vespa_cell(self) -> bool {
        matches!(self, DType::I8 | DType::BF16 | DType::F32 | DType::F64)
    }

    /// The type values of this type are evaluated in: f64 for f64; f32 for f32, f16 and
    /// bf16 (as numpy evaluates float16); i64 for the integer types, with wrapping arithmetic
    /// (exact modulo 2^64, so storing the result wrapped gives what wrapping arithmetic in the
    /// narrow type gives); bool for bool (OR of ANDs); each complex type in itself.
    pub fn compute_dtype(self) -> DType {
        match self {
            DType::F64 => DType::F64,
            DType::C64 => DType::C64,
            DType::C128 => DType::C128,
            DType::F16 | DType::BF16 | DType::F32 => DType::F32,
            DType::I8 | DType::U8 | DType::I16 | DType::I32 | DType::I64 => DType::I64,
            DType::Bool => DType::Bool,
        }
    }

    /// Vespa's rule for the cell type of a result whose operands have cell types `self` and
    /// `other`: the wider in the order int8 < bfloat16 < float < double. When either is not a
    /// Vespa cell type, numpy's promotion ([`DType::result_type`]).
    pub fn promote(self, other: DType) -> DType {
        if self.is_vespa_cell() && other.is_vespa_cell() {
            self.max(other)
        } else {
            self.result_type(other)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for d in DType::ALL {
            assert_eq!(DType::from_name(d.name()), Some(d));
            assert_eq!(DType::from_name(d.numpy_name()), Some(d));
            assert_eq!(DType::parse(d.numpy_name()), Ok(d));
        }
        assert_eq!(DType::from_name("double"), Some(DType::F64));
        assert_eq!(DType::from_name("float"), Some(DType::F32));
        assert_eq!(DType::from_name("complex64"), Some(DType::C64));
        assert_eq!(DType::from_name("cdouble"), Some(DType::C128));
        assert_eq!(DType::from_name("complex256"), None);
        let err = DType::parse("uint16").unwrap_err();
        assert_eq!(crate::code::Coded::code(&err), crate::code::ErrorCode::Unsupported);
        assert!(err.to_string().contains("uint16"), "{err}");
    }

    #[test]
    fn vespa_promotion() {
        assert_eq!(DType::I8.promote(DType::F32), DType::F32);
        assert_eq!(DType::BF16.promote(DType::I8), DType::BF16);
        assert_eq!(DType::I8.promote(DType::I8), DType::I8);
        assert_eq!(DType::BF16.promote(DType::F32), DType::F32);
        // Outside Vespa's cell types, numpy's rule.
        assert_eq!(DType::I32.promote(DType::F32), DType::F64);
    }

    #[test]
    fn compute_types() {
        assert_eq!(DType::I8.compute_dtype(), DType::I64);
        assert_eq!(DType::U8.compute_dtype(), DType::I64);
        assert_eq!(DType::F16.compute_dtype(), DType::F32);
        assert_eq!(DType::BF16.compute_dtype(), DType::F32);
        assert_eq!(DType::Bool.compute_dtype(), DType::Bool);
        for d in DType::ALL {
            assert_eq!(d.compute_dtype().compute_dtype(), d.compute_dtype());
            assert!(d.compute_dtype().size_bytes() >= d.size_bytes());
        }
    }
}
