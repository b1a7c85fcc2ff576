//! Nested JSON arrays (`[[1,2],[3,4]]`, a bare number for rank 0) read straight into a shape
//! and row-major values: no JSON tree is built (a tree takes about 40 bytes a number, five
//! times the values), the values buffer grows fallibly, and nesting is bounded by serde_json's
//! recursion limit. Errors carry the byte span where reading stopped.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, SeqAccess, Visitor};

use super::convert::ConvertError;
use super::tensorstore::byte_offset;
use crate::span::Span;

/// The shape and row-major values of the nested JSON array `text`.
///
/// ```
/// use einrow::formats::convert::read_nested;
/// assert_eq!(read_nested("[[1,2],[3,4.5]]")?, (vec![2, 2], vec![1.0, 2.0, 3.0, 4.5]));
/// assert_eq!(read_nested("[[],[]]")?, (vec![2, 0], vec![]));
/// assert!(read_nested("[[1,2],[3]]").is_err());
/// # Ok::<(), einrow::formats::convert::ConvertError>(())
/// ```
pub fn read_nested(text: &str) -> Result<(Vec<usize>, Vec<f64>), ConvertError> {
    let mut state = State::default();
    let mut de = serde_json::Deserializer::from_str(text);
    let read = Level { state: &mut state, depth: 0 }.deserialize(&mut de).and_then(|()| de.end());
    if let Some(values) = state.unallocated {
        return Err(ConvertError::Allocation { values });
    }
    if let Err(e) = read {
        let at = byte_offset(text, e.line(), e.column());
        let message = format!("not a nested JSON array: {e}");
        return Err(ConvertError::Json {
            message,
            span: Some(Span::new(at, (at + 1).min(text.len()))),
        });
    }
    let shape = state.sizes.iter().map_while(|s| *s).collect();
    Ok((shape, state.values))
}

/// What reading has found so far: the length of each nesting level (from its first list),
/// the depth of the numbers once one is seen, and the values.
#[derive(Default)]
struct State {
    sizes: Vec<Option<usize>>,
    leaf: Option<usize>,
    values: Vec<f64>,
    /// The count of values that could not be allocated.
    unallocated: Option<usize>,
}

const RAGGED: &str = "a ragged or non-numeric nested array";

impl State {
    fn number<E: de::Error>(&mut self, depth: usize, x: f64) -> Result<(), E> {
        if *self.leaf.get_or_insert(depth) != depth || self.sizes.len() > depth {
            return Err(E::custom(RAGGED));
        }
        if self.values.try_reserve(1).is_err() {
            self.unallocated = Some(self.values.len() + 1);
            return Err(E::custom("out of memory"));
        }
        self.values.push(x);
        Ok(())
    }

    /// Records a list of `n` items at `depth`: every list at one depth has the same length.
    fn list<E: de::Error>(&mut self, depth: usize, n: usize) -> Result<(), E> {
        match self.sizes.get(depth) {
            Some(Some(m)) if *m != n => Err(E::custom(RAGGED)),
            Some(Some(_)) => Ok(()),
            _ => {
                self.sizes.resize(self.sizes.len().max(depth + 1), None);
                self.sizes[depth] = Some(n);
                Ok(())
            }
        }
    }
}

/// One nesting level: a list whose items are one level deeper, or a number.
struct Level<'s> {
    state: &'s mut State,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Level<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Level<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number or a nested list of numbers")
    }

    fn visit_f64<E: de::Error>(self, x: f64) -> Result<(), E> {
        self.state.number(self.depth, x)
    }

    fn visit_i64<E: de::Error>(self, x: i64) -> Result<(), E> {
        self.state.number(self.depth, x as f64)
    }

    fn visit_u64<E: de::Error>(self, x: u64) -> Result<(), E> {
        self.state.number(self.depth, x as f64)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
        if self.state.leaf.is_some_and(|l| l <= self.depth) {
            return Err(de::Error::custom(RAGGED));
        }
        let mut n = 0usize;
        while items
            .next_element_seed(Level { state: &mut *self.state, depth: self.depth + 1 })?
            .is_some()
        {
            n += 1;
        }
        self.state.list(self.depth, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The tree reader's answer, for comparison.
    fn by_tree(text: &str) -> Option<(Vec<usize>, Vec<f64>)> {
        let v: Value = serde_json::from_str(text).ok()?;
        super::super::convert::nested(&v).ok()
    }

    #[test]
    fn agrees_with_the_tree_reader() {
        let texts = [
            "1",
            "-2.5",
            "[]",
            "[[]]",
            "[[],[]]",
            "[1,2,3]",
            "[[1,2],[3,4]]",
            "[[[1],[2]],[[3],[4]]]",
            "[[1,2],[3]]",
            "[[],[1]]",
            "[[1],[]]",
            "[1,[2]]",
            "[[1],2]",
            "[[], [[]]]",
            "[null]",
            "[\"a\"]",
            "{}",
            "[1,2",
            "[1] x",
            "[[1e400]]",
            "123456789012345678901234567890",
            "[[1,2],[3,4],[5,6]]",
            "[[[]],[[]]]",
            "[[[]],[[1]]]",
        ];
        for t in texts {
            assert_eq!(read_nested(t).ok(), by_tree(t), "{t}");
        }
    }

    #[test]
    fn errors_point_where_reading_stopped() {
        let Err(ConvertError::Json { span: Some(s), .. }) = read_nested("[[1,2],\n [3]]") else {
            panic!("a ragged array is an error with a span")
        };
        assert_eq!(s.start, 11);
    }
}
