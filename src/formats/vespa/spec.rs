//! The type-spec parser, with Java's (`TensorTypeParser.fromSpec`) rules:
//!
//! ```text
//! spec      = "tensor" [ "<" valuetype ">" ] "(" [ dim { "," dim } ] ")"   (whole text trimmed)
//! valuetype = "double" | "float" | "bfloat16" | "int8"                     (exact)
//! dim       = name "[" [digits] "]" | name "{}"                            (each element trimmed)
//! name      = [A-Za-z0-9_]+
//! ```
//!
//! Trailing empty elements are dropped (`tensor(x{},)` is `tensor(x{})`), no space is allowed
//! inside an element or between `tensor` and `(`, unbound `x[]` and rank-0 types of any cell
//! type are accepted.

use std::collections::HashSet;

use super::cell::CellType;
use super::error::{Result, VespaError};
use super::types::{check_rank, check_size, Dimension, TensorType, MAX_DIMENSION_SIZE};
use crate::span::Span;

const FORM: &str = "a tensor type must be on the form tensor[<valuetype>](dimension{}|dimension[size]|dimension[], ...), e.g. tensor(x[3]) or tensor<float>(name{},x[10])";

impl TensorType {
    /// Parses a type spec such as `tensor<float>(name{}, x[10])`. Errors carry a span into
    /// `spec`.
    pub fn parse(spec: &str) -> Result<TensorType> {
        parse_spec(spec, 0, spec.len()).map(|(t, _)| t)
    }
}

/// Parses the spec in `text[start..end]`; returns the type and the dimension names in the order
/// they were written (the dense short forms of literals follow it). Spans are into `text`.
pub(crate) fn parse_spec(
    text: &str,
    start: usize,
    end: usize,
) -> Result<(TensorType, Vec<String>)> {
    let (start, end) = trimmed(text, start, end);
    let whole = Span::new(start, end);
    let spec = text.get(start..end).unwrap_or("");
    if !spec.starts_with("tensor") || !spec.ends_with(')') || spec.len() < "tensor)".len() {
        return Err(VespaError::syntax(
            whole,
            format!("expected a tensor type, got '{spec}': {FORM}"),
        ));
    }
    let body_start = start + "tensor".len();
    let body_end = end - 1;
    let body = &text[body_start..body_end];
    let (cell, dims_start) = if body.starts_with('(') {
        (CellType::Double, body_start + 1)
    } else {
        let open = body
            .find('(')
            .ok_or_else(|| VespaError::syntax(whole, format!("missing '(' in '{spec}': {FORM}")))?;
        let cell = parse_cell_type(&body[..open], Span::new(body_start, body_start + open))?;
        (cell, body_start + open + 1)
    };
    let mut dims = Vec::new();
    let mut written: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    for (s, e) in elements(text, dims_start, body_end) {
        let span = Span::new(s, e);
        check_rank(dims.len() + 1, span)?;
        let dim = parse_dimension(text.get(s..e).unwrap_or(""), span)?;
        // Validate one by one so that the span points at the offending element.
        check_size(&dim, span)?;
        if !seen.insert(dim.name().to_string()) {
            return Err(VespaError::label(
                span,
                format!(
                    "could not add dimension {dim}: a dimension '{}' is already present",
                    dim.name()
                ),
            ));
        }
        written.push(dim.name().to_string());
        dims.push(dim);
    }
    let ty = TensorType::new(cell, dims, whole)?;
    Ok((ty, written))
}

fn parse_cell_type(spec: &str, span: Span) -> Result<CellType> {
    let inner = spec
        .strip_prefix('<')
        .and_then(|s| s.strip_suffix('>'))
        .ok_or_else(|| VespaError::syntax(span, "the cell type must be enclosed in <>"))?;
    CellType::from_name(inner).ok_or_else(|| {
        VespaError::syntax(
            span,
            format!("the cell type must be 'double', 'float', 'bfloat16' or 'int8', not '{inner}'"),
        )
    })
}

/// The comma-separated elements of `text[start..end]`, each trimmed, trailing empty (untrimmed)
/// elements dropped like Java's `split`.
fn elements(text: &str, start: usize, end: usize) -> Vec<(usize, usize)> {
    if start >= end {
        return Vec::new();
    }
    let mut raw = Vec::new();
    let mut from = start;
    for (i, b) in text.as_bytes()[start..end].iter().enumerate() {
        if *b == b',' {
            raw.push((from, start + i));
            from = start + i + 1;
        }
    }
    raw.push((from, end));
    while raw.last().is_some_and(|(s, e)| s == e) {
        raw.pop();
    }
    raw.into_iter().map(|(s, e)| trimmed(text, s, e)).collect()
}

fn trimmed(text: &str, start: usize, end: usize) -> (usize, usize) {
    let Some(s) = text.get(start..end) else { return (start, start) };
    let lead = s.len() - s.trim_start_matches(|c: char| c <= ' ').len();
    let trail = s.len() - s.trim_end_matches(|c: char| c <= ' ').len();
    if lead == s.len() {
        (start, start)
    } else {
        (start + lead, end - trail)
    }
}

fn parse_dimension(element: &str, span: Span) -> Result<Dimension> {
    let wrong = || {
        VespaError::syntax(span, format!("dimension '{element}' is on the wrong format: {FORM}"))
    };
    let name_len = element.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
    if name_len == 0 {
        return Err(wrong());
    }
    let (name, rest) = element.split_at(name_len);
    if rest == "{}" {
        return Ok(Dimension::mapped(name));
    }
    let digits = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')).ok_or_else(wrong)?;
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(wrong());
    }
    if digits.is_empty() {
        return Ok(Dimension::indexed(name, None));
    }
    let size =
        digits.parse::<u64>().ok().filter(|n| *n <= MAX_DIMENSION_SIZE).ok_or_else(|| {
            VespaError::value(
                span,
                format!("size {digits} of dimension '{name}' is above {MAX_DIMENSION_SIZE}"),
            )
        })?;
    Ok(Dimension::indexed(name, Some(size)))
}
