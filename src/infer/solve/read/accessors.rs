//! Reading the solver's bindings without changing anything: the read accessors of the graph
//! (`Graph::shape`, `dims`, `sizes`, `solved_shape`, handles) take `&self`.
//!
//! * **Variables.** ena's `find` compresses paths, so it needs `&mut`. [`Parents`] keeps, for
//!   every variable that was united into another, the root it was united into at that moment
//!   (ena unites by rank, so a chain of such links is at most logarithmically long): following
//!   it from any variable reaches the same root `find` would, and the root's value is read with
//!   ena's non-mutating probe.
//! * **Affine and concatenation dims.** A node whose entry in the node table (`solve/nodes.rs`) is
//!   fresh is read from it: its value is exactly what the mutable substitution returns. A stale
//!   node whose last value still mentions a variable that is unbound is not solved either (a
//!   binding only adds to what is known): its last value, an equivalent form, is read as it is.
//!   Any other node is evaluated here with its parts, bottom-up by an explicit stack with a
//!   memo for the one read (never by recursion: a strided chain of a million steps is a million
//!   nodes deep), by the rules of `solve/subst.rs` without interning anything: a node that does not
//!   simplify to a size reads as written (its unsubstituted node).
//! * **Freshness.** Reads stay cheap because solving leaves the table fresh: when the graph is
//!   solved, the shapes of every tensor of that round are substituted through the node table
//!   (each stale node recomputed once), and a solved node never goes stale again. Between two
//!   solves, a read costs at most the stale nodes it reaches.
//!
//! So a read agrees with the mutable substitution on every size, on which axes stay unsolved,
//! and on why (a basis conflict, an overflow past 2^62).

use std::collections::HashMap;

use foldhash::fast::FixedState;
use smallvec::SmallVec;

use crate::ids::{DimVar, RowVar};
use crate::infer::solve::arith::{parts_basis_conflict, simplify_affine, Simplified};
use crate::infer::solve::constraint::RowArg;
use crate::infer::solve::env::Env;
use crate::infer::solve::nodes::{BottomUp, Node, Summary, FRESH};
use crate::infer::solve::store::{RowId, ShapeRef};
use crate::infer::solve::subst::Resolved;
use crate::shape::{AffineDim, Basis, Dim, Row, Shape, Solved};
use crate::spec::ast::RowKind;

/// The sentinel of a variable that was never united into another.
const ROOT: u32 = u32::MAX;

/// Up-links of united variables, one entry per variable (4 bytes).
#[derive(Clone, Debug, Default)]
pub struct Parents {
    dims: Vec<u32>,
    rows: Vec<u32>,
}

impl Parents {
    /// A new dim variable, a root.
    pub fn new_dim(&mut self) {
        self.dims.push(ROOT);
    }

    /// A new row variable, a root.
    pub fn new_row(&mut self) {
        self.rows.push(ROOT);
    }

    /// The root `other` was united into `root` (nothing when they are the same).
    pub fn unite_dims(&mut self, other: DimVar, root: DimVar) {
        if let Some(p) = self.dims.get_mut(other.index()).filter(|_| other != root) {
            *p = root.0;
        }
    }

    /// The root `other` was united into `root` (nothing when they are the same).
    pub fn unite_rows(&mut self, other: RowVar, root: RowVar) {
        if let Some(p) = self.rows.get_mut(other.index()).filter(|_| other != root) {
            *p = root.0;
        }
    }

    /// The representative of a dim variable.
    pub fn dim_root(&self, v: DimVar) -> DimVar {
        DimVar(root_of(&self.dims, v.0))
    }

    /// The representative of a row variable.
    pub fn row_root(&self, v: RowVar) -> RowVar {
        RowVar(root_of(&self.rows, v.0))
    }
}

/// Follows up-links to a root. Each link goes to a root of higher rank, so the walk is at most
/// 32 links long; it is bounded by the table's length all the same.
fn root_of(links: &[u32], mut v: u32) -> u32 {
    for _ in 0..=links.len() {
        match links.get(v as usize) {
            Some(&p) if p != ROOT && p != v => v = p,
            _ => break,
        }
    }
    v
}

/// One read: the environment and the nodes evaluated so far (those whose entries are stale).
pub(in crate::infer) struct Peek<'a> {
    env: &'a Env,
    memo: HashMap<Node, (Dim, Summary), FixedState>,
}

