//! [`Tensor`]: a [`Layout`] over one shared [`Buffer`]. Views share the buffer; nothing is
//! ever written through a view (buffers are immutable once shared), so views cannot alias a
//! write.

use super::buffer::{with_buffer, with_dtype, Buffer};
use super::dtype::DType;
use super::element::Element;
use super::error::{Result, TensorError};
use super::hugepage;
use super::layout::Layout;
use super::size;
use super::view::SliceSpec;

/// A strided view of an immutable shared buffer.
#[derive(Clone, Debug)]
pub struct Tensor {
    buf: Buffer,
    layout: Layout,
}

impl Tensor {
    /// A fresh row-major tensor of `shape` holding `data` (row-major order).
    pub fn from_vec<T: Element>(shape: &[usize], data: Vec<T>) -> Result<Tensor> {
        let layout = Layout::contiguous(shape)?;
        if layout.numel() != data.len() {
            return Err(TensorError::DataLength { expected: layout.numel(), got: data.len() });
        }
        Ok(Tensor { buf: T::into_buffer(data), layout })
    }

    /// A fresh tensor of `dtype` from f64 values (row-major), each converted to the storage type
    /// (a complex type: imaginary parts 0).
    pub fn from_f64s(dtype: DType, shape: &[usize], data: &[f64]) -> Result<Tensor> {
        let expected = size::numel(shape)?;
        if expected != data.len() {
            return Err(TensorError::DataLength { expected, got: data.len() });
        }
        Tensor::from_f64_iter(dtype, shape, data.iter().copied())
    }

    /// A fresh tensor of `dtype` holding the first `numel(shape)` values of `values` (row-major),
    /// each converted to the storage type, written straight into the tensor's buffer (no f64
    /// copy in between). The buffer is allocated fallibly: a shape the system cannot hold is an
    /// [`Allocation`](TensorError::Allocation) error, not an abort. Fewer values than elements
    /// is a [`DataLength`](TensorError::DataLength) error.
    ///
    /// ```
    /// use einrow::tensor::{DType, Tensor};
    /// let t = Tensor::from_f64_iter(DType::F32, &[2, 2], (0..).map(f64::from)).unwrap();
    /// assert_eq!(t.to_f64_vec(), vec![0.0, 1.0, 2.0, 3.0]);
    /// assert!(Tensor::from_f64_iter(DType::F64, &[1 << 61], std::iter::repeat(0.0)).is_err());
    /// ```
    pub fn from_f64_iter(
        dtype: DType,
        shape: &[usize],
        values: impl IntoIterator<Item = f64>,
    ) -> Result<Tensor> {
        fn conv<T: Element>(
            shape: &[usize],
            n: usize,
            values: impl IntoIterator<Item = f64>,
        ) -> Result<Tensor> {
            let mut v = hugepage::try_with_capacity(n)?;
            v.extend(values.into_iter().take(n).map(T::from_f64));
            Tensor::from_vec(shape, v)
        }
        let n = size::numel(shape)?;
        with_dtype!(dtype, T => conv::<T>(shape, n, values))
    }

    /// A tensor of `shape` filled with `value` (converted to `dtype`).
    pub fn full(dtype: DType, shape: &[usize], value: f64) -> Result<Tensor> {
        let n = size::numel(shape)?;
        fn fill<T: Element>(shape: &[usize], n: usize, v: f64) -> Result<Tensor> {
            let x = T::from_f64(v);
            let data = if v == 0.0 { hugepage::zeroed(n, x)? } else { hugepage::filled(n, x)? };
            Tensor::from_vec(shape, data)
        }
        with_dtype!(dtype, T => fill::<T>(shape, n, value))
    }

    /// A tensor of zeros.
    pub fn zeros(dtype: DType, shape: &[usize]) -> Result<Tensor> {
        Tensor::full(dtype, shape, 0.0)
    }

    /// A view of `buf` through `layout`, checked to stay inside the buffer.
    pub fn from_parts(buf: Buffer, layout: Layout) -> Result<Tensor> {
        layout.check_fits(buf.len())?;
        Ok(Tensor { buf, layout })
    }

    /// The storage type.
    pub fn dtype(&self) -> DType {
        self.buf.dtype()
    }

    /// The axis sizes.
    pub fn shape(&self) -> &[usize] {
        self.layout.shape()
    }

    /// The strides in elements.
    pub fn strides(&self) -> &[isize] {
        self.layout.strides()
    }

