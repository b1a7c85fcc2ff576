//! The state of a program being drawn: its values with einrow's verdict on each, and the
//! draws every operation's generator shares (sizes, shapes, element types, broadcast
//! partners, axes written positive or negative).

use super::config::{NpConfig, MAX_ELEMENTS};
use super::op::NpOp;
use super::program::{NpProgram, Outcome};
use super::verdict::Typed;
use crate::fuzzing::gen::Draw;

/// A program being drawn.
pub struct Builder<'c> {
    /// What to draw.
    pub cfg: &'c NpConfig,
    /// The program so far.
    pub program: NpProgram,
    /// einrow's verdict on each value so far.
    pub outcomes: Vec<Outcome>,
    sizes: Vec<usize>,
}

impl<'c> Builder<'c> {
    /// An empty program.
    pub fn new(cfg: &'c NpConfig) -> Builder<'c> {
        Builder { cfg, program: NpProgram::default(), outcomes: Vec::new(), sizes: cfg.sizes() }
    }

    /// A fresh axis size.
    pub fn size(&self, d: &mut dyn Draw) -> usize {
        self.sizes[d.below(self.sizes.len())]
    }

    /// A fresh size for axis `i` of a shape: as [`Builder::size`], except that the simplest
    /// choice is `2 + i` (up to the largest size), so that the simplest shapes have distinct
    /// sizes (`(2, 3, 4)`) and any mix-up of axes shows in a result.
    pub fn size_at(&self, d: &mut dyn Draw, i: usize) -> usize {
        match d.below(self.sizes.len()) {
            0 => 2 + i % self.cfg.max_size.max(2).saturating_sub(1).max(1),
            k => self.sizes[k],
        }
    }

    /// A fresh size other than 1 (an axis that does not broadcast).
    pub fn solid_size(&self, d: &mut dyn Draw) -> usize {
        match self.size(d) {
            1 => 3,
            s => s,
        }
    }

    /// A rank of at least `min`: 2 first (a matrix: the smallest shape where axis order,
    /// negative axes and batch rules show), then 1, 3, 0 and up.
    pub fn rank(&self, d: &mut dyn Draw, min: usize) -> usize {
        let max = self.cfg.rank().max(min);
        let order: Vec<usize> =
            [2, 1, 3, 0].into_iter().chain(4..=max).filter(|&r| r >= min && r <= max).collect();
        order[d.below(order.len())]
    }

    /// A fresh shape of at least `min` axes (of at most [`MAX_ELEMENTS`] elements: an axis
    /// that would pass it has size 1), sometimes with a leading size-1 axis (a batch of one,
    /// `x[None]`, `keepdims`: where leading-axis rules break).
    pub fn shape(&self, d: &mut dyn Draw, min: usize) -> Vec<usize> {
        let n = self.rank(d, min);
        let mut numel: u128 = 1;
        let mut out = Vec::with_capacity(n + 1);
        for i in 0..n {
            let s = self.size_at(d, i);
            let s = if numel * s as u128 > MAX_ELEMENTS { 1 } else { s };
            numel *= s.max(1) as u128;
            out.push(s);
        }
        self.lead_one(d, &mut out);
        out
    }

    /// Puts a size-1 axis in front of `s` about one time in four (within the rank limit).
    fn lead_one(&self, d: &mut dyn Draw, s: &mut Vec<usize>) {
        if s.len() < self.cfg.rank() && d.one_in(4) {
            s.insert(0, 1);
        }
    }

    /// A fresh matmul operand: batch axes (one for the simplest choice: matmul's own rules
    /// are about batches and vectors), then a matrix, or a vector about one time in four.
    /// Batch axes broadcast, so their simplest size is 1 (as in Hypothesis'
    /// `mutually_broadcastable_shapes`); the matrix axes must match, so theirs are distinct.
    pub fn matmul_shape(&self, d: &mut dyn Draw) -> Vec<usize> {
        let max = self.cfg.rank().max(2);
        let core = if d.one_in(4) { 1 } else { 2 };
        let batch = [1, 0, 2, 3][d.below(4)].min(max - core);
        let mut out = Vec::with_capacity(batch + core);
        for _ in 0..batch {
            out.push(match self.size(d) {
                2 => 1,
                1 => 2,
                s => s,
            });
        }
        for i in 0..core {
            out.push(self.size_at(d, i));
        }
        out
    }

    /// An element type for a leaf.
    pub fn dtype(&self, d: &mut dyn Draw) -> &'static str {
        let ds = &self.cfg.dtypes;
        if ds.is_empty() {
            return "float64";
        }
        ds[d.below(ds.len())]
    }

