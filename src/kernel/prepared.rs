//! [`Prepared`]: a nest validated and simplified once, to run many times on buffers of the
//! lengths it was prepared for (a compiled plan's nests).
//!
//! Small nests whose innermost loop reads and writes runs (stride 0 or 1 for every operand)
//! take a lean path: the simplified loops are stepped directly and each run along the
//! innermost loop goes to the slice kernels of `block.rs`, with none of the per-call work of
//! [`Nest::run_with`] (validation, simplification, choosing a path) and no allocation. Every
//! other nest, and buffers of other lengths than prepared, take [`Nest::run_with`].

use smallvec::SmallVec;

use super::block::{binary, nary, unary, Dst, Src};
use super::error::KernelError;
use super::nest::{Init, Nest};
use super::operator::{Accum, Combine};
use super::ops::{with_accum, with_combine, AccOp, CombOp};
use super::panel::Panel;
use super::run::RunOptions;
use super::scalar::Scalar;
use super::simplify::{injective, Plan};
use super::small_avx::Block;

/// Most points a nest may have for the lean path (larger ones gain nothing from it, and may
/// want threads or GEMM).
const LEAN_POINTS: usize = 1 << 15;

/// Operand positions in the lean loops: the output, then up to three inputs.
pub(super) const OPS: usize = 4;

/// The lean form of a nest.
#[derive(Clone, Debug)]
struct Lean {
    plan: Plan,
    /// The loops but the innermost: extent and each operand's stride.
    outer: SmallVec<[(usize, [isize; OPS]); 7]>,
    /// Each operand's stride along the innermost loop (0 or 1) and its origin.
    inner: [isize; OPS],
    origin: [isize; OPS],
    /// The innermost loop's extent.
    run: usize,
    /// The second innermost loop, when a run of it is a matrix product's panel (two inputs,
    /// one read once per point of the run and one along it, the output row kept along this
    /// loop): its extent and each operand's stride. Not among `outer` then.
    panel: Option<(usize, [isize; OPS])>,
    /// The accumulation it runs with (a plain store where every element is written once).
    accum: Accum,
    /// The accumulation whose neutral element the whole output is set to first, if any.
    fill: Option<Accum>,
    /// The panels' rows in blocks for the AVX2 kernels, where the processor has AVX2 and FMA
    /// and the nest adds products in rows they take (taken by f32 buffers).
    small: Option<Block>,
    /// The work of the GEMM core the nest has, if it has one (the general path may hand it to
    /// the `gemm` crate when options ask for that).
    gemm_work: Option<usize>,
}

/// A nest prepared for buffers of given lengths ([`Nest::prepare`]).
#[derive(Clone, Debug)]
pub struct Prepared {
    nest: Nest,
    lens: SmallVec<[usize; 4]>,
    out_len: usize,
    lean: Option<Lean>,
}

impl Nest {
    /// Validates the nest for inputs of `input_lens` elements and an output of `output_len`,
    /// and prepares it to run many times.
    pub fn prepare(
        &self,
        input_lens: &[usize],
        output_len: usize,
    ) -> Result<Prepared, KernelError> {
        self.validate(input_lens, output_len)?;
        Ok(Prepared {
            nest: self.clone(),
            lens: input_lens.into(),
            out_len: output_len,
            lean: self.lean(),
        })
    }

    fn lean(&self) -> Option<Lean> {
        let points = self.points().ok()?;
        if self.has_guards() || points == 0 || points > LEAN_POINTS || self.inputs.is_empty() {
            return None;
        }
        let plan = Plan::from_nest(self);
        let r = plan.extents.len();
        let unit = plan.operands().all(|o| matches!(o.strides[r - 1], 0 | 1));
        if r > 8 || plan.ins.len() >= OPS || !unit {
            return None;
        }
        let per_operand = |f: &dyn Fn(&super::simplify::Operand) -> isize| {
            let mut a = [0; OPS];
            for (slot, o) in a.iter_mut().zip(plan.operands()) {
                *slot = f(o);
            }
            a
        };
        let (inner, origin) = (per_operand(&|o| o.strides[r - 1]), per_operand(&|o| o.offset));
        let panel = r >= 2
            && plan.ins.len() == 2
            && inner[0] == 1
            && plan.out.strides[r - 2] == 0
            && matches!((inner[1], inner[2]), (0, 1) | (1, 0));
        let loops = if panel { r - 2 } else { r - 1 };
        let outer: SmallVec<[_; 7]> =
            (0..loops).map(|d| (plan.extents[d], per_operand(&|o| o.strides[d]))).collect();
        let panel = panel.then(|| (plan.extents[r - 2], per_operand(&|o| o.strides[r - 2])));
        let run = plan.extents[r - 1];
        let neutral = self.accum.neutral();
        let (accum, fill) = match (self.init, neutral) {
            (Init::No, _) | (_, None) => (self.accum, None),
            (Init::Whole, Some(_)) => (self.accum, Some(self.accum)),
            (Init::Touched, Some(_)) if injective(&plan.extents, &plan.out.strides) => {
                (Accum::Store, None)
            }
            (Init::Touched, Some(_)) => return None,
        };
        let gemm = self.accum == Accum::Add && self.combine == Combine::Mul;
        let gemm_work = super::gemm::find_core(&plan)
            .filter(|_| gemm)
            .map(|c| super::gemm::core_work(&plan, c));
        let products = accum == Accum::Add && self.combine == Combine::Mul;
        let small = match (&panel, outer.last()) {
            (Some((m, s)), Some((e, st))) if products => {
                // Output, the input read once per run, the input read along it.
                let [o, x, y] = if inner[1] == 0 { [0, 1, 2] } else { [0, 2, 1] };
                Block::new(run, *m, *e, [st[o], st[x], st[y]], [s[o], s[x], s[y]])
            }
            _ => None,
        };
        Some(Lean { plan, outer, inner, origin, run, panel, accum, fill, small, gemm_work })
    }
}

