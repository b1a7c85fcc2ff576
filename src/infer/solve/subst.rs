//! Substitution into affine and concatenation dims, cached per node of the expression table.
//!
//! The value of a node (an affine or concatenation dim of
//! [`DimExprs`](crate::shape::DimExprs)) with the current bindings substituted is kept in a side
//! table with a *fresh* flag (`nodes.rs`). Computing it reads the
//! values of the node's parts (the values of bound variables, the cached values of other
//! nodes) and registers the node as a dependent of each unbound variable and node it read.
//! Binding a variable (or uniting it away) marks its dependents stale, and theirs in turn; a
//! stale node is recomputed when next asked for, after the stale nodes below it, by an explicit
//! stack (never by recursion: a chain of a million strided steps is a million nodes deep).
//!
//! So substituting costs the nodes that changed since they were last asked for, not the size
//! of the structure: a chain that grows at its deep end, a concatenation whose parts are bound
//! one by one, a node shared by many others, each cost O(1) amortized per change.
//!
//! * An affine node's value is its canonical form: its parts substituted, its size when they
//!   are known, and a strided axis over a strided axis composed into one (`2*(3*o)` is `6*o`,
//!   while the product fits in 64 bits), so that strided chains stay one node deep.
//! * A concatenation's value is its size when every part is solved, else the node itself: the
//!   parts are never flattened into a new node. Its entry sums the solved parts and counts the
//!   unknown ones ([`Summary`]), which is what the concatenation rules read first.
//! * A size above 2^62 is an overflow: the node keeps its unsimplified value, and the first such
//!   node is recorded for the solver to report ([`Env::take_overflow`]).

use std::collections::HashSet;

use foldhash::fast::FixedState;

use super::arith::{simplify_affine, Simplified};
use super::env::Env;
use super::nodes::{BottomUp, Entry, Node, Summary, FRESH, STALE, VISITING};
use crate::ids::{DimVar, StepId};
use crate::shape::{AffineDim, ConvPadding, Dim, Solved};
use crate::span::Span;

/// A dim with one level of bindings resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// A size.
    Solved(Solved),
    /// An unbound variable (a root).
    Root(DimVar),
    /// A node (its value is in the cache).
    Node(Node),
}

impl Env {
    /// Resolves a dim one level: a variable to its root or its value.
    pub fn resolve(&mut self, d: Dim) -> Resolved {
        let mut v = match d {
            Dim::Var(v) => v,
            Dim::Solved(s) => return Resolved::Solved(s),
            other => {
                return Node::of(other).map_or(Resolved::Solved(Solved::new(0)), Resolved::Node)
            }
        };
        // A variable's value is never a variable (variables are united instead); the loop is
        // bounded all the same.
        for _ in 0..=self.dim_values.len() {
            let (root, value) = self.dims.inlined_probe_key_value(v);
            let Some(i) = value.get() else { return Resolved::Root(root) };
            match self.dim_values[i as usize] {
                Dim::Solved(s) => return Resolved::Solved(s),
                Dim::Var(w) if w != v => v = w,
                Dim::Var(_) => return Resolved::Root(root),
                other => {
                    return Node::of(other).map_or(Resolved::Root(root), Resolved::Node);
                }
            }
        }
        Resolved::Root(v)
    }

    /// The substituted value of a node.
    pub fn node_value(&mut self, n: Node) -> Dim {
        if self.cache.state(n) != FRESH {
            self.refresh(n);
        }
        self.cache.entry(n).value
    }

    /// The summary of a substituted dim: a size, an unknown part, or a node's parts.
    pub fn summary(&mut self, d: Dim) -> Summary {
        match self.resolve(d) {
            Resolved::Solved(s) => Summary::solved(s),
            Resolved::Root(_) => Summary { unknown: 1, ..Summary::EMPTY },
            Resolved::Node(n) => {
                self.node_value(n);
                self.cache.entry(n).summary
            }
        }
    }

    /// The first node found to overflow since the last call, with where it was written.
    pub fn take_overflow(&mut self) -> Option<(Node, Option<(StepId, Span)>)> {
        let n = self.cache.overflow.take()?;
        Some((n, self.cache.origin(n)))
    }

    /// Brings a stale node's value up to date, and the stale nodes below it first.
    fn refresh(&mut self, root: Node) {
        Refresh(self).bottom_up(root);
    }

    /// The `k`-th part of a node: an affine node's `over` then its kernel, a concatenation's
    /// parts in order.
    pub(in crate::infer) fn child(&self, n: Node, k: usize) -> Option<Dim> {
        let id = n.expr();
        if n.is_concat() {
            return self.exprs.parts(id).get(k).copied();
        }
        let a = self.exprs.get_affine(id);
        match k {
            0 => Some(a.over),
            1 => a.conv.map(|(_, kernel, _)| kernel),
            _ => None,
        }
    }