impl<'a> Peek<'a> {
    /// A read of `env` (nothing is evaluated until asked for).
    pub(in crate::infer) fn new(env: &'a Env) -> Peek<'a> {
        Peek { env, memo: HashMap::default() }
    }

    /// A dim resolved one level: a variable to its root or its value.
    pub(in crate::infer) fn resolve(&self, d: Dim) -> Resolved {
        let mut v = match d {
            Dim::Var(v) => v,
            Dim::Solved(s) => return Resolved::Solved(s),
            other => {
                return Node::of(other).map_or(Resolved::Solved(Solved::new(0)), Resolved::Node)
            }
        };
        // A variable's value is never a variable (they are united instead); bounded anyway.
        for _ in 0..=self.env.dim_count() {
            let root = self.env.parents.dim_root(v);
            match self.env.root_dim_value(root) {
                None => return Resolved::Root(root),
                Some(Dim::Solved(s)) => return Resolved::Solved(*s),
                Some(Dim::Var(w)) if *w != v => v = *w,
                Some(Dim::Var(_)) => return Resolved::Root(root),
                Some(other) => {
                    return Node::of(*other).map_or(Resolved::Root(root), Resolved::Node);
                }
            }
        }
        Resolved::Root(v)
    }

    /// A dim with the bindings substituted.
    pub(in crate::infer) fn dim(&mut self, d: Dim) -> Dim {
        self.part(d).0
    }

    /// A dim's substituted value with its summary.
    pub(in crate::infer) fn part(&mut self, d: Dim) -> (Dim, Summary) {
        match self.resolve(d) {
            Resolved::Solved(s) => (Dim::Solved(s), Summary::solved(s)),
            Resolved::Root(v) => (Dim::Var(v), Summary::unknown()),
            Resolved::Node(n) => self.node(n),
        }
    }

    /// A node's substituted value with its summary.
    pub(in crate::infer) fn node(&mut self, n: Node) -> (Dim, Summary) {
        if let Some(known) = self.known(n) {
            return known;
        }
        // It and the nodes below it that are not known, bottom-up.
        self.bottom_up(n);
        self.known(n).unwrap_or((n.dim(), Summary::unknown()))
    }

    /// A node's value without evaluating anything: a fresh entry, this read's memo, or a
    /// stale entry that still mentions an unbound variable (so is still unsolved).
    fn known(&self, n: Node) -> Option<(Dim, Summary)> {
        let e = self.env.cache.entry(n);
        if e.state == FRESH {
            return Some((e.value, e.summary));
        }
        if let Some(m) = self.memo.get(&n) {
            return Some(*m);
        }
        let witness = e.top.checked_sub(1).filter(|&t| t < u32::MAX - 1).map(DimVar)?;
        let root = self.env.parents.dim_root(witness);
        if self.env.root_dim_value(root).is_some() {
            return None;
        }
        let summary = Summary { unknown: e.summary.unknown.max(1), ..e.summary };
        Some((e.value, summary))
    }

    /// A node's value from its parts' (all known), by the rules of `Env::compute`; what would
    /// need a new node reads as the node itself.
    fn compute(&mut self, n: Node) -> (Dim, Summary) {
        let exprs = &self.env.exprs;
        if n.is_concat() {
            let count = exprs.parts(n.expr()).len();
            let mut summary = Summary::EMPTY;
            let mut only = n.dim();
            for k in 0..count {
                let (value, s) = self.part(self.env.exprs.parts(n.expr())[k]);
                summary.add(&s);
                only = value;
            }
            let value = match (count, summary.solved_sum()) {
                (1, _) => only,
                (_, Some(s)) if summary.unknown == 0 => Dim::Solved(s),
                _ => n.dim(),
            };
            return (value, summary);
        }
        let a = exprs.get_affine(n.expr());
        let (over, over_sum) = self.part(a.over);
        let conv = a.conv.map(|(dil, k, pad)| (dil, self.part(k).0, pad));
        match simplify_affine(AffineDim { stride: a.stride, over, offset: a.offset, conv }) {
            Simplified::Dim(Dim::Solved(s)) => (Dim::Solved(s), Summary::solved(s)),
            // A stride-1 axis is its `over`, which may be a concatenation.
            Simplified::Dim(d) if d == over => (d, over_sum),
            Simplified::Dim(d) => (d, Summary::unknown()),
            Simplified::Overflow => (n.dim(), Summary { overflow: true, ..Summary::unknown() }),
            Simplified::Stays => (n.dim(), Summary::unknown()),
        }
    }

    /// The affine dim `n` stands for with its parts substituted.
    fn substituted_affine(&mut self, n: Node) -> AffineDim {
        let a = self.env.exprs.get_affine(n.expr());
        let over = self.dim(a.over);
        let conv = a.conv.map(|(dil, k, pad)| (dil, self.dim(k), pad));
        AffineDim { over, conv, ..a }
    }
}

impl BottomUp for Peek<'_> {
    fn part(&self, n: Node, k: usize) -> Option<Dim> {
        self.env.child(n, k)
    }

