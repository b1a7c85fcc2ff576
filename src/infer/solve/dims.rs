//! Dimension rules: equality (with affine and concatenation arithmetic), the broadcast order
//! `res ⊑ opnd`, and size lower bounds.

use super::arith::valid_conv_size;
use super::constraint::{AxisAt, Constraint, Count};
use super::solver::{Outcome, Solver};
use crate::code::ErrorCode;
use crate::ids::DimVar;
use crate::infer::error::InferError;
use crate::shape::{AffineDim, ConvPadding, Dim, Solved};
use crate::spec::lexer::MAX_INT;

type Res = Result<Outcome, InferError>;

impl Solver {
    /// `a = b`.
    pub fn unify_dim(&mut self, a: &Dim, b: &Dim) -> Res {
        let (ra, rb) = (self.env.dim(a), self.env.dim(b));
        match (&ra, &rb) {
            _ if ra == rb => Ok(Outcome::Done),
            (Dim::Var(x), Dim::Var(y)) => self.union_vars(*x, *y),
            (Dim::Var(x), t) | (t, Dim::Var(x)) => self.bind_var(*x, *t),
            (Dim::Solved(p), Dim::Solved(q)) => Err(self.solved_mismatch(a, b, *p, *q)),
            (Dim::Affine(x), other) | (other, Dim::Affine(x)) => {
                let (x, other) = (*x, *other);
                let outcome = self.affine_eq(&self.env.exprs.get_affine(x), &other)?;
                match (&outcome, other.solved()) {
                    (Outcome::Done, Some(n)) => self.check_affine_value(Dim::Affine(x), n),
                    _ => Ok(outcome),
                }
            }
            (Dim::Concat(_), _) | (_, Dim::Concat(_)) => self.concat_eq(&ra, &rb),
        }
    }

    /// After an affine dim was solved backward from `n`, its forward value must be `n`. The
    /// sizes agree by construction, but the forward basis is its `over`'s (or a named part's),
    /// which an `over` bound elsewhere (say to `1!`) need not share with `n`.
    fn check_affine_value(&mut self, d: Dim, n: Solved) -> Res {
        match self.env.dim(&d) {
            Dim::Solved(f) if f != n => Err(self.solved_mismatch(&d, &Dim::Solved(n), f, n)),
            _ => Ok(Outcome::Done),
        }
    }

    /// The basis `v` must close with when it is the `over` of a deferred valid convolution
    /// `affine = n` with `n` solved: the affine dim takes the basis of its `over`, so closing
    /// `over` to the broadcast top would give the axis `1!`'s basis instead of `n`'s. `None`
    /// when no such equation waits on `v`.
    pub fn conv_over_basis(&mut self, v: DimVar) -> Option<crate::shape::Basis> {
        for (a, b) in self.dim_eqs_waiting_on(v) {
            let (a, b) = (self.env.dim(&a), self.env.dim(&b));
            let ((Dim::Affine(id), Dim::Solved(n)) | (Dim::Solved(n), Dim::Affine(id))) = (a, b)
            else {
                continue;
            };
            let aff = self.env.exprs.get_affine(id);
            let valid = matches!(aff.conv, Some((_, _, ConvPadding::Valid)));
            if valid && aff.over == Dim::Var(v) {
                return Some(n.basis);
            }
        }
        None
    }

