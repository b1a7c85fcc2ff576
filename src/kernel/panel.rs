//! [`Panel`]: the rows of a matrix product's panel in the lean path of `prepared.rs`, one row
//! of any length, or rows of 4, 8 or 16 points held in registers across the panel's runs.

use super::ops::{AccOp, CombOp};
use super::prepared::{slice, slice_mut, OPS};
use super::scalar::Scalar;

/// One output row of a matrix product's panel: `m` runs, each one input's element (the
/// input read once per run) combined with a run of the other.
pub(super) struct Panel<'a, T> {
    pub m: usize,
    pub s: [isize; OPS],
    pub x: &'a [T],
    pub y: &'a [T],
    pub at: &'a [isize; OPS],
    pub once_first: bool,
}

impl<'a, T: Scalar> Panel<'a, T> {
    /// The element read once and the run of run `j`.
    #[inline(always)]
    fn operands(&self, j: usize, n: usize) -> Option<(T, &'a [T])> {
        let j = j as isize;
        let (xa, ya) = (self.at[1] + j * self.s[1], self.at[2] + j * self.s[2]);
        Some(match self.once_first {
            true => (*self.x.get(usize::try_from(xa).ok()?)?, slice(self.y, ya, n)?),
            false => (*self.y.get(usize::try_from(ya).ok()?)?, slice(self.x, xa, n)?),
        })
    }

    /// Any row length: the row read and written once per run.
    pub fn rows<A: AccOp<T>, C: CombOp<T>>(&self, row: &mut [T]) -> Option<()> {
        for j in 0..self.m {
            let (a, run) = self.operands(j, row.len())?;
            match self.once_first {
                true => row.iter_mut().zip(run).for_each(|(o, &b)| *o = A::acc(*o, C::comb(a, b))),
                false => row.iter_mut().zip(run).for_each(|(o, &v)| *o = A::acc(*o, C::comb(v, a))),
            }
        }
        Some(())
    }

    /// Four rows of `N` points, row `r` at the addresses `at + r·st`: the rows held in
    /// registers across the panel's runs. The same operations in the same order per element
    /// as [`Panel::rows`].
    #[inline(always)]
    pub fn quad<A: AccOp<T>, C: CombOp<T>, const N: usize>(
        &self,
        out: &mut [T],
        st: &[isize; OPS],
    ) -> Option<()> {
        let mut acc = [[T::ZERO; N]; 4];
        for (r, acc) in acc.iter_mut().enumerate() {
            *acc = slice(out, self.at[0] + r as isize * st[0], N)?.try_into().ok()?;
        }
        let ats: [[isize; OPS]; 4] =
            std::array::from_fn(|r| std::array::from_fn(|k| self.at[k] + r as isize * st[k]));
        for j in 0..self.m {
            for (acc, at) in acc.iter_mut().zip(&ats) {
                let (a, run) = Panel { at, ..*self }.operands(j, N)?;
                let run: &[T; N] = run.try_into().ok()?;
                match self.once_first {
                    true => (0..N).for_each(|k| acc[k] = A::acc(acc[k], C::comb(a, run[k]))),
                    false => (0..N).for_each(|k| acc[k] = A::acc(acc[k], C::comb(run[k], a))),
                }
            }
        }
        for (r, acc) in acc.iter().enumerate() {
            slice_mut(out, self.at[0] + r as isize * st[0], N)?.copy_from_slice(acc);
        }
        Some(())
    }

    /// A row of `N` points (the small products' rows): held in registers across the panel's
    /// runs, read and written once. The same operations in the same order as [`Panel::rows`].
    #[inline(always)]
    pub fn rows_fixed<A: AccOp<T>, C: CombOp<T>, const N: usize>(
        &self,
        row: &mut [T],
    ) -> Option<()> {
        let row: &mut [T; N] = row.try_into().ok()?;
        let mut acc = *row;
        for j in 0..self.m {
            let (a, run) = self.operands(j, N)?;
            let run: &[T; N] = run.try_into().ok()?;
            match self.once_first {
                true => (0..N).for_each(|k| acc[k] = A::acc(acc[k], C::comb(a, run[k]))),
                false => (0..N).for_each(|k| acc[k] = A::acc(acc[k], C::comb(run[k], a))),
            }
        }
        *row = acc;
        Some(())
    }
}
