//! What a `ContractExpression` is built from, and its portable forms: the parts pickling
//! passes to `ContractExpression._restore`, and JSON (constants as their type, shape and
//! bytes in base64).

use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use serde_json::{json, Value};

use crate::expression::keyword_names;
use crate::keywords::{self, Casting, Order};
use crate::{errors, np};

/// The subscripts, the shapes, the constants, the path and einsum's keywords.
pub struct State {
    /// The subscripts (sublists converted).
    pub subscripts: String,
    /// Every operand's shape.
    pub shapes: Vec<Vec<usize>>,
    /// The constant operands by position, ascending.
    pub constants: Vec<(usize, Py<PyUntypedArray>)>,
    /// The full path.
    pub path: Vec<Vec<usize>>,
    /// `dtype`, when given.
    pub dtype: Option<Py<PyAny>>,
    /// `order`.
    pub order: Order,
    /// `casting`.
    pub casting: Casting,
}

impl State {
    /// The arrays a call takes.
    pub fn num_args(&self) -> usize {
        self.shapes.len() - self.constants.len()
    }

    /// The constant at position `i`, if it is one.
    pub fn constant(&self, i: usize) -> Option<&Py<PyUntypedArray>> {
        self.constants.iter().find(|(k, _)| *k == i).map(|(_, a)| a)
    }

    /// The shape of the call's `k`-th array.
    pub fn arg_shape(&self, k: usize) -> &[usize] {
        let mut seen = 0;
        for (i, s) in self.shapes.iter().enumerate() {
            if self.constant(i).is_none() {
                if seen == k {
                    return s;
                }
                seen += 1;
            }
        }
        &[]
    }

    /// opt_einsum's text of the contraction: the constant terms in brackets, adjacent ones
    /// in one pair (`'[ab,bc],cd->ad'`).
    pub fn contraction(&self) -> String {
        let (inputs, output) = match self.subscripts.split_once("->") {
            Some((i, o)) => (i, Some(o)),
            None => (self.subscripts.as_str(), None),
        };
        let terms: Vec<String> = inputs
            .split(',')
            .enumerate()
            .map(|(i, t)| match self.constant(i) {
                Some(_) => format!("[{t}]"),
                None => t.to_string(),
            })
            .collect();
        let joined = terms.join(",").replace("],[", ",");
        match output {
            Some(o) => format!("{joined}->{o}"),
            None => joined,
        }
    }

    /// The arguments of `ContractExpression._restore`.
    pub fn parts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let constants: Vec<(usize, Bound<'py, PyUntypedArray>)> =
            self.constants.iter().map(|(i, a)| (*i, a.bind(py).clone())).collect();
        let (order, casting) = keyword_names(self.order, self.casting);
        let dtype = self.dtype.as_ref().map(|d| d.bind(py).clone());
        (
            self.subscripts.clone(),
            self.shapes.clone(),
            constants,
            self.path.clone(),
            dtype,
            order,
            casting,
        )
            .into_pyobject(py)
    }

    /// The state as JSON text.
    pub fn to_json(&self, py: Python<'_>) -> PyResult<String> {
        let mut constants = Vec::with_capacity(self.constants.len());
        for (i, a) in &self.constants {
            let a = a.bind(py);
            let contiguous = a.call_method0("copy")?;
            let bytes: Vec<u8> = contiguous.call_method0("tobytes")?.extract()?;
            constants.push(json!({
                "position": i,
                "dtype": dtype_name(a)?,
                "shape": a.shape(),
                "base64": base64(py, &bytes)?,
            }));
        }
        let dtype = match &self.dtype {
            Some(d) => Value::String(np::DTYPE.get(py)?.call1((d,))?.str()?.to_string()),
            None => Value::Null,
        };
        let (order, casting) = keyword_names(self.order, self.casting);
        let value = json!({
            "subscripts": self.subscripts,
            "shapes": self.shapes,
            "path": self.path,
            "constants": constants,
            "dtype": dtype,
            "order": order,
            "casting": casting,
        });
        Ok(value.to_string())
    }