    /// The value of a part, with its summary and top variable, registering `n` as its
    /// dependent. A node found on the stack of [`Env::refresh`] (a cycle, which the occurs
    /// check rules out) reads as itself.
    fn read_part(&mut self, part: Dim, n: Node) -> (Dim, Summary, u32) {
        match self.resolve(part) {
            Resolved::Solved(s) => (Dim::Solved(s), Summary::solved(s), 0),
            Resolved::Root(v) => {
                self.cache.depend_on_var(v, n);
                (Dim::Var(v), Summary { unknown: 1, ..Summary::EMPTY }, v.0.saturating_add(1))
            }
            Resolved::Node(c) => {
                let e = self.cache.entry(c);
                if e.state != FRESH {
                    return (c.dim(), Summary { unknown: 1, ..Summary::EMPTY }, u32::MAX);
                }
                self.cache.depend_on_node(c, n);
                (e.value, e.summary, e.top)
            }
        }
    }

    /// Computes a node's value from its parts' (all fresh).
    fn compute(&mut self, n: Node) {
        let entry = if n.is_concat() { self.compute_concat(n) } else { self.compute_affine(n) };
        if entry.summary.overflow && self.cache.overflow.is_none() {
            self.cache.overflow = Some(n);
        }
        *self.cache.entry_mut(n) = entry;
    }

    fn compute_affine(&mut self, n: Node) -> Entry {
        let a = self.exprs.get_affine(n.expr());
        let (over, over_sum, over_top) = self.read_part(a.over, n);
        let (conv, top) = match a.conv {
            Some((dil, k, pad)) => {
                let (kernel, _, k_top) = self.read_part(k, n);
                (Some((dil, kernel, pad)), over_top.max(k_top))
            }
            None => (None, over_top),
        };
        let new = AffineDim { stride: a.stride, over, offset: a.offset, conv };
        let (value, overflow) = match simplify_affine(new) {
            Simplified::Dim(d) => (d, false),
            Simplified::Overflow => (self.exprs.affine(new), true),
            Simplified::Stays => {
                (self.compose(new).unwrap_or_else(|| self.exprs.affine(new)), false)
            }
        };
        let summary = match value {
            Dim::Solved(s) => Summary::solved(s),
            // A stride-1 axis is its `over`, which may be a concatenation.
            _ if value == over => over_sum,
            _ => Summary { unknown: 1, overflow, ..Summary::EMPTY },
        };
        let top = if matches!(value, Dim::Solved(_)) { 0 } else { top };
        Entry { value, summary, top, state: FRESH }
    }

    /// A strided axis over a plain strided axis, as one (`s*(t*o+c)+d` is `s·t*o + s·c+d`);
    /// `None` when it is not one or the stride or offset would not fit in 64 bits.
    fn compose(&mut self, outer: AffineDim) -> Option<Dim> {
        if matches!(outer.conv, Some((_, _, ConvPadding::Valid))) {
            return None;
        }
        let Dim::Affine(id) = outer.over else { return None };
        let inner = self.exprs.get_affine(id);
        if inner.conv.is_some() {
            return None;
        }
        let stride = outer.stride.checked_mul(inner.stride)?;
        let offset = outer.stride.checked_mul(inner.offset)?.checked_add(outer.offset)?;
        Some(self.exprs.affine(AffineDim { stride, over: inner.over, offset, conv: outer.conv }))
    }

    fn compute_concat(&mut self, n: Node) -> Entry {
        let id = n.expr();
        let count = self.exprs.parts(id).len();
        let mut summary = Summary::EMPTY;
        let mut top = 0;
        let mut only = None;
        for k in 0..count {
            let part = self.exprs.parts(id)[k];
            let (value, s, t) = self.read_part(part, n);
            summary.add(&s);
            top = top.max(t);
            only = Some(value);
        }
        let value = match (count, summary.solved_sum()) {
            // A single part is that part.
            (1, _) => only.unwrap_or(n.dim()),
            (_, Some(s)) if summary.unknown == 0 => Dim::Solved(s),
            _ => n.dim(),
        };
        let top = if matches!(value, Dim::Solved(_)) { 0 } else { top };
        Entry { value, summary, top, state: FRESH }
    }

