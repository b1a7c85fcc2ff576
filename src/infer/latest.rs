//! The latest definition of each name, for programs of millions of statements.
//!
//! Building a program resolves every operand to the latest definition of its name: a lookup
//! per operand, an insert per definition. With a million definitions any table of the names
//! is larger than the caches, and a lookup that misses them costs more than the rest of a
//! statement's bookkeeping: in a map from `&str` each lookup missed twice (the slot, then the
//! name it points to), and a 1M-statement program spent a sixth of its time there, against a
//! fifteenth at 100k. This table is laid out so that the misses are few and hidden:
//!
//! - the names are copied, in definition order, into one buffer (a few bytes each), so that
//!   the name a slot points to is read from compact memory, not from an allocation of its own;
//! - a slot is 8 bytes (32 bits of the name's hash and the definition's position), eight to a
//!   cache line, probed in order: a lookup reads one line, rarely two;
//! - callers look ahead: [`Latest::prefetch`] starts loading the line of a name that the next
//!   statements use while the current one is handled.

use std::hash::BuildHasher;

/// Definitions by name, each name's latest winning. Definitions are numbered from 0 in the
/// order they are made; at most `u32::MAX - 1` of them, with names of at most 4 GiB in all,
/// are recorded (a program that large does not fit in memory beside its graph): one past
/// that is numbered but cannot be found.
#[derive(Debug)]
pub(crate) struct Latest {
    /// Power-of-two many slots, at most three quarters used.
    slots: Vec<Slot>,
    used: usize,
    /// The names of the recorded definitions, one after another; definition `i` is
    /// `names[ends[i]..ends[i + 1]]`.
    names: String,
    ends: Vec<u32>,
    /// Definitions made (recorded or not).
    count: usize,
    hasher: foldhash::fast::RandomState,
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    tag: u32,
    at: u32,
}

const EMPTY: Slot = Slot { tag: 0, at: u32::MAX };

impl Latest {
    /// A table with room for `definitions` definitions, whose names take about
    /// `bytes_each` bytes.
    pub(crate) fn with_capacity(definitions: usize, bytes_each: usize) -> Latest {
        let slots = slots_for(definitions);
        let mut ends = Vec::with_capacity(definitions.saturating_add(1));
        ends.push(0);
        Latest {
            slots: vec![EMPTY; slots],
            used: 0,
            names: String::with_capacity(definitions.saturating_mul(bytes_each)),
            ends,
            count: 0,
            hasher: Default::default(),
        }
    }

    fn hash(&self, name: &str) -> u64 {
        self.hasher.hash_one(name)
    }

    fn home(&self, hash: u64) -> usize {
        hash as usize & (self.slots.len() - 1)
    }

    fn name(&self, at: u32) -> &str {
        let at = at as usize;
        match (self.ends.get(at), self.ends.get(at + 1)) {
            (Some(&a), Some(&b)) => self.names.get(a as usize..b as usize).unwrap_or_default(),
            _ => "",
        }
    }

    /// The slot holding `name`, or the empty slot where it would go.
    fn find(&self, hash: u64, name: &str) -> usize {
        let (tag, mask) = ((hash >> 32) as u32, self.slots.len() - 1);
        let mut i = self.home(hash);
        loop {
            let s = self.slots[i];
            if s.at == u32::MAX || (s.tag == tag && self.name(s.at) == name) {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    /// Records a definition of `name`; returns its number and the number of the definition
    /// of the same name it replaces, if any.
    pub(crate) fn define(&mut self, name: &str) -> (usize, Option<usize>) {
        let at = self.count;
        self.count += 1;
        let end = self.names.len().checked_add(name.len()).and_then(|e| u32::try_from(e).ok());
        let (Some(end), Ok(at32)) = (end, u32::try_from(at)) else { return (at, None) };
        if at32 == u32::MAX {
            return (at, None);
        }
        if (self.used + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        let hash = self.hash(name);
        let i = self.find(hash, name);
        let before = self.slots[i];
        self.slots[i] = Slot { tag: (hash >> 32) as u32, at: at32 };
        self.names.push_str(name);
        self.ends.push(end);
        if before.at == u32::MAX {
            self.used += 1;
            (at, None)
        } else {
            (at, Some(before.at as usize))
        }
    }

    /// The number of the latest definition of `name`.
    pub(crate) fn get(&self, name: &str) -> Option<usize> {
        let s = self.slots[self.find(self.hash(name), name)];
        (s.at != u32::MAX).then_some(s.at as usize)
    }

    /// Starts loading the slot where `name` is looked up or defined, for a call soon after.
    pub(crate) fn prefetch(&self, name: &str) {
        let slot: *const Slot = &self.slots[self.home(self.hash(name))];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE is part of the x86-64 baseline, and a prefetch reads no memory (it is a
        // hint that never faults); the pointer is into `self.slots` anyway.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(slot.cast::<i8>());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = slot;
    }

    /// Twice the slots, every recorded name placed again.
    fn grow(&mut self) {
        let twice = vec![EMPTY; self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, twice);
        let mask = self.slots.len() - 1;
        for s in old.into_iter().filter(|s| s.at != u32::MAX) {
            let hash = self.hash(self.name(s.at));
            let mut i = self.home(hash);
            while self.slots[i].at != u32::MAX {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }
}

/// The number of slots for `definitions` distinct names at most three quarters full.
fn slots_for(definitions: usize) -> usize {
    (definitions.saturating_mul(4) / 3 + 1).max(16).checked_next_power_of_two().unwrap_or(16)
}

#[cfg(test)]
mod tests {
    use super::Latest;

    #[test]
    fn the_latest_definition_wins() {
        let mut latest = Latest::with_capacity(0, 0);
        let defined: Vec<(usize, Option<usize>)> =
            ["a", "b", "a", "c", "b", "a"].into_iter().map(|n| latest.define(n)).collect();
        let numbers: Vec<usize> = defined.iter().map(|d| d.0).collect();
        let replaced: Vec<Option<usize>> = defined.iter().map(|d| d.1).collect();
        assert_eq!(numbers, [0, 1, 2, 3, 4, 5]);
        assert_eq!(replaced, [None, None, Some(0), None, Some(1), Some(2)]);
        let got = |n: &str| latest.get(n);
        assert_eq!(
            (got("a"), got("b"), got("c"), got("d"), got("")),
            (Some(5), Some(4), Some(3), None, None)
        );
    }

    #[test]
    fn growing_keeps_every_name() {
        let mut latest = Latest::with_capacity(2, 1);
        let names: Vec<String> = (0..5000).map(|i| format!("t_{i}")).collect();
        for n in &names {
            latest.prefetch(n);
            latest.define(n);
        }
        latest.define("t_17");
        assert!(names
            .iter()
            .enumerate()
            .all(|(i, n)| latest.get(n) == Some(if i == 17 { 5000 } else { i })));
        assert_eq!((latest.get("t_5000"), latest.get("")), (None, None));
        latest.define("");
        assert_eq!(latest.get(""), Some(5001));
    }
}
