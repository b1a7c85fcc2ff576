//! The strided executor: an odometer over the outer loops (addresses updated incrementally),
//! the two innermost loops optionally tiled (when an operand is contiguous along the second
//! innermost loop but strided along the innermost, as in a transpose), and each run along
//! the innermost loop handed to the slice kernels of `kernel::block`, strided operands gathered
//! into and scattered from scratch space in blocks of [`BLK`] points.

use smallvec::SmallVec;

use super::block::{binary, nary, unary, Cascade, Dst, Src};
use super::error::KernelError;
use super::odometer::{Odometer, Offs};
use super::operator::{Accum, Combine};
use super::ops::{with_accum, with_combine, AccOp, CombOp};
use super::scalar::Scalar;
use super::simplify::Plan;

/// Points per gathered block.
pub const BLK: usize = 256;
/// Tile edge for the two innermost loops when tiling pays.
pub const TILE: usize = 32;

/// Runs an unguarded plan with the given operators.
pub fn execute<T: Scalar>(
    plan: &Plan,
    accum: Accum,
    combine: Combine,
    ins: &[&[T]],
    out: &mut [T],
) -> Result<(), KernelError> {
    with_accum!(accum, A => with_combine!(combine, C => run::<T, A, C>(plan, ins, out)))
}

struct Scratch<T> {
    ins: SmallVec<[Vec<T>; 4]>,
    out: Vec<T>,
}

fn run<T: Scalar, A: AccOp<T>, C: CombOp<T>>(
    plan: &Plan,
    ins: &[&[T]],
    out: &mut [T],
) -> Result<(), KernelError> {
    debug_assert_eq!(
        plan.ins.len(),
        ins.len(),
        "{:?}/{:?}: one buffer per input",
        A::KIND,
        C::KIND
    );
    let r = plan.extents.len();
    let n1 = plan.extents[r - 1];
    let n2 = if r >= 2 { plan.extents[r - 2] } else { 1 };
    let s1: Offs = plan.operands().map(|o| o.strides[r - 1]).collect();
    let s2: Offs = plan.operands().map(|o| if r >= 2 { o.strides[r - 2] } else { 0 }).collect();
    let tiled =
        n1 > TILE && n2 > TILE && s2.iter().zip(&s1).any(|(&b, &a)| b.abs() == 1 && a.abs() > 1);
    let (t1, t2) = if tiled { (TILE, TILE) } else { (n1, n2) };
    let outer = r.saturating_sub(2);
    // Gather space only when some operand is strided along the innermost loop.
    let blk = if s1.iter().any(|&s| s != 0 && s != 1) { BLK } else { 0 };
    let mut scratch = Scratch {
        ins: (0..ins.len()).map(|_| vec![T::ZERO; blk]).collect(),
        out: vec![T::ZERO; blk],
    };
    let mut tile: Option<Box<[[T; TILE]; TILE]>> = None;
    let mut odo = Odometer::new(plan, outer);
    let mut offs: Offs = odo.base.clone();
    loop {
        let base = &odo.base;
        for j0 in (0..n2).step_by(t2.max(1)) {
            for i0 in (0..n1).step_by(t1.max(1)) {
                let len = t1.min(n1 - i0);
                if tiled {
                    if let [x] = ins {
                        let rows = t2.min(n2 - j0);
                        let at = |k: usize| base[k] + j0 as isize * s2[k] + i0 as isize * s1[k];
                        let (o, i) = ((at(0), s1[0], s2[0]), (at(1), s1[1], s2[1]));
                        if A::KIND == Accum::Store && o.1 == 1 && i.2.abs() == 1 {
                            let buf = tile.get_or_insert_with(|| Box::new([[T::ZERO; TILE]; TILE]));
                            tile_transpose(out, x, (o.0, o.2), i, len, rows, buf)?;
                        } else {
                            tile_unary::<T, A>(out, x, o, i, len, rows)?;
                        }
                        continue;
                    }
                }
                for j in j0..(j0 + t2).min(n2) {
                    for (k, o) in offs.iter_mut().enumerate() {
                        *o = base[k] + j as isize * s2[k] + i0 as isize * s1[k];
                    }
                    line::<T, A, C>(len, &offs, &s1, ins, out, &mut scratch)?;
                }
            }
        }
        if !odo.advance() {
            return Ok(());
        }
    }
}