    /// The number of axes.
    pub fn rank(&self) -> usize {
        self.layout.rank()
    }

    /// The number of elements.
    pub fn numel(&self) -> usize {
        self.layout.numel()
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The shared buffer.
    pub fn buffer(&self) -> &Buffer {
        &self.buf
    }

    /// The buffer as a slice of `T` together with the layout, when the dtype is `T`.
    pub fn typed<T: Element>(&self) -> Option<(&[T], &Layout)> {
        T::slice_of(&self.buf).map(|s| (s, &self.layout))
    }

    /// The same buffer through another layout (checked to fit).
    pub fn with_layout(&self, layout: Layout) -> Result<Tensor> {
        Tensor::from_parts(self.buf.clone(), layout)
    }

    /// View: axes reordered (`perm[k]` is the source of axis `k`).
    pub fn permute(&self, perm: &[usize]) -> Result<Tensor> {
        self.with_layout(self.layout.permute(perm)?)
    }

    /// View: all axes reversed.
    pub fn transpose(&self) -> Tensor {
        Tensor { buf: self.buf.clone(), layout: self.layout.transposed() }
    }

    /// View: one axis sliced (any non-zero step).
    pub fn slice(&self, axis: usize, spec: SliceSpec) -> Result<Tensor> {
        self.with_layout(self.layout.slice(axis, spec)?)
    }

    /// View: one axis fixed at an index and dropped.
    pub fn index(&self, axis: usize, index: i64) -> Result<Tensor> {
        self.with_layout(self.layout.index(axis, index)?)
    }

    /// View: numpy broadcasting to `shape` (stride 0 on new and size-1 axes).
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Tensor> {
        self.with_layout(self.layout.broadcast_to(shape)?)
    }

    /// View: the diagonal of two equal-sized axes.
    pub fn diagonal(&self, a: usize, b: usize) -> Result<Tensor> {
        self.with_layout(self.layout.diagonal(a, b)?)
    }

    /// The values in row-major order of the view, as f64 (of a complex tensor: the real
    /// parts; [`Tensor::to_vec`] gives the complex values).
    pub fn to_f64_vec(&self) -> Vec<f64> {
        self.to_vec::<f64>()
    }

    /// The values in row-major order of the view, converted to `T` as numpy casts them
    /// ([`Element::cast`]: exact between integer types). The copy is allocated like a
    /// `Vec` (an abort if memory runs out); [`try_to_vec`](Tensor::try_to_vec) reports that as
    /// an error instead.
    pub fn to_vec<T: Element>(&self) -> Vec<T> {
        let mut out = hugepage::with_capacity(self.numel());
        self.for_each(|x: T| out.push(x));
        out
    }

    /// [`to_f64_vec`](Tensor::to_f64_vec) with the copy allocated fallibly: an
    /// [`Allocation`](TensorError::Allocation) error when the system cannot hold it.
    pub fn try_to_f64_vec(&self) -> Result<Vec<f64>> {
        self.try_to_vec::<f64>()
    }

    /// [`to_vec`](Tensor::to_vec) with the copy allocated fallibly.
    pub fn try_to_vec<T: Element>(&self) -> Result<Vec<T>> {
        let mut out = hugepage::try_with_capacity(self.numel())?;
        self.for_each(|x: T| out.push(x));
        Ok(out)
    }

    /// Calls `f` on every value in row-major order of the view, as f64, without copying the
    /// tensor (printers stream large results through this).
    pub fn for_each_f64(&self, f: impl FnMut(f64)) {
        self.for_each(f)
    }

    /// Calls `f` on every value in row-major order of the view, converted to `T` as numpy
    /// casts it ([`Element::cast`]), without copying the tensor.
    pub fn for_each<T: Element>(&self, mut f: impl FnMut(T)) {
        fn read<S: Element, T: Element>(s: &[S], l: &Layout, f: &mut impl FnMut(T)) {
            l.for_each_address(|a| f(s.get(a).map_or(T::default(), |&x| x.cast::<T>())));
        }
        with_buffer!(&self.buf, v => read(v, &self.layout, &mut f))
    }

    /// A row-major copy converted to `dtype` as numpy's `astype` converts (the tensor itself
    /// when the type already matches).
    pub fn astype(&self, dtype: DType) -> Tensor {
        if dtype == self.dtype() {
            return self.clone();
        }
        let layout = Layout::contiguous(self.shape()).unwrap_or_else(|_| self.layout.clone());
        let buf = with_dtype!(dtype, T => T::into_buffer(self.to_vec::<T>()));
        Tensor { buf, layout }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arange(shape: &[usize]) -> Tensor {
        let n = size::numel(shape).unwrap();
        Tensor::from_vec(shape, (0..n).map(|x| x as f64).collect()).unwrap()
    }

    #[test]
    fn views_read_through_strides() {
        let t = arange(&[2, 3]);
        assert_eq!(t.transpose().to_f64_vec(), vec![0., 3., 1., 4., 2., 5.]);
        assert_eq!(
            t.slice(1, SliceSpec::full(-1)).unwrap().to_f64_vec(),
            vec![2., 1., 0., 5., 4., 3.]
        );
        assert_eq!(t.index(0, 1).unwrap().to_f64_vec(), vec![3., 4., 5.]);
        let b = t.index(0, 0).unwrap().broadcast_to(&[2, 3]).unwrap();
        assert_eq!(b.to_f64_vec(), vec![0., 1., 2., 0., 1., 2.]);
        assert_eq!(arange(&[3, 3]).diagonal(0, 1).unwrap().to_f64_vec(), vec![0., 4., 8.]);
    }

    #[test]
    fn flatten_copies_when_needed() {
        let t = arange(&[2, 3]).transpose();
        let f = t.flatten().unwrap();
        assert_eq!(f.to_f64_vec(), vec![0., 3., 1., 4., 2., 5.]);
        assert!(f.layout().is_c_contiguous());
        let v = arange(&[2, 3]).flatten().unwrap();
        assert_eq!(v.shape(), &[6]);
    }

    #[test]
    fn errors_not_panics() {
        assert!(matches!(
            Tensor::from_vec(&[2, 2], vec![1.0f64; 3]),
            Err(TensorError::DataLength { .. })
        ));
        assert!(Tensor::zeros(DType::F32, &[1 << 62, 4]).is_err());
        // Shapes that pass the 2^62 check but cannot be allocated are errors, not aborts.
        let huge = Tensor::from_f64_iter(DType::F64, &[1 << 62], std::iter::repeat(1.0));
        assert!(matches!(huge, Err(TensorError::Allocation { .. })), "{huge:?}");
        let short = Tensor::from_f64_iter(DType::F32, &[3], [1.0, 2.0]);
        assert!(matches!(short, Err(TensorError::DataLength { expected: 3, got: 2 })));
        assert!(Tensor::from_f64s(DType::F64, &[2], &[1.0, 2.0, 3.0]).is_err());
        let t = arange(&[2, 3]);
        assert!(t.permute(&[0, 2]).is_err());
        assert!(t.slice(2, SliceSpec::full(1)).is_err());
        assert!(t.with_layout(Layout::from_parts(&[3], &[3], 0).unwrap()).is_err());
    }

    /// Copies too large to allocate (a broadcast view made contiguous) are errors, through the
    /// kernel's copy (f64) and the plain gather (int8) alike; small ones hold the view's values.
    #[test]
    fn contiguous_copies_too_large_are_errors() {
        for dtype in [DType::F64, DType::I8] {
            let two = Tensor::from_f64s(dtype, &[2], &[3.0, 4.0]).unwrap();
            let wide = two.broadcast_to(&[1 << 60, 2]).unwrap();
            let copy = wide.try_contiguous();
            assert!(matches!(copy, Err(TensorError::Allocation { .. })), "{dtype:?}: {copy:?}");
            let flat = wide.reshape(&[1 << 61]);
            assert!(matches!(flat, Err(TensorError::Allocation { .. })), "{dtype:?}: {flat:?}");
            let t = Tensor::from_f64s(dtype, &[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
            let c = t.transpose().try_contiguous().unwrap();
            assert!(c.layout().is_c_contiguous());
            assert_eq!(c.to_f64_vec(), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        }
    }

    #[test]
    fn dtype_conversion() {
        let t = Tensor::from_f64s(DType::I8, &[3], &[1.0, 200.0, -3.9]).unwrap();
        assert_eq!(t.to_f64_vec(), vec![1.0, -56.0, -3.0]);
        assert_eq!(t.astype(DType::F32).dtype(), DType::F32);
        assert_eq!(t.transpose().try_to_vec::<f32>(), Ok(vec![1.0, -56.0, -3.0]));
        let mut seen = Vec::new();
        arange(&[2, 2]).transpose().for_each_f64(|x| seen.push(x));
        assert_eq!(seen, vec![0.0, 2.0, 1.0, 3.0]);
    }
}
