//! Preparing an unguarded nest for execution: loops of extent 1 dropped, loops reordered so
//! the cheapest-to-step loop is innermost, adjacent loops merged where every operand's strides
//! compose. None of this changes which points are visited or where they read and write.

use smallvec::SmallVec;

use super::nest::Nest;

/// Strides (or extents) of a plan, one per loop.
pub type Loops<T> = SmallVec<[T; 8]>;

/// One operand of a plan: origin address and one stride per loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operand {
    /// Address at the origin.
    pub offset: isize,
    /// Stride per loop.
    pub strides: Loops<isize>,
}

/// A nest in execution form: loops outermost first, operands unguarded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Extents, outermost first (never 1 after [`Plan::from_nest`], never empty: a 0-d
    /// nest becomes one loop of extent 1).
    pub extents: Loops<usize>,
    /// The output.
    pub out: Operand,
    /// The inputs.
    pub ins: SmallVec<[Operand; 4]>,
}

impl Plan {
    /// The plan of an unguarded nest whose product space is not empty.
    pub fn from_nest(nest: &Nest) -> Plan {
        Plan::build(nest, false)
    }

    /// Like [`Plan::from_nest`], but loops ordered by the output's |stride| (largest
    /// outermost), so the output is written in address order when its map is row-major.
    pub fn from_nest_output_order(nest: &Nest) -> Plan {
        Plan::build(nest, true)
    }

    fn build(nest: &Nest, output_order: bool) -> Plan {
        let keep: Loops<usize> =
            (0..nest.extents.len()).filter(|&d| nest.extents[d] != 1).collect();
        let op = |offset: isize, strides: &[isize]| Operand {
            offset,
            strides: keep.iter().map(|&d| strides.get(d).copied().unwrap_or(0)).collect(),
        };
        let mut plan = Plan {
            extents: keep.iter().map(|&d| nest.extents[d]).collect(),
            out: op(nest.output.offset, &nest.output.strides),
            ins: nest.inputs.iter().map(|a| op(a.offset, &a.strides)).collect(),
        };
        plan.merge();
        plan.sort(output_order);
        plan.merge();
        if plan.extents.is_empty() {
            plan.extents.push(1);
            plan.out.strides.push(0);
            for i in &mut plan.ins {
                i.strides.push(0);
            }
        }
        plan
    }

    /// The loops reordered by `order` (a permutation: new loop `k` is old loop `order[k]`).
    pub fn permuted(&self, order: &[usize]) -> Plan {
        let op = |o: &Operand| Operand {
            offset: o.offset,
            strides: order.iter().map(|&d| o.strides[d]).collect(),
        };
        Plan {
            extents: order.iter().map(|&d| self.extents[d]).collect(),
            out: op(&self.out),
            ins: self.ins.iter().map(op).collect(),
        }
    }

    /// Every operand, output first.
    pub fn operands(&self) -> impl Iterator<Item = &Operand> {
        std::iter::once(&self.out).chain(self.ins.iter())
    }

    /// Sorts loops so that the one with the smallest total |stride| (or output |stride|) is
    /// innermost (stable, so ties keep the nest's order).
    fn sort(&mut self, output_order: bool) {
        let total = |d: usize| -> u128 {
            self.operands().map(|o| o.strides[d].unsigned_abs() as u128).sum()
        };
        let key = |d: usize| {
            if output_order {
                (self.out.strides[d].unsigned_abs() as u128, total(d))
            } else {
                (total(d), 0)
            }
        };
        let mut order: Loops<usize> = (0..self.extents.len()).collect();
        order.sort_by_key(|&d| std::cmp::Reverse(key(d)));
        if order.iter().enumerate().any(|(k, &d)| k != d) {
            *self = self.permuted(&order);
        }
    }

    /// Merges adjacent loops `(d, d+1)` where every operand has `stride[d] = stride[d+1]·extent[d+1]`.
    fn merge(&mut self) {
        let mut d = 0;
        while d + 1 < self.extents.len() {
            let inner = self.extents[d + 1] as isize;
            let composes =
                self.operands().all(|o| o.strides[d + 1].checked_mul(inner) == Some(o.strides[d]));
            if composes {
                self.extents[d] *= self.extents[d + 1];
                self.extents.remove(d + 1);
                for o in std::iter::once(&mut self.out).chain(self.ins.iter_mut()) {
                    o.strides[d] = o.strides[d + 1];
                    o.strides.remove(d + 1);
                }
            } else {
                d += 1;
            }
        }
    }

    /// Total number of points.
    pub fn points(&self) -> usize {
        self.extents.iter().product()
    }
}

/// Whether `offset + Σ i_d·strides[d]` visits distinct addresses for distinct points (a
/// sufficient test: sorted by |stride|, each stride exceeds the span of the smaller ones).
pub fn injective(extents: &[usize], strides: &[isize]) -> bool {
    let mut dims: Loops<(u128, u128)> = extents
        .iter()
        .zip(strides)
        .filter(|(&n, _)| n > 1)
        .map(|(&n, &s)| (s.unsigned_abs() as u128, n as u128))
        .collect();
    dims.sort_unstable();
    let mut span: u128 = 0;
    for (s, n) in dims {
        if s == 0 || s <= span {
            return false;
        }
        span += s * (n - 1);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{Access, Accum, Combine, Init};

    fn nest(extents: &[usize], out: &[isize], ins: &[&[isize]]) -> Nest {
        Nest {
            extents: extents.to_vec(),
            output: Access::new(0, out.to_vec()),
            inputs: ins.iter().map(|s| Access::new(0, s.to_vec())).collect(),
            accum: Accum::Add,
            combine: Combine::Mul,
            init: Init::No,
        }
    }

    #[test]
    fn tensordot_merges_to_gemm_shape() {
        // ijk,jkl->il with all sizes 100.
        let p = Plan::from_nest(&nest(
            &[100, 100, 100, 100],
            &[100, 0, 0, 1],
            &[&[10000, 100, 1, 0], &[0, 10000, 100, 1]],
        ));
        assert_eq!(p.extents.as_slice(), &[100, 10000, 100]);
        assert_eq!(p.out.strides.as_slice(), &[100, 0, 1]);
        assert_eq!(p.ins[0].strides.as_slice(), &[10000, 1, 0]);
        assert_eq!(p.ins[1].strides.as_slice(), &[0, 100, 1]);
    }

    #[test]
    fn row_and_column_sums_pick_the_contiguous_inner_loop() {
        let rows = Plan::from_nest(&nest(&[30, 40], &[1, 0], &[&[40, 1]]));
        assert_eq!(
            (rows.extents.as_slice(), rows.out.strides.as_slice()),
            (&[30, 40][..], &[1, 0][..])
        );
        let all = Plan::from_nest(&nest(&[30, 40], &[0, 0], &[&[40, 1]]));
        assert_eq!(all.extents.as_slice(), &[1200]);
        let scalar = Plan::from_nest(&nest(&[1, 1], &[0, 0], &[&[0, 0]]));
        assert_eq!(scalar.extents.as_slice(), &[1]);
    }

    #[test]
    fn injectivity() {
        assert!(injective(&[3, 4], &[4, 1]));
        assert!(injective(&[3, 4], &[1, 3]));
        assert!(!injective(&[3, 4], &[1, 1]));
        assert!(!injective(&[3, 4], &[0, 1]));
        assert!(injective(&[1, 4], &[0, 1]));
        assert!(injective(&[3, 3], &[4, 1]));
        assert!(!injective(&[3, 3], &[2, 1]));
    }
}
