//! `einrow.ShapeError`: every error of the engine, raised in Python as a `ValueError` subclass
//! carrying the code, the message, the span and the provenance the Rust error has, with the
//! rendered caret text as `str(err)`.

use einrow::diagnostic::{render, Label};
use einrow::infer::program::ProgramError;
use einrow::infer::{Graph, InferError};
use einrow::numpy::{EinsumError, PathError};
use einrow::project::ProjectError;
use einrow::spec::SpecError;
use einrow::{Coded, ErrorCode, Span};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyTuple, PyType};

use crate::arrays::Overlap;

pyo3::create_exception!(
    einrow,
    ShapeError,
    PyValueError,
    "A shape, spec or einsum error of einrow: `code` (a stable name such as `mismatch`), \
     `message`, `source` and `span` (where in `source`), `spans` (every place involved), and \
     for graph errors `step`, `tensors`, `statement`, `chain` and `line`. `str(err)` is the \
     rendered text with carets under the place at fault. Each code has its subclass \
     (`MismatchError` for `mismatch`, ...), so callers catch one class or all of them."
);

/// One subclass of [`ShapeError`] per error code.
macro_rules! code_classes {
    ($($code:ident => $class:ident, $doc:literal;)*) => {
        $(pyo3::create_exception!(einrow, $class, ShapeError, $doc);)*

        /// The class of an error code.
        fn class_of(py: Python<'_>, code: ErrorCode) -> Bound<'_, PyType> {
            match code {
                $(ErrorCode::$code => py.get_type::<$class>(),)*
                ErrorCode::Type => match DTYPE_ERROR.get(py) {
                    Some(class) => class.bind(py).clone(),
                    None => py.get_type::<ShapeError>(),
                },
                _ => py.get_type::<ShapeError>(),
            }
        }

        /// Adds `ShapeError` and its subclasses to the module.
        pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
            let py = m.py();
            m.add("ShapeError", py.get_type::<ShapeError>())?;
            $(m.add(stringify!($class), py.get_type::<$class>())?;)*
            m.add("DTypeError", dtype_error_class(py)?)?;
            m.add("UnknownStrategyError", unknown_strategy_class(py)?)?;
            m.add("IncompletePathError", incomplete_path_class(py)?)?;
            Ok(())
        }
    };
}

code_classes! {
    Syntax => SpecSyntaxError, "Code `syntax`: a malformed spec, shape string, path or program.";
    Arity => ArityError, "Code `arity`: a wrong number of operands.";
    Label => LabelError, "Code `label`: label misuse (an unknown or repeated output label, a dropped `...`).";
    Name => UnknownNameError, "Code `name`: a name that refers to nothing (an unknown tensor of a program).";
    Mismatch => MismatchError, "Code `mismatch`: sizes that cannot be equal or broadcast.";
    Rank => RankError, "Code `rank`: a wrong number of axes.";
    Cycle => CycleError, "Code `cycle`: a row that would need infinitely many axes.";
    Unresolved => UnresolvedError, "Code `unresolved`: not enough information to fix a size.";
    Elems => ElemsError, "Code `elems`: an element count or buffer length that does not fit.";
    Bounds => BoundsError, "Code `bounds`: an index or size out of range.";
    Value => BadValueError, "Code `value`: a number or argument value that is not allowed.";
    Unsupported => UnsupportedError, "Code `unsupported`: a request einrow cannot serve.";
    Resource => ResourceError, "Code `resource`: a limit einrow keeps on its own work was reached.";
}

/// A class that is both an einrow error class and a Python built-in one (what numpy raises),
/// made once: `DTypeError` (a `ShapeError` and a `TypeError`), `UnknownStrategyError` (a
/// `BadValueError` and a `KeyError`). Its `str()` is the rendered text (`KeyError` alone
/// would show it quoted).
fn dual_class<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyType>>,
    name: &str,
    doc: &str,
    bases: [Bound<'py, PyType>; 2],
) -> PyResult<&'py Bound<'py, PyType>> {
    let class = cell.get_or_try_init(py, || {
        let attrs = PyDict::new(py);
        attrs.set_item("__doc__", doc)?;
        attrs.set_item("__module__", "einrow")?;
        let base_str = py.get_type::<pyo3::exceptions::PyBaseException>().getattr("__str__")?;
        attrs.set_item("__str__", base_str)?;
        let made = py.get_type::<PyType>().call1((name, PyTuple::new(py, bases)?, attrs))?;
        Ok::<_, PyErr>(made.cast_into::<PyType>()?.unbind())
    })?;
    Ok(class.bind(py))
}

/// `UnknownStrategyError`, code `value`: an `optimize` name einrow has no strategy for, where
/// the einsum needs a path. numpy raises `KeyError` there; this is both.
static UNKNOWN_STRATEGY: PyOnceLock<Py<PyType>> = PyOnceLock::new();

const UNKNOWN_STRATEGY_DOC: &str = "Code `value`: an `optimize` strategy name einrow does not \
     have, where the einsum needs a path (numpy accepts any name with one or two operands). \
     Both a `BadValueError` and a `KeyError` (numpy's class for it).";

