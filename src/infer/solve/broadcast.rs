//! The row broadcast order `res ⊑ opnd`: the operand's leading flank aligns with the result's
//! left edge, its trailing flank with the right edge; explicit operand dims are `⊒` the facing
//! result dims; an open operand's row variable takes what is left of the result as a cap.

use smallvec::SmallVec;

use super::constraint::{AxisAt, Constraint, RowArg};
use super::solver::{Outcome, Solver};
use super::store::RowId;
use crate::code::ErrorCode;
use crate::ids::RowVar;
use crate::infer::error::InferError;
use crate::shape::{pushed, Dim, Dims, Row, Solved};

type Res = Result<Outcome, InferError>;

/// A constraint's rows as given (unsubstituted): result, operand.
type Args<'a> = (&'a RowArg, &'a RowArg);

/// How deep templates may nest before a rank cycle is reported (ranks are far smaller).
const MAX_TEMPLATE_DEPTH: u32 = 128;

impl Solver {
    /// `res ⊑ opnd` for rows.
    pub fn row_ineq(&mut self, res: &RowArg, opnd: &RowArg) -> Res {
        // An empty operand broadcasts into anything: the result need not be read.
        let o = self.env.row_arg(opnd);
        if o.is_empty() {
            return Ok(Outcome::Done);
        }
        let r = self.env.row_arg(res);
        // Two bare row variables (most derived constraints): a link.
        if let (0, Some(x), 0, Some(y)) = (r.explicit_len(), r.var, o.explicit_len(), o.var) {
            if x != y {
                self.row_var_le_var(x, y);
            }
            return Ok(Outcome::Done);
        }
        if r == o {
            return Ok(Outcome::Done);
        }
        match (r.var, o.var) {
            (Some(x), Some(y)) if x == y => self.same_var_ineq(r, o, (res, opnd)),
            (None, _) => self.closed_result_ineq(&r, &o),
            (Some(x), _) => self.open_result_ineq(r, x, o, (res, opnd)),
        }
    }

    /// `res ⊑ opnd` aligned right (numpy's broadcasting). An open operand waits until it is
    /// closed: a row variable may still be bound to a row with a leading flank, which the
    /// general rule (and the links and caps it records) would align left.
    pub fn row_ineq_right(&mut self, res: &RowArg, opnd: &RowArg) -> Res {
        let o = self.env.row_arg(opnd);
        if o.var.is_some() {
            return Ok(Outcome::Defer);
        }
        let closed = self.env.scratch_arg(&Row::closed(o.all().cloned()));
        self.row_ineq(res, &closed)
    }

    /// Queues the inequality again, as given: it is substituted anew when processed (and
    /// still relates its origin's rows when it did).
    fn restate(&mut self, (res, opnd): Args) {
        self.requeue(Constraint::RowIneq { res: *res, opnd: *opnd });
    }

    fn same_var_ineq(&mut self, r: Row, o: Row, args: Args) -> Res {
        if r.explicit_len() != o.explicit_len() {
            let msg = "a row variable would contain itself plus more axes (infinitely many axes)";
            return Err(self.error(ErrorCode::Cycle, msg.into()));
        }
        if r.beg.len() == o.beg.len() {
            let (beg, len) = (r.beg.len(), r.explicit_len());
            for (k, (p, q)) in r.all().zip(o.all()).enumerate() {
                self.push_dim_ineq(*p, *q, AxisAt::in_flanks(k, beg, len));
            }
            return Ok(Outcome::Done);
        }
        if let (true, Some(x)) = (self.stage >= 6, r.var) {
            self.bind_row_var(x, Row::empty())?;
            self.restate(args);
            return Ok(Outcome::Done);
        }
        Ok(Outcome::Defer)
    }

    fn closed_result_ineq(&mut self, r: &Row, o: &Row) -> Res {
        let f = r.axes();
        let (nl, nr) = (o.beg.len(), o.dims.len());
        if nl + nr > f.len() {
            let msg = format!(
                "the operand has {} but the result only {}: too many axes in an operand",
                crate::shape::axes_count(nl + nr),
                f.len()
            );
            return Err(self.rank_error(msg, [nl + nr, f.len()], [o.var.is_some(), false]));
        }
        self.pair_flanks(&f[..nl], &o.beg, &f[f.len() - nr..], &o.dims);
        if let Some(y) = o.var {
            let middle = Row::closed(f[nl..f.len() - nr].iter().cloned());
            return self.add_row_cap(y, middle);
        }
        Ok(Outcome::Done)
    }

