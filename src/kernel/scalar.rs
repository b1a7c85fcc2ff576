//! [`Scalar`]: the compute types the kernel evaluates in — f32 and f64; complex64 and
//! complex128 (numpy's arithmetic, and numpy's order for maxima and minima: real parts first);
//! int64 with wrapping arithmetic (the compute type of every integer storage type); bool,
//! with OR for `+` and AND for `*`. Every operation is total: integer arithmetic wraps and
//! division by zero gives 0, so no input makes the kernel panic.

use std::fmt::Debug;

use crate::tensor::{Complex128, Complex64, Element};

/// A compute type: f32, f64, complex64, complex128, i64 or bool.
pub trait Scalar: Element + PartialOrd + Debug {
    /// 0 (`false`).
    const ZERO: Self;
    /// 1 (`true`).
    const ONE: Self;
    /// The largest value: +∞, `i64::MAX`, `true`, +∞ + ∞i (the neutral element of a minimum).
    const INFINITY: Self;
    /// The smallest value: −∞, `i64::MIN`, `false`, −∞ − ∞i (the neutral element of a
    /// maximum).
    const NEG_INFINITY: Self;
    /// Whether products of this type may be handed to the `gemm` crate (the float and
    /// complex types; others run by direct loops).
    const GEMM_CRATE: bool = false;
    /// `a + b` (wrapping for i64; OR for bool).
    fn plus(self, other: Self) -> Self;
    /// `a - b` (wrapping for i64; exclusive or for bool, subtraction modulo 2).
    fn minus(self, other: Self) -> Self;
    /// `a · b` (wrapping for i64; AND for bool).
    fn times(self, other: Self) -> Self;
    /// `a / b` (i64: truncated, 0 when `b` is 0 as in numpy's integer division, wrapping for
    /// `i64::MIN / -1`; bool: `a` AND `b`, division modulo 2 with a quotient by 0 of 0).
    fn divide(self, other: Self) -> Self;
    /// Whether the value is NaN.
    fn is_nan(self) -> bool;
    /// A fill value given as f64 (padding, or an accumulation's neutral element): ±∞ are the
    /// type's extremes ([`Scalar::INFINITY`], [`Scalar::NEG_INFINITY`]), any other value is
    /// converted as [`Element::from_f64`] converts it.
    #[inline]
    fn from_fill(x: f64) -> Self {
        if x == f64::INFINITY {
            Self::INFINITY
        } else if x == f64::NEG_INFINITY {
            Self::NEG_INFINITY
        } else {
            Self::from_f64(x)
        }
    }
    /// The values as f32, where the type is f32 (for kernels written for f32 only); `None`
    /// for the other types.
    #[doc(hidden)]
    #[inline(always)]
    fn f32s(values: &[Self]) -> Option<&[f32]> {
        let _ = values;
        None
    }
    /// [`Scalar::f32s`] of a mutable slice.
    #[doc(hidden)]
    #[inline(always)]
    fn f32s_mut(values: &mut [Self]) -> Option<&mut [f32]> {
        let _ = values;
        None
    }
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

macro_rules! arith_scalar {
    ($($t:ty => $zero:expr, $one:expr, $inf:expr, $neg:expr $(=> { $($extra:tt)* })?);* $(;)?) => {$(
        impl Scalar for $t {
            const ZERO: Self = $zero;
            const ONE: Self = $one;
            const INFINITY: Self = $inf;
            const NEG_INFINITY: Self = $neg;
            const GEMM_CRATE: bool = true;
            #[inline(always)]
            fn plus(self, other: Self) -> Self {
                self + other
            }
            #[inline(always)]
            fn minus(self, other: Self) -> Self {
                self - other
            }
            #[inline(always)]
            fn times(self, other: Self) -> Self {
                self * other
            }
            #[inline(always)]
            fn divide(self, other: Self) -> Self {
                self / other
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            $($($extra)*)?
        }
    )*};
}

// Complex infinities are infinite in both parts.
arith_scalar!(
    f32 => 0.0, 1.0, f32::INFINITY, f32::NEG_INFINITY => {
        #[inline(always)]
        fn f32s(values: &[f32]) -> Option<&[f32]> {
            Some(values)
        }
        #[inline(always)]
        fn f32s_mut(values: &mut [f32]) -> Option<&mut [f32]> {
            Some(values)
        }
    };
    f64 => 0.0, 1.0, f64::INFINITY, f64::NEG_INFINITY;
    Complex64 => Complex64::new(0.0, 0.0), Complex64::new(1.0, 0.0),
        Complex64::new(f32::INFINITY, f32::INFINITY),
        Complex64::new(f32::NEG_INFINITY, f32::NEG_INFINITY);
    Complex128 => Complex128::new(0.0, 0.0), Complex128::new(1.0, 0.0),
        Complex128::new(f64::INFINITY, f64::INFINITY),
        Complex128::new(f64::NEG_INFINITY, f64::NEG_INFINITY);
);

impl Scalar for i64 {
    const ZERO: Self = 0;
    const ONE: Self = 1;
    const INFINITY: Self = i64::MAX;
    const NEG_INFINITY: Self = i64::MIN;
    #[inline(always)]
    fn plus(self, other: Self) -> Self {
        self.wrapping_add(other)
    }
    #[inline(always)]
    fn minus(self, other: Self) -> Self {
        self.wrapping_sub(other)
    }
    #[inline(always)]
    fn times(self, other: Self) -> Self {
        self.wrapping_mul(other)
    }
    #[inline(always)]
    fn divide(self, other: Self) -> Self {
        if other == 0 {
            0
        } else {
            self.wrapping_div(other)
        }
    }
    #[inline(always)]
    fn is_nan(self) -> bool {
        false
    }
}

impl Scalar for bool {
    const ZERO: Self = false;
    const ONE: Self = true;
    const INFINITY: Self = true;
    const NEG_INFINITY: Self = false;
    #[inline(always)]
    fn plus(self, other: Self) -> Self {
        self | other
    }
    #[inline(always)]
    fn minus(self, other: Self) -> Self {
        self ^ other
    }
    #[inline(always)]
    fn times(self, other: Self) -> Self {
        self & other
    }
    #[inline(always)]
    fn divide(self, other: Self) -> Self {
        self & other
    }
    #[inline(always)]
    fn is_nan(self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_operations_are_total() {
        assert_eq!(i64::MAX.plus(1), i64::MIN);
        assert_eq!(i64::MIN.minus(1), i64::MAX);
        assert_eq!((1i64 << 40).times(1 << 40), 0);
        assert_eq!(7i64.divide(0), 0);
        assert_eq!(i64::MIN.divide(-1), i64::MIN);
        assert_eq!((-7i64).divide(2), -3);
        assert_eq!(3i64.max_nan(i64::NEG_INFINITY), 3);
        assert_eq!(3i64.min_nan(i64::INFINITY), 3);
    }

    #[test]
    fn bools_are_or_and() {
        assert!(true.plus(true));
        assert!(!false.plus(false));
        assert!(!true.times(false));
        assert!(!true.minus(true));
        assert!(!true.divide(false));
        assert!(true.max_nan(false));
        assert!(!true.min_nan(false));
        assert!(!bool::NEG_INFINITY.max_nan(false));
        assert!(!bool::from_fill(f64::NEG_INFINITY));
        assert!(bool::from_fill(f64::INFINITY));
        assert!(bool::from_fill(2.0));
        assert_eq!(i64::from_fill(f64::NEG_INFINITY), i64::MIN);
        assert_eq!(f32::from_fill(f64::NEG_INFINITY), f32::NEG_INFINITY);
    }

    #[test]
    fn complex_maxima_are_numpys() {
        let (a, b) = (Complex64::new(1.0, 9.0), Complex64::new(2.0, -1.0));
        assert_eq!(a.max_nan(b), b);
        assert_eq!(a.min_nan(b), a);
        assert_eq!(Complex64::NEG_INFINITY.max_nan(a), a);
        assert_eq!(Complex64::INFINITY.min_nan(a), a);
        assert!(a.max_nan(Complex64::new(0.0, f32::NAN)).is_nan());
        assert!(Complex128::new(f64::NAN, 0.0).min_nan(Complex128::ONE).is_nan());
        assert_eq!(Complex128::from_fill(f64::NEG_INFINITY), Complex128::NEG_INFINITY);
        assert_eq!(Complex128::from_fill(2.0), Complex128::new(2.0, 0.0));
    }
}