fn unknown_strategy_class(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    let bases = [py.get_type::<BadValueError>(), py.get_type::<pyo3::exceptions::PyKeyError>()];
    dual_class(py, &UNKNOWN_STRATEGY, "UnknownStrategyError", UNKNOWN_STRATEGY_DOC, bases)
}

/// An `optimize` name einrow has no strategy for (`UnknownStrategyError`).
pub fn unknown_strategy_error(py: Python<'_>, name: &str) -> PyErr {
    let message = format!(
        "unknown optimize strategy `{name}`; einrow's are greedy, optimal, dp and auto, or give \
         True, False, a path ['einsum_path', (0, 1), ...] or (strategy, memory_limit)"
    );
    let span = Span::new(0, name.len());
    let d = Details::at(name, ErrorCode::Value, message, vec![span]);
    match unknown_strategy_class(py) {
        Ok(class) => d.into_err_as(py, class),
        Err(e) => e,
    }
}

/// `DTypeError`, code `type`: arrays of an element type a compiled plan does not run in, or
/// of several types where one is needed. A [`ShapeError`] and a `TypeError` (what numpy
/// raises for a wrong type), so either `except` catches it.
static DTYPE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

const DTYPE_ERROR_DOC: &str = "Code `type`: arrays of an element type einrow does not run \
     in, or of several element types where one is needed. Both a `ShapeError` and a \
     `TypeError`.";

fn dtype_error_class(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    let bases = [py.get_type::<ShapeError>(), py.get_type::<pyo3::exceptions::PyTypeError>()];
    dual_class(py, &DTYPE_ERROR, "DTypeError", DTYPE_ERROR_DOC, bases)
}

/// What a [`ShapeError`] carries; fields a Rust error does not have stay `None` or empty.
#[derive(Default)]
pub struct Details {
    pub code: String,
    pub message: String,
    pub rendered: String,
    pub source: Option<String>,
    pub spans: Vec<Span>,
    pub step: Option<usize>,
    pub tensors: Vec<String>,
    pub statement: Option<String>,
    pub chain: Vec<String>,
    pub line: Option<usize>,
}

impl Details {
    /// A plain error: code and message, no source text.
    pub fn plain(code: ErrorCode, message: String) -> Details {
        let rendered = format!("error[{code}]: {message}");
        Details { code: code.to_string(), message, rendered, ..Details::default() }
    }

    /// An error about `source`, with carets under `spans` (the first is the place at fault).
    pub fn at(source: &str, code: ErrorCode, message: String, spans: Vec<Span>) -> Details {
        let labels: Vec<Label> =
            spans.iter().map(|&span| Label { span, note: String::new() }).collect();
        let rendered = render(source, code, &message, &labels).trim_end().to_string();
        Details {
            code: code.to_string(),
            message,
            rendered,
            source: Some(source.to_string()),
            spans,
            ..Details::default()
        }
    }

    /// The Python exception.
    pub fn into_err(self, py: Python<'_>) -> PyErr {
        let code = ErrorCode::from_name(&self.code).unwrap_or(ErrorCode::Value);
        let class = class_of(py, code);
        self.into_err_as(py, &class)
    }

    /// The Python exception, of `class` (a subclass of the code's class).
    pub fn into_err_as(self, py: Python<'_>, class: &Bound<'_, PyType>) -> PyErr {
        match self.build(py, class) {
            Ok(err) => err,
            Err(failed) => failed,
        }
    }

    fn build(self, py: Python<'_>, class: &Bound<'_, PyType>) -> PyResult<PyErr> {
        let value = class.call1((self.rendered.as_str(),))?;
        let err = PyErr::from_value(value.clone());
        // Spans count characters of `source`, as Python indexes strings.
        let chars = |s: &Span| match &self.source {
            Some(src) => (char_index(src, s.start as usize), char_index(src, s.end as usize)),
            None => (s.start as usize, s.end as usize),
        };
        let spans: Vec<(usize, usize)> = self.spans.iter().map(chars).collect();
        value.setattr("code", &self.code)?;
        value.setattr("message", &self.message)?;
        value.setattr("source", &self.source)?;
        value.setattr("span", spans.first().copied())?;
        value.setattr("spans", PyList::new(py, &spans)?)?;
        value.setattr("step", self.step)?;
        value.setattr("tensors", PyList::new(py, &self.tensors)?)?;
        value.setattr("statement", &self.statement)?;
        value.setattr("chain", PyList::new(py, &self.chain)?)?;
        value.setattr("line", self.line)?;
        Ok(err)
    }
}

/// The index in characters of byte offset `byte` of `text` (clamped).
fn char_index(text: &str, byte: usize) -> usize {
    text.char_indices().take_while(|(i, _)| *i < byte.min(text.len())).count()
}

/// `IncompletePathError`, code `arity`: an explicit path that leaves operands uncontracted.
/// numpy raises `RuntimeError` there; this is both.
static INCOMPLETE_PATH: PyOnceLock<Py<PyType>> = PyOnceLock::new();

const INCOMPLETE_PATH_DOC: &str = "Code `arity`: an explicit `optimize` path whose steps leave \
     operands uncontracted. Both an `ArityError` and a `RuntimeError` (numpy's class for it).";

