//! Checks of a program before it is built: every operand names a tensor (with "did you mean"),
//! every op has its operand count, every spec parses and fits its operands, and no name is
//! defined twice (a warning: the later definition wins).

use std::collections::HashMap;

use super::spec::{einsum_lints, numpy_lints};
use crate::code::ErrorCode;
use crate::diagnostic::{closest, Diagnostic, Lint, Location, Severity, Source};
use crate::infer::latest::Latest;
use crate::infer::program::{Program, Stmt};
use crate::infer::program::{AHEAD, NAME_BYTES};
use crate::infer::source::{decl_spans, stmt_spans, StmtSpans};
use crate::infer::OpKind;
use crate::span::Span;
use crate::spec::{parse_einsum, parse_numpy};

/// The most diagnostics of each severity [`check_program`] lists; one more says how many
/// were left out.
pub const MAX_LISTED: usize = 100;

/// Hashes the short names of a program quickly.
type Hasher = foldhash::fast::RandomState;

/// The diagnostics of a program before it is built: errors (an unknown tensor, a wrong operand
/// count, a spec that does not parse or does not fit its operands) and warnings (a name
/// defined again, a result label no operand has). `source` is the program's text (`None` for
/// an `infer` case, whose statements have no line text): locations then point into it.
///
/// A program without errors here still fails to build when its shapes disagree; one with
/// errors here would fail at its first error, and this lists them all (up to [`MAX_LISTED`]).
///
/// ```
/// use einrow::infer::program::Program;
/// use einrow::diagnostic::Source;
/// use einrow::lint::check_program;
///
/// let text = "tensor act: 2,3\ntensor w: 3,4\nc = einsum \"ij,jk=>ik\" act w\nd = pointwise c acts\n";
/// let found = check_program(&Program::parse_text(text)?, Some(&Source::new(text)));
/// let codes: Vec<String> = found.iter().map(|d| d.code.to_string()).collect();
/// assert_eq!(codes, ["arity", "name"]);
/// assert_eq!(found[1].help, vec!["did you mean `act`?"]);
/// # Ok::<(), einrow::infer::program::ProgramError>(())
/// ```
pub fn check_program(program: &Program, source: Option<&Source>) -> Vec<Diagnostic> {
    let mut c = Checker { source, list: Vec::new(), left_out: [0, 0], suggestions: 0 };
    // Every definition in build order (each declaration, then each statement's result) by
    // position, and the latest definition of each name known so far.
    let def = Definitions(program);
    let mut known = Latest::with_capacity(program.decls.len() + program.stmts.len(), NAME_BYTES);
    for (k, d) in program.decls.iter().enumerate() {
        if let Some(ahead) = program.decls.get(k + AHEAD) {
            known.prefetch(&ahead.name);
        }
        if let (_, Some(before)) = known.define(&d.name) {
            c.defined_again(&d.name, d.line, def.line(before), None);
        }
    }
    // Where each statement's result is defined, to say "defined later" for a use before
    // (made on the first unknown name). A statement's spans are read only for a diagnostic.
    let mut later: Option<HashMap<&str, usize, Hasher>> = None;
    let mut specs: HashMap<(&str, OpKind, usize), Vec<Diagnostic>, Hasher> = HashMap::default();
    for (k, s) in program.stmts.iter().enumerate() {
        if let Some(ahead) = program.stmts.get(k + AHEAD) {
            ahead.args.iter().for_each(|a| known.prefetch(a));
            known.prefetch(&ahead.out);
        }
        let spans = || source.and_then(|src| src.line(s.line)).and_then(stmt_spans);
        for (j, a) in s.args.iter().enumerate() {
            if known.get(a).is_none() {
                let at = spans().and_then(|sp| sp.args.get(j).copied());
                let later = later.get_or_insert_with(|| {
                    program.stmts.iter().rev().map(|s| (s.out.as_str(), s.line)).collect()
                });
                let so_far = def.before(program.decls.len() + k);
                c.unknown_tensor(a, s.line, at, later.get(a.as_str()).copied(), so_far);
            }
        }
        c.arity(s, &spans);
        if let Some(text) = &s.spec {
            let key = (text.as_str(), s.op, s.args.len());
            let found = specs.entry(key).or_insert_with(|| spec_lints(s, text));
            if !found.is_empty() {
                c.spec(s, text, found, spans().as_ref());
            }
        }
        if let (_, Some(before)) = known.define(&s.out) {
            c.defined_again(&s.out, s.line, def.line(before), spans().map(|sp| sp.out));
        }
    }
    c.finish()
}

