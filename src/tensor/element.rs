//! [`Element`]: a storage element — its [`DType`], its conversions to and from the compute
//! types, and how it wraps into a [`Buffer`]. Conversions follow numpy's casts: integers
//! wrap into narrower integers, floats truncate toward zero into integers, anything non-zero
//! is `true`.

use std::sync::Arc;

use half::{bf16, f16};

use super::buffer::Buffer;
use super::dtype::DType;

/// A storage element: convertible to and from the compute types, and wrappable in a
/// [`Buffer`].
pub trait Element: Copy + Send + Sync + Default + PartialEq + std::fmt::Debug + 'static {
    /// The matching [`DType`].
    const DTYPE: DType;
    /// The value as f64 (exact but for int64 values beyond 2^53, rounded to nearest; of a
    /// complex value, the real part, as numpy's cast).
    fn to_f64(self) -> f64;
    /// The nearest storable value (integers: truncated toward zero, saturated to the int64
    /// range, then wrapped; NaN → 0; bool: non-zero, NaN included, is `true`).
    fn from_f64(x: f64) -> Self;
    /// The value as f32 (rounded to nearest).
    fn to_f32(self) -> f32;
    /// The nearest storable value of an f32 (as [`Element::from_f64`]).
    fn from_f32(x: f32) -> Self;
    /// The value as int64: integers and bool exactly; floats truncated toward zero and
    /// saturated (NaN → 0).
    fn to_i64(self) -> i64;
    /// The value of an int64: integers keep its low bits (wrapping, numpy's cast); floats
    /// the nearest value (rounded once); bool whether it is non-zero.
    fn from_i64(x: i64) -> Self;
    /// The value as a complex number (real and imaginary parts as f64): the real types'
    /// imaginary part is 0.
    #[inline]
    fn to_complex(self) -> (f64, f64) {
        (self.to_f64(), 0.0)
    }
    /// The nearest storable value of a complex number: a real type keeps the real part (as
    /// numpy's cast, which warns), bool is whether either part is non-zero.
    #[inline]
    fn from_complex(re: f64, im: f64) -> Self {
        let _ = im;
        Self::from_f64(re)
    }
    /// Wraps a vector in a [`Buffer`].
    fn into_buffer(v: Vec<Self>) -> Buffer;
    /// The elements of `b` when it holds this type.
    fn slice_of(b: &Buffer) -> Option<&[Self]>;

    /// numpy's cast of this value to `D`: exact between integer types (wrapping into
    /// narrower ones), rounded once into floats, truncated toward zero from floats into
    /// integers; complex values keep both parts into a complex type and their real part
    /// into a real one (into bool: whether either part is non-zero).
    ///
    /// ```
    /// use einrow::tensor::Element;
    /// assert_eq!(300i32.cast::<u8>(), 44);
    /// assert_eq!((-2.7f32).cast::<i16>(), -2);
    /// assert_eq!(i64::MAX.cast::<i64>(), i64::MAX);
    /// assert!(0.5f64.cast::<bool>());
    /// ```
    #[inline]
    fn cast<D: Element>(self) -> D {
        if Self::DTYPE.is_complex() || D::DTYPE.is_complex() {
            let (re, im) = self.to_complex();
            D::from_complex(re, im)
        } else if Self::DTYPE.is_float() {
            D::from_f64(self.to_f64())
        } else {
            D::from_i64(self.to_i64())
        }
    }
}

/// `x` as f32 rounded to odd (truncated toward zero, the last bit set when inexact; beyond
/// the f32 range the largest f32, which is odd): rounding this once more to a 16-bit float
/// gives the correctly rounded value of `x`. (`half`'s own f64 conversions drop the low 32
/// bits of the f64 first, so a value just above a midpoint can round down.)
fn to_f32_odd(x: f64) -> f32 {
    let f = x as f32;
    if x.is_nan() || f as f64 == x {
        return f;
    }
    // Inexact: step to the value truncated toward zero (from ±∞ to ±MAX), mark it inexact.
    let t = if (f as f64).abs() > x.abs() { f32::from_bits(f.to_bits() - 1) } else { f };
    f32::from_bits(t.to_bits() | 1)
}

