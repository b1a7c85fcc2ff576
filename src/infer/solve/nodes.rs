//! The node table of substitution: the cached value of every affine and concatenation dim of
//! [`DimExprs`](crate::shape::DimExprs) with the current bindings substituted, who depends on
//! whom, and the summaries concatenation rules read.
//!
//! An entry is *fresh* while its value is the node's with the current bindings substituted.
//! Computing it (in `subst.rs`) registers the node as a dependent of each unbound variable and
//! node it read; binding a variable (or uniting it away) marks its dependents stale, and theirs
//! in turn, through [`NodeCache::var_changed`]. Each mark follows one dependency once: a node
//! is marked only when fresh, so marking costs what computing did.

use std::collections::HashMap;

use foldhash::fast::FixedState;
use smallvec::SmallVec;

use crate::ids::{DimVar, StepId};
use crate::shape::{Basis, Dim, ExprId, Solved};
use crate::span::Span;
use crate::spec::lexer::MAX_INT;

/// A node of the expression table: an affine dim or a concatenation, as one key.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Node(u32);

impl Node {
    /// The node of an affine or concatenation dim (`None` for a variable or a size).
    pub fn of(d: Dim) -> Option<Node> {
        match d {
            Dim::Affine(id) => Some(Node(id.0 << 1)),
            Dim::Concat(id) => Some(Node(id.0 << 1 | 1)),
            _ => None,
        }
    }

    /// The dim the node stands for.
    pub fn dim(self) -> Dim {
        let id = ExprId(self.0 >> 1);
        if self.is_concat() {
            Dim::Concat(id)
        } else {
            Dim::Affine(id)
        }
    }

    /// The node's index in its table of [`crate::shape::DimExprs`].
    pub(in crate::infer) fn expr(self) -> ExprId {
        ExprId(self.0 >> 1)
    }

    pub(in crate::infer) fn is_concat(self) -> bool {
        self.0 & 1 == 1
    }

    fn index(self) -> usize {
        (self.0 >> 1) as usize
    }
}

/// What a concatenation's substituted parts add up to (for any dim: a size is its own sum, an
/// unknown is one unknown part).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Summary {
    /// The sum of the solved parts (meaningless when `overflow`).
    pub sum: u64,
    /// How many parts are not solved, counted with repeats (saturating).
    pub unknown: u64,
    /// The first named basis among the solved parts of nonzero size.
    pub named: Option<Basis>,
    /// A second, different named basis: the parts cannot be added.
    pub conflict: Option<Basis>,
    /// Whether the solved parts add up to more than 2^62.
    pub overflow: bool,
}

impl Summary {
    pub(in crate::infer) const EMPTY: Summary =
        Summary { sum: 0, unknown: 0, named: None, conflict: None, overflow: false };

    /// One unknown part.
    pub(in crate::infer) fn unknown() -> Summary {
        Summary { unknown: 1, ..Summary::EMPTY }
    }

    pub(in crate::infer) fn solved(s: Solved) -> Summary {
        let mut out = Summary::EMPTY;
        out.add_solved(s);
        out
    }

    fn add_solved(&mut self, s: Solved) {
        self.add(&Summary {
            sum: s.size,
            unknown: 0,
            named: (s.basis.is_named() && s.size > 0).then_some(s.basis),
            conflict: None,
            overflow: false,
        });
    }

    pub(in crate::infer) fn add(&mut self, other: &Summary) {
        match self.sum.checked_add(other.sum) {
            Some(sum) if sum <= MAX_INT => self.sum = sum,
            _ => self.overflow = true,
        }
        self.overflow |= other.overflow;
        self.unknown = self.unknown.saturating_add(other.unknown);
        for b in [other.named, other.conflict].into_iter().flatten() {
            match self.named {
                None => self.named = Some(b),
                Some(n) if n != b && self.conflict.is_none() => self.conflict = Some(b),
                Some(_) => {}
            }
        }
    }

    /// The solved sum with its basis (a named basis beats the default), when the parts can be
    /// added.
    pub fn solved_sum(&self) -> Option<Solved> {
        (!self.overflow && self.conflict.is_none())
            .then(|| Solved { size: self.sum, basis: self.named.unwrap_or(Basis::DEFAULT) })
    }
}

/// The entry's value must be recomputed (or was never computed).
pub(in crate::infer) const STALE: u8 = 0;
/// The entry's value is the node's with the current bindings substituted.
pub(in crate::infer) const FRESH: u8 = 1;
/// The entry is being recomputed (on the stack of `Env::refresh`).
pub(in crate::infer) const VISITING: u8 = 2;

/// The cached value of a node.
#[derive(Clone, Copy, Debug)]
pub(in crate::infer) struct Entry {
    /// The substituted value.
    pub(in crate::infer) value: Dim,
    /// For a concatenation (or an affine node whose value is one), its parts' summary.
    pub(in crate::infer) summary: Summary,
    /// One more than the highest unbound variable the value mentions (0: none).
    pub(in crate::infer) top: u32,
    /// [`STALE`], [`FRESH`] or [`VISITING`].
    pub(in crate::infer) state: u8,
}

