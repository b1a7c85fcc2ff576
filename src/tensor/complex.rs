//! [`Complex`]: complex storage elements, numpy's `complex64` ([`Complex64`], two f32) and
//! `complex128` ([`Complex128`], two f64), laid out as numpy, C and the `gemm` crate lay them
//! out (`re` then `im`), so numpy's arrays are read in place. Arithmetic is numpy's: products
//! and quotients as numpy's complex loops compute them, and numpy's order for maxima and
//! minima (the real parts first, then the imaginary ones; NaN in either part propagates).
//! Casts follow numpy: a real value is the real part, a complex value cast to a real type
//! loses its imaginary part.

use std::cmp::Ordering;
use std::sync::Arc;

use super::buffer::Buffer;
use super::dtype::DType;
use super::element::Element;

/// A complex number of two `T`s (`re`, then `im`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Complex<T> {
    /// The real part.
    pub re: T,
    /// The imaginary part.
    pub im: T,
}

/// numpy's `complex64`: two f32.
pub type Complex64 = Complex<f32>;
/// numpy's `complex128`: two f64.
pub type Complex128 = Complex<f64>;

impl<T> Complex<T> {
    /// `re + im·i`.
    pub const fn new(re: T, im: T) -> Complex<T> {
        Complex { re, im }
    }
}

macro_rules! complex_of {
    ($t:ident, $dtype:ident) => {
        impl std::ops::Add for Complex<$t> {
            type Output = Self;
            /// The sum.
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                Complex::new(self.re + o.re, self.im + o.im)
            }
        }

        impl std::ops::Sub for Complex<$t> {
            type Output = Self;
            /// The difference.
            #[inline(always)]
            fn sub(self, o: Self) -> Self {
                Complex::new(self.re - o.re, self.im - o.im)
            }
        }

        impl std::ops::Mul for Complex<$t> {
            type Output = Self;
            /// The product.
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                Complex::new(self.re * o.re - self.im * o.im, self.re * o.im + self.im * o.re)
            }
        }

        impl std::ops::Div for Complex<$t> {
            type Output = Self;
            /// The quotient, by Smith's method as numpy's loops compute it (no overflow for
            /// large divisors; a zero divisor gives infinities or NaN, part by part).
            #[inline]
            fn div(self, o: Self) -> Self {
                let (a, b, c, d) = (self.re, self.im, o.re, o.im);
                let (c_abs, d_abs) = (c.abs(), d.abs());
                if c_abs >= d_abs {
                    if c_abs == 0.0 && d_abs == 0.0 {
                        return Complex::new(a / c_abs, b / c_abs);
                    }
                    let rat = d / c;
                    let scl = 1.0 / (c + d * rat);
                    Complex::new((a + b * rat) * scl, (b - a * rat) * scl)
                } else {
                    let rat = c / d;
                    let scl = 1.0 / (d + c * rat);
                    Complex::new((a * rat + b) * scl, (b * rat - a) * scl)
                }
            }
        }

        impl Complex<$t> {
            /// Whether either part is NaN.
            #[inline(always)]
            pub fn is_nan(self) -> bool {
                self.re.is_nan() || self.im.is_nan()
            }
        }

        impl PartialOrd for Complex<$t> {
            /// numpy's order: the real parts, then the imaginary ones; unordered with NaN.
            #[inline]
            fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
                if self.is_nan() || o.is_nan() {
                    return None;
                }
                match self.re.partial_cmp(&o.re)? {
                    Ordering::Equal => self.im.partial_cmp(&o.im),
                    unequal => Some(unequal),
                }
            }
        }

        impl Element for Complex<$t> {
            const DTYPE: DType = DType::$dtype;
            fn to_f64(self) -> f64 {
                self.re as f64
            }
            fn from_f64(x: f64) -> Self {
                Complex::new(x as $t, 0.0)
            }
            fn to_f32(self) -> f32 {
                self.re as f32
            }
            fn from_f32(x: f32) -> Self {
                Complex::new(x as $t, 0.0)
            }
            fn to_i64(self) -> i64 {
                self.re as i64
            }
            fn from_i64(x: i64) -> Self {
                Complex::new(x as $t, 0.0)
            }
            fn to_complex(self) -> (f64, f64) {
                (self.re as f64, self.im as f64)
            }
            fn from_complex(re: f64, im: f64) -> Self {
                Complex::new(re as $t, im as $t)
            }
            fn into_buffer(v: Vec<Self>) -> Buffer {
                Buffer::$dtype(Arc::new(v))
            }
            fn slice_of(b: &Buffer) -> Option<&[Self]> {
                match b {
                    Buffer::$dtype(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}

complex_of!(f32, C64);
complex_of!(f64, C128);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_is_numpys() {
        let (a, b) = (Complex128::new(1.0, 2.0), Complex128::new(3.0, -4.0));
        assert_eq!(a * b, Complex128::new(11.0, 2.0));
        assert_eq!(a + b, Complex128::new(4.0, -2.0));
        assert_eq!(a - b, Complex128::new(-2.0, 6.0));
        let q = a / b;
        assert!((q.re - (-0.2)).abs() < 1e-15 && (q.im - 0.4).abs() < 1e-15, "{q:?}");
        // Smith's method: no overflow where the naive formula's c² + d² would.
        let big = Complex128::new(1e300, 1e300) / Complex128::new(1e300, 1e300);
        assert_eq!(big, Complex128::new(1.0, 0.0));
        assert!((Complex128::new(1.0, 0.0) / Complex128::default()).re.is_infinite());
    }

    #[test]
    fn order_is_lexicographic_and_nan_is_unordered() {
        let (a, b) = (Complex64::new(1.0, 5.0), Complex64::new(1.0, 7.0));
        assert!(a < b && Complex64::new(2.0, -9.0) > b);
        assert_eq!(Complex64::new(f32::NAN, 0.0).partial_cmp(&a), None);
        assert_eq!(a.partial_cmp(&Complex64::new(0.0, f32::NAN)), None);
    }

    #[test]
    fn casts_keep_or_drop_the_imaginary_part_as_numpy() {
        let z = Complex128::new(2.7, -1.5);
        assert_eq!(z.cast::<f32>(), 2.7f32);
        assert_eq!(z.cast::<i8>(), 2);
        assert_eq!(z.cast::<Complex64>(), Complex64::new(2.7, -1.5));
        assert_eq!(3i16.cast::<Complex64>(), Complex64::new(3.0, 0.0));
        assert!(Complex64::new(0.0, 1.0).cast::<bool>(), "non-zero is true");
        assert!(!Complex64::default().cast::<bool>());
        assert_eq!(1.5f64.cast::<Complex128>(), Complex128::new(1.5, 0.0));
    }
}
