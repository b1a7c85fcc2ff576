//! Programs: a graph written as text (what `einrow infer` reads) or as an `infer` case, built
//! into a [`Graph`].
//!
//! # The text format
//!
//! One statement per line (there is no separator for two); `#` starts a comment, blank lines
//! are skipped. A statement is a declaration of a leaf or an operation; a line starting with
//! `tensor ` or `param ` is a declaration whatever follows (an `=` or a quote after it belongs
//! to its name or shape, and an error there points into them):
//!
//! ```text
//! tensor NAME                  # a leaf nothing is known about (all three rows open)
//! tensor NAME: SHAPE           # a leaf with a shape string
//! param NAME: SHAPE            # a parameter: its unknowns are never guessed
//! OUT = OP ARG...              # an operation defining the tensor OUT
//! OUT = OP "SPEC" ARG...       # an operation that takes a spec, quoted, before its operands
//! ```
//!
//! `SHAPE` is a shape string as in the [case format](crate::check::format#shared-notations):
//! the rows `batch|input->output`, axes separated by commas, each a size (`3`), a size with a
//! basis (`rgb=3`) or the broadcast top (`1!`), and `...` or `..name..` where a row is open
//! (`...|784` is a batch row of unknown rank and one output axis). Rows not written are empty.
//! A parameter's unknowns are fixed only by the operations it takes part in; what they leave
//! open is an `unresolved` error, except a row of a parameter used only pointwise (a bias),
//! which closes empty. An operand names a tensor declared or defined above; a name defined
//! again refers to its latest definition from then on.
//!
//! # Operations
//!
//! These are all the operations; each name is also the `op` of a step in an `infer` case.
//!
//! | op | operands | spec | result |
//! |---|---|---|---|
//! | `pointwise` | 1 to 3 | none | elementwise: every operand broadcasts into the result, row by row (batch, input, output) |
//! | `pointwise_un` | 1 | none | `pointwise` with one operand |
//! | `pointwise3` | 3 | none | `pointwise` with three operands |
//! | `compose` | 2 | none | matrix-multiply style: the first's input row contracts with the second's output row; the result has the second's input row, the first's output row, and both batch rows broadcast |
//! | `transpose` | 1 | none | swaps the input and output rows |
//! | `batch_slice` | 1 | none | drops the leftmost batch axis |
//! | `permute` | 1 | einsum spec, one operand slot | rearranges, reduces, embeds or takes a diagonal (`ij => ji`, `ii => i`, `i => 0,i`) |
//! | `einsum` | 2 | einsum spec, two slots | OCANNL's einsum: `rhs1; rhs2 => lhs` (`ij;jk=>ik`, `...|i->o; ...|o->h => ...|i->h`) |
//! | `einsum3` | 3 | einsum spec, three slots | the same with three operands (`ij;jk;kl=>il`) |
//! | `concat` | 1 or more | einsum spec, one slot per operand | concatenation along a `^` axis of the result (`i;j=>i^j`) |
//! | `numpy` | 1 or more | numpy subscripts | numpy's einsum (`ij,jk->ik`, `...ij,...jk->...ik`): operands and result are output rows, and labels broadcast as numpy's do (declare numpy's size-1 axes as the broadcast top `1!`) |
//!
//! Einsum specs are OCANNL's labels-spec syntax, parsed by
//! [`parse_einsum`](crate::spec::parse_einsum): each slot has the layout
//! `batch|input->output`, with labels, `_` placeholders, `...` and `..name..` row variables,
//! fixed indices (`0`), strided and convolution axes (`2*o<+k`: a valid convolution covering
//! its input exactly; `2*o=+k`: padded to `stride·o`; `2*o~+k` or `2*o~P+k`: PyTorch's, the
//! output `floor((input + 2P - dilation·(k-1) - 1) / stride) + 1`), concatenations (`a^b`) and
//! flattened axes (`(h*d)`: the labels' sizes multiplied, row-major, so `b,h,d => b,(h*d)` is
//! a reshape and `b,(h*d); h => b,h,d` splits heads; a part is inferred from the flattened
//! size and the other parts). numpy subscripts are parsed by [`parse_numpy`](crate::spec::parse_numpy). A spec whose
//! number of operand slots differs from the number of operands is an `arity` error, and so is
//! an operand count outside the table.
//!
//! In a text program the three pointwise names all take one to three operands; an `infer`
//! case holds `pointwise` to 2, `pointwise_un` to 1 and `pointwise3` to 3.
//!
//! # Example
//!
//! Every operation once, with the shapes `einrow infer` prints for it:
//!
//! ```
//! use einrow::infer::program::Program;
//!
//! let text = r#"
//! tensor x: 8|784
//! param w: ...->128              # sized by inference: 784->128
//! tensor b: 128
//! tensor m: 4,6
//! tensor n: 6,5
//! tensor k: 5,2
//! tensor u: 3
//! tensor v: 2
//! h = compose w x                # 8|128
//! r = pointwise h b              # 8|128: b broadcasts over the batch
//! a = pointwise_un r             # 8|128
//! t = transpose w                # 128->784
//! s = batch_slice x              # 784
//! mt = permute "ij => ji" m      # 6,4
//! mn = einsum "ij;jk=>ik" m n    # 4,5
//! mnk = einsum3 "ij;jk;kl=>il" m n k   # 4,2
//! uv = concat "i;j=>i^j" u v     # 5
//! p = numpy "ij,jk->ik" m n      # 4,5
//! "#;
//! let built = Program::parse_text(text)?.build();
//! built.result.map_err(|(e, _)| e)?;
//! let mut g = built.graph;
//! let shapes: Vec<String> = built
//!     .names
//!     .iter()
//!     .map(|(name, id)| format!("{name}: {}", g.shape_string(*id).unwrap()))
//!     .collect();
//! assert_eq!(shapes[1], "w: 784->128");
//! assert_eq!(shapes[8..].join("; "), "h: 8|128; r: 8|128; a: 8|128; t: 128->784; s: 784; \
//!     mt: 6,4; mn: 4,5; mnk: 4,2; uv: 5; p: 4,5");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Errors
//!
//! A program that cannot be read is a [`ProgramError`] with its line (`syntax`, or `arity` for
//! an `infer` case step with the wrong operand count). Building it reports the first failing
//! statement's [`InferError`] with its line: an unknown operand is a `name` error, and every
//! shape error carries the [`ErrorCode`] of the [case format](crate::check::format#error-codes).
//! `einrow infer --explain` prints the chain of constraints behind a shape error.
//!
//! # `infer` cases
//!
//! [`Program::from_case`] reads the same program from the JSON of an `infer` case
//! (`"tensors"` and `"steps"`), which may also give leaf `values` and each step's `accum` and
//! `combine`, for running it; `einrow infer` accepts such a file too.

