//! Splitting a plan across rayon workers.
//!
//! A plan is split along one loop `p` whose output stride is positive and larger than the
//! span the other loops write (`hi - lo < stride_p`): the chunks of `p`'s range then write
//! disjoint, increasing address ranges of the output, so the output slice is cut into
//! disjoint `&mut` pieces with `split_at_mut` — no unsafe, no locks. Reductions whose output
//! cannot be split this way (a full sum) give every chunk a private output filled with the
//! neutral element and fold the private outputs into the real one afterwards.

use std::ops::Range;

use rayon::prelude::*;

use super::error::KernelError;
use super::operator::Accum;
use super::ops::{with_accum, AccOp};
use super::scalar::Scalar;
use super::simplify::Plan;

/// One chunk of a split: the sub-plan (output offset relative to its range) and the output
/// address range it owns.
pub struct Chunk {
    /// The sub-plan.
    pub plan: Plan,
    /// The output addresses it writes.
    pub range: Range<usize>,
}

/// The span `(lo, hi)` of output addresses (relative to the offset) over every loop but `skip`.
fn span(plan: &Plan, skip: usize) -> (isize, isize) {
    let (mut lo, mut hi) = (0isize, 0isize);
    for d in (0..plan.extents.len()).filter(|&d| d != skip) {
        let s = plan.out.strides[d] * (plan.extents[d] as isize - 1);
        if s < 0 {
            lo += s;
        } else {
            hi += s;
        }
    }
    (lo, hi)
}

/// The outermost loop `allowed` accepts along which the output splits into disjoint
/// increasing ranges (positive stride larger than the span of the other loops).
pub fn disjoint_loop(plan: &Plan, allowed: impl Fn(usize) -> bool) -> Option<usize> {
    (0..plan.extents.len()).find(|&d| {
        let (lo, hi) = span(plan, d);
        allowed(d) && plan.extents[d] >= 2 && plan.out.strides[d] > hi - lo
    })
}

/// Splits `plan` into about `parts` chunks with disjoint output ranges along the outermost
/// loop `allowed` accepts, or `None` when no loop qualifies.
pub fn split_disjoint(
    plan: &Plan,
    parts: usize,
    allowed: impl Fn(usize) -> bool,
) -> Option<Vec<Chunk>> {
    let p = disjoint_loop(plan, allowed)?;
    let (lo, hi) = span(plan, p);
    let (n, s) = (plan.extents[p], plan.out.strides[p]);
    let parts = parts.clamp(1, n);
    let mut chunks = Vec::with_capacity(parts);
    for c in 0..parts {
        let (a, b) = (n * c / parts, n * (c + 1) / parts);
        if a == b {
            continue;
        }
        let mut sub = plan.clone();
        sub.extents[p] = b - a;
        for o in std::iter::once(&mut sub.out).chain(sub.ins.iter_mut()) {
            o.offset += a as isize * o.strides[p];
        }
        let start = sub.out.offset + lo;
        let end = sub.out.offset + (b - a - 1) as isize * s + hi + 1;
        let range = usize::try_from(start).ok()?..usize::try_from(end).ok()?;
        sub.out.offset -= start;
        chunks.push(Chunk { plan: sub, range });
    }
    Some(chunks)
}

/// Runs `f` on every chunk in parallel, each with its own piece of `out`.
pub fn run_chunks<T: Send>(
    chunks: Vec<Chunk>,
    out: &mut [T],
    f: impl Fn(&Plan, &mut [T]) -> Result<(), KernelError> + Sync,
) -> Result<(), KernelError> {
    let mut pieces = Vec::with_capacity(chunks.len());
    let mut rest = out;
    let mut consumed = 0;
    for ch in chunks {
        let skip = ch.range.start.checked_sub(consumed).ok_or_else(overlap)?;
        let len = ch.range.len();
        if rest.len() < skip + len {
            return Err(overlap());
        }
        let (_, tail) = rest.split_at_mut(skip);
        let (piece, tail) = tail.split_at_mut(len);
        rest = tail;
        consumed = ch.range.end;
        pieces.push((ch.plan, piece));
    }
    pieces.into_par_iter().map(|(plan, piece)| f(&plan, piece)).collect::<Result<Vec<()>, _>>()?;
    Ok(())
}

/// Splits a reduction along loop `p` into `parts` chunks that each write a private copy of the
/// output range `lo..=hi`; returns the sub-plans (output offsets relative to the copy).
pub fn split_private(plan: &Plan, p: usize, parts: usize) -> Option<(Vec<Plan>, Range<usize>)> {
    let (lo, hi) =
        crate::tensor::address_range(&plan.extents, &plan.out.strides, plan.out.offset as i128)?;
    let range = usize::try_from(lo).ok()?..usize::try_from(hi + 1).ok()?;
    let n = plan.extents[p];
    let parts = parts.clamp(1, n);
    let mut subs = Vec::with_capacity(parts);
    for c in 0..parts {
        let (a, b) = (n * c / parts, n * (c + 1) / parts);
        if a == b {
            continue;
        }
        let mut sub = plan.clone();
        sub.extents[p] = b - a;
        for o in std::iter::once(&mut sub.out).chain(sub.ins.iter_mut()) {
            o.offset += a as isize * o.strides[p];
        }
        sub.out.offset -= range.start as isize;
        subs.push(sub);
    }
    Some((subs, range))
}

/// Runs every sub-plan of a private split into its own buffer of `range.len()` elements
/// holding `neutral`, then folds the buffers into `out[range]` with `accum` (in parallel over
/// pieces of the range).
pub fn run_private<T: Scalar>(
    subs: Vec<Plan>,
    range: Range<usize>,
    out: &mut [T],
    accum: Accum,
    neutral: T,
    f: impl Fn(&Plan, &mut [T]) -> Result<(), KernelError> + Sync,
) -> Result<(), KernelError> {
    let threads = subs.len();
    let privates = subs
        .into_par_iter()
        .map(|sub| {
            let mut buf = crate::tensor::hugepage::filled(range.len(), neutral)?;
            f(&sub, &mut buf).map(|()| buf)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let target = out
        .get_mut(range.clone())
        .ok_or(KernelError::Overflow { what: "a private output range" })?;
    let piece = range.len().div_ceil(threads.max(1)).max(4096);
    target.par_chunks_mut(piece).enumerate().for_each(|(c, t)| {
        let at = c * piece;
        for buf in &privates {
            let src = &buf[at..at + t.len()];
            with_accum!(accum, A => t.iter_mut().zip(src).for_each(|(o, &v)| *o = A::acc(*o, v)));
        }
    });
    Ok(())
}

fn overlap() -> KernelError {
    KernelError::Unsupported { message: "internal: parallel chunks overlap".into() }
}
