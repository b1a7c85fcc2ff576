//! Shape strings (see the [case format](crate::check::format#shared-notations)):
//! `batch|input->output`, axes separated by commas; an axis is a size (`3`), a size with a
//! basis (`rgb=3`), the broadcast top `1!`, or (in declarations) a row variable `...` /
//! `..name..`. Kinds not written are empty rows.

use crate::code::{Coded, ErrorCode};
use crate::span::Span;
use crate::spec::ast::RowKind;

/// One axis of a shape string.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct TextAxis {
    /// The size.
    pub size: u64,
    /// The named basis, if written (`rgb=3`).
    pub basis: Option<String>,
    /// Whether written `1!` (the broadcast top).
    pub top: bool,
}

/// One row of a shape string.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct TextRow {
    /// Axes before the row variable (all axes when there is none).
    pub beg: Vec<TextAxis>,
    /// The row variable's name (`...` is named after the kind).
    pub var: Option<String>,
    /// Axes after the row variable.
    pub dims: Vec<TextAxis>,
}

/// A parsed shape string.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ShapeText {
    /// Batch row.
    pub batch: TextRow,
    /// Input row.
    pub input: TextRow,
    /// Output row.
    pub output: TextRow,
}

impl ShapeText {
    /// The row of a kind.
    pub fn row(&self, kind: RowKind) -> &TextRow {
        match kind {
            RowKind::Batch => &self.batch,
            RowKind::Input => &self.input,
            RowKind::Output => &self.output,
        }
    }
}

/// A malformed shape string.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad shape string: {message}")]
pub struct ShapeStringError {
    /// What is wrong.
    pub message: String,
    /// Where.
    pub span: Span,
}

impl Coded for ShapeStringError {
    fn code(&self) -> ErrorCode {
        ErrorCode::Syntax
    }
}

/// The shape string of three written rows (each its axes joined by commas): `batch|` and
/// `input->` are left out when those rows are empty (`2|4->3`, `4->3`, `3`).
pub fn rows_text(batch: &str, input: &str, output: &str) -> String {
    let mut text = String::with_capacity(batch.len() + input.len() + output.len() + 3);
    if !batch.is_empty() {
        text.push_str(batch);
        text.push('|');
    }
    if !input.is_empty() {
        text.push_str(input);
        text.push_str("->");
    }
    text.push_str(output);
    text
}

/// Parses a shape string.
pub fn parse_shape_string(text: &str) -> Result<ShapeText, ShapeStringError> {
    let (batch, rest, rest_at) = match text.find('|') {
        Some(i) => (Some((&text[..i], 0)), &text[i + 1..], i + 1),
        None => (None, text, 0),
    };
    let (input, output) = match rest.find("->") {
        Some(i) => (Some((&rest[..i], rest_at)), (&rest[i + 2..], rest_at + i + 2)),
        None => (None, (rest, rest_at)),
    };
    let mut shape = ShapeText::default();
    if let Some((t, at)) = batch {
        shape.batch = parse_row(t, at, RowKind::Batch)?;
    }
    if let Some((t, at)) = input {
        shape.input = parse_row(t, at, RowKind::Input)?;
    }
    shape.output = parse_row(output.0, output.1, RowKind::Output)?;
    Ok(shape)
}

fn parse_row(text: &str, at: usize, kind: RowKind) -> Result<TextRow, ShapeStringError> {
    let mut row = TextRow::default();
    if text.trim().is_empty() {
        return Ok(row);
    }
    let mut offset = at;
    for item in text.split(',') {
        let span = Span::new(offset, offset + item.len());
        offset += item.len() + 1;
        let item = item.trim();
        if item == "..." || (item.len() > 4 && item.starts_with("..") && item.ends_with("..")) {
            if row.var.is_some() {
                return Err(err("two row variables in one row", span));
            }
            let name = if item == "..." { kind.name() } else { &item[2..item.len() - 2] };
            row.var = Some(name.to_string());
            continue;
        }
        let axis = parse_axis(item, span)?;
        if row.var.is_some() {
            row.dims.push(axis);
        } else {
            row.beg.push(axis);
        }
    }
    if row.var.is_none() {
        row.dims = std::mem::take(&mut row.beg);
    }
    Ok(row)
}

fn parse_axis(item: &str, span: Span) -> Result<TextAxis, ShapeStringError> {
    if item == "1!" {
        return Ok(TextAxis { size: 1, basis: None, top: true });
    }
    let (basis, size) = match item.split_once('=') {
        Some((b, s)) => (Some(b.trim().to_string()), s.trim()),
        None => (None, item),
    };
    if basis.as_deref().is_some_and(|b| b.is_empty() || !b.chars().all(is_name_char)) {
        return Err(err("a basis is a name (`rgb=3`)", span));
    }
    let size: u64 = size.parse().map_err(|_| err(&format!("`{item}` is not a size"), span))?;
    if size > crate::spec::lexer::MAX_INT {
        return Err(err("sizes are at most 2^62", span));
    }
    Ok(TextAxis { size, basis, top: false })
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn err(message: &str, span: Span) -> ShapeStringError {
    ShapeStringError { message: message.to_string(), span }
}