use super::error::InferError;
use super::graph::Graph;
use super::latest::Latest;
use super::op::OpKind;
use super::source::{code_of, declaration_rest};
use crate::code::ErrorCode;
use crate::diagnostic::{closest, Diagnostic, Location};
use crate::ids::TensorId;
use crate::span::Span;

/// A leaf declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct Decl {
    /// The tensor's name.
    pub name: String,
    /// Its shape string, `None` when nothing is known.
    pub shape: Option<String>,
    /// Whether it is a parameter.
    pub param: bool,
    /// Leaf data (flat, memory order), for running the program.
    pub values: Option<Vec<f64>>,
    /// The 1-based source line (text programs) or index in `tensors` (cases).
    pub line: usize,
}

/// An operation statement.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// The operation.
    pub op: OpKind,
    /// The name of the tensor it defines.
    pub out: String,
    /// Operand names.
    pub args: Vec<String>,
    /// The spec of spec operations.
    pub spec: Option<String>,
    /// Accumulation (`+`, `*`, `max`, `min`), for running.
    pub accum: Option<String>,
    /// Combine (`*`, `+`, …), for running.
    pub combine: Option<String>,
    /// The 1-based source line (text programs) or index in `steps` (cases).
    pub line: usize,
}

/// A whole program.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Program {
    /// Leaves, in order.
    pub decls: Vec<Decl>,
    /// Operations, in order.
    pub stmts: Vec<Stmt>,
}

