//! Checked size arithmetic: element counts, row-major strides and address ranges.
//!
//! Dimensions are at most [`MAX_DIM`] (2^62); element counts and strides must fit in `isize`.
//! Every function here returns an error instead of overflowing.

use smallvec::SmallVec;

use super::error::{Result, TensorError};

/// The largest dimension einrow accepts: 2^62.
pub const MAX_DIM: u64 = 1 << 62;

/// A shape: one size per axis.
pub type Dims = SmallVec<[usize; 6]>;
/// Strides in elements, one per axis (negative for reversed axes, 0 for broadcast axes).
pub type Strides = SmallVec<[isize; 6]>;

/// Checks that a dimension is at most [`MAX_DIM`].
pub fn check_dim(dim: u64) -> Result<usize> {
    if dim > MAX_DIM {
        return Err(TensorError::DimTooLarge { dim });
    }
    usize::try_from(dim).map_err(|_| TensorError::Overflow { what: "a dimension" })
}

/// The number of elements of `shape`, checked to fit in `isize` (so addresses do too).
pub fn numel(shape: &[usize]) -> Result<usize> {
    let mut n: usize = 1;
    for &d in shape {
        check_dim(d as u64)?;
        n = n.checked_mul(d).ok_or(TensorError::Overflow { what: "an element count" })?;
    }
    // A shape with a zero dimension holds nothing, whatever the other sizes are; still every
    // size must be valid on its own, which the loop checked.
    if isize::try_from(n).is_err() {
        return Err(TensorError::Overflow { what: "an element count" });
    }
    Ok(n)
}

/// Row-major (C order) strides of `shape`, in elements.
///
/// For shapes with a zero dimension the strides are those of the same shape with the zero
/// replaced by one, so they stay meaningful.
pub fn row_major(shape: &[usize]) -> Result<Strides> {
    let mut strides: Strides = SmallVec::from_elem(0, shape.len());
    let mut acc: isize = 1;
    for (s, &d) in strides.iter_mut().zip(shape).rev() {
        *s = acc;
        let d = isize::try_from(d.max(1)).map_err(|_| TensorError::Overflow { what: "strides" })?;
        acc = acc.checked_mul(d).ok_or(TensorError::Overflow { what: "strides" })?;
    }
    Ok(strides)
}

/// Row-major strides computed with the exact sizes (a zero size gives zero strides to its
/// left), as Nervana computes them; `None` on overflow.
#[cfg(feature = "kernel")]
pub fn row_major_exact(shape: &[usize]) -> Option<Strides> {
    let mut strides: Strides = SmallVec::from_elem(0, shape.len());
    let mut acc: isize = 1;
    for (s, &d) in strides.iter_mut().zip(shape).rev() {
        *s = acc;
        acc = acc.checked_mul(isize::try_from(d).ok()?)?;
    }
    Some(strides)
}

/// The lowest and highest element address a strided map reaches, or `None` when it reaches
/// none (a zero dimension). Computed in `i128`, so it cannot overflow for valid inputs.
pub fn address_range(shape: &[usize], strides: &[isize], offset: i128) -> Option<(i128, i128)> {
    if shape.contains(&0) {
        return None;
    }
    let (mut lo, mut hi) = (offset, offset);
    for (&d, &s) in shape.iter().zip(strides) {
        let span = (d as i128 - 1) * s as i128;
        if span < 0 {
            lo += span;
        } else {
            hi += span;
        }
    }
    Some((lo, hi))
}

/// Multiplies two `isize` values, reporting overflow as [`TensorError::Overflow`].
#[cfg(feature = "kernel")]
pub fn mul_isize(a: isize, b: isize, what: &'static str) -> Result<isize> {
    a.checked_mul(b).ok_or(TensorError::Overflow { what })
}

/// Adds two `isize` values, reporting overflow as [`TensorError::Overflow`].
#[cfg(feature = "kernel")]
pub fn add_isize(a: isize, b: isize, what: &'static str) -> Result<isize> {
    a.checked_add(b).ok_or(TensorError::Overflow { what })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numel_checks() {
        assert_eq!(numel(&[]), Ok(1));
        assert_eq!(numel(&[2, 3, 4]), Ok(24));
        assert_eq!(numel(&[0, 5]), Ok(0));
        assert!(matches!(numel(&[1 << 62, 4]), Err(TensorError::Overflow { .. })));
        assert!(numel(&[(1 << 62) + 1]).is_err());
        assert_eq!(numel(&[1 << 62]), Ok(1 << 62));
    }

    #[test]
    fn row_major_strides() {
        assert_eq!(row_major(&[5, 3, 2]).unwrap().as_slice(), &[6, 2, 1]);
        assert_eq!(row_major(&[]).unwrap().as_slice(), &[] as &[isize]);
        assert_eq!(row_major(&[2, 0, 3]).unwrap().as_slice(), &[3, 3, 1]);
    }

    #[test]
    fn ranges() {
        assert_eq!(address_range(&[3, 4], &[4, 1], 0), Some((0, 11)));
        assert_eq!(address_range(&[3, 4], &[-4, 1], 8), Some((0, 11)));
        assert_eq!(address_range(&[3, 0], &[4, 1], 0), None);
        assert_eq!(address_range(&[], &[], 7), Some((7, 7)));
    }
}