    fn solved_mismatch(&mut self, a: &Dim, b: &Dim, p: Solved, q: Solved) -> InferError {
        let what = if p.basis != q.basis && p.size == q.size {
            "different bases"
        } else {
            "different sizes"
        };
        let mut msg = format!(
            "dimension mismatch ({what}): {} vs {}",
            self.show_solved(p),
            self.show_solved(q)
        );
        // Each side's story: a variable's size comes from the constraint that bound it; a size
        // written where the failing constraint reads it comes from that constraint. The error
        // shows the failing step's spec, so only spans into that spec are kept.
        let step = self.current.and_then(|o| self.origins.get(o)).and_then(|o| o.step);
        let mut spans = Vec::new();
        let mut sides = Vec::new();
        for (d, s) in [(a, p), (b, q)] {
            let (mut side, from, axis) = match d {
                Dim::Var(v) => {
                    let root = self.env.dim_root(*v);
                    let from = self.env.dim_info[root.index()].bound_by();
                    let side = format!("`{}` is {}", self.var_name(*v), self.show_solved(s));
                    (side, from, AxisAt::NONE)
                }
                // Both sides written: the failing constraint relates them.
                _ if !matches!((a, b), (Dim::Var(_), _) | (_, Dim::Var(_))) => {
                    let origin = self.current.and_then(|o| self.origins.get(o));
                    if let (Some(origin), true) = (origin, sides.is_empty()) {
                        let text = super::solver::describe_origin(&origin, self.current_axis);
                        sides.push(format!("in {text}"));
                    }
                    continue;
                }
                _ => (self.show_solved(s), self.current, self.current_axis),
            };
            let origin = from.and_then(|o| self.origins.get(o));
            if let Some(origin) = &origin {
                let text = super::solver::describe_origin(origin, axis);
                side.push_str(&format!(" from {text}"));
                if origin.step == step {
                    spans.extend(origin.span.filter(|sp| !spans.contains(sp)));
                }
            }
            sides.push(side);
        }
        if !sides.is_empty() {
            msg.push_str("; ");
            msg.push_str(&sides.join(" but "));
        }
        let conflict = self.conflict_of(a, b, p, q);
        let mut e = self.error(ErrorCode::Mismatch, msg);
        if let InferError::Shape(s) = &mut e {
            s.spans = spans;
            s.conflict = Some(Box::new(conflict));
        }
        e
    }

    /// A printable name for a dim variable.
    pub fn var_name(&mut self, v: DimVar) -> String {
        self.env.dim_name(v).map_or_else(|| v.to_string(), String::from)
    }

    /// A solved dim as users write it (`3`, `rgb=3`, `1! (broadcast)`).
    pub fn show_solved(&self, s: Solved) -> String {
        if s.is_top() {
            "1! (broadcast)".into()
        } else {
            s.text(&self.bases)
        }
    }

    fn union_vars(&mut self, x: DimVar, y: DimVar) -> Res {
        let (root, other) = self.env.union_dims(x, y);
        let mut moved_info = std::mem::take(&mut self.env.dim_info[other.index()]);
        let moved = moved_info.take_facts();
        let origin = self.current_origin();
        let info = &mut self.env.dim_info[root.index()];
        if moved.at_least > info.at_least() {
            info.facts_mut().at_least = moved.at_least;
        }
        let discardable = info.discardable() && moved_info.discardable();
        info.set_discardable(discardable);
        if info.name_id().is_none() {
            info.set_name_id(moved_info.name_id());
        }
        if info.bound_by().is_none() {
            info.set_bound_by(origin);
        }
        for r in moved.lower {
            self.push(Constraint::DimIneq { res: Dim::Var(r), opnd: Dim::Var(root) });
        }
        for o in moved.upper {
            self.push(Constraint::DimIneq { res: Dim::Var(root), opnd: Dim::Var(o) });
        }
        if let Some(cap) = moved.cap {
            self.push(Constraint::DimIneq { res: cap, opnd: Dim::Var(root) });
        }
        Ok(Outcome::Done)
    }

    /// Binds an unbound variable to a non-variable dim and re-emits what was known about it.
    pub fn bind_var(&mut self, x: DimVar, t: Dim) -> Res {
        let x = self.env.dim_root(x);
        if self.env.occurs(x, t) {
            let msg = format!("`{}` would contain itself", self.var_name(x));
            return Err(self.error(ErrorCode::Cycle, msg));
        }
        let root = self.env.dim_root(x);
        let mut old = std::mem::take(&mut self.env.dim_info[root.index()]);
        let info = old.take_facts();
        let origin = self.current_origin();
        let slot = &mut self.env.dim_info[root.index()];
        slot.set_name_id(old.name_id());
        slot.set_bound_by(origin);
        self.env.bind_dim(root, t);
        for r in info.lower {
            self.push(Constraint::DimIneq { res: Dim::Var(r), opnd: t });
        }
        for o in info.upper {
            self.push(Constraint::DimIneq { res: t, opnd: Dim::Var(o) });
        }
        if let Some(cap) = info.cap {
            self.push(Constraint::DimIneq { res: cap, opnd: t });
        }
        if info.at_least > 0 {
            self.push(Constraint::AtLeast(t, Count(info.at_least)));
        }
        Ok(Outcome::Done)
    }

