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
        self.close_rows(&open, &p.unknown, q)
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

    /// Open rows at closing: one takes the quotient as one axis, the others close empty.
    fn close_rows(&mut self, open: &[(usize, RowVar)], unknown: &[DimVar], q: u64) -> Res {
        if open.iter().any(|&(_, v)| self.env.row_caps(v).next().is_some()) {
            return Ok(Outcome::Defer);
        }
        let target = open.iter().find(|(k, _)| *k == OUTPUT).or(open.first()).map(|o| o.1);
        for v in unknown {
            self.push(Constraint::DimEq(Dim::Var(*v), Dim::top()));
        }
        for &(_, v) in open {
            let axes = if Some(v) == target && q != 1 { vec![Dim::size(q)] } else { Vec::new() };
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
