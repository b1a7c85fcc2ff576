//! Memory planning: buffers placed in one arena so that buffers alive at the same time never
//! share memory and buffers whose lives do not meet do.
//!
//! Buffers are taken in the order their lives start. A buffer whose life has ended returns
//! its range to a free list (merged with its free neighbours); a new buffer takes the
//! smallest free range that holds it (best fit), else the arena grows. `O(n log n)` in the
//! number of buffers.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

/// A buffer's life in a schedule: alive from position `first` to position `last`
/// (inclusive), holding `len` elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Life {
    /// The first position that writes or reads it.
    pub first: usize,
    /// The last position that reads or writes it.
    pub last: usize,
    /// Its element count.
    pub len: usize,
}

/// Where each buffer lies in the arena, and the arena's length.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Arena {
    /// Each buffer's offset, in the order the lives were given.
    pub offsets: Vec<usize>,
    /// The arena's length in elements.
    pub len: usize,
}

/// Places buffers with these lives in one arena (see the module documentation).
///
/// ```
/// use einrow::project::{plan_arena, Life};
/// // Three buffers of 10: the first dies before the third is born, so they share.
/// let lives = [
///     Life { first: 0, last: 1, len: 10 },
///     Life { first: 1, last: 2, len: 10 },
///     Life { first: 2, last: 3, len: 10 },
/// ];
/// let arena = plan_arena(&lives);
/// assert_eq!(arena.len, 20);
/// assert_eq!(arena.offsets[0], arena.offsets[2]);
/// ```
pub fn plan_arena(lives: &[Life]) -> Arena {
    let mut order: Vec<usize> = (0..lives.len()).collect();
    order.sort_by_key(|&b| (lives[b].first, Reverse(lives[b].len)));
    let mut offsets = vec![0; lives.len()];
    let mut free = FreeList::default();
    // Buffers in use, by the position after which they die.
    let mut alive: BinaryHeap<Reverse<(usize, usize)>> = BinaryHeap::new();
    let mut len = 0usize;
    for b in order {
        let life = lives[b];
        while let Some(&Reverse((last, d))) = alive.peek() {
            if last >= life.first {
                break;
            }
            alive.pop();
            free.release(offsets[d], lives[d].len);
        }
        offsets[b] = match free.take(life.len) {
            Some(at) => at,
            None => {
                let at = free.take_end(len).unwrap_or(len);
                len = len.max(at + life.len);
                at
            }
        };
        alive.push(Reverse((life.last, b)));
    }
    Arena { offsets, len }
}

/// Free ranges of the arena, by start and by size (both kept in step).
#[derive(Default)]
struct FreeList {
    by_start: BTreeMap<usize, usize>,
    by_size: BTreeSet<(usize, usize)>,
}

impl FreeList {
    fn insert(&mut self, at: usize, len: usize) {
        self.by_start.insert(at, len);
        self.by_size.insert((len, at));
    }

    fn remove(&mut self, at: usize, len: usize) {
        self.by_start.remove(&at);
        self.by_size.remove(&(len, at));
    }

    /// Returns `[at, at + len)`, merged with free neighbours.
    fn release(&mut self, at: usize, len: usize) {
        if len == 0 {
            return;
        }
        let (mut start, mut end) = (at, at + len);
        if let Some((&s, &l)) = self.by_start.range(..start).next_back() {
            if s + l == start {
                self.remove(s, l);
                start = s;
            }
        }
        if let Some(&l) = self.by_start.get(&end) {
            self.remove(end, l);
            end += l;
        }
        self.insert(start, end - start);
    }

    /// The start of the smallest free range holding `len` (its rest stays free).
    fn take(&mut self, len: usize) -> Option<usize> {
        if len == 0 {
            return Some(0);
        }
        let &(size, at) = self.by_size.range((len, 0)..).next()?;
        self.remove(at, size);
        if size > len {
            self.insert(at + len, size - len);
        }
        Some(at)
    }

    /// A free range ending at the arena's end `len`: a buffer placed at its start grows the
    /// arena by less.
    fn take_end(&mut self, len: usize) -> Option<usize> {
        let (&at, &size) = self.by_start.iter().next_back()?;
        (at + size == len).then(|| {
            self.remove(at, size);
            at
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Buffers alive at the same position never overlap; each fits in the arena.
        #[test]
        fn live_buffers_never_share_memory(
            raw in prop::collection::vec((0usize..40, 0usize..10, 0usize..50), 0..60),
        ) {
            let lives: Vec<Life> =
                raw.iter().map(|&(first, span, len)| Life { first, last: first + span, len }).collect();
            let arena = plan_arena(&lives);
            for (a, la) in lives.iter().enumerate() {
                prop_assert!(arena.offsets[a] + la.len <= arena.len);
                for (b, lb) in lives.iter().enumerate().skip(a + 1) {
                    let meet = la.first <= lb.last && lb.first <= la.last;
                    let (oa, ob) = (arena.offsets[a], arena.offsets[b]);
                    let overlap = oa < ob + lb.len && ob < oa + la.len;
                    prop_assert!(!(meet && overlap), "{:?} at {} and {:?} at {}", la, oa, lb, ob);
                }
            }
            let total: usize = lives.iter().map(|l| l.len).sum();
            prop_assert!(arena.len <= total);
        }
    }

    /// A chain (each buffer read by the next) needs two buffers' room, not one per step.
    #[test]
    fn a_chain_ping_pongs() {
        let lives: Vec<Life> = (0..100).map(|i| Life { first: i, last: i + 1, len: 8 }).collect();
        assert_eq!(plan_arena(&lives).len, 16);
    }
}
