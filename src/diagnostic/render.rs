//! Rendering diagnostics for people: the message with its severity and code, then the source
//! text with carets under the offending part, notes under related places, and hints.

use super::model::{Diagnostic, Location};
use super::position::{drawn, drawn_column, Position};
use crate::code::ErrorCode;
use crate::span::Span;

/// One labelled place in the source.
#[derive(Clone, Debug)]
pub struct Label {
    /// Where.
    pub span: Span,
    /// What to say there (may be empty).
    pub note: String,
}

/// Renders `error[code]: message` followed by the source with carets under each label.
///
/// ```
/// use einrow::{diagnostic::{render, Label}, ErrorCode, Span};
/// let text = render("ij,,k", ErrorCode::Syntax, "stray `,`", &[Label { span: Span::new(3, 4), note: String::new() }]);
/// assert!(text.contains("   ^"));
/// ```
pub fn render(source: &str, code: ErrorCode, message: &str, labels: &[Label]) -> String {
    let mut out = format!("error[{code}]: {message}\n");
    source_block(&mut out, "  ", source, labels);
    out
}

/// Writes `source` after a `| ` gutter and a line of carets per label (nothing without labels).
/// Tabs are drawn as spaces to the next tab stop, and carets are placed by drawn columns, so
/// they stand under the characters they mark whatever the line holds.
fn source_block(out: &mut String, indent: &str, source: &str, labels: &[Label]) {
    if labels.is_empty() {
        return;
    }
    let width = drawn_column(source, source.len());
    out.push_str(&format!("{indent}| {}\n", drawn(source)));
    for label in labels {
        let start = drawn_column(source, label.span.start as usize);
        let end = drawn_column(source, label.span.end as usize).max(start + 1);
        let pad = " ".repeat(start.min(width + 1));
        let carets = "^".repeat(end - start);
        let note = if label.note.is_empty() { String::new() } else { format!(" {}", label.note) };
        out.push_str(&format!("{indent}| {pad}{carets}{note}\n"));
    }
}

/// The column (from 1, in characters) where a location's span starts.
fn column(l: &Location) -> Option<usize> {
    match (&l.text, l.span) {
        (Some(text), Some(span)) => Some(Position::of(text, span.start as usize, None).column),
        _ => None,
    }
}

/// Where a location is for `-->`: `t.ein:6:13` (file, line, column), `line 6, column 13`,
/// or what of these is known.
fn arrow_place(l: &Location) -> Option<String> {
    let col = column(l);
    match (&l.file, l.line, col) {
        (Some(f), Some(n), Some(c)) => Some(format!("{f}:{n}:{c}")),
        (None, Some(n), Some(c)) => Some(format!("line {n}, column {c}")),
        (Some(f), None, _) => match &l.pointer {
            Some(p) => Some(format!("{f} at {p}")),
            None => Some(f.clone()),
        },
        _ => place(l),
    }
}

/// Where a location is, in words: `t.ein:6`, `line 6`, `/steps/2` (a place in a JSON input),
/// or nothing.
fn place(l: &Location) -> Option<String> {
    match (&l.file, l.line, &l.pointer) {
        (Some(f), Some(n), _) => Some(format!("{f}:{n}")),
        (None, Some(n), _) => Some(format!("line {n}")),
        (_, None, Some(p)) => Some(p.clone()),
        _ => None,
    }
}

fn same_source(a: &Location, b: &Location) -> bool {
    a.text.is_some() && a.text == b.text && a.line == b.line
}

