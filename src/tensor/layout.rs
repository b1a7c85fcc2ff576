//! [`Layout`]: shape, strides (in elements) and offset of a strided view over a flat buffer.
//!
//! The element at index `(i0, .., in)` lives at `offset + Σ ik·strides[k]`. Strides may be
//! negative (reversed axes) or zero (broadcast axes). A layout does not know its buffer; a
//! [`Tensor`](super::Tensor) pairs one with a buffer and checks that every address fits.
//! The view operations are in the `tensor::view` module.

use smallvec::SmallVec;

use super::error::{Result, TensorError};
use super::size::{self, Dims, Strides};

/// Shape, strides (elements) and offset of a strided view.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    pub(super) shape: Dims,
    pub(super) strides: Strides,
    pub(super) offset: usize,
}

impl Layout {
    /// A fresh row-major layout of `shape` at offset 0.
    pub fn contiguous(shape: &[usize]) -> Result<Layout> {
        size::numel(shape)?;
        Ok(Layout { shape: shape.into(), strides: size::row_major(shape)?, offset: 0 })
    }

    /// A row-major layout over padded allocation sizes `full` (each ≥ its shape entry).
    pub fn padded(shape: &[usize], full: &[usize]) -> Result<Layout> {
        if shape.len() != full.len() {
            let (expected, got) = (shape.len(), full.len());
            return Err(TensorError::Rank { what: "allocation sizes", expected, got });
        }
        if let Some((&s, &f)) = shape.iter().zip(full).find(|(s, f)| f < s) {
            return Err(TensorError::Value {
                message: format!("allocation size {f} is smaller than the axis length {s}"),
            });
        }
        size::numel(shape)?;
        size::numel(full)?;
        Ok(Layout { shape: shape.into(), strides: size::row_major(full)?, offset: 0 })
    }

    /// A layout from explicit parts. The caller checks it against its buffer with
    /// [`Layout::check_fits`].
    pub fn from_parts(shape: &[usize], strides: &[isize], offset: usize) -> Result<Layout> {
        if shape.len() != strides.len() {
            let (expected, got) = (shape.len(), strides.len());
            return Err(TensorError::Rank { what: "strides", expected, got });
        }
        size::numel(shape)?;
        Ok(Layout { shape: shape.into(), strides: strides.into(), offset })
    }

