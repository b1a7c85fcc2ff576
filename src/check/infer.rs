//! The `infer` kind: shape inference over a graph of operations (OCANNL semantics).

use serde_json::Value;

use super::case::CaseOutcome;
use super::compare::{f64_list, member, values_diff, F64_TOL};
use crate::code::ErrorCode;
use crate::ids::TensorId;
use crate::infer::explain::{diagnose, Context};
use crate::infer::program::{Built, Program};
use crate::infer::{Graph, InferError};
use crate::kernel::{Accum, Combine};
use crate::project::{run_graph, Compute};
use crate::shape::{parse_shape_string, Basis, Solved, TextAxis};
use crate::spec::ast::RowKind;

/// Runs one `infer` case.
pub fn run(case: &Value) -> CaseOutcome {
    let expect = member(case, "expect")?;
    match read(case, expect)? {
        Some(program) => run_program(&program, expect),
        None => Ok(()),
    }
}

/// Runs one `infer` case that the caller hands over: the case's tensors and steps are freed
/// once read, before the graph is built, so that the graph of a large program reuses their
/// memory.
pub fn run_owned(mut case: Value) -> CaseOutcome {
    let expect = member(&case, "expect")?;
    let Some(program) = read(&case, expect)? else { return Ok(()) };
    let expect = case.as_object_mut().and_then(|c| c.remove("expect"));
    drop(case);
    run_program(&program, expect.as_ref().ok_or("no \"expect\"")?)
}

/// The program of a case; `None` when the case expects the error it has (a step with the
/// wrong operand count).
fn read(case: &Value, expect: &Value) -> Result<Option<Program>, String> {
    let expected_error = expect.get("error").and_then(Value::as_str);
    match Program::from_case(case) {
        Ok(p) => Ok(Some(p)),
        // A step with the wrong operand count is the input's error, not the case file's.
        Err(e) if e.code == ErrorCode::Arity && expected_error.is_some() => Ok(None),
        Err(e) if e.code == ErrorCode::Arity => Err(format!("unexpected error: {e}")),
        Err(e) => Err(format!("bad case: {e}")),
    }
}

/// An inference error as `einrow infer` words it for the same case (user names, never the
/// graph's own), with where it is: `[mismatch] dimension mismatch: … (at /steps/4)`.
fn explained(program: &Program, built: &Built, e: &InferError, line: Option<usize>) -> String {
    let ctx = Context {
        program: Some(program),
        line,
        case: true,
        declaration: built.names.len() < program.decls.len(),
        ..Context::default()
    };
    let d = diagnose(&built.graph, e, &ctx);
    match d.primary.as_ref().and_then(|p| p.pointer.as_deref()) {
        Some(at) => format!("[{}] {} (at {at})", d.code_name(), d.message),
        None => format!("[{}] {}", d.code_name(), d.message),
    }
}

/// Builds a case's program and compares it with what the case expects.
fn run_program(program: &Program, expect: &Value) -> CaseOutcome {
    let expected_error = expect.get("error").and_then(Value::as_str);
    let built = program.build();
    if let Some(code) = expected_error {
        return match built.result {
            Err(_) => Ok(()),
            Ok(()) => Err(format!("expected error {code}, got success")),
        };
    }
    if let Err((e, line)) = &built.result {
        return Err(format!("unexpected error: {}", explained(program, &built, e, *line)));
    }
    let shapes = member(expect, "shapes")?.as_object().ok_or("\"shapes\" is not an object")?;
    let lookup = |name: &str| built.tensor(name).ok_or_else(|| format!("no tensor {name:?}"));
    let ids: Vec<TensorId> = shapes.keys().map(|n| lookup(n)).collect::<Result<_, _>>()?;
    let values = match expect.get("values").and_then(Value::as_object) {
        Some(values) => {
            let ids: Vec<TensorId> = values.keys().map(|n| lookup(n)).collect::<Result<_, _>>()?;
            Some((values, ids))
        }
        None => None,
    };
    let (g, names) = (built.graph, built.names);
    for ((name, want), id) in shapes.iter().zip(ids) {
        let want = want.as_str().ok_or("expected shape is not a string")?;
        let got = g.dims(id).map_err(|e| format!("{name}: {e}"))?;
        compare_shape(&g, name, want, &got)?;
    }
    match values {
        Some((values, ids)) => check_values(program, &g, &names, values, &ids),
        None => Ok(()),
    }
}

/// Runs the graph from the leaves' values and compares the listed tensors (`ids`: the tensor
/// of each listed name). A result too large to allocate fails the case with a `value` error.
fn check_values(
    program: &Program,
    g: &Graph,
    names: &[(String, TensorId)],
    expected: &serde_json::Map<String, Value>,
    ids: &[TensorId],
) -> CaseOutcome {
    let mut leaves = Vec::new();
    for (d, (_, id)) in program.decls.iter().zip(names) {
        if let Some(v) = &d.values {
            leaves.push((*id, v.clone()));
        }
    }
    let mut computes = Vec::with_capacity(program.stmts.len());
    for s in &program.stmts {
        let mut c = Compute::default_for(s.op, s.args.len());
        if let Some(a) = &s.accum {
            c.accum = accum_named(a).ok_or_else(|| format!("unknown accum {a:?}"))?;
        }
        if let (Some(k), true) = (&s.combine, s.args.len() > 1) {
            c.combine = combine_named(k).ok_or_else(|| format!("unknown combine {k:?}"))?;
        }
        computes.push(c);
    }
    let values = run_graph(g, &leaves, &|step| computes[step.index()])
        .map_err(|e| format!("running the graph: {e}"))?;
    for ((name, want), id) in expected.iter().zip(ids) {
        let want = f64_list(want).ok_or_else(|| format!("{name}: values are not numbers"))?;
        let got = values[id.index()].as_ref().ok_or_else(|| format!("{name}: not computed"))?;
        if let Some(d) = values_diff(&want, got, F64_TOL) {
            return Err(format!("{name}: {d}"));
        }
    }
    Ok(())
}

/// The accumulation named in a case (`+`, `*`, `max`, `min`).
pub fn accum_named(name: &str) -> Option<Accum> {
    Some(match name {
        "+" => Accum::Add,
        "*" => Accum::Mul,
        "max" => Accum::Max,
        "min" => Accum::Min,
        "=" => Accum::Store,
        _ => return None,
    })
}

/// The combine named in a case (`*`, `+`, `-`, `/`, `max`, `min`).
pub fn combine_named(name: &str) -> Option<Combine> {
    Some(match name {
        "*" => Combine::Mul,
        "+" => Combine::Add,
        "-" => Combine::Sub,
        "/" => Combine::Div,
        "max" => Combine::Max,
        "min" => Combine::Min,
        _ => return None,
    })
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
            let have: Vec<String> = got[i].iter().map(|s| g.solved_text(*s)).collect();
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
