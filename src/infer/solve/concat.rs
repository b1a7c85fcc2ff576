//! Equalities involving concatenation dimensions, solved as sums: solved parts are subtracted,
//! equal unknown parts cancel, and a single unknown part takes the residual.
//!
//! Each side is read through its cached [`Summary`] first (the sum of its solved parts and the
//! number of unknown ones), which decides most equations without listing any part: a
//! concatenation of a million labels waiting for its sizes is looked at in O(1) each time one
//! of them is bound. The unknown parts are listed only when the equation is decided by them.

use std::collections::{HashMap, HashSet};

use super::constraint::Constraint;
use super::env::Summary;
use super::solver::{Outcome, Solver};
use crate::code::ErrorCode;
use crate::infer::error::InferError;
use crate::shape::{Basis, Dim, Solved};

type Res = Result<Outcome, InferError>;

/// Most unknown parts listed to cancel equal parts between two sides; an equation with more
/// waits (its sides' sums may still decide it, or closing does).
const MAX_LISTED: usize = 1 << 20;

impl Solver {
    /// `a = b` where at least one side is a concatenation (both substituted).
    pub fn concat_eq(&mut self, a: &Dim, b: &Dim) -> Res {
        let (sa, sb) = (self.env.summary(*a), self.env.summary(*b));
        if sa.overflow || sb.overflow {
            let side = if sa.overflow { a } else { b };
            let msg = format!(
                "the concatenation `{}` adds up to more than 2^62",
                self.env.show_dim(*side)
            );
            return Err(self.error(ErrorCode::Value, msg));
        }
        let (Some(ka), Some(kb)) = (sa.solved_sum(), sb.solved_sum()) else {
            return Err(self.error(
                ErrorCode::Mismatch,
                "concatenated dimensions have conflicting bases".into(),
            ));
        };
        if ka.basis.is_named() && kb.basis.is_named() && ka.basis != kb.basis {
            let msg = "concatenated dimensions have conflicting bases";
            return Err(self.error(ErrorCode::Mismatch, msg.into()));
        }
        match (sa.unknown, sb.unknown) {
            (0, 0) => self.sums_eq(ka, kb, true, true),
            (_, 0) => self.one_side_unknown(kb, ka, a, &sa),
            (0, _) => self.one_side_unknown(ka, kb, b, &sb),
            _ => self.both_sides_unknown(ka, kb, a, b),
        }
    }

    /// Both sides' unknown parts are gone: their sums must agree (bases too: a named basis
    /// among a side's solved parts is the basis of its sum).
    fn sums_eq(&mut self, sa: Solved, sb: Solved, a_done: bool, b_done: bool) -> Res {
        let named_vs_default = |n: Solved, d: Solved, d_done: bool| {
            n.basis.is_named() && d_done && !d.basis.is_named()
        };
        if named_vs_default(sa, sb, b_done) || named_vs_default(sb, sa, a_done) {
            let msg = "dimension mismatch (different bases): a concatenation with a named basis \
                       against a dimension without one";
            return Err(self.error(ErrorCode::Mismatch, msg.into()));
        }
        if sa.size == sb.size {
            return Ok(Outcome::Done);
        }
        let msg = format!("concatenation sizes differ: {} vs {}", { sa.size }, { sb.size });
        Err(self.error(ErrorCode::Mismatch, msg))
    }

    /// What the unknown parts must sum to when the known ones sum to `known` and the whole is
    /// `total`: an error when the known parts are too large or carry a basis `total` lacks.
    fn remainder(&self, total: Solved, known: Solved) -> Result<Solved, InferError> {
        if known.basis.is_named() && !total.basis.is_named() {
            let msg = "dimension mismatch (different bases): a concatenation with a named basis \
                       against a dimension without one";
            return Err(self.error(ErrorCode::Mismatch, msg.into()));
        }
        let Some(size) = total.size.checked_sub(known.size) else {
            let msg = format!(
                "concatenated components ({}) exceed the concatenated size {}",
                { known.size },
                { total.size }
            );
            return Err(self.error(ErrorCode::Mismatch, msg));
        };
        let basis = if total.basis.is_named() { total.basis } else { Basis::DEFAULT };
        Ok(Solved { size, basis })
    }