    /// The sizes of the axes.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The strides of the axes, in elements.
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }

    /// The address of the first element (all indices 0).
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The number of axes.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The number of elements (checked when the layout was built).
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// The lowest and highest address reached, `None` when the view is empty.
    pub fn address_range(&self) -> Option<(i128, i128)> {
        size::address_range(&self.shape, &self.strides, self.offset as i128)
    }

    /// Checks that every address lies in a buffer of `len` elements.
    pub fn check_fits(&self, len: usize) -> Result<()> {
        match self.address_range() {
            None => Ok(()),
            Some((lo, _)) if lo < 0 => Err(TensorError::OutOfStorage { reach: lo, len }),
            Some((_, hi)) if hi >= len as i128 => Err(TensorError::OutOfStorage { reach: hi, len }),
            Some(_) => Ok(()),
        }
    }

    /// numpy's C-contiguity: the elements are consecutive in row-major order starting at the
    /// offset (strides of size-1 axes do not matter; an empty view is contiguous).
    pub fn is_c_contiguous(&self) -> bool {
        if self.shape.contains(&0) {
            return true;
        }
        let mut expect: isize = 1;
        for (&d, &s) in self.shape.iter().zip(&self.strides).rev() {
            if d != 1 {
                if s != expect {
                    return false;
                }
                expect = expect.saturating_mul(d as isize);
            }
        }
        true
    }

    /// Whether the strides equal the row-major strides of the shape exactly (size-1 axes
    /// included), as Nervana's `c_contiguous` compares them.
    pub fn is_row_major_exact(&self) -> bool {
        size::row_major_exact(&self.shape)
            .is_some_and(|rm| rm.as_slice() == self.strides.as_slice())
    }

    /// Nervana's `broadcast_contiguous`: the strides equal the row-major strides of the shape in
    /// which every stride-0 axis has size 1, with those axes' strides then set to 0. True at
    /// rank 0.
    pub fn is_broadcast_contiguous(&self) -> bool {
        let aug: Dims = self
            .shape
            .iter()
            .zip(&self.strides)
            .map(|(&d, &s)| if s == 0 { 1 } else { d })
            .collect();
        let Some(mut rm) = size::row_major_exact(&aug) else { return false };
        for (r, &s) in rm.iter_mut().zip(&self.strides) {
            if s == 0 {
                *r = 0;
            }
        }
        rm.as_slice() == self.strides.as_slice()
    }

    /// The address of the element at `index` (one entry per axis, each in range).
    pub fn address(&self, index: &[usize]) -> Result<usize> {
        if index.len() != self.rank() {
            let (expected, got) = (self.rank(), index.len());
            return Err(TensorError::Rank { what: "an element index", expected, got });
        }
        let mut addr = self.offset as i128;
        for ((&i, &d), &s) in index.iter().zip(&self.shape).zip(&self.strides) {
            if i >= d {
                return Err(TensorError::IndexOutOfRange { index: i as i64, len: d });
            }
            addr += i as i128 * s as i128;
        }
        usize::try_from(addr).map_err(|_| TensorError::OutOfStorage { reach: addr, len: 0 })
    }

    /// The same elements with adjacent axes merged wherever their strides compose
    /// (`stride[k] == stride[k+1]·shape[k+1]`) and size-1 axes dropped. Iterating the result
    /// in row-major order visits the same addresses in the same order.
    pub fn merged(&self) -> Layout {
        if self.shape.contains(&0) {
            return Layout {
                shape: SmallVec::from_slice(&[0]),
                strides: SmallVec::from_slice(&[1]),
                offset: self.offset,
            };
        }
        let mut shape = Dims::new();
        let mut strides = Strides::new();
        for (&d, &s) in self.shape.iter().zip(&self.strides) {
            if d == 1 {
                continue;
            }
            match (shape.last_mut(), strides.last_mut()) {
                (Some(pd), Some(ps)) if s.checked_mul(d as isize) == Some(*ps) => {
                    *pd *= d;
                    *ps = s;
                }
                _ => {
                    shape.push(d);
                    strides.push(s);
                }
            }
        }
        Layout { shape, strides, offset: self.offset }
    }

    /// Calls `f` with every element address in row-major order of the view. The layout must
    /// fit its buffer ([`Layout::check_fits`]) for the addresses to be meaningful.
    pub fn for_each_address(&self, mut f: impl FnMut(usize)) {
        let m = self.merged();
        if m.numel() == 0 {
            return;
        }
        let rank = m.rank();
        if rank == 0 {
            f(m.offset);
            return;
        }
        let (inner_n, inner_s) = (m.shape[rank - 1], m.strides[rank - 1]);
        let mut idx: Dims = SmallVec::from_elem(0, rank - 1);
        let mut base = m.offset as isize;
        loop {
            let mut a = base;
            for _ in 0..inner_n {
                f(a as usize);
                a = a.wrapping_add(inner_s);
            }
            // Odometer step over the outer axes, updating the base address incrementally.
            let mut k = rank - 1;
            loop {
                if k == 0 {
                    return;
                }
                k -= 1;
                idx[k] += 1;
                base = base.wrapping_add(m.strides[k]);
                if idx[k] < m.shape[k] {
                    break;
                }
                base = base.wrapping_sub(m.strides[k].wrapping_mul(m.shape[k] as isize));
                idx[k] = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lay(shape: &[usize], strides: &[isize], offset: usize) -> Layout {
        Layout::from_parts(shape, strides, offset).unwrap()
    }

    #[test]
    fn contiguity() {
        type Case<'a> = (&'a [usize], &'a [isize], bool, bool, bool);
        let cases: &[Case] = &[
            (&[5, 3], &[3, 1], true, true, true),
            (&[5, 3], &[4, 1], false, false, false),
            (&[5, 3], &[1, 0], false, false, true),
            (&[3, 5], &[0, 1], false, false, true),
            (&[5, 1], &[1, 7], true, false, false),
            (&[], &[], true, true, true),
            (&[3, 5], &[1, 3], false, false, false),
        ];
        for &(shape, strides, c, exact, bc) in cases {
            let l = lay(shape, strides, 0);
            assert_eq!(l.is_c_contiguous(), c, "{shape:?} {strides:?}");
            assert_eq!(l.is_row_major_exact(), exact, "{shape:?} {strides:?}");
            assert_eq!(l.is_broadcast_contiguous(), bc, "{shape:?} {strides:?}");
        }
    }

    #[test]
    fn merge() {
        let m = lay(&[2, 3, 4], &[12, 4, 1], 5).merged();
        assert_eq!((m.shape(), m.strides(), m.offset()), (&[24][..], &[1][..], 5));
        let m = lay(&[2, 1, 3, 4], &[24, 99, 4, 1], 0).merged();
        assert_eq!((m.shape(), m.strides()), (&[2, 12][..], &[24, 1][..]));
        let m = lay(&[3, 4], &[1, 3], 0).merged();
        assert_eq!(m.shape(), &[3, 4]);
    }

    #[test]
    fn addresses_in_order() {
        let l = lay(&[2, 3], &[-1, 2], 1);
        let mut got = vec![];
        l.for_each_address(|a| got.push(a));
        assert_eq!(got, vec![1, 3, 5, 0, 2, 4]);
        let mut n = 0;
        lay(&[2, 0], &[1, 1], 0).for_each_address(|_| n += 1);
        assert_eq!(n, 0);
        let mut got = vec![];
        lay(&[], &[], 4).for_each_address(|a| got.push(a));
        assert_eq!(got, vec![4]);
    }

    #[test]
    fn fits() {
        assert!(lay(&[3, 4], &[4, 1], 0).check_fits(12).is_ok());
        assert!(lay(&[3, 4], &[4, 1], 1).check_fits(12).is_err());
        assert!(lay(&[3], &[-1], 1).check_fits(12).is_err());
        assert!(lay(&[0, 4], &[4, 1], 100).check_fits(12).is_ok());
    }

    #[test]
    fn padded_layout() {
        let l = Layout::padded(&[5, 3], &[5, 4]).unwrap();
        assert_eq!(l.strides(), &[4, 1]);
        assert!(Layout::padded(&[5, 3], &[5, 2]).is_err());
        assert!(Layout::padded(&[5, 3], &[5]).is_err());
    }
}