    fn pending(&mut self, part: Dim) -> Option<Node> {
        match self.resolve(part) {
            Resolved::Node(c) if self.known(c).is_none() => Some(c),
            _ => None,
        }
    }

    /// A node on the stack reads as itself, unknown (so a cycle, which the occurs check rules
    /// out, cannot loop).
    fn enter(&mut self, n: Node) {
        self.memo.insert(n, (n.dim(), Summary::unknown()));
    }

    fn finish(&mut self, n: Node) {
        let value = self.compute(n);
        self.memo.insert(n, value);
    }
}

impl Env {
    /// [`Env::dim`] without changing the env: the current bindings substituted into `d` (an
    /// affine or concatenation dim that does not simplify to a size may read as written).
    pub fn peek_dim(&self, d: &Dim) -> Dim {
        match *d {
            Dim::Solved(s) => Dim::Solved(s),
            d => Peek::new(self).dim(d),
        }
    }

    /// Why an affine or concatenation dim whose parts are all solved is not a size: the two
    /// named bases that keep it apart, with what holds them. `None` for any other dim.
    pub fn peek_conflict(&self, d: Dim) -> Option<(&'static str, Basis, Basis)> {
        let mut p = Peek::new(self);
        match p.resolve(d) {
            Resolved::Node(n) if n.is_concat() => match p.node(n).1 {
                Summary {
                    unknown: 0, overflow: false, named: Some(a), conflict: Some(b), ..
                } => Some(("concatenated axes", a, b)),
                _ => None,
            },
            Resolved::Node(n) => parts_basis_conflict(&p.substituted_affine(n))
                .map(|(a, b)| ("a convolution's output and kernel axes", a, b)),
            _ => None,
        }
    }

    /// The first affine or concatenation node reachable from `d` whose size is above 2^62
    /// (each node visited once).
    pub fn peek_overflow(&self, d: Dim) -> Option<Node> {
        let mut p = Peek::new(self);
        let mut stack = vec![d];
        let mut seen = std::collections::HashSet::<Node, FixedState>::default();
        while let Some(d) = stack.pop() {
            let Resolved::Node(n) = p.resolve(d) else { continue };
            let s = p.node(n).1;
            if s.overflow {
                return Some(n);
            }
            if s.unknown > 0 && seen.insert(n) {
                stack.extend((0..).map_while(|k| self.child(n, k)));
            }
        }
        None
    }

    /// The stored value of a row variable, or its root when it is unbound.
    pub fn peek_row_value(&self, v: RowVar) -> Result<RowId, RowVar> {
        let root = self.parents.row_root(v);
        self.root_row_value(root).ok_or(root)
    }

    /// [`Env::row_arg`] without changing the env, for the rows of tensors (a scratch row reads
    /// as empty: none outlives the operation that made it).
    pub fn peek_row_arg(&self, r: &RowArg) -> Row {
        self.peek_row_with(&mut Peek::new(self), r)
    }

    fn peek_row_with(&self, p: &mut Peek<'_>, r: &RowArg) -> Row {
        let mut out = Row::default();
        let first = match r {
            RowArg::Empty | RowArg::Scratch(_) => return out,
            RowArg::Var(v) => match self.peek_row_value(*v) {
                Ok(id) => id,
                Err(root) => {
                    out.var = Some(root);
                    return out;
                }
            },
            RowArg::Stored(id) => *id,
        };
        // Row values nest as deep as the program makes them: the chain is followed in a loop
        // (a row variable's value never mentions the variable itself, so it ends).
        let mut chain: SmallVec<[RowId; 4]> = smallvec::smallvec![first];
        let mut var = self.store.layout(first).3;
        while let Some(v) = var {
            match self.peek_row_value(v) {
                Err(root) => {
                    out.var = Some(root);
                    break;
                }
                Ok(inner) if chain.len() <= self.row_count() => {
                    chain.push(inner);
                    var = self.store.layout(inner).3;
                }
                Ok(_) => break,
            }
        }
        for &id in &chain {
            let (start, beg, _, _) = self.store.layout(id);
            for k in start..start + beg {
                out.beg.push(p.dim(*self.store.dim_at(k)));
            }
        }
        for &id in chain.iter().rev() {
            let (start, beg, len, _) = self.store.layout(id);
            for k in start + beg..start + len {
                out.dims.push(p.dim(*self.store.dim_at(k)));
            }
        }
        out
    }

    /// A tensor's shape with the current bindings substituted.
    pub fn peek_shape(&self, s: ShapeRef) -> Shape {
        let mut p = Peek::new(self);
        let [batch, input, output] = s.rows().map(|r| self.peek_row_with(&mut p, &r));
        Shape { batch, input, output }
    }

