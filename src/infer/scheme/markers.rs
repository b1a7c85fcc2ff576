//! The sizes of a scheme's marker axes: primes above every size, index and stride the
//! program writes (so that no fixed index reads past a marker axis and no marker size is
//! taken for a written one), kept out of every message.

use crate::infer::graph::Graph;

/// The smallest marker size (the sizes of programs without large literals).
const FLOOR: u64 = 65_423;

/// The largest marker size: a product of a few marker axes must stay below 2^62.
const CEILING: u64 = 1 << 40;

/// The marker sizes of one scheme: three for the one-axis probes (descending), two for the
/// probe of a variable's rank (below those).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct MarkerSizes {
    pub p: [u64; 3],
    pub q: [u64; 2],
}

impl MarkerSizes {
    /// Primes above twice `largest` (and above [`FLOOR`]); `None` when they would exceed
    /// [`CEILING`].
    pub fn above(largest: u64) -> Option<MarkerSizes> {
        let base = largest.checked_mul(2)?.max(FLOOR);
        let q0 = next_prime(base)?;
        let q1 = next_prime(q0 + 1)?;
        let p2 = next_prime(q1 + 1)?;
        let p1 = next_prime(p2 + 1)?;
        let p0 = next_prime(p1 + 1)?;
        (p0 <= CEILING).then_some(MarkerSizes { p: [p0, p1, p2], q: [q0, q1] })
    }

    /// `message` with every marker size removed: `..batch..=65521` becomes `..batch..`, and
    /// a marker size standing alone becomes `..name..` of the variable (the scheme's
    /// variables are symbolic: their probe sizes are einrow's, not the user's).
    pub fn hide(&self, message: &str, name: &str) -> String {
        let mut out = message.to_string();
        for size in self.p.iter().chain(&self.q) {
            let text = size.to_string();
            out = out.replace(&format!("={text}"), "");
            out = replace_number(&out, &text, &format!("..{name}.."));
        }
        out
    }
}

/// `s` with each standalone occurrence of the decimal `number` replaced by `with`.
fn replace_number(s: &str, number: &str, with: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find(number) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + number.len()..].chars().next();
        let alone = !before.is_some_and(|c| c.is_ascii_digit())
            && !after.is_some_and(|c| c.is_ascii_digit());
        out.push_str(&rest[..at]);
        out.push_str(if alone { with } else { number });
        rest = &rest[at + number.len()..];
    }
    out.push_str(rest);
    out
}

/// The smallest prime at least `n` (`None` past [`CEILING`]).
fn next_prime(n: u64) -> Option<u64> {
    (n.max(2)..=CEILING).find(|&k| is_prime(k))
}

fn is_prime(n: u64) -> bool {
    if n < 4 {
        return n >= 2;
    }
    if n.is_multiple_of(2) {
        return false;
    }
    let mut d = 3;
    while d * d <= n {
        if n.is_multiple_of(d) {
            return false;
        }
        d += 2;
    }
    true
}

/// The largest number the program writes: in its declared shapes, its specs (fixed indices,
/// strides, offsets, kernel sizes) and its `set_dim` settings.
pub(super) fn largest_literal(g: &Graph) -> u64 {
    let texts = g.recorded_texts();
    let declared = texts.declared.values().map(|t| largest_in(t));
    let specs = g.steps().iter().filter_map(|s| s.spec_text()).map(largest_in);
    let set = g.set_dim_sizes();
    declared.chain(specs).chain(set).max().unwrap_or(0)
}

/// The largest decimal number in `text` (saturating).
fn largest_in(text: &str) -> u64 {
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .map(|w| w.parse::<u64>().unwrap_or(u64::MAX))
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_primes_above_the_programs_and_hidden_from_messages() {
        let m = MarkerSizes::above(70_000).expect("fits");
        assert!(
            m.q[0] > 140_000
                && m.q[0] < m.q[1]
                && m.q[1] < m.p[2]
                && m.p[2] < m.p[1]
                && m.p[1] < m.p[0]
        );
        assert!(m.p.iter().chain(&m.q).all(|&p| is_prime(p)));
        let shown = format!("`x` is {} (..batch..={}) in a, 1{} in b", m.p[0], m.p[1], m.p[2]);
        assert_eq!(
            m.hide(&shown, "batch"),
            format!("`x` is ..batch.. (..batch..) in a, 1{} in b", m.p[2])
        );
        assert_eq!(MarkerSizes::above(1 << 40), None);
        assert_eq!(MarkerSizes::above(0).expect("small").q[0], FLOOR.max(65_423));
    }
}
