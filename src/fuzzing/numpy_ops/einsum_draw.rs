//! Valid numpy einsum steps: terms written for existing operands, fresh operands drawn from
//! the labels seen so far (repeated labels are diagonals, size-1 occurrences broadcast, size-0
//! labels empty), `...` over broadcast axes, implicit or explicit outputs (an explicit output
//! may keep a diagonal label).

use super::builder::{insert_somewhere, permutation, Builder};
use super::config::MAX_EINSUM_POINTS;
use super::op::NpOp;
use super::verdict::broadcast_shapes;
use crate::fuzzing::gen::Draw;

/// Orders letters are taken in: plain, alphabetical, and mixed case (the implicit output
/// sorts uppercase before lowercase).
const POOLS: [&str; 3] = [
    "ijklmnopqrstuvwxyzabcdefghABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "IiJjKkLlMmNnOoPpQqRrSsTtUuVvWwXxYyZzAaBbCcDdEeFfGgHh",
];

/// The letters of one einsum and the broadcast size of each.
struct Labels {
    pool: &'static [u8],
    letters: Vec<(char, usize)>,
    /// The broadcast of every operand's `...` part so far.
    ellipsis: Vec<usize>,
    /// Whether some operand's `...` covers axes (the output must then have `...`).
    dots: bool,
    /// Whether some term has `...` at all.
    any_dots: bool,
}

/// Whether a letter of broadcast size `l` takes an axis of size `s` (numpy: equal or 1).
fn compatible(l: usize, s: usize) -> bool {
    l == s || l == 1 || s == 1
}

/// Writes a term: letters in order, `...` at position `dots.0` in place of the axes
/// `dots.0..dots.1`.
fn write_term(letters: &[char], dots: Option<(usize, usize)>) -> String {
    let mut term = String::new();
    for (i, c) in letters.iter().enumerate() {
        if dots.is_some_and(|(l, _)| l == i) {
            term.push_str("...");
        }
        term.push(*c);
    }
    if dots.is_some_and(|(l, _)| l >= letters.len()) {
        term.push_str("...");
    }
    term
}

impl Labels {
    fn new(d: &mut dyn Draw) -> Labels {
        let pool = POOLS[d.below(POOLS.len())].as_bytes();
        Labels { pool, letters: Vec::new(), ellipsis: Vec::new(), dots: false, any_dots: false }
    }

    /// The loop points of the einsum: every letter's size and every `...` axis multiplied.
    fn points(&self) -> u128 {
        let letters = self.letters.iter().map(|(_, s)| *s as u128);
        letters.chain(self.ellipsis.iter().map(|&s| s as u128)).product()
    }

    fn fresh_letter(&mut self, size: usize) -> Option<char> {
        let c = char::from(*self.pool.get(self.letters.len())?);
        self.letters.push((c, size));
        Some(c)
    }

    /// Takes `part` as an operand's `...` axes if it broadcasts with the others'.
    fn take_ellipsis(&mut self, part: &[usize]) -> bool {
        match broadcast_shapes(&[&self.ellipsis, part]) {
            Ok(joined) => {
                self.ellipsis = joined;
                self.dots |= !part.is_empty();
                self.any_dots = true;
                true
            }
            Err(_) => false,
        }
    }

    /// A letter for an axis of size `s` in a term that has `here` so far: a letter already
    /// used whose size fits (one of this term only over an equal size), else a fresh one.
    fn letter_for(&mut self, d: &mut dyn Draw, s: usize, here: &[(char, usize)]) -> char {
        let fits = |c: char, l: usize| {
            let in_term: Vec<usize> =
                here.iter().filter(|(h, _)| *h == c).map(|(_, x)| *x).collect();
            compatible(l, s) && in_term.iter().all(|&x| x == s)
        };
        let cands: Vec<char> =
            self.letters.iter().filter(|(c, l)| fits(*c, *l)).map(|(c, _)| *c).collect();
        if !cands.is_empty() && d.below(3) == 2 {
            let c = cands[d.below(cands.len())];
            self.join(c, s);
            return c;
        }
        match self.fresh_letter(s) {
            Some(c) => c,
            None => cands.first().copied().unwrap_or('a'),
        }
    }

    fn join(&mut self, c: char, s: usize) {
        if let Some(e) = self.letters.iter_mut().find(|(l, _)| *l == c) {
            if e.1 == 1 {
                e.1 = s;
            }
        }
    }

