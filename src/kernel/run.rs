//! Running a [`Nest`]: validation, initialisation, then the fastest applicable path —
//! the guarded slow path, a GEMM call, or the strided executor, split across threads when the
//! work is large. Fresh outputs ([`Nest::run_fresh`]) are written by the threads that compute
//! them, without a separate initialisation pass where every element is written once.

use rayon::prelude::*;
use smallvec::SmallVec;

use super::collect::{collect, in_order, transposing};
use super::error::KernelError;
use super::exec::execute;
use super::fresh;
use super::gemm::{self, find_core, Split};
use super::guarded;
use super::nest::{Access, Init, Nest};
use super::operator::{Accum, Combine};
use super::parallel::{disjoint_loop, run_chunks, run_private, split_disjoint, split_private};
use super::scalar::Scalar;
use super::simplify::{injective, Plan};

/// How a nest may be run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// Worker threads (1: run on the calling thread only).
    pub threads: usize,
    /// Whether GEMM-shaped nests take the GEMM paths (direct loops for small products, the
    /// `gemm` crate for larger ones) rather than the strided executor.
    pub gemm: bool,
    /// Points below which a nest is never split across threads (multiply-adds of a GEMM
    /// count a sixteenth: they are that much cheaper).
    pub min_parallel_points: usize,
    /// Smallest `m·n·k` of a GEMM core handed to the `gemm` crate (smaller cores run by
    /// direct loops).
    pub gemm_min_work: usize,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            threads: rayon::current_num_threads(),
            gemm: true,
            min_parallel_points: 1 << 16,
            gemm_min_work: 4096,
        }
    }
}

/// What the output holds where the plan writes, before it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Start {
    /// Values to accumulate into.
    Keep,
    /// Anything: each element written must first be set to the neutral element.
    Touched,
    /// The neutral element already.
    Neutral,
}

impl Nest {
    /// Runs the nest on `inputs` (one buffer per input access) into `output`, with default
    /// options (all rayon threads, GEMM dispatch on).
    pub fn run<T: Scalar>(&self, inputs: &[&[T]], output: &mut [T]) -> Result<(), KernelError> {
        self.run_with(inputs, output, &RunOptions::default())
    }

    /// Runs the nest with explicit options.
    pub fn run_with<T: Scalar>(
        &self,
        inputs: &[&[T]],
        output: &mut [T],
        opts: &RunOptions,
    ) -> Result<(), KernelError> {
        self.check(inputs, output.len())?;
        let neutral = self.accum.neutral_value::<T>();
        let mut init = self.init;
        if let (Init::Whole, Some(z)) = (init, neutral) {
            if self.writes_each_once(output.len()) {
                // Setting each element as it is written is the same, without a pass of its
                // own over the output: an elementwise einsum into `out=` writes the output
                // once, rather than filling it, then reading it back to add to it.
                init = Init::Touched;
            } else {
                fill(output, z, opts);
                init = Init::No;
            }
        }
        if self.points()? == 0 {
            return Ok(());
        }
        if self.has_guards() {
            return guarded::run(&Nest { init, ..self.clone() }, inputs, output);
        }
        let start =
            if init == Init::Touched && neutral.is_some() { Start::Touched } else { Start::Keep };
        run_plan(&Plan::from_nest(self), self.accum, self.combine, start, inputs, output, opts)
    }

    /// Runs the nest into a fresh buffer of `len` elements that starts out holding the
    /// accumulation's neutral element (0 for `Store`). When the output is written in address
    /// order, every element once (a row-major output without reductions), the values are
    /// written straight into uninitialised memory, by the threads that compute them.
    pub fn run_fresh<T: Scalar>(
        &self,
        inputs: &[&[T]],
        len: usize,
        opts: &RunOptions,
    ) -> Result<Vec<T>, KernelError> {
        self.check(inputs, len)?;
        let points = self.points()?;
        let fill = self.accum.neutral_value::<T>().unwrap_or(T::ZERO);
        if points == 0 || self.has_guards() {
            let mut out = fresh_filled(len, fill, false, opts)?;
            self.run_with(inputs, &mut out, opts)?;
            return Ok(out);
        }
        // Only a nest without reduction loops can write every element once, in order.
        let no_sum = self.extents.iter().zip(&self.output.strides).all(|(&e, &s)| e == 1 || s != 0);
        let mut scattered = false;
        if no_sum {
            let plan = Plan::from_nest_output_order(self);
            scattered = transposing(&plan);
            if in_order(&plan, len) && !scattered {
                return fresh_in_order(&plan, self.combine, inputs, len, opts);
            }
        }
        // A transpose writes tile by tile: small pages are first filled in address order
        // (see `fresh_filled`).
        let mut out = fresh_filled(len, fill, scattered, opts)?;
        let plan = Plan::from_nest(self);
        run_plan(&plan, self.accum, self.combine, Start::Neutral, inputs, &mut out, opts)?;
        Ok(out)
    }

