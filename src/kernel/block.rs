//! Inner-loop kernels over one run of points along the innermost loop.
//!
//! Every input of a run is either a contiguous slice or a single broadcast value ([`Src`]);
//! the output is a contiguous slice or one element that the whole run reduces into ([`Dst`]).
//! Strided operands are gathered into / scattered from scratch slices by the executor, so
//! these loops are plain slice loops the compiler vectorises. Reductions into one element
//! keep [`LANES`] independent partial results per stream and, for long runs, [`STREAMS`]
//! streams over separate halves of the run (sixteen independent sums in all, so that the adds'
//! latency never limits a sum read from memory; on the benchmark machine two streams read a
//! 96 MB sum about 2% faster than four, and a 16k-element one in cache at 106 GB/s against 77
//! in a standalone loop of this shape). This reassociates sums the way numpy's pairwise sums
//! do.

use super::ops::{AccOp, Accum, CombOp};
use super::scalar::Scalar;

/// Independent partial results in a reduction.
pub const LANES: usize = 8;
/// Independent sequential streams in a long reduction.
pub const STREAMS: usize = 2;

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
            *r = reduce::<T, A>(*r, x.len(), |i| lanes(x, i), |i| x[i]);
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
                let get8 = |i| {
                    let (a, b) = (lanes(x, i), lanes(y, i));
                    std::array::from_fn(|k| C::comb(a[k], b[k]))
                };
                *r = reduce::<T, A>(*r, m, get8, |i| C::comb(x[i], y[i]));
            }
            (Src::Slice(x), Src::Scalar(b)) => {
                let x = &x[..n.min(x.len())];
                let get8 = |i| lanes(x, i).map(|a| C::comb(a, b));
                *r = reduce::<T, A>(*r, x.len(), get8, |i| C::comb(x[i], b));
            }
            (Src::Scalar(a), Src::Slice(y)) => {
                let y = &y[..n.min(y.len())];
                let get8 = |i| lanes(y, i).map(|b| C::comb(a, b));
                *r = reduce::<T, A>(*r, y.len(), get8, |i| C::comb(a, y[i]));
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

/// `x[i..i + LANES]` as an array (`i + LANES ≤ x.len()`).
#[inline(always)]
fn lanes<T: Scalar>(x: &[T], i: usize) -> [T; LANES] {
    <[T; LANES]>::try_from(&x[i..i + LANES]).unwrap_or([T::ZERO; LANES])
}

/// Folds the values `get1(0..n)` into `init`; `get8(i)` gives `get1(i..i + LANES)` at once.
/// Long runs use [`STREAMS`] streams of [`LANES`] partial results, medium ones one stream;
/// `Store` keeps the last value.
#[inline(always)]
fn reduce<T: Scalar, A: AccOp<T>>(
    init: T,
    n: usize,
    get8: impl Fn(usize) -> [T; LANES],
    get1: impl Fn(usize) -> T,
) -> T {
    if n == 0 {
        return init;
    }
    if A::KIND == Accum::Store {
        return get1(n - 1);
    }
    if n >= 512 * STREAMS {
        streams::<T, A, STREAMS>(init, n, get8, get1)
    } else if n >= 2 * LANES {
        streams::<T, A, 1>(init, n, get8, get1)
    } else {
        (0..n).fold(init, |r, k| A::acc(r, get1(k)))
    }
}

/// `S` streams over consecutive parts of the run, each with `LANES` partial results.
#[inline(always)]
fn streams<T: Scalar, A: AccOp<T>, const S: usize>(
    init: T,
    n: usize,
    get8: impl Fn(usize) -> [T; LANES],
    get1: impl Fn(usize) -> T,
) -> T {
    let part = n / S / LANES * LANES;
    let mut acc: [[T; LANES]; S] = std::array::from_fn(|p| get8(p * part));
    let mut i = LANES;
    while i < part {
        for (p, a) in acc.iter_mut().enumerate() {
            let c = get8(p * part + i);
            for k in 0..LANES {
                a[k] = A::acc(a[k], c[k]);
            }
        }
        i += LANES;
    }
    let mut l = acc[0];
    for a in &acc[1..] {
        for k in 0..LANES {
            l[k] = A::acc(l[k], a[k]);
        }
    }
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for k in 0..width {
            l[k] = A::acc(l[k], l[k + width]);
        }
    }
    (S * part..n).fold(A::acc(init, l[0]), |r, k| A::acc(r, get1(k)))
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
        let long: Vec<f64> = (0..10_001).map(|k| (k % 7) as f64).collect();
        for n in [0, 5, 17, 100, 2047, 2048, 10_001] {
            let mut r = 0.5;
            unary::<f64, acc::Add>(Src::Slice(&long), Dst::Reduce(&mut r), n);
            assert_eq!(r, 0.5 + long[..n].iter().sum::<f64>(), "sum of {n}");
            let mut d = 0.0;
            binary::<f64, acc::Add, comb::Mul>(
                Src::Slice(&long),
                Src::Scalar(2.0),
                Dst::Reduce(&mut d),
                n,
            );
            assert_eq!(d, 2.0 * long[..n].iter().sum::<f64>(), "scaled sum of {n}");
            let mut m = f64::NEG_INFINITY;
            unary::<f64, acc::Max>(Src::Slice(&long), Dst::Reduce(&mut m), n);
            assert_eq!(
                m,
                long[..n].iter().copied().fold(f64::NEG_INFINITY, f64::max),
                "max of {n}"
            );
        }
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
