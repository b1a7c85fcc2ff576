//! Constraints that cannot be decided yet, each waiting on the variables it mentions.
//!
//! A deferred constraint can only change outcome when one of the unbound variables of its
//! substituted form is bound or united (or when the stage advances). So instead of retrying
//! every deferred constraint after any progress (O(deferred) per operation), each one registers
//! as a watcher of its variables and is woken by a binding or union of one of them. Woken
//! constraints are retried in the order they were deferred, after the queue drains — the same
//! order a full retry round would process them in.

use std::collections::HashMap;

use smallvec::SmallVec;

use super::constraint::Queued;
use super::env::Node;
use crate::ids::{DimVar, RowVar};

/// A deferred constraint with its deferral sequence number.
#[derive(Clone)]
struct Entry {
    seq: u64,
    q: Queued,
}

/// The deferred constraints and their watchers.
#[derive(Clone, Default)]
pub struct Deferred {
    slots: Vec<Option<Entry>>,
    generation: Vec<u32>,
    free: Vec<u32>,
    live: usize,
    next_seq: u64,
    dims: HashMap<DimVar, SmallVec<[(u32, u32); 2]>>,
    rows: HashMap<RowVar, SmallVec<[(u32, u32); 2]>>,
    /// Watchers of affine and concatenation nodes: woken when a node's value goes stale (a
    /// variable anywhere below it changed), so that a concatenation of many parts is watched
    /// once rather than once per part.
    nodes: HashMap<Node, SmallVec<[(u32, u32); 2]>>,
    woken: Vec<u32>,
}

impl Deferred {
    /// Whether no constraint is deferred.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Defers `q` until one of the variables is bound or united, or one of the nodes (fresh
    /// now) goes stale.
    pub fn add(&mut self, q: Queued, dims: &[DimVar], rows: &[RowVar], nodes: &[Node]) {
        let entry = Entry { seq: self.next_seq, q };
        self.next_seq += 1;
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = Some(entry);
                s
            }
            None => {
                self.slots.push(Some(entry));
                self.generation.push(0);
                u32::try_from(self.slots.len() - 1).unwrap_or(u32::MAX)
            }
        };
        self.live += 1;
        let watcher = (slot, self.generation[slot as usize]);
        for v in dims {
            self.dims.entry(*v).or_default().push(watcher);
        }
        for v in rows {
            self.rows.entry(*v).or_default().push(watcher);
        }
        for n in nodes {
            self.nodes.entry(*n).or_default().push(watcher);
        }
    }

    /// Wakes the constraints waiting on a node.
    pub fn node_changed(&mut self, n: Node) {
        if let Some(ws) = self.nodes.remove(&n) {
            self.wake(&ws);
        }
    }

    /// Wakes the constraints waiting on a dim variable.
    pub fn dim_changed(&mut self, v: DimVar) {
        if let Some(ws) = self.dims.remove(&v) {
            self.wake(&ws);
        }
    }

    /// Wakes the constraints waiting on a row variable.
    pub fn row_changed(&mut self, v: RowVar) {
        if let Some(ws) = self.rows.remove(&v) {
            self.wake(&ws);
        }
    }

    fn wake(&mut self, watchers: &[(u32, u32)]) {
        for &(slot, generation) in watchers {
            let i = slot as usize;
            if self.generation[i] == generation && self.slots[i].is_some() {
                self.generation[i] = self.generation[i].wrapping_add(1);
                self.woken.push(slot);
            }
        }
    }

    /// Wakes every deferred constraint (the stage advanced).
    pub fn wake_all(&mut self) {
        // Every woken slot is occupied, so this lists each deferred constraint once.
        self.woken.clear();
        let occupied = self.slots.iter().enumerate().filter(|(_, s)| s.is_some());
        self.woken.extend(occupied.map(|(i, _)| u32::try_from(i).unwrap_or(u32::MAX)));
        for g in &mut self.generation {
            *g = g.wrapping_add(1);
        }
        self.dims.clear();
        self.rows.clear();
        self.nodes.clear();
    }

    /// Takes the woken constraints out, in the order they were deferred.
    pub fn take_woken(&mut self) -> Vec<Queued> {
        let mut entries: Vec<Entry> = Vec::with_capacity(self.woken.len());
        for slot in std::mem::take(&mut self.woken) {
            if let Some(e) = self.slots[slot as usize].take() {
                self.free.push(slot);
                self.live -= 1;
                entries.push(e);
            }
        }
        entries.sort_unstable_by_key(|e| e.seq);
        entries.into_iter().map(|e| e.q).collect()
    }

    /// The deferred constraints waiting on a dim variable (as registered: by the unbound roots
    /// of their substituted form when they were last deferred).
    pub fn waiting_on(&self, v: DimVar) -> impl Iterator<Item = &Queued> {
        let watchers = self.dims.get(&v).into_iter().flatten();
        watchers.filter_map(|&(slot, generation)| {
            let i = slot as usize;
            let live = self.generation[i] == generation;
            live.then(|| self.slots[i].as_ref().map(|e| &e.q)).flatten()
        })
    }

    /// The slots of deferred constraints, free ones included: what copying the set costs.
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// The deferred constraints, in no particular order.
    pub fn constraints(&self) -> impl Iterator<Item = &Queued> {
        self.slots.iter().flatten().map(|e| &e.q)
    }

    /// Whether some constraints were woken and wait to be retried.
    pub fn has_woken(&self) -> bool {
        !self.woken.is_empty()
    }
}