/// A built program: the graph, each name's tensor, and the outcome.
#[derive(Debug)]
pub struct Built {
    /// The graph (partially solved when `result` is an error).
    pub graph: Graph,
    /// Each name's tensor, in definition order (a name defined again appears again).
    pub names: Vec<(String, TensorId)>,
    /// The first error and the line (text) or list index (case) of its declaration or
    /// statement. When a declaration failed, `names` is shorter than the program's `decls`.
    pub result: Result<(), (InferError, Option<usize>)>,
    /// Each name's latest definition, numbered as `names`.
    latest: Latest,
}

impl Built {
    /// The tensor a name denotes: its latest definition (as built: `None` for a name whose
    /// entry of `names` was changed since).
    pub fn tensor(&self, name: &str) -> Option<TensorId> {
        let (n, t) = self.names.get(self.latest.get(name)?)?;
        (n == name).then_some(*t)
    }
}

/// A program that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramError {
    /// 1-based line (0 for JSON documents).
    pub line: usize,
    /// What is wrong.
    pub message: String,
    /// Its class: `syntax`, `name` for an unknown op, `arity` for a step with the wrong
    /// number of operands, or `resource` for a text past [`MAX_STATEMENTS`].
    pub code: ErrorCode,
    /// The offending text: a byte range of the line as written (text programs).
    pub span: Option<Span>,
    /// A hint (`did you mean `pointwise`?`).
    pub help: Option<String>,
    /// Where in a JSON document (an `infer` case) the error is, as a JSON pointer
    /// (`/steps/2`).
    pub pointer: Option<String>,
}

impl std::fmt::Display for ProgramError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: ", self.line)?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for ProgramError {}

impl crate::code::Coded for ProgramError {
    fn code(&self) -> ErrorCode {
        self.code
    }
}

impl ProgramError {
    pub(crate) fn syntax(line: usize, message: &str) -> ProgramError {
        ProgramError {
            line,
            message: message.into(),
            code: ErrorCode::Syntax,
            span: None,
            help: None,
            pointer: None,
        }
    }

    /// The error for an op written with the wrong operand count (`op` fixes `expected`).
    pub(crate) fn arity(
        line: usize,
        at: &str,
        op: &str,
        expected: usize,
        got: usize,
    ) -> ProgramError {
        let s = if expected == 1 { "" } else { "s" };
        let message = format!("{at}`{op}` expects {expected} operand{s}, got {got}");
        ProgramError {
            line,
            message,
            code: ErrorCode::Arity,
            span: None,
            help: None,
            pointer: None,
        }
    }

    fn at(mut self, span: Span) -> ProgramError {
        self.span = Some(span);
        self
    }

    /// The error as a diagnostic; `line_text` is its line as written (text programs), which the
    /// span points into.
    pub fn to_diagnostic(&self, line_text: Option<&str>) -> Diagnostic {
        let mut d = Diagnostic::error(self.code, self.message.clone());
        if self.line > 0 {
            let text = line_text.unwrap_or_default();
            d = d.at(Location::on_line(self.line, text, self.span));
            if line_text.is_none() {
                if let Some(p) = &mut d.primary {
                    p.text = None;
                }
            }
        }
        if let (0, Some(p)) = (self.line, &self.pointer) {
            d = d.at(Location { pointer: Some(p.clone()), ..Location::default() });
        }
        d.help.extend(self.help.clone());
        d
    }
}

/// The operand count an op name fixes in the text format, where `pointwise` takes any number
/// of operands: `pointwise_un` 1, `pointwise3` 3.
pub(crate) fn text_arity(name: &str) -> Option<usize> {
    match name {
        "pointwise_un" => Some(1),
        "pointwise3" => Some(3),
        _ => None,
    }
}

/// Every op name of programs and cases.
pub const OP_NAMES: [&str; 11] = [
    "pointwise",
    "pointwise_un",
    "pointwise3",
    "compose",
    "transpose",
    "batch_slice",
    "permute",
    "einsum",
    "einsum3",
    "concat",
    "numpy",
];

