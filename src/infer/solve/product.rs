//! Flattened axes: a dim that is the product of other dims (`(h*d)`), decided in either
//! direction — the product of known parts, or the one unknown part from the known product and
//! the other parts — and waiting otherwise.

use smallvec::SmallVec;

use super::constraint::Constraint;
use super::solver::{Outcome, Solver};
use crate::code::ErrorCode;
use crate::infer::error::InferError;
use crate::shape::{Dim, ExprId, Solved};
use crate::spec::lexer::MAX_INT;

type Res = Result<Outcome, InferError>;

impl Solver {
    /// `flat = Π parts` (the parts of product `id`).
    pub fn product(&mut self, flat: &Dim, id: ExprId) -> Res {
        let written: SmallVec<[Dim; 4]> =
            self.env.exprs.product_parts(id).iter().copied().collect();
        let mut known: u128 = 1;
        let mut unknown: SmallVec<[Dim; 2]> = SmallVec::new();
        for p in &written {
            match self.env.dim(p) {
                Dim::Solved(s) => {
                    known = (known * u128::from(s.size)).min(u128::from(u64::MAX) + 1)
                }
                other => unknown.push(other),
            }
        }
        let flat = self.env.dim(flat);
        match (flat.solved(), &unknown[..]) {
            (_, []) if known > u128::from(MAX_INT) => {
                let msg = format!(
                    "the flattened axis `{}` has more than 2^62 elements",
                    self.show_parts(&written)
                );
                Err(self.error(ErrorCode::Value, msg))
            }
            (_, []) => {
                self.push(Constraint::DimEq(flat, Dim::Solved(Solved::new(known as u64))));
                Ok(Outcome::Done)
            }
            (Some(f), [one]) if known > 0 => {
                let n = u128::from(f.size);
                if n % known != 0 {
                    let msg = format!(
                        "the flattened axis `{}` has size {}, which its known parts ({}) do not \
                         divide",
                        self.show_parts(&written),
                        { f.size },
                        self.known_parts(&written)
                    );
                    return Err(self.error(ErrorCode::Mismatch, msg));
                }
                self.push(Constraint::DimEq(*one, Dim::Solved(Solved::new((n / known) as u64))));
                Ok(Outcome::Done)
            }
            (Some(f), _) if f.size > 0 && known == 0 => {
                let msg = format!(
                    "the flattened axis `{}` has size {} but a part of it has size 0",
                    self.show_parts(&written),
                    { f.size }
                );
                Err(self.error(ErrorCode::Mismatch, msg))
            }
            // Several parts unknown, or a part of a product of 0: wait for more.
            _ => Ok(Outcome::Defer),
        }
    }

    /// `(h*d)`: the parts' names as written.
    fn show_parts(&mut self, parts: &[Dim]) -> String {
        let shown: Vec<String> = parts.iter().map(|p| self.part_name(p)).collect();
        format!("({})", shown.join("*"))
    }

    /// `h = 3, w = 4`: the parts whose sizes are known.
    fn known_parts(&mut self, parts: &[Dim]) -> String {
        let mut out = Vec::new();
        for p in parts {
            if let Dim::Solved(s) = self.env.dim(p) {
                out.push(format!("`{}` = {}", self.part_name(p), { s.size }));
            }
        }
        out.join(", ")
    }

    fn part_name(&mut self, p: &Dim) -> String {
        match p {
            Dim::Var(v) => self.var_name(*v),
            other => self.env.show_dim(*other),
        }
    }
}

impl Solver {
    /// `over = floor((input + 2·pad - dilation·(kernel-1) - 1) / stride) + 1` (convolution
    /// `id`), decided once the input and kernel sizes are known; the input's size is not a
    /// function of the output's, so an output alone decides nothing.
    pub fn floor_conv(&mut self, input: &Dim, id: ExprId) -> Res {
        let c = self.env.exprs.get_floor_conv(id);
        let (Dim::Solved(n), Dim::Solved(k)) = (self.env.dim(input), self.env.dim(&c.kernel))
        else {
            return Ok(Outcome::Defer);
        };
        let window = u128::from(c.dilation) * u128::from(k.size.saturating_sub(1)) + 1;
        let padded = u128::from(n.size) + 2 * u128::from(c.pad);
        if k.size == 0 || padded < window {
            let padding = match c.pad {
                0 => String::new(),
                p => format!(" (padded by {p} on each side)"),
            };
            let msg = format!(
                "the convolution's input of {}{padding} is shorter than its window of {window} \
                 (kernel {}, dilation {})",
                { n.size },
                { k.size },
                c.dilation
            );
            return Err(self.error(ErrorCode::Mismatch, msg));
        }
        let out = (padded - window) / u128::from(c.stride.max(1)) + 1;
        self.push(Constraint::DimEq(c.over, Dim::Solved(Solved::new(out as u64))));
        Ok(Outcome::Done)
    }
}
