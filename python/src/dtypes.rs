//! The element types the kernel computes in, as numpy arrays hold them: one table row per type
//! (the Rust type, numpy's kind character, its name). Adding a type the kernel computes in is
//! one row.

use std::os::raw::c_long;

use einrow::kernel::Scalar;
use einrow::project::Storage;
use numpy::npyffi::NPY_TYPES;
use numpy::{PyArrayDescr, PyArrayDescrMethods};
use pyo3::prelude::*;

/// Code run for one element type (the dispatch target of [`Dt::dispatch`]).
pub trait ForType {
    /// The result.
    type Out;
    /// Runs with `T` the element type.
    fn run<T: Scalar + Storage + numpy::Element>(self) -> Self::Out;
}

macro_rules! dtypes {
    ($($variant:ident => $t:ty, $kind:literal, $name:literal;)*) => {
        /// A supported element type, narrowest first.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Dt {
            $($variant,)*
        }

        impl Dt {
            /// Every supported type.
            pub const ALL: &'static [Dt] = &[$(Dt::$variant),*];

            /// numpy's name of the type.
            pub fn name(self) -> &'static str {
                match self {
                    $(Dt::$variant => $name,)*
                }
            }

            /// numpy's type number.
            pub fn npy(self) -> NPY_TYPES {
                match self {
                    Dt::F32 => NPY_TYPES::NPY_FLOAT,
                    Dt::F64 => NPY_TYPES::NPY_DOUBLE,
                    Dt::Bool => NPY_TYPES::NPY_BOOL,
                    // numpy's int64 is C's `long` where that has 64 bits, else `long long`.
                    Dt::I64 if std::mem::size_of::<c_long>() == 8 => NPY_TYPES::NPY_LONG,
                    Dt::I64 => NPY_TYPES::NPY_LONGLONG,
                }
            }

            /// The size of an element in bytes.
            pub fn itemsize(self) -> usize {
                match self {
                    $(Dt::$variant => std::mem::size_of::<$t>(),)*
                }
            }

            /// The supported type of numpy's kind character and item size (`b'f'`, 8: float64).
            pub fn from_kind(kind: u8, itemsize: usize) -> Option<Dt> {
                $(if kind == $kind && itemsize == std::mem::size_of::<$t>() {
                    return Some(Dt::$variant);
                })*
                None
            }

            /// Runs `f` with this type.
            pub fn dispatch<F: ForType>(self, f: F) -> F::Out {
                match self {
                    $(Dt::$variant => f.run::<$t>(),)*
                }
            }
        }
    };
}

dtypes! {
    F32 => f32, b'f', "float32";
    F64 => f64, b'f', "float64";
    I64 => i64, b'i', "int64";
    Bool => bool, b'b', "bool";
}

/// The supported type of a numpy type descriptor, whatever its byte order.
pub fn of_descr(descr: &Bound<'_, PyArrayDescr>) -> Option<Dt> {
    Dt::from_kind(descr.kind(), descr.itemsize())
}

/// The supported names, for error messages (`float32, float64, int64, bool`).
pub fn supported() -> String {
    Dt::ALL.iter().map(|d| d.name()).collect::<Vec<_>>().join(", ")
}
