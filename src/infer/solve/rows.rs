//! Row rules: flat equality (binding row variables with the closed row's split), and the
//! broadcast order `res ⊑ opnd` with deficit templates and caps.

use super::constraint::{AxisAt, Constraint, RowArg};
use super::solver::{Outcome, Solver};
use super::store::RowId;
use crate::code::ErrorCode;
use crate::ids::RowVar;
use crate::infer::error::InferError;
use crate::shape::{axes_count, Dim, Dims, Row};

type Res = Result<Outcome, InferError>;

impl Solver {
    /// Flat equality `a = b`.
    pub fn unify_row(&mut self, a: &RowArg, b: &RowArg) -> Res {
        if let Some(done) = self.bind_as_written(a, b)? {
            return Ok(done);
        }
        if let Some(done) = self.bind_as_written(b, a)? {
            return Ok(done);
        }
        let (a, b) = (self.env.row_arg(a), self.env.row_arg(b));
        match (a.var, b.var) {
            _ if a == b => Ok(Outcome::Done),
            (None, None) => self.closed_eq(&a, &b),
            (Some(x), Some(y)) if x == y => self.self_eq(&a, &b, x),
            (Some(x), None) => self.open_closed_eq(&a, x, &b),
            (None, Some(y)) => self.open_closed_eq(&b, y, &a),
            (Some(x), Some(y)) => self.open_open_eq(&a, x, &b, y),
        }
    }

    /// `x = b` for an unbound variable `x` and a row `b` whose outer level has axes: `x`
    /// takes that level as written, its variable unsubstituted. Binding then costs the axes
    /// written there, not the whole substituted row, which can be as long as the program (a
    /// row that gains an axis at every step would otherwise be copied whole at every step).
    /// `None` (nothing done) for any other pair, and when `x` is `b`'s innermost variable.
    fn bind_as_written(&mut self, a: &RowArg, b: &RowArg) -> Result<Option<Outcome>, InferError> {
        let RowArg::Var(v) = a else { return Ok(None) };
        let Err(x) = self.env.row_value(*v) else { return Ok(None) };
        let Some(value) = self.env.outer_level(b) else { return Ok(None) };
        if value.var.is_some() && self.env.tail_var(b) == Some(x) {
            return Ok(None);
        }
        self.bind_row_var(x, value)?;
        Ok(Some(Outcome::Done))
    }

    fn closed_eq(&mut self, a: &Row, b: &Row) -> Res {
        let (fa, fb) = (a.axes(), b.axes());
        if fa.len() != fb.len() {
            let msg = format!(
                "rows of {} and {} cannot be equal",
                axes_count(fa.len()),
                axes_count(fb.len())
            );
            return Err(self.rank_error(msg, [fa.len(), fb.len()], [false, false]));
        }
        for (k, (x, y)) in fa.iter().zip(fb.iter()).enumerate() {
            self.push_dim_eq(*x, *y, AxisAt::left(k));
        }
        Ok(Outcome::Done)
    }

    fn self_eq(&mut self, a: &Row, b: &Row, x: RowVar) -> Res {
        if a.explicit_len() != b.explicit_len() {
            let msg = "a row variable would contain itself plus more axes (infinitely many axes)";
            return Err(self.error(ErrorCode::Cycle, msg.into()));
        }
        if a.beg.len() == b.beg.len() {
            let (beg, len) = (a.beg.len(), a.explicit_len());
            for (k, (p, q)) in a.all().zip(b.all()).enumerate() {
                self.push_dim_eq(*p, *q, AxisAt::in_flanks(k, beg, len));
            }
            return Ok(Outcome::Done);
        }
        if self.stage >= 6 {
            // The least material solution of a shifted self-equation: the variable is empty.
            self.bind_row_var(x, Row::empty())?;
            let (a, b) = (self.env.scratch_arg(a), self.env.scratch_arg(b));
            self.push(Constraint::RowEq(a, b));
            return Ok(Outcome::Done);
        }
        Ok(Outcome::Defer)
    }

