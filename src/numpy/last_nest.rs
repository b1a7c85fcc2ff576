//! [`LastNest`]: the prepared nest of an [`EinsumPlan`](super::EinsumPlan)'s last one-step
//! run, kept for the next run on arrays of the same layouts: a loop calling one einsum on
//! arrays allocated alike lowers, validates and simplifies its nest once.

use std::sync::Mutex;

use smallvec::SmallVec;

use super::error::EinsumError;
use super::lower::{contract_into, nest_into, Slab};
use crate::kernel::{Prepared, RunOptions, Scalar};
use crate::tensor::Layout;

/// What a kept nest was made for: each operand's layout and slice length, the output's.
#[derive(Debug)]
struct Kept {
    inputs: SmallVec<[(Layout, usize); 3]>,
    out: (Layout, usize),
    nest: Prepared,
}

impl Kept {
    fn fits<T>(&self, ops: &[Slab<'_, T>], out_layout: &Layout, out_len: usize) -> bool {
        self.inputs.len() == ops.len()
            && self.out.1 == out_len
            && self.out.0 == *out_layout
            && self.inputs.iter().zip(ops).all(|((l, n), op)| *n == op.data.len() && l == op.layout)
    }
}

/// The last prepared nest of a plan (empty until a one-step run; a clone starts empty).
#[derive(Debug, Default)]
pub(super) struct LastNest(Mutex<Option<Kept>>);

impl Clone for LastNest {
    fn clone(&self) -> LastNest {
        LastNest::default()
    }
}

impl LastNest {
    /// Contracts `ops` into `out` (through `out_layout`) with the labels `labels`, as
    /// [`contract_into`]: with the kept nest when it was made for
    /// these layouts, else with a new one, which is kept. A run on another thread at the same
    /// time makes its own nest.
    pub fn run<T: Scalar>(
        &self,
        ops: &[Slab<'_, T>],
        labels: &[usize],
        out: &mut [T],
        out_layout: &Layout,
        opts: &RunOptions,
    ) -> Result<(), EinsumError> {
        let Ok(mut kept) = self.0.try_lock() else {
            return contract_into(ops, labels, out, out_layout, opts);
        };
        let bufs: SmallVec<[&[T]; 4]> = ops.iter().map(|op| op.data).collect();
        if let Some(k) = kept.as_ref().filter(|k| k.fits(ops, out_layout, out.len())) {
            return Ok(k.nest.run(&bufs, out, opts)?);
        }
        let nest = nest_into(ops, labels, out_layout, out.len())?;
        let lens: SmallVec<[usize; 4]> = bufs.iter().map(|b| b.len()).collect();
        let nest = nest.prepare(&lens, out.len())?;
        nest.run(&bufs, out, opts)?;
        let inputs = ops.iter().map(|op| (op.layout.clone(), op.data.len())).collect();
        *kept = Some(Kept { inputs, out: (out_layout.clone(), out.len()), nest });
        Ok(())
    }
}
