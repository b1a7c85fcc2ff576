//! The `infer` kind: shape inference over a graph of operations (OCANNL semantics).

use serde_json::Value;

use super::case::CaseOutcome;
use super::compare::{member, str_member};
use crate::infer::{Graph, InferError, OpKind};
use crate::shape::{parse_shape_string, Basis, Solved, TextAxis};
use crate::spec::ast::RowKind;

/// Runs one `infer` case.
pub fn run(case: &Value) -> CaseOutcome {
    let expect = member(case, "expect")?;
    let built = build(case);
    if let Some(code) = expect.get("error").and_then(Value::as_str) {
        return match built {
            Err(Built::Infer(_)) => Ok(()),
            Err(Built::Case(e)) => Err(e),
            Ok(_) => Err(format!("expected error {code}, got success")),
        };
    }
    let (mut g, names) = match built {
        Ok(x) => x,
        Err(Built::Infer(e)) => return Err(format!("unexpected error: {e}")),
        Err(Built::Case(e)) => return Err(e),
    };
    let shapes = member(expect, "shapes")?.as_object().ok_or("\"shapes\" is not an object")?;
    for (name, want) in shapes {
        let id = names.iter().find(|(n, _)| n == name).map(|(_, id)| *id);
        let id = id.ok_or_else(|| format!("no tensor {name:?}"))?;
        let want = want.as_str().ok_or("expected shape is not a string")?;
        let got = g.dims(id).map_err(|e| format!("{name}: {e}"))?;
        compare_shape(&g, name, want, &got)?;
    }
    if expect.get("values").is_some() {
        return Err("value checks are not supported yet".into());
    }
    Ok(())
}

enum Built {
    Infer(InferError),
    Case(String),
}

type Names = Vec<(String, crate::ids::TensorId)>;

fn build(case: &Value) -> Result<(Graph, Names), Built> {
    let mut g = Graph::new();
    let mut names: Names = Vec::new();
    let tensors =
        member(case, "tensors").map_err(Built::Case)?.as_array().cloned().unwrap_or_default();
    for t in &tensors {
        let name = str_member(t, "name").map_err(Built::Case)?;
        let shape = t.get("shape").and_then(Value::as_str);
        let param = t.get("param").and_then(Value::as_bool).unwrap_or(false);
        let id = g.declare(name, shape, param).map_err(Built::Infer)?;
        names.push((name.to_string(), id));
    }
    let steps = member(case, "steps").map_err(Built::Case)?.as_array().cloned().unwrap_or_default();
    for s in &steps {
        let op = str_member(s, "op").map_err(Built::Case)?;
        let out = str_member(s, "out").map_err(Built::Case)?;
        let mut args = Vec::new();
        for a in s.get("args").and_then(Value::as_array).into_iter().flatten() {
            let a = a.as_str().unwrap_or("");
            let id = names.iter().find(|(n, _)| n == a).map(|(_, id)| *id);
            args.push(id.ok_or_else(|| Built::Case(format!("unknown tensor {a:?}")))?);
        }
        let spec = s.get("spec").and_then(Value::as_str);
        let kind = match op {
            "pointwise" | "pointwise_un" | "pointwise3" => OpKind::Pointwise,
            "compose" => OpKind::Compose,
            "transpose" => OpKind::Transpose,
            "einsum" => OpKind::Einsum,
            "permute" => OpKind::Permute,
            "einsum3" => OpKind::Einsum3,
            "concat" => OpKind::Concat,
            "batch_slice" => OpKind::BatchSlice,
            other => return Err(Built::Case(format!("unknown op {other:?}"))),
        };
        let id = g.add_step(kind, &args, spec).map_err(Built::Infer)?;
        names.push((out.to_string(), id));
    }
    g.solve().map_err(Built::Infer)?;
    Ok((g, names))
}

/// Compares solved rows with an expected shape string. A plain `1` matches a size-1 axis of
/// either basis; `1!` only the broadcast top; named bases compare exactly.
fn compare_shape(g: &Graph, name: &str, want: &str, got: &[Vec<Solved>; 3]) -> CaseOutcome {
    let text = parse_shape_string(want).map_err(|e| format!("expected shape {want:?}: {e}"))?;
    for (i, kind) in RowKind::ALL.into_iter().enumerate() {
        let row = text.row(kind);
        let axes: Vec<&TextAxis> = row.beg.iter().chain(&row.dims).collect();
        let ok = axes.len() == got[i].len()
            && axes.iter().zip(&got[i]).all(|(w, s)| axis_matches(g, w, *s));
        if !ok {
            let have: Vec<String> = got[i].iter().map(|s| show(g, *s)).collect();
            return Err(format!(
                "{name}: {} row expected {want:?}, got [{}]",
                kind.name(),
                have.join(",")
            ));
        }
    }
    Ok(())
}

fn axis_matches(g: &Graph, w: &TextAxis, s: Solved) -> bool {
    if w.top {
        return s.is_top();
    }
    match &w.basis {
        Some(b) => s.size == w.size && s.basis.is_named() && g.basis_name(s.basis) == b,
        None if w.size == 1 => {
            s.size == 1 && (s.basis == Basis::DEFAULT || s.basis == Basis::BCAST)
        }
        None => s.size == w.size && s.basis == Basis::DEFAULT,
    }
}

fn show(g: &Graph, s: Solved) -> String {
    if s.is_top() {
        "1!".into()
    } else if s.basis.is_named() {
        format!("{}={}", g.basis_name(s.basis), s.size)
    } else {
        s.size.to_string()
    }
}
