//! What `einrow.strategies` needs from the crate: numpy-semantics programs, einsum cases and
//! broadcast cases drawn from Hypothesis' draws (each choice one bounded integer Hypothesis
//! shrinks towards 0), near-valid mutations of them, and einrow's verdict on one operation.
//! Cases cross as JSON (programs with their verdicts; see `einrow::fuzzing::numpy_ops`).

use einrow::fuzzing::gen::Draw;
use einrow::fuzzing::numpy_ops::{
    draw_einsum_case, draw_program, dtype_name, near_valid, outcome_json, verdict, BroadcastCase,
    NpConfig, NpOp, NpProgram, Signature,
};
use einrow::ErrorCode;
use pyo3::prelude::*;
use serde_json::{json, Value};

use crate::{convert, errors};

/// Hypothesis' draws as a source of choices: `below(n)` calls `draw(n - 1)`, which returns an
/// integer in `0..=n - 1`. The first exception (Hypothesis stops a test case by raising) is
/// kept and raised once the generator returns; choices after it are 0.
struct PyDraw<'py> {
    draw: Bound<'py, PyAny>,
    err: Option<PyErr>,
}

impl Draw for PyDraw<'_> {
    fn below(&mut self, n: usize) -> usize {
        if n <= 1 || self.err.is_some() {
            return 0;
        }
        match self.draw.call1((n - 1,)).and_then(|v| v.extract::<usize>()) {
            Ok(v) => v.min(n - 1),
            Err(e) => {
                self.err = Some(e);
                0
            }
        }
    }
}

fn bad(py: Python<'_>, msg: String) -> PyErr {
    errors::value_error(py, ErrorCode::Value, msg)
}

fn parse_json(py: Python<'_>, text: &str, what: &str) -> PyResult<Value> {
    serde_json::from_str(text).map_err(|e| bad(py, format!("{what}: {e}")))
}

fn config(py: Python<'_>, text: &str) -> PyResult<NpConfig> {
    NpConfig::from_json(&parse_json(py, text, "config")?).map_err(|e| bad(py, e))
}

/// Runs a generator on Hypothesis' draws and returns its JSON as Python objects.
fn drawn<'py>(
    py: Python<'py>,
    draw: Bound<'py, PyAny>,
    gen: impl FnOnce(&mut PyDraw<'py>) -> Value,
) -> PyResult<Bound<'py, PyAny>> {
    let mut d = PyDraw { draw, err: None };
    let v = gen(&mut d);
    if let Some(e) = d.err {
        return Err(e);
    }
    convert::json_to_py(py, &v)
}

/// Draws a case: `kind` is `"program"` (a valid program), `"einsum"` (one einsum step) or
/// `"broadcast"` (shapes that broadcast; `config` may hold `num_shapes` and `signature`).
/// `draw(hi)` returns an integer in `0..=hi`. Returns the case as JSON objects, programs with
/// einrow's verdict on every value.
#[pyfunction]
#[pyo3(name = "_fuzz_draw")]
pub fn fuzz_draw<'py>(
    py: Python<'py>,
    kind: &str,
    draw: Bound<'py, PyAny>,
    config_json: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let raw = parse_json(py, config_json, "config")?;
    match kind {
        "program" | "einsum" => {
            let cfg = config(py, config_json)?;
            let einsum = kind == "einsum";
            drawn(py, draw, |d| {
                let p = if einsum { draw_einsum_case(&cfg, d) } else { draw_program(&cfg, d) };
                p.to_json_with_verdicts()
            })
        }
        "broadcast" => {
            let (cfg, n, sig) = broadcast_config(py, &raw)?;
            drawn(py, draw, |d| BroadcastCase::draw(&cfg, n, sig, d).to_json())
        }
        _ => Err(bad(py, format!("unknown case kind {kind:?}"))),
    }
}

