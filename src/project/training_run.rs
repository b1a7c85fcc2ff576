//! Running a [`Training`]: the forward steps, then the backward steps, on the caller's leaf
//! buffers and parameter gradients and a [`Workspace`]'s arena.

use std::ops::Range;

use smallvec::SmallVec;

use super::error::ProjectError;
use super::storage::Storage;
use super::training::{Place, Read, Training};
use crate::ids::{StepId, TensorId};
use crate::infer::InferError;
use crate::kernel::{KernelError, RunOptions};
use crate::tensor::TensorError;

/// What a framework does between the steps of a [`Training`] run: what the plans do not
/// compute (an activation, a softmax) and its derivative.
pub trait Hooks<T> {
    /// Called with a step's result once the step has run forward, before any later step
    /// reads it (apply an activation in place).
    fn forward(&mut self, step: StepId, result: &mut [T]) -> Result<(), ProjectError> {
        let _ = (step, result);
        Ok(())
    }

    /// Called before the step's gradient plans run, with its result (as the forward hook
    /// left it) and the gradient of its result, complete (multiply by the activation's
    /// derivative in place).
    fn backward(&mut self, step: StepId, result: &[T], grad: &mut [T]) -> Result<(), ProjectError> {
        let _ = (step, result, grad);
        Ok(())
    }
}

/// No hooks: the plans alone.
impl<T> Hooks<T> for () {}

/// Two hooks in sequence: forward runs `A`'s then `B`'s; backward, by the chain rule, `B`'s
/// then `A`'s (native [`Activations`](super::Activations) first, then a framework's own).
impl<T, A: Hooks<T>, B: Hooks<T>> Hooks<T> for (A, B) {
    fn forward(&mut self, step: StepId, result: &mut [T]) -> Result<(), ProjectError> {
        self.0.forward(step, result)?;
        self.1.forward(step, result)
    }

    fn backward(&mut self, step: StepId, result: &[T], grad: &mut [T]) -> Result<(), ProjectError> {
        self.1.backward(step, result, grad)?;
        self.0.backward(step, result, grad)
    }
}

/// The arena a [`Training`] runs in: its intermediate values and gradients.
#[derive(Clone, Debug)]
pub struct Workspace<T> {
    arena: Vec<T>,
}

impl<T: Storage> Workspace<T> {
    /// The loss's value after a run of `train` (the one value kept to the end: read the
    /// others in a hook). Errors (`name`): another tensor than the loss.
    pub fn value<'w>(&'w self, train: &Training, t: TensorId) -> Result<&'w [T], ProjectError> {
        if t != train.loss {
            let name = train.name_of(t);
            let msg = format!(
                "only the loss's value is kept after a run, not `{name}`'s: read it in a hook"
            );
            return Err(InferError::Usage { code: crate::ErrorCode::Name, message: msg }.into());
        }
        match train.values[t.index()] {
            Place::Arena(at) => Ok(&self.arena[at..at + train.lens[t.index()]]),
            _ => Err(InferError::Usage {
                code: crate::ErrorCode::Name,
                message: "the loss is a leaf: its value is the caller's buffer".into(),
            }
            .into()),
        }
    }
}

/// A buffer of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Loc {
    /// The caller's leaf buffer `k`.
    Leaf(usize),
    /// The caller's gradient buffer `k`.
    Grad(usize),
    /// A range of the arena.
    Arena(usize, usize),
}

/// The buffers of a run.
struct Buffers<'r, 'a, 'b, T> {
    arena: &'r mut [T],
    leaves: &'r [&'a [T]],
    grads: &'r mut [&'b mut [T]],
}