    fn open_result_ineq(&mut self, r: Row, x: RowVar, o: Row, args: Args) -> Res {
        let dl = o.beg.len().saturating_sub(r.beg.len());
        let dr = o.dims.len().saturating_sub(r.dims.len());
        // A flank that must grow while the other flank has axes: the operand's material may
        // overlap the result's (when the row variable is short), which a template would rule
        // out. Wait for more information; at closing take the fewest axes.
        let may_overlap = (dl > 0 && !r.dims.is_empty()) || (dr > 0 && !r.beg.is_empty());
        if may_overlap && self.stage < 6 {
            return Ok(Outcome::Defer);
        }
        if dl > 0 || dr > 0 {
            // The operand dims the template's new axes face.
            let lead = &o.beg[o.beg.len() - dl..];
            let trail = &o.dims[..dr];
            let fewest = (o.explicit_len()).saturating_sub(r.explicit_len());
            let least = |s: &mut Solver| {
                let dims = (0..fewest).map(|_| Dim::Var(s.env.new_dim(None))).collect();
                s.bind_row_var(x, Row { beg: Dims::new(), var: None, dims })
            };
            // At closing, a result overlapping a closed operand takes the fewest axes (its
            // row variable closes, §3.6 rules 1 and 9); against an open operand it may also
            // grow by a template, as before closing (rule 4).
            match (may_overlap, o.var.is_some()) {
                (true, true) => {
                    // Each choice re-states the inequality, so that a careful trial checks it.
                    let again = |s: &mut Solver| {
                        s.restate(args);
                        Ok(())
                    };
                    let template =
                        |s: &mut Solver| s.template(x, lead, trail).and_then(|()| again(s));
                    return self
                        .choose(|s| least(s).and_then(|()| again(s)), template)
                        .map(|()| Outcome::Done);
                }
                (true, false) => least(self)?,
                (false, _) => self.template(x, lead, trail)?,
            }
            self.restate(args);
            return Ok(Outcome::Done);
        }
        let (nl, nr) = (o.beg.len(), o.dims.len());
        let split = r.dims.len() - nr;
        self.pair_flanks(&r.beg[..nl], &o.beg, &r.dims[split..], &o.dims);
        let Some(y) = o.var else { return Ok(Outcome::Done) };
        let residue = Row {
            beg: Dims::from_slice(&r.beg[nl..]),
            var: Some(x),
            dims: Dims::from_slice(&r.dims[..split]),
        };
        if residue.explicit_len() == 0 {
            self.row_var_le_var(x, y);
            return Ok(Outcome::Done);
        }
        self.add_row_cap(y, residue)
    }

    /// `res ⊑ opnd` between the facing axes of two rows' leading flanks (aligned at the left
    /// edge) and trailing flanks (aligned at the right edge).
    fn pair_flanks(&mut self, rl: &[Dim], ol: &[Dim], rr: &[Dim], or: &[Dim]) {
        for (k, (p, q)) in rl.iter().zip(ol).enumerate() {
            self.push_dim_ineq(*p, *q, AxisAt::left(k));
        }
        let n = rr.len().min(or.len());
        for (k, (p, q)) in rr.iter().zip(or).enumerate() {
            self.push_dim_ineq(*p, *q, AxisAt::right(n - k));
        }
    }

    /// The result is shorter than the operand: `x := fresh^dl . <τ> . fresh^dr`, where `lead`
    /// and `trail` are the operand dims the new axes will face.
    fn template(&mut self, x: RowVar, lead: &[Dim], trail: &[Dim]) -> Result<(), InferError> {
        let depth = self.env.row_info[x.index()].depth + 1;
        if u32::from(depth) > MAX_TEMPLATE_DEPTH {
            let msg = "infinitely many axes: the rows' ranks form a cycle that grows forever";
            return Err(self.error(ErrorCode::Cycle, msg.into()));
        }
        let value = self.template_row(depth, lead, trail);
        self.bind_row_var(x, value)
    }

    /// The row `fresh^dl . <τ> . fresh^dr` for a template of depth `depth`, its new axes
    /// facing the operand dims `lead` and `trail`. A new axis facing a solved size other than
    /// the broadcast top takes that size at once: the inequality would bind its fresh
    /// variable to it anyway (`d ⊑ s` is `d = s`).
    pub fn template_row(&mut self, depth: u8, lead: &[Dim], trail: &[Dim]) -> Row {
        let tau = self.env.new_row();
        let info = &mut self.env.row_info[tau.index()];
        info.depth = depth;
        info.safe_to_guess = !trail.is_empty();
        let mut axis = |d: &Dim| match d {
            Dim::Solved(s) if !d.is_top() => Dim::Solved(*s),
            _ => Dim::Var(self.env.new_dim(None)),
        };
        let (mut beg, mut dims) = (Dims::new(), Dims::new());
        for d in lead {
            beg.push(axis(d));
        }
        for d in trail {
            dims.push(axis(d));
        }
        Row { beg, var: Some(tau), dims }
    }