impl Nest {
    /// Runs the nest (as [`Nest::run_with`]), on the lean path when it takes it: for nests
    /// made anew for each call (a compiled plan aimed at strided views).
    pub fn run_lean_or_general<T: Scalar>(
        &self,
        inputs: &[&[T]],
        output: &mut [T],
        opts: &RunOptions,
    ) -> Result<(), KernelError> {
        let lens: SmallVec<[usize; 4]> = inputs.iter().map(|i| i.len()).collect();
        self.validate(&lens, output.len())?;
        match self.lean().filter(|l| l.suits(opts)) {
            Some(lean) => lean.execute(self.combine, inputs, output),
            None => self.run_with(inputs, output, opts),
        }
    }
}

impl Prepared {
    /// The nest.
    pub fn nest(&self) -> &Nest {
        &self.nest
    }

    /// Whether f32 buffers of the prepared lengths take the AVX2 kernels of small products.
    #[cfg(test)]
    pub(super) fn takes_small(&self) -> bool {
        self.lean.as_ref().is_some_and(|l| l.small.is_some())
    }

    /// Runs the nest on `inputs` into `output` (as [`Nest::run_with`]).
    pub fn run<T: Scalar>(
        &self,
        inputs: &[&[T]],
        output: &mut [T],
        opts: &RunOptions,
    ) -> Result<(), KernelError> {
        let same = inputs.len() == self.lens.len()
            && inputs.iter().zip(&self.lens).all(|(i, n)| i.len() == *n)
            && output.len() == self.out_len;
        let Some(lean) = self.lean.as_ref().filter(|l| same && l.suits(opts)) else {
            return self.nest.run_with(inputs, output, opts);
        };
        lean.execute(self.nest.combine, inputs, output)
    }
}

impl Lean {
    /// Runs the lean form on buffers its nest was validated for.
    fn execute<T: Scalar>(
        &self,
        combine: Combine,
        inputs: &[&[T]],
        output: &mut [T],
    ) -> Result<(), KernelError> {
        if let Some(z) = self.fill.and_then(Accum::neutral_value::<T>) {
            output.fill(z);
        }
        let small = match (&self.small, inputs) {
            (Some(b), [x, y]) => T::f32s(x).zip(T::f32s(y)).map(|xy| (b, xy)),
            _ => None,
        };
        let done = match (small, T::f32s_mut(output)) {
            (Some((b, (x, y))), Some(out)) => self.run_small(b, x, y, out),
            (_, _) => {
                with_accum!(self.accum, A => with_combine!(combine, C => self.run::<T, A, C>(inputs, output)))
            }
        };
        // Unreachable for validated buffers (every address was checked).
        done.ok_or_else(|| KernelError::OutOfBounds {
            operand: "an operand".into(),
            reach: -1,
            len: 0,
        })
    }

    /// [`Lean::run_panels`] of f32 products by the AVX2 kernels, a block of rows at a time.
    fn run_small(&self, b: &Block, x: &[f32], y: &[f32], out: &mut [f32]) -> Option<()> {
        // Output, the input read once per run, the input read along it.
        let ([o, i, j], once, along) = match self.inner[1] {
            0 => ([0, 1, 2], x, y),
            _ => ([0, 2, 1], y, x),
        };
        let (mut idx, mut at) = ([0usize; 8], self.origin);
        let (last, st) = (self.outer.len().checked_sub(1)?, self.outer.last()?.1);
        let more = b.rows() as isize - 1;
        loop {
            b.run([at[o], at[i], at[j]], once, along, out)?;
            // The block's other rows on along the innermost loop (a multiple of its rows: no
            // carry), then one step of the odometer.
            idx[last] += b.rows() - 1;
            at.iter_mut().zip(&st).for_each(|(a, s)| *a += more * s);
            if !self.step(&mut idx, &mut at) {
                return Some(());
            }
        }
    }

