//! Writing programs as `infer` cases and case files (the [case format](crate::check::format)),
//! and as einrow's [program text](crate::infer::program), so that a failing program found by
//! fuzzing can be kept as a test.

use serde_json::{json, Map, Value};

use super::gen::Generated;
use crate::code::ErrorCode;
use crate::infer::program::Program;
use crate::infer::OpKind;
use crate::shape::{parse_shape_string, rows_text, ShapeText, TextAxis, TextRow};
use crate::spec::ast::RowKind;

/// What a case expects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// These tensors' shapes (shape strings).
    Shapes(Vec<(String, String)>),
    /// An error of this class.
    Error(ErrorCode),
}

/// The case-file name of a statement's operation (`pointwise_un`, `pointwise3` by arity).
pub fn op_name(op: OpKind, arity: usize) -> &'static str {
    match (op, arity) {
        (OpKind::Pointwise, 1) => "pointwise_un",
        (OpKind::Pointwise, 3) => "pointwise3",
        (op, _) => op.name(),
    }
}

/// One `infer` case.
pub fn infer_case(id: &str, p: &Program, expect: &Expect, note: &str) -> Value {
    let tensors: Vec<Value> = p
        .decls
        .iter()
        .map(|d| {
            let mut t = Map::new();
            t.insert("name".into(), json!(d.name));
            t.insert("shape".into(), d.shape.as_ref().map_or(Value::Null, |s| json!(s)));
            if d.param {
                t.insert("param".into(), json!(true));
            }
            Value::Object(t)
        })
        .collect();
    let steps: Vec<Value> = p
        .stmts
        .iter()
        .map(|s| {
            let mut t = Map::new();
            t.insert("op".into(), json!(op_name(s.op, s.args.len())));
            t.insert("out".into(), json!(s.out));
            t.insert("args".into(), json!(s.args));
            if let Some(spec) = &s.spec {
                t.insert("spec".into(), json!(spec));
            }
            Value::Object(t)
        })
        .collect();
    let expect = match expect {
        Expect::Shapes(shapes) => {
            let m: Map<String, Value> = shapes.iter().map(|(n, s)| (n.clone(), json!(s))).collect();
            json!({ "shapes": m })
        }
        Expect::Error(code) => json!({ "error": code.as_str() }),
    };
    let mut case = json!({ "id": id, "kind": "infer", "tensors": tensors, "steps": steps });
    if let Value::Object(m) = &mut case {
        m.insert("expect".into(), expect);
        m.insert("source".into(), json!("einrow fuzz"));
        if !note.is_empty() {
            m.insert("note".into(), json!(note));
        }
    }
    case
}

/// A case file holding `cases`.
pub fn suite(name: &str, about: &str, cases: Vec<Value>) -> Value {
    json!({ "suite": name, "about": about, "cases": cases })
}

/// The expectation a generated program's witness gives for the names `p` still defines:
/// the witness shape of every determined tensor.
pub fn witness_expect(g: &Generated, p: &Program) -> Expect {
    let names = p.decls.iter().map(|d| &d.name).chain(p.stmts.iter().map(|s| &s.out));
    let shapes = names
        .filter_map(|n| g.witness.iter().find(|w| w.name == *n && w.determined))
        .map(|w| (w.name.clone(), w.shape.to_string()))
        .collect();
    Expect::Shapes(shapes)
}

/// The program in einrow's text format (`einrow infer` reads it).
pub fn program_text(p: &Program) -> String {
    let mut out = String::new();
    for d in &p.decls {
        let kw = if d.param { "param" } else { "tensor" };
        match &d.shape {
            Some(s) => out.push_str(&format!("{kw} {}: {s}\n", d.name)),
            None => out.push_str(&format!("{kw} {}\n", d.name)),
        }
    }
    for s in &p.stmts {
        let spec = s.spec.as_ref().map(|t| format!(" \"{t}\"")).unwrap_or_default();
        out.push_str(&format!("{} = {}{spec} {}\n", s.out, s.op.name(), s.args.join(" ")));
    }
    out
}

/// Writes a parsed shape string back (the inverse of [`parse_shape_string`] up to spelling).
pub fn shape_text_string(t: &ShapeText) -> String {
    let row = |r: &TextRow, kind: RowKind| {
        let mut items: Vec<String> = r.beg.iter().map(axis_text).collect();
        if let Some(v) = &r.var {
            items.push(if v == kind.name() { "...".into() } else { format!("..{v}..") });
        }
        items.extend(r.dims.iter().map(axis_text));
        items.join(",")
    };
    rows_text(
        &row(&t.batch, RowKind::Batch),
        &row(&t.input, RowKind::Input),
        &row(&t.output, RowKind::Output),
    )
}

fn axis_text(a: &TextAxis) -> String {
    match (&a.basis, a.top) {
        (_, true) => "1!".into(),
        (Some(b), _) => format!("{b}={}", a.size),
        (None, _) => a.size.to_string(),
    }
}

/// Re-spells a shape string canonically; `None` if it does not parse.
pub fn canonical_shape(text: &str) -> Option<String> {
    parse_shape_string(text).ok().map(|t| shape_text_string(&t))
}