    /// `res ⊑ opnd`.
    pub fn dim_ineq(&mut self, res: &Dim, opnd: &Dim) -> Res {
        let (r, o) = (self.env.dim(res), self.env.dim(opnd));
        if r == o || o.is_top() {
            return Ok(Outcome::Done);
        }
        if r.is_top() {
            return self.unify_dim(&o, &Dim::top());
        }
        match (&r, &o) {
            (Dim::Solved(p), Dim::Solved(q)) => Err(self.solved_mismatch(res, opnd, *p, *q)),
            (Dim::Var(x), Dim::Var(y)) => Ok(self.var_le_var(*x, *y)),
            (t, Dim::Var(y)) if !matches!(t, Dim::Concat(_)) => self.add_cap(*y, *t),
            (Dim::Var(_), Dim::Solved(_)) => self.unify_dim(&r, &o),
            _ => self.unify_dim(&r, &o),
        }
    }

    fn var_le_var(&mut self, x: DimVar, y: DimVar) -> Outcome {
        // A reverse link closes a cycle: the two are equal.
        if self.env.dim_info[x.index()].has_lower(y) {
            self.push(Constraint::DimEq(Dim::Var(x), Dim::Var(y)));
            return Outcome::Done;
        }
        if !self.env.dim_info[x.index()].has_upper(y) {
            self.env.dim_info[x.index()].facts_mut().add_upper(y);
            self.env.dim_info[y.index()].facts_mut().add_lower(x);
            self.env.linked_dims.push(x);
        }
        if let Some(cap) = self.env.dim_info[x.index()].cap().cloned() {
            self.push(Constraint::DimIneq { res: cap, opnd: Dim::Var(y) });
        }
        Outcome::Done
    }

    /// `t ⊑ y` for a non-variable `t`: joins `t` into `y`'s cap. Two different solved caps
    /// join to the broadcast top, which `y` must then be.
    fn add_cap(&mut self, y: DimVar, t: Dim) -> Res {
        let info = &mut self.env.dim_info[y.index()];
        match info.cap().cloned() {
            None => {
                let facts = info.facts_mut();
                facts.cap = Some(t);
                let uppers = facts.upper.clone();
                for o in uppers {
                    self.push(Constraint::DimIneq { res: t, opnd: Dim::Var(o) });
                }
                Ok(Outcome::Done)
            }
            Some(g) if g == t => Ok(Outcome::Done),
            Some(Dim::Solved(_)) if t.solved().is_some() => self.bind_var(y, Dim::top()),
            Some(g) => self.unify_dim(&g, &t),
        }
    }

    /// The size of `d` is at least `n`.
    pub fn at_least(&mut self, d: &Dim, n: u64) -> Res {
        if n > MAX_INT {
            let msg = format!("index {} needs an axis of more than 2^62", n.saturating_sub(1));
            return Err(self.error(ErrorCode::Value, msg));
        }
        match self.env.dim(d) {
            Dim::Var(v) => {
                let info = &mut self.env.dim_info[v.index()];
                if n > info.at_least() {
                    info.facts_mut().at_least = n;
                }
                Ok(Outcome::Done)
            }
            Dim::Solved(s) if s.size >= n => Ok(Outcome::Done),
            Dim::Solved(s) => {
                let msg = format!("index {} is out of range for a dimension of size {}", n - 1, {
                    s.size
                });
                Err(self.error(ErrorCode::Bounds, msg))
            }
            Dim::Affine(id) => {
                let a = self.env.exprs.get_affine(id);
                // The size grows with `over`: its least value meeting the bound bounds it (so
                // closing does not pick a smaller one), while this waits for the full size.
                if let Some(m) = least_over(&a, n) {
                    self.push(Constraint::AtLeast(a.over, Count(m)));
                }
                Ok(Outcome::Defer)
            }
            _ => Ok(Outcome::Defer),
        }
    }

    fn affine_eq(&mut self, a: &AffineDim, other: &Dim) -> Res {
        if let Dim::Affine(b) = *other {
            let b = &self.env.exprs.get_affine(b);
            let same_kind = a.stride == b.stride
                && a.conv.as_ref().map(|c| (c.0, c.2)) == b.conv.as_ref().map(|c| (c.0, c.2));
            if same_kind {
                self.push(Constraint::DimEq(a.over, b.over));
                if let (Some((_, k1, _)), Some((_, k2, _))) = (&a.conv, &b.conv) {
                    self.push(Constraint::DimEq(*k1, *k2));
                }
                return Ok(Outcome::Done);
            }
            if let Some((finer, coarser, ratio)) = nested_strides(a, b) {
                // §3.3: one stride divides the other, `s·o = k·s·p`, so `o = k·p`.
                let over = AffineDim { stride: ratio, over: coarser.over, offset: 0, conv: None };
                let (finer, over) = (finer.over, self.env.exprs.affine(over));
                self.push(Constraint::DimEq(finer, over));
                return Ok(Outcome::Done);
            }
            // Other kinds: decided once one side is solved (closing binds the rest).
            return Ok(Outcome::Defer);
        }
        let Some(n) = other.solved() else { return Ok(Outcome::Defer) };
        match &a.conv {
            Some((dil, k, ConvPadding::Valid)) => self.valid_conv_backward(a, *dil, k, n),
            _ => {
                if n.size % a.stride != 0 {
                    let msg =
                        format!("size {} is not divisible by the stride {}", { n.size }, a.stride);
                    return Err(self.error(ErrorCode::Mismatch, msg));
                }
                let over = Solved { size: n.size / a.stride, basis: n.basis };
                self.unify_dim(&a.over, &Dim::Solved(over))
            }
        }
    }