    /// Whether the options leave the nest to one thread without GEMM.
    fn suits(&self, opts: &RunOptions) -> bool {
        let threads = opts.threads > 1 && self.plan.points() >= opts.min_parallel_points;
        let gemm = opts.gemm && self.gemm_work.is_some_and(|w| w >= opts.gemm_min_work);
        !threads && !gemm
    }
}

impl Lean {
    /// Steps the loops but the innermost, handing each innermost run to the slice kernels;
    /// `None` if an address leaves its buffer.
    fn run<T: Scalar, A: AccOp<T>, C: CombOp<T>>(&self, ins: &[&[T]], out: &mut [T]) -> Option<()> {
        let n = self.run;
        let mut idx = [0usize; 8];
        let mut at = self.origin;
        if let Some(panel) = &self.panel {
            return self.run_panels::<T, A, C>(panel, ins, out);
        }
        loop {
            let dst = match self.inner[0] {
                0 => Dst::Reduce(out.get_mut(usize::try_from(at[0]).ok()?)?),
                _ => Dst::Slice(slice_mut(out, at[0], n)?),
            };
            match ins {
                [x] => unary::<T, A>(source(x, at[1], self.inner[1], n)?, dst, n),
                [x, y] => {
                    let (x, y) =
                        (source(x, at[1], self.inner[1], n)?, source(y, at[2], self.inner[2], n)?);
                    binary_run::<T, A, C>(x, y, dst, n)
                }
                xs => {
                    let mut srcs: SmallVec<[Src<'_, T>; 3]> = SmallVec::new();
                    for (k, x) in xs.iter().enumerate() {
                        srcs.push(source(x, at[k + 1], self.inner[k + 1], n)?);
                    }
                    nary::<T, A, C>(&srcs, dst, n)
                }
            }
            if !self.step(&mut idx, &mut at) {
                return Some(());
            }
        }
    }

    /// [`Lean::run`] of a nest whose second innermost loop is a matrix product's panel: each
    /// output row is read and written once per panel, kept while the panel's runs accumulate.
    fn run_panels<T: Scalar, A: AccOp<T>, C: CombOp<T>>(
        &self,
        (m, s): &(usize, [isize; OPS]),
        ins: &[&[T]],
        out: &mut [T],
    ) -> Option<()> {
        let [x, y] = ins else { return None };
        let n = self.run;
        let (mut idx, mut at) = ([0usize; 8], self.origin);
        // Which input is read once per run (stride 0 along it).
        let once_first = self.inner[1] == 0;
        // Small rows along an innermost outer loop of a multiple of four distinct rows: four
        // rows at once, their sums independent (the adds of one row wait on each other).
        let quad = match self.outer.last() {
            Some((e, st)) if e % 4 == 0 && matches!(n, 4 | 8 | 16) && st[0].unsigned_abs() >= n => {
                Some(*st)
            }
            _ => None,
        };
        loop {
            if let Some(st) = &quad {
                let panel = Panel { m: *m, s: *s, x, y, at: &at, once_first };
                match n {
                    4 => panel.quad::<A, C, 4>(out, st)?,
                    8 => panel.quad::<A, C, 8>(out, st)?,
                    _ => panel.quad::<A, C, 16>(out, st)?,
                }
                // Three rows on along the innermost loop (a multiple of four: no carry), then
                // one step of the odometer.
                let last = self.outer.len() - 1;
                idx[last] += 3;
                at.iter_mut().zip(st).for_each(|(a, s)| *a += 3 * s);
                if !self.step(&mut idx, &mut at) {
                    return Some(());
                }
                continue;
            }
            let row = slice_mut(out, at[0], n)?;
            let panel = Panel { m: *m, s: *s, x, y, at: &at, once_first };
            match n {
                4 => panel.rows_fixed::<A, C, 4>(row)?,
                8 => panel.rows_fixed::<A, C, 8>(row)?,
                16 => panel.rows_fixed::<A, C, 16>(row)?,
                _ => panel.rows::<A, C>(row)?,
            }
            if !self.step(&mut idx, &mut at) {
                return Some(());
            }
        }
    }

    /// Steps the odometer over the outer loops (innermost of them fastest), moving every
    /// operand's address; false after the last point.
    fn step(&self, idx: &mut [usize; 8], at: &mut [isize; OPS]) -> bool {
        let mut k = self.outer.len();
        loop {
            if k == 0 {
                return false;
            }
            k -= 1;
            let (extent, strides) = &self.outer[k];
            idx[k] += 1;
            for (a, s) in at.iter_mut().zip(strides) {
                *a += s;
            }
            if idx[k] < *extent {
                return true;
            }
            idx[k] = 0;
            for (a, s) in at.iter_mut().zip(strides) {
                *a -= s * *extent as isize;
            }
        }
    }
}

/// [`binary`], with the runs of the matrix products (one input read once, the other along
/// the run) written here to be inlined: a small nest is mostly such runs, and the call costs
/// as much as the run.
#[inline(always)]
fn binary_run<T: Scalar, A: AccOp<T>, C: CombOp<T>>(
    x: Src<'_, T>,
    y: Src<'_, T>,
    dst: Dst<'_, T>,
    n: usize,
) {
    match (dst, x, y) {
        (Dst::Slice(o), Src::Scalar(a), Src::Slice(y)) => {
            for (o, &b) in o.iter_mut().zip(y) {
                *o = A::acc(*o, C::comb(a, b));
            }
        }
        (Dst::Slice(o), Src::Slice(x), Src::Scalar(b)) => {
            for (o, &a) in o.iter_mut().zip(x) {
                *o = A::acc(*o, C::comb(a, b));
            }
        }
        (dst, x, y) => binary::<T, A, C>(x, y, dst, n),
    }
}

/// An input's run of `n` points from address `at` with stride `s` (0 or 1).
#[inline(always)]
fn source<T: Scalar>(buf: &[T], at: isize, s: isize, n: usize) -> Option<Src<'_, T>> {
    let start = usize::try_from(at).ok()?;
    Some(match s {
        0 => Src::Scalar(*buf.get(start)?),
        _ => Src::Slice(buf.get(start..start.checked_add(n)?)?),
    })
}

