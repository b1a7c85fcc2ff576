//! A tolerant JSON reader with the leniencies of Vespa's Slime decoder, keeping a byte span for
//! every value: strings may be single-quoted, object keys may be unquoted (up to `:` or
//! whitespace), numbers are integers unless they contain `.`, `e` or `E`. Unlike Slime, text
//! after the root value is an error, and a repeated key keeps its first value.

use std::collections::HashSet;

use super::error::{Result, VespaError};
use super::javanum::parse_double;
use crate::span::Span;

/// The deepest nesting accepted (deeper documents are a syntax error, not a stack overflow).
const MAX_DEPTH: usize = 512;

/// The most values (numbers, strings, lists and objects, at any depth) a JSON document may
/// hold: twice [`MAX_CELLS`](super::MAX_CELLS), room for the largest tensor in the `values`
/// form. The document is read into a tree of about 40 bytes a value before it is decoded, so
/// a longer one is a `value` error where the limit is passed, not an allocation failure.
pub const MAX_JSON_VALUES: usize = 2 * super::MAX_CELLS;

/// A JSON value as Slime types it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Long(i64),
    Double(f64),
    Str(String),
    Array(Vec<Node>),
    Object(Vec<(String, Node)>),
}

/// A JSON value and where it is in the document.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Node {
    pub value: Json,
    pub span: Span,
}

impl Node {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Json::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Slime's name for the value's type, for messages.
    pub fn type_name(&self) -> &'static str {
        match self.value {
            Json::Null => "NIX",
            Json::Bool(_) => "BOOL",
            Json::Long(_) => "LONG",
            Json::Double(_) => "DOUBLE",
            Json::Str(_) => "STRING",
            Json::Array(_) => "ARRAY",
            Json::Object(_) => "OBJECT",
        }
    }

    /// Whether the value is a JSON number.
    pub fn is_number(&self) -> bool {
        matches!(self.value, Json::Long(_) | Json::Double(_))
    }
}

/// Reads one JSON document.
pub(crate) fn read_json(text: &str) -> Result<Node> {
    read_json_within(text, MAX_JSON_VALUES)
}

/// Reads one JSON document of at most `max_values` values.
pub(crate) fn read_json_within(text: &str, max_values: usize) -> Result<Node> {
    let mut r = Reader { text, pos: 0, depth: 0, values: 0, max_values };
    let root = r.value()?;
    r.skip_space();
    if r.pos < text.len() {
        return Err(VespaError::syntax(
            Span::new(r.pos, text.len()),
            "unexpected text after the JSON value",
        ));
    }
    Ok(root)
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

    fn value(&mut self) -> Result<Node> {
        self.skip_space();
        let start = self.pos;
        if self.values >= self.max_values {
            return Err(VespaError::value(
                self.here(),
                format!("a tensor JSON document may hold at most {} values", self.max_values),
            ));
        }
        self.values += 1;
        let value = match self.peek() {
            Some(b'"' | b'\'') => Json::Str(self.string()?),
            Some(b'{') => self.nested(Self::object)?,
            Some(b'[') => self.nested(Self::array)?,
            Some(b't') => self.word("true", Json::Bool(true))?,
            Some(b'f') => self.word("false", Json::Bool(false))?,
            Some(b'n') => self.word("null", Json::Null)?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            _ => return Err(self.fail("expected a JSON value")),
        };
        Ok(Node { value, span: Span::new(start, self.pos) })
    }

    fn nested(&mut self, f: fn(&mut Self) -> Result<Json>) -> Result<Json> {
        if self.depth >= MAX_DEPTH {
            return Err(self.fail(format!("JSON nested deeper than {MAX_DEPTH} levels")));
        }
        self.depth += 1;
        let v = f(self);
        self.depth -= 1;
        v
    }

    fn word(&mut self, word: &str, value: Json) -> Result<Json> {
        if self.text.get(self.pos..).is_some_and(|s| s.starts_with(word)) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.fail(format!("expected '{word}'")))
        }
    }

    fn number(&mut self) -> Result<Json> {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9' | b'+' | b'-' | b'.' | b'e' | b'E')) {
            self.pos += 1;
        }
        let token = &self.text[start..self.pos];
        let span = Span::new(start, self.pos);
        let bad = || VespaError::syntax(span, format!("'{token}' is not a number"));
        if token.contains(['.', 'e', 'E']) {
            parse_double(token).map(Json::Double).ok_or_else(bad)
        } else {
            token.parse::<i64>().map(Json::Long).map_err(|_| bad())
        }
    }

    fn array(&mut self) -> Result<Json> {
        self.expect(b'[')?;
        let mut items = Vec::new();
        self.skip_space();
        if self.peek() != Some(b']') {
            loop {
                items.push(self.value()?);
                self.skip_space();
                if self.peek() != Some(b',') {
                    break;
                }
                self.pos += 1;
            }
        }
        self.expect(b']')?;
        Ok(Json::Array(items))
    }

    fn object(&mut self) -> Result<Json> {
        self.expect(b'{')?;
        let mut members: Vec<(String, Node)> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        self.skip_space();
        if self.peek() != Some(b'}') {
            loop {
                self.skip_space();
                let key = self.key()?;
                self.skip_space();
                self.expect(b':')?;
                let value = self.value()?;
                if seen.insert(key.clone()) {
                    members.push((key, value));
                }
                self.skip_space();
                if self.peek() != Some(b',') {
                    break;
                }
                self.pos += 1;
            }
        }
        self.expect(b'}')?;
        Ok(Json::Object(members))
    }

    fn key(&mut self) -> Result<String> {
        if matches!(self.peek(), Some(b'"' | b'\'')) {
            return self.string();
        }
        let start = self.pos;
        while !matches!(self.peek(), None | Some(b':' | b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
        Ok(self.text.get(start..self.pos).unwrap_or("").to_string())
    }

    fn string(&mut self) -> Result<String> {
        let start = self.pos;
        let quote = self.peek().unwrap_or(b'"');
        self.pos += 1;
        let mut out = String::new();
        loop {
            let Some(c) = self.text.get(self.pos..).and_then(|s| s.chars().next()) else {
                return Err(VespaError::syntax(Span::new(start, self.pos), "unterminated string"));
            };
            self.pos += c.len_utf8();
            match c {
                '\\' => out.push(self.escape()?),
                c if c == char::from(quote) => return Ok(out),
                c => out.push(c),
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