    /// The solved sizes of a tensor's rows in the given order of kinds, as `Graph::solved_shape`
    /// reads them: `push` gets each size; returns each row's length and leading flank.
    pub fn peek_sizes(
        &self,
        s: ShapeRef,
        order: [RowKind; 3],
        push: &mut impl FnMut(Solved),
    ) -> Option<[(usize, usize); 3]> {
        let mut p = Peek::new(self);
        let mut rows = [(0, 0); 3];
        for (row, kind) in rows.iter_mut().zip(order) {
            let r = self.peek_row_with(&mut p, &s.row(kind));
            if r.var.is_some() {
                return None;
            }
            for d in r.all() {
                push(d.solved()?);
            }
            *row = (r.explicit_len(), r.beg.len());
        }
        Some(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::Parents;
    use crate::ids::{DimVar, RowVar};
    use crate::infer::solve::env::Env;
    use crate::shape::{AffineDim, Dim};

    #[test]
    fn links_lead_to_the_root() {
        let mut p = Parents::default();
        for _ in 0..4 {
            p.new_dim();
            p.new_row();
        }
        p.unite_dims(DimVar(0), DimVar(1));
        p.unite_dims(DimVar(1), DimVar(3));
        assert_eq!(p.dim_root(DimVar(0)), DimVar(3));
        assert_eq!(p.dim_root(DimVar(2)), DimVar(2));
        p.unite_rows(RowVar(2), RowVar(0));
        assert_eq!(p.row_root(RowVar(2)), RowVar(0));
        // A variable past the table (never made) is its own root; a root united with itself
        // stays one.
        assert_eq!(p.row_root(RowVar(9)), RowVar(9));
        p.unite_dims(DimVar(3), DimVar(3));
        assert_eq!(p.dim_root(DimVar(0)), DimVar(3));
    }

    fn strided(env: &mut Env, over: Dim) -> Dim {
        env.exprs.affine(AffineDim { stride: 2, over, offset: 0, conv: None })
    }

    /// A chain `x = 2*o0`, `o0 = 2*o1`, … read before and after the mutable substitution:
    /// never solved while its end is open, the same size as `Env::dim` once it is bound, and
    /// a stale chain is evaluated without recursion.
    #[test]
    fn reads_agree_with_the_mutable_substitution() {
        let n = 200_000;
        let mut env = Env::default();
        let vars: Vec<DimVar> = (0..n).map(|_| env.new_dim(None)).collect();
        let top = strided(&mut env, Dim::Var(vars[0]));
        for w in vars.windows(2) {
            let next = strided(&mut env, Dim::Var(w[1]));
            env.bind_dim(w[0], next);
        }
        assert!(env.peek_dim(&top).solved().is_none());
        assert!(env.dim(&top).solved().is_none());
        env.bind_dim(vars[n - 1], Dim::size(0));
        // Every node below the top is stale or was never computed.
        assert_eq!(env.peek_dim(&top), Dim::size(0));
        assert_eq!(env.dim(&top), Dim::size(0));
        assert_eq!(env.peek_dim(&top), Dim::size(0));
        assert_eq!(env.peek_overflow(top), None);
    }

    /// Past 2^62 the read finds the node that overflows; a concatenation of two named bases
    /// is a conflict.
    #[test]
    fn reads_find_overflows_and_conflicts() {
        let mut env = Env::default();
        let vars: Vec<DimVar> = (0..70).map(|_| env.new_dim(None)).collect();
        let nodes: Vec<Dim> = vars.iter().map(|v| strided(&mut env, Dim::Var(*v))).collect();
        for (i, w) in vars.windows(2).enumerate() {
            env.bind_dim(w[0], nodes[i + 1]);
        }
        env.bind_dim(vars[69], Dim::size(1));
        assert!(env.peek_dim(&nodes[0]).solved().is_none());
        let over = env.peek_overflow(nodes[0]).expect("an overflow");
        // nodes[k] has size 2^(70-k): nodes[7] is the first above 2^62.
        assert_eq!(Some(over), crate::infer::solve::env::Node::of(nodes[7]));
        assert_eq!(env.peek_dim(&nodes[10]), Dim::size(1 << 60));

        let (h, w) = (crate::shape::Basis(2), crate::shape::Basis(3));
        let a = Dim::Solved(crate::shape::Solved { size: 2, basis: h });
        let b = Dim::Solved(crate::shape::Solved { size: 3, basis: w });
        let c = env.exprs.concat(&[a, b]);
        assert_eq!(env.peek_conflict(c), Some(("concatenated axes", h, w)));
        assert_eq!(env.peek_dim(&c), c);
    }
}