/// A program's definitions by position: its declarations, then its statements' results.
#[derive(Clone, Copy)]
struct Definitions<'a>(&'a Program);

impl<'a> Definitions<'a> {
    /// The name and line of the definition at `at`.
    fn at(self, at: usize) -> Option<(&'a str, usize)> {
        let (decls, stmts) = (&self.0.decls, &self.0.stmts);
        match decls.get(at) {
            Some(d) => Some((&d.name, d.line)),
            None => stmts.get(at - decls.len()).map(|s| (s.out.as_str(), s.line)),
        }
    }

    fn line(self, at: usize) -> usize {
        self.at(at).map_or(0, |(_, line)| line)
    }

    /// The names of the definitions before position `end`.
    fn before(self, end: usize) -> impl Iterator<Item = &'a str> + Clone {
        let (decls, stmts) = (&self.0.decls, &self.0.stmts);
        let stmts = &stmts[..end.saturating_sub(decls.len()).min(stmts.len())];
        decls.iter().take(end).map(|d| d.name.as_str()).chain(stmts.iter().map(|s| s.out.as_str()))
    }
}

/// The diagnostics of a statement's spec against its operands, in the spec's own text (made
/// once per spec text, op and operand count).
fn spec_lints(s: &Stmt, text: &str) -> Vec<Diagnostic> {
    let error = |e: crate::spec::SpecError| vec![e.to_diagnostic(text)];
    if s.op == OpKind::Numpy {
        return match parse_numpy(text) {
            Ok(_) if s.args.is_empty() => Vec::new(),
            Ok(spec) => numpy_lints(text, &spec, s.args.len()),
            Err(e) => error(e),
        };
    }
    let slots = match s.op {
        OpKind::Permute => Some(1),
        OpKind::Einsum => Some(2),
        OpKind::Einsum3 => Some(3),
        OpKind::Concat => Some(s.args.len()),
        _ => None,
    };
    match parse_einsum(text) {
        Ok(spec) => einsum_lints(text, &spec, slots),
        Err(e) => error(e),
    }
}

struct Checker<'s, 'a> {
    source: Option<&'s Source<'a>>,
    list: Vec<Diagnostic>,
    left_out: [usize; 2],
    suggestions: usize,
}

/// The most "did you mean" searches one check makes (each reads every known name).
const MAX_SUGGESTIONS: usize = 20;