    /// Whether the nest writes every element of an output of `len` elements exactly once
    /// (no guards, no reduction loops, as many points as elements, distinct addresses; the
    /// addresses were validated to lie in the output).
    fn writes_each_once(&self, len: usize) -> bool {
        !self.has_guards()
            && self.points().is_ok_and(|p| p == len)
            && injective(&self.extents, &self.output.strides)
    }

    /// Validation without allocating for the common case of a few inputs.
    fn check<T>(&self, inputs: &[&[T]], output_len: usize) -> Result<(), KernelError> {
        let lens: SmallVec<[usize; 4]> = inputs.iter().map(|i| i.len()).collect();
        self.validate(&lens, output_len)
    }
}

/// `len` elements holding `value`, written by the workers when large. `scattered`: the
/// output is first written tile by tile (a transpose), where lazily zeroed small pages, each
/// faulted in out of order, cost twice what filling them in address order does; a buffer
/// large enough for huge pages ([`MIN_BYTES`](crate::tensor::hugepage::MIN_BYTES)) is left
/// to them whatever the order, its pages zeroed by the workers that first write them (a
/// 4000² f64 transposed copy took 17% less time than over a filled buffer, at one thread as
/// at two).
fn fresh_filled<T: Scalar>(
    len: usize,
    value: T,
    scattered: bool,
    opts: &RunOptions,
) -> Result<Vec<T>, KernelError> {
    let huge = len.saturating_mul(std::mem::size_of::<T>()) >= crate::tensor::hugepage::MIN_BYTES;
    let lazy = value == T::ZERO && (!scattered || huge);
    if scattered && lazy {
        Ok(crate::tensor::hugepage::zeroed(len, T::ZERO)?)
    } else if opts.threads > 1 && len >= opts.min_parallel_points {
        fresh::filled(len, value, opts.threads)
    } else if lazy {
        Ok(crate::tensor::hugepage::zeroed(len, T::ZERO)?)
    } else {
        Ok(crate::tensor::hugepage::filled(len, value)?)
    }
}

/// `out[..] = value`, in parallel pieces when large.
fn fill<T: Scalar>(out: &mut [T], value: T, opts: &RunOptions) {
    if opts.threads > 1 && out.len() >= opts.min_parallel_points {
        let piece = out.len().div_ceil(opts.threads);
        out.par_chunks_mut(piece).for_each(|c| c.iter_mut().for_each(|o| *o = value));
    } else {
        out.iter_mut().for_each(|o| *o = value);
    }
}

/// A fresh output of an in-order plan, appended piece by piece (one piece per thread when
/// large).
fn fresh_in_order<T: Scalar>(
    plan: &Plan,
    combine: Combine,
    ins: &[&[T]],
    len: usize,
    opts: &RunOptions,
) -> Result<Vec<T>, KernelError> {
    if opts.threads > 1 && plan.points() >= opts.min_parallel_points {
        if let Some(chunks) = split_disjoint(plan, opts.threads, |_| true) {
            let ranges: Vec<_> = chunks.iter().map(|c| c.range.clone()).collect();
            return fresh::build(len, &ranges, |k, f| collect(&chunks[k].plan, combine, ins, f));
        }
    }
    fresh::build(len, std::slice::from_ref(&(0..len)), |_, f| collect(plan, combine, ins, f))
}

/// Runs an unguarded plan, the output starting as `start` says.
fn run_plan<T: Scalar>(
    plan: &Plan,
    accum: Accum,
    combine: Combine,
    start: Start,
    ins: &[&[T]],
    out: &mut [T],
    opts: &RunOptions,
) -> Result<(), KernelError> {
    let mut accum = accum;
    let mut start = start;
    if start != Start::Keep && injective(&plan.extents, &plan.out.strides) {
        // Every element is written once: neutral ⊕ v = v.
        accum = Accum::Store;
        start = Start::Keep;
    }
    if opts.gemm && T::GEMM_CRATE && accum == Accum::Add && combine == Combine::Mul {
        if let Some(core) = find_core(plan) {
            return run_gemm(plan, core, ins, out, start, opts);
        }
    }
    if start == Start::Touched {
        fill_image(plan, accum.neutral_value::<T>().unwrap_or(T::ZERO), out, opts)?;
    }
    run_strided(plan, accum, combine, ins, out, opts)
}

