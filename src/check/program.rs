//! `infer` cases: a program read from the JSON of the case format (`"tensors"` and
//! `"steps"`), with every member checked for its type.

use serde_json::Value;

use crate::code::ErrorCode;
use crate::diagnostic::closest;
use crate::infer::program::{
    op_from_name, text_arity, Decl, Program, ProgramError, Stmt, MAX_STATEMENTS, OP_NAMES,
};

/// The operand count an op name fixes in a case (FORMAT.md: `pointwise` takes 2,
/// `pointwise_un` 1, `pointwise3` 3); `None` where the op itself decides.
fn named_arity(name: &str) -> Option<usize> {
    match name {
        "pointwise" => Some(2),
        _ => text_arity(name),
    }
}

impl Program {
    /// Reads an `infer` case (FORMAT.md): the lists `tensors` and `steps` (each step with its
    /// list of `args`) are required. Every member is checked for its type: a shape that is not
    /// a string or `null`, an argument that is not a name, a list given as an object are
    /// `syntax` errors naming the place (`tensors[0].shape`), never read as "nothing known" or
    /// dropped. A `pointwise*` step with the wrong operand count is an `arity` error; more than
    /// [`MAX_STATEMENTS`] tensors and steps in all a `resource`
    /// error.
    pub fn from_case(case: &Value) -> Result<Program, ProgramError> {
        if !case.is_object() {
            return Err(ProgramError::syntax(
                0,
                &format!("an infer case is an object, not {case}"),
            ));
        }
        if case.get("cases").is_some() && case.get("tensors").is_none() {
            return Err(ProgramError::syntax(
                0,
                "this is a case file, not an infer case: run its cases with `einrow check`",
            ));
        }
        let len = |key: &str| case.get(key).and_then(Value::as_array).map_or(0, Vec::len);
        if len("tensors") + len("steps") > MAX_STATEMENTS {
            let mut e = ProgramError::syntax(
                0,
                &format!(
                    "the case has more than {MAX_STATEMENTS} tensors and steps (a guard on \
                     memory; split the program)"
                ),
            );
            e.code = ErrorCode::Resource;
            return Err(e);
        }
        let mut p = Program::default();
        for (i, t) in list(case, "tensors")?.iter().enumerate() {
            let at = At("tensors", i);
            p.decls.push(read_decl(t, &at).map_err(|e| at.place(e))?);
        }
        for (i, s) in list(case, "steps")?.iter().enumerate() {
            let at = At("steps", i);
            p.stmts.push(read_stmt(s, &at).map_err(|e| at.place(e))?);
        }
        Ok(p)
    }
}

/// Element `at` of a case's `tensors`, as a declaration.
fn read_decl(t: &Value, at: &At) -> Result<Decl, ProgramError> {
    let i = at.1;
    let name = required_str(t, "name", at)?;
    let values = match t.get("values") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            super::compare::f64_list(v)
                .ok_or_else(|| wrong_type(Some(at), "values", "a list of numbers", v))?,
        ),
    };
    Ok(Decl {
        name: name.into(),
        shape: optional_str(t, "shape", at)?,
        param: match t.get("param") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(v) => return Err(wrong_type(Some(at), "param", "true or false", v)),
        },
        values,
        line: i,
    })
}

/// Element `at` of a case's `steps`, as a statement.
fn read_stmt(s: &Value, at: &At) -> Result<Stmt, ProgramError> {
    let i = at.1;
    let op_name = required_str(s, "op", at)?;
    let op = op_from_name(op_name).ok_or_else(|| {
        let mut e = ProgramError::syntax(0, &format!("{at}: unknown op {op_name:?}"));
        e.code = ErrorCode::Name;
        e.help = closest(op_name, OP_NAMES).map(|near| format!("did you mean `{near}`?"));
        e
    })?;
    let args = list(s, "args")
        .map_err(|e| ProgramError::syntax(0, &format!("{at}: {}", e.message)))?
        .iter()
        .enumerate()
        .map(|(k, a)| {
            a.as_str().map(String::from).ok_or_else(|| {
                let what = format!("args[{k}]");
                ProgramError::syntax(0, &format!("{at}.{what} must be a tensor name, not {a}"))
            })
        })
        .collect::<Result<Vec<String>, _>>()?;
    if let Some(n) = named_arity(op_name).filter(|n| *n != args.len()) {
        return Err(ProgramError::arity(0, &format!("{at}: "), op_name, n, args.len()));
    }
    Ok(Stmt {
        op,
        out: required_str(s, "out", at)?.into(),
        args,
        spec: optional_str(s, "spec", at)?,
        accum: optional_str(s, "accum", at)?,
        combine: optional_str(s, "combine", at)?,
        line: i,
    })
}

/// A required list member.
fn list<'a>(v: &'a Value, key: &str) -> Result<&'a [Value], ProgramError> {
    match v.get(key) {
        None => Err(ProgramError::syntax(0, &format!("no {key:?} list"))),
        Some(Value::Array(items)) => Ok(items),
        Some(other) => Err(wrong_type(None, key, "a list", other)),
    }
}

/// A required string member of the object at `at`.
fn required_str<'a>(v: &'a Value, key: &str, at: &At) -> Result<&'a str, ProgramError> {
    match v.get(key) {
        Some(Value::String(s)) => Ok(s),
        None if v.is_object() => Err(ProgramError::syntax(0, &format!("{at} has no {key:?}"))),
        None => Err(ProgramError::syntax(0, &format!("{at} must be an object, not {v}"))),
        Some(other) => Err(wrong_type(Some(at), key, "a string", other)),
    }
}

/// An optional string member (absent or `null`: `None`).
fn optional_str(v: &Value, key: &str, at: &At) -> Result<Option<String>, ProgramError> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(wrong_type(Some(at), key, "a string or null", other)),
    }
}

/// Where in a case a member is: an element of the list `.0` (written only for an error).
struct At(&'static str, usize);

impl At {
    /// The error placed at this element: its JSON pointer (`/steps/2`).
    fn place(&self, mut e: ProgramError) -> ProgramError {
        e.pointer = Some(format!("/{}/{}", self.0, self.1));
        e
    }
}

impl std::fmt::Display for At {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}[{}]", self.0, self.1)
    }
}

fn wrong_type(at: Option<&At>, key: &str, what: &str, got: &Value) -> ProgramError {
    let place = match at {
        None => format!("{key:?}"),
        Some(at) => format!("{at}.{key}"),
    };
    let mut shown = got.to_string();
    if shown.len() > 40 {
        let cut = (0..=40).rev().find(|&i| shown.is_char_boundary(i)).unwrap_or(0);
        shown.truncate(cut);
        shown.push('…');
    }
    ProgramError::syntax(0, &format!("{place} must be {what}, not {shown}"))
}
