//! [`View`] and [`ViewMut`]: strided views over a caller's slices, what a compiled plan reads
//! and writes without copying.

use smallvec::SmallVec;

use super::error::ProjectError;
use crate::spec::lexer::MAX_INT;

/// Sizes or strides of a view, inline up to six axes.
pub(super) type Axes<T> = SmallVec<[T; 6]>;

/// The shape part of a view: sizes, element strides and the offset of the first element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Strided {
    pub dims: Axes<usize>,
    pub strides: Axes<isize>,
    pub offset: usize,
}

impl Strided {
    /// A row-major layout of `sizes`; also returns its element count.
    fn contiguous(sizes: &[u64]) -> Result<(Strided, usize), ProjectError> {
        let dims = checked_dims(sizes)?;
        let mut strides: Axes<isize> = SmallVec::from_elem(0, dims.len());
        let mut n: usize = 1;
        for (s, &d) in strides.iter_mut().zip(&dims).rev() {
            *s = isize::try_from(n).map_err(|_| too_large(sizes))?;
            n = n.checked_mul(d).ok_or_else(|| too_large(sizes))?;
        }
        Ok((Strided { dims, strides, offset: 0 }, n))
    }

    /// A layout from parts, checked to address only elements `0..len`.
    fn new(
        sizes: &[u64],
        strides: &[isize],
        offset: usize,
        len: usize,
    ) -> Result<Strided, ProjectError> {
        if sizes.len() != strides.len() {
            let msg =
                format!("a view of {} sizes was given {} strides", sizes.len(), strides.len());
            return Err(ProjectError::Data(msg));
        }
        let dims = checked_dims(sizes)?;
        let s = Strided { dims, strides: strides.into(), offset };
        if let Some((lo, hi)) = s.range() {
            if lo < 0 || hi >= len as i128 {
                let reach = if lo < 0 { lo } else { hi };
                let msg = format!(
                    "a view of sizes {sizes:?}, strides {strides:?} and offset {offset} reaches \
                     element {reach} of a slice of {len}"
                );
                return Err(ProjectError::Data(msg));
            }
        }
        Ok(s)
    }

    /// The lowest and highest address, `None` when the view has no element.
    fn range(&self) -> Option<(i128, i128)> {
        crate::tensor::address_range(&self.dims, &self.strides, self.offset as i128)
    }

    /// The sizes as `u64`.
    pub fn sizes(&self) -> impl Iterator<Item = u64> + '_ {
        self.dims.iter().map(|&d| d as u64)
    }

    /// Whether the sizes are `want`.
    pub fn has_sizes(&self, want: &[u64]) -> bool {
        self.dims.len() == want.len() && self.sizes().zip(want).all(|(a, b)| a == *b)
    }

    /// Whether the view is row-major from offset 0 (a plain contiguous array).
    pub fn is_contiguous(&self) -> bool {
        let mut n: isize = 1;
        for (&d, &s) in self.dims.iter().zip(&self.strides).rev() {
            if d > 1 && s != n {
                return false;
            }
            n = n.saturating_mul(d as isize);
        }
        self.offset == 0
    }

    /// Calls `f` with the address of every element, in row-major order of the view.
    pub fn for_each_address(&self, mut f: impl FnMut(usize)) {
        if self.dims.contains(&0) {
            return;
        }
        let mut idx: Axes<usize> = SmallVec::from_elem(0, self.dims.len());
        let mut at = self.offset as isize;
        loop {
            // Every address was checked to lie in the slice when the view was made.
            f(at as usize);
            let mut k = self.dims.len();
            loop {
                if k == 0 {
                    return;
                }
                k -= 1;
                idx[k] += 1;
                at += self.strides[k];
                if idx[k] < self.dims[k] {
                    break;
                }
                at -= self.strides[k] * self.dims[k] as isize;
                idx[k] = 0;
            }
        }
    }
}

fn checked_dims(sizes: &[u64]) -> Result<Axes<usize>, ProjectError> {
    sizes
        .iter()
        .map(|&d| usize::try_from(d).ok().filter(|_| d <= MAX_INT).ok_or_else(|| too_large(sizes)))
        .collect()
}

fn too_large(sizes: &[u64]) -> ProjectError {
    ProjectError::TooLarge(format!("a view of sizes {sizes:?} does not fit in memory"))
}

/// A strided view over a caller's slice (no copy): element `(i0, …, in)` is
/// `data[offset + Σ ik·strides[k]]`. Strides are in elements and may be negative or zero
/// (a broadcast axis). Every address is checked against the slice when the view is made.
///
/// ```
/// use einrow::project::View;
/// let data = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
/// // The transpose of a 2x3 row-major matrix, without copying.
/// let t = View::strided(&data, &[3, 2], &[1, 3], 0)?;
/// assert_eq!(t.sizes(), vec![3, 2]);
/// assert!(View::strided(&data, &[3, 2], &[1, 4], 0).is_err());
/// # Ok::<(), einrow::project::ProjectError>(())
/// ```
#[derive(Clone, Debug)]
pub struct View<'a, T> {
    pub(super) data: &'a [T],
    pub(super) layout: Strided,
}

impl<'a, T> View<'a, T> {
    /// A row-major array of `sizes` filling `data` exactly (an `elems` error otherwise).
    pub fn contiguous(data: &'a [T], sizes: &[u64]) -> Result<View<'a, T>, ProjectError> {
        let (layout, n) = Strided::contiguous(sizes)?;
        check_len(n, data.len(), sizes)?;
        Ok(View { data, layout })
    }

    /// A view of `sizes` with element `strides` from `offset`.
    pub fn strided(
        data: &'a [T],
        sizes: &[u64],
        strides: &[isize],
        offset: usize,
    ) -> Result<View<'a, T>, ProjectError> {
        Ok(View { layout: Strided::new(sizes, strides, offset, data.len())?, data })
    }