impl Diagnostic {
    /// The diagnostic as text: `error[code]: message`, the primary place's source with carets
    /// (related places in the same text get carets there too, with their notes), then the
    /// notes as `= ` lines (or, when there are none, each other related place as a `= note`
    /// line), and each hint as `= help`.
    ///
    /// With `explain`, the other related places follow the notes as a numbered list, each with
    /// its own source and carets: the chain of places a size travelled through.
    ///
    /// ```
    /// use einrow::diagnostic::{Diagnostic, Location};
    /// use einrow::{ErrorCode, Span};
    ///
    /// let d = Diagnostic::error(ErrorCode::Arity, "`einsum` expects 2 operands, got 3")
    ///     .at(Location::on_line(4, "c = einsum \"ij;jk=>ik\" a b x", Some(Span::new(27, 28))))
    ///     .help("remove the extra operand");
    /// assert_eq!(
    ///     d.render_text(false),
    ///     "error[arity]: `einsum` expects 2 operands, got 3\n  --> line 4, column 28\n  \
    ///      | c = einsum \"ij;jk=>ik\" a b x\n  |                            ^\n  \
    ///      = help: remove the extra operand\n"
    /// );
    /// ```
    pub fn render_text(&self, explain: bool) -> String {
        let mut out = format!("{}[{}]: {}\n", self.severity, self.code_name(), self.message);
        let mut rest: Vec<&Location> = Vec::new();
        match &self.primary {
            Some(p) => {
                if let Some(at) = arrow_place(p) {
                    out.push_str(&format!("  --> {at}\n"));
                }
                let mut labels: Vec<Label> =
                    p.span.iter().map(|&span| Label { span, note: p.note.clone() }).collect();
                for r in &self.related {
                    match r.span {
                        Some(span) if same_source(p, r) => {
                            labels.push(Label { span, note: r.note.clone() });
                        }
                        _ => rest.push(r),
                    }
                }
                match (&p.text, labels.is_empty()) {
                    (Some(text), false) => source_block(&mut out, "  ", text, &labels),
                    (Some(text), true) => out.push_str(&format!("  | {text}\n")),
                    _ => {}
                }
            }
            None => rest.extend(&self.related),
        }
        for n in &self.notes {
            out.push_str(&format!("  = {n}\n"));
        }
        for (i, r) in rest.iter().enumerate() {
            if explain {
                related_block(&mut out, i + 1, r);
            } else if !r.note.is_empty() && self.notes.is_empty() {
                let at = place(r).map(|p| format!(" ({p})")).unwrap_or_default();
                out.push_str(&format!("  = {}{at}\n", r.note));
            }
        }
        for h in &self.help {
            out.push_str(&format!("  = help: {h}\n"));
        }
        out
    }
}

/// One entry of an explained chain: `N. note (line L)` and its source with carets.
fn related_block(out: &mut String, n: usize, r: &Location) {
    let at = place(r).map(|p| format!(" ({p})")).unwrap_or_default();
    let note = if r.note.is_empty() { "here" } else { r.note.as_str() };
    out.push_str(&format!("  {n}. {note}{at}\n"));
    let indent = " ".repeat(4 + n.to_string().len());
    match (&r.text, r.span) {
        (Some(text), Some(span)) => {
            source_block(out, &indent, text, &[Label { span, note: String::new() }]);
        }
        (Some(text), None) => out.push_str(&format!("{indent}| {text}\n")),
        _ => {}
    }
}

impl Diagnostic {
    /// The diagnostic on one line, as compilers print for editors and CI
    /// (`--message-format short`): `FILE:LINE:COL: severity[code]: message`. A place without a
    /// file is `<input>` (a spec given on the command line is line 1 of `<input>`); a
    /// diagnostic with no place is `severity[code]: message` alone.
    ///
    /// ```
    /// use einrow::diagnostic::{Diagnostic, Location};
    /// use einrow::{ErrorCode, Span};
    /// let mut at = Location::on_line(4, "c = einsum \"ij;jk=>ik\" a b x", Some(Span::new(27, 28)));
    /// at.file = Some("m.ein".into());
    /// let d = Diagnostic::error(ErrorCode::Arity, "`einsum` expects 2 operands, got 3").at(at);
    /// assert_eq!(d.render_short(), "m.ein:4:28: error[arity]: `einsum` expects 2 operands, got 3\n");
    /// ```
    pub fn render_short(&self) -> String {
        let head = format!("{}[{}]: {}", self.severity, self.code_name(), self.message);
        let Some(p) = &self.primary else { return format!("{head}\n") };
        let file = p.file.as_deref().unwrap_or("<input>");
        match (p.line, column(p)) {
            (Some(n), Some(c)) => format!("{file}:{n}:{c}: {head}\n"),
            (Some(n), None) => format!("{file}:{n}: {head}\n"),
            (None, Some(c)) => format!("{file}:1:{c}: {head}\n"),
            (None, None) => match (&p.pointer, &p.file) {
                (Some(ptr), _) => format!("{file}:{ptr}: {head}\n"),
                (None, Some(_)) => format!("{file}: {head}\n"),
                (None, None) => format!("{head}\n"),
            },
        }
    }
}
