//! A cursor over a literal's value text with Vespa's token rules: Java whitespace is skipped
//! before punctuation, unquoted tokens end at whitespace, `,`, `]`, `}` or `:`, and quoted
//! labels run to the next matching quote (no escapes).

use super::cell::CellType;
use super::error::{Result, VespaError};
use super::javanum::{is_java_whitespace, parse_double, parse_float};
use crate::span::Span;

/// Builds an error from a span and a message (one of the `VespaError` constructors).
pub(crate) type MakeError = fn(Span, String) -> VespaError;

/// A cursor over `text[pos..end]`; every position is a byte offset into the whole text.
#[derive(Clone)]
pub(crate) struct Scanner<'a> {
    text: &'a str,
    pub pos: usize,
    end: usize,
}

impl<'a> Scanner<'a> {
    /// A scanner over `text[start..end]`.
    pub fn new(text: &'a str, start: usize, end: usize) -> Scanner<'a> {
        Scanner { text, pos: start, end }
    }

    /// The end of the scanned range.
    pub fn end(&self) -> usize {
        self.end
    }

    /// The unread text.
    pub fn rest(&self) -> &'a str {
        self.text.get(self.pos..self.end).unwrap_or("")
    }

    /// Whether everything was read.
    pub fn at_end(&self) -> bool {
        self.pos >= self.end
    }

    /// The next character, if any.
    pub fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    /// The span of the next character (empty at the end).
    pub fn here(&self) -> Span {
        Span::new(self.pos, self.pos + self.peek().map_or(0, char::len_utf8))
    }

    /// Skips Java whitespace.
    pub fn skip_space(&mut self) {
        while let Some(c) = self.peek().filter(|c| is_java_whitespace(*c)) {
            self.pos += c.len_utf8();
        }
    }

    /// Skips whitespace and consumes `ch` if it comes next.
    pub fn consume_optional(&mut self, ch: char) -> bool {
        self.skip_space();
        if self.peek() == Some(ch) {
            self.pos += ch.len_utf8();
            true
        } else {
            false
        }
    }

    /// Skips whitespace and consumes `ch`, or fails with a syntax error.
    pub fn consume(&mut self, ch: char) -> Result<()> {
        self.consume_or(ch, VespaError::syntax)
    }

    /// Like [`Scanner::consume`], reporting a wrong character with `wrong` (the end of the text
    /// is always a syntax error).
    pub fn consume_or(&mut self, ch: char, wrong: MakeError) -> Result<()> {
        if self.consume_optional(ch) {
            return Ok(());
        }
        match self.peek() {
            None => Err(VespaError::syntax(
                self.here(),
                format!("expected '{ch}' but got the end of the text"),
            )),
            Some(c) => Err(wrong(self.here(), format!("expected '{ch}' but got '{c}'"))),
        }
    }

    /// After an item of a list closed by `close`: consumes a `,` and tells whether another item
    /// follows. The grammar has no trailing separator, so a `,` right before `close` is a
    /// syntax error at the comma.
    pub fn separator(&mut self, close: char) -> Result<bool> {
        if !self.consume_optional(',') {
            return Ok(false);
        }
        let comma = Span::new(self.pos - 1, self.pos);
        self.skip_space();
        if self.peek() == Some(close) {
            return Err(VespaError::syntax(
                comma,
                format!("a ',' must be followed by another entry, not by '{close}'"),
            ));
        }
        Ok(true)
    }

    /// The position where the unquoted token starting at `from` ends.
    pub fn stop_index(&self, from: usize) -> usize {
        let mut pos = from;
        for c in self.text.get(from..self.end).unwrap_or("").chars() {
            if is_java_whitespace(c) || matches!(c, ',' | ']' | '}' | ':') {
                break;
            }
            pos += c.len_utf8();
        }
        pos
    }

    /// Reads an unquoted token that must be followed by a stop character.
    pub fn token(&mut self) -> Result<(&'a str, Span)> {
        let stop = self.stop_index(self.pos);
        if stop >= self.end {
            return Err(VespaError::syntax(
                Span::new(self.pos, stop),
                "unexpected end of the text: expected ',', ']', '}' or ':' after this",
            ));
        }
        let span = Span::new(self.pos, stop);
        self.pos = stop;
        Ok((self.text.get(span.range()).unwrap_or(""), span))
    }

    /// Reads an unquoted token (a dimension name in an address).
    pub fn identifier(&mut self) -> Result<(String, Span)> {
        self.token().map(|(s, span)| (s.to_string(), span))
    }

    /// Reads a label: `'...'`, `"..."` (up to the next matching quote) or an unquoted token.
    pub fn label(&mut self) -> Result<(String, Span)> {
        for quote in ['\'', '"'] {
            if self.consume_optional(quote) {
                let start = self.pos;
                let Some(len) = self.rest().find(quote) else {
                    return Err(VespaError::syntax(
                        Span::new(start - 1, self.end),
                        format!("a label starting with {quote} must end with another {quote}"),
                    ));
                };
                self.pos = start + len + 1;
                return Ok((
                    self.text[start..start + len].to_string(),
                    Span::new(start - 1, self.pos),
                ));
            }
        }
        self.identifier()
    }

    /// Reads a number for a cell of type `cell` (`Double.parseDouble` for double cells,
    /// `Float.parseFloat` otherwise) and narrows it to the cell type.
    pub fn number(&mut self, cell: CellType) -> Result<(f64, Span)> {
        self.skip_space();
        let (token, span) = self.token()?;
        parse_cell_value(token, cell).map(|v| (v, span)).ok_or_else(|| {
            VespaError::syntax(span, format!("'{token}' is not a valid {cell} number"))
        })
    }
}

/// Parses a cell value as Vespa's literal parser does and narrows it to `cell`.
pub(crate) fn parse_cell_value(token: &str, cell: CellType) -> Option<f64> {
    match cell {
        CellType::Double => parse_double(token),
        _ => parse_float(token).map(|f| cell.narrow_f32(f)),
    }
}
