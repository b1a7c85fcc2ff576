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

use super::operator::Accum;
use super::ops::{AccOp, CombOp};
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
        Dst::Reduce(r) if A::KIND == Accum::Add && n > NARY_BLOCK => {
            // Sums of short blocks, added pairwise (see `streams`).
            let mut cascade = Cascade::<T>::new();
            for start in (0..n).step_by(NARY_BLOCK) {
                let end = n.min(start + NARY_BLOCK);
                cascade.push::<A>((start + 1..end).fold(at(start), |s, k| A::acc(s, at(k))));
            }
            *r = A::acc(*r, cascade.total::<A>());
        }
        Dst::Reduce(r) => {
            for k in 0..n {
                *r = A::acc(*r, at(k));
            }
        }
    }
}

/// `n` accumulations of the same value, by doubling: `x ⊕ x` is `2x`, then `4x`, …, each
/// set bit of `n` adding its power once. Every accumulation is associative on the values it
/// is exact for (wrapping integers, OR, AND, max, min), so the result is the sequential one
/// in O(log n) steps; a float sum rounds at most once per bit of `n` (a long sequential sum
/// of one value drifts by a rounding per step).
#[inline]
fn repeat<T: Scalar, A: AccOp<T>>(x: T, n: usize, r: &mut T) {
    if n > 0 && A::KIND == Accum::Store {
        *r = x;
        return;
    }
    let (mut power, mut left) = (x, n);
    let mut sum: Option<T> = None;
    while left > 0 {
        if left & 1 == 1 {
            sum = Some(sum.map_or(power, |s| A::acc(s, power)));
        }
        left >>= 1;
        if left > 0 {
            power = A::acc(power, power);
        }
    }
    if let Some(s) = sum {
        *r = A::acc(*r, s);
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

/// `S` streams over consecutive parts of the run, each with `LANES` partial results. A sum
/// folds its partial results into a [`Cascade`] every [`BLOCK`] values per lane and starts
/// them again from 0, so that no partial result adds more than `BLOCK` values: the rounding
/// error grows with the logarithm of the run's length, as in numpy's pairwise sums, rather
/// than with the length (a float32 sum of 10^7 values of 0.1 is then within 1e-6 of the
/// exact one instead of 3e-3).
#[inline(always)]
fn streams<T: Scalar, A: AccOp<T>, const S: usize>(
    init: T,
    n: usize,
    get8: impl Fn(usize) -> [T; LANES],
    get1: impl Fn(usize) -> T,
) -> T {
    let part = n / S / LANES * LANES;
    let mut acc: [[T; LANES]; S] = std::array::from_fn(|p| get8(p * part));
    let blocked = A::KIND == Accum::Add;
    let mut cascade = Cascade::<T>::new();
    let mut i = LANES;
    while i < part {
        let end = if blocked { part.min(i + BLOCK * LANES) } else { part };
        while i < end {
            for (p, a) in acc.iter_mut().enumerate() {
                let c = get8(p * part + i);
                for k in 0..LANES {
                    a[k] = A::acc(a[k], c[k]);
                }
            }
            i += LANES;
        }
        if blocked && i < part {
            cascade.push::<A>(fold_lanes::<T, A, S>(&acc));
            acc = [[T::ZERO; LANES]; S];
        }
    }
    let last = fold_lanes::<T, A, S>(&acc);
    let total = if cascade.is_empty() { last } else { cascade.push::<A>(last).total::<A>() };
    (S * part..n).fold(A::acc(init, total), |r, k| A::acc(r, get1(k)))
}

/// Values each partial result of a sum adds before the partial results are folded into the
/// cascade (a fold costs about one add per value of a lane's block: under 2% of a sum).
const BLOCK: usize = 64;

/// Values a sum of three or more inputs adds in sequence before its partial sum joins the
/// cascade (this path keeps a single partial sum).
const NARY_BLOCK: usize = 32;

/// The partial results of every stream folded into one value, pairwise.
#[inline(always)]
fn fold_lanes<T: Scalar, A: AccOp<T>, const S: usize>(acc: &[[T; LANES]; S]) -> T {
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
    l[0]
}

/// A pairwise sum of a stream of values, kept as a binary counter: level `k` holds the sum
/// of `2^k` values when occupied, and a value pushed onto an occupied level is added to it
/// and carried to the next. Each value takes part in at most 64 additions.
pub(super) struct Cascade<T> {
    levels: [T; 64],
    occupied: u64,
}

impl<T: Scalar> Cascade<T> {
    #[inline(always)]
    pub(super) fn new() -> Cascade<T> {
        Cascade { levels: [T::ZERO; 64], occupied: 0 }
    }

    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.occupied == 0
    }

    #[inline(always)]
    pub(super) fn push<A: AccOp<T>>(&mut self, value: T) -> &mut Cascade<T> {
        let mut carry = value;
        let mut k = 0;
        while k < 63 && self.occupied & (1 << k) != 0 {
            carry = A::acc(self.levels[k], carry);
            self.occupied &= !(1 << k);
            k += 1;
        }
        if self.occupied & (1 << k) != 0 {
            // Level 63: 2^63 values pushed (unreachable in practice); it keeps adding.
            carry = A::acc(self.levels[k], carry);
        }
        self.levels[k] = carry;
        self.occupied |= 1 << k;
        self
    }

    /// The sum of every value pushed, the smallest levels first.
    #[inline(always)]
    pub(super) fn total<A: AccOp<T>>(&self) -> T {
        let mut sum: Option<T> = None;
        for k in 0..64 {
            if self.occupied & (1 << k) != 0 {
                sum = Some(sum.map_or(self.levels[k], |s| A::acc(s, self.levels[k])));
            }
        }
        sum.unwrap_or(T::ZERO)
    }
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
