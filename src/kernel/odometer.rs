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
        let mut k = self.idx.len();
        while k > 0 {
            k -= 1;
            let st = &self.step[k * n..(k + 1) * n];
            self.idx[k] += 1;
            if self.idx[k] < self.ext[k] {
                self.base.iter_mut().zip(st).for_each(|(b, s)| *b += s);
                return true;
            }
            let back = (self.ext[k] - 1) as isize;
            self.idx[k] = 0;
            self.base.iter_mut().zip(st).for_each(|(b, s)| *b -= s * back);
        }
        false
    }
}
