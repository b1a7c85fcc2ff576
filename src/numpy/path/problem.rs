//! The planning problem: each operand's set of labels, the output's, and each label's size,
//! with sizes and FLOPs counted as opt_einsum counts them.
//!
//! Labels are numbered densely (at most 64, numpy's limit on an einsum's dimensions), so a
//! set of labels is one `u64` bit mask. Planners compare costs as `f64` (exact below 2^53,
//! and never overflowing); reports count them exactly as saturating `u128`.

use super::live_sets::LiveSets;

/// A set of labels: bit `l` is label `l`.
pub(crate) type Labels = u64;

/// The most labels a [`Problem`] holds (one bit each).
pub(crate) const MAX_LABELS: usize = 64;

/// Operands' label sets, the output's, and label sizes.
#[derive(Clone, Debug)]
pub(crate) struct Problem {
    /// Each operand's labels (a repeated label counts once).
    pub inputs: Vec<Labels>,
    /// The output's labels.
    pub output: Labels,
    /// The size of each label.
    pub sizes: Vec<u64>,
}

impl Problem {
    /// The problem of `operands` (label numbers per axis, repeats allowed), `output` and
    /// `sizes`; `None` when a label is not below [`MAX_LABELS`] or has no size.
    pub fn new(operands: &[Vec<usize>], output: &[usize], sizes: &[usize]) -> Option<Problem> {
        let mask = |ls: &[usize]| -> Option<Labels> {
            ls.iter()
                .try_fold(0u64, |m, &l| (l < MAX_LABELS && l < sizes.len()).then(|| m | 1 << l))
        };
        let inputs = operands.iter().map(|o| mask(o)).collect::<Option<Vec<_>>>()?;
        let output = mask(output)?;
        let sizes = sizes.iter().take(MAX_LABELS).map(|&s| s as u64).collect();
        Some(Problem { inputs, output, sizes })
    }

    /// The number of operands.
    pub fn len(&self) -> usize {
        self.inputs.len()
    }

    /// Every label of every operand.
    pub fn all_labels(&self) -> Labels {
        self.inputs.iter().fold(0, |m, &i| m | i)
    }

    /// The number of elements of a tensor with labels `m`, exactly (saturating).
    pub fn size(&self, m: Labels) -> u128 {
        bits(m).fold(1u128, |p, l| p.saturating_mul(u128::from(self.sizes[l])))
    }

    /// [`Problem::size`] as a float, for comparing costs.
    pub fn size_f(&self, m: Labels) -> f64 {
        bits(m).fold(1.0, |p, l| p * self.sizes[l] as f64)
    }

    /// opt_einsum's FLOP count of one contraction of `terms` operands over the labels
    /// `involved`: their sizes' product times `max(1, terms - 1)`, plus one more product when
    /// a label is summed away (`inner`).
    pub fn flops(&self, involved: Labels, inner: bool, terms: usize) -> u128 {
        self.size(involved).saturating_mul(op_factor(inner, terms))
    }

    /// [`Problem::flops`] as a float.
    pub fn flops_f(&self, involved: Labels, inner: bool, terms: usize) -> f64 {
        self.size_f(involved) * op_factor(inner, terms) as f64
    }

    /// The FLOP count of a linear path (positions into the current operand list, results
    /// appended), as a float; the path must be valid. O(n log n) for n operands.
    pub fn path_cost_f(&self, path: &[Vec<usize>]) -> f64 {
        let mut live = LiveSets::new(&self.inputs, self.output, path.len());
        let mut total = 0.0;
        for step in path {
            let (involved, keep) = live.contract(step);
            total += self.flops_f(involved, involved & !keep != 0, step.len());
        }
        total
    }
}

/// `max(1, terms - 1)`, plus 1 with an inner product.
fn op_factor(inner: bool, terms: usize) -> u128 {
    (terms.saturating_sub(1).max(1) + usize::from(inner)) as u128
}

/// The labels of `m`, lowest first.
pub(crate) fn bits(mut m: Labels) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            l
        })
    })
}

/// Label-set sizes by table lookup, one 256-entry table per byte of the mask: the inner loop
/// of the exhaustive search.
pub(crate) struct SizeTable {
    tables: Vec<[f64; 256]>,
}

impl SizeTable {
    /// The tables for `p`'s labels.
    pub fn new(p: &Problem) -> SizeTable {
        let bytes = p.sizes.len().div_ceil(8);
        let tables = (0..bytes)
            .map(|b| {
                let mut t = [1.0f64; 256];
                for m in 1..256usize {
                    let low = m.trailing_zeros() as usize;
                    let size = p.sizes.get(8 * b + low).map_or(1.0, |&s| s as f64);
                    t[m] = t[m & (m - 1)] * size;
                }
                t
            })
            .collect();
        SizeTable { tables }
    }

