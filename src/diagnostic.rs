//! Rendering errors for people: the message with its code, then the source line with carets
//! under the offending text and notes under related spans.

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
    if labels.is_empty() {
        return out;
    }
    let width = source.chars().count();
    out.push_str(&format!("  | {source}\n"));
    for label in labels {
        let start = char_column(source, label.span.start as usize);
        let end = char_column(source, label.span.end as usize).max(start + 1);
        let pad = " ".repeat(start.min(width + 1));
        let carets = "^".repeat(end - start);
        let note = if label.note.is_empty() { String::new() } else { format!(" {}", label.note) };
        out.push_str(&format!("  | {pad}{carets}{note}\n"));
    }
    out
}

/// The column (in characters) of byte offset `byte`, clamped to the text.
fn char_column(source: &str, byte: usize) -> usize {
    let byte = byte.min(source.len());
    source.char_indices().take_while(|(i, _)| *i < byte).count()
}
