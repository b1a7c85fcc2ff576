//! The current operand list of a path, as numpy's convention addresses it: each step takes
//! the items at some positions and appends its result. Every item keeps the slot it was
//! appended to (operand `k` is slot `k`, the result of step `k` slot `n + k`: its SSA id);
//! a Fenwick tree over the slots still live maps a position to its slot and back in
//! O(log n), so a path of n steps costs O(n log n) rather than the O(n²) of removing items
//! from a vector.

/// A list of items addressed by position, removed from anywhere and appended at the end, in
/// O(log n) per item.
#[derive(Clone, Debug)]
pub(crate) struct LiveList<T> {
    /// Each slot's item; `None` once taken.
    slots: Vec<Option<T>>,
    /// Fenwick tree (1-based) over the live flags of `tree.len() - 1` slots.
    tree: Vec<u32>,
    len: usize,
}

impl<T> LiveList<T> {
    /// The list of `items`, in order, with room for `extra` appended items before the tree
    /// is rebuilt.
    pub fn new(items: Vec<T>, extra: usize) -> LiveList<T> {
        let mut slots: Vec<Option<T>> = Vec::with_capacity(items.len() + extra);
        slots.extend(items.into_iter().map(Some));
        let mut list = LiveList { slots, tree: Vec::new(), len: 0 };
        list.rebuild(list.slots.len() + extra);
        list
    }

    /// Rebuilds the tree over `capacity` slots (at least those used), in O(capacity).
    fn rebuild(&mut self, capacity: usize) {
        let size = capacity.max(self.slots.len()).max(1);
        let mut tree = vec![0u32; size + 1];
        for (i, s) in self.slots.iter().enumerate() {
            tree[i + 1] = u32::from(s.is_some());
        }
        // Each node adds its sum to its parent, children before parents.
        for i in 1..=size {
            let parent = i + (i & i.wrapping_neg());
            if parent <= size {
                tree[parent] += tree[i];
            }
        }
        self.len = self.slots.iter().filter(|s| s.is_some()).count();
        self.tree = tree;
    }

    /// The number of live items.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The slot of the item at `position`, if there is one.
    pub fn slot(&self, position: usize) -> Option<usize> {
        if position >= self.len {
            return None;
        }
        // The largest prefix of slots holding at most `position` live items.
        let (mut at, mut left) = (0usize, position as u32);
        let mut step = (self.tree.len() - 1).next_power_of_two();
        while step > 0 {
            let next = at + step;
            if next < self.tree.len() && self.tree[next] <= left {
                left -= self.tree[next];
                at = next;
            }
            step /= 2;
        }
        Some(at)
    }

    /// The position of the item in `slot`, if it is live.
    pub fn position_of(&self, slot: usize) -> Option<usize> {
        self.slots.get(slot)?.as_ref()?;
        // Live items in slots 0..=slot, minus this one.
        let (mut i, mut count) = (slot + 1, 0u32);
        while i > 0 {
            count += self.tree[i];
            i &= i - 1;
        }
        Some(count as usize - 1)
    }

    /// The item at `position`.
    pub fn get(&self, position: usize) -> Option<&T> {
        self.slots[self.slot(position)?].as_ref()
    }

    /// Removes and returns the items at `positions` (positions in the list as it is before
    /// this call), in the order given; a position out of range, or given twice, yields
    /// `None` there.
    pub fn take(&mut self, positions: &[usize]) -> Vec<Option<T>> {
        let slots: Vec<Option<usize>> = positions.iter().map(|&p| self.slot(p)).collect();
        slots.into_iter().map(|s| self.take_slot(s?)).collect()
    }

    /// Removes the item in `slot`, if it is live.
    fn take_slot(&mut self, slot: usize) -> Option<T> {
        let item = self.slots.get_mut(slot)?.take()?;
        let mut i = slot + 1;
        while i < self.tree.len() {
            self.tree[i] -= 1;
            i += i & i.wrapping_neg();
        }
        self.len -= 1;
        Some(item)
    }

    /// Appends `item`; its slot is the number of items appended before it.
    pub fn push(&mut self, item: T) {
        self.slots.push(Some(item));
        if self.slots.len() >= self.tree.len() {
            self.rebuild(2 * self.slots.len());
            return;
        }
        let mut i = self.slots.len();
        while i < self.tree.len() {
            self.tree[i] += 1;
            i += i & i.wrapping_neg();
        }
        self.len += 1;
    }

    /// The live items in order (O(slots): for the end of a run, not for each step).
    #[cfg(any(test, feature = "kernel"))]
    pub fn into_items(self) -> Vec<T> {
        self.slots.into_iter().flatten().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same operations on a vector, for comparison.
    fn model_take(v: &mut Vec<usize>, positions: &[usize]) -> Vec<usize> {
        let out = positions.iter().map(|&p| v[p]).collect();
        let mut sorted = positions.to_vec();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        for p in sorted {
            v.remove(p);
        }
        out
    }

    #[test]
    fn positions_follow_removals_and_appends() {
        let n = 37;
        let mut list = LiveList::new((0..n).collect(), 0);
        let mut model: Vec<usize> = (0..n).collect();
        let mut next = n;
        let mut seed = 7usize;
        while model.len() > 1 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let a = (seed >> 33) % model.len();
            let b = (seed >> 17) % model.len();
            let step: Vec<usize> = if a == b { vec![a] } else { vec![b, a] };
            let got: Vec<usize> = list.take(&step).into_iter().map(Option::unwrap).collect();
            assert_eq!(got, model_take(&mut model, &step));
            list.push(next);
            model.push(next);
            next += 1;
            assert_eq!(list.len(), model.len());
            for (p, &id) in model.iter().enumerate() {
                assert_eq!(list.get(p), Some(&id));
                assert_eq!(list.position_of(id), Some(p));
                assert_eq!(list.slot(p), Some(id));
            }
        }
        assert_eq!(list.clone().into_items(), model);
        assert_eq!(list.get(1), None);
        assert_eq!(list.take(&[0, 0, 5]), vec![Some(model[0]), None, None]);
        assert_eq!(list.len(), 0);
    }
}
