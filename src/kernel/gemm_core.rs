//! One GEMM core call, `dst[i,j] (=|+=) Σ_p lhs[i,p]·rhs[p,j]` with arbitrary strides:
//! bounds and aliasing checked, then handed to the `gemm` crate or, for small cores, run by
//! direct loops (the crate's dispatch and packing cost more than a small product itself).
//!
//! # Unsafe
//!
//! `gemm::gemm` takes raw pointers. [`call`] holds this module's only `unsafe` block (with
//! [`crate_gemm`], which hands the pointers on, complex ones as the crate's own complex type
//! of the same layout); its invariants are checked right before it (and exercised by the
//! tests):
//! 1. every address the core reads or writes (`offset + i·rs + j·cs` over the core's index
//!    ranges) lies inside the slice it is derived from — [`core_fits`];
//! 2. `dst` comes from a `&mut [T]`, `lhs`/`rhs` from `&[T]`, so the destination aliases
//!    neither input;
//! 3. the destination map `(i, j) ↦ i·rs + j·cs` is injective ([`injective`]), so the crate's
//!    parallel workers never write one element twice.

use super::error::KernelError;
use super::scalar::Scalar;
use super::simplify::injective;
use crate::tensor::{Complex128, Complex64};

/// Sizes and `(row, column)` strides of one core call.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Rows of the destination.
    pub m: usize,
    /// Columns of the destination.
    pub n: usize,
    /// Summed length.
    pub k: usize,
    /// Destination strides.
    pub dst: (isize, isize),
    /// Left operand strides (`m`, `k`).
    pub lhs: (isize, isize),
    /// Right operand strides (`k`, `n`).
    pub rhs: (isize, isize),
}

/// How one core is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The `gemm` crate with this many threads.
    Crate(usize),
    /// Direct loops on the calling thread.
    Direct,
}

/// Whether `off + i·rs + j·cs` stays in `0..len` for `i < rows`, `j < cols`.
fn core_fits(len: usize, off: isize, rows: usize, cols: usize, (rs, cs): (isize, isize)) -> bool {
    match crate::tensor::address_range(&[rows, cols], &[rs, cs], off as i128) {
        None => true,
        Some((lo, hi)) => lo >= 0 && hi < len as i128,
    }
}

/// Runs one core from the offsets `dst_off`, `lhs_off`, `rhs_off`; `overwrite`: the first
/// write of each destination element replaces it.
#[allow(clippy::too_many_arguments)]
pub fn call<T: Scalar>(
    s: &Shape,
    dst: &mut [T],
    dst_off: isize,
    lhs: &[T],
    lhs_off: isize,
    rhs: &[T],
    rhs_off: isize,
    overwrite: bool,
    engine: Engine,
) -> Result<(), KernelError> {
    let fits = core_fits(dst.len(), dst_off, s.m, s.n, s.dst)
        && core_fits(lhs.len(), lhs_off, s.m, s.k, s.lhs)
        && core_fits(rhs.len(), rhs_off, s.k, s.n, s.rhs);
    if !fits || !injective(&[s.m, s.n], &[s.dst.0, s.dst.1]) {
        return Err(KernelError::OutOfBounds {
            operand: "a GEMM operand".into(),
            reach: dst_off as i128,
            len: dst.len(),
        });
    }
    if s.m == 0 || s.n == 0 {
        return Ok(());
    }
    let threads = match engine {
        Engine::Crate(t) if T::GEMM_CRATE => t,
        // Types the gemm crate does not take, and small products, run by direct loops.
        Engine::Crate(_) | Engine::Direct => {
            direct(s, (dst, dst_off), (lhs, lhs_off), (rhs, rhs_off), overwrite);
            return Ok(());
        }
    };
    let par = if threads > 1 { gemm::Parallelism::Rayon(threads) } else { gemm::Parallelism::None };
    // SAFETY: invariant 1 — `core_fits` checked that every address of the three operands
    // over the call's index ranges lies inside its slice (offsets are then in bounds too, as
    // m, n ≥ 1; for k = 0 gemm reads no input). Invariant 2 — `dst` is a unique `&mut`
    // borrow, distinct from the shared `lhs`/`rhs` borrows. Invariant 3 — `injective`
    // checked that no two (i, j) share a destination address.
    unsafe {
        let d = dst.as_mut_ptr().offset(dst_off);
        let l = lhs.as_ptr().offset(if s.k == 0 { 0 } else { lhs_off });
        let r = rhs.as_ptr().offset(if s.k == 0 { 0 } else { rhs_off });
        crate_gemm::<T>(s, d, l, r, !overwrite, par);
    }
    Ok(())
}

