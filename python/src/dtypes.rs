//! The element types einrow runs in, as numpy arrays hold them: one table row per type (the
//! Rust type it is stored as, numpy's kind character). What a type is otherwise (its name,
//! size, the type it is computed in) is the crate's [`DType`]'s to say. Compiled plans run on
//! every one of them (the crate's storage types: narrower types are computed in int64 or
//! float32 and written back); einsum computes in the compute types (float32, float64,
//! complex64, complex128, int64, bool). Adding a type is one row.

use std::os::raw::c_long;

use einrow::kernel::Scalar;
use einrow::project::Storage;
use einrow::tensor::DType;
use numpy::npyffi::NPY_TYPES;
use numpy::{PyArrayDescr, PyArrayDescrMethods};
use pyo3::prelude::*;
use pyo3::types::PyTypeMethods;

/// Code run for one storage type (the dispatch target of [`Dt::dispatch`]).
pub trait ForType {
    /// The result.
    type Out;
    /// Runs with `T` the element type.
    fn run<T: Storage>(self) -> Self::Out;
}

/// Code run for one compute type (the dispatch target of [`Dt::dispatch_compute`]).
pub trait ForCompute {
    /// The result.
    type Out;
    /// Runs with `T` the compute type.
    fn run<T: Scalar + Storage>(self) -> Self::Out;
}

macro_rules! dtypes {
    ($($variant:ident => $t:ty, $kind:literal;)*) => {
        /// An element type einrow runs in: one of the crate's [`DType`]s, named alike.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Dt {
            $($variant,)*
        }

        // The Rust type of each row is the one the crate stores the type as.
        const _: () = {
            $(assert!(std::mem::size_of::<$t>() == DType::$variant.size_bytes());)*
        };

        impl Dt {
            /// Every supported type.
            pub const ALL: &'static [Dt] = &[$(Dt::$variant),*];

            /// The crate's type.
            pub fn dtype(self) -> DType {
                match self {
                    $(Dt::$variant => DType::$variant,)*
                }
            }

            /// The row of one of the crate's types.
            fn of(dtype: DType) -> Option<Dt> {
                Dt::ALL.iter().copied().find(|d| d.dtype() == dtype)
            }

            /// The type of numpy's kind character and item size (`b'f'`, 8: float64); the
            /// types numpy does not define itself (bfloat16) are found by name.
            fn from_kind(kind: u8, itemsize: usize) -> Option<Dt> {
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
    F32 => f32, b'f';
    F64 => f64, b'f';
    I64 => i64, b'i';
    Bool => bool, b'b';
    I8 => i8, b'i';
    U8 => u8, b'u';
    I16 => i16, b'i';
    I32 => i32, b'i';
    F16 => half::f16, b'f';
    // numpy has no bfloat16 of its own: `ml_dtypes` registers one (kind `V`, found by name).
    BF16 => half::bf16, b'\0';
    C64 => einrow::tensor::Complex64, b'c';
    C128 => einrow::tensor::Complex128, b'c';
}

impl Dt {
    /// numpy's name of the type (`float32`; ml_dtypes' `bfloat16`).
    pub fn name(self) -> &'static str {
        self.dtype().numpy_name()
    }

    /// The type it is computed in (itself for the compute types).
    pub fn compute(self) -> Dt {
        let compute = self.dtype().compute_dtype();
        // Every compute type has a row.
        Dt::of(compute).unwrap_or(self)
    }

    /// The size of an element in bytes.
    pub fn itemsize(self) -> usize {
        self.dtype().size_bytes()
    }

    /// Whether einsum computes in the type itself.
    pub fn is_compute(self) -> bool {
        self.compute() == self
    }

    /// Whether the type is complex.
    pub fn is_complex(self) -> bool {
        self.dtype().is_complex()
    }

    /// Whether the type is a floating-point one (float16, bfloat16, float32, float64).
    pub fn is_float(self) -> bool {
        self.dtype().is_float()
    }

    /// numpy's type number (`None` for bfloat16, which numpy does not number).
    pub fn npy(self) -> Option<NPY_TYPES> {
        Some(match self {
            Dt::F32 => NPY_TYPES::NPY_FLOAT,
            Dt::F64 => NPY_TYPES::NPY_DOUBLE,
            Dt::Bool => NPY_TYPES::NPY_BOOL,
            // numpy's int64 is C's `long` where that has 64 bits, else `long long`.
            Dt::I64 if std::mem::size_of::<c_long>() == 8 => NPY_TYPES::NPY_LONG,
            Dt::I64 => NPY_TYPES::NPY_LONGLONG,
            Dt::I8 => NPY_TYPES::NPY_BYTE,
            Dt::U8 => NPY_TYPES::NPY_UBYTE,
            Dt::I16 => NPY_TYPES::NPY_SHORT,
            Dt::I32 => NPY_TYPES::NPY_INT,
            Dt::F16 => NPY_TYPES::NPY_HALF,
            Dt::C64 => NPY_TYPES::NPY_CFLOAT,
            Dt::C128 => NPY_TYPES::NPY_CDOUBLE,
            Dt::BF16 => return None,
        })
    }

    /// Runs `f` with the type this one is computed in.
    pub fn dispatch_compute<F: ForCompute>(self, f: F) -> F::Out {
        match self.compute() {
            Dt::F32 => f.run::<f32>(),
            Dt::F64 => f.run::<f64>(),
            Dt::Bool => f.run::<bool>(),
            Dt::C64 => f.run::<einrow::tensor::Complex64>(),
            Dt::C128 => f.run::<einrow::tensor::Complex128>(),
            // Every integer type is computed in int64.
            _ => f.run::<i64>(),
        }
    }
}

/// The supported type of a numpy type descriptor, whatever its byte order.
pub fn of_descr(descr: &Bound<'_, PyArrayDescr>) -> Option<Dt> {
    if let Some(dt) = Dt::from_kind(descr.kind(), descr.itemsize()) {
        return Some(dt);
    }
    let named_bf16 = descr.kind() == b'V'
        && descr.itemsize() == 2
        && descr.typeobj().name().is_ok_and(|n| n == Dt::BF16.name());
    named_bf16.then_some(Dt::BF16)
}

/// The compute types' names, for error messages (`float32, float64, int64, bool`).
pub fn supported() -> String {
    names(Dt::ALL.iter().copied().filter(|d| d.is_compute()))
}

/// Every type's name, for error messages.
pub fn all_supported() -> String {
    names(Dt::ALL.iter().copied())
}

fn names(types: impl Iterator<Item = Dt>) -> String {
    types.map(|d| d.name()).collect::<Vec<_>>().join(", ")
}
