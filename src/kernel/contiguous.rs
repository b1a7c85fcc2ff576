//! The copies behind [`Tensor::reshape`], [`Tensor::flatten`] and [`Tensor::contiguous`]: a
//! tensor that is not C-contiguous is copied into row-major order by the kernel's tiled copy
//! (the compute types) or its gather (every other element type). They live with the kernel,
//! which they run; the tensor module below it holds only views.

use super::copy::{copy_contiguous, gather};
use super::error::KernelError;
use super::run::RunOptions;
use super::scalar::Scalar;
use crate::tensor::{with_buffer, Buffer, Element, Layout, Tensor, TensorError};

impl Tensor {
    /// A reshape: a view when the strides compose, else a row-major copy (never a wrong view).
    ///
    /// ```
    /// use einrow::tensor::Tensor;
    /// let t = Tensor::from_vec(&[2, 3], (0..6).map(f64::from).collect())?;
    /// let r = t.transpose().reshape(&[6])?; // not a view: copied in the transpose's order
    /// assert_eq!(r.to_f64_vec(), [0., 3., 1., 4., 2., 5.]);
    /// # Ok::<(), einrow::tensor::TensorError>(())
    /// ```
    pub fn reshape(&self, shape: &[usize]) -> Result<Tensor, TensorError> {
        match self.layout().reshape(shape)? {
            Some(l) => self.with_layout(l),
            None => self.try_contiguous()?.reshape(shape),
        }
    }

    /// All axes flattened into one (a copy when the view is not contiguous).
    pub fn flatten(&self) -> Result<Tensor, TensorError> {
        self.reshape(&[self.numel()])
    }

    /// The tensor itself when it is C-contiguous, else a row-major copy (through the kernel's
    /// tiled copy for the compute types f32, f64, int64 and bool, so transposes stay
    /// cache-friendly). The copy is allocated like a `Vec` (an abort if memory runs out);
    /// [`try_contiguous`](Tensor::try_contiguous) reports that as an error instead.
    pub fn contiguous(&self) -> Tensor {
        self.try_contiguous().unwrap_or_else(|_| {
            let bytes = self.numel().saturating_mul(self.dtype().size_bytes());
            std::alloc::handle_alloc_error(
                std::alloc::Layout::from_size_align(bytes, 8)
                    .unwrap_or(std::alloc::Layout::new::<u8>()),
            )
        })
    }

    /// [`contiguous`](Tensor::contiguous) with the copy allocated fallibly: an
    /// [`Allocation`](TensorError::Allocation) error when the system cannot hold it.
    pub fn try_contiguous(&self) -> Result<Tensor, TensorError> {
        let layout = self.layout();
        if layout.is_c_contiguous() {
            return Ok(self.clone());
        }
        let buf = match self.buffer() {
            Buffer::F32(v) => tiled(v, layout)?,
            Buffer::F64(v) => tiled(v, layout)?,
            Buffer::I64(v) => tiled(v, layout)?,
            Buffer::Bool(v) => tiled(v, layout)?,
            other => with_buffer!(other, v => gathered(v, layout)?),
        };
        let contiguous = Layout::contiguous(layout.shape()).unwrap_or_else(|_| layout.clone());
        Tensor::from_parts(buf, contiguous)
    }
}

/// A row-major copy by the gather, of any element type.
fn gathered<T: Element>(s: &[T], l: &Layout) -> Result<Buffer, TensorError> {
    match gather(s, l) {
        Ok(v) => Ok(T::into_buffer(v)),
        Err(KernelError::Tensor(e)) => Err(e),
        Err(_) => Err(TensorError::Allocation {
            elements: l.numel(),
            bytes_each: std::mem::size_of::<T>(),
        }),
    }
}

/// A row-major copy by the tiled copy, falling back to the gather.
fn tiled<T: Scalar>(s: &[T], l: &Layout) -> Result<Buffer, TensorError> {
    match copy_contiguous(s, l, &RunOptions::default()) {
        Ok(v) => Ok(T::into_buffer(v)),
        Err(_) => gathered(s, l),
    }
}
