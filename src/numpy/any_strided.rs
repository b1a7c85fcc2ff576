//! [`AnyStridedRef`] and [`AnyStridedMut`]: einsum operands and outputs whose element type is
//! known only at run time (a numpy array's dtype), read and written piece by piece in a
//! compute type.

use half::{bf16, f16};

use super::views::{StridedMut, StridedRef};
use crate::kernel::Scalar;
use crate::tensor::{Complex128, Complex64, DType, Element, Layout};

/// The enums, their accessors and conversions, from one list of (type, variant).
macro_rules! any_strided {
    ($($t:ty => $v:ident),* $(,)?) => {
        /// An einsum operand of one of einrow's storage types, borrowed from a caller.
        #[derive(Clone, Debug)]
        #[non_exhaustive]
        pub enum AnyStridedRef<'a> {
            $(#[doc = concat!("`", stringify!($t), "` elements.")] $v(StridedRef<'a, $t>),)*
        }

        /// An einsum output of one of einrow's storage types, borrowed from a caller.
        #[derive(Debug)]
        #[non_exhaustive]
        pub enum AnyStridedMut<'a> {
            $(#[doc = concat!("`", stringify!($t), "` elements.")] $v(StridedMut<'a, $t>),)*
        }

        impl<'a> AnyStridedRef<'a> {
            /// A tensor's elements seen through its layout.
            pub fn of_tensor(t: &'a crate::tensor::Tensor) -> Result<Self, super::EinsumError> {
                $(if let Some((data, layout)) = t.typed::<$t>() {
                    return Ok(AnyStridedRef::$v(StridedRef::new(data, layout.clone())?));
                })*
                let got = t.dtype().name();
                Err(crate::tensor::TensorError::DType { expected: "a storage type", got }.into())
            }

            /// The element type.
            pub fn dtype(&self) -> DType {
                match self {
                    $(AnyStridedRef::$v(_) => DType::$v,)*
                }
            }

            /// The layout.
            pub fn layout(&self) -> &Layout {
                match self {
                    $(AnyStridedRef::$v(r) => &r.layout,)*
                }
            }

            /// Appends the elements of `sub` (a layout over the same data), in its row-major
            /// order, converted to `T` as numpy casts; its axes of stride 0 are read once
            /// ([`compact`]).
            pub(super) fn read_into<T: Scalar>(&self, sub: &Layout, dst: &mut Vec<T>) {
                match self {
                    $(AnyStridedRef::$v(r) => {
                        for_each_compact(sub, |a| dst.push(r.data[a].cast::<T>()))
                    })*
                }
            }
        }

        impl AnyStridedMut<'_> {
            /// The element type.
            pub fn dtype(&self) -> DType {
                match self {
                    $(AnyStridedMut::$v(_) => DType::$v,)*
                }
            }

            /// The layout.
            pub fn layout(&self) -> &Layout {
                match self {
                    $(AnyStridedMut::$v(r) => &r.layout,)*
                }
            }

            /// Writes `src` (row-major over `sub`, a layout over the same data) converted as
            /// numpy casts.
            pub(super) fn write_from<T: Scalar>(&mut self, sub: &Layout, src: &[T]) {
                match self {
                    $(AnyStridedMut::$v(r) => {
                        let data = &mut *r.data;
                        let mut values = src.iter();
                        for_each_address(sub, |a| {
                            if let Some(v) = values.next() {
                                data[a] = v.cast::<$t>();
                            }
                        })
                    })*
                }
            }
        }

        $(
            impl Stored for $t {
                fn wrap_ref(r: StridedRef<'_, $t>) -> AnyStridedRef<'_> {
                    AnyStridedRef::$v(r)
                }
                fn wrap_mut(r: StridedMut<'_, $t>) -> AnyStridedMut<'_> {
                    AnyStridedMut::$v(r)
                }
            }

            impl<'a> From<StridedRef<'a, $t>> for AnyStridedRef<'a> {
                fn from(r: StridedRef<'a, $t>) -> Self {
                    AnyStridedRef::$v(r)
                }
            }

            impl<'a> From<StridedMut<'a, $t>> for AnyStridedMut<'a> {
                fn from(r: StridedMut<'a, $t>) -> Self {
                    AnyStridedMut::$v(r)
                }
            }
        )*
    };
}

