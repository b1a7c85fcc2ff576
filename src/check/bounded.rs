//! One case of a case file read into a JSON tree of at most [`MAX_CASE_VALUES`] values: a tree
//! takes 30 to 50 bytes a value (a case file's numbers take two or three bytes each), so an
//! unbounded case of a 140 MB file needed 4 GiB. Past the limit the rest of the case is read
//! and dropped; the case then fails as a `resource` error, and the cases after it still run.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// The most JSON values (numbers, strings, lists, objects, ...) one case may hold.
pub const MAX_CASE_VALUES: usize = 1 << 24;

/// Reads one case from JSON text as `einrow check` reads each case of a file: `None` when it
/// holds more than [`MAX_CASE_VALUES`] JSON values (the rest was read and dropped).
///
/// ```
/// use einrow::check::read_case;
/// let case = read_case(r#"{"tensors": [], "steps": []}"#)?.expect("small");
/// assert_eq!(case["steps"], serde_json::json!([]));
/// assert!(read_case("[1, 2").is_err());
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn read_case(text: &str) -> Result<Option<Value>, serde_json::Error> {
    let mut seen = 0;
    let mut de = serde_json::Deserializer::from_str(text);
    let v = Bounded { seen: &mut seen, limit: MAX_CASE_VALUES }.deserialize(&mut de)?;
    de.end()?;
    Ok((seen <= MAX_CASE_VALUES).then_some(v))
}

/// Reads one JSON value, counting into `seen` every value read; only the first `limit` are
/// kept (the others read as `null` and are left out of their lists and objects).
pub(super) struct Bounded<'a> {
    pub seen: &'a mut usize,
    pub limit: usize,
}

impl Bounded<'_> {
    /// Counts one value; whether it is kept.
    fn keep(&mut self) -> bool {
        *self.seen = self.seen.saturating_add(1);
        *self.seen <= self.limit
    }

    /// The reader of a value inside this one.
    fn inner(&mut self) -> Bounded<'_> {
        Bounded { seen: &mut *self.seen, limit: self.limit }
    }

    fn scalar<E>(mut self, v: Value) -> Result<Value, E> {
        Ok(if self.keep() { v } else { Value::Null })
    }
}

impl<'de> DeserializeSeed<'de> for Bounded<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Bounded<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        self.scalar(Value::Bool(b))
    }

    fn visit_i64<E>(self, x: i64) -> Result<Value, E> {
        self.scalar(Value::from(x))
    }

    fn visit_u64<E>(self, x: u64) -> Result<Value, E> {
        self.scalar(Value::from(x))
    }

    fn visit_f64<E>(self, x: f64) -> Result<Value, E> {
        self.scalar(Number::from_f64(x).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        self.scalar(Value::String(s.to_owned()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        self.scalar(Value::String(s))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        self.scalar(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        self.scalar(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut items: A) -> Result<Value, A::Error> {
        let kept = self.keep();
        let mut out = Vec::new();
        while let Some(v) = items.next_element_seed(self.inner())? {
            if *self.seen <= self.limit {
                out.push(v);
            }
        }
        Ok(if kept { Value::Array(out) } else { Value::Null })
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut members: A) -> Result<Value, A::Error> {
        let kept = self.keep();
        let mut out = Map::new();
        while let Some(key) = members.next_key::<String>()? {
            let v = members.next_value_seed(self.inner())?;
            if *self.seen <= self.limit {
                out.insert(key, v);
            }
        }
        Ok(if kept { Value::Object(out) } else { Value::Null })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, limit: usize) -> (Value, usize) {
        let mut seen = 0;
        let mut de = serde_json::Deserializer::from_str(text);
        let v = Bounded { seen: &mut seen, limit }.deserialize(&mut de).expect("JSON");
        (v, seen)
    }

    #[test]
    fn within_the_limit_the_tree_is_the_whole_value() {
        let text = r#"{"id":"a","kind":"einsum","shapes":[[2,3]],"x":[1.5,-2,null,true,{"y":[]}]}"#;
        let (v, seen) = read(text, 100);
        assert_eq!(v, serde_json::from_str::<Value>(text).unwrap());
        assert_eq!(seen, 14);
    }

    #[test]
    fn past_the_limit_the_rest_is_counted_and_dropped() {
        let text = r#"{"id":"a","kind":"einsum","inputs":[[1,2,3,4,5,6,7,8]],"after":1}"#;
        let (v, seen) = read(text, 6);
        assert_eq!(seen, 14);
        assert_eq!(v, serde_json::json!({"id": "a", "kind": "einsum"}));
    }
}
