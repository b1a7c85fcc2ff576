//! The element types `einrow.einsum` computes in: one table row per numpy type (the Rust
//! type, numpy's type number, its name). Adding a type the kernel supports is one row.

use std::os::raw::c_int;

use einrow::kernel::Scalar;
use einrow::project::Storage;
use numpy::npyffi::NPY_TYPES;

/// Code run for one element type (the dispatch target of [`Dt::dispatch`]).
pub trait ForType {
    /// The result.
    type Out;
    /// Runs with `T` the element type.
    fn run<T: Scalar + Storage + numpy::Element>(self) -> Self::Out;
}

macro_rules! dtypes {
    ($($variant:ident => $t:ty, $npy:ident, $name:literal;)*) => {
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
                    $(Dt::$variant => NPY_TYPES::$npy,)*
                }
            }

            /// The size of an element in bytes.
            pub fn itemsize(self) -> usize {
                match self {
                    $(Dt::$variant => std::mem::size_of::<$t>(),)*
                }
            }

            /// The supported type of numpy's type number `num`.
            pub fn from_num(num: c_int) -> Option<Dt> {
                $(if num == NPY_TYPES::$npy as c_int {
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
    F32 => f32, NPY_FLOAT, "float32";
    F64 => f64, NPY_DOUBLE, "float64";
}

/// The supported names, for error messages (`float32, float64`).
pub fn supported() -> String {
    Dt::ALL.iter().map(|d| d.name()).collect::<Vec<_>>().join(", ")
}