    /// The sizes of the axes.
    pub fn sizes(&self) -> Vec<u64> {
        self.layout.sizes().collect()
    }

    /// The element strides.
    pub fn strides(&self) -> &[isize] {
        &self.layout.strides
    }

    /// The slice viewed.
    pub fn data(&self) -> &'a [T] {
        self.data
    }
}

/// A strided view over a caller's mutable slice, written by a compiled plan. As [`View`], and
/// no two elements may share an address (a stride 0 along an axis of several elements, or
/// axes that interleave onto one element): two results would be written to one place. Such a
/// view is a `value` error ([`ProjectError::OutputOverlap`]).
///
/// ```
/// use einrow::project::{plan_einsum, Concrete, Executable, View, ViewMut};
/// let plan = plan_einsum("ij=>ij", &[&Concrete::output(&[2, 2])])?;
/// let (a, mut out) = ([1.0f32, 2.0, 3.0, 4.0], [0.0f32; 6]);
/// // Write the 2x2 result into the last two columns of a 2x3 buffer.
/// let mut block = ViewMut::strided(&mut out, &[2, 2], &[3, 1], 1)?;
/// Executable::compile(&plan)?.run_views(&[View::contiguous(&a, &[2, 2])?], &mut block)?;
/// assert_eq!(out, [0.0, 1.0, 2.0, 0.0, 3.0, 4.0]);
/// assert!(ViewMut::strided(&mut out, &[2, 3], &[0, 1], 0).is_err(), "stride 0 on an output");
/// assert!(ViewMut::strided(&mut out, &[2, 2], &[1, 1], 0).is_err(), "(0, 1) and (1, 0) meet");
/// # Ok::<(), einrow::project::ProjectError>(())
/// ```
#[derive(Debug)]
pub struct ViewMut<'a, T> {
    pub(super) data: &'a mut [T],
    pub(super) layout: Strided,
}

impl<'a, T> ViewMut<'a, T> {
    /// A row-major array of `sizes` filling `data` exactly (an `elems` error otherwise).
    pub fn contiguous(data: &'a mut [T], sizes: &[u64]) -> Result<ViewMut<'a, T>, ProjectError> {
        let (layout, n) = Strided::contiguous(sizes)?;
        check_len(n, data.len(), sizes)?;
        Ok(ViewMut { data, layout })
    }

    /// A view of `sizes` with element `strides` from `offset`.
    pub fn strided(
        data: &'a mut [T],
        sizes: &[u64],
        strides: &[isize],
        offset: usize,
    ) -> Result<ViewMut<'a, T>, ProjectError> {
        let layout = Strided::new(sizes, strides, offset, data.len())?;
        if let Some(axis) = crate::tensor::overlapping_axis(&layout.dims, &layout.strides) {
            let (size, stride) = (layout.dims[axis], layout.strides[axis]);
            return Err(ProjectError::OutputOverlap { axis, size, stride });
        }
        Ok(ViewMut { data, layout })
    }

    /// The sizes of the axes.
    pub fn sizes(&self) -> Vec<u64> {
        self.layout.sizes().collect()
    }

    /// The slice viewed.
    pub fn data(&self) -> &[T] {
        self.data
    }
}

fn check_len(n: usize, len: usize, sizes: &[u64]) -> Result<(), ProjectError> {
    if n == len {
        return Ok(());
    }
    Err(ProjectError::Data(format!("sizes {sizes:?} hold {n} elements but the slice has {len}")))
}

#[cfg(test)]
mod tests {
    use super::{View, ViewMut};

    #[test]
    fn addresses_in_view_order() {
        let data: Vec<u32> = (0..12).collect();
        let v = View::strided(&data, &[2, 3], &[1, 4], 1).expect("fits");
        let mut seen = Vec::new();
        v.layout.for_each_address(|a| seen.push(a));
        assert_eq!(seen, [1, 5, 9, 2, 6, 10]);
        let back = View::strided(&data, &[3], &[-4], 8).expect("fits");
        let mut seen = Vec::new();
        back.layout.for_each_address(|a| seen.push(a));
        assert_eq!(seen, [8, 4, 0]);
    }

    #[test]
    fn bad_views_are_errors() {
        let mut data = [0u8; 6];
        assert!(View::contiguous(&data, &[2, 4]).is_err());
        assert!(View::strided(&data, &[2], &[1, 1], 0).is_err());
        assert!(View::strided(&data, &[2], &[-1], 0).is_err());
        assert!(View::contiguous(&data, &[u64::MAX, 2]).is_err());
        assert!(ViewMut::strided(&mut data, &[2, 3], &[0, 1], 0).is_err());
        assert!(ViewMut::strided(&mut data, &[1, 3], &[0, 1], 0).is_ok());
        assert!(ViewMut::strided(&mut data, &[0, 3], &[0, 1], 0).is_ok());
        assert!(ViewMut::strided(&mut data, &[2, 2], &[1, 1], 0).is_err());
        assert!(ViewMut::strided(&mut data, &[2, 3], &[3, 2], 0).is_err(), "reaches 7 of 6");
        assert!(View::contiguous(&data, &[0, 5]).is_err());
        assert!(View::strided(&data, &[0, 5], &[100, 100], 0).is_ok());
    }
}