/// `x` as f64 rounded to odd (truncated toward zero, the last bit set when inexact): rounding
/// this once more to a narrower float gives the correctly rounded value of `x`.
fn to_f64_odd(x: i64) -> f64 {
    let f = x as f64;
    // `f` is integral and |f| ≤ 2^63: it converts back exactly.
    let back = f as i128;
    if back == i128::from(x) {
        return f;
    }
    // Inexact (|x| > 2^53, so f ≠ 0): step to the truncated value, then mark it inexact.
    let t = if back.abs() > i128::from(x).abs() { f64::from_bits(f.to_bits() - 1) } else { f };
    f64::from_bits(t.to_bits() | 1)
}

macro_rules! buffer_access {
    ($v:ident) => {
        fn into_buffer(v: Vec<Self>) -> Buffer {
            Buffer::$v(Arc::new(v))
        }
        fn slice_of(b: &Buffer) -> Option<&[Self]> {
            match b {
                Buffer::$v(v) => Some(v),
                _ => None,
            }
        }
    };
}

/// numpy's float-to-integer cast: truncated toward zero and saturated (NaN → 0) by the
/// first `as`, then wrapped by the second.
macro_rules! wrap_float {
    ($t:ty, $x:expr) => {
        ($x as i64) as $t
    };
}

/// A float-to-float conversion, rounded to nearest.
macro_rules! round_float {
    ($t:ty, $x:expr) => {
        $x as $t
    };
}

/// Element impls for primitive numbers, converting floats in with `$from`.
macro_rules! primitive_element {
    ($from:ident: $($t:ty => $v:ident),*) => {$(
        impl Element for $t {
            const DTYPE: DType = DType::$v;
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn from_f64(x: f64) -> Self {
                $from!($t, x)
            }
            #[inline]
            fn to_f32(self) -> f32 {
                self as f32
            }
            #[inline]
            fn from_f32(x: f32) -> Self {
                $from!($t, x)
            }
            #[inline]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline]
            fn from_i64(x: i64) -> Self {
                // Integers keep the low bits; floats round once, to nearest.
                x as $t
            }
            buffer_access!($v);
        }
    )*};
}

primitive_element!(wrap_float: i8 => I8, u8 => U8, i16 => I16, i32 => I32, i64 => I64);
primitive_element!(round_float: f32 => F32, f64 => F64);

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    #[inline]
    fn to_f64(self) -> f64 {
        f64::from(u8::from(self))
    }
    #[inline]
    fn from_f64(x: f64) -> Self {
        x != 0.0
    }
    #[inline]
    fn to_f32(self) -> f32 {
        f32::from(u8::from(self))
    }
    #[inline]
    fn from_f32(x: f32) -> Self {
        x != 0.0
    }
    #[inline]
    fn to_i64(self) -> i64 {
        i64::from(self)
    }
    #[inline]
    fn from_i64(x: i64) -> Self {
        x != 0
    }
    #[inline]
    fn from_complex(re: f64, im: f64) -> Self {
        re != 0.0 || im != 0.0
    }
    buffer_access!(Bool);
}

macro_rules! half_element {
    ($($t:ty => $v:ident),*) => {$(
        impl Element for $t {
            const DTYPE: DType = DType::$v;
            #[inline]
            fn to_f64(self) -> f64 {
                <$t>::to_f64(self)
            }
            #[inline]
            fn from_f64(x: f64) -> Self {
                <$t>::from_f32(to_f32_odd(x))
            }
            #[inline]
            fn to_f32(self) -> f32 {
                <$t>::to_f32(self)
            }
            #[inline]
            fn from_f32(x: f32) -> Self {
                <$t>::from_f32(x)
            }
            #[inline]
            fn to_i64(self) -> i64 {
                <$t>::to_f32(self) as i64
            }
            #[inline]
            fn from_i64(x: i64) -> Self {
                <$t>::from_f32(to_f32_odd(to_f64_odd(x)))
            }
            buffer_access!($v);
        }
    )*};
}

