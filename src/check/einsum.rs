//! The `einsum` kind: numpy einsum shapes (and values when the case gives inputs).

use serde_json::Value;

use super::case::CaseOutcome;
use super::compare::{
    expected_error, f64_list, member, settle_error, str_member, values_diff, F32_TOL, F64_TOL,
};
use crate::code::{Coded, ErrorCode};
use crate::infer::explain::{diagnose, trace, Context};
use crate::numpy::{einsum, einsum_shape};
use crate::tensor::{DType, Tensor};

type Failure = (ErrorCode, String);

/// What a case computes: the output shape, and the values when inputs were given.
struct Outcome {
    shape: Vec<usize>,
    values: Option<Vec<f64>>,
}

/// Runs one `einsum` case.
pub fn run(case: &Value) -> CaseOutcome {
    let expect = member(case, "expect")?;
    let dtype = match case.get("dtype").and_then(Value::as_str) {
        None => DType::F64,
        Some(name) => DType::from_name(name).ok_or_else(|| format!("unknown dtype {name:?}"))?,
    };
    let got = evaluate(case, dtype);
    if let Some(code) = expected_error(expect) {
        return settle_error(code, got);
    }
    let got = got.map_err(|(code, msg)| format!("error [{code}]: {msg}"))?;
    let want_shape = member(expect, "shape")?;
    let shape_json = serde_json::json!(got.shape);
    if *want_shape != shape_json {
        return Err(format!("shape: expected {want_shape}, got {shape_json}"));
    }
    if let Some(want) = expect.get("values") {
        let want = f64_list(want).ok_or("expect.values is not a number list")?;
        let values = got.values.ok_or("the case expects values but gives no inputs")?;
        let tol = if dtype == DType::F32 { F32_TOL } else { F64_TOL };
        if let Some(d) = values_diff(&want, &values, tol) {
            return Err(d);
        }
    }
    Ok(())
}

fn evaluate(case: &Value, dtype: DType) -> Result<Outcome, Failure> {
    let spec = str_member(case, "spec").map_err(|m| (ErrorCode::Syntax, m))?;
    let shapes = shapes(case)?;
    let refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
    // Shapes and errors come from the inference engine; the kernel's own shape analysis must
    // agree with it.
    let shape = engine_shape(spec, &shapes).map_err(|(code, msg)| {
        // The error in numpy's words, those of `einrow run` and `einrow path`, when the
        // kernel's own analysis finds it too (the engine's name its internal tensors).
        match einsum_shape(spec, &refs) {
            Err(e) if e.code() == code => (code, e.to_string()),
            _ => (code, msg),
        }
    })?;
    let kernel_shape = einsum_shape(spec, &refs).map_err(|e| (e.code(), e.to_string()))?;
    if kernel_shape != shape {
        let msg = format!("engine shape {shape:?} but kernel shape {kernel_shape:?}");
        return Err((ErrorCode::Mismatch, msg));
    }
    let Some(inputs) = case.get("inputs") else {
        return Ok(Outcome { shape, values: None });
    };
    let lists = inputs.as_array().ok_or_else(|| syntax("\"inputs\" must be a list"))?;
    if lists.len() != shapes.len() {
        return Err((
            ErrorCode::Arity,
            format!("{} input lists for {} shapes", lists.len(), shapes.len()),
        ));
    }
    let mut tensors = Vec::with_capacity(lists.len());
    for (list, shape) in lists.iter().zip(&shapes) {
        let values = f64_list(list).ok_or_else(|| syntax("an input is not a number list"))?;
        tensors
            .push(Tensor::from_f64s(dtype, shape, &values).map_err(|e| (e.code(), e.to_string()))?);
    }
    let refs: Vec<&Tensor> = tensors.iter().collect();
    let result = einsum(spec, &refs).map_err(|e| (e.code(), e.to_string()))?;
    let values = result.try_to_f64_vec().map_err(|e| (e.code(), e.to_string()))?;
    Ok(Outcome { shape: result.shape().to_vec(), values: Some(values) })
}

/// The output shape of a numpy einsum solved by the inference engine (numpy's size-1 axes
/// are declared as the broadcast top, the only dims that broadcast).
pub fn engine_shape(spec: &str, shapes: &[Vec<usize>]) -> Result<Vec<usize>, Failure> {
    let fail = |e: crate::infer::InferError| (e.code(), e.to_string());
    let mut g = crate::infer::Graph::new();
    let mut ids = Vec::with_capacity(shapes.len());
    for (i, shape) in shapes.iter().enumerate() {
        let text: Vec<String> =
            shape.iter().map(|d| if *d == 1 { "1!".to_string() } else { d.to_string() }).collect();
        let name = crate::project::operand_name(i);
        ids.push(g.declare(&name, Some(&text.join(",")), false).map_err(fail)?);
    }
    let solved = g.add_step(crate::infer::OpKind::Numpy, &ids, Some(spec));
    let out = match solved.and_then(|out| g.solve().map(|()| out)) {
        Ok(out) => out,
        Err(mut e) => {
            // The error as `einrow run` explains a spec given alone: its operands' names,
            // never the graph's own names of its step and result.
            trace(&g, &mut e);
            let ctx = Context { spec_alone: true, ..Context::default() };
            return Err((e.code(), diagnose(&g, &e, &ctx).message));
        }
    };
    let [_, _, output] = g.dims(out).map_err(fail)?;
    Ok(output.iter().map(|s| s.size as usize).collect())
}

fn shapes(case: &Value) -> Result<Vec<Vec<usize>>, Failure> {
    let list = case
        .get("shapes")
        .and_then(Value::as_array)
        .ok_or_else(|| syntax("case has no \"shapes\" list"))?;
    list.iter()
        .map(|s| {
            let dims = s.as_array().ok_or_else(|| syntax("a shape must be a list"))?;
            dims.iter()
                .map(|d| {
                    let d = d
                        .as_u64()
                        .ok_or_else(|| (ErrorCode::Value, format!("bad dimension {d}")))?;
                    crate::tensor::check_dim(d).map_err(|e| (e.code(), e.to_string()))
                })
                .collect()
        })
        .collect()
}

fn syntax(msg: &str) -> Failure {
    (ErrorCode::Syntax, msg.to_string())
}