fn incomplete_path_class(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    let bases = [py.get_type::<ArityError>(), py.get_type::<pyo3::exceptions::PyRuntimeError>()];
    dual_class(py, &INCOMPLETE_PATH, "IncompletePathError", INCOMPLETE_PATH_DOC, bases)
}

/// An einsum error about the subscripts `source`.
pub fn einsum_error(py: Python<'_>, source: &str, e: &EinsumError) -> PyErr {
    if let EinsumError::Path(PathError::Incomplete { .. }) = e {
        let d = Details::plain(e.code(), e.to_string());
        return match incomplete_path_class(py) {
            Ok(class) => d.into_err_as(py, class),
            Err(failed) => failed,
        };
    }
    if source.is_empty() {
        return Details::plain(e.code(), e.to_string()).into_err(py);
    }
    let spans = match e {
        EinsumError::Spec(s) => spec_spans(s),
        _ => e.span().into_iter().collect(),
    };
    Details::at(source, e.code(), e.to_string(), spans).into_err(py)
}

/// A spec error about `source`, with its related places.
pub fn spec_error(py: Python<'_>, source: &str, e: &SpecError) -> PyErr {
    Details::at(source, e.code(), e.to_string(), spec_spans(e)).into_err(py)
}

fn spec_spans(e: &SpecError) -> Vec<Span> {
    std::iter::once(e.span()).chain(e.related().into_iter().map(|(s, _)| s)).collect()
}

/// The name of tensor `t` of `g` for a message (its id, `t12`, when `g` does not know it).
pub fn tensor_name(g: &Graph, t: einrow::ids::TensorId) -> String {
    g.name(t).map_or_else(|_| t.to_string(), |n| n.to_string())
}

/// A graph error, rendered with the graph's names and spec texts.
pub fn infer_error(
    py: Python<'_>,
    graph: Option<&Graph>,
    e: &InferError,
    line: Option<usize>,
) -> PyErr {
    let rendered = einrow::infer::explain::render_error(graph, e, false).trim_end().to_string();
    let name = |t: einrow::ids::TensorId| match graph {
        Some(g) => tensor_name(g, t),
        None => t.to_string(),
    };
    let mut d = Details { code: e.code().to_string(), rendered, line, ..Details::default() };
    match e {
        InferError::Spec { step, spec, error } => {
            d.message = error.to_string();
            d.source = Some(spec.clone());
            d.spans = spec_spans(error);
            d.step = Some(step.index());
        }
        InferError::Shape(s) => {
            d.message = s.message.clone();
            d.source = s.spec.clone();
            d.spans = s.spans.clone();
            d.step = s.step.map(|st| st.index());
            d.tensors = s.tensors.iter().map(|&t| name(t)).collect();
            d.statement = s.statement.clone();
            d.chain = s.chain.clone();
        }
        InferError::Usage { message, .. } => d.message = message.clone(),
        _ => d.message = e.to_string(),
    }
    if let Some(l) = line {
        d.rendered = format!("line {l}: {}", d.rendered);
    }
    d.into_err(py)
}

/// A program that cannot be read.
pub fn program_error(py: Python<'_>, e: &ProgramError) -> PyErr {
    let mut d = Details::plain(e.code(), e.message.clone());
    d.rendered = format!("error[{}]: {e}", e.code());
    d.line = (e.line > 0).then_some(e.line);
    d.into_err(py)
}

/// An element type a compiled plan cannot run in (`DTypeError`, code `type`).
pub fn dtype_error(py: Python<'_>, message: String) -> PyErr {
    Details::plain(ErrorCode::Type, message).into_err(py)
}

/// A plain coded error (a bad argument that is a value, not a type, problem).
pub fn value_error(py: Python<'_>, code: ErrorCode, message: String) -> PyErr {
    Details::plain(code, message).into_err(py)
}

/// An output whose elements share memory (`value`, `BadValueError`): the crate's own error,
/// [`EinsumError::OutputOverlap`] for einsum or [`ProjectError::OutputOverlap`] for compiled
/// plans, when the overlapping stride is a whole number of elements.
pub fn overlap_error(py: Python<'_>, o: &Overlap, compiled: bool) -> PyErr {
    let Overlap { axis, size, stride, in_elements } = *o;
    match (in_elements, compiled) {
        (true, false) => einsum_error(py, "", &EinsumError::OutputOverlap { axis, size, stride }),
        (true, true) => {
            project_error(py, None, &ProjectError::OutputOverlap { axis, size, stride })
        }
        (false, _) => value_error(
            py,
            ErrorCode::Value,
            format!(
                "the output's axis {axis} (size {size}, stride {stride} bytes) overlaps its \
                 other axes: two results would share memory"
            ),
        ),
    }
}

/// A plan that cannot be derived, compiled or run.
pub fn project_error(py: Python<'_>, graph: Option<&Graph>, e: &ProjectError) -> PyErr {
    match e {
        ProjectError::Infer(inner) => infer_error(py, graph, inner, None),
        other => Details::plain(other.code(), other.to_string()).into_err(py),
    }
}
