//! The `infer` kind: shape inference over a graph of operations (OCANNL semantics).

use serde_json::Value;

use super::case::CaseOutcome;
use super::compare::member;
use crate::infer::program::Program;
use crate::infer::Graph;
use crate::shape::{parse_shape_string, Basis, Solved, TextAxis};
use crate::spec::ast::RowKind;

/// Runs one `infer` case.
pub fn run(case: &Value) -> CaseOutcome {
    let expect = member(case, "expect")?;
    let program = Program::from_case(case).map_err(|e| format!("bad case: {e}"))?;
    let built = program.build();
    if let Some(code) = expect.get("error").and_then(Value::as_str) {
        return match built.result {
            Err(_) => Ok(()),
            Ok(()) => Err(format!("expected error {code}, got success")),
        };
    }
    built.result.map_err(|(e, _)| format!("unexpected error: {e}"))?;
    let (mut g, names) = (built.graph, built.names);
    let shapes = member(expect, "shapes")?.as_object().ok_or("\"shapes\" is not an object")?;
    for (name, want) in shapes {
        let id = names.iter().rev().find(|(n, _)| n == name).map(|(_, id)| *id);
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
