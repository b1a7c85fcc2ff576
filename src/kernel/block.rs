//! Inner-loop kernels over one run of points along the innermost loop.
//!
//! Every input of a run is either a contiguous slice or a single broadcast value ([`Src`]);
//! the output is a contiguous slice or one element that the whole run reduces into ([`Dst`]).
//! Strided operands are gathered into / scattered from scratch slices by the executor, so
//! these loops are plain slice loops the compiler vectorises. Reductions into one element
//! use [`LANES`] independent partial results (the same reassociation numpy's pairwise sums
//! make).

use super::ops::{AccOp, Accum, CombOp};
use super::scalar::Scalar;

/// Independent partial results in a reduction.
pub const LANES: usize = 16;

/// One input of a run.
#[derive(Clone, Copy, Debug)]
pub enum Src<'a, T> {
    /// One value per point.
    Slice(&'a [T]),
    /// The same value at every point.
    Scalar(T),
}

/// The output of a run.
#[derive(Debug)]
pub enum Dst<'a, T> {
    /// One element per point.
    Slice(&'a mut [T]),
    /// One element for the whole run.
    Reduce(&'a mut T),
}

/// A unary run of `n` points: `out ⊕= x`.
#[inline]
pub fn unary<T: Scalar, A: AccOp<T>>(x: Src<'_, T>, dst: Dst<'_, T>, n: usize) {
    match (dst, x) {
        (Dst::Slice(o), Src::Slice(x)) => {
            o.iter_mut().zip(x).for_each(|(o, &x)| *o = A::acc(*o, x))
        }
        (Dst::Slice(o), Src::Scalar(x)) => o.iter_mut().for_each(|o| *o = A::acc(*o, x)),
        (Dst::Reduce(r), Src::Slice(x)) => {
            let x = &x[..n.min(x.len())];
            *r = reduce::<T, A>(
                *r,
                chunks1(x).copied(),
                x[x.len() / LANES * LANES..].iter().copied(),
            );
        }
        (Dst::Reduce(r), Src::Scalar(x)) => repeat::<T, A>(x, n, r),
    }
}

/// A binary run of `n` points: `out ⊕= x ⊗ y`.
#[inline]
pub fn binary<T: Scalar, A: AccOp<T>, C: CombOp<T>>(
    x: Src<'_, T>,
    y: Src<'_, T>,
    dst: Dst<'_, T>,
    n: usize,
) {
    match dst {
        Dst::Slice(o) => match (x, y) {
            (Src::Slice(x), Src::Slice(y)) => {
                for ((o, &a), &b) in o.iter_mut().zip(x).zip(y) {
                    *o = A::acc(*o, C::comb(a, b));
                }
            }
            (Src::Slice(x), Src::Scalar(b)) => {
                o.iter_mut().zip(x).for_each(|(o, &a)| *o = A::acc(*o, C::comb(a, b)));
            }
            (Src::Scalar(a), Src::Slice(y)) => {
                o.iter_mut().zip(y).for_each(|(o, &b)| *o = A::acc(*o, C::comb(a, b)));
            }
            (Src::Scalar(a), Src::Scalar(b)) => {
                let v = C::comb(a, b);
                o.iter_mut().for_each(|o| *o = A::acc(*o, v));
            }
        },
        Dst::Reduce(r) => match (x, y) {
            (Src::Slice(x), Src::Slice(y)) => {
                let m = n.min(x.len()).min(y.len());
                let (x, y) = (&x[..m], &y[..m]);
                let lanes = chunks1(x)
                    .zip(chunks1(y))
                    .map(|(a, b)| std::array::from_fn(|k| C::comb(a[k], b[k])));
                let t = m / LANES * LANES;
                let tail = x[t..].iter().zip(&y[t..]).map(|(&a, &b)| C::comb(a, b));
                *r = reduce::<T, A>(*r, lanes, tail);
            }
            (Src::Slice(x), Src::Scalar(b)) => {
                let x = &x[..n.min(x.len())];
                let lanes = chunks1(x).map(|a| std::array::from_fn(|k| C::comb(a[k], b)));
                let tail = x[x.len() / LANES * LANES..].iter().map(|&a| C::comb(a, b));
                *r = reduce::<T, A>(*r, lanes, tail);
            }
            (Src::Scalar(a), Src::Slice(y)) => {
                let y = &y[..n.min(y.len())];
                let lanes = chunks1(y).map(|b| std::array::from_fn(|k| C::comb(a, b[k])));
                let tail = y[y.len() / LANES * LANES..].iter().map(|&b| C::comb(a, b));
                *r = reduce::<T, A>(*r, lanes, tail);
            }
            (Src::Scalar(a), Src::Scalar(b)) => repeat::<T, A>(C::comb(a, b), n, r),
        },
    }
}

/// A run with three or more inputs (folded left to right).
pub fn nary<T: Scalar, A: AccOp<T>, C: CombOp<T>>(xs: &[Src<'_, T>], dst: Dst<'_, T>, n: usize) {
    let at = |k: usize| {
        let mut it = xs.iter().map(|s| match s {
            Src::Slice(v) => v.get(k).copied().unwrap_or(T::ZERO),
            Src::Scalar(v) => *v,
        });
        let first = it.next().unwrap_or(T::ZERO);
        it.fold(first, C::comb)
    };
    match dst {
        Dst::Slice(o) => o.iter_mut().take(n).enumerate().for_each(|(k, o)| *o = A::acc(*o, at(k))),
        Dst::Reduce(r) => {
            for k in 0..n {
                *r = A::acc(*r, at(k));
            }
        }
    }
}

/// `n` accumulations of the same value.
#[inline]
fn repeat<T: Scalar, A: AccOp<T>>(x: T, n: usize, r: &mut T) {
    if n > 0 && A::KIND == Accum::Store {
        *r = x;
        return;
    }
    for _ in 0..n {
        *r = A::acc(*r, x);
    }
}

/// The full `LANES`-wide chunks of `x` as arrays.
#[inline(always)]
fn chunks1<T: Scalar>(x: &[T]) -> impl Iterator<Item = &[T; LANES]> {
    x.chunks_exact(LANES).filter_map(|c| <&[T; LANES]>::try_from(c).ok())
}

/// Folds chunks of `LANES` values (accumulated lane-wise, then pairwise) and a tail into
/// `init`. `Store` keeps the last value.
#[inline(always)]
fn reduce<T: Scalar, A: AccOp<T>>(
    init: T,
    mut chunks: impl Iterator<Item = [T; LANES]>,
    tail: impl Iterator<Item = T>,
) -> T {
    if A::KIND == Accum::Store {
        let last = chunks.last().map(|c| c[LANES - 1]);
        return tail.last().or(last).unwrap_or(init);
    }
    let Some(mut lanes) = chunks.next() else { return tail.fold(init, A::acc) };
    for c in chunks {
        for k in 0..LANES {
            lanes[k] = A::acc(lanes[k], c[k]);
        }
    }
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for k in 0..width {
            lanes[k] = A::acc(lanes[k], lanes[k + width]);
        }
    }
    tail.fold(A::acc(init, lanes[0]), A::acc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::ops::{acc, comb};

    #[test]
    fn reductions_match_sequential() {
        let x: Vec<f64> = (0..100).map(|k| k as f64).collect();
        let mut r = 1.0;
        unary::<f64, acc::Add>(Src::Slice(&x), Dst::Reduce(&mut r), 100);
        assert_eq!(r, 4951.0);
        let mut m = f64::NEG_INFINITY;
        unary::<f64, acc::Max>(Src::Slice(&x), Dst::Reduce(&mut m), 100);
        assert_eq!(m, 99.0);
        let mut d = 0.0;
        binary::<f64, acc::Add, comb::Mul>(
            Src::Slice(&x),
            Src::Slice(&x),
            Dst::Reduce(&mut d),
            100,
        );
        assert_eq!(d, (0..100).map(|k| (k * k) as f64).sum::<f64>());
        let mut s = 0.0;
        binary::<f64, acc::Store, comb::Sub>(
            Src::Slice(&x),
            Src::Scalar(1.0),
            Dst::Reduce(&mut s),
            100,
        );
        assert_eq!(s, 98.0);
    }
}
