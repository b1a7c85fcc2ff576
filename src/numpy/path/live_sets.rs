//! The label sets of the current operand list along a path, with how many sets hold each
//! label: what a step's result keeps (the labels the output or another live set still has)
//! is then O(labels) per operand taken, never a scan of the whole list.

use super::live::LiveList;
use super::problem::{bits, Labels, MAX_LABELS};

/// Live label sets, addressed by position, and per label the number of live sets with it.
pub(crate) struct LiveSets {
    list: LiveList<Labels>,
    counts: [u32; MAX_LABELS],
    output: Labels,
}

impl LiveSets {
    /// The sets `inputs`, with room for `steps` results; the output has the labels `output`.
    pub fn new(inputs: &[Labels], output: Labels, steps: usize) -> LiveSets {
        let mut counts = [0u32; MAX_LABELS];
        for &m in inputs {
            for l in bits(m) {
                counts[l] += 1;
            }
        }
        LiveSets { list: LiveList::new(inputs.to_vec(), steps), counts, output }
    }

    /// Contracts the sets at `positions` (in the list before this step; out of range ones are
    /// skipped): removes them and appends their result. Returns the labels involved and those
    /// the result keeps: the ones the output or another live set has.
    pub fn contract(&mut self, positions: &[usize]) -> (Labels, Labels) {
        let mut involved = 0;
        for m in self.list.take(positions).into_iter().flatten() {
            involved |= m;
            for l in bits(m) {
                self.counts[l] -= 1;
            }
        }
        let elsewhere = bits(involved).filter(|&l| self.counts[l] > 0).fold(0, |m, l| m | 1 << l);
        let keep = involved & (self.output | elsewhere);
        for l in bits(keep) {
            self.counts[l] += 1;
        }
        self.list.push(keep);
        (involved, keep)
    }
}
