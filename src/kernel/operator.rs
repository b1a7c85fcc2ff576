//! The two operators of an indexing plan and of the nest it lowers to: how the inputs are
//! combined at one point ([`Combine`]) and how that value is accumulated into the output
//! ([`Accum`]). Plans name them, so they are built without the `kernel` feature too; applying
//! them to values is the kernel's (`ops`).

/// How the combined value is folded into the output element.
///
/// `Serialize` and `Deserialize` with the `serde` feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Accum {
    /// `out = v` (the output map should be injective; otherwise which write survives is
    /// unspecified).
    Store,
    /// `out = out + v`.
    Add,
    /// `out = out * v`.
    Mul,
    /// `out = max(out, v)` (NaN propagates).
    Max,
    /// `out = min(out, v)` (NaN propagates).
    Min,
}

impl Accum {
    /// The neutral element outputs are initialised with (`None` for `Store`), as f64 (the kernel's
    /// `neutral_value` gives it in a compute type).
    pub fn neutral(self) -> Option<f64> {
        match self {
            Accum::Store => None,
            Accum::Add => Some(0.0),
            Accum::Mul => Some(1.0),
            Accum::Max => Some(f64::NEG_INFINITY),
            Accum::Min => Some(f64::INFINITY),
        }
    }
}

/// How the input values at one point are combined (folded left to right).
///
/// `Serialize` and `Deserialize` with the `serde` feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Combine {
    /// The first input's value (identity for a unary nest).
    First,
    /// Product.
    Mul,
    /// Sum.
    Add,
    /// Difference (`a - b - c ...`).
    Sub,
    /// Quotient (`a / b / c ...`).
    Div,
    /// Maximum (NaN propagates).
    Max,
    /// Minimum (NaN propagates).
    Min,
}