    /// `stride*(over-1) + dilation*(kernel-1) + 1 = n`: infers `over` from a known kernel, or
    /// the kernel from a known `over`.
    fn valid_conv_backward(&mut self, a: &AffineDim, dil: u64, k: &Dim, n: Solved) -> Res {
        let (over, kernel) = (a.over.solved(), k.solved());
        match (over, kernel) {
            (_, Some(k)) => {
                let Some(span) = valid_conv_size(1, 1, dil, k.size) else {
                    let msg = format!(
                        "a convolution window of dilation {dil} over a kernel of size {} spans \
                         more than 2^62",
                        { k.size }
                    );
                    return Err(self.error(ErrorCode::Value, msg));
                };
                if n.size < span || !(n.size - span).is_multiple_of(a.stride) {
                    let msg = format!(
                        "a valid convolution with stride {} and window {span} cannot cover size {}",
                        a.stride,
                        { n.size }
                    );
                    return Err(self.error(ErrorCode::Mismatch, msg));
                }
                let o = Solved { size: (n.size - span) / a.stride + 1, basis: n.basis };
                self.unify_dim(&a.over, &Dim::Solved(o))
            }
            (Some(o), None) => {
                // The extent the output positions alone cover: `stride*(over-1) + 1`.
                let covered = a.stride.checked_mul(o.size.saturating_sub(1));
                let covered = covered.and_then(|c| c.checked_add(1)).filter(|c| *c <= MAX_INT);
                let Some(covered) = covered else {
                    let msg = format!(
                        "a valid convolution of {} output positions at stride {} spans more \
                         than 2^62",
                        { o.size },
                        a.stride
                    );
                    return Err(self.error(ErrorCode::Value, msg));
                };
                let rest = n.size.checked_sub(covered).filter(|r| r % dil == 0);
                let Some(rest) = rest else {
                    let msg = format!("cannot infer the kernel size for input size {}", { n.size });
                    return Err(self.error(ErrorCode::Mismatch, msg));
                };
                let kernel = Solved::new(rest / dil + 1);
                self.unify_dim(k, &Dim::Solved(kernel))
            }
            (None, None) => Ok(Outcome::Defer),
        }
    }
}

/// Two strided axes whose sizes are `stride·over` (no valid convolution) with one stride a
/// multiple of the other: `(finer, coarser, coarser.stride / finer.stride)`.
fn nested_strides<'a>(
    a: &'a AffineDim,
    b: &'a AffineDim,
) -> Option<(&'a AffineDim, &'a AffineDim, u64)> {
    let plain = |d: &AffineDim| !matches!(d.conv, Some((_, _, ConvPadding::Valid)));
    if !plain(a) || !plain(b) {
        return None;
    }
    let (finer, coarser) = if a.stride <= b.stride { (a, b) } else { (b, a) };
    (finer.stride > 0 && coarser.stride % finer.stride == 0)
        .then(|| (finer, coarser, coarser.stride / finer.stride))
}

/// The least `over` for which the affine dim's size is at least `n`; `None` while a valid
/// convolution's kernel is unknown (a larger kernel would need a smaller `over`).
fn least_over(a: &AffineDim, n: u64) -> Option<u64> {
    let stride = a.stride.max(1);
    match &a.conv {
        Some((dil, k, ConvPadding::Valid)) => {
            let span = valid_conv_size(1, 1, *dil, k.solved()?.size)?;
            Some(if n <= span { 1 } else { (n - span).div_ceil(stride) + 1 })
        }
        _ => Some(n.div_ceil(stride)),
    }
}
