//! numpy einsum's `order` and `casting` keywords, read and checked as numpy reads them: a
//! string of the accepted values (`order` in any case), numpy's `TypeError` for another type
//! and its `ValueError` (here `BadValueError`) for another value.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::errors;

/// The memory order of a fresh result (`order=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Row-major.
    C,
    /// Column-major.
    F,
    /// Column-major when every operand is Fortran-contiguous, else row-major.
    A,
    /// As close to the operands' own order as numpy's iterator finds it (numpy's default).
    K,
}

/// How operands may be converted to the computed type and the result to `out`'s
/// (`casting=`), numpy's rules of `numpy.can_cast`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Casting {
    /// No conversion at all.
    No,
    /// Byte order changes only.
    Equiv,
    /// Conversions that keep every value (numpy's default).
    Safe,
    /// Safe ones, and within a kind (float64 to float32).
    SameKind,
    /// Any conversion.
    Unsafe,
}

impl Casting {
    /// numpy's name of the rule.
    pub fn name(self) -> &'static str {
        match self {
            Casting::No => "no",
            Casting::Equiv => "equiv",
            Casting::Safe => "safe",
            Casting::SameKind => "same_kind",
            Casting::Unsafe => "unsafe",
        }
    }
}

/// Reads `order` (`None`: numpy's default, `K`).
pub fn order(py: Python<'_>, obj: Option<&Bound<'_, PyAny>>) -> PyResult<Order> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else { return Ok(Order::K) };
    let text = string(obj, "order")?;
    match text.to_ascii_uppercase().as_str() {
        "C" => Ok(Order::C),
        "F" => Ok(Order::F),
        "A" => Ok(Order::A),
        "K" => Ok(Order::K),
        _ => {
            let msg = format!("order must be one of 'C', 'F', 'A', or 'K' (got '{text}')");
            Err(errors::value_error(py, einrow::ErrorCode::Value, msg))
        }
    }
}

/// Reads `casting` (absent: numpy's default, `safe`; `None` is a `TypeError`, as numpy's).
pub fn casting(py: Python<'_>, obj: Option<&Bound<'_, PyAny>>) -> PyResult<Casting> {
    let Some(obj) = obj else { return Ok(Casting::Safe) };
    let text = string(obj, "casting")?;
    let all = [Casting::No, Casting::Equiv, Casting::Safe, Casting::SameKind, Casting::Unsafe];
    all.into_iter().find(|c| c.name() == text).ok_or_else(|| {
        let msg = format!(
            "casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe' (got '{text}')"
        );
        errors::value_error(py, einrow::ErrorCode::Value, msg)
    })
}

/// A keyword's string value, numpy's `TypeError` for any other type.
fn string(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    match obj.cast::<PyString>() {
        Ok(s) => Ok(s.to_cow()?.into_owned()),
        Err(_) => {
            let ty = obj.get_type().name().map(|n| n.to_string()).unwrap_or_default();
            Err(PyTypeError::new_err(format!("{what} must be str, not {ty}")))
        }
    }
}
