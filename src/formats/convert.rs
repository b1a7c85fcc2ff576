//! Tensors in and out of the exchange formats: nested JSON arrays and Vespa literals to einrow
//! tensors and back.

use std::io::Write;

use serde_json::Value;

use super::vespa::{
    decode_json, CellType, Dimension, Tensor as VespaTensor, TensorType, VespaError, MAX_CELLS,
};
use crate::code::{Coded, ErrorCode};
use crate::span::Span;
use crate::tensor::{DType, ListNesting, Tensor};

/// A tensor read from text, with its dimension names when the format has them.
#[derive(Clone, Debug)]
pub struct NamedTensor {
    /// The data.
    pub tensor: Tensor,
    /// Dimension names (Vespa literals), in axis order.
    pub names: Option<Vec<String>>,
}

/// A tensor text that cannot be read or converted.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConvertError {
    /// Malformed JSON or a ragged nested array.
    #[error("{message}")]
    Json {
        /// What is wrong.
        message: String,
        /// Where (a byte span of the text, when known).
        span: Option<Span>,
    },
    /// Room for the values of a nested JSON array that the system cannot allocate.
    #[error("cannot allocate room for {values} values")]
    Allocation {
        /// The values read when allocation failed.
        values: usize,
    },
    /// A Vespa literal error.
    #[error(transparent)]
    Vespa(#[from] VespaError),
    /// A tensor einrow cannot represent densely (a mapped Vespa dimension).
    #[error("{0}")]
    Unsupported(String),
    /// The einrow tensor layer refused the data.
    #[error(transparent)]
    Tensor(#[from] crate::tensor::TensorError),
    /// The einsum failed.
    #[error(transparent)]
    Einsum(#[from] crate::numpy::EinsumError),
    /// An einsum over named dimensions failed ([`named_einsum`](super::named::named_einsum)).
    #[error(transparent)]
    Named(#[from] super::named::NamedError),
    /// Writing the text failed (the I/O error is the
    /// [`source`](std::error::Error::source)).
    #[error("writing the tensor's text failed")]
    Io(#[from] std::io::Error),
}

impl Coded for ConvertError {
    fn code(&self) -> ErrorCode {
        match self {
            ConvertError::Json { .. } => ErrorCode::Syntax,
            ConvertError::Allocation { .. } => ErrorCode::Value,
            ConvertError::Vespa(e) => e.code(),
            ConvertError::Unsupported(_) => ErrorCode::Unsupported,
            ConvertError::Tensor(e) => e.code(),
            ConvertError::Einsum(e) => e.code(),
            ConvertError::Named(e) => e.code(),
            ConvertError::Io(_) => ErrorCode::Io,
        }
    }
}

impl ConvertError {
    /// The byte span of the text read where the error is (JSON and Vespa readers), if known.
    pub fn span(&self) -> Option<Span> {
        match self {
            ConvertError::Json { span, .. } => *span,
            ConvertError::Vespa(e) => Some(e.span()),
            _ => None,
        }
    }
}

/// Reads a nested JSON array (`[[1,2],[3,4]]`, a bare number for rank 0), a Vespa literal
/// (`tensor(x[2]):[1,2]`, or the general form `{{x:0}:1.0}`) or a Vespa JSON document
/// (`{"type": ..., ...}`) into a tensor.
///
/// Text starting with `{` is a JSON document when the first character after the brace (and
/// any whitespace) is `"`, since no literal without a type can start so; otherwise it is a
/// literal. Either way the error is the reader's own, with its span.
pub fn read_tensor(text: &str) -> Result<NamedTensor, ConvertError> {
    let t = text.trim_start();
    if t.starts_with("tensor") || t.starts_with('{') {
        return from_vespa(&read_vespa(text)?);
    }
    let (shape, data) = read_nested(text)?;
    Ok(NamedTensor { tensor: Tensor::from_vec(&shape, data)?, names: None })
}

/// Reads a Vespa tensor written as a literal (`tensor(x[2]):[1,2]`, `{{x:a}:1.0}`) or as a
/// JSON document (`{"type": ..., ...}`), told apart as [`read_tensor`] does; the error is the
/// reader's own, with its span.
///
/// ```
/// use einrow::formats::convert::read_vespa;
/// let literal = read_vespa("tensor(x[2]):[1,2]").unwrap();
/// let json = read_vespa(r#"{"type": "tensor(x[2])", "values": [1, 2]}"#).unwrap();
/// assert_eq!(literal, json);
/// let err = read_vespa(r#"{"type": "tensor(x[2])", "values": [1, 2, 3]}"#).unwrap_err();
/// assert!(err.to_string().contains("3"), "{err}");
/// ```
pub fn read_vespa(text: &str) -> Result<VespaTensor, VespaError> {
    match text.trim_start().strip_prefix('{') {
        Some(body) if body.trim_start().starts_with('"') => decode_json(text, None),
        _ => VespaTensor::from_literal(text, None),
    }
}

pub use super::nested::read_nested;

/// The shape and row-major values of a nested JSON array already read as a tree
/// ([`read_nested`] reads one from text without a tree).
pub fn nested(v: &Value) -> Result<(Vec<usize>, Vec<f64>), ConvertError> {
    let mut shape = Vec::new();
    let mut probe = v;
    while let Value::Array(items) = probe {
        shape.push(items.len());
        match items.first() {
            Some(first) => probe = first,
            None => break,
        }
    }
    let mut data = Vec::new();
    flatten(v, &shape, &mut data)?;
    Ok((shape, data))
}

fn flatten(v: &Value, shape: &[usize], out: &mut Vec<f64>) -> Result<(), ConvertError> {
    let ragged = || ConvertError::Json {
        message: "a ragged or non-numeric nested array".into(),
        span: None,
    };
    match (v, shape.split_first()) {
        (Value::Array(items), Some((&n, rest))) if items.len() == n => {
            items.iter().try_for_each(|x| flatten(x, rest, out))
        }
        (Value::Number(x), None) => {
            out.push(x.as_f64().ok_or_else(ragged)?);
            Ok(())
        }
        _ => Err(ragged()),
    }
}

/// The most empty lists [`write_nested_json`] writes for a tensor with a size-0 axis (its
/// nesting down to that axis): beyond this it is an `unsupported` error.
pub const MAX_EMPTY_LISTS: usize = 1 << 24;

/// Writes a tensor as a nested JSON array (a number at rank 0), compact, value by value as it
/// reads them (nothing is collected first: the memory used does not grow with the tensor).
/// Finite values are JSON numbers (`1.0`), NaN and infinities the strings `"NaN"`, `"inf"`,
/// `"-inf"`. A shape with a size-0 axis nests down to that axis and holds empty lists there
/// (`[2, 0, 3]` is `[[],[]]`).
///
/// ```
/// use einrow::formats::convert::write_nested_json;
/// use einrow::tensor::Tensor;
/// let t = Tensor::from_vec(&[2, 2], vec![1.0, 2.5, f64::NAN, -4.0]).unwrap();
/// let mut out = Vec::new();
/// write_nested_json(&t, &mut out).unwrap();
/// assert_eq!(String::from_utf8(out).unwrap(), r#"[[1.0,2.5],["NaN",-4.0]]"#);
/// ```
pub fn write_nested_json(t: &Tensor, w: &mut dyn Write) -> Result<(), ConvertError> {
    let shape = t.shape();
    if let Some(zero) = shape.iter().position(|&d| d == 0) {
        let outer = &shape[..zero];
        let lists = outer.iter().try_fold(1usize, |n, d| n.checked_mul(*d));
        let lists = lists.filter(|n| *n <= MAX_EMPTY_LISTS).ok_or_else(|| {
            ConvertError::Unsupported(format!(
                "a tensor of shape {shape:?} prints as more than {MAX_EMPTY_LISTS} empty lists"
            ))
        })?;
        let mut nest = Nest::new(outer);
        for _ in 0..lists {
            nest.before_item(w)?;
            w.write_all(b"[]")?;
        }
        return Ok(nest.end(w)?);
    }
    let mut nest = Nest::new(shape);
    let mut result = Ok(());
    t.for_each_f64(|x| {
        if result.is_ok() {
            result = nest.before_item(w).and_then(|()| write_number(w, x));
        }
    });
    result?;
    Ok(nest.end(w)?)
}

/// The brackets of nested lists written item by item (see [`ListNesting`]).
struct Nest {
    lists: ListNesting,
    started: bool,
}

impl Nest {
    fn new(sizes: &[usize]) -> Nest {
        Nest { lists: ListNesting::new(sizes), started: false }
    }

    fn before_item(&mut self, w: &mut dyn Write) -> std::io::Result<()> {
        self.started = true;
        match self.lists.advance() {
            None => brackets(w, b'[', self.lists.depth()),
            Some(wrapped) => {
                brackets(w, b']', wrapped)?;
                w.write_all(b",")?;
                brackets(w, b'[', wrapped)
            }
        }
    }

    /// Closes every list (an empty outer shape still prints as `[]`).
    fn end(&mut self, w: &mut dyn Write) -> std::io::Result<()> {
        if !self.started {
            brackets(w, b'[', self.lists.depth())?;
        }
        brackets(w, b']', self.lists.depth())
    }
}

fn brackets(w: &mut dyn Write, b: u8, n: usize) -> std::io::Result<()> {
    (0..n).try_for_each(|_| w.write_all(&[b]))
}

fn write_number(w: &mut dyn Write, x: f64) -> std::io::Result<()> {
    if x.is_finite() {
        serde_json::to_writer(&mut *w, &x).map_err(std::io::Error::from)
    } else {
        write!(w, "\"{x}\"")
    }
}

/// A dense Vespa tensor as an einrow tensor with its dimension names (canonical order).
pub fn from_vespa(v: &VespaTensor) -> Result<NamedTensor, ConvertError> {
    let (sizes, values) = v.to_dense().ok_or_else(|| {
        ConvertError::Unsupported(format!(
            "{} has mapped dimensions; einrow computes on dense tensors",
            v.tensor_type()
        ))
    })?;
    let names = v.dims().iter().map(|d| d.name().to_string()).collect();
    Ok(NamedTensor { tensor: Tensor::from_vec(&sizes, values)?, names: Some(names) })
}

/// An einrow tensor as a Vespa tensor with the given dimension names (one per axis).
pub fn to_vespa(t: &Tensor, names: &[String]) -> Result<VespaTensor, ConvertError> {
    if names.len() != t.rank() {
        return Err(ConvertError::Unsupported(format!(
            "{} names for a tensor of rank {}",
            names.len(),
            t.rank()
        )));
    }
    let cell = match t.dtype() {
        DType::F32 => CellType::Float,
        DType::BF16 => CellType::BFloat16,
        DType::I8 => CellType::Int8,
        DType::F64 => CellType::Double,
        other => {
            return Err(ConvertError::Unsupported(format!(
                "Vespa has no {} cells (its cell types are double, float, bfloat16 and int8): \
                 convert the tensor with astype first",
                other.numpy_name()
            )))
        }
    };
    let dims = names
        .iter()
        .zip(t.shape())
        .map(|(n, s)| Dimension::indexed(n.clone(), Some(*s as u64)))
        .collect();
    let ty = TensorType::new(cell, dims, Span::default())?;
    if t.numel() > MAX_CELLS {
        return Err(ConvertError::Vespa(VespaError::value(
            Span::default(),
            format!("a tensor of type {ty} would hold more than {MAX_CELLS} cells"),
        )));
    }
    // Vespa lists cells in canonical (name-sorted) order: read the axes in that order.
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|a, b| names[*a].cmp(&names[*b]));
    let canonical = t.permute(&order)?.try_to_f64_vec()?;
    Ok(VespaTensor::from_dense(&ty, canonical)?)
}