    /// Whether the unbound variable `x` (a root) occurs in `d` with the bindings substituted.
    /// Nodes whose variables are all older than `x` are not entered.
    pub fn occurs(&mut self, x: DimVar, d: Dim) -> bool {
        let mut stack: Vec<Dim> = vec![d];
        let mut seen: HashSet<Node, FixedState> = HashSet::default();
        while let Some(d) = stack.pop() {
            match self.resolve(d) {
                Resolved::Solved(_) => {}
                Resolved::Root(v) if v == x => return true,
                Resolved::Root(_) => {}
                Resolved::Node(n) => {
                    self.node_value(n);
                    if self.cache.entry(n).top <= x.0 || !seen.insert(n) {
                        continue;
                    }
                    stack.extend((0..).map_while(|k| self.child(n, k)));
                }
            }
        }
        false
    }

    /// Calls `f` on every unbound variable (root) of `d` with the bindings substituted, each
    /// node visited once (a variable may be reported more than once).
    pub fn for_each_root(&mut self, d: Dim, f: &mut impl FnMut(DimVar)) {
        let mut stack: Vec<Dim> = vec![d];
        let mut seen: HashSet<Node, FixedState> = HashSet::default();
        while let Some(d) = stack.pop() {
            match self.resolve(d) {
                Resolved::Solved(_) => {}
                Resolved::Root(v) => f(v),
                Resolved::Node(n) => {
                    self.node_value(n);
                    if self.cache.entry(n).top == 0 || !seen.insert(n) {
                        continue;
                    }
                    let first = stack.len();
                    stack.extend((0..).map_while(|k| self.child(n, k)));
                    stack[first..].reverse();
                }
            }
        }
    }

    /// The unknown parts of a substituted concatenation (or of any dim: itself when unknown),
    /// flattened in order: unbound variables and unsolved affine values. `None` when there
    /// are more than `limit`.
    pub fn unknown_parts(&mut self, d: Dim, limit: usize) -> Option<Vec<Dim>> {
        let mut out = Vec::new();
        let mut stack: Vec<Dim> = vec![d];
        while let Some(d) = stack.pop() {
            match self.resolve(d) {
                Resolved::Solved(_) => {}
                Resolved::Root(v) => out.push(Dim::Var(v)),
                Resolved::Node(n) => {
                    let value = self.node_value(n);
                    let e = self.cache.entry(n);
                    if e.summary.unknown == 0 && !e.summary.overflow {
                        continue;
                    }
                    if !n.is_concat() || value != n.dim() {
                        // An affine value, or a one-part concatenation's part.
                        match value {
                            Dim::Concat(_) => stack.push(value),
                            Dim::Solved(_) => {}
                            other => out.push(other),
                        }
                    } else {
                        let first = stack.len();
                        stack.extend((0..).map_while(|k| self.child(n, k)));
                        stack[first..].reverse();
                    }
                }
            }
            if out.len() > limit {
                return None;
            }
        }
        Some(out)
    }

    /// Calls `f` on the unknown parts of a substituted concatenation (as
    /// [`Env::unknown_parts`] lists them), visiting each node once: a part repeated through
    /// shared nodes may be reported once only.
    pub fn for_each_unknown_part(&mut self, d: Dim, f: &mut impl FnMut(Dim)) {
        let mut stack: Vec<Dim> = vec![d];
        let mut seen: HashSet<Node, FixedState> = HashSet::default();
        while let Some(d) = stack.pop() {
            match self.resolve(d) {
                Resolved::Solved(_) => {}
                Resolved::Root(v) => f(Dim::Var(v)),
                Resolved::Node(n) => {
                    let value = self.node_value(n);
                    let e = self.cache.entry(n);
                    if e.summary.unknown == 0 || !seen.insert(n) {
                        continue;
                    }
                    match value {
                        Dim::Solved(_) => {}
                        Dim::Concat(_) if value == n.dim() => {
                            stack.extend((0..).map_while(|k| self.child(n, k)));
                        }
                        Dim::Concat(_) => stack.push(value),
                        other => f(other),
                    }
                }
            }
        }
    }
}

/// [`Env::refresh`]: the stale nodes below a node, then the node.
struct Refresh<'a>(&'a mut Env);

impl BottomUp for Refresh<'_> {
    fn part(&self, n: Node, k: usize) -> Option<Dim> {
        self.0.child(n, k)
    }

    fn pending(&mut self, part: Dim) -> Option<Node> {
        match self.0.resolve(part) {
            Resolved::Node(c) if self.0.cache.state(c) == STALE => Some(c),
            _ => None,
        }
    }

    fn enter(&mut self, n: Node) {
        self.0.cache.entry_mut(n).state = VISITING;
    }

    fn finish(&mut self, n: Node) {
        self.0.compute(n);
    }
}