    /// The size of a tensor with labels `m`.
    #[inline]
    pub fn size(&self, m: Labels) -> f64 {
        self.tables.iter().enumerate().fold(1.0, |p, (b, t)| p * t[(m >> (8 * b)) as usize & 0xff])
    }
}

/// A problem from an equation over letters (implicit output: the letters seen once) and a
/// size per letter.
#[cfg(test)]
pub(crate) fn letters(eq: &str, sizes: &dyn Fn(char) -> usize) -> Problem {
    let implicit: String = {
        let mut once: Vec<char> = eq.chars().filter(|c| c.is_alphabetic()).collect();
        once.sort_unstable();
        let all = once.clone();
        once.dedup();
        once.retain(|c| all.iter().filter(|&d| d == c).count() == 1);
        once.into_iter().collect()
    };
    let (ins, out) = eq.split_once("->").unwrap_or((eq, &implicit));
    let mut names: Vec<char> = Vec::new();
    let mut id = |c: char| match names.iter().position(|&d| d == c) {
        Some(i) => i,
        None => {
            names.push(c);
            names.len() - 1
        }
    };
    let ops: Vec<Vec<usize>> = ins.split(',').map(|t| t.chars().map(&mut id).collect()).collect();
    let output: Vec<usize> = out.chars().map(&mut id).collect();
    let s: Vec<usize> = names.iter().map(|&c| sizes(c)).collect();
    Problem::new(&ops, &output, &s).expect("problem")
}
/// opt_einsum.testing's default test size of a letter (2 for letters it has none for).
#[cfg(test)]
pub(crate) fn default_size(c: char) -> usize {
    let chars = "abcdefghijklmopqABC";
    let sizes = [2, 3, 4, 5, 4, 3, 2, 6, 5, 4, 3, 2, 5, 7, 4, 3, 2, 3, 4];
    chars.find(c).map_or(2, |i| sizes[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(terms: &str, out: &str, sizes: &[(char, usize)]) -> Problem {
        let id = |c: char| sizes.iter().position(|&(d, _)| d == c).expect("label");
        let ops: Vec<Vec<usize>> = terms.split(',').map(|t| t.chars().map(id).collect()).collect();
        let output: Vec<usize> = out.chars().map(id).collect();
        let s: Vec<usize> = sizes.iter().map(|&(_, s)| s).collect();
        Problem::new(&ops, &output, &s).expect("problem")
    }

    #[test]
    fn flop_count_matches_opt_einsum_examples() {
        // opt_einsum's flop_count('abc', False, 1, {a: 2, b: 3, c: 5}) = 30, with an inner
        // product over two terms 60; GEMM over three labels of 10: 2000.
        let p = problem("abc", "", &[('a', 2), ('b', 3), ('c', 5)]);
        assert_eq!(p.flops(0b111, false, 1), 30);
        assert_eq!(p.flops(0b111, true, 2), 60);
        assert_eq!(p.flops(0b1, true, 3), 6);
        let q = problem("ab,bc", "ac", &[('a', 10), ('b', 10), ('c', 10)]);
        assert_eq!(q.flops(0b111, true, 2), 2000);
        assert_eq!(q.flops(0b1, false, 2), 10);
    }

    #[test]
    fn sizes_saturate_and_tables_agree() {
        let p = problem("ab", "", &[('a', 1 << 62), ('b', 1 << 62)]);
        assert_eq!(p.size(0b11), 1u128 << 124);
        assert_eq!(p.size(0b11).saturating_mul(1 << 10), u128::MAX);
        let big: Vec<usize> = (0..64).map(|l| l % 7 + 1).collect();
        let q = Problem::new(&[(0..64).collect()], &[], &big).expect("64 labels");
        let t = SizeTable::new(&q);
        for m in [0u64, 1, 0xff, 0xf0f0_0000_0000_0001, u64::MAX] {
            let (a, b) = (t.size(m), q.size_f(m));
            assert!((a - b).abs() <= 1e-12 * b, "{m:x}: {a} vs {b}");
        }
    }

    #[test]
    fn labels_out_of_range_are_refused() {
        assert!(Problem::new(&[vec![64]], &[], &[1; 65]).is_none());
        assert!(Problem::new(&[vec![3]], &[], &[1; 3]).is_none());
    }
}