/// One run of `n` points along the innermost loop, from addresses `offs` (output first) with
/// strides `s1`.
fn line<T: Scalar, A: AccOp<T>, C: CombOp<T>>(
    n: usize,
    offs: &[isize],
    s1: &[isize],
    ins: &[&[T]],
    out: &mut [T],
    sc: &mut Scratch<T>,
) -> Result<(), KernelError> {
    let strided = s1.iter().any(|&s| s != 0 && s != 1);
    if strided && s1[0] == 0 && A::KIND == Accum::Add && n > BLK {
        return strided_sum::<T, A, C>(n, offs, s1, ins, out, sc);
    }
    let mut done = 0;
    while done < n {
        let len = if strided { BLK.min(n - done) } else { n - done };
        let at = |k: usize| offs[k] + done as isize * s1[k];
        for (k, buf) in ins.iter().enumerate() {
            let s = s1[k + 1];
            if s != 0 && s != 1 {
                gather(buf, at(k + 1), s, &mut sc.ins[k][..len])?;
            }
        }
        let mut srcs: SmallVec<[Src<'_, T>; 4]> = SmallVec::new();
        for (k, (buf, tmp)) in ins.iter().zip(&sc.ins).enumerate() {
            srcs.push(match s1[k + 1] {
                0 => Src::Scalar(
                    *buf.get(at(k + 1) as usize).ok_or_else(|| oob(at(k + 1), buf.len()))?,
                ),
                1 => Src::Slice(run_slice(buf, at(k + 1), len)?),
                _ => Src::Slice(&tmp[..len]),
            });
        }
        let o = at(0);
        match s1[0] {
            0 => {
                let olen = out.len();
                let r = out.get_mut(o as usize).ok_or_else(|| oob(o, olen))?;
                dispatch::<T, A, C>(&srcs, Dst::Reduce(r), len);
            }
            1 => {
                let olen = out.len();
                let dst = out
                    .get_mut(o as usize..(o as usize).wrapping_add(len))
                    .ok_or_else(|| oob(o, olen))?;
                dispatch::<T, A, C>(&srcs, Dst::Slice(dst), len);
            }
            so => {
                let tmp = &mut sc.out[..len];
                if A::KIND != Accum::Store {
                    gather(out, o, so, tmp)?;
                }
                dispatch::<T, A, C>(&srcs, Dst::Slice(tmp), len);
                scatter(out, o, so, tmp)?;
            }
        }
        done += len;
    }
    Ok(())
}

/// [`line`] of a sum into one element over gathered blocks: each block's sum is kept apart
/// and the block sums added pairwise ([`Cascade`]), as a contiguous run's are, so that the
/// rounding error does not grow with the number of blocks.
fn strided_sum<T: Scalar, A: AccOp<T>, C: CombOp<T>>(
    n: usize,
    offs: &[isize],
    s1: &[isize],
    ins: &[&[T]],
    out: &mut [T],
    sc: &mut Scratch<T>,
) -> Result<(), KernelError> {
    let mut cascade = Cascade::<T>::new();
    let mut block_offs: Offs = offs.iter().copied().collect();
    let mut done = 0;
    while done < n {
        let len = BLK.min(n - done);
        for (k, o) in block_offs.iter_mut().enumerate() {
            *o = offs[k] + done as isize * s1[k];
        }
        // The block sums into the first element of the scratch output, away from `out`.
        let mut part = [T::ZERO];
        let at = block_offs[0];
        block_offs[0] = 0;
        line::<T, A, C>(len, &block_offs, s1, ins, &mut part, sc)?;
        block_offs[0] = at;
        cascade.push::<A>(part[0]);
        done += len;
    }
    let o = offs[0];
    let olen = out.len();
    let r = out.get_mut(o as usize).ok_or_else(|| oob(o, olen))?;
    *r = A::acc(*r, cascade.total::<A>());
    Ok(())
}

/// A transposing copy tile, `out[o + j·so + i] = x[a + i·sx1 + j·sx2]` for `i < cols`,
/// `j < rows` (both at most [`TILE`], `|sx2| = 1`): the tile's input runs (contiguous along
/// `j`) are copied into `buf` and its output rows written from there, so that both sides of
/// memory are read and written as contiguous runs and only the small buffer is walked across.
fn tile_transpose<T: Scalar>(
    out: &mut [T],
    x: &[T],
    (o0, so): (isize, isize),
    (x0, sx1, sx2): (isize, isize, isize),
    cols: usize,
    rows: usize,
    buf: &mut [[T; TILE]; TILE],
) -> Result<(), KernelError> {
    let (cols, rows) = (cols.min(TILE), rows.min(TILE));
    for (i, b) in buf.iter_mut().enumerate().take(cols) {
        let a = x0 + i as isize * sx1;
        let lo = if sx2 < 0 { a - (rows as isize - 1) } else { a };
        let src = run_slice(x, lo, rows)?;
        if sx2 < 0 {
            b[..rows].iter_mut().zip(src.iter().rev()).for_each(|(d, &v)| *d = v);
        } else {
            b[..rows].copy_from_slice(src);
        }
    }
    let olen = out.len();
    for j in 0..rows {
        let o = o0 + j as isize * so;
        let dst = usize::try_from(o)
            .ok()
            .and_then(|o| out.get_mut(o..o.checked_add(cols)?))
            .ok_or_else(|| oob(o + cols as isize, olen))?;
        for (d, b) in dst.iter_mut().zip(buf.iter()) {
            *d = b[j];
        }
    }
    Ok(())
}

/// A tile of a unary plan: `rows` runs of `cols` points, element by element (both
/// operands stay in L1 within a tile, whatever their strides). Operands are
/// `(address, stride along cols, stride along rows)`.
fn tile_unary<T: Scalar, A: AccOp<T>>(
    out: &mut [T],
    x: &[T],
    (o0, so1, so2): (isize, isize, isize),
    (x0, sx1, sx2): (isize, isize, isize),
    cols: usize,
    rows: usize,
) -> Result<(), KernelError> {
    let olen = out.len();
    for j in 0..rows as isize {
        let (mut o, mut a) = (o0 + j * so2, x0 + j * sx2);
        for _ in 0..cols {
            let v = *x.get(a as usize).ok_or_else(|| oob(a, x.len()))?;
            let d = out.get_mut(o as usize).ok_or_else(|| oob(o, olen))?;
            *d = A::acc(*d, v);
            o += so1;
            a += sx1;
        }
    }
    Ok(())
}

#[inline]
fn dispatch<T: Scalar, A: AccOp<T>, C: CombOp<T>>(srcs: &[Src<'_, T>], dst: Dst<'_, T>, n: usize) {
    match srcs {
        [x] => unary::<T, A>(*x, dst, n),
        [x, y] => binary::<T, A, C>(*x, *y, dst, n),
        xs => nary::<T, A, C>(xs, dst, n),
    }
}

pub(super) fn run_slice<T>(buf: &[T], off: isize, len: usize) -> Result<&[T], KernelError> {
    let start = usize::try_from(off).map_err(|_| oob(off, buf.len()))?;
    buf.get(start..start.saturating_add(len)).ok_or_else(|| oob(off + len as isize, buf.len()))
}

/// `dst[k] = src[off + k·s]`.
pub(super) fn gather<T: Copy>(
    src: &[T],
    off: isize,
    s: isize,
    dst: &mut [T],
) -> Result<(), KernelError> {
    let mut a = off;
    for d in dst.iter_mut() {
        *d = *src.get(a as usize).ok_or_else(|| oob(a, src.len()))?;
        a = a.wrapping_add(s);
    }
    Ok(())
}

/// `dst[off + k·s] = src[k]`.
fn scatter<T: Copy>(dst: &mut [T], off: isize, s: isize, src: &[T]) -> Result<(), KernelError> {
    let mut a = off;
    let len = dst.len();
    for &v in src {
        *dst.get_mut(a as usize).ok_or_else(|| oob(a, len))? = v;
        a = a.wrapping_add(s);
    }
    Ok(())
}

pub(super) fn oob(reach: isize, len: usize) -> KernelError {
    KernelError::OutOfBounds { operand: "an operand".into(), reach: reach as i128, len }
}
