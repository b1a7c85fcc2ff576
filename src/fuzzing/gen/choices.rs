//! A stream of random choices a generator consumes. Generators are written as interpreters of
//! such a stream, so that proptest's shrinking of the stream (fewer entries, smaller numbers)
//! yields simpler programs that are still well-formed: an exhausted stream answers 0, and 0 is
//! always the simplest option.
//!
//! [`Draw`] is the same contract as a trait: the generators of numpy-semantics operations
//! ([`crate::fuzzing::numpy_ops`]) take any source of choices, so that the Python package can
//! hand them Hypothesis' draws (each choice a bounded integer Hypothesis shrinks towards 0).

/// A source of random choices: `below(n)` is a number in `0..n`, and 0 is always the simplest
/// option (an exhausted source answers 0).
pub trait Draw {
    /// A number in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize;

    /// True with probability about `1/n` (false for the simplest choice).
    fn one_in(&mut self, n: usize) -> bool {
        n > 0 && self.below(n) == n - 1
    }
}

impl Draw for Choices<'_> {
    fn below(&mut self, n: usize) -> usize {
        Choices::below(self, n)
    }
}

/// Random choices, read front to back.
#[derive(Clone, Debug)]
pub struct Choices<'a> {
    data: &'a [u32],
    pos: usize,
}

impl<'a> Choices<'a> {
    /// A stream over `data`.
    pub fn new(data: &'a [u32]) -> Choices<'a> {
        Choices { data, pos: 0 }
    }

    /// A number in `0..n` (0 when `n` is 0 or the stream is exhausted).
    pub fn below(&mut self, n: usize) -> usize {
        let raw = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        if n == 0 {
            0
        } else {
            raw as usize % n
        }
    }

    /// True with probability about `1/n` (false on an exhausted stream).
    pub fn one_in(&mut self, n: usize) -> bool {
        n > 0 && self.below(n) == n - 1
    }

    /// Picks an element (the first on an exhausted stream); `None` for an empty slice.
    pub fn pick<'b, T>(&mut self, items: &'b [T]) -> Option<&'b T> {
        let i = self.below(items.len());
        items.get(i)
    }

    /// A permutation of `0..n` (the identity on an exhausted stream).
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..n).collect();
        for i in 0..n {
            let j = i + self.below(n - i);
            order.swap(i, j);
        }
        order
    }
}
