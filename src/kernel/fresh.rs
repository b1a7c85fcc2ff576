//! Fresh outputs written by the threads that compute them.
//!
//! A fresh output is allocated without initialisation and cut into consecutive pieces; each
//! worker writes its piece front to back through a [`Filler`], which only ever appends and
//! counts what it wrote. When every piece reports itself full, the vector's length is set.
//! No pass initialises the buffer first, and the pages of a large allocation are first
//! touched by the worker that computes their values (in parallel, and on its own memory node).
//!
//! # Unsafe
//!
//! [`into_full`] calls `Vec::set_len`; it requires that the first `len` elements of the
//! spare capacity are initialised. They are: the pieces handed to the fillers are disjoint,
//! consecutive and cover `0..len` (built by `split_at_mut` from the front, checked against
//! the ranges), a [`Filler`] writes a slot before it counts it and never moves backwards, and
//! `into_full` runs only after every filler reported `filled == piece length`.

use std::mem::MaybeUninit;
use std::ops::Range;

use rayon::prelude::*;
use smallvec::SmallVec;

use super::error::KernelError;
use crate::tensor::hugepage;

/// Appends values into a piece of uninitialised slots; `filled` slots at the front are
/// written.
pub struct Filler<'a, T> {
    slots: &'a mut [MaybeUninit<T>],
    filled: usize,
}

impl<'a, T: Copy> Filler<'a, T> {
    /// A filler of the (uninitialised) `slots`.
    pub fn new(slots: &'a mut [MaybeUninit<T>]) -> Filler<'a, T> {
        Filler { slots, filled: 0 }
    }

    /// Writes the values of `values` into the next slots (as many as there are values, or an
    /// error when they do not fit).
    #[inline(always)]
    pub fn extend<I: ExactSizeIterator<Item = T>>(&mut self, values: I) -> Result<(), KernelError> {
        let n = values.len();
        let end = self.filled.checked_add(n).ok_or_else(overfull)?;
        let Some(dst) = self.slots.get_mut(self.filled..end) else { return Err(overfull()) };
        let mut wrote = 0;
        for (d, v) in dst.iter_mut().zip(values) {
            d.write(v);
            wrote += 1;
        }
        self.filled += wrote;
        Ok(())
    }

    /// Copies `values` into the next slots.
    #[inline(always)]
    pub fn extend_from_slice(&mut self, values: &[T]) -> Result<(), KernelError> {
        self.extend(values.iter().copied())
    }

    /// Slots not written yet.
    pub fn remaining(&self) -> usize {
        self.slots.len() - self.filled
    }

    /// Whether every slot is written.
    pub fn is_full(&self) -> bool {
        self.filled == self.slots.len()
    }
}

fn overfull() -> KernelError {
    KernelError::Unsupported { message: "internal: a fresh output received too many values".into() }
}

fn underfull() -> KernelError {
    KernelError::Unsupported {
        message: "internal: a fresh output was left partly unwritten".into(),
    }
}

/// An empty vector with room for `len` elements (an error rather than an abort when the
/// system cannot provide it; advised to use huge pages when large).
pub fn room<T>(len: usize) -> Result<Vec<T>, KernelError> {
    Ok(hugepage::try_with_capacity(len)?)
}

/// A vector of `len` elements computed by `fill`, called once per piece (in parallel) with
/// the piece's index and a filler of its slots; `ranges` are the pieces, consecutive from 0
/// to `len`.
pub fn build<T, F>(len: usize, ranges: &[Range<usize>], fill: F) -> Result<Vec<T>, KernelError>
where
    T: Copy + Send + Sync,
    F: Fn(usize, &mut Filler<'_, T>) -> Result<(), KernelError> + Sync,
{
    let mut v = room::<T>(len)?;
    let spare = v.spare_capacity_mut().get_mut(..len).ok_or_else(underfull)?;
    let mut pieces: SmallVec<[&mut [MaybeUninit<T>]; 4]> = SmallVec::with_capacity(ranges.len());
    let mut rest = spare;
    let mut at = 0;
    for r in ranges {
        if r.start != at || r.end < r.start {
            return Err(underfull());
        }
        let (piece, tail) = rest.split_at_mut(r.len().min(rest.len()));
        rest = tail;
        at = r.end;
        pieces.push(piece);
    }
    if at != len || !rest.is_empty() {
        return Err(underfull());
    }
    let one = |(k, piece): (usize, &mut [MaybeUninit<T>])| {
        let mut f = Filler::new(piece);
        fill(k, &mut f)?;
        if f.is_full() {
            Ok(())
        } else {
            Err(underfull())
        }
    };
    if pieces.len() <= 1 {
        pieces.into_iter().enumerate().try_for_each(one)?;
    } else {
        pieces.into_vec().into_par_iter().enumerate().try_for_each(one)?;
    }
    Ok(into_full(v, len))
}

/// `v` with its length set to `len`, every one of whose first `len` slots the caller wrote
/// (see the module's safety notes).
fn into_full<T>(mut v: Vec<T>, len: usize) -> Vec<T> {
    debug_assert!(len <= v.capacity());
    // SAFETY: `build` calls this only after every piece of `0..len` (consecutive, disjoint,
    // covering) reported full; a `Filler` counts a slot only after writing it.
    unsafe { v.set_len(len) };
    v
}

/// `len` copies of `value`, written by `threads` workers over consecutive pieces.
pub fn filled<T: Copy + Send + Sync>(
    len: usize,
    value: T,
    threads: usize,
) -> Result<Vec<T>, KernelError> {
    let ranges = even_ranges(len, threads);
    build(len, &ranges, |_, f| f.extend(std::iter::repeat_n(value, f.remaining())))
}

/// `0..len` cut into `parts` consecutive ranges of nearly equal length (one empty range for
/// `len = 0`).
pub fn even_ranges(len: usize, parts: usize) -> Vec<Range<usize>> {
    let parts = parts.clamp(1, len.max(1));
    (0..parts).map(|c| len * c / parts..len * (c + 1) / parts).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_must_cover_the_buffer() {
        let ok = build(10, &even_ranges(10, 3), |k, f| {
            let n = f.remaining();
            f.extend(std::iter::repeat_n(k as f64, n))
        });
        assert_eq!(ok.unwrap(), vec![0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0]);
        // A piece left short, a piece overfilled, ranges with a gap or not reaching the end.
        let short = build::<f64, _>(4, std::slice::from_ref(&(0..4)), |_, f| {
            f.extend_from_slice(&[1.0, 2.0])
        });
        assert!(short.is_err());
        let over = build::<f64, _>(2, std::slice::from_ref(&(0..2)), |_, f| {
            f.extend_from_slice(&[1.0, 2.0, 3.0])
        });
        assert!(over.is_err());
        assert!(build::<f64, _>(4, &[0..1, 2..4], |_, _| Ok(())).is_err());
        assert!(build::<f64, _>(4, std::slice::from_ref(&(0..3)), |_, _| Ok(())).is_err());
        assert!(build::<f64, _>(0, &even_ranges(0, 4), |_, _| Ok(())).unwrap().is_empty());
    }

    #[test]
    fn parallel_fill() {
        for (len, threads) in [(0, 2), (1, 4), (1000, 3), (1 << 20, 2)] {
            let v = filled(len, 7.5f32, threads).unwrap();
            assert_eq!((v.len(), v.iter().all(|&x| x == 7.5)), (len, true));
        }
    }
}
