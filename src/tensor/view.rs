//! View operations on a [`Layout`]: every one is stride/offset arithmetic, no data moves.
//!
//! Operations that cannot be a view (a reshape whose strides do not compose) say so by
//! returning `None`; the [`Tensor`](super::Tensor) methods then copy.

use smallvec::SmallVec;

use super::error::{Result, TensorError};
use super::layout::Layout;
use super::size::{self, Dims, Strides};

/// A Python-style slice `start:stop:step` (negative positions count from the end; missing
/// bounds mean the whole axis in the direction of the step).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceSpec {
    /// First position, `None` for the start in the step's direction.
    pub start: Option<i64>,
    /// Position to stop before, `None` for the end in the step's direction.
    pub stop: Option<i64>,
    /// The step; never 0.
    pub step: i64,
}

impl SliceSpec {
    /// The full slice `::step`.
    pub fn full(step: i64) -> SliceSpec {
        SliceSpec { start: None, stop: None, step }
    }

    /// Resolves against an axis of length `len`: the first position and the number of
    /// positions taken, as Python's `slice.indices` does.
    pub fn resolve(&self, len: usize) -> Result<(i128, usize)> {
        if self.step == 0 {
            return Err(TensorError::ZeroStep);
        }
        let n = len as i128;
        let step = self.step as i128;
        let norm = |x: i64, lo: i128, hi: i128| {
            let x = x as i128;
            let x = if x < 0 { x + n } else { x };
            x.clamp(lo, hi)
        };
        let (start, stop) = if step > 0 {
            (self.start.map_or(0, |s| norm(s, 0, n)), self.stop.map_or(n, |s| norm(s, 0, n)))
        } else {
            (
                self.start.map_or(n - 1, |s| norm(s, -1, n - 1)),
                self.stop.map_or(-1, |s| norm(s, -1, n - 1)),
            )
        };
        let count = if step > 0 {
            if stop > start {
                (stop - start + step - 1) / step
            } else {
                0
            }
        } else if start > stop {
            (start - stop + (-step) - 1) / (-step)
        } else {
            0
        };
        Ok((start, count as usize))
    }
}

/// Resolves a possibly negative index against an axis of length `len`.
pub fn resolve_index(index: i64, len: usize) -> Result<usize> {
    let i = index as i128;
    let j = if i < 0 { i + len as i128 } else { i };
    if j < 0 || j >= len as i128 {
        return Err(TensorError::IndexOutOfRange { index, len });
    }
    Ok(j as usize)
}

impl Layout {
    fn check_axis(&self, axis: usize) -> Result<()> {
        if axis >= self.rank() {
            return Err(TensorError::AxisOutOfRange { axis, rank: self.rank() });
        }
        Ok(())
    }

    /// The axes reordered: axis `k` of the result is axis `perm[k]` of `self`.
    pub fn permute(&self, perm: &[usize]) -> Result<Layout> {
        let rank = self.rank();
        let mut seen: SmallVec<[bool; 8]> = SmallVec::from_elem(false, rank);
        for &p in perm {
            match seen.get_mut(p) {
                Some(s) if !*s => *s = true,
                _ => return Err(TensorError::NotAPermutation { perm: perm.to_vec(), rank }),
            }
        }
        if perm.len() != rank {
            return Err(TensorError::NotAPermutation { perm: perm.to_vec(), rank });
        }
        Ok(Layout {
            shape: perm.iter().map(|&p| self.shape[p]).collect(),
            strides: perm.iter().map(|&p| self.strides[p]).collect(),
            offset: self.offset,
        })
    }

    /// All axes in reverse order.
    pub fn transposed(&self) -> Layout {
        Layout {
            shape: self.shape.iter().rev().copied().collect(),
            strides: self.strides.iter().rev().copied().collect(),
            offset: self.offset,
        }
    }

    /// Axes `a` and `b` exchanged.
    pub fn swap_axes(&self, a: usize, b: usize) -> Result<Layout> {
        self.check_axis(a)?;
        self.check_axis(b)?;
        let mut out = self.clone();
        out.shape.swap(a, b);
        out.strides.swap(a, b);
        Ok(out)
    }

    /// Axis `axis` fixed at `index` (negative from the end) and dropped.
    pub fn index(&self, axis: usize, index: i64) -> Result<Layout> {
        self.check_axis(axis)?;
        let i = resolve_index(index, self.shape[axis])?;
        let offset = shifted(self.offset, i as i128 * self.strides[axis] as i128)?;
        let mut out = self.clone();
        out.shape.remove(axis);
        out.strides.remove(axis);
        out.offset = offset;
        Ok(out)
    }