#[cfg(test)]
mod tests {
    use super::{Node, Summary};
    use crate::infer::solve::env::Env;
    use crate::shape::{AffineDim, Basis, Dim, Solved};
    use crate::spec::lexer::MAX_INT;

    fn strided(env: &mut Env, stride: u64, over: Dim) -> Dim {
        env.exprs.affine(AffineDim { stride, over, offset: 0, conv: None })
    }

    /// A chain `x = 2*o0`, `o0 = 2*o1`, … is one composed node once read, and reads again as
    /// sizes once its last variable is bound, with nodes refreshed in a loop.
    #[test]
    fn a_strided_chain_composes_and_refreshes() {
        let mut env = Env::default();
        let vars: Vec<_> = (0..40).map(|_| env.new_dim(None)).collect();
        let top = strided(&mut env, 2, Dim::Var(vars[0]));
        for w in vars.windows(2) {
            let next = strided(&mut env, 2, Dim::Var(w[1]));
            env.bind_dim(w[0], next);
        }
        let composed = env.dim(&top);
        let Dim::Affine(id) = composed else { panic!("an affine value: {composed:?}") };
        let a = env.exprs.get_affine(id);
        assert_eq!((a.stride, a.over), (1 << 40, Dim::Var(vars[39])));
        env.bind_dim(vars[39], Dim::size(3));
        assert_eq!(env.dim(&top), Dim::size(3 << 40));
        assert!(env.take_overflow().is_none());
    }

    /// Past 64 bits the strides stop composing (the node nests) and the size, once known,
    /// is an overflow recorded against the node that first exceeds 2^62.
    #[test]
    fn a_chain_past_the_limit_records_its_overflow() {
        let mut env = Env::default();
        let vars: Vec<_> = (0..70).map(|_| env.new_dim(None)).collect();
        let nodes: Vec<Dim> = vars.iter().map(|v| strided(&mut env, 2, Dim::Var(*v))).collect();
        for (i, w) in vars.windows(2).enumerate() {
            env.bind_dim(w[0], nodes[i + 1]);
        }
        assert!(matches!(env.dim(&nodes[0]), Dim::Affine(_)));
        assert!(env.take_overflow().is_none(), "no size is known yet");
        env.bind_dim(vars[69], Dim::size(1));
        let value = env.dim(&nodes[0]);
        assert!(matches!(value, Dim::Affine(_)), "not simplified: {value:?}");
        let (node, _) = env.take_overflow().expect("an overflow");
        // nodes[k] has size 2^(70-k): nodes[7] is the first above 2^62.
        assert_eq!(node, Node::of(nodes[7]).expect("a node"));
    }

    /// A concatenation's entry sums its solved parts and counts the unknown ones, through
    /// shared nodes, and follows bindings.
    #[test]
    fn a_concatenation_summary_follows_its_parts() {
        let mut env = Env::default();
        let x = env.new_dim(None);
        let mut c = Dim::Var(x);
        for _ in 0..50 {
            c = env.exprs.concat(&[c, c]);
        }
        let s = env.summary(c);
        assert_eq!((s.sum, s.unknown), (0, 1 << 50));
        assert_eq!(env.dim(&c), c);
        env.bind_dim(x, Dim::size(2));
        assert_eq!(env.dim(&c), Dim::size(2 << 50));
        assert!(!env.occurs(x, c));
    }

    /// Solved parts past 2^62 overflow; two named bases conflict.
    #[test]
    fn summaries_overflow_and_conflict() {
        let mut s = Summary::solved(Solved::new(MAX_INT));
        s.add(&Summary::solved(Solved::new(0)));
        assert!(!s.overflow);
        s.add(&Summary::solved(Solved::new(1)));
        assert!(s.overflow);
        let (h, w) = (Basis(2), Basis(3));
        let mut s = Summary::solved(Solved { size: 2, basis: h });
        s.add(&Summary::solved(Solved { size: 0, basis: w }));
        assert_eq!(s.solved_sum(), Some(Solved { size: 2, basis: h }));
        s.add(&Summary::solved(Solved { size: 1, basis: w }));
        assert_eq!((s.conflict, s.solved_sum()), (Some(w), None));
    }

    /// The occurs check finds a variable through bound variables and nodes.
    #[test]
    fn the_occurs_check_looks_through_bindings() {
        let mut env = Env::default();
        let (x, y, z) = (env.new_dim(None), env.new_dim(None), env.new_dim(None));
        let inner = env.exprs.concat(&[Dim::Var(x), Dim::size(3)]);
        env.bind_dim(y, inner);
        let outer = strided(&mut env, 2, Dim::Var(y));
        assert!(env.occurs(x, outer));
        assert!(!env.occurs(z, outer));
    }
}