    /// `l.<x>.r = closed`: the flanks take the closed row's edges, `x` the middle (keeping the
    /// closed row's split between leading and trailing axes).
    fn open_closed_eq(&mut self, open: &Row, x: RowVar, closed: &Row) -> Res {
        let f = closed.axes();
        let (nl, nr) = (open.beg.len(), open.dims.len());
        if nl + nr > f.len() {
            let msg = format!(
                "a row of {} cannot match a pattern that needs at least {}",
                axes_count(f.len()),
                axes_count(nl + nr)
            );
            return Err(self.rank_error(msg, [f.len(), nl + nr], [false, true]));
        }
        for (i, d) in open.beg.iter().enumerate() {
            self.push_dim_eq(*d, f[i], AxisAt::left(i));
        }
        let tail = f.len() - nr;
        for (j, d) in open.dims.iter().enumerate() {
            self.push_dim_eq(*d, f[tail + j], AxisAt::right(nr - j));
        }
        let split = closed.beg.len();
        let mut value = Row::empty();
        for (i, d) in f.iter().enumerate().take(tail).skip(nl) {
            if i < split {
                value.beg.push(*d);
            } else {
                value.dims.push(*d);
            }
        }
        self.bind_row_var(x, value)?;
        Ok(Outcome::Done)
    }

    fn open_open_eq(&mut self, a: &Row, x: RowVar, b: &Row, y: RowVar) -> Res {
        let lt = a.beg.len().min(b.beg.len());
        let rt = a.dims.len().min(b.dims.len());
        for i in 0..lt {
            self.push_dim_eq(a.beg[i], b.beg[i], AxisAt::left(i));
        }
        for j in 0..rt {
            let (p, q) = (&a.dims[a.dims.len() - rt + j], &b.dims[b.dims.len() - rt + j]);
            self.push_dim_eq(*p, *q, AxisAt::right(rt - j));
        }
        let (l1, r1) = (&a.beg[lt..], &a.dims[..a.dims.len() - rt]);
        let (l2, r2) = (&b.beg[lt..], &b.dims[..b.dims.len() - rt]);
        if l1.is_empty() && r1.is_empty() {
            return self.bind_or_union(x, l2, y, r2);
        }
        if l2.is_empty() && r2.is_empty() {
            return self.bind_or_union(y, l1, x, r1);
        }
        if self.stage < 6 {
            return Ok(Outcome::Defer);
        }
        // Crossed surpluses `P.u = v.Q` (`l1.x = y.r2`, or the mirror `l2.y = x.r1`).
        let (p, q) =
            if l1.is_empty() { (l2.to_vec(), r1.to_vec()) } else { (l1.to_vec(), r2.to_vec()) };
        let (u, v) = if l1.is_empty() { (y, x) } else { (x, y) };
        self.choose(|s| s.crossed_least(&p, u, v, &q), |s| s.crossed_family(&p, u, v, &q))?;
        Ok(Outcome::Done)
    }

    /// The least solution of `P.u = v.Q`: the shortest row, where `P` and `Q` overlap as much as
    /// they can (`[s].u = v.[2,3]` gives `v = []`, `s = 2`, `u = [3]`).
    fn crossed_least(
        &mut self,
        p: &[Dim],
        u: RowVar,
        v: RowVar,
        q: &[Dim],
    ) -> Result<(), InferError> {
        let closed = |d: &[Dim]| Row { beg: Dims::new(), var: None, dims: Dims::from_slice(d) };
        // The overlap is as long as the shorter side: `P`'s end meets `Q`'s start.
        let n = p.len().min(q.len());
        // `P` and `Q` are inner parts of the rows (past their common flanks): their axes'
        // positions on the rows are not known here.
        for (a, b) in p[p.len() - n..].iter().zip(&q[..n]) {
            self.push_dim_eq(*a, *b, AxisAt::NONE);
        }
        let (v_row, u_row) = (closed(&p[..p.len() - n]), closed(&q[n..]));
        // At least one side is empty; it is bound first.
        if u_row.is_empty() {
            self.bind_row_var(u, u_row)?;
            self.bind_row_var(v, v_row)
        } else {
            self.bind_row_var(v, v_row)?;
            self.bind_row_var(u, u_row)
        }
    }

    /// The family of long solutions of `P.u = v.Q`: `v = P.z`, `u = z.Q` for a fresh `z`.
    fn crossed_family(
        &mut self,
        p: &[Dim],
        u: RowVar,
        v: RowVar,
        q: &[Dim],
    ) -> Result<(), InferError> {
        let z = self.fresh_row_like(u);
        self.bind_row_var(v, Row { beg: Dims::from_slice(p), var: Some(z), dims: Dims::new() })?;
        self.bind_row_var(u, Row { beg: Dims::new(), var: Some(z), dims: Dims::from_slice(q) })
    }

