//! In-order evaluation into fresh outputs.
//!
//! A plan whose output is row-major from address 0 (every element written once, in address
//! order: no reduction) needs no initialised output: its values are computed run by run
//! along the innermost loop and appended through a [`Filler`]. Inputs strided along the
//! innermost loop are gathered in blocks. (A transpose — an input contiguous along an outer
//! loop but strided along the innermost — is better served by the tiled executor over a
//! filled output: reading it in full-row bands in output order was measured slower.)
//!
//! On x86-64 processors with AVX2 the whole pass is compiled a second time with AVX2
//! enabled and chosen at run time (4 f64 or 8 f32 per instruction instead of 2 or 4); its
//! one `unsafe` call is made only after the processor reported AVX2.

use smallvec::SmallVec;

use super::block::Src;
use super::error::KernelError;
use super::exec::{gather, oob, run_slice, BLK};
use super::fresh::Filler;
use super::odometer::{Odometer, Offs};
use super::operator::Combine;
use super::ops::{with_combine, CombOp};
use super::scalar::Scalar;
use super::simplify::Plan;

/// Whether `plan` writes `0..len` in address order, every element once.
pub fn in_order(plan: &Plan, len: usize) -> bool {
    plan.out.offset == 0
        && plan.points() == len
        && crate::tensor::row_major(&plan.extents)
            .is_ok_and(|rm| rm.as_slice() == plan.out.strides.as_slice())
}

/// Appends the values of an in-order plan (see [`in_order`]) to `out`.
pub fn collect<T: Scalar>(
    plan: &Plan,
    combine: Combine,
    ins: &[&[T]],
    out: &mut Filler<'_, T>,
) -> Result<(), KernelError> {
    with_combine!(combine, C => wide::<T, C>(plan, ins, out))
}

/// [`run`], built for AVX2 where the processor has it.
fn wide<T: Scalar, C: CombOp<T>>(
    plan: &Plan,
    ins: &[&[T]],
    out: &mut Filler<'_, T>,
) -> Result<(), KernelError> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: `run_avx2` requires nothing but AVX2, which the processor reported.
        return unsafe { run_avx2::<T, C>(plan, ins, out) };
    }
    run::<T, C>(plan, ins, out)
}

/// [`run`] compiled with AVX2 enabled.
///
/// # Safety
/// The processor supports AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn run_avx2<T: Scalar, C: CombOp<T>>(
    plan: &Plan,
    ins: &[&[T]],
    out: &mut Filler<'_, T>,
) -> Result<(), KernelError> {
    run::<T, C>(plan, ins, out)
}

/// Whether an input is contiguous along an outer loop but strided along the innermost: a
/// transpose, which the tiled executor handles better than an in-order pass.
pub fn transposing(plan: &Plan) -> bool {
    let r = plan.extents.len();
    plan.ins
        .iter()
        .any(|o| o.strides[r - 1].abs() > 1 && o.strides[..r - 1].iter().any(|s| s.abs() == 1))
}

/// The innermost loops' extents and strides (output first), fixed for the whole plan.
struct Inner {
    n1: usize,
    s1: Offs,
    /// Whether an input is strided (neither contiguous nor broadcast) along the innermost loop.
    strided: bool,
}

#[inline(always)]
fn run<T: Scalar, C: CombOp<T>>(
    plan: &Plan,
    ins: &[&[T]],
    out: &mut Filler<'_, T>,
) -> Result<(), KernelError> {
    let r = plan.extents.len();
    let outer = r - 1;
    let s1: Offs = plan.operands().map(|o| o.strides[r - 1]).collect();
    let inner =
        Inner { n1: plan.extents[r - 1], strided: s1[1..].iter().any(|&s| s != 0 && s != 1), s1 };
    let mut scratch: Vec<Vec<T>> = vec![Vec::new(); ins.len()];
    if inner.strided {
        scratch.iter_mut().for_each(|s| s.resize(BLK, T::ZERO));
    }
    // The last outer loop is stepped here, the ones before it by the odometer.
    let (steps, step): (usize, Offs) = match outer.checked_sub(1) {
        Some(d) => (plan.extents[d], plan.operands().map(|o| o.strides[d]).collect()),
        None => (1, Offs::from_elem(0, ins.len() + 1)),
    };
    let mut odo = Odometer::new(plan, outer.saturating_sub(1));
    let mut base = odo.base.clone();
    loop {
        base.copy_from_slice(&odo.base);
        for _ in 0..steps {
            row::<T, C>(&inner, &base, ins, &mut scratch, out)?;
            base.iter_mut().zip(&step).for_each(|(b, s)| *b += s);
        }
        if !odo.advance() {
            return Ok(());
        }
    }
}

