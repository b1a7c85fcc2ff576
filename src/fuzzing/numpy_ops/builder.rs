//! The state of a program being drawn: its values with einrow's verdict on each, and the
//! draws every operation's generator shares (sizes, shapes, element types, broadcast
//! partners, axes written positive or negative).

use super::config::NpConfig;
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

    /// A fresh size other than 1 (an axis that does not broadcast).
    pub fn solid_size(&self, d: &mut dyn Draw) -> usize {
        match self.size(d) {
            1 => 3,
            s => s,
        }
    }

    /// A rank of at least `min`: 1 first, then 2, 0, 3 and up.
    pub fn rank(&self, d: &mut dyn Draw, min: usize) -> usize {
        let max = self.cfg.rank().max(min);
        let order: Vec<usize> =
            [1, 2, 0, 3].into_iter().chain(4..=max).filter(|&r| r >= min && r <= max).collect();
        order[d.below(order.len())]
    }

    /// A fresh shape of at least `min` axes.
    pub fn shape(&self, d: &mut dyn Draw, min: usize) -> Vec<usize> {
        let n = self.rank(d, min);
        (0..n).map(|_| self.size(d)).collect()
    }

    /// An element type for a leaf.
    pub fn dtype(&self, d: &mut dyn Draw) -> &'static str {
        let ds = &self.cfg.dtypes;
        if ds.is_empty() {
            return "float64";
        }
        ds[d.below(ds.len())]
    }

    /// A shape that broadcasts with `s`: a suffix of it (sometimes with more leading axes),
    /// some axes replaced by 1, axes facing a 1 of `s` free.
    pub fn partner(&self, d: &mut dyn Draw, s: &[usize]) -> Vec<usize> {
        let drop = d.below(s.len() + 1);
        let mut out: Vec<usize> = Vec::new();
        // Axes in front of all of `s` (only then: in front of a suffix they would face it).
        if drop == 0 && d.one_in(4) {
            out.extend((0..1 + d.below(2)).map(|_| self.size(d)));
        }
        for &x in &s[drop..] {
            out.push(match d.below(5) {
                3 => 1,
                4 if x == 1 => self.size(d),
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

    /// An existing value whose shape satisfies `ok`, or `None` (make a fresh one) with
    /// probability about one in (candidates + 1). The simplest choice is the latest
    /// candidate: programs then chain, each step using the one before.
    pub fn pick(&self, d: &mut dyn Draw, ok: impl Fn(&[usize]) -> bool) -> Option<usize> {
        let cands: Vec<usize> = (0..self.outcomes.len())
            .rev()
            .filter(|&i| self.outcomes[i].typed().is_some_and(|t| ok(&t.shape)))
            .collect();
        cands.get(d.below(cands.len() + 1)).copied()
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

/// Axis `ax` of `n` axes written as numpy accepts it: `ax` or, about half the time, `ax - n`.
pub fn signed(d: &mut dyn Draw, ax: usize, n: usize) -> i64 {
    let (ax, n) = (ax as i64, n as i64);
    if d.below(2) == 1 {
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
