//! Equalities involving concatenation dimensions, solved as sums: solved parts are subtracted,
//! equal unknown parts cancel, and a single unknown part takes the residual.

use super::arith::concat_sum;
use super::constraint::Constraint;
use super::error::InferError;
use super::solver::{Outcome, Solver};
use crate::code::ErrorCode;
use crate::shape::{Basis, Dim, DimExprs, Solved};

type Res = Result<Outcome, InferError>;

/// The parts of a side: a concatenation's components, or the dim itself.
fn parts(d: &Dim, exprs: &DimExprs) -> Vec<Dim> {
    match *d {
        Dim::Concat(id) => exprs.parts(id).to_vec(),
        other => vec![other],
    }
}

/// Splits parts into the solved sum and the unknown parts.
fn split(parts: Vec<Dim>) -> Result<(Solved, Vec<Dim>), ()> {
    let (solved, unknown): (Vec<Dim>, Vec<Dim>) =
        parts.into_iter().partition(|p| p.solved().is_some());
    let sum = if solved.is_empty() { Some(Solved::new(0)) } else { concat_sum(&solved) };
    sum.map(|s| (s, unknown)).ok_or(())
}

impl Solver {
    /// `a = b` where at least one side is a concatenation.
    pub fn concat_eq(&mut self, a: &Dim, b: &Dim) -> Res {
        let conflict = |s: &Self| {
            s.error(ErrorCode::Mismatch, "concatenated dimensions have conflicting bases".into())
        };
        let (sa, mut ua) = split(parts(a, &self.env.exprs)).map_err(|()| conflict(self))?;
        let (sb, mut ub) = split(parts(b, &self.env.exprs)).map_err(|()| conflict(self))?;
        // Structurally equal unknown parts cancel.
        ua.retain(|p| match ub.iter().position(|q| q == p) {
            Some(i) => {
                ub.remove(i);
                false
            }
            None => true,
        });
        if sa.basis.is_named() && sb.basis.is_named() && sa.basis != sb.basis {
            return Err(conflict(self));
        }
        // A named basis among a side's solved parts is the basis of its sum whatever its
        // unknown parts turn out to be: a fully solved default-basis side cannot equal it.
        let named_vs_default = |n: Solved, d: Solved, du: &[Dim]| {
            n.basis.is_named() && du.is_empty() && !d.basis.is_named()
        };
        if named_vs_default(sa, sb, &ub) || named_vs_default(sb, sa, &ua) {
            let msg = "dimension mismatch (different bases): a concatenation with a named basis \
                       against a dimension without one";
            return Err(self.error(ErrorCode::Mismatch, msg.into()));
        }
        match (ua.is_empty(), ub.is_empty()) {
            (true, true) if sa.size == sb.size => Ok(Outcome::Done),
            (true, true) => {
                let msg = format!("concatenation sizes differ: {} vs {}", { sa.size }, { sb.size });
                Err(self.error(ErrorCode::Mismatch, msg))
            }
            (true, false) => self.residual(sa, sb, ub),
            (false, true) => self.residual(sb, sa, ua),
            (false, false) => self.both_unknown(sa, sb, ua, ub, a, b),
        }
    }

    /// `total = known + Σ unknown`.
    fn residual(&mut self, total: Solved, known: Solved, unknown: Vec<Dim>) -> Res {
        let Some(rest) = total.size.checked_sub(known.size) else {
            let msg = format!(
                "concatenated components ({}) exceed the concatenated size {}",
                { known.size },
                { total.size }
            );
            return Err(self.error(ErrorCode::Mismatch, msg));
        };
        let basis = if total.basis.is_named() { total.basis } else { Basis::DEFAULT };
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
