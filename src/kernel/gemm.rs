//! Dispatch of GEMM-shaped plans to the `gemm` crate.
//!
//! A plan with two inputs, `combine = *` and `accum = +` is GEMM-shaped when it has a loop
//! that only the first input and the output move along (M), one that only the second input
//! and the output move along (N, optional together with M) and one that only the two inputs
//! move along (K). The largest such loops form the GEMM core `dst[m,n] += Σ_k lhs[m,k]·rhs[k,n]`
//! with arbitrary strides (so transposed operands need no copy); every other loop (batch
//! loops, extra M/N/K loops, broadcast loops) becomes an outer loop around core calls.
//!
//! # Unsafe
//!
//! `gemm::gemm` takes raw pointers. [`call`] is the only `unsafe` block of the kernel; its
//! invariants are checked right before it (and exercised by the tests):
//! 1. every address the core reads or writes (`offset + i·rs + j·cs` over the core's index
//!    ranges) lies inside the slice it is derived from — [`core_fits`];
//! 2. `dst` comes from a `&mut [T]`, `lhs`/`rhs` from `&[T]`, so the destination aliases
//!    neither input;
//! 3. the destination map `(i, j) ↦ i·rs + j·cs` is injective ([`injective`]), so the crate's
//!    parallel workers never write one element twice.

use super::error::KernelError;
use super::scalar::Scalar;
use super::simplify::{injective, Plan};

/// The core of a GEMM-shaped plan: which loops are M, N and K.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Core {
    /// The M loop, if any.
    pub m: Option<usize>,
    /// The N loop, if any.
    pub n: Option<usize>,
    /// The K loop.
    pub k: usize,
}

/// Finds the GEMM core of a two-input plan, `None` when the plan is not GEMM-shaped or too
/// small (`m·n·k < min_work`). (The caller checks the operators.)
pub fn find_core(plan: &Plan, min_work: usize) -> Option<Core> {
    let [a, b] = plan.ins.as_slice() else { return None };
    let o = &plan.out;
    let pick = |want: (bool, bool, bool)| {
        (0..plan.extents.len())
            .filter(|&d| (o.strides[d] != 0, a.strides[d] != 0, b.strides[d] != 0) == want)
            .max_by_key(|&d| plan.extents[d])
    };
    let (m, n, k) =
        (pick((true, true, false)), pick((true, false, true)), pick((false, true, true))?);
    if m.is_none() && n.is_none() {
        return None;
    }
    let ext = |d: Option<usize>| d.map_or(1, |d| plan.extents[d]);
    let work = ext(m).saturating_mul(ext(n)).saturating_mul(plan.extents[k]);
    let (om, on) = (m.map_or(0, |d| o.strides[d]), n.map_or(0, |d| o.strides[d]));
    if work < min_work || !injective(&[ext(m), ext(n)], &[om, on]) {
        return None;
    }
    Some(Core { m, n, k })
}

/// Runs a GEMM-shaped plan: one core call per point of the outer loops. With `overwrite`
/// the first write of each output element replaces it (the caller guarantees every output
/// element of the image is written by exactly one core call); otherwise calls accumulate.
pub fn run<T: Scalar>(
    plan: &Plan,
    core: Core,
    ins: &[&[T]],
    out: &mut [T],
    overwrite: bool,
    threads: usize,
) -> Result<(), KernelError> {
    let (Some(lhs), Some(rhs)) = (ins.first(), ins.get(1)) else {
        return Err(KernelError::Arity { expected: 2, got: ins.len() });
    };
    let outer: Vec<usize> = (0..plan.extents.len())
        .filter(|&d| Some(d) != core.m && Some(d) != core.n && d != core.k)
        .collect();
    let count: usize = outer.iter().map(|&d| plan.extents[d]).product();
    let ext = |d: Option<usize>| d.map_or(1, |d| plan.extents[d]);
    let st = |o: &super::simplify::Operand, d: Option<usize>| d.map_or(0, |d| o.strides[d]);
    let (m, n, k) = (ext(core.m), ext(core.n), plan.extents[core.k]);
    let (o, a, b) = (&plan.out, &plan.ins[0], &plan.ins[1]);
    let shape = Shape {
        m,
        n,
        k,
        dst: (st(o, core.m), st(o, core.n)),
        lhs: (st(a, core.m), a.strides[core.k]),
        rhs: (b.strides[core.k], st(b, core.n)),
    };
    let par = if threads > 1 { gemm::Parallelism::Rayon(threads) } else { gemm::Parallelism::None };
    for c in 0..count {
        // Offsets of this outer point (mixed-radix decode of `c`, innermost outer loop last).
        let (mut rest, mut offs) = (c, [o.offset, a.offset, b.offset]);
        for &d in outer.iter().rev() {
            let i = (rest % plan.extents[d]) as isize;
            rest /= plan.extents[d];
            for (off, op) in offs.iter_mut().zip([o, a, b]) {
                *off += i * op.strides[d];
            }
        }
        call(&shape, out, offs[0], lhs, offs[1], rhs, offs[2], !overwrite, par)?;
    }
    Ok(())
}

/// Sizes and `(row, column)` strides of one core call.
#[derive(Clone, Copy, Debug)]
struct Shape {
    m: usize,
    n: usize,
    k: usize,
    dst: (isize, isize),
    lhs: (isize, isize),
    rhs: (isize, isize),
}

/// Whether `off + i·rs + j·cs` stays in `0..len` for `i < rows`, `j < cols`.
fn core_fits(len: usize, off: isize, rows: usize, cols: usize, (rs, cs): (isize, isize)) -> bool {
    match crate::tensor::address_range(&[rows, cols], &[rs, cs], off as i128) {
        None => true,
        Some((lo, hi)) => lo >= 0 && hi < len as i128,
    }
}

#[allow(clippy::too_many_arguments)]
fn call<T: Scalar>(
    s: &Shape,
    dst: &mut [T],
    dst_off: isize,
    lhs: &[T],
    lhs_off: isize,
    rhs: &[T],
    rhs_off: isize,
    read_dst: bool,
    par: gemm::Parallelism,
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
    // SAFETY: invariant 1 — `core_fits` checked that every address of the three operands
    // over the call's index ranges lies inside its slice (offsets are then in bounds too, as
    // m, n ≥ 1; for k = 0 gemm reads no input). Invariant 2 — `dst` is a unique `&mut`
    // borrow, distinct from the shared `lhs`/`rhs` borrows. Invariant 3 — `injective`
    // checked that no two (i, j) share a destination address.
    unsafe {
        let d = dst.as_mut_ptr().offset(dst_off);
        let l = lhs.as_ptr().offset(if s.k == 0 { 0 } else { lhs_off });
        let r = rhs.as_ptr().offset(if s.k == 0 { 0 } else { rhs_off });
        gemm::gemm::<T>(
            s.m,
            s.n,
            s.k,
            d,
            s.dst.1,
            s.dst.0,
            read_dst,
            l,
            s.lhs.1,
            s.lhs.0,
            r,
            s.rhs.1,
            s.rhs.0,
            T::ONE,
            T::ONE,
            false,
            false,
            false,
            par,
        );
    }
    Ok(())
}
