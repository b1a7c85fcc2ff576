//! A tolerant JSON reader with the leniencies of Vespa's Slime decoder, keeping a byte span for
//! every value: strings may be single-quoted, object keys may be unquoted (up to `:` or
//! whitespace), numbers are integers unless they contain `.`, `e` or `E`. Unlike Slime, text
//! after the root value is an error, and a repeated key keeps its first value.
//!
//! The document is checked once, building nothing, and then read lazily where it lies (see
//! [`Node`]): memory stays that of the text, whatever the number of values.

use super::error::{Result, VespaError};
use super::javanum::parse_double;
pub(crate) use super::json_node::{Json, Node};
use crate::span::Span;

/// The deepest nesting accepted (deeper documents are a syntax error, not a stack overflow).
const MAX_DEPTH: usize = 512;

/// The most values (numbers, strings, lists and objects, at any depth) a JSON document may
/// hold: twice [`MAX_CELLS`](super::MAX_CELLS), room for the largest tensor in the `values`
/// form. A longer document is a `value` error where the limit is passed.
pub const MAX_JSON_VALUES: usize = 2 * super::MAX_CELLS;

/// Checks that `text` is one JSON document and returns its root, read lazily from the text.
pub(crate) fn read_json(text: &str) -> Result<Node<'_>> {
    read_json_within(text, MAX_JSON_VALUES)
}

/// Checks that `text` is one JSON document of at most `max_values` values and returns its
/// root. Nothing but the text is kept: the returned [`Node`] walks it on demand.
pub(crate) fn read_json_within(text: &str, max_values: usize) -> Result<Node<'_>> {
    let mut r = Reader { text, pos: 0, depth: 0, values: 0, max_values };
    r.value()?;
    r.skip_space();
    if r.pos < text.len() {
        return Err(VespaError::syntax(
            Span::new(r.pos, text.len()),
            "unexpected text after the JSON value",
        ));
    }
    Ok(Node::root(text))
}

/// Decodes the string literal opening at byte `at` of checked text.
pub(super) fn decode_string(text: &str, at: usize) -> String {
    let mut r = Reader { text, pos: at, depth: 0, values: 0, max_values: 0 };
    let mut out = String::new();
    // The text was checked, so decoding cannot fail; a failure would leave the prefix read.
    let _ = r.string(Some(&mut out));
    out
}