impl Default for Entry {
    fn default() -> Entry {
        Entry { value: Dim::size(0), summary: Summary::EMPTY, top: 0, state: STALE }
    }
}

/// The substituted values of the nodes of an expression table, with who depends on whom.
#[derive(Clone, Default)]
pub struct NodeCache {
    affine: Vec<Entry>,
    concat: Vec<Entry>,
    /// Nodes whose fresh value read an unbound variable (a root).
    var_deps: HashMap<DimVar, SmallVec<[Node; 2]>, FixedState>,
    /// Nodes whose fresh value read another node's.
    node_deps: HashMap<Node, SmallVec<[Node; 2]>, FixedState>,
    /// Nodes that went stale while the solver watches (some constraint is deferred).
    pub changed: Vec<Node>,
    /// The first node found to overflow, not yet reported.
    pub(in crate::infer) overflow: Option<Node>,
    /// Where the nodes of spec axes were written: the step and the axis' span.
    origins: HashMap<Node, (StepId, Span), FixedState>,
}

impl NodeCache {
    /// The entry of a node (a stale default for one never computed).
    pub(in crate::infer) fn entry(&self, n: Node) -> Entry {
        let table = if n.is_concat() { &self.concat } else { &self.affine };
        table.get(n.index()).copied().unwrap_or_default()
    }

    pub(in crate::infer) fn entry_mut(&mut self, n: Node) -> &mut Entry {
        let table = if n.is_concat() { &mut self.concat } else { &mut self.affine };
        if table.len() <= n.index() {
            table.resize(n.index() + 1, Entry::default());
        }
        &mut table[n.index()]
    }

    pub(in crate::infer) fn state(&self, n: Node) -> u8 {
        self.entry(n).state
    }

    /// Marks the dependents of an unbound variable stale: it was bound, or united into
    /// another variable.
    pub fn var_changed(&mut self, v: DimVar, watching: bool) {
        if self.var_deps.is_empty() {
            return;
        }
        if let Some(deps) = self.var_deps.remove(&v) {
            self.mark(deps, watching);
        }
    }

    fn mark(&mut self, mut work: SmallVec<[Node; 2]>, watching: bool) {
        while let Some(n) = work.pop() {
            let e = self.entry_mut(n);
            if e.state != FRESH {
                continue;
            }
            e.state = STALE;
            if watching {
                self.changed.push(n);
            }
            if let Some(more) = self.node_deps.remove(&n) {
                work.extend(more);
            }
        }
    }

    /// Records where a spec axis' node was written (the first writer is kept).
    pub fn note_origin(&mut self, n: Node, step: StepId, span: Span) {
        self.origins.entry(n).or_insert((step, span));
    }

    /// Where a node was written, if it comes from a spec axis.
    pub fn origin(&self, n: Node) -> Option<(StepId, Span)> {
        self.origins.get(&n).copied()
    }

    pub(in crate::infer) fn depend_on_var(&mut self, v: DimVar, n: Node) {
        let deps = self.var_deps.entry(v).or_default();
        if deps.last() != Some(&n) {
            deps.push(n);
        }
    }

    pub(in crate::infer) fn depend_on_node(&mut self, c: Node, n: Node) {
        let deps = self.node_deps.entry(c).or_default();
        if deps.last() != Some(&n) {
            deps.push(n);
        }
    }
}

/// An evaluation of nodes bottom-up (the parts of a node before the node) by an explicit
/// stack, never by recursion: a chain of nodes is as deep as the program that wrote it.
pub(in crate::infer) trait BottomUp {
    /// The `k`-th part of `n` (`None` past the last).
    fn part(&self, n: Node, k: usize) -> Option<Dim>;
    /// The node a part stands for, when that node still has to be evaluated.
    fn pending(&mut self, part: Dim) -> Option<Node>;
    /// Marks a node as being evaluated (it is on the stack).
    fn enter(&mut self, n: Node);
    /// Evaluates a node whose parts are all evaluated.
    fn finish(&mut self, n: Node);

    /// Evaluates `root` and the pending nodes below it.
    fn bottom_up(&mut self, root: Node) {
        self.enter(root);
        let mut stack: Vec<(Node, usize)> = vec![(root, 0)];
        while let Some(&(n, next)) = stack.last() {
            let mut k = next;
            let mut descend = None;
            while let Some(part) = self.part(n, k) {
                k += 1;
                descend = self.pending(part);
                if descend.is_some() {
                    break;
                }
            }
            if let Some(top) = stack.last_mut() {
                top.1 = k;
            }
            match descend {
                Some(c) => {
                    self.enter(c);
                    stack.push((c, 0));
                }
                None => {
                    stack.pop();
                    self.finish(n);
                }
            }
        }
    }
}
