//! `Tensor.from(type, text)`: the optional `tensor(...):` prefix, the choice of form from the
//! first character of the value, scalars and whole-tensor hex strings, and the JSON fallback.

use super::builder::Builder;
use super::cell::CellType;
use super::dense::{parse_dense, DenseLayout};
use super::error::{Result, VespaError};
use super::general::parse_general;
use super::hex;
use super::javanum::{java_trim, parse_double};
use super::json_decode::decode_json;
use super::mixed::parse_mixed;
use super::scanner::{parse_cell_value, Scanner};
use super::spec::parse_spec;
use super::tensor::Tensor;
use super::types::TensorType;
use crate::span::Span;

impl Tensor {
    /// Parses a tensor literal, as Vespa's `Tensor.from(type, text)`.
    ///
    /// `ty` is the type the caller expects; a `tensor(...):` prefix in the text must then equal
    /// it. Without either, only numbers and the general form `{{x:a}:1.0}` are accepted (its
    /// type is inferred from the first address). When `ty` is given and the text is not a valid
    /// literal, it is read as Vespa tensor JSON before the literal's error is reported.
    ///
    /// A tensor holds at most [`MAX_CELLS`](super::MAX_CELLS) cells in at most
    /// [`MAX_SUBSPACES`](super::MAX_SUBSPACES) combinations of mapped labels; past either
    /// limit the literal is a `value` error at the cell or block that passed it.
    pub fn from_literal(text: &str, ty: Option<&TensorType>) -> Result<Tensor> {
        match parse_literal(text, ty) {
            Ok(t) => Ok(t),
            Err(e) => match ty {
                Some(t) => decode_json(text, Some(t)).map_err(|_| e),
                None => Err(e),
            },
        }
    }
}

fn trim_range(text: &str, start: usize, end: usize) -> (usize, usize) {
    let s = text.get(start..end).unwrap_or("");
    let t = java_trim(s);
    if t.is_empty() {
        return (start, start);
    }
    let lead = s.len() - s.trim_start_matches(|c: char| c <= ' ').len();
    (start + lead, start + lead + t.len())
}

fn parse_literal(text: &str, explicit: Option<&TensorType>) -> Result<Tensor> {
    let (start, end) = trim_range(text, 0, text.len());
    let whole = Span::new(start, end);
    let trimmed = &text[start..end];
    let (ty, order, value_start) = if trimmed.starts_with("tensor") {
        let colon = trimmed.find(':').ok_or_else(|| {
            VespaError::syntax(
                whole,
                "expected ':' after the tensor type, as in tensor(x[2]):[1,2]",
            )
        })?;
        let (t, order) = parse_spec(text, start, start + colon)?;
        if let Some(x) = explicit.filter(|x| !x.same_as(&t)) {
            return Err(VespaError::type_error(
                Span::new(start, start + colon),
                format!("the literal has type {t}, but type {x} was required"),
            ));
        }
        (Some(t), Some(order), start + colon + 1)
    } else {
        (explicit.cloned(), None, start)
    };
    let (vs, ve) = trim_range(text, value_start, end);
    let value = &text[vs..ve];
    let span = Span::new(vs, ve);
    let sc = Scanner::new(text, vs, ve);
    let order = order.as_deref();
    if let Some(after) = value.strip_prefix('{') {
        let after = java_trim(after);
        match ty {
            Some(t) if t.rank() > 0 && !after.starts_with('{') && after != "}" => {
                parse_mixed(sc, &t, order, span)
            }
            ty => parse_general(sc, ty, span),
        }
    } else if value.starts_with('[') {
        match ty {
            Some(t) => parse_dense(sc, &t, order, span),
            None => Err(needs_type(span, "the dense form [...]")),
        }
    } else {
        parse_scalar_or_hex(value, ty.as_ref(), order, span)
    }
}

fn needs_type(span: Span, form: &str) -> VespaError {
    VespaError::unresolved(span, format!("{form} needs an explicit type, as in tensor(x[3]):..."))
}

/// A bare value: a number for no type or a rank-0 type, a hex string for a bound dense type.
fn parse_scalar_or_hex(
    value: &str,
    ty: Option<&TensorType>,
    order: Option<&[String]>,
    span: Span,
) -> Result<Tensor> {
    let ty = match ty {
        None => TensorType::scalar(CellType::Double),
        Some(t) if t.rank() == 0 => t.clone(),
        Some(t) => return parse_hex(value, t, order, span),
    };
    let parsed = match ty.cell_type() {
        CellType::Double => parse_double(value),
        cell => parse_cell_value(value, cell),
    };
    let Some(v) = parsed else {
        return Err(VespaError::syntax(
            span,
            format!("expected a number, a hex string, or a literal starting with {{, [ or tensor(...):, not '{value}'"),
        ));
    };
    let mut b = Builder::new(&ty, span)?;
    b.cell(Vec::new(), v, span)?;
    b.build(span)
}

/// The whole dense tensor as hex digits, cells in written dimension order.
fn parse_hex(value: &str, ty: &TensorType, order: Option<&[String]>, span: Span) -> Result<Tensor> {
    if ty.has_mapped() {
        return Err(VespaError::type_error(
            span,
            format!("a single value '{value}' where type {ty} is required"),
        ));
    }
    if ty.has_unbound() {
        return Err(VespaError::type_error(
            span,
            format!("a hex string needs bound dimensions, not {ty}"),
        ));
    }
    let mut b = Builder::new(ty, span)?;
    let layout = DenseLayout::new(ty, order);
    let cell = ty.cell_type();
    let expected = layout.total() * cell.hex_digits();
    if value.len() != expected {
        return Err(VespaError::elems(
            span,
            format!("expected {expected} hex digits for {ty}, but got {}", value.chars().count()),
        ));
    }
    let mut values = vec![0.0; layout.total()];
    let decoded = hex::decode(value, cell.hex_digits(), span)?;
    for (offset, v) in layout.offsets().into_iter().zip(decoded) {
        values[offset] = cell.narrow(v);
    }
    b.block(Vec::new(), &values, span)?;
    b.build(span)
}
