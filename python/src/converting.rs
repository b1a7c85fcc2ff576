//! `einrow.einsum` over operands of a type the kernel computes in another (int8 in int64,
//! float16 in float32), or into a result of a narrower type: the crate's piecewise
//! conversion ([`einrow::numpy::einsum_converting`]), the arrays read and written where they
//! are, never converted whole.

use einrow::numpy::{einsum_converting, AnyStridedMut, AnyStridedRef, EinsumError, PathOptions};
use einrow::numpy::{StridedMut, StridedRef};
use einrow::project::Storage;
use einrow::tensor::Layout;
use pyo3::prelude::*;

use crate::arrays::Memory;
use crate::dtypes::{Dt, ForType};
use crate::threads;

/// An einsum whose operands are read in their own types.
pub struct Converting<'a> {
    /// The subscripts.
    pub spec: &'a str,
    /// The path options given.
    pub path: Option<&'a PathOptions>,
    /// The work of the planned einsum (whether to release the GIL).
    pub work: u128,
    /// The operands, each of its own type.
    pub inputs: &'a [Memory],
}

impl Converting<'_> {
    /// Runs into `out` (any storage type; it shares no byte with an operand), computing in
    /// `compute`.
    pub fn run(&self, py: Python<'_>, out: &Memory, compute: Dt) -> Result<(), EinsumError> {
        threads::run_kernel(py, self.work, || {
            let mut inputs = Vec::with_capacity(self.inputs.len());
            for m in self.inputs {
                inputs.push(m.dt.dispatch(Wrap { m })?);
            }
            let mut target = out.dt.dispatch(WrapMut { m: out })?;
            let opts = threads::run_options();
            einsum_converting(self.spec, self.path, &inputs, &mut target, compute.dtype(), &opts)
        })
    }
}

fn layout(m: &Memory) -> Result<Layout, EinsumError> {
    Ok(Layout::from_parts(&m.shape, &m.strides, m.offset)?)
}

/// An operand as the crate's typed view.
struct Wrap<'m> {
    m: &'m Memory,
}

impl<'m> ForType for Wrap<'m> {
    type Out = Result<AnyStridedRef<'m>, EinsumError>;

    fn run<T: Storage>(self) -> Self::Out {
        // SAFETY: `T` is the Rust type of `m.dt` (the dispatch's); the caller holds the array
        // for the call and no mutable slice over its bytes exists (the output shares none).
        let data = unsafe { self.m.slice::<T>() };
        Ok(T::wrap_ref(StridedRef::new(data, layout(self.m)?)?))
    }
}

/// The output as the crate's typed mutable view.
struct WrapMut<'m> {
    m: &'m Memory,
}

impl<'m> ForType for WrapMut<'m> {
    type Out = Result<AnyStridedMut<'m>, EinsumError>;

    fn run<T: Storage>(self) -> Self::Out {
        // SAFETY: as for `Wrap`; the array is writeable and shares no byte with an operand
        // (both checked by the caller).
        let data = unsafe { self.m.slice_mut::<T>() };
        Ok(T::wrap_mut(StridedMut::new(data, layout(self.m)?)?))
    }
}