    fn row_var_le_var(&mut self, x: RowVar, y: RowVar) {
        if self.env.has_row_lower(x, y) {
            self.push(Constraint::RowEq(x.into(), y.into()));
            return;
        }
        if !self.env.has_row_upper(x, y) {
            self.env.link_rows(x, y);
            self.env.linked_rows.push(x);
        }
        if self.env.row_caps(x).next().is_some() {
            let caps: SmallVec<[RowId; 2]> = pushed(self.env.row_caps(x));
            for cap in caps {
                self.push(Constraint::RowIneq { res: RowArg::Stored(cap), opnd: y.into() });
            }
        }
    }

    /// `cap ⊑ o` for each upper neighbour `o` of a variable that gained the stored `cap`.
    fn pass_cap_up(&mut self, cap: RowId, uppers: SmallVec<[RowVar; 2]>) {
        for o in uppers {
            self.push(Constraint::RowIneq { res: RowArg::Stored(cap), opnd: o.into() });
        }
    }

    /// `cap ⊑ y`: records a lower bound of `y`. Closed caps join (shorter length, equal dims
    /// stay, different ones become the broadcast top); a joined cap that is empty or a single
    /// size-1 axis decides `y` at once.
    fn add_row_cap(&mut self, y: RowVar, cap: Row) -> Res {
        let first = self.env.row_caps(y).next().map(|id| self.env.store.row(id));
        // Only fully solved closed caps can be joined into one: a cap with an unknown axis is
        // kept on its own, so that it is re-checked when `y` is bound.
        let joined = first
            .as_ref()
            .filter(|f| solved_closed(f) && solved_closed(&cap))
            .map(|f| join_closed(f, &cap));
        // A cap `y` already has, or that its joined cap already covers, adds nothing: its upper
        // neighbours were given the caps it covers when they came. Passing it on again would
        // send it around a cycle of links forever.
        let known = match (&first, &joined) {
            (None, _) => false,
            (Some(f), Some(j)) if f == j => true,
            (Some(f), _) if *f == cap => true,
            _ => self.env.has_later_cap(y, &cap),
        };
        if known {
            return Ok(Outcome::Done);
        }
        let mut uppers: SmallVec<[RowVar; 2]> = pushed(self.env.row_upper(y));
        // An upper neighbour united with `y` since it was linked is `y` itself: passing the
        // cap to it would only add the same cap again, forever.
        for o in &mut uppers {
            *o = self.env.row_root(*o);
        }
        let y_root = self.env.row_root(y);
        uppers.retain(|o| *o != y_root);
        let Some(joined) = joined else {
            // Kept as it is: one stored copy serves the link and the upper neighbours.
            let id = self.env.store.push(&cap);
            self.pass_cap_up(id, uppers);
            self.env.push_cap(y, &cap, id);
            return Ok(Outcome::Done);
        };
        if !uppers.is_empty() {
            let id = self.env.store.push(&cap);
            self.pass_cap_up(id, uppers);
        }
        let decisive = joined.explicit_len() == 0
            || (joined.explicit_len() == 1
                && joined.all().all(|d| d.solved().is_some_and(|s| s.size == 1)));
        let id = self.env.store.push(&joined);
        self.env.row_links_mut(y).set_first_cap(id);
        if decisive {
            self.bind_row_var(y, joined)?;
        }
        Ok(Outcome::Done)
    }
}

/// Whether a row is closed with every axis a solved size (such caps are joined into one).
fn solved_closed(r: &Row) -> bool {
    r.var.is_none() && r.all().all(|d| d.solved().is_some())
}

/// The join of two closed rows in the broadcast order: right-aligned, the shorter length,
/// equal dims kept, others the broadcast top.
fn join_closed(a: &Row, b: &Row) -> Row {
    let (fa, fb) = (a.axes(), b.axes());
    let n = fa.len().min(fb.len());
    let dims = fa[fa.len() - n..].iter().zip(&fb[fb.len() - n..]).map(|(p, q)| {
        match (p.solved(), q.solved()) {
            _ if p == q => *p,
            // Callers join solved caps only.
            _ => Dim::Solved(Solved::TOP),
        }
    });
    Row::closed(dims)
}