fn run_gemm<T: Scalar>(
    plan: &Plan,
    core: gemm::Core,
    ins: &[&[T]],
    out: &mut [T],
    start: Start,
    opts: &RunOptions,
) -> Result<(), KernelError> {
    // Whether each output element gets exactly one core call's write (then the first write
    // may replace the neutral element instead of adding to it).
    let once = {
        let keep = |d: &usize| *d != core.k;
        let ext: SmallVec<[usize; 8]> =
            (0..plan.extents.len()).filter(keep).map(|d| plan.extents[d]).collect();
        let st: SmallVec<[isize; 8]> =
            (0..plan.extents.len()).filter(keep).map(|d| plan.out.strides[d]).collect();
        injective(&ext, &st)
    };
    let overwrite = start != Start::Keep && once;
    let outer = disjoint_loop(plan, |d| !core.has(d)).map(|d| plan.extents[d]);
    let min_points = opts.min_parallel_points.saturating_mul(16);
    let split = gemm::choose(plan, core, opts.threads, min_points, outer);
    let needs_zero = start == Start::Touched && (!overwrite || matches!(split, Split::Sum(_)));
    if needs_zero {
        fill_image(plan, T::ZERO, out, opts)?;
    }
    let serial = (1, opts.gemm_min_work);
    match split {
        Split::Serial => gemm::run(plan, core, ins, out, overwrite, serial),
        Split::Inner => {
            gemm::run(plan, core, ins, out, overwrite, (opts.threads, opts.gemm_min_work))
        }
        Split::Outer => {
            let chunks = split_disjoint(plan, opts.threads * 4, |d| !core.has(d))
                .ok_or(KernelError::Overflow { what: "a GEMM split" })?;
            run_chunks(chunks, out, |p, o| gemm::run(p, core, ins, o, overwrite, serial))
        }
        Split::Sum(d) => {
            let (subs, range) = split_private(plan, d, opts.threads)
                .ok_or(KernelError::Overflow { what: "a GEMM split" })?;
            let each = |p: &Plan, o: &mut [T]| gemm::run(p, core, ins, o, once, serial);
            run_private(subs, range, out, Accum::Add, T::ZERO, each)
        }
    }
}

/// The strided executor, split across threads when the plan is large.
fn run_strided<T: Scalar>(
    plan: &Plan,
    accum: Accum,
    combine: Combine,
    ins: &[&[T]],
    out: &mut [T],
    opts: &RunOptions,
) -> Result<(), KernelError> {
    if opts.threads <= 1 || plan.points() < opts.min_parallel_points {
        return execute(plan, accum, combine, ins, out);
    }
    if let Some(chunks) = split_disjoint(plan, opts.threads * 4, |_| true) {
        return run_chunks(chunks, out, |p, o| execute(p, accum, combine, ins, o));
    }
    let Some(neutral) = accum.neutral_value::<T>() else {
        return execute(plan, accum, combine, ins, out);
    };
    // A reduction: private outputs along the largest loop the output does not move along.
    let p = (0..plan.extents.len())
        .filter(|&d| plan.out.strides[d] == 0)
        .max_by_key(|&d| plan.extents[d]);
    let split = p.and_then(|p| split_private(plan, p, opts.threads));
    let Some((subs, range)) = split.filter(|(_, r)| r.len().saturating_mul(64) <= plan.points())
    else {
        return execute(plan, accum, combine, ins, out);
    };
    let each = |p: &Plan, o: &mut [T]| execute(p, accum, combine, ins, o);
    run_private(subs, range, out, accum, neutral, each)
}

/// Sets every output element the plan writes to `value`.
fn fill_image<T: Scalar>(
    plan: &Plan,
    value: T,
    out: &mut [T],
    opts: &RunOptions,
) -> Result<(), KernelError> {
    let loops: Vec<usize> = (0..plan.extents.len()).filter(|&d| plan.out.strides[d] != 0).collect();
    let fill = Nest {
        extents: loops.iter().map(|&d| plan.extents[d]).collect(),
        output: Access::new(plan.out.offset, loops.iter().map(|&d| plan.out.strides[d]).collect()),
        inputs: vec![Access::new(0, vec![0; loops.len()])],
        accum: Accum::Store,
        combine: Combine::First,
        init: Init::No,
    };
    let fill_plan = Plan::from_nest(&fill);
    run_strided(&fill_plan, Accum::Store, Combine::First, &[&[value]], out, opts)
}
