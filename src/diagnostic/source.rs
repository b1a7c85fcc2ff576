//! A text by line: the lines diagnostics quote.

use std::sync::OnceLock;

/// A text (a program), with its lines found on the first request (a program of millions of
/// lines is indexed only when a diagnostic quotes a line).
#[derive(Debug)]
pub struct Source<'a> {
    text: &'a str,
    starts: OnceLock<Vec<usize>>,
}

impl<'a> Source<'a> {
    /// The lines of `text`.
    pub fn new(text: &'a str) -> Source<'a> {
        Source { text, starts: OnceLock::new() }
    }

    /// Line `n` (from 1) as written, without its line break; `None` past the end.
    pub fn line(&self, n: usize) -> Option<&'a str> {
        let starts = self.starts.get_or_init(|| {
            let breaks = self.text.match_indices('\n').map(|(i, _)| i + 1);
            std::iter::once(0).chain(breaks).collect()
        });
        let start = *starts.get(n.checked_sub(1)?)?;
        let rest = self.text.get(start..)?;
        let line = rest.split('\n').next().unwrap_or_default();
        Some(line.strip_suffix('\r').unwrap_or(line))
    }
}

#[cfg(test)]
mod tests {
    use super::Source;

    #[test]
    fn lines() {
        let s = Source::new("a\r\nb\n\nc");
        assert_eq!(
            (s.line(1), s.line(2), s.line(3), s.line(4)),
            (Some("a"), Some("b"), Some(""), Some("c"))
        );
        assert_eq!((s.line(0), s.line(5)), (None, None));
    }
}