/// The broadcast settings: the shape count, the signature, and the rest as a configuration.
fn broadcast_config(py: Python<'_>, raw: &Value) -> PyResult<(NpConfig, usize, Option<Signature>)> {
    let mut rest = raw.clone();
    let (n, sig) = match rest.as_object_mut() {
        Some(m) => (m.remove("num_shapes"), m.remove("signature")),
        None => (None, None),
    };
    let n = n.and_then(|v| v.as_u64()).unwrap_or(2).min(32) as usize;
    let sig = match sig.as_ref().and_then(Value::as_str) {
        Some(text) => Some(Signature::parse(text).map_err(|e| bad(py, e))?),
        None => None,
    };
    let cfg = NpConfig::from_json(&rest).map_err(|e| bad(py, e))?;
    Ok((cfg, n, sig))
}

/// Mutates a case once (near-valid): `case_json` is a case `fuzz_draw` gave (a program, or a
/// broadcast case's `signature` and `shapes`). Returns the mutated case as `fuzz_draw` does;
/// a program also gets `"mutated"` (the index of the step edited) and `"mutation"` (what).
#[pyfunction]
#[pyo3(name = "_fuzz_mutate")]
pub fn fuzz_mutate<'py>(
    py: Python<'py>,
    kind: &str,
    case_json: &str,
    draw: Bound<'py, PyAny>,
    config_json: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let case = parse_json(py, case_json, "case")?;
    let raw = parse_json(py, config_json, "config")?;
    match kind {
        "program" | "einsum" => {
            let cfg = config(py, config_json)?;
            let p = NpProgram::from_json(&case).map_err(|e| bad(py, e))?;
            drawn(py, draw, |d| {
                let m = near_valid(&p, &cfg, d);
                let mut j = m.program.to_json_with_verdicts();
                j["mutated"] = json!(m.step);
                j["mutation"] = json!(m.what);
                j
            })
        }
        "broadcast" => {
            let (cfg, _, sig) = broadcast_config(py, &raw)?;
            let shapes: Vec<Vec<usize>> = serde_json::from_value(case["shapes"].clone())
                .map_err(|e| bad(py, format!("shapes: {e}")))?;
            let bc = BroadcastCase { signature: sig, shapes };
            drawn(py, draw, |d| bc.mutate(&cfg, d).to_json())
        }
        _ => Err(bad(py, format!("unknown case kind {kind:?}"))),
    }
}

/// einrow's verdict on one numpy operation: `op_json` is `{"op": name, ...parameters}` as
/// numpy names them; `shapes` and `dtypes` are the operands'. Returns `{"shape", "dtype"}` or
/// `{"error": code, "message"}`.
#[pyfunction]
#[pyo3(name = "_fuzz_verdict")]
pub fn fuzz_verdict<'py>(
    py: Python<'py>,
    op_json: &str,
    shapes: Vec<Vec<usize>>,
    dtypes: Vec<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let op = NpOp::from_json(&parse_json(py, op_json, "operation")?).map_err(|e| bad(py, e))?;
    if dtypes.len() != shapes.len() {
        let msg = format!("{} dtypes for {} shapes", dtypes.len(), shapes.len());
        return Err(bad(py, msg));
    }
    let names: Vec<&'static str> = dtypes
        .iter()
        .map(|d| dtype_name(d).ok_or_else(|| bad(py, format!("unknown dtype {d:?}"))))
        .collect::<PyResult<_>>()?;
    let operands: Vec<(&[usize], &str)> =
        shapes.iter().map(Vec::as_slice).zip(names.iter().copied()).collect();
    let outcome = match verdict(&op, &operands) {
        Ok(t) => einrow::fuzzing::numpy_ops::Outcome::Value(t),
        Err(r) => einrow::fuzzing::numpy_ops::Outcome::Rejected(r),
    };
    convert::json_to_py(py, &outcome_json(&outcome))
}

/// A saved program (`{"values": [...]}`) with einrow's verdict on every value.
#[pyfunction]
#[pyo3(name = "_fuzz_evaluate")]
pub fn fuzz_evaluate<'py>(py: Python<'py>, program_json: &str) -> PyResult<Bound<'py, PyAny>> {
    let v = parse_json(py, program_json, "program")?;
    let p = NpProgram::from_json(&v).map_err(|e| bad(py, e))?;
    convert::json_to_py(py, &p.to_json_with_verdicts())
}