    /// A shape that broadcasts with `s`: a suffix of it, each axis sometimes replaced by 1
    /// (and an axis facing a 1 of `s` sometimes by anything), sometimes with more leading
    /// axes (1s in front of a suffix; any size in front of all of `s`).
    pub fn partner(&self, d: &mut dyn Draw, s: &[usize]) -> Vec<usize> {
        let drop = d.below(s.len() + 1);
        let mut out: Vec<usize> = Vec::with_capacity(s.len() + 2);
        if d.one_in(3) {
            for _ in 0..1 + d.below(2) {
                out.push(if drop == 0 { self.size(d) } else { 1 });
            }
        }
        for &x in &s[drop..] {
            out.push(match d.below(6) {
                4 => 1,
                5 if x == 1 => self.size(d),
                _ => x,
            });
        }
        out
    }

    /// Adds a leaf of this shape with a drawn element type.
    pub fn fresh(&mut self, d: &mut dyn Draw, shape: Vec<usize>) -> usize {
        let dtype = self.dtype(d);
        self.outcomes.push(Outcome::Value(Typed { shape: shape.clone(), dtype }));
        self.program.leaf(shape, dtype)
    }

    /// The shape of value `i`.
    pub fn shape_of(&self, i: usize) -> &[usize] {
        self.outcomes.get(i).and_then(Outcome::typed).map_or(&[], |t| &t.shape)
    }

    /// An existing value whose shape satisfies `ok`, or `None` (make a fresh one): the
    /// latest candidate half the time (and for the simplest choice: programs chain, each step
    /// using the one before), another candidate a quarter of the time, a fresh value a
    /// quarter of the time (so that shapes keep changing along a chain).
    pub fn pick(&self, d: &mut dyn Draw, ok: impl Fn(&[usize]) -> bool) -> Option<usize> {
        let cands: Vec<usize> = (0..self.outcomes.len())
            .rev()
            .filter(|&i| self.outcomes[i].typed().is_some_and(|t| ok(&t.shape)))
            .collect();
        match d.below(4) {
            0 | 1 => cands.first().copied(),
            2 => cands.get(d.below(cands.len())).copied(),
            _ => None,
        }
    }

    /// An existing value satisfying `ok`, else a fresh leaf of the shape `make` draws.
    pub fn operand(
        &mut self,
        d: &mut dyn Draw,
        ok: impl Fn(&[usize]) -> bool,
        make: impl FnOnce(&Self, &mut dyn Draw) -> Vec<usize>,
    ) -> usize {
        match self.pick(d, ok) {
            Some(i) => i,
            None => {
                let s = make(self, d);
                self.fresh(d, s)
            }
        }
    }

    /// The number of values so far, to roll back to.
    pub fn mark(&self) -> usize {
        self.program.values.len()
    }

    /// Forgets every value from `mark` on.
    pub fn rollback(&mut self, mark: usize) {
        self.program.values.truncate(mark);
        self.outcomes.truncate(mark);
    }

    /// The number of elements of value `i`.
    pub fn numel(&self, i: usize) -> u128 {
        self.shape_of(i).iter().map(|&x| x as u128).product()
    }

    /// Adds a step with einrow's verdict on it; returns its index.
    pub fn push(&mut self, op: NpOp, args: Vec<usize>) -> usize {
        let ops: Vec<(&[usize], &str)> = args
            .iter()
            .filter_map(|&a| self.outcomes.get(a).and_then(Outcome::typed))
            .map(|t| (t.shape.as_slice(), t.dtype))
            .collect();
        let o = match super::verdict::verdict(&op, &ops) {
            Ok(t) => Outcome::Value(t),
            Err(r) => Outcome::Rejected(r),
        };
        self.outcomes.push(o);
        self.program.step(op, args)
    }
}

/// Axis `ax` of `n` axes written as numpy accepts it: `ax - n` (counted from the end, as
/// numpy code mostly writes axes: `axis=-1`) or, about half the time, `ax`.
pub fn signed(d: &mut dyn Draw, ax: usize, n: usize) -> i64 {
    let (ax, n) = (ax as i64, n as i64);
    if d.below(2) == 0 {
        ax - n
    } else {
        ax
    }
}

/// A permutation of `0..n` (the identity for the simplest choices).
pub fn permutation(d: &mut dyn Draw, n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    for i in 0..n {
        let j = i + d.below(n - i);
        order.swap(i, j);
    }
    order
}

/// Inserts `item` at a drawn position of `items`.
pub fn insert_somewhere<T>(d: &mut dyn Draw, items: &mut Vec<T>, item: T) {
    let at = d.below(items.len() + 1);
    items.insert(at, item);
}