    fn bind_or_union(&mut self, x: RowVar, lead: &[Dim], y: RowVar, trail: &[Dim]) -> Res {
        if lead.is_empty() && trail.is_empty() {
            self.union_row_vars(x, y);
            return Ok(Outcome::Done);
        }
        let value =
            Row { beg: Dims::from_slice(lead), var: Some(y), dims: Dims::from_slice(trail) };
        self.bind_row_var(x, value)?;
        Ok(Outcome::Done)
    }

    /// A fresh row variable inheriting `x`'s template depth.
    fn fresh_row_like(&mut self, x: RowVar) -> RowVar {
        let depth = self.env.row_info[x.index()].depth;
        let z = self.env.new_row();
        self.env.row_info[z.index()].depth = depth;
        z
    }

    fn union_row_vars(&mut self, x: RowVar, y: RowVar) {
        let (root, other) = self.env.union_rows(x, y);
        let (moved, links) = self.env.take_row_info(other);
        let info = &mut self.env.row_info[root.index()];
        info.safe_to_guess &= moved.safe_to_guess;
        info.used_in_spec |= moved.used_in_spec;
        info.used_in_pointwise |= moved.used_in_pointwise;
        info.depth = info.depth.max(moved.depth);
        self.reemit_row_facts(links, RowArg::Var(root), None);
    }

    /// Binds an unbound row variable and re-emits what was known about it.
    pub fn bind_row_var(&mut self, x: RowVar, value: Row) -> Result<(), InferError> {
        self.bind_row_var_except_cap(x, value, None)
    }

    /// Binds an unbound row variable to (the substituted value of) one of its caps: that cap
    /// is not re-emitted, since `cap ⊑ cap` holds.
    pub fn bind_row_var_to_cap(
        &mut self,
        x: RowVar,
        value: Row,
        cap: RowId,
    ) -> Result<(), InferError> {
        self.bind_row_var_except_cap(x, value, Some(cap))
    }

    /// Binds an unbound row variable and re-emits what was known about it, except `own_cap`:
    /// the cap that `value` is the substituted value of (the caller's word).
    fn bind_row_var_except_cap(
        &mut self,
        x: RowVar,
        value: Row,
        own_cap: Option<RowId>,
    ) -> Result<(), InferError> {
        let x = self.env.row_root(x);
        if value.var.map(|v| self.env.row_root(v)) == Some(x) {
            if value.explicit_len() == 0 {
                return Ok(());
            }
            let msg = "a row variable would contain itself plus more axes (infinitely many axes)";
            return Err(self.error(ErrorCode::Cycle, msg.into()));
        }
        let (info, links) = self.env.take_row_info(x);
        // A value bound as written may hold a bound variable: the facts go to the innermost.
        let inner = value.var.and_then(|v| match self.env.row_value(v) {
            Err(root) => Some(root),
            Ok(_) => self.env.tail_var(&RowArg::Var(v)),
        });
        if let Some(v) = inner {
            let inner = &mut self.env.row_info[v.index()];
            inner.used_in_spec |= info.used_in_spec;
            inner.used_in_pointwise |= info.used_in_pointwise;
            inner.depth = inner.depth.max(info.depth);
        }
        let stored = self.env.bind_row(x, &value);
        let value = if value.is_empty() { RowArg::Empty } else { RowArg::Stored(stored) };
        self.reemit_row_facts(links, value, own_cap);
        Ok(())
    }

    /// Queues again what was known about a variable now bound or united, against its value.
    /// Inequalities that hold at once are not queued: with an empty value as the operand (it
    /// broadcasts into anything: the lower neighbours' and the caps'), between a united
    /// variable and a neighbour now in its class (`v ⊑ v`), and the cap the value is
    /// (`own_cap`: `cap ⊑ cap`).
    fn reemit_row_facts(
        &mut self,
        info: super::env::RowLinks,
        value: RowArg,
        own_cap: Option<RowId>,
    ) {
        let empty = matches!(value, RowArg::Empty);
        let own = match value {
            RowArg::Var(v) => Some(v),
            _ => None,
        };
        let same = |s: &mut Self, v: RowVar| own.is_some_and(|root| s.env.row_root(v) == root);
        for r in info.lower().filter(|_| !empty) {
            if !same(self, r) {
                self.push(Constraint::RowIneq { res: r.into(), opnd: value });
            }
        }
        for o in info.upper() {
            if !same(self, o) {
                self.push(Constraint::RowIneq { res: value, opnd: o.into() });
            }
        }
        for cap in info.caps().filter(|c| !empty && own_cap != Some(*c)) {
            self.push(Constraint::RowIneq { res: RowArg::Stored(cap), opnd: value });
        }
    }
}