#[inline(always)]
pub(super) fn slice<T>(buf: &[T], at: isize, n: usize) -> Option<&[T]> {
    let start = usize::try_from(at).ok()?;
    buf.get(start..start.checked_add(n)?)
}

#[inline(always)]
pub(super) fn slice_mut<T>(buf: &mut [T], at: isize, n: usize) -> Option<&mut [T]> {
    let start = usize::try_from(at).ok()?;
    buf.get_mut(start..start.checked_add(n)?)
}

#[cfg(test)]
mod tests {
    use crate::kernel::{run_reference, Access, Accum, Combine, Init, Nest, RunOptions};

    fn nest(extents: &[usize], out: (isize, &[isize]), ins: &[(isize, &[isize])]) -> Nest {
        Nest {
            extents: extents.to_vec(),
            output: Access::new(out.0, out.1.to_vec()),
            inputs: ins.iter().map(|(o, s)| Access::new(*o, s.to_vec())).collect(),
            accum: Accum::Add,
            combine: Combine::Mul,
            init: Init::No,
        }
    }

    /// The lean path gives the reference's values, for every initialisation and operand count.
    #[test]
    fn prepared_runs_match_the_reference() {
        let cases = [
            // ij,jk->ik; a reduction to a scalar; a transposed copy; three inputs.
            nest(&[3, 4, 5], (0, &[5, 0, 1]), &[(0, &[4, 1, 0]), (0, &[0, 5, 1])]),
            nest(&[4, 6], (0, &[0, 0]), &[(0, &[6, 1]), (1, &[0, 0])]),
            nest(&[5, 3], (0, &[1, 5]), &[(0, &[3, 1])]),
            nest(&[2, 7], (0, &[7, 1]), &[(0, &[7, 1]), (0, &[0, 1]), (1, &[7, 0])]),
        ];
        let data: Vec<f64> = (0..64).map(|i| (i % 7) as f64 - 3.0).collect();
        for base in cases {
            for (init, accum) in [
                (Init::No, Accum::Add),
                (Init::Whole, Accum::Max),
                (Init::Touched, Accum::Add),
                (Init::Whole, Accum::Mul),
            ] {
                let n = Nest { init, accum, ..base.clone() };
                let ins: Vec<&[f64]> = n.inputs.iter().map(|_| &data[..]).collect();
                let mut want = vec![2.0; 40];
                run_reference(&n, &ins, &mut want).expect("reference runs");
                let prepared = n.prepare(&[64; 3][..ins.len()], 40).expect("prepares");
                let opts = RunOptions { threads: 1, ..RunOptions::default() };
                let mut got = vec![2.0; 40];
                prepared.run(&ins, &mut got, &opts).expect("runs");
                assert_eq!(got, want, "{init:?} {accum:?} {n:?}");
                // Other lengths take the checked path, with the same values.
                let mut longer = vec![2.0; 41];
                prepared.run(&ins, &mut longer, &opts).expect("runs");
                assert_eq!(&longer[..40], &want[..], "{n:?}");
            }
        }
    }
}