impl<'a> Checker<'_, 'a> {
    fn line(&self, n: usize) -> Option<&'a str> {
        self.source.and_then(|s| s.line(n))
    }

    fn push(&mut self, d: Diagnostic) {
        if self.listed(d.severity) {
            self.list.push(d);
        }
    }

    /// Whether one more diagnostic of `severity` is listed (if not, it is counted as left out).
    fn listed(&mut self, severity: Severity) -> bool {
        let i = usize::from(severity == Severity::Warning);
        let listed = self.list.iter().filter(|x| x.severity == severity).count() < MAX_LISTED;
        if !listed {
            self.left_out[i] += 1;
        }
        listed
    }

    fn finish(mut self) -> Vec<Diagnostic> {
        for (i, n) in self.left_out.into_iter().enumerate().filter(|(_, n)| *n > 0) {
            let (what, make): (&str, fn(ErrorCode, String) -> Diagnostic) = if i == 0 {
                ("errors", |c, m| Diagnostic::error(c, m))
            } else {
                ("warnings", |c, m| Diagnostic::warning(c, m))
            };
            let code = self.list.iter().rev().find(|d| usize::from(!d.is_error()) == i);
            let code = code.map_or(ErrorCode::Syntax, |d| d.code);
            self.list.push(make(code, format!("{n} more {what} not listed")));
        }
        self.list
    }

    /// A place on line `line` (a text program), or with no text (a case).
    fn place(&self, line: usize, span: Option<Span>) -> Location {
        match self.line(line) {
            Some(text) => Location::on_line(line, text, span),
            None => Location::default(),
        }
    }

    /// The place of statement `line`: on its line (a text program), or at its index in a
    /// case's `steps` (a JSON pointer).
    fn step_place(&self, line: usize, span: Option<Span>) -> Location {
        match self.source {
            Some(_) => self.place(line, span),
            None => Location { pointer: Some(format!("/steps/{line}")), ..Location::default() },
        }
    }

    fn defined_again(&mut self, name: &str, line: usize, before: usize, at: Option<Span>) {
        let at = at.or_else(|| self.line(line).and_then(decl_spans).map(|d| d.name));
        let first = self
            .line(before)
            .and_then(|l| decl_spans(l).map(|d| d.name).or_else(|| stmt_spans(l).map(|s| s.out)));
        let message = format!("`{name}` is defined again: from here on it names this definition");
        let d = Diagnostic::lint(Lint::RedefinedTensor, ErrorCode::Name, message)
            .at(self.place(line, at).with_tensor(name))
            .related(self.place(before, first).with_note(format!("`{name}` was defined here")))
            .help("give the new tensor its own name, unless replacing the old one is meant");
        self.push(d);
    }

    fn unknown_tensor(
        &mut self,
        name: &str,
        line: usize,
        at: Option<Span>,
        later: Option<usize>,
        known: impl Iterator<Item = &'a str> + Clone,
    ) {
        let mut d = Diagnostic::error(ErrorCode::Name, format!("unknown tensor `{name}`"))
            .at(self.step_place(line, at).with_tensor(name));
        match later {
            Some(l) if l > line || self.source.is_none() => {
                d = d
                    .related(self.place(l, None).with_note(format!("`{name}` is defined here")))
                    .help(format!("`{name}` is used before it is defined: define it first"));
            }
            _ if self.suggestions < MAX_SUGGESTIONS => {
                self.suggestions += 1;
                if let Some(near) = closest(name, known) {
                    d = d.help(format!("did you mean `{near}`?"));
                }
            }
            _ => {}
        }
        self.push(d);
    }

    /// The operand count of a statement against its op's.
    fn arity(&mut self, s: &Stmt, spans: &dyn Fn() -> Option<StmtSpans>) {
        let n = s.args.len();
        let (want, ok) = match s.op {
            OpKind::Pointwise => ("1 to 3 operands", (1..=3).contains(&n)),
            OpKind::Compose | OpKind::Einsum => ("2 operands", n == 2),
            OpKind::Transpose | OpKind::Permute | OpKind::BatchSlice => ("1 operand", n == 1),
            OpKind::Einsum3 => ("3 operands", n == 3),
            OpKind::Concat | OpKind::Numpy => ("1 or more operands", n >= 1),
        };
        if ok {
            return;
        }
        let spans = spans();
        let spans = spans.as_ref();
        let name = self.op_name(s, spans);
        let at = spans.map(|sp| {
            let keep = match s.op {
                OpKind::Pointwise => 3,
                OpKind::Compose | OpKind::Einsum => 2,
                OpKind::Einsum3 => 3,
                _ => 1,
            };
            match (sp.args.get(keep), sp.args.last()) {
                (Some(first), Some(last)) => first.join(*last),
                _ => sp.args.last().map_or(sp.op, |l| Span::point(l.end as usize)),
            }
        });
        let message = format!("`{name}` takes {want}, got {n}");
        self.push(Diagnostic::error(ErrorCode::Arity, message).at(self.step_place(s.line, at)));
    }

    fn op_name(&self, s: &Stmt, spans: Option<&StmtSpans>) -> String {
        let written = spans.and_then(|sp| self.line(s.line).and_then(|l| l.get(sp.op.range())));
        written.map_or_else(|| s.op.to_string(), String::from)
    }

    /// The diagnostics of a statement's spec (`found`, in the spec's text), moved onto its
    /// line; those past [`MAX_LISTED`] are only counted (not copied).
    fn spec(&mut self, s: &Stmt, text: &str, found: &[Diagnostic], spans: Option<&StmtSpans>) {
        let offset = spans.and_then(|sp| sp.spec).map(|sp| sp.start as usize);
        for d in found {
            if self.listed(d.severity) {
                let d = self.relocate(d.clone(), s.line, text, offset);
                self.list.push(d);
            }
        }
    }

    /// Moves the places of a diagnostic about the spec `text` onto line `line`, where the
    /// spec starts at `offset`.
    fn relocate(
        &self,
        mut d: Diagnostic,
        line: usize,
        text: &str,
        offset: Option<usize>,
    ) -> Diagnostic {
        let Some((line_text, offset)) = self.line(line).zip(offset) else { return d };
        for p in d.primary.iter_mut().chain(d.related.iter_mut()) {
            if p.text.as_deref() == Some(text) && p.line.is_none() {
                p.line = Some(line);
                p.text = Some(line_text.to_string());
                p.span = p
                    .span
                    .map(|sp| Span::new(sp.start as usize + offset, sp.end as usize + offset));
            }
        }
        d
    }
}
