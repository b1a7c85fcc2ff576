//! Total-elements constraints (OCANNL's `Total_elems` on the three rows of one tensor): the
//! product of all the tensor's axes is `n`.
//!
//! Decided as soon as the known axes allow: the known product must divide `n`; a single
//! unknown axis takes the quotient; when the quotient is 1 every unknown axis is the broadcast
//! top; with no unknowns the product must be exactly `n`. Open rows wait for closing: from
//! stage 3, with no unknown axes left, every open row closes empty except one (the output
//! row's, else the first), which takes one axis of the quotient (none when it is 1). A row
//! still holding caps waits until closing has bound it.

use smallvec::SmallVec;

use super::constraint::{Constraint, RowArg};
use super::solver::{Outcome, Solver};
use crate::code::ErrorCode;
use crate::ids::{DimVar, RowVar};
use crate::infer::error::InferError;
use crate::shape::{Dim, Row};

type Res = Result<Outcome, InferError>;

/// Rows of a tensor in [`crate::spec::ast::RowKind::ALL`] order: batch, input, output.
const OUTPUT: usize = 2;

/// What is known of a tensor's axes.
struct Product {
    known: u64,
    unknown: SmallVec<[DimVar; 4]>,
    /// An affine or concatenation axis not yet reduced to a size.
    pending: bool,
}

impl Solver {
    /// The product of all axes of `rows` (one tensor's batch, input and output rows) is `n`.
    pub fn total_elems(&mut self, rows: &[RowArg; 3], n: u64) -> Res {
        let rows: [Row; 3] = (*rows).map(|r| self.env.row_arg(&r));
        let Some(p) = product(&rows) else {
            return Err(self.elems_error(n, "the known axes alone hold more elements"));
        };
        if p.pending {
            return Ok(Outcome::Defer);
        }
        let open: SmallVec<[(usize, RowVar); 3]> =
            rows.iter().enumerate().filter_map(|(k, r)| r.var.map(|v| (k, v))).collect();
        if p.known == 0 {
            return match n {
                0 => Ok(Outcome::Done),
                _ => Err(self.elems_error(n, "an axis of size 0 makes the tensor empty")),
            };
        }
        if !n.is_multiple_of(p.known) {
            let msg = format!("the known axes hold {} elements, which does not divide it", p.known);
            return Err(self.elems_error(n, &msg));
        }
        // What the unknown axes and open rows must hold together (0: one of them is empty).
        let q = n / p.known;
        if open.is_empty() {
            return self.close_axes(&p.unknown, q, n, p.known);
        }
        if self.stage < 3 || !(p.unknown.is_empty() || q == 1) {
            return Ok(Outcome::Defer);
        }
        self.close_rows(&open, &p.unknown, q, n)
    }

    /// Closed rows: the unknown axes take what the known ones leave.
    fn close_axes(&mut self, unknown: &[DimVar], q: u64, n: u64, known: u64) -> Res {
        match unknown {
            [] if q == 1 => Ok(Outcome::Done),
            [] => {
                let msg = format!("the tensor's axes hold {known} elements");
                Err(self.elems_error(n, &msg))
            }
            [v] => {
                self.push(Constraint::DimEq(Dim::Var(*v), Dim::size(q)));
                Ok(Outcome::Done)
            }
            _ if q == 1 => {
                for v in unknown {
                    self.push(Constraint::DimEq(Dim::Var(*v), Dim::top()));
                }
                Ok(Outcome::Done)
            }
            _ => Ok(Outcome::Defer),
        }
    }

    /// Open rows at closing: one takes the quotient as one axis, the others close empty. Two
    /// rows of the tensor may be one row variable (a step equated them): it is bound once, and
    /// its axis counts once per row it stands for.
    fn close_rows(&mut self, open: &[(usize, RowVar)], unknown: &[DimVar], q: u64, n: u64) -> Res {
        if open.iter().any(|&(_, v)| self.env.row_caps(v).next().is_some()) {
            return Ok(Outcome::Defer);
        }
        // Each variable once: (variable, rows it stands for, whether one is the output row).
        let mut vars: SmallVec<[(RowVar, u32, bool); 3]> = SmallVec::new();
        for &(k, v) in open {
            match vars.iter_mut().find(|e| e.0 == v) {
                Some(e) => (e.1, e.2) = (e.1 + 1, e.2 || k == OUTPUT),
                None => vars.push((v, 1, k == OUTPUT)),
            }
        }
        // The output row's variable first, a variable of one row before a repeated one.
        let target = vars.iter().min_by_key(|e| (e.1, !e.2)).copied();
        let size = match target {
            Some((_, rows, _)) if q > 1 => match exact_root(q, rows) {
                Some(s) => Some(s),
                None => {
                    let why = format!(
                        "the open rows are one row variable {rows} times over, and {q} \
                         is no {rows}th power"
                    );
                    return Err(self.elems_error(n, &why));
                }
            },
            Some(_) if q == 0 => Some(0),
            _ => None,
        };
        for v in unknown {
            self.push(Constraint::DimEq(Dim::Var(*v), Dim::top()));
        }
        for &(v, _, _) in &vars {
            let axes = match size {
                Some(s) if Some(v) == target.map(|t| t.0) => vec![Dim::size(s)],
                _ => Vec::new(),
            };
            self.bind_row_var(v, Row::closed(axes))?;
        }
        Ok(Outcome::Done)
    }

    fn elems_error(&self, n: u64, why: &str) -> InferError {
        // `of t3`: the graph names the tensor when the error leaves it.
        let tensor = self.current.and_then(|o| self.origins.get(o)).and_then(|o| o.tensor);
        let whose = tensor.map_or_else(|| "the tensor".into(), |t| format!("the shape of {t}"));
        let msg = format!("{whose} must hold {n} elements in all, but {why}");
        self.error(ErrorCode::Elems, msg)
    }
}

/// The whole number whose `k`th power is `q`, if there is one (`q` at least 2, `k` at least 1).
fn exact_root(q: u64, k: u32) -> Option<u64> {
    if k == 1 {
        return Some(q);
    }
    // The float root is within one of the whole one (q < 2^64): three candidates.
    let guess = (q as f64).powf(1.0 / f64::from(k)).round() as u64;
    (guess.saturating_sub(1)..=guess + 1).find(|s| s.checked_pow(k) == Some(q))
}

/// The product of the solved axes (`None` on overflow: more than any allowed `n`), the
/// unknown axes, and whether an axis is an unreduced affine or concatenation.
fn product(rows: &[Row; 3]) -> Option<Product> {
    let mut p = Product { known: 1, unknown: SmallVec::new(), pending: false };
    for d in rows.iter().flat_map(Row::all) {
        match d {
            Dim::Solved(s) => p.known = p.known.checked_mul(s.size)?,
            Dim::Var(v) => p.unknown.push(*v),
            _ => p.pending = true,
        }
    }
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::exact_root;

    #[test]
    fn exact_roots_are_found_and_others_are_not() {
        assert_eq!(exact_root(7, 1), Some(7));
        assert_eq!(exact_root(9, 2), Some(3));
        assert_eq!(exact_root(8, 2), None);
        assert_eq!(exact_root(27, 3), Some(3));
        assert_eq!(exact_root(1 << 62, 2), Some(1 << 31));
        assert_eq!(exact_root((1 << 62) - 1, 2), None);
        assert_eq!(exact_root(u64::MAX, 2), None);
        assert_eq!(exact_root(1 << 62, 62), Some(2));
    }
}
