//! [`Scalar`]: the compute types (f32, f64) the kernel evaluates in.

use std::fmt::Debug;
use std::ops::{Add, Div, Mul, Sub};

use crate::tensor::Element;

/// A compute type: f32 or f64.
pub trait Scalar:
    Element
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Debug
{
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// +∞.
    const INFINITY: Self;
    /// −∞.
    const NEG_INFINITY: Self;
    /// Whether the value is NaN.
    fn is_nan(self) -> bool;
    /// The larger value; NaN if either is NaN (numpy's `maximum`).
    #[inline(always)]
    fn max_nan(self, other: Self) -> Self {
        if self.is_nan() || self >= other {
            self
        } else {
            other
        }
    }
    /// The smaller value; NaN if either is NaN (numpy's `minimum`).
    #[inline(always)]
    fn min_nan(self, other: Self) -> Self {
        if self.is_nan() || self <= other {
            self
        } else {
            other
        }
    }
}

impl Scalar for f32 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    const INFINITY: Self = f32::INFINITY;
    const NEG_INFINITY: Self = f32::NEG_INFINITY;
    #[inline(always)]
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
}

impl Scalar for f64 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    const INFINITY: Self = f64::INFINITY;
    const NEG_INFINITY: Self = f64::NEG_INFINITY;
    #[inline(always)]
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
}