    /// `known + Σ unknown parts of side = total` with `total` fully solved.
    fn one_side_unknown(&mut self, total: Solved, known: Solved, side: &Dim, s: &Summary) -> Res {
        let Solved { size: rest, basis } = self.remainder(total, known)?;
        if s.unknown == 1 {
            let parts = self.env.unknown_parts(*side, 1).unwrap_or_default();
            if let [only] = parts[..] {
                return self.unify_dim(&only, &Dim::Solved(Solved { size: rest, basis }));
            }
        }
        if rest == 0 {
            // Every unknown part is 0: each distinct one once.
            let mut zero = Vec::new();
            let mut seen = HashSet::new();
            self.env.for_each_unknown_part(*side, &mut |d| {
                if seen.insert(d) {
                    zero.push(d);
                }
            });
            for u in zero {
                self.push(Constraint::DimEq(u, Dim::size(0)));
            }
            return Ok(Outcome::Done);
        }
        Ok(Outcome::Defer)
    }

    /// Both sides have unknown parts: structurally equal ones cancel, then as above.
    fn both_sides_unknown(&mut self, sa: Solved, sb: Solved, a: &Dim, b: &Dim) -> Res {
        let listed = self
            .env
            .unknown_parts(*a, MAX_LISTED)
            .and_then(|ua| Some((ua, self.env.unknown_parts(*b, MAX_LISTED)?)));
        let Some((mut ua, mut ub)) = listed else { return Ok(Outcome::Defer) };
        cancel(&mut ua, &mut ub);
        match (ua.is_empty(), ub.is_empty()) {
            (true, true) => self.sums_eq(sa, sb, true, true),
            (true, false) => self.residual(sa, sb, ub),
            (false, true) => self.residual(sb, sa, ua),
            (false, false) => self.both_unknown(sa, sb, ua, ub, a, b),
        }
    }

    /// `total = known + Σ unknown`, the unknown parts listed.
    fn residual(&mut self, total: Solved, known: Solved, unknown: Vec<Dim>) -> Res {
        let Solved { size: rest, basis } = self.remainder(total, known)?;
        if unknown.len() == 1 {
            return self.unify_dim(&unknown[0], &Dim::Solved(Solved { size: rest, basis }));
        }
        if rest == 0 {
            for u in unknown {
                self.push(Constraint::DimEq(u, Dim::size(0)));
            }
            return Ok(Outcome::Done);
        }
        Ok(Outcome::Defer)
    }

    fn both_unknown(
        &mut self,
        sa: Solved,
        sb: Solved,
        ua: Vec<Dim>,
        ub: Vec<Dim>,
        a: &Dim,
        b: &Dim,
    ) -> Res {
        if sa.size == 0 && sb.size == 0 && ua.len() == ub.len() {
            for (x, y) in ua.into_iter().zip(ub) {
                self.push(Constraint::DimEq(x, y));
            }
            return Ok(Outcome::Done);
        }
        if self.stage >= 4 {
            // Pair the oldest variable of each side, as nested stacking needs, then retry.
            let oldest = |u: &[Dim]| {
                u.iter()
                    .filter_map(|d| match d {
                        Dim::Var(v) => Some(*v),
                        _ => None,
                    })
                    .min()
            };
            if let (Some(x), Some(y)) = (oldest(&ua), oldest(&ub)) {
                self.push(Constraint::DimEq(Dim::Var(x), Dim::Var(y)));
                self.push(Constraint::DimEq(*a, *b));
                return Ok(Outcome::Done);
            }
        }
        Ok(Outcome::Defer)
    }
}

/// Cancels structurally equal parts between two lists: each part of `a` removes the first
/// remaining equal part of `b` (hashed, so that long lists cost linear time).
fn cancel(a: &mut Vec<Dim>, b: &mut Vec<Dim>) {
    let mut available: HashMap<Dim, usize> = HashMap::new();
    for p in b.iter() {
        *available.entry(*p).or_default() += 1;
    }
    let mut taken: HashMap<Dim, usize> = HashMap::new();
    a.retain(|p| match available.get_mut(p) {
        Some(n) if *n > 0 => {
            *n -= 1;
            *taken.entry(*p).or_default() += 1;
            false
        }
        _ => true,
    });
    b.retain(|p| match taken.get_mut(p) {
        Some(n) if *n > 0 => {
            *n -= 1;
            false
        }
        _ => true,
    });
}
