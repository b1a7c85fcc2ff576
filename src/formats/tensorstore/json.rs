//! The JSON entry points shared by domains and transforms.

use serde_json::Value;

use super::domain::IndexDomain;
use super::error::TsResult;
use super::json_read::{domain_from_json, transform_from_json};
use super::json_write::{domain_to_json, transform_to_json};
use super::transform::IndexTransform;

/// A value with a TensorStore JSON form.
pub trait JsonForm: Sized {
    /// Reads and validates the JSON form.
    fn from_json(v: &Value) -> TsResult<Self>;
    /// Writes the normal JSON form.
    fn to_json(&self) -> Value;
}

impl JsonForm for IndexDomain {
    fn from_json(v: &Value) -> TsResult<Self> {
        domain_from_json(v)
    }
    fn to_json(&self) -> Value {
        domain_to_json(self)
    }
}

impl JsonForm for IndexTransform {
    fn from_json(v: &Value) -> TsResult<Self> {
        transform_from_json(v)
    }
    fn to_json(&self) -> Value {
        transform_to_json(self)
    }
}

/// Reads a domain or transform: `from_json::<IndexDomain>(&v)`.
pub fn from_json<T: JsonForm>(v: &Value) -> TsResult<T> {
    T::from_json(v)
}

/// Writes the normal form of a domain or transform.
pub fn to_json<T: JsonForm>(x: &T) -> Value {
    x.to_json()
}

impl IndexDomain {
    /// Reads and validates `IndexDomain` JSON.
    pub fn from_json(v: &Value) -> TsResult<IndexDomain> {
        domain_from_json(v)
    }

    /// Reads `IndexDomain` JSON text; syntax errors report the byte position.
    pub fn from_json_str(text: &str) -> TsResult<IndexDomain> {
        domain_from_json(&parse_text(text)?)
    }

    /// The normal JSON form.
    pub fn to_json(&self) -> Value {
        domain_to_json(self)
    }
}

impl IndexTransform {
    /// Reads and validates `IndexTransform` JSON.
    pub fn from_json(v: &Value) -> TsResult<IndexTransform> {
        transform_from_json(v)
    }

    /// Reads `IndexTransform` JSON text; syntax errors report the byte position.
    pub fn from_json_str(text: &str) -> TsResult<IndexTransform> {
        transform_from_json(&parse_text(text)?)
    }

    /// The normal JSON form.
    pub fn to_json(&self) -> Value {
        transform_to_json(self)
    }
}

fn parse_text(text: &str) -> TsResult<Value> {
    serde_json::from_str(text).map_err(|e| {
        let offset = byte_offset(text, e.line(), e.column());
        super::error::TsError::syntax(format!("invalid JSON at byte {offset}: {e}"))
    })
}

/// The byte offset of 1-based `line` and `column` (serde_json's error position).
pub(crate) fn byte_offset(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize =
        text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
    (line_start + column.saturating_sub(1)).min(text.len())
}