/// The op named in a program or case (`pointwise_un`, `pointwise3` are pointwise).
pub fn op_from_name(name: &str) -> Option<OpKind> {
    Some(match name {
        "pointwise" | "pointwise_un" | "pointwise3" => OpKind::Pointwise,
        "compose" => OpKind::Compose,
        "transpose" => OpKind::Transpose,
        "einsum" => OpKind::Einsum,
        "permute" => OpKind::Permute,
        "einsum3" => OpKind::Einsum3,
        "concat" => OpKind::Concat,
        "batch_slice" => OpKind::BatchSlice,
        "numpy" => OpKind::Numpy,
        _ => return None,
    })
}

impl Program {
    /// Reads the text format. `pointwise` takes any number of operands; `pointwise_un` and
    /// `pointwise3` must have 1 and 3 (an `arity` error saying so); other ops check their
    /// operands when built.
    ///
    /// A program of more than [`MAX_STATEMENTS`] declarations and statements is a `resource`
    /// error at the first line past the limit.
    pub fn parse_text(text: &str) -> Result<Program, ProgramError> {
        let mut p = Program::default();
        for (i, raw) in text.lines().enumerate() {
            // The code before a comment, trimmed (a byte-order mark some editors write first
            // is not part of it); spans are into the line as written: it starts `at` bytes in.
            // Diagnostics find the parts of a line again the same way (`super::source`).
            let (at, line) = code_of(raw);
            if line.is_empty() {
                continue;
            }
            if p.decls.len() + p.stmts.len() == MAX_STATEMENTS {
                return Err(too_many_statements(i + 1).at(Span::new(at, at + line.len())));
            }
            let err = |m: &str| ProgramError::syntax(i + 1, m);
            if let Some(rest) = declaration_rest(line) {
                let param = line.starts_with("param");
                let (name, shape) = match rest.split_once(':') {
                    Some((n, s)) => (n.trim(), Some(s.trim().to_string())),
                    None => (rest.trim(), None),
                };
                if name.is_empty() {
                    return Err(
                        err("a declaration needs a name").at(Span::new(at, at + line.len()))
                    );
                }
                p.decls.push(Decl { name: name.into(), shape, param, values: None, line: i + 1 });
                continue;
            }
            let Some((out, rhs)) = line.split_once('=') else {
                return Err(not_a_statement(i + 1, line, at));
            };
            let rhs_at = at + out.len() + 1 + (rhs.len() - rhs.trim_start().len());
            p.stmts.push(parse_stmt(out.trim(), rhs.trim(), i + 1, rhs_at)?);
        }
        Ok(p)
    }

    /// Builds the graph, propagating each step, and solves it. Returns the graph (also on
    /// failure, for rendering), each name's tensor, and the first error with the failing
    /// declaration's or statement's line; a dimension mismatch comes
    /// [traced](super::explain::trace) (each size with the declaration that wrote it). A name defined again denotes its latest definition
    /// from then on (found in a map: building is linear in the program).
    pub fn build(&self) -> Built {
        let mut g = Graph::new();
        let count = self.decls.len() + self.stmts.len();
        let mut names: Vec<(String, TensorId)> = Vec::with_capacity(count);
        let mut latest = Latest::with_capacity(count, NAME_BYTES);
        let mut result = self
            .build_into(&mut g, &mut names, &mut latest)
            .and_then(|()| g.solve().map_err(|e| (e, None)));
        // Where each size of a mismatch came from: walked once, for the error reported.
        if let Err((e, _)) = &mut result {
            super::explain::trace(&g, e);
        }
        Built { graph: g, names, result, latest }
    }

    fn build_into(
        &self,
        g: &mut Graph,
        names: &mut Vec<(String, TensorId)>,
        latest: &mut Latest,
    ) -> Result<(), (InferError, Option<usize>)> {
        for (k, d) in self.decls.iter().enumerate() {
            if let Some(ahead) = self.decls.get(k + AHEAD) {
                latest.prefetch(&ahead.name);
            }
            let id =
                g.declare(&d.name, d.shape.as_deref(), d.param).map_err(|e| (e, Some(d.line)))?;
            names.push((d.name.clone(), id));
            latest.define(&d.name);
        }
        for (k, s) in self.stmts.iter().enumerate() {
            if let Some(ahead) = self.stmts.get(k + AHEAD) {
                ahead.args.iter().for_each(|a| latest.prefetch(a));
                latest.prefetch(&ahead.out);
            }
            let mut args = Vec::with_capacity(s.args.len());
            for a in &s.args {
                let id = latest.get(a).and_then(|at| names.get(at)).map(|(_, t)| *t);
                let id = id
                    .ok_or_else(|| (InferError::UnknownTensor { name: a.clone() }, Some(s.line)))?;
                args.push(id);
            }
            let id = g
                .add_named_step(&s.out, s.op, &args, s.spec.as_deref())
                .map_err(|e| (e, Some(s.line)))?;
            names.push((s.out.clone(), id));
            latest.define(&s.out);
        }
        Ok(())
    }
}