impl<T: Storage> Buffers<'_, '_, '_, T> {
    /// Runs `f` with `out` writable and `ins` read (distinct buffers: the arena's were placed
    /// apart, which is checked).
    fn with<R>(
        &mut self,
        out: Loc,
        ins: &[Loc],
        f: impl FnOnce(&mut [T], &[&[T]]) -> R,
    ) -> Result<R, ProjectError> {
        let (lo, mid, hi, out_range): (&[T], &mut [T], &[T], Range<usize>) = match out {
            Loc::Arena(at, len) => {
                let (lo, rest) = self.arena.split_at_mut(at);
                let (mid, hi) = rest.split_at_mut(len);
                (lo, mid, hi, at..at + len)
            }
            // Nothing of the arena is written: every read takes the lower part.
            Loc::Grad(k) => (&*self.arena, &mut *self.grads[k], &[][..], usize::MAX..usize::MAX),
            Loc::Leaf(_) => return Err(internal("a leaf is never written")),
        };
        let mut reads: SmallVec<[&[T]; 4]> = SmallVec::new();
        for &l in ins {
            reads.push(match l {
                Loc::Leaf(k) => self.leaves[k],
                Loc::Arena(_, 0) => &[],
                Loc::Arena(at, len) if at + len <= out_range.start => &lo[at..at + len],
                Loc::Arena(at, len) if at >= out_range.end => {
                    &hi[at - out_range.end..at - out_range.end + len]
                }
                _ => return Err(internal("a buffer read where the step writes")),
            });
        }
        Ok(f(mid, &reads))
    }

    /// `l`'s elements, writable.
    fn slice_mut(&mut self, l: Loc) -> &mut [T] {
        match l {
            Loc::Arena(at, len) => &mut self.arena[at..at + len],
            Loc::Grad(k) => self.grads[k],
            Loc::Leaf(_) => &mut [],
        }
    }
}

fn internal(what: &str) -> ProjectError {
    ProjectError::Misaligned(format!("internal: {what}"))
}

impl Training {
    /// A workspace for runs in element type `T` (an allocation failure is an error).
    pub fn workspace<T: Storage>(&self) -> Result<Workspace<T>, ProjectError> {
        let n = self.arena_len;
        let mut arena = Vec::new();
        let bytes_each = std::mem::size_of::<T>();
        arena
            .try_reserve_exact(n)
            .map_err(|_| KernelError::from(TensorError::Allocation { elements: n, bytes_each }))?;
        arena.resize(n, T::default());
        Ok(Workspace { arena })
    }

    /// Runs forward, then backward: `leaves[k]` is the buffer of [`Training::leaves`]`[k]`
    /// (read), `grads[k]` receives the gradient of the loss with respect to
    /// [`Training::params`]`[k]` (overwritten); the loss's value stays readable in `ws`
    /// ([`Workspace::value`]). `T` is a float type (f32, f64, f16, bf16). Errors (coded):
    /// buffer counts (`arity`) or lengths (`elems`) other than the tensors', an integer or
    /// bool type (`type`), a workspace of another training (`elems`), or a hook's error.
    pub fn run<T: Storage>(
        &self,
        ws: &mut Workspace<T>,
        leaves: &[&[T]],
        grads: &mut [&mut [T]],
        hooks: &mut dyn Hooks<T>,
    ) -> Result<(), ProjectError> {
        self.run_with(ws, leaves, grads, hooks, &RunOptions::default())
    }

    /// [`Training::run`] with kernel options for this run (threads, GEMM dispatch).
    pub fn run_with<T: Storage>(
        &self,
        ws: &mut Workspace<T>,
        leaves: &[&[T]],
        grads: &mut [&mut [T]],
        hooks: &mut dyn Hooks<T>,
        opts: &RunOptions,
    ) -> Result<(), ProjectError> {
        self.check_run(ws, leaves, grads)?;
        let mut bufs = Buffers { arena: &mut ws.arena, leaves, grads };
        for f in &self.forward {
            let out = self.value_loc(f.out)?;
            let ins: SmallVec<[Loc; 3]> =
                f.args.iter().map(|&a| self.value_loc(a)).collect::<Result<_, _>>()?;
            bufs.with(out, &ins, |o, ins| f.exe.run_with(ins, o, opts))??;
            hooks.forward(f.step, bufs.slice_mut(out))?;
        }
        for g in bufs.grads.iter_mut() {
            g.fill(T::default());
        }
        self.run_backward(&mut bufs, hooks, opts)
    }

