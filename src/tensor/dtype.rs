//! Element types: storage dtypes (f32, f64, bf16, int8), their shared buffers, and the
//! compute type each one is evaluated in.

use std::sync::Arc;

use half::bf16;

/// A storage element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// Signed 8-bit integers (computed in f64, stored wrapping modulo 256 like numpy's int8).
    I8,
    /// bfloat16 (computed in f32, stored rounded to nearest even).
    BF16,
    /// IEEE single precision.
    F32,
    /// IEEE double precision.
    F64,
}

impl DType {
    /// The lowercase name (`f32`, `f64`, `bf16`, `i8`).
    pub fn name(self) -> &'static str {
        match self {
            DType::I8 => "i8",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
        }
    }

    /// Parses a name as printed by [`DType::name`] (also `int8`, `bfloat16`, `float`, `double`).
    pub fn from_name(s: &str) -> Option<DType> {
        match s {
            "i8" | "int8" => Some(DType::I8),
            "bf16" | "bfloat16" => Some(DType::BF16),
            "f32" | "float32" | "float" => Some(DType::F32),
            "f64" | "float64" | "double" => Some(DType::F64),
            _ => None,
        }
    }

    /// Bytes per element.
    pub fn size_bytes(self) -> usize {
        match self {
            DType::I8 => 1,
            DType::BF16 => 2,
            DType::F32 => 4,
            DType::F64 => 8,
        }
    }

    /// The type results are stored in when operands of `self` and `other` meet: the wider one
    /// in the order i8 < bf16 < f32 < f64.
    pub fn promote(self, other: DType) -> DType {
        self.max(other)
    }

    /// Whether values of this type are evaluated in f64 (f64 itself, and int8 so that integer
    /// sums stay exact); otherwise in f32.
    pub fn computes_in_f64(self) -> bool {
        matches!(self, DType::F64 | DType::I8)
    }
}

/// A shared, immutable flat buffer of one storage type.
#[derive(Clone, Debug)]
pub enum Buffer {
    /// int8 elements.
    I8(Arc<Vec<i8>>),
    /// bfloat16 elements.
    BF16(Arc<Vec<bf16>>),
    /// f32 elements.
    F32(Arc<Vec<f32>>),
    /// f64 elements.
    F64(Arc<Vec<f64>>),
}

impl Buffer {
    /// The element type.
    pub fn dtype(&self) -> DType {
        match self {
            Buffer::I8(_) => DType::I8,
            Buffer::BF16(_) => DType::BF16,
            Buffer::F32(_) => DType::F32,
            Buffer::F64(_) => DType::F64,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Buffer::I8(v) => v.len(),
            Buffer::BF16(v) => v.len(),
            Buffer::F32(v) => v.len(),
            Buffer::F64(v) => v.len(),
        }
    }

    /// Whether the buffer holds no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` as f64 (`None` out of range).
    pub fn get_f64(&self, i: usize) -> Option<f64> {
        match self {
            Buffer::I8(v) => v.get(i).map(|&x| x.to_f64()),
            Buffer::BF16(v) => v.get(i).map(|&x| x.to_f64()),
            Buffer::F32(v) => v.get(i).map(|&x| x.to_f64()),
            Buffer::F64(v) => v.get(i).copied(),
        }
    }
}

/// A storage element: convertible to and from the compute types, and wrappable in a
/// [`Buffer`].
pub trait Element: Copy + Send + Sync + Default + PartialEq + std::fmt::Debug + 'static {
    /// The matching [`DType`].
    const DTYPE: DType;
    /// The value as f64 (exact for every storage type).
    fn to_f64(self) -> f64;
    /// The nearest storable value (int8: truncated toward zero, wrapped modulo 256; NaN → 0).
    fn from_f64(x: f64) -> Self;
    /// The value as f32.
    fn to_f32(self) -> f32;
    /// The nearest storable value of an f32.
    fn from_f32(x: f32) -> Self;
    /// Wraps a vector in a [`Buffer`].
    fn into_buffer(v: Vec<Self>) -> Buffer;
    /// The elements of `b` when it holds this type.
    fn slice_of(b: &Buffer) -> Option<&[Self]>;
}

fn wrap_i8(x: f64) -> i8 {
    if x.is_nan() {
        return 0;
    }
    // Truncate toward zero, then keep the low 8 bits (two's complement wrap).
    (x.trunc().clamp(i64::MIN as f64, i64::MAX as f64) as i64) as i8
}

impl Element for i8 {
    const DTYPE: DType = DType::I8;
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(x: f64) -> Self {
        wrap_i8(x)
    }
    fn to_f32(self) -> f32 {
        self as f32
    }
    fn from_f32(x: f32) -> Self {
        wrap_i8(x as f64)
    }
    fn into_buffer(v: Vec<Self>) -> Buffer {
        Buffer::I8(Arc::new(v))
    }
    fn slice_of(b: &Buffer) -> Option<&[Self]> {
        match b {
            Buffer::I8(v) => Some(v),
            _ => None,
        }
    }
}

impl Element for bf16 {
    const DTYPE: DType = DType::BF16;
    fn to_f64(self) -> f64 {
        self.to_f64()
    }
    fn from_f64(x: f64) -> Self {
        bf16::from_f64(x)
    }
    fn to_f32(self) -> f32 {
        self.to_f32()
    }
    fn from_f32(x: f32) -> Self {
        bf16::from_f32(x)
    }
    fn into_buffer(v: Vec<Self>) -> Buffer {
        Buffer::BF16(Arc::new(v))
    }
    fn slice_of(b: &Buffer) -> Option<&[Self]> {
        match b {
            Buffer::BF16(v) => Some(v),
            _ => None,
        }
    }
}

impl Element for f32 {
    const DTYPE: DType = DType::F32;
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f32(self) -> f32 {
        self
    }
    fn from_f32(x: f32) -> Self {
        x
    }
    fn into_buffer(v: Vec<Self>) -> Buffer {
        Buffer::F32(Arc::new(v))
    }
    fn slice_of(b: &Buffer) -> Option<&[Self]> {
        match b {
            Buffer::F32(v) => Some(v),
            _ => None,
        }
    }
}

impl Element for f64 {
    const DTYPE: DType = DType::F64;
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(x: f64) -> Self {
        x
    }
    fn to_f32(self) -> f32 {
        self as f32
    }
    fn from_f32(x: f32) -> Self {
        x as f64
    }
    fn into_buffer(v: Vec<Self>) -> Buffer {
        Buffer::F64(Arc::new(v))
    }
    fn slice_of(b: &Buffer) -> Option<&[Self]> {
        match b {
            Buffer::F64(v) => Some(v),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int8_wraps_and_truncates() {
        for (x, want) in [(200.0, -56i8), (-2.7, -2), (127.0, 127), (128.0, -128), (f64::NAN, 0)] {
            assert_eq!(i8::from_f64(x), want, "{x}");
        }
    }

    #[test]
    fn bf16_rounds() {
        assert_eq!(bf16::from_f64(1.0).to_f64(), 1.0);
        assert_eq!(<bf16 as Element>::from_f32(0.1), bf16::from_bits(0x3DCD));
    }

    #[test]
    fn promotion() {
        assert_eq!(DType::I8.promote(DType::F32), DType::F32);
        assert_eq!(DType::BF16.promote(DType::I8), DType::BF16);
        assert!(DType::I8.computes_in_f64());
        assert!(!DType::BF16.computes_in_f64());
    }
}