struct Reader<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
    /// Values read so far (at most `max_values`).
    values: usize,
    max_values: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn here(&self) -> Span {
        let len =
            self.text.get(self.pos..).and_then(|s| s.chars().next()).map_or(0, char::len_utf8);
        Span::new(self.pos, self.pos + len)
    }

    fn fail(&self, message: impl Into<String>) -> VespaError {
        VespaError::syntax(self.here(), message)
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn expect(&mut self, b: u8) -> Result<()> {
        if self.peek() == Some(b) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.fail(format!("expected '{}'", char::from(b))))
        }
    }

    /// Checks one value.
    fn value(&mut self) -> Result<()> {
        self.skip_space();
        if self.values >= self.max_values {
            return Err(VespaError::value(
                self.here(),
                format!("a tensor JSON document may hold at most {} values", self.max_values),
            ));
        }
        self.values += 1;
        match self.peek() {
            Some(b'"' | b'\'') => self.string(None),
            Some(b'{') => self.nested(Self::object),
            Some(b'[') => self.nested(Self::array),
            Some(b't') => self.word("true"),
            Some(b'f') => self.word("false"),
            Some(b'n') => self.word("null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.fail("expected a JSON value")),
        }
    }

    fn nested(&mut self, f: fn(&mut Self) -> Result<()>) -> Result<()> {
        if self.depth >= MAX_DEPTH {
            return Err(self.fail(format!("JSON nested deeper than {MAX_DEPTH} levels")));
        }
        self.depth += 1;
        let v = f(self);
        self.depth -= 1;
        v
    }

    fn word(&mut self, word: &str) -> Result<()> {
        if self.text.get(self.pos..).is_some_and(|s| s.starts_with(word)) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(self.fail(format!("expected '{word}'")))
        }
    }

    fn number(&mut self) -> Result<()> {
        let start = self.pos;
        self.pos = number_end(self.text, start);
        let token = &self.text[start..self.pos];
        let span = Span::new(start, self.pos);
        let ok = if is_double(token) {
            parse_double(token).is_some()
        } else {
            token.parse::<i64>().is_ok()
        };
        if ok {
            Ok(())
        } else {
            Err(VespaError::syntax(span, format!("'{token}' is not a number")))
        }
    }

    fn array(&mut self) -> Result<()> {
        self.expect(b'[')?;
        self.skip_space();
        if self.peek() != Some(b']') {
            loop {
                self.value()?;
                self.skip_space();
                if self.peek() != Some(b',') {
                    break;
                }
                self.pos += 1;
            }
        }
        self.expect(b']')
    }

    fn object(&mut self) -> Result<()> {
        self.expect(b'{')?;
        self.skip_space();
        if self.peek() != Some(b'}') {
            loop {
                self.skip_space();
                self.key()?;
                self.skip_space();
                self.expect(b':')?;
                self.value()?;
                self.skip_space();
                if self.peek() != Some(b',') {
                    break;
                }
                self.pos += 1;
            }
        }
        self.expect(b'}')
    }

    fn key(&mut self) -> Result<()> {
        if matches!(self.peek(), Some(b'"' | b'\'')) {
            return self.string(None);
        }
        self.pos = bare_key_end(self.text, self.pos);
        Ok(())
    }

    /// Reads a string literal, decoding it into `out` if given.
    fn string(&mut self, mut out: Option<&mut String>) -> Result<()> {
        let start = self.pos;
        let quote = self.peek().unwrap_or(b'"');
        self.pos += 1;
        loop {
            let Some(c) = self.text.get(self.pos..).and_then(|s| s.chars().next()) else {
                return Err(VespaError::syntax(Span::new(start, self.pos), "unterminated string"));
            };
            self.pos += c.len_utf8();
            let c = match c {
                '\\' => self.escape()?,
                c if c == char::from(quote) => return Ok(()),
                c => c,
            };
            if let Some(out) = out.as_deref_mut() {
                out.push(c);
            }
        }
    }

    fn escape(&mut self) -> Result<char> {
        let c = self.peek().ok_or_else(|| self.fail("unterminated escape"))?;
        self.pos += 1;
        Ok(match c {
            b'"' | b'\\' | b'/' | b'\'' => char::from(c),
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => return self.unicode_escape(),
            _ => {
                self.pos -= 1;
                return Err(self.fail(format!("invalid escape '\\{}'", char::from(c))));
            }
        })
    }

    fn unicode_escape(&mut self) -> Result<char> {
        let high = self.hex4()?;
        let code = if (0xd800..0xdc00).contains(&high) {
            if self.text.get(self.pos..).is_some_and(|s| s.starts_with("\\u")) {
                self.pos += 2;
            } else {
                return Err(self.fail("missing low surrogate"));
            }
            let low = self.hex4()?;
            if !(0xdc00..0xe000).contains(&low) {
                return Err(self.fail("missing low surrogate"));
            }
            0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00)
        } else {
            high
        };
        char::from_u32(code).ok_or_else(|| self.fail("unexpected low surrogate"))
    }

    fn hex4(&mut self) -> Result<u32> {
        let digits = self
            .text
            .get(self.pos..self.pos + 4)
            .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()));
        let value = digits
            .and_then(|d| u32::from_str_radix(d, 16).ok())
            .ok_or_else(|| self.fail("invalid \\u escape"))?;
        self.pos += 4;
        Ok(value)
    }
}

/// Where the number token starting at `start` ends.
pub(super) fn number_end(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    let mut end = start;
    while matches!(bytes.get(end), Some(b'0'..=b'9' | b'+' | b'-' | b'.' | b'e' | b'E')) {
        end += 1;
    }
    end
}

/// Whether a number token is a double (else a long), as Slime reads it.
pub(super) fn is_double(token: &str) -> bool {
    token.contains(['.', 'e', 'E'])
}

/// Where the unquoted key starting at `start` ends (at `:`, whitespace or the end).
pub(super) fn bare_key_end(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    let mut end = start;
    while !matches!(bytes.get(end), None | Some(b':' | b' ' | b'\t' | b'\n' | b'\r')) {
        end += 1;
    }
    end
}
