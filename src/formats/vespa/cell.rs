//! Cell types and the narrowing of values to them.

use std::fmt;

/// The value type of a tensor's cells.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[non_exhaustive]
pub enum CellType {
    /// 8-bit two's complement integers (stored after truncating toward zero, then wrapping).
    Int8,
    /// The top 16 bits of a float32 (truncation, not round-to-nearest).
    BFloat16,
    /// IEEE float32.
    Float,
    /// IEEE float64 (the default).
    Double,
}

impl CellType {
    /// Every cell type, smallest first.
    pub const ALL: [CellType; 4] =
        [CellType::Int8, CellType::BFloat16, CellType::Float, CellType::Double];

    /// The name used in type specs (`double`, `float`, `bfloat16`, `int8`).
    pub fn name(self) -> &'static str {
        match self {
            CellType::Double => "double",
            CellType::Float => "float",
            CellType::BFloat16 => "bfloat16",
            CellType::Int8 => "int8",
        }
    }

    /// Parses a cell type name exactly (no surrounding spaces).
    pub fn from_name(name: &str) -> Option<CellType> {
        CellType::ALL.iter().copied().find(|c| c.name() == name)
    }

    /// Hex digits per cell in the hex forms: int8 2, bfloat16 4, float 8, double 16.
    pub fn hex_digits(self) -> usize {
        match self {
            CellType::Int8 => 2,
            CellType::BFloat16 => 4,
            CellType::Float => 8,
            CellType::Double => 16,
        }
    }

    /// The larger of two cell types (Vespa's `largestOf`: double > float > bfloat16 > int8).
    pub fn largest_of(self, other: CellType) -> CellType {
        self.max(other)
    }

    /// Narrows a double to this cell type: float32 rounding for float; then the top 16 bits
    /// for bfloat16; truncation toward zero and wrapping mod 256 for int8 (NaN becomes 0).
    pub fn narrow(self, value: f64) -> f64 {
        match self {
            CellType::Double => value,
            _ => self.narrow_f32(value as f32),
        }
    }

    /// Narrows a float32 (as `Float.parseFloat` produces it) to this cell type.
    pub fn narrow_f32(self, value: f32) -> f64 {
        match self {
            CellType::Double | CellType::Float => f64::from(value),
            CellType::BFloat16 => f64::from(bfloat16_truncate(value)),
            // `as i32` saturates and maps NaN to 0, exactly like Java's `(int)`; `as i8` wraps
            // like Java's `(byte)`.
            CellType::Int8 => f64::from(value as i32 as i8),
        }
    }
}

/// Keeps the top 16 bits of a float32 (bfloat16 by truncation).
pub fn bfloat16_truncate(value: f32) -> f32 {
    f32::from_bits(value.to_bits() & 0xffff_0000)
}

impl fmt::Display for CellType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
