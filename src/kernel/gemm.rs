//! GEMM-shaped plans: core detection, the loop over core calls and how threads are used.
//!
//! A plan with two inputs, `combine = *` and `accum = +` is GEMM-shaped when it has a loop
//! that only the first input and the output move along (M), one that only the second input
//! and the output move along (N, optional together with M) and one that only the two inputs
//! move along (K). The largest such loops form the GEMM core `dst[m,n] += Σ_k lhs[m,k]·rhs[k,n]`
//! with arbitrary strides (so transposed operands need no copy); every other loop (batch
//! loops, extra M/N/K loops, broadcast loops) becomes an outer loop around core calls
//! (`gemm_core.rs` runs one call).
//!
//! Threads ([`choose`]) go where the work can be shared without tiny pieces:
//! - across outer loops that write disjoint parts of the output, when there are at least as
//!   many of their points as threads (a batch: every core on one thread, no synchronisation
//!   inside a core);
//! - inside each core, when its output has room for a large block per thread;
//! - otherwise across a summed loop (K, or an outer loop the output does not move along):
//!   each thread sums its share of it into a private output, and the private outputs are
//!   added afterwards. This is how a deep product with a small output (`ijk,jkl->il`) uses
//!   the cores: split inside the core, its output would give each thread a sliver.
//!
//! Problems below a size threshold stay on the calling thread.

use super::error::KernelError;
use super::gemm_core::{call, Engine, Shape};
use super::scalar::Scalar;
use super::simplify::{injective, Operand, Plan};

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

impl Core {
    /// Whether loop `d` is one of the core's.
    pub fn has(&self, d: usize) -> bool {
        Some(d) == self.m || Some(d) == self.n || d == self.k
    }
}

/// Output elements per thread below which a core is not split inside.
const INNER_MIN_PER_THREAD: usize = 128 * 128;
/// Summed iterations per thread below which a summed loop is not split.
const SUM_MIN_PER_THREAD: usize = 32;
/// Private outputs stay below this many elements in all.
const SUM_MAX_PRIVATE: usize = 1 << 23;

/// Finds the GEMM core of a two-input plan, `None` when the plan is not GEMM-shaped. (The
/// caller checks the operators.)
pub fn find_core(plan: &Plan) -> Option<Core> {
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
    let (om, on) = (m.map_or(0, |d| o.strides[d]), n.map_or(0, |d| o.strides[d]));
    if !injective(&[ext(m), ext(n)], &[om, on]) {
        return None;
    }
    Some(Core { m, n, k })
}

/// `m·n·k` of one core call.
pub fn core_work(plan: &Plan, core: Core) -> usize {
    let ext = |d: Option<usize>| d.map_or(1, |d| plan.extents[d]);
    ext(core.m).saturating_mul(ext(core.n)).saturating_mul(plan.extents[core.k])
}

/// How a GEMM-shaped plan uses threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// Everything on the calling thread.
    Serial,
    /// Across the outer loops that write disjoint output (one thread per core call).
    Outer,
    /// Inside each core call.
    Inner,
    /// Across this summed loop, into private outputs added afterwards.
    Sum(usize),
}

/// Chooses how `threads` threads share a GEMM-shaped plan of `plan.points()` multiply-adds
/// (`min_points`: below it, one thread). `outer_disjoint`: the extent of the outer loop a
/// disjoint split would cut, if any.
pub fn choose(
    plan: &Plan,
    core: Core,
    threads: usize,
    min_points: usize,
    outer_disjoint: Option<usize>,
) -> Split {
    if threads <= 1 || plan.points() < min_points {
        return Split::Serial;
    }
    if outer_disjoint.is_some_and(|n| n >= threads) {
        return Split::Outer;
    }
    let ext = |d: Option<usize>| d.map_or(1, |d| plan.extents[d]);
    let out_elems = ext(core.m).saturating_mul(ext(core.n));
    if out_elems >= threads.saturating_mul(INNER_MIN_PER_THREAD) {
        return Split::Inner;
    }
    // The longest summed loop, if the private outputs stay small next to the work.
    let sum = (0..plan.extents.len())
        .filter(|&d| plan.out.strides[d] == 0)
        .max_by_key(|&d| plan.extents[d])
        .filter(|&d| plan.extents[d] >= threads.saturating_mul(SUM_MIN_PER_THREAD));
    let image = crate::tensor::address_range(&plan.extents, &plan.out.strides, 0)
        .map_or(0, |(lo, hi)| (hi - lo + 1) as usize);
    let privates = image.saturating_mul(threads);
    match sum {
        Some(d) if privates <= SUM_MAX_PRIVATE && privates.saturating_mul(16) <= plan.points() => {
            Split::Sum(d)
        }
        _ if outer_disjoint.is_some() => Split::Outer,
        _ => Split::Inner,
    }
}

/// Runs a GEMM-shaped plan: one core call per point of the outer loops. With `overwrite`
/// the first write of each output element replaces it (the caller guarantees every output
/// element of the image is written by exactly one core call); otherwise calls accumulate.
/// Cores of fewer than `direct_below` multiply-adds run by direct loops, others through the
/// crate with `threads` threads.
pub fn run<T: Scalar>(
    plan: &Plan,
    core: Core,
    ins: &[&[T]],
    out: &mut [T],
    overwrite: bool,
    (threads, direct_below): (usize, usize),
) -> Result<(), KernelError> {
    let (Some(lhs), Some(rhs)) = (ins.first(), ins.get(1)) else {
        return Err(KernelError::Arity { expected: 2, got: ins.len() });
    };
    let outer: smallvec::SmallVec<[usize; 8]> =
        (0..plan.extents.len()).filter(|&d| !core.has(d)).collect();
    let count: usize = outer.iter().map(|&d| plan.extents[d]).product();
    let ext = |d: Option<usize>| d.map_or(1, |d| plan.extents[d]);
    let st = |o: &Operand, d: Option<usize>| d.map_or(0, |d| o.strides[d]);
    let (o, a, b) = (&plan.out, &plan.ins[0], &plan.ins[1]);
    let shape = Shape {
        m: ext(core.m),
        n: ext(core.n),
        k: plan.extents[core.k],
        dst: (st(o, core.m), st(o, core.n)),
        lhs: (st(a, core.m), a.strides[core.k]),
        rhs: (b.strides[core.k], st(b, core.n)),
    };
    let engine =
        if core_work(plan, core) < direct_below { Engine::Direct } else { Engine::Crate(threads) };
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
        call(&shape, out, offs[0], lhs, offs[1], rhs, offs[2], overwrite, engine)?;
    }
    Ok(())
}