half_element!(f16 => F16, bf16 => BF16);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_wrap_and_truncate() {
        for (x, want) in [(200.0, -56i8), (-2.7, -2), (127.0, 127), (128.0, -128), (f64::NAN, 0)] {
            assert_eq!(i8::from_f64(x), want, "{x}");
        }
        assert_eq!(u8::from_f64(-1.0), 255);
        assert_eq!(u8::from_i64(400), 144);
        assert_eq!(i16::from_i64(40_000), -25_536);
        assert_eq!(i32::from_i64(1 << 31), i32::MIN);
        assert_eq!(i64::from_f64(1e300), i64::MAX);
        assert_eq!((-1i8).cast::<u8>(), 255);
        assert_eq!(255u8.cast::<i8>(), -1);
        assert_eq!(i64::MIN.cast::<i32>(), 0);
    }

    #[test]
    fn halves_round() {
        assert_eq!(bf16::from_f64(1.0).to_f64(), 1.0);
        assert_eq!(<bf16 as Element>::from_f32(0.1), bf16::from_bits(0x3DCD));
        assert_eq!(<f16 as Element>::from_f64(2049.0).to_f64(), 2048.0);
        assert_eq!(<f16 as Element>::from_i64(70_000), f16::INFINITY);
        assert_eq!(<f16 as Element>::from_f64(-1.5).to_i64(), -1);
    }

    #[test]
    fn large_integers_round_once() {
        // 2^60 + 2^52 + 1 is just above the midpoint between two bf16 neighbours; going
        // through the nearest f64 (2^60 + 2^52, the midpoint) would round down to 2^60.
        let x = (1i64 << 60) + (1 << 52) + 1;
        assert_eq!(<bf16 as Element>::from_i64(x).to_f64(), (1u64 << 60) as f64 + 2f64.powi(53));
        assert_eq!(
            <bf16 as Element>::from_i64(-x).to_f64(),
            -((1u64 << 60) as f64 + 2f64.powi(53))
        );
        assert_eq!(<bf16 as Element>::from_i64(1 << 60).to_f64(), (1u64 << 60) as f64);
        assert_eq!(<f32 as Element>::from_i64(x), ((1u64 << 60) + (1 << 52)) as f32);
        assert_eq!(i64::MAX.cast::<f64>(), 2f64.powi(63));
    }

    #[test]
    fn doubles_round_once_into_halves() {
        // 1 + 2^-11 + 2^-40 is just above the midpoint between 1 and the next float16.
        let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(<f16 as Element>::from_f64(x).to_f64(), 1.0 + 2f64.powi(-10));
        assert_eq!(<f16 as Element>::from_f64(1.0 + 2f64.powi(-11)).to_f64(), 1.0);
        let y = 1.0 + 2f64.powi(-8) + 2f64.powi(-40);
        assert_eq!(<bf16 as Element>::from_f64(y).to_f64(), 1.0 + 2f64.powi(-7));
        assert_eq!(<bf16 as Element>::from_f64(-y).to_f64(), -(1.0 + 2f64.powi(-7)));
        assert_eq!(<bf16 as Element>::from_f64(1e300), bf16::INFINITY);
        assert_eq!(<bf16 as Element>::from_f64(-1e300), bf16::NEG_INFINITY);
        assert_eq!(<f16 as Element>::from_f64(65519.0).to_f64(), 65504.0);
        assert_eq!(<f16 as Element>::from_f64(65520.0), f16::INFINITY);
        assert!(<f16 as Element>::from_f64(f64::NAN).is_nan());
        assert_eq!(<bf16 as Element>::from_f64(1e-300).to_f64(), 0.0);
    }

    #[test]
    fn bools() {
        assert!(bool::from_f64(f64::NAN));
        assert!(!bool::from_f64(-0.0));
        assert!(bool::from_i64(-5));
        assert_eq!(true.cast::<i32>(), 1);
        assert_eq!(true.cast::<f16>(), f16::ONE);
        assert!(256i32.cast::<bool>(), "bool is non-zero, not the low bit");
    }
}
