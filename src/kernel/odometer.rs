//! [`Odometer`]: steps through the points of a plan's outer loops, keeping every operand's
//! address up to date incrementally.

use smallvec::SmallVec;

use super::simplify::Plan;

/// Operand addresses, output first.
pub type Offs = SmallVec<[isize; 6]>;

/// The points of the first `loops` loops of a plan, last loop fastest, with the address of
/// every operand (output first) at the current point in [`Odometer::base`].
pub struct Odometer {
    idx: SmallVec<[usize; 8]>,
    ext: SmallVec<[usize; 8]>,
    /// `step[k·ops + o]`: operand `o`'s stride along loop `k`.
    step: SmallVec<[isize; 32]>,
    ops: usize,
    /// The addresses at the current point.
    pub base: Offs,
}

impl Odometer {
    /// At the origin of the first `loops` loops of `plan`.
    pub fn new(plan: &Plan, loops: usize) -> Odometer {
        let ops = plan.ins.len() + 1;
        let mut step = SmallVec::with_capacity(loops * ops);
        for k in 0..loops {
            step.extend(plan.operands().map(|o| o.strides[k]));
        }
        Odometer {
            idx: SmallVec::from_elem(0, loops),
            ext: plan.extents[..loops].iter().copied().collect(),
            step,
            ops,
            base: plan.operands().map(|o| o.offset).collect(),
        }
    }

    /// Moves to the next point; false (back at the origin) after the last.
    #[inline]
    pub fn advance(&mut self) -> bool {
        let n = self.ops;
        let Some(last) = self.idx.len().checked_sub(1) else { return false };
        let (idx, ext, base) =
            (self.idx.as_mut_slice(), self.ext.as_slice(), self.base.as_mut_slice());
        let step = self.step.as_slice();
        // The innermost loop steps most of the time.
        idx[last] += 1;
        if idx[last] < ext[last] {
            add(base, &step[last * n..], 1);
            return true;
        }
        let mut k = last;
        loop {
            let back = (ext[k] - 1) as isize;
            idx[k] = 0;
            add(base, &step[k * n..], -back);
            if k == 0 {
                return false;
            }
            k -= 1;
            idx[k] += 1;
            if idx[k] < ext[k] {
                add(base, &step[k * n..], 1);
                return true;
            }
        }
    }
}

/// `base[o] += times·step[o]` for every operand.
#[inline(always)]
fn add(base: &mut [isize], step: &[isize], times: isize) {
    for (b, &s) in base.iter_mut().zip(step) {
        *b += s * times;
    }
}
