//! `einrow.infer` (a program in einrow's text format, solved: each name's shape) and
//! `einrow.parse` (a labels or einsum spec in OCANNL's syntax, as its rows).

use einrow::infer::program::Program;
use einrow::spec::{parse_einsum, parse_labels};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::{convert, errors};

/// Infers every shape of a program in einrow's text format (`tensor x: 32|784`,
/// `param w: ...->128`, `h = compose w x`, one statement per line) and returns each name's
/// shape as a tuple of sizes in memory order (batch, output, input); a name defined again
/// maps to its latest definition. An error carries the line of the statement at fault.
#[pyfunction]
pub fn infer<'py>(py: Python<'py>, program: &str) -> PyResult<Bound<'py, PyDict>> {
    let p = Program::parse_text(program).map_err(|e| errors::program_error(py, &e))?;
    let built = p.build();
    if let Err((e, line)) = &built.result {
        return Err(errors::infer_error(py, Some(&built.graph), e, *line));
    }
    let shapes = PyDict::new(py);
    for (name, id) in &built.names {
        let sizes = built
            .graph
            .sizes(*id)
            .map_err(|e| errors::infer_error(py, Some(&built.graph), &e, None))?;
        shapes.set_item(name, PyTuple::new(py, sizes.memory_order())?)?;
    }
    Ok(shapes)
}

/// Parses a spec in OCANNL's syntax. A labels spec (`"b|i->o"`) gives
/// `{"rows": {"batch": [...], "input": [...], "output": [...]}, "multichar": bool}`; an
/// einsum spec (with `=>`: `"ij;jk=>ik"`) gives `{"rhs": [rows, ...], "lhs": rows,
/// "multichar": bool}`. Labels are strings, fixed indices integers, row variables
/// `"..name.."`; empty rows are left out.
#[pyfunction]
pub fn parse<'py>(py: Python<'py>, spec: &str) -> PyResult<Bound<'py, PyAny>> {
    let json = if spec.contains("=>") {
        parse_einsum(spec).map(|s| s.to_json())
    } else {
        parse_labels(spec).map(|s| s.to_json())
    };
    let json = json.map_err(|e| errors::spec_error(py, spec, &e))?;
    convert::json_to_py(py, &json)
}