    /// Axis `axis` sliced by `spec` (any non-zero step).
    pub fn slice(&self, axis: usize, spec: SliceSpec) -> Result<Layout> {
        self.check_axis(axis)?;
        let (start, count) = spec.resolve(self.shape[axis])?;
        let stride = size::mul_isize(self.strides[axis], spec.step as isize, "a slice stride")?;
        let mut out = self.clone();
        // The start moves the offset even when the slice is empty (Python's `slice.indices`
        // start, as ngraph adds it); an empty slice whose start would put the offset before
        // the buffer keeps the old one, since nothing is ever read through it.
        match shifted(self.offset, start * self.strides[axis] as i128) {
            Ok(offset) => out.offset = offset,
            Err(_) if count == 0 => {}
            Err(e) => return Err(e),
        }
        out.shape[axis] = count;
        out.strides[axis] = stride;
        Ok(out)
    }

    /// numpy broadcasting to `shape`: axes aligned from the right, size-1 or missing axes get
    /// stride 0, other sizes must be equal.
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Layout> {
        let err = || TensorError::Broadcast { from: self.shape.to_vec(), to: shape.to_vec() };
        if shape.len() < self.rank() {
            return Err(err());
        }
        size::numel(shape)?;
        let lead = shape.len() - self.rank();
        let mut strides: Strides = SmallVec::from_elem(0, shape.len());
        for (k, (&d, &s)) in self.shape.iter().zip(&self.strides).enumerate() {
            let t = shape[lead + k];
            strides[lead + k] = match (d, t) {
                _ if d == t => s,
                (1, _) => 0,
                _ => return Err(err()),
            };
        }
        Ok(Layout { shape: shape.into(), strides, offset: self.offset })
    }

    /// A size-1 axis inserted before position `pos` (`pos == rank` appends).
    pub fn insert_axis(&self, pos: usize) -> Result<Layout> {
        if pos > self.rank() {
            return Err(TensorError::AxisOutOfRange { axis: pos, rank: self.rank() });
        }
        let mut out = self.clone();
        out.shape.insert(pos, 1);
        out.strides.insert(pos, 0);
        Ok(out)
    }

    /// The diagonal of axes `a` and `b` (equal sizes): axis `a` walks both at once, axis `b`
    /// is removed.
    pub fn diagonal(&self, a: usize, b: usize) -> Result<Layout> {
        self.check_axis(a)?;
        self.check_axis(b)?;
        if a == b || self.shape[a] != self.shape[b] {
            return Err(TensorError::Value {
                message: format!(
                    "a diagonal needs two distinct axes of equal size, got axes {a} ({}) and {b} ({})",
                    self.shape[a], self.shape[b]
                ),
            });
        }
        let mut out = self.clone();
        out.strides[a] = size::add_isize(self.strides[a], self.strides[b], "a diagonal stride")?;
        out.shape.remove(b);
        out.strides.remove(b);
        Ok(out)
    }

    /// A reshape without copying when the strides compose (numpy's no-copy rule), `None` when
    /// a copy is needed. The element count must not change.
    pub fn reshape(&self, shape: &[usize]) -> Result<Option<Layout>> {
        let (from_elems, to_elems) = (self.numel(), size::numel(shape)?);
        if from_elems != to_elems {
            let (from, to) = (self.shape.to_vec(), shape.to_vec());
            return Err(TensorError::Reshape { from, from_elems, to, to_elems });
        }
        if from_elems == 0 {
            let strides = size::row_major(shape)?;
            return Ok(Some(Layout { shape: shape.into(), strides, offset: self.offset }));
        }
        Ok(reshape_strides(&self.shape, &self.strides, shape).map(|strides| Layout {
            shape: shape.into(),
            strides,
            offset: self.offset,
        }))
    }
}

/// New strides for a no-copy reshape of a non-empty view, or `None`.
fn reshape_strides(old: &[usize], old_strides: &[isize], new: &[usize]) -> Option<Strides> {
    let (od, os): (Dims, Strides) =
        old.iter().zip(old_strides).filter(|(&d, _)| d != 1).map(|(&d, &s)| (d, s)).unzip();
    let mut ns: Strides = SmallVec::from_elem(1, new.len());
    let (mut oi, mut ni) = (0, 0);
    while ni < new.len() && oi < od.len() {
        let (mut oj, mut nj) = (oi + 1, ni + 1);
        let (mut op, mut np) = (od[oi], new[ni]);
        while np != op {
            if np < op {
                np = np.checked_mul(*new.get(nj)?)?;
                nj += 1;
            } else {
                op = op.checked_mul(*od.get(oj)?)?;
                oj += 1;
            }
        }
        for ok in oi..oj - 1 {
            if Some(os[ok]) != os[ok + 1].checked_mul(od[ok + 1] as isize) {
                return None;
            }
        }
        ns[nj - 1] = os[oj - 1];
        for nk in (ni + 1..nj).rev() {
            ns[nk - 1] = ns[nk].checked_mul(new[nk] as isize)?;
        }
        ni = nj;
        oi = oj;
    }
    Some(ns)
}