/// One run along the innermost loop from the addresses `base` (output first).
#[inline(always)]
fn row<T: Scalar, C: CombOp<T>>(
    inner: &Inner,
    base: &[isize],
    ins: &[&[T]],
    scratch: &mut [Vec<T>],
    out: &mut Filler<'_, T>,
) -> Result<(), KernelError> {
    let (n1, s1) = (inner.n1, &inner.s1);
    if !inner.strided {
        return match *ins {
            [x] => push_values::<T, C>(out, &[source(x, &[], base[1], s1[1], n1)?], n1),
            [x, y] => {
                let a = source(x, &[], base[1], s1[1], n1)?;
                let b = source(y, &[], base[2], s1[2], n1)?;
                push_values::<T, C>(out, &[a, b], n1)
            }
            _ => {
                let srcs: SmallVec<[Src<'_, T>; 4]> = (0..ins.len())
                    .map(|k| source(ins[k], &[], base[k + 1], s1[k + 1], n1))
                    .collect::<Result<_, _>>()?;
                push_values::<T, C>(out, &srcs, n1)
            }
        };
    }
    let mut done = 0;
    while done < n1 {
        let len = BLK.min(n1 - done);
        let at = |k: usize| base[k] + done as isize * s1[k];
        for (k, buf) in ins.iter().enumerate() {
            let s = s1[k + 1];
            if s != 0 && s != 1 {
                gather(buf, at(k + 1), s, &mut scratch[k][..len])?;
            }
        }
        let mut srcs: SmallVec<[Src<'_, T>; 4]> = SmallVec::new();
        for (k, (buf, tmp)) in ins.iter().zip(scratch.iter()).enumerate() {
            srcs.push(source(buf, tmp, at(k + 1), s1[k + 1], len)?);
        }
        push_values::<T, C>(out, &srcs, len)?;
        done += len;
    }
    Ok(())
}

/// The source of one input for a run of `len` points from address `at` with stride `s`
/// (`tmp` holds the gathered values of a strided input).
#[inline]
fn source<'a, T: Scalar>(
    buf: &'a [T],
    tmp: &'a [T],
    at: isize,
    s: isize,
    len: usize,
) -> Result<Src<'a, T>, KernelError> {
    Ok(match s {
        0 => Src::Scalar(*buf.get(at as usize).ok_or_else(|| oob(at, buf.len()))?),
        1 => Src::Slice(run_slice(buf, at, len)?),
        _ => Src::Slice(&tmp[..len]),
    })
}

/// Appends the combined values of one run.
#[inline(always)]
fn push_values<T: Scalar, C: CombOp<T>>(
    out: &mut Filler<'_, T>,
    srcs: &[Src<'_, T>],
    n: usize,
) -> Result<(), KernelError> {
    // Scalars are copied out of `srcs` first: a value read through a reference inside the
    // loop keeps it from vectorising.
    match *srcs {
        [Src::Slice(x)] => out.extend_from_slice(&x[..n]),
        [Src::Scalar(v)] => out.extend(std::iter::repeat_n(v, n)),
        [Src::Slice(x), Src::Slice(y)] => {
            out.extend(x[..n].iter().zip(&y[..n]).map(|(&a, &b)| C::comb(a, b)))
        }
        [Src::Slice(x), Src::Scalar(b)] => out.extend(x[..n].iter().map(move |&a| C::comb(a, b))),
        [Src::Scalar(a), Src::Slice(y)] => out.extend(y[..n].iter().map(move |&b| C::comb(a, b))),
        [Src::Scalar(a), Src::Scalar(b)] => out.extend(std::iter::repeat_n(C::comb(a, b), n)),
        ref xs => out.extend((0..n).map(|k| {
            let mut it = xs.iter().map(|s| match s {
                Src::Slice(v) => v[k],
                Src::Scalar(v) => *v,
            });
            let first = it.next().unwrap_or(T::ZERO);
            it.fold(first, C::comb)
        })),
    }
}
