//! Running a [`Nest`]: validation, initialisation, then the fastest applicable path —
//! the guarded slow path, a GEMM call, or the strided executor, split across threads when the
//! work is large.

use rayon::prelude::*;

use super::error::KernelError;
use super::exec::{collect, execute};
use super::gemm;
use super::guarded;
use super::nest::{Access, Init, Nest};
use super::ops::{Accum, Combine};
use super::parallel::{run_chunks, split_disjoint, split_private};
use super::scalar::Scalar;
use super::simplify::{injective, Plan};
use crate::tensor::hugepage;

/// How a nest may be run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// Worker threads (1: run on the calling thread only).
    pub threads: usize,
    /// Whether GEMM-shaped nests may be handed to the `gemm` crate.
    pub gemm: bool,
    /// Points below which a nest is never split across threads.
    pub min_parallel_points: usize,
    /// Smallest `m·n·k` handed to GEMM (smaller contractions use the strided executor).
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
        let lens: smallvec::SmallVec<[usize; 4]> = inputs.iter().map(|i| i.len()).collect();
        self.validate(&lens, output.len())?;
        let neutral = self.accum.neutral().map(T::from_f64);
        let mut init = self.init;
        if let (Init::Whole, Some(z)) = (init, neutral) {
            output.iter_mut().for_each(|o| *o = z);
            init = Init::No;
        }
        if self.points()? == 0 {
            return Ok(());
        }
        if self.has_guards() {
            return guarded::run(&Nest { init, ..self.clone() }, inputs, output);
        }
        let plan = Plan::from_nest(self);
        let mut accum = self.accum;
        let mut touched = init == Init::Touched && neutral.is_some();
        if touched && injective(&plan.extents, &plan.out.strides) {
            // Every element is written once: neutral ⊕ v = v.
            accum = Accum::Store;
            touched = false;
        }
        if opts.gemm && accum == Accum::Add && self.combine == Combine::Mul {
            if let Some(core) = gemm::find_core(&plan, opts.gemm_min_work) {
                return run_gemm(&plan, core, inputs, output, touched, opts);
            }
        }
        if let (true, Some(z)) = (touched, neutral) {
            fill_image(&plan, z, output, opts)?;
        }
        run_strided(&plan, accum, self.combine, inputs, output, opts)
    }
}

impl Nest {
    /// Runs the nest into a fresh buffer of `len` elements that starts out holding the
    /// accumulation's neutral element (0 for `Store`). When the output is written in address
    /// order, every element once (a row-major output without reductions), the values are
    /// appended to an empty vector instead: no initialisation pass over the output.
    pub fn run_fresh<T: Scalar>(
        &self,
        inputs: &[&[T]],
        len: usize,
        opts: &RunOptions,
    ) -> Result<Vec<T>, KernelError> {
        self.validate(&inputs.iter().map(|i| i.len()).collect::<Vec<_>>(), len)?;
        let points = self.points()?;
        let small = opts.threads <= 1 || points < opts.min_parallel_points;
        let mut scattered = false;
        if !self.has_guards() && points > 0 {
            let plan = Plan::from_nest_output_order(self);
            let row_major = crate::tensor::row_major(&plan.extents)
                .is_ok_and(|rm| rm.as_slice() == plan.out.strides.as_slice());
            scattered = transposing(&plan);
            if small && plan.out.offset == 0 && plan.points() == len && row_major && !scattered {
                return collect(&plan, self.combine, inputs);
            }
        }
        let fill = self.accum.neutral().map_or(T::ZERO, T::from_f64);
        let mut out = if scattered || fill != T::ZERO {
            // An explicit fill touches the pages in address order: the scattered first
            // touches of a tiled transpose into lazily zeroed (calloc) pages cost twice as much.
            hugepage::filled(len, fill)?
        } else {
            hugepage::zeroed(len, T::ZERO)?
        };
        self.run_with(inputs, &mut out, opts)?;
        Ok(out)
    }
}

/// Whether an input is contiguous along an outer loop but strided along the innermost: a
/// transpose, which the tiled executor handles better than an in-order pass.
fn transposing(plan: &Plan) -> bool {
    let r = plan.extents.len();
    plan.ins
        .iter()
        .any(|o| o.strides[r - 1].abs() > 1 && o.strides[..r - 1].iter().any(|s| s.abs() == 1))
}

fn run_gemm<T: Scalar>(
    plan: &Plan,
    core: gemm::Core,
    ins: &[&[T]],
    out: &mut [T],
    touched: bool,
    opts: &RunOptions,
) -> Result<(), KernelError> {
    let is_core = |d: usize| Some(d) == core.m || Some(d) == core.n || d == core.k;
    let outer_reduces = (0..plan.extents.len()).any(|d| !is_core(d) && plan.out.strides[d] == 0);
    let overwrite = touched && !outer_reduces;
    if touched && !overwrite {
        fill_image(plan, T::ZERO, out, opts)?;
    }
    if opts.threads > 1 && plan.points() >= opts.min_parallel_points {
        if let Some(chunks) = split_disjoint(plan, opts.threads, |d| !is_core(d)) {
            return run_chunks(chunks, out, |p, o| gemm::run(p, core, ins, o, overwrite, 1));
        }
    }
    gemm::run(plan, core, ins, out, overwrite, opts.threads)
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
    let Some(neutral) = accum.neutral() else { return execute(plan, accum, combine, ins, out) };
    // A reduction: private outputs along the largest loop the output does not move along.
    let p = (0..plan.extents.len())
        .filter(|&d| plan.out.strides[d] == 0)
        .max_by_key(|&d| plan.extents[d]);
    let split = p.and_then(|p| split_private(plan, p, opts.threads));
    let Some((subs, range)) = split.filter(|(_, r)| r.len().saturating_mul(64) <= plan.points())
    else {
        return execute(plan, accum, combine, ins, out);
    };
    let z = T::from_f64(neutral);
    let privates = subs
        .into_par_iter()
        .map(|sub| {
            let mut buf = vec![z; range.len()];
            execute(&sub, accum, combine, ins, &mut buf).map(|()| buf)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let target = out
        .get_mut(range.clone())
        .ok_or(KernelError::Overflow { what: "a private output range" })?;
    for buf in privates {
        target.iter_mut().zip(&buf).for_each(|(o, &v)| *o = accum.apply(*o, v));
    }
    Ok(())
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