    fn run_backward<T: Storage>(
        &self,
        bufs: &mut Buffers<'_, '_, '_, T>,
        hooks: &mut dyn Hooks<T>,
        opts: &RunOptions,
    ) -> Result<(), ProjectError> {
        let one = T::from_f64(1.0);
        let fwd = self.forward.len();
        let mut zeros = self.zero_at.iter().peekable();
        if let Ok(l) = self.grad_loc(self.loss) {
            bufs.slice_mut(l).fill(one);
        }
        for (b, back) in self.backward.iter().enumerate() {
            while let Some((_, t)) = zeros.next_if(|(at, _)| *at <= fwd + b) {
                let fill = if *t == self.loss { one } else { T::default() };
                bufs.slice_mut(self.grad_loc(*t)?).fill(fill);
            }
            let (value, grad) = (self.value_loc(back.out)?, self.grad_loc(back.out)?);
            bufs.with(grad, &[value], |g, v| hooks.backward(back.step, v[0], g))??;
            for run in &back.runs {
                let reads: SmallVec<[Loc; 3]> = run
                    .reads
                    .iter()
                    .map(|r| match r {
                        Read::Grad(t) => self.grad_loc(*t),
                        Read::Value(t) => self.value_loc(*t),
                    })
                    .collect::<Result<_, _>>()?;
                let target = self.grad_loc(run.target)?;
                bufs.with(target, &reads, |o, ins| run.exe.run_with(ins, o, opts))??;
            }
        }
        Ok(())
    }

    fn value_loc(&self, t: TensorId) -> Result<Loc, ProjectError> {
        self.loc(self.values[t.index()], t, Loc::Leaf)
    }

    fn grad_loc(&self, t: TensorId) -> Result<Loc, ProjectError> {
        self.loc(self.grads[t.index()], t, Loc::Grad)
    }

    fn loc(&self, p: Place, t: TensorId, caller: fn(usize) -> Loc) -> Result<Loc, ProjectError> {
        match p {
            Place::Caller(k) => Ok(caller(k)),
            Place::Arena(at) => Ok(Loc::Arena(at, self.lens[t.index()])),
            Place::None => Err(internal("a buffer with no place")),
        }
    }

    /// Checks the element type and the buffers against the tensors.
    fn check_run<T: Storage>(
        &self,
        ws: &Workspace<T>,
        leaves: &[&[T]],
        grads: &[&mut [T]],
    ) -> Result<(), ProjectError> {
        if !T::DTYPE.is_float() {
            let msg = format!("gradients are computed in float types, not {}", T::DTYPE.name());
            return Err(ProjectError::DType(msg));
        }
        if ws.arena.len() != self.arena_len {
            let msg = format!(
                "the workspace holds {} elements; this training's arena {}",
                ws.arena.len(),
                self.arena_len
            );
            return Err(ProjectError::Data(msg));
        }
        check_lens("leaf", leaves.iter().map(|b| b.len()), &self.leaves, self)?;
        check_lens("gradient", grads.iter().map(|b| b.len()), &self.params, self)
    }
}

/// Checks one buffer per tensor of `ids`, each of the tensor's length.
fn check_lens(
    what: &str,
    got: impl ExactSizeIterator<Item = usize>,
    ids: &[TensorId],
    train: &Training,
) -> Result<(), ProjectError> {
    let lens = &train.lens;
    if got.len() != ids.len() {
        return Err(KernelError::Arity { expected: ids.len(), got: got.len() }.into());
    }
    for (k, (n, t)) in got.zip(ids).enumerate() {
        if n != lens[t.index()] {
            let (name, want) = (train.name_of(*t), lens[t.index()]);
            let msg = format!("{what} buffer {k} has {n} elements; `{name}` holds {want}");
            return Err(ProjectError::Data(msg));
        }
    }
    Ok(())
}
