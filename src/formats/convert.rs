//! Tensors in and out of the exchange formats: nested JSON arrays and Vespa literals to einrow
//! tensors and back, and an einsum over Vespa tensors whose labels are the dimension names.

use serde_json::Value;

use super::vespa::{
    decode_json, CellType, Dimension, Tensor as VespaTensor, TensorType, VespaError,
};
use crate::code::{Coded, ErrorCode};
use crate::span::Span;
use crate::tensor::{DType, Tensor};

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
}

impl Coded for ConvertError {
    fn code(&self) -> ErrorCode {
        match self {
            ConvertError::Json { .. } => ErrorCode::Syntax,
            ConvertError::Vespa(e) => e.code(),
            ConvertError::Unsupported(_) => ErrorCode::Unsupported,
            ConvertError::Tensor(e) => e.code(),
            ConvertError::Einsum(e) => e.code(),
        }
    }
}

/// Reads a nested JSON array (`[[1,2],[3,4]]`, a bare number for rank 0), a Vespa literal
/// (`tensor(x[2]):[1,2]`) or a Vespa JSON document with a `"type"` member into a tensor.
pub fn read_tensor(text: &str) -> Result<NamedTensor, ConvertError> {
    let t = text.trim_start();
    if t.starts_with("tensor") {
        return from_vespa(&VespaTensor::from_literal(text, None)?);
    }
    if t.starts_with('{') {
        let literal = VespaTensor::from_literal(text, None);
        let v = match literal {
            Ok(v) => v,
            Err(e) if t.contains("\"type\"") => decode_json(text, None).map_err(|_| e)?,
            Err(e) => return Err(e.into()),
        };
        return from_vespa(&v);
    }
    let json: Value = serde_json::from_str(text).map_err(|e| ConvertError::Json {
        message: format!("not a nested JSON array: {e}"),
        span: None,
    })?;
    let (shape, data) = nested(&json)?;
    Ok(NamedTensor { tensor: Tensor::from_vec(&shape, data)?, names: None })
}

/// The shape and row-major values of a nested JSON array.
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

/// A tensor as a nested JSON array (a number at rank 0).
pub fn to_nested_json(t: &Tensor) -> Value {
    let data = t.to_f64_vec();
    build(t.shape(), &data)
}

fn build(shape: &[usize], data: &[f64]) -> Value {
    match shape.split_first() {
        None => number(data.first().copied().unwrap_or(0.0)),
        Some((&n, rest)) => {
            let step: usize = rest.iter().product();
            Value::Array((0..n).map(|i| build(rest, &data[i * step..(i + 1) * step])).collect())
        }
    }
}

fn number(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or_else(|| Value::String(x.to_string()), Value::Number)
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
    };
    let dims = names
        .iter()
        .zip(t.shape())
        .map(|(n, s)| Dimension::indexed(n.clone(), Some(*s as u64)))
        .collect();
    let ty = TensorType::new(cell, dims, Span::default())?;
    // Vespa addresses list dimensions in canonical (sorted) order.
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|a, b| names[*a].cmp(&names[*b]));
    let data = t.to_f64_vec();
    let shape = t.shape().to_vec();
    let cells = (0..data.len()).map(|flat| {
        let mut idx = vec![0usize; shape.len()];
        let mut rest = flat;
        for a in (0..shape.len()).rev() {
            idx[a] = rest % shape[a].max(1);
            rest /= shape[a].max(1);
        }
        (order.iter().map(|&a| idx[a].to_string()).collect(), data[flat])
    });
    Ok(VespaTensor::from_cells(&ty, cells)?)
}

/// An einsum over dense Vespa tensors whose labels are their dimension names: dimensions with
/// the same name are the same axis (they join), names not in `output` are summed over.
pub fn named_einsum(
    output: &[&str],
    operands: &[&VespaTensor],
) -> Result<VespaTensor, ConvertError> {
    let mut names: Vec<String> = Vec::new();
    let mut terms = Vec::new();
    let mut tensors = Vec::new();
    for v in operands {
        let n = from_vespa(v)?;
        let mut term = String::new();
        for name in n.names.iter().flatten() {
            term.push(letter(&mut names, name)?);
        }
        terms.push(term);
        tensors.push(n.tensor);
    }
    let mut out_term = String::new();
    for name in output {
        if !names.iter().any(|n| n == name) {
            return Err(ConvertError::Unsupported(format!(
                "output dimension `{name}` is in no operand"
            )));
        }
        out_term.push(letter(&mut names, name)?);
    }
    let spec = format!("{}->{out_term}", terms.join(","));
    let refs: Vec<&Tensor> = tensors.iter().collect();
    let result = crate::numpy::einsum(&spec, &refs)?;
    let out_names: Vec<String> = output.iter().map(|s| s.to_string()).collect();
    to_vespa(&result, &out_names)
}

fn letter(names: &mut Vec<String>, name: &str) -> Result<char, ConvertError> {
    let i = match names.iter().position(|n| n == name) {
        Some(i) => i,
        None => {
            names.push(name.to_string());
            names.len() - 1
        }
    };
    let letters: Vec<char> = ('a'..='z').chain('A'..='Z').collect();
    letters
        .get(i)
        .copied()
        .ok_or_else(|| ConvertError::Unsupported("more than 52 distinct dimension names".into()))
}