/// The most declarations and statements a program holds, as text or as an `infer` case
/// (building one takes about 500 bytes a statement, 1 GiB at this limit; the text reader stops
/// at the line past it).
pub const MAX_STATEMENTS: usize = 1 << 21;

fn too_many_statements(line: usize) -> ProgramError {
    ProgramError {
        line,
        message: format!(
            "the program has more than {MAX_STATEMENTS} declarations and statements (a guard \
             on memory; split the program)"
        ),
        code: ErrorCode::Resource,
        span: None,
        help: None,
        pointer: None,
    }
}

/// How many statements ahead the names a statement uses are looked up early, so that their
/// slots are in the cache when it comes to them.
pub(crate) const AHEAD: usize = 4;

/// The bytes a typical name takes, for reserving room for the names of a program.
pub(crate) const NAME_BYTES: usize = 8;

/// The error for a line that is neither a declaration nor `name = op args`, with a hint when
/// its first word is a misspelt `tensor` or `param`.
fn not_a_statement(line: usize, text: &str, at: usize) -> ProgramError {
    let word = text.split_whitespace().next().unwrap_or("");
    let mut e = ProgramError::syntax(line, "expected `name = op args` or a declaration")
        .at(Span::new(at, at + text.len()));
    if let Some(kw) = closest(word, ["tensor", "param"]) {
        e.help = Some(format!("did you mean `{kw}`?"));
        e.span = Some(Span::new(at, at + word.len()));
    }
    e
}

/// Reads `out = rhs`, where `rhs` starts `at` bytes into the line.
fn parse_stmt(out: &str, rhs: &str, line: usize, at: usize) -> Result<Stmt, ProgramError> {
    let err = |m: &str| ProgramError::syntax(line, m);
    let (op_name, rest) = rhs.split_once(char::is_whitespace).unwrap_or((rhs, ""));
    let op = op_from_name(op_name).ok_or_else(|| {
        let mut e = err(&format!("unknown op `{op_name}`")).at(Span::new(at, at + op_name.len()));
        e.code = ErrorCode::Name;
        e.help = Some(match closest(op_name, OP_NAMES) {
            Some(near) => format!("did you mean `{near}`?"),
            None => format!("the ops are {}", OP_NAMES.join(", ")),
        });
        e
    })?;
    let rest_at = at + rhs.len() - rest.trim_start().len();
    let rest = rest.trim();
    let (spec, rest, args_at) = if op.has_spec() {
        let body = rest.strip_prefix('"').ok_or_else(|| {
            let mut e = err("a spec op takes a quoted spec first")
                .at(Span::new(rest_at, rest_at + rest.len()));
            e.help =
                Some(format!("write the spec in double quotes: `{op_name} \"ij;jk=>ik\" a b`"));
            e
        })?;
        let end = body.find('"').ok_or_else(|| {
            err("unterminated spec string").at(Span::new(rest_at, rest_at + rest.len()))
        })?;
        (Some(body[..end].to_string()), &body[end + 1..], rest_at + end + 2)
    } else {
        (None, rest, rest_at)
    };
    let args: Vec<String> = rest.split_whitespace().map(String::from).collect();
    if let Some(n) = text_arity(op_name).filter(|n| *n != args.len()) {
        let span = if args.is_empty() {
            Span::new(at, at + op_name.len())
        } else {
            let first = args_at + (rest.len() - rest.trim_start().len());
            Span::new(first, args_at + rest.trim_end().len())
        };
        return Err(ProgramError::arity(line, "", op_name, n, args.len()).at(span));
    }
    Ok(Stmt { op, out: out.into(), args, spec, accum: None, combine: None, line })
}