    /// The state of `to_json`'s text.
    pub fn from_json(py: Python<'_>, text: &str) -> PyResult<State> {
        let bad = |what: &str| {
            let msg = format!("not a ContractExpression's JSON: {what}");
            errors::value_error(py, einrow::ErrorCode::Syntax, msg)
        };
        let v: Value = serde_json::from_str(text).map_err(|e| bad(&e.to_string()))?;
        let field = |name: &str| v.get(name).ok_or_else(|| bad(&format!("no `{name}`")));
        let parse = |name: &str| -> PyResult<Value> { field(name).cloned() };
        let subscripts: String =
            serde_json::from_value(parse("subscripts")?).map_err(|e| bad(&e.to_string()))?;
        let shapes: Vec<Vec<usize>> =
            serde_json::from_value(parse("shapes")?).map_err(|e| bad(&e.to_string()))?;
        let path: Vec<Vec<usize>> =
            serde_json::from_value(parse("path")?).map_err(|e| bad(&e.to_string()))?;
        let mut constants = Vec::new();
        for c in field("constants")?.as_array().ok_or_else(|| bad("`constants` is a list"))? {
            let text = |k: &str| c.get(k).and_then(Value::as_str).ok_or_else(|| bad(k));
            let position =
                c.get("position").and_then(Value::as_u64).ok_or_else(|| bad("position"))?;
            let shape: Vec<usize> =
                serde_json::from_value(c.get("shape").cloned().unwrap_or_default())
                    .map_err(|e| bad(&e.to_string()))?;
            let array = array_of(py, text("dtype")?, &shape, text("base64")?)?;
            constants.push((position as usize, array.unbind()));
        }
        let dtype = match field("dtype")?.as_str() {
            Some(d) => Some(np::DTYPE.get(py)?.call1((d,))?.unbind()),
            None => None,
        };
        let word = |name: &str| -> PyResult<Bound<'_, pyo3::types::PyString>> {
            let s = field(name)?.as_str().ok_or_else(|| bad(name))?;
            Ok(pyo3::types::PyString::new(py, s))
        };
        Ok(State {
            subscripts,
            shapes,
            constants,
            path,
            dtype,
            order: keywords::order(py, Some(word("order")?.as_any()))?,
            casting: keywords::casting(py, Some(word("casting")?.as_any()))?,
        })
    }
}

/// A type name numpy reads back: the type's `str` (`'<f8'`), or its name for the types other
/// packages register (ml_dtypes' `bfloat16`).
fn dtype_name(a: &Bound<'_, PyUntypedArray>) -> PyResult<String> {
    let d = a.dtype();
    if d.kind() == b'V' {
        return Ok(d.typeobj().name()?.to_string());
    }
    d.getattr("str")?.extract()
}

/// Bytes in base64 (Python's `base64`).
fn base64(py: Python<'_>, bytes: &[u8]) -> PyResult<String> {
    let b64 = py.import("base64")?;
    let encoded = b64.call_method1("b64encode", (PyBytes::new(py, bytes),))?;
    encoded.call_method1("decode", ("ascii",))?.extract()
}

/// The array of a type, a shape and base64 bytes.
fn array_of<'py>(
    py: Python<'py>,
    dtype: &str,
    shape: &[usize],
    data: &str,
) -> PyResult<Bound<'py, PyUntypedArray>> {
    let bytes = py.import("base64")?.call_method1("b64decode", (data,))?;
    let descr = np::DTYPE.get(py)?.call1((dtype,))?;
    let flat = py.import("numpy")?.call_method1("frombuffer", (bytes, descr))?;
    let array = flat.call_method1("reshape", (shape.to_vec(),))?.call_method0("copy")?;
    Ok(array.cast_into::<PyUntypedArray>()?)
}
