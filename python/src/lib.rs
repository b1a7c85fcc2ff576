//! The `einrow` Python extension module.

mod dtypes;
mod errors;

use pyo3::prelude::*;

#[pymodule]
fn _einrow(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ShapeError", m.py().get_type::<errors::ShapeError>())?;
    Ok(())
}