/// `offset + delta` as an address, which must not be negative.
fn shifted(offset: usize, delta: i128) -> Result<usize> {
    let a = offset as i128 + delta;
    usize::try_from(a).map_err(|_| TensorError::OutOfStorage { reach: a, len: 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(l: &Layout) -> (Vec<usize>, Vec<isize>, usize) {
        (l.shape().to_vec(), l.strides().to_vec(), l.offset())
    }

    fn check_slice(len: usize, spec: (Option<i64>, Option<i64>, i64), expected: (i128, usize)) {
        let s = SliceSpec { start: spec.0, stop: spec.1, step: spec.2 };
        assert_eq!(s.resolve(len).unwrap(), expected, "{spec:?} on {len}");
    }

    #[test]
    fn python_slices() {
        check_slice(5, (None, None, 1), (0, 5));
        check_slice(5, (None, None, -1), (4, 5));
        check_slice(5, (Some(1), Some(4), 1), (1, 3));
        check_slice(5, (Some(-2), None, 1), (3, 2));
        check_slice(5, (Some(0), Some(5), 2), (0, 3));
        check_slice(5, (Some(4), Some(0), -2), (4, 2));
        check_slice(5, (Some(10), None, 1), (5, 0));
        check_slice(5, (Some(3), Some(1), 1), (3, 0));
        check_slice(0, (None, None, -1), (-1, 0));
        assert_eq!(SliceSpec::full(0).resolve(3), Err(TensorError::ZeroStep));
    }

    #[test]
    fn views() {
        let l = Layout::contiguous(&[5, 3]).unwrap();
        assert_eq!(
            parts(
                &l.slice(0, SliceSpec { start: Some(1), stop: Some(4), step: 1 })
                    .unwrap()
                    .index(1, 2)
                    .unwrap()
            ),
            (vec![3], vec![3], 5)
        );
        assert_eq!(parts(&l.slice(0, SliceSpec::full(-1)).unwrap()), (vec![5, 3], vec![-3, 1], 12));
        assert_eq!(parts(&l.transposed()), (vec![3, 5], vec![1, 3], 0));
        assert_eq!(parts(&l.permute(&[1, 0]).unwrap()), (vec![3, 5], vec![1, 3], 0));
        assert!(l.permute(&[0, 0]).is_err());
        assert!(l.permute(&[0]).is_err());
        assert!(l.index(0, 5).is_err());
        assert_eq!(parts(&l.index(0, -1).unwrap()), (vec![3], vec![1], 12));
        assert_eq!(parts(&l.broadcast_to(&[2, 5, 3]).unwrap()), (vec![2, 5, 3], vec![0, 3, 1], 0));
        assert!(l.broadcast_to(&[5, 4]).is_err());
        let sq = Layout::contiguous(&[4, 4]).unwrap();
        assert_eq!(parts(&sq.diagonal(0, 1).unwrap()), (vec![4], vec![5], 0));
        assert!(l.diagonal(0, 1).is_err());
    }

    #[test]
    fn reshapes() {
        let l = Layout::contiguous(&[2, 3, 4]).unwrap();
        assert_eq!(parts(&l.reshape(&[6, 4]).unwrap().unwrap()), (vec![6, 4], vec![4, 1], 0));
        assert_eq!(
            parts(&l.reshape(&[2, 1, 12]).unwrap().unwrap()),
            (vec![2, 1, 12], vec![12, 12, 1], 0)
        );
        let t = l.permute(&[2, 0, 1]).unwrap(); // shape [4,2,3], strides [1,12,4]
        assert_eq!(parts(&t.reshape(&[4, 6]).unwrap().unwrap()), (vec![4, 6], vec![1, 4], 0));
        assert_eq!(t.reshape(&[24]).unwrap(), None);
        assert!(l.reshape(&[5, 5]).is_err());
        let b = Layout::contiguous(&[3]).unwrap().broadcast_to(&[2, 3]).unwrap();
        assert_eq!(b.reshape(&[6]).unwrap(), None);
        assert_eq!(
            parts(&b.reshape(&[2, 1, 3]).unwrap().unwrap()),
            (vec![2, 1, 3], vec![0, 3, 1], 0)
        );
    }
}