/// The `gemm` crate's `dst (+)= lhs·rhs` for `T`; einrow's complex types are the crate's own
/// (`gemm::c32`, `gemm::c64`: the same layout, `re` then `im`).
///
/// # Safety
/// As `gemm::gemm`: the pointers address every element of the call's index ranges (checked
/// by [`call`]), the destination aliases no input, and its map is injective.
unsafe fn crate_gemm<T: Scalar>(
    s: &Shape,
    d: *mut T,
    l: *const T,
    r: *const T,
    read_dst: bool,
    par: gemm::Parallelism,
) {
    use std::any::TypeId;
    macro_rules! gemm_as {
        ($g:ty, $one:expr) => {
            gemm::gemm::<$g>(
                s.m,
                s.n,
                s.k,
                d.cast::<$g>(),
                s.dst.1,
                s.dst.0,
                read_dst,
                l.cast::<$g>(),
                s.lhs.1,
                s.lhs.0,
                r.cast::<$g>(),
                s.rhs.1,
                s.rhs.0,
                $one,
                $one,
                false,
                false,
                false,
                par,
            )
        };
    }
    const _: () = assert!(std::mem::size_of::<Complex64>() == std::mem::size_of::<gemm::c32>());
    const _: () = assert!(std::mem::align_of::<Complex64>() == std::mem::align_of::<gemm::c32>());
    const _: () = assert!(std::mem::size_of::<Complex128>() == std::mem::size_of::<gemm::c64>());
    const _: () = assert!(std::mem::align_of::<Complex128>() == std::mem::align_of::<gemm::c64>());
    if TypeId::of::<T>() == TypeId::of::<Complex64>() {
        gemm_as!(gemm::c32, gemm::c32::new(1.0, 0.0));
    } else if TypeId::of::<T>() == TypeId::of::<Complex128>() {
        gemm_as!(gemm::c64, gemm::c64::new(1.0, 0.0));
    } else {
        gemm_as!(T, T::ONE);
    }
}

/// An operand of a direct core: its buffer and the core's origin in it.
type Src<'a, T> = (&'a [T], isize);

/// A checked-in-bounds core by direct loops: rows (or columns) of the destination updated
/// as contiguous slices where the layout allows, else one dot product per element.
fn direct<T: Scalar>(
    s: &Shape,
    dst: (&mut [T], isize),
    lhs: Src<'_, T>,
    rhs: Src<'_, T>,
    overwrite: bool,
) {
    if s.dst.1 == 1 && s.rhs.1 == 1 {
        rows(s, dst, lhs, rhs, overwrite);
    } else if s.dst.0 == 1 && s.lhs.0 == 1 {
        let t = Shape {
            m: s.n,
            n: s.m,
            k: s.k,
            dst: (s.dst.1, s.dst.0),
            lhs: (s.rhs.1, s.rhs.0),
            rhs: (s.lhs.1, s.lhs.0),
        };
        rows(&t, dst, rhs, lhs, overwrite);
    } else {
        dots(s, dst, lhs, rhs, overwrite);
    }
}

/// `dst` rows contiguous, `rhs` rows contiguous: `dst[i,:] (=|+=) Σ_p lhs[i,p]·rhs[p,:]`.
fn rows<T: Scalar>(
    s: &Shape,
    (dst, d0): (&mut [T], isize),
    (lhs, l0): Src<'_, T>,
    (rhs, r0): Src<'_, T>,
    overwrite: bool,
) {
    let at = |base: isize, i: usize, st: isize| (base + i as isize * st) as usize;
    for i in 0..s.m {
        let d = at(d0, i, s.dst.0);
        let drow = &mut dst[d..d + s.n];
        if overwrite {
            drow.iter_mut().for_each(|x| *x = T::ZERO);
        }
        let la = l0 + i as isize * s.lhs.0;
        for p in 0..s.k {
            let a = lhs[at(la, p, s.lhs.1)];
            let b = at(r0, p, s.rhs.0);
            for (x, &y) in drow.iter_mut().zip(&rhs[b..b + s.n]) {
                *x = x.plus(a.times(y));
            }
        }
    }
}

/// Any layout: one dot product per destination element.
fn dots<T: Scalar>(
    s: &Shape,
    (dst, d0): (&mut [T], isize),
    (lhs, l0): Src<'_, T>,
    (rhs, r0): Src<'_, T>,
    overwrite: bool,
) {
    for i in 0..s.m {
        for j in 0..s.n {
            let (mut a, mut b) = (l0 + i as isize * s.lhs.0, r0 + j as isize * s.rhs.1);
            let mut sum = T::ZERO;
            for _ in 0..s.k {
                sum = sum.plus(lhs[a as usize].times(rhs[b as usize]));
                a += s.lhs.1;
                b += s.rhs.0;
            }
            let d = &mut dst[(d0 + i as isize * s.dst.0 + j as isize * s.dst.1) as usize];
            *d = if overwrite { sum } else { d.plus(sum) };
        }
    }
}