    /// A term for an operand of shape `s`; sometimes `...` over a stretch of its axes.
    fn term_for(&mut self, d: &mut dyn Draw, s: &[usize]) -> String {
        let n = s.len();
        let mut dots = None;
        if d.one_in(3) {
            let l = d.below(n + 1);
            let t = l + d.below(n - l + 1);
            if self.take_ellipsis(&s[l..t]) {
                dots = Some((l, t));
            }
        }
        let mut here: Vec<(char, usize)> = Vec::new();
        for (i, &size) in s.iter().enumerate() {
            if dots.is_some_and(|(l, t)| (l..t).contains(&i)) {
                continue;
            }
            let c = self.letter_for(d, size, &here);
            here.push((c, size));
        }
        let letters: Vec<char> = here.iter().map(|(c, _)| *c).collect();
        write_term(&letters, dots.map(|(l, _)| (l, l)))
    }

    /// A fresh operand: letters seen so far (each at its size, or 1 where it broadcasts) and
    /// new ones; sometimes `...` over a suffix of the others' `...` axes.
    fn fresh_operand(&mut self, b: &Builder, d: &mut dyn Draw) -> (String, Vec<usize>) {
        let n = b.rank(d, 0);
        let mut here: Vec<(char, usize)> = Vec::new();
        for _ in 0..n {
            let known = !self.letters.is_empty() && d.below(2) == 0;
            let (c, size) = if known {
                let (c, l) = self.letters[d.below(self.letters.len())];
                let again = here.iter().find(|(h, _)| *h == c).map(|(_, x)| *x);
                (c, again.unwrap_or(if d.one_in(5) { 1 } else { l }))
            } else {
                let s = b.size(d);
                match self.fresh_letter(s) {
                    Some(c) => (c, s),
                    None => break,
                }
            };
            here.push((c, size));
        }
        let mut shape: Vec<usize> = here.iter().map(|(_, s)| *s).collect();
        let letters: Vec<char> = here.iter().map(|(c, _)| *c).collect();
        let mut dots = None;
        if d.one_in(3) {
            let part =
                if self.ellipsis.is_empty() { b.shape(d, 0) } else { b.partner(d, &self.ellipsis) };
            if self.take_ellipsis(&part) {
                let at = d.below(n + 1);
                shape.splice(at..at, part);
                dots = Some((at, at));
            }
        }
        (write_term(&letters, dots), shape)
    }

    /// `->` and an output (or nothing: the implicit output): some letters in a drawn order,
    /// `...` where an operand's `...` covers axes.
    fn output(&self, d: &mut dyn Draw) -> String {
        if d.below(2) == 1 {
            return String::new();
        }
        let order = permutation(d, self.letters.len());
        let mut kept: Vec<String> = Vec::new();
        for i in order {
            if d.below(4) != 3 {
                kept.push(self.letters[i].0.to_string());
            }
        }
        if self.dots || (self.any_dots && d.one_in(2)) || d.one_in(6) {
            insert_somewhere(d, &mut kept, "...".to_string());
        }
        format!("->{}", kept.concat())
    }
}

/// An einsum step over an existing operand and up to `max_operands - 1` more (fresh or
/// existing); `None` when its loop points pass [`MAX_EINSUM_POINTS`].
pub fn einsum_step(b: &mut Builder, d: &mut dyn Draw) -> Option<usize> {
    let mut labels = Labels::new(d);
    let a = b.operand(d, |_| true, |b, d| b.shape(d, 0));
    let sa = b.shape_of(a).to_vec();
    let mut terms = vec![labels.term_for(d, &sa)];
    let mut args = vec![a];
    for _ in 0..d.below(b.cfg.operands()) {
        // Every axis needs a letter: stop while a widest operand still finds fresh ones.
        if labels.letters.len() + super::config::MAX_NP_RANK * 2 > labels.pool.len() {
            break;
        }
        let (term, arg) = match b.pick(d, |_| true).filter(|_| d.one_in(3)) {
            Some(e) => {
                let s = b.shape_of(e).to_vec();
                (labels.term_for(d, &s), e)
            }
            None => {
                let (term, shape) = labels.fresh_operand(b, d);
                (term, b.fresh(d, shape))
            }
        };
        terms.push(term);
        args.push(arg);
    }
    if labels.points() > MAX_EINSUM_POINTS {
        return None;
    }
    let subscripts = format!("{}{}", terms.join(","), labels.output(d));
    Some(b.push(NpOp::Einsum { subscripts }, args))
}
