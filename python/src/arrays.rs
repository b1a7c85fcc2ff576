//! numpy arrays as the kernel reads them: element type, shape, element strides, and the
//! memory their elements span, taken from the array object itself (no copy). An array the
//! kernel cannot read in place (another element type, a byte order other than the machine's,
//! misaligned data, strides that are not whole elements) is reported as such; the caller
//! converts it with numpy.

use std::os::raw::c_int;

use numpy::npyffi;
use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;

use einrow::tensor::overlapping_axis;

use crate::dtypes::Dt;

/// Why an array cannot be read in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotInPlace {
    /// An element type the kernel does not compute in (its numpy type number).
    DType,
    /// A supported type, but with a foreign byte order, misaligned, or with strides that are
    /// not multiples of the element size: numpy can copy it into a readable array.
    Layout,
}

/// The memory of an array: where its elements lie and how to walk them.
#[derive(Clone, Debug)]
pub struct Memory {
    /// The element type.
    pub dt: Dt,
    /// The shape.
    pub shape: Vec<usize>,
    /// The strides, in elements.
    pub strides: Vec<isize>,
    /// The lowest address any element has (the start of the slice the elements lie in).
    pub base: *mut u8,
    /// The first element's index from `base`, in elements.
    pub offset: usize,
    /// The elements from `base` to the highest address (0 for an empty array).
    pub len: usize,
}

// SAFETY: `Memory` is plain data describing an array; the pointer is only dereferenced
// through slices made while the array object is held (see `slice`).
unsafe impl Send for Memory {}
unsafe impl Sync for Memory {}

impl Memory {
    /// The element type's number and byte order checked, then the layout read.
    pub fn of(array: &Bound<'_, PyUntypedArray>) -> Result<Memory, NotInPlace> {
        let descr = array.dtype();
        let dt = crate::dtypes::of_descr(&descr).ok_or(NotInPlace::DType)?;
        if descr.is_native_byteorder() == Some(false) || !array.is_aligned() {
            return Err(NotInPlace::Layout);
        }
        let size = dt.itemsize() as isize;
        let shape = array.shape().to_vec();
        let mut strides = Vec::with_capacity(shape.len());
        for &s in array.strides() {
            if s % size != 0 {
                return Err(NotInPlace::Layout);
            }
            strides.push(s / size);
        }
        // SAFETY: the pointer is the array object's, which the caller holds.
        let data = unsafe { (*array.as_array_ptr()).fields.data } as *mut u8;
        if shape.contains(&0) {
            return Ok(Memory { dt, shape, strides, base: data, offset: 0, len: 0 });
        }
        // numpy keeps every reachable byte address within isize: these sums do not overflow.
        let (mut lo, mut hi) = (0isize, 0isize);
        for (&d, &s) in shape.iter().zip(&strides) {
            let reach = (d as isize - 1) * s;
            if reach < 0 {
                lo += reach;
            } else {
                hi += reach;
            }
        }
        let base = data.wrapping_offset(lo * size);
        let (offset, len) = ((-lo) as usize, (hi - lo) as usize + 1);
        Ok(Memory { dt, shape, strides, base, offset, len })
    }

    /// The bytes the elements span, `[start, end)` (empty for an empty array).
    pub fn bytes(&self) -> (usize, usize) {
        let start = self.base as usize;
        (start, start + self.len * self.dt.itemsize())
    }

    /// Whether two arrays' spans share a byte.
    pub fn overlaps(&self, other: &Memory) -> bool {
        let ((a0, a1), (b0, b1)) = (self.bytes(), other.bytes());
        a0 < a1 && b0 < b1 && a0 < b1 && b0 < a1
    }

    /// The elements as a slice of `T`.
    ///
    /// # Safety
    /// `T` is the Rust type of `self.dt`, the array this was read from is alive and not
    /// resized for the slice's lifetime, and no mutable slice over the same bytes exists.
    pub unsafe fn slice<'a, T>(&self) -> &'a [T] {
        if self.len == 0 {
            return &[];
        }
        std::slice::from_raw_parts(self.base as *const T, self.len)
    }

    /// The elements as a mutable slice of `T`.
    ///
    /// # Safety
    /// As [`Memory::slice`], the array is writeable, and no other slice over the same bytes
    /// exists.
    pub unsafe fn slice_mut<'a, T>(&self) -> &'a mut [T] {
        if self.len == 0 {
            return &mut [];
        }
        std::slice::from_raw_parts_mut(self.base as *mut T, self.len)
    }
}

/// The numpy flags of an array.
pub fn array_flags(array: &Bound<'_, PyUntypedArray>) -> c_int {
    // SAFETY: reads a field of the live array object.
    unsafe { (*array.as_array_ptr()).fields.flags }
}

/// The supported element type of `array` (whatever its byte order).
pub fn element_type(array: &Bound<'_, PyUntypedArray>) -> Option<Dt> {
    crate::dtypes::of_descr(&array.dtype())
}

/// Where two elements of `array` share memory (a self-overlapping view, such as numpy's
/// `as_strided` makes): the axis, its size and its stride, `None` when every element has
/// bytes of its own. The stride is in elements (`in_elements`) when every stride is a whole
/// number of elements (the crate's own test then decides); otherwise in bytes, and two
/// elements overlap when they share any byte.
pub fn self_overlap(array: &Bound<'_, PyUntypedArray>) -> Option<Overlap> {
    let (shape, bytes) = (array.shape(), array.strides());
    let size = array.dtype().itemsize() as isize;
    if size == 0 {
        return None;
    }
    if bytes.iter().all(|s| s % size == 0) {
        let strides: Vec<isize> = bytes.iter().map(|s| s / size).collect();
        let axis = overlapping_axis(shape, &strides)?;
        return Some(Overlap { axis, size: shape[axis], stride: strides[axis], in_elements: true });
    }
    // Each element seen as its bytes: a last axis of the item size with stride 1. Two elements
    // share a byte exactly when two points of that map meet.
    let dims: Vec<usize> = shape.iter().copied().chain([size as usize]).collect();
    let strides: Vec<isize> = bytes.iter().copied().chain([1]).collect();
    let found = overlapping_axis(&dims, &strides)?;
    // The byte axis is reported only when an axis of the array steps by less than an element
    // (ties in stride): that axis is the one at fault.
    let axis = if found < shape.len() {
        found
    } else {
        (0..shape.len()).filter(|&a| shape[a] > 1).min_by_key(|&a| bytes[a].unsigned_abs())?
    };
    Some(Overlap { axis, size: shape[axis], stride: bytes[axis], in_elements: false })
}

/// An axis of an array along which elements share memory ([`self_overlap`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overlap {
    /// The axis.
    pub axis: usize,
    /// Its size.
    pub size: usize,
    /// Its stride, in elements when `in_elements`, else in bytes.
    pub stride: isize,
    /// Whether `stride` counts elements.
    pub in_elements: bool,
}

/// Whether the element type of `array` is Python objects.
pub fn holds_objects(array: &Bound<'_, PyUntypedArray>) -> bool {
    array.dtype().num() == npyffi::NPY_TYPES::NPY_OBJECT as c_int
}
