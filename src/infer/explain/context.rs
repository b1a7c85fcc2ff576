//! What an explanation knows of the program a graph was built from: each tensor's and step's
//! line, the lines' text, the file.

use crate::diagnostic::{Diagnostic, Location, Role, Source};
use crate::ids::{StepId, TensorId};
use crate::infer::program::Program;
use crate::infer::source::{decl_spans, stmt_spans, StmtSpans};
use crate::span::Span;

/// The program behind a graph, for naming lines in diagnostics. The graph must have been
/// built by [`Program::build`]: its tensors are the declarations in order, then each
/// statement's result, and its step `k` is statement `k`.
#[derive(Clone, Copy, Default, Debug)]
pub struct Context<'a> {
    /// The program.
    pub program: Option<&'a Program>,
    /// Its text (a text program): locations then quote lines and put carets in them.
    pub source: Option<&'a Source<'a>>,
    /// The file it was read from.
    pub file: Option<&'a str>,
    /// The line (text) or list index (case) of the declaration or statement that failed, as
    /// [`Built::result`](crate::infer::program::Built::result) gives it.
    pub line: Option<usize>,
    /// Whether the program is an `infer` case, whose "lines" are indices in its lists.
    pub case: bool,
    /// Whether `line` is a declaration's (else a statement's).
    pub declaration: bool,
    /// Whether the graph is one spec given alone over operands given apart (`einrow run
    /// SPEC`): the user wrote no statement, so none is quoted (its result's name would be
    /// the graph's own).
    pub spec_alone: bool,
}

impl<'a> Context<'a> {
    /// The line of a tensor's declaration or defining statement.
    pub fn tensor_line(&self, t: TensorId) -> Option<usize> {
        let p = self.program?;
        match p.decls.get(t.index()) {
            Some(d) => Some(d.line),
            None => p.stmts.get(t.index() - p.decls.len()).map(|s| s.line),
        }
    }

    /// The line of a step's statement.
    pub fn step_line(&self, s: StepId) -> Option<usize> {
        self.program?.stmts.get(s.index()).map(|s| s.line)
    }

    /// Whether lines are lines of a text (not indices in a case's lists).
    fn has_text(&self) -> bool {
        self.program.is_some() && !self.case
    }

    /// The text of line `n`.
    pub fn line_text(&self, n: usize) -> Option<&'a str> {
        self.source?.line(n)
    }

    /// The spans of the statement on line `n`.
    pub fn stmt_spans(&self, n: usize) -> Option<StmtSpans> {
        self.line_text(n).and_then(stmt_spans)
    }

    /// The span of a declaration's shape on line `n`.
    pub fn decl_shape(&self, n: usize) -> Option<Span> {
        self.line_text(n).and_then(decl_spans).and_then(|d| d.shape)
    }

    /// A place on line `n` (with its text when known), or with no line for a case.
    pub fn at_line(&self, n: Option<usize>, span: Option<Span>) -> Location {
        let mut l = match (n, self.has_text()) {
            (Some(n), true) => match self.line_text(n) {
                Some(text) => Location::on_line(n, text, span),
                None => Location { line: Some(n), ..Location::default() },
            },
            _ => Location::default(),
        };
        if l.line.is_some() {
            l.file = self.file.map(String::from);
        }
        l
    }

    /// How a line is named in a message: `line 8`, `steps[3]`/`tensors[1]` in a case, or
    /// nothing.
    pub fn line_name(&self, n: Option<usize>, stmt: bool) -> Option<String> {
        let n = n?;
        Some(match (self.has_text(), stmt) {
            (true, _) => format!("line {n}"),
            (false, true) if self.program.is_some() => format!("steps[{n}]"),
            (false, false) if self.program.is_some() => format!("tensors[{n}]"),
            _ => return None,
        })
    }

    /// For an `infer` case, whose places have no text: each place without a line or a span
    /// gets the JSON pointer of what it is about (`/tensors/1` for a declaration, `/steps/3`
    /// for a step; the primary place the failing one's). Other diagnostics come back as they
    /// are.
    pub fn positioned(&self, d: Diagnostic) -> Diagnostic {
        self.positioned_at(d, self.line, self.declaration)
    }

    /// [`Context::positioned`] with the failing place given: list index `line` of `tensors`
    /// (a declaration) or of `steps`.
    pub fn positioned_at(
        &self,
        mut d: Diagnostic,
        line: Option<usize>,
        declaration: bool,
    ) -> Diagnostic {
        let Some(p) = self.program.filter(|_| self.case) else { return d };
        let failing =
            line.map(|n| if declaration { format!("/tensors/{n}") } else { format!("/steps/{n}") });
        let unplaced = |l: &Location| l.line.is_none() && l.span.is_none() && l.pointer.is_none();
        match &mut d.primary {
            Some(l) if unplaced(l) => l.pointer = failing.or_else(|| pointer(p, l)),
            Some(_) => {}
            None => {
                d.primary = failing.map(|f| Location { pointer: Some(f), ..Location::default() });
            }
        }
        for l in d.related.iter_mut().filter(|l| unplaced(l)) {
            l.pointer = pointer(p, l);
        }
        // A place still unknown is no place: the diagnostic has none (its note kept).
        if let Some(l) = d.primary.take_if(|l| unplaced(l) && l.text.is_none()) {
            if !l.note.is_empty() {
                d.notes.push(l.note);
            }
        }
        d
    }
}

/// The JSON pointer of a case's place by its tensor: the step that defines it when the place
/// is a step between (`via`), else its declaration, else the step that defines it (the last
/// one, for a name defined again).
fn pointer(p: &Program, l: &Location) -> Option<String> {
    let name = l.tensor.as_deref()?;
    let decl = p.decls.iter().rposition(|d| d.name == name).map(|i| format!("/tensors/{i}"));
    let step = p.stmts.iter().rposition(|s| s.out == name).map(|i| format!("/steps/{i}"));
    if l.role == Role::Via {
        step.or(decl)
    } else {
        decl.or(step)
    }
}
