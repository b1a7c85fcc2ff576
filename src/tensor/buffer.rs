//! [`Buffer`]: a shared, immutable flat buffer of one storage type.

use std::sync::Arc;

use half::{bf16, f16};

use super::complex::{Complex128, Complex64};
use super::dtype::DType;
use super::element::Element;

/// A shared, immutable flat buffer of one storage type.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Buffer {
    /// bool elements.
    Bool(Arc<Vec<bool>>),
    /// int8 elements.
    I8(Arc<Vec<i8>>),
    /// uint8 elements.
    U8(Arc<Vec<u8>>),
    /// int16 elements.
    I16(Arc<Vec<i16>>),
    /// int32 elements.
    I32(Arc<Vec<i32>>),
    /// int64 elements.
    I64(Arc<Vec<i64>>),
    /// float16 elements.
    F16(Arc<Vec<f16>>),
    /// bfloat16 elements.
    BF16(Arc<Vec<bf16>>),
    /// f32 elements.
    F32(Arc<Vec<f32>>),
    /// f64 elements.
    F64(Arc<Vec<f64>>),
    /// complex64 elements.
    C64(Arc<Vec<Complex64>>),
    /// complex128 elements.
    C128(Arc<Vec<Complex128>>),
}

/// Evaluates `$body` with `$v` bound to the `Arc<Vec<_>>` inside the buffer `$buf`.
macro_rules! with_buffer {
    ($buf:expr, $v:ident => $body:expr) => {
        match $buf {
            $crate::tensor::Buffer::Bool($v) => $body,
            $crate::tensor::Buffer::I8($v) => $body,
            $crate::tensor::Buffer::U8($v) => $body,
            $crate::tensor::Buffer::I16($v) => $body,
            $crate::tensor::Buffer::I32($v) => $body,
            $crate::tensor::Buffer::I64($v) => $body,
            $crate::tensor::Buffer::F16($v) => $body,
            $crate::tensor::Buffer::BF16($v) => $body,
            $crate::tensor::Buffer::F32($v) => $body,
            $crate::tensor::Buffer::F64($v) => $body,
            $crate::tensor::Buffer::C64($v) => $body,
            $crate::tensor::Buffer::C128($v) => $body,
        }
    };
}

/// Evaluates `$body` with the type `$T` bound to the storage type of the [`DType`] `$dtype`.
macro_rules! with_dtype {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            $crate::tensor::DType::Bool => {
                type $T = bool;
                $body
            }
            $crate::tensor::DType::I8 => {
                type $T = i8;
                $body
            }
            $crate::tensor::DType::U8 => {
                type $T = u8;
                $body
            }
            $crate::tensor::DType::I16 => {
                type $T = i16;
                $body
            }
            $crate::tensor::DType::I32 => {
                type $T = i32;
                $body
            }
            $crate::tensor::DType::I64 => {
                type $T = i64;
                $body
            }
            $crate::tensor::DType::F16 => {
                type $T = half::f16;
                $body
            }
            $crate::tensor::DType::BF16 => {
                type $T = half::bf16;
                $body
            }
            $crate::tensor::DType::F32 => {
                type $T = f32;
                $body
            }
            $crate::tensor::DType::F64 => {
                type $T = f64;
                $body
            }
            $crate::tensor::DType::C64 => {
                type $T = $crate::tensor::Complex64;
                $body
            }
            $crate::tensor::DType::C128 => {
                type $T = $crate::tensor::Complex128;
                $body
            }
        }
    };
}

pub(crate) use {with_buffer, with_dtype};

impl Buffer {
    /// The element type.
    pub fn dtype(&self) -> DType {
        fn of<T: Element>(_: &[T]) -> DType {
            T::DTYPE
        }
        with_buffer!(self, v => of(v))
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        with_buffer!(self, v => v.len())
    }

    /// Whether the buffer holds no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` as f64 (`None` out of range; int64 values beyond 2^53 rounded).
    pub fn get_f64(&self, i: usize) -> Option<f64> {
        with_buffer!(self, v => v.get(i).map(|&x| x.to_f64()))
    }

    /// Element `i` converted to `T` as numpy casts it (`None` out of range): exact between
    /// integer types, wrapping into narrower ones.
    pub fn get<T: Element>(&self, i: usize) -> Option<T> {
        with_buffer!(self, v => v.get(i).map(|&x| x.cast::<T>()))
    }
}