any_strided! {
    f64 => F64,
    f32 => F32,
    i64 => I64,
    i32 => I32,
    i16 => I16,
    i8 => I8,
    u8 => U8,
    bool => Bool,
    f16 => F16,
    bf16 => BF16,
    Complex64 => C64,
    Complex128 => C128,
}

/// einrow's storage types, each the element type of one variant of [`AnyStridedRef`] and
/// [`AnyStridedMut`] (for code generic over the element type).
pub trait Stored: Element {
    /// The view as an [`AnyStridedRef`].
    fn wrap_ref(r: StridedRef<'_, Self>) -> AnyStridedRef<'_>;
    /// The view as an [`AnyStridedMut`].
    fn wrap_mut(r: StridedMut<'_, Self>) -> AnyStridedMut<'_>;
}

/// The compute types: an operand already of the type is read where it is.
pub(super) trait Pick: Scalar {
    /// The operand as a strided view of `Self`, when it is one.
    fn pick<'s, 'a>(x: &'s AnyStridedRef<'a>) -> Option<&'s StridedRef<'a, Self>>;
}

macro_rules! pick {
    ($($t:ty => $v:ident),*) => {$(
        impl Pick for $t {
            fn pick<'s, 'a>(x: &'s AnyStridedRef<'a>) -> Option<&'s StridedRef<'a, $t>> {
                match x {
                    AnyStridedRef::$v(r) => Some(r),
                    _ => None,
                }
            }
        }
    )*};
}

pick!(f64 => F64, f32 => F32, i64 => I64, bool => Bool, Complex64 => C64, Complex128 => C128);

/// The layout of `sub`'s elements once [`read_into`](AnyStridedRef::read_into) has copied
/// them: row-major over the axes that move, stride 0 along the axes of stride 0 (a broadcast
/// copies one element, not its extent).
pub(super) fn compact(sub: &Layout) -> Layout {
    let mut strides = vec![0isize; sub.rank()];
    let mut n: isize = 1;
    for (a, s) in strides.iter_mut().enumerate().rev() {
        let (size, stride) = (sub.shape()[a], sub.strides()[a]);
        if size > 1 && stride != 0 {
            *s = n;
            n = n.saturating_mul(size as isize);
        }
    }
    // Sizes and strides from a valid layout, the strides within its element count.
    Layout::from_parts(sub.shape(), &strides, 0).unwrap_or_else(|_| sub.clone())
}

/// The number of elements [`read_into`](AnyStridedRef::read_into) copies of `sub`.
pub(super) fn compact_len(sub: &Layout) -> usize {
    if sub.shape().contains(&0) {
        return 0;
    }
    let moving = sub.shape().iter().zip(sub.strides()).filter(|(&d, &s)| d > 1 && s != 0);
    moving.map(|(&d, _)| d).product()
}

/// Calls `f` with the address of each element of `sub` its axes of stride 0 reach once, in
/// row-major order.
fn for_each_compact(sub: &Layout, f: impl FnMut(usize)) {
    let mut shape: Vec<usize> = sub.shape().to_vec();
    for (d, &s) in shape.iter_mut().zip(sub.strides()) {
        if s == 0 && *d > 0 {
            *d = 1;
        }
    }
    if let Ok(l) = Layout::from_parts(&shape, sub.strides(), sub.offset()) {
        for_each_address(&l, f);
    }
}

/// Calls `f` with the address of every element of `l`, in row-major order (the address of
/// each run along the last axis computed once).
fn for_each_address(l: &Layout, mut f: impl FnMut(usize)) {
    let (shape, strides, offset) = (l.shape(), l.strides(), l.offset() as isize);
    let Some((&n, outer)) = shape.split_last() else {
        f(offset as usize);
        return;
    };
    let s = strides[shape.len() - 1];
    let _ = crate::tensor::for_each_position::<()>(outer, |p| {
        let base = p.iter().zip(strides).fold(offset, |a, (&i, &st)| a + i as isize * st);
        for i in 0..n {
            f((base + i as isize * s) as usize);
        }
        Ok(())
    });
}
