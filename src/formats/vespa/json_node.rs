//! Values of a checked JSON document, read where they lie in its text: a [`Node`] is a span
//! and a type, and its items, members, strings and numbers are read from the text when asked
//! for. Walking a node never fails, since the reader has checked the whole document first.

use std::borrow::Cow;
use std::collections::HashSet;

use super::javanum::parse_double;
use super::json_reader::{bare_key_end, decode_string, is_double, number_end};
use crate::span::Span;

/// A JSON value as Slime types it, with its content read from the text.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Json<'a> {
    Null,
    Bool(bool),
    Long(i64),
    Double(f64),
    Str(Cow<'a, str>),
    /// A list: its items come from [`Node::items`].
    Array,
    /// An object: its members come from [`Node::members`].
    Object,
}

/// The type of a value, known from its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Null,
    Bool,
    Long,
    Double,
    Str,
    Array,
    Object,
}

/// A JSON value of a checked document and where it is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node<'a> {
    text: &'a str,
    kind: Kind,
    pub span: Span,
}

impl<'a> Node<'a> {
    /// The root value of the checked document `text`.
    pub(super) fn root(text: &'a str) -> Node<'a> {
        Cursor { text, pos: 0 }.value()
    }

    /// The value, with a string or number read from the text.
    pub fn value(&self) -> Json<'a> {
        let raw = &self.text[self.span.range()];
        match self.kind {
            Kind::Null => Json::Null,
            Kind::Bool => Json::Bool(raw == "true"),
            Kind::Long => Json::Long(raw.parse().unwrap_or_default()),
            Kind::Double => Json::Double(parse_double(raw).unwrap_or_default()),
            Kind::Str => Json::Str(string_at(self.text, self.span.start as usize, self.span.end)),
            Kind::Array => Json::Array,
            Kind::Object => Json::Object,
        }
    }

    /// Whether the value is a list.
    pub fn is_array(&self) -> bool {
        self.kind == Kind::Array
    }

    /// Whether the value is an object.
    pub fn is_object(&self) -> bool {
        self.kind == Kind::Object
    }

    /// Whether the value is a JSON number.
    pub fn is_number(&self) -> bool {
        matches!(self.kind, Kind::Long | Kind::Double)
    }

    /// Slime's name for the value's type, for messages.
    pub fn type_name(&self) -> &'static str {
        match self.kind {
            Kind::Null => "NIX",
            Kind::Bool => "BOOL",
            Kind::Long => "LONG",
            Kind::Double => "DOUBLE",
            Kind::Str => "STRING",
            Kind::Array => "ARRAY",
            Kind::Object => "OBJECT",
        }
    }

    /// The items of a list, in order (none for other values).
    pub fn items(&self) -> Items<'a> {
        let mut cursor = Cursor { text: self.text, pos: self.span.start as usize + 1 };
        let done = self.kind != Kind::Array || {
            cursor.skip_space();
            cursor.peek() == Some(b']')
        };
        Items { cursor, done }
    }

    /// The first item of a list.
    pub fn first(&self) -> Option<Node<'a>> {
        self.items().next()
    }

    /// The members of an object in order, a repeated key keeping its first value (none for
    /// other values).
    pub fn members(&self) -> Members<'a> {
        Members { raw: self.raw_members(), seen: HashSet::new() }
    }

    /// The value of the member `key` of an object (its first, if repeated).
    pub fn get(&self, key: &str) -> Option<Node<'a>> {
        self.raw_members().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    fn raw_members(&self) -> RawMembers<'a> {
        let mut cursor = Cursor { text: self.text, pos: self.span.start as usize + 1 };
        let done = self.kind != Kind::Object || {
            cursor.skip_space();
            cursor.peek() == Some(b'}')
        };
        RawMembers { cursor, done }
    }
}

/// The items of a list.
pub(crate) struct Items<'a> {
    cursor: Cursor<'a>,
    done: bool,
}

impl<'a> Iterator for Items<'a> {
    type Item = Node<'a>;

    fn next(&mut self) -> Option<Node<'a>> {
        if self.done {
            return None;
        }
        let item = self.cursor.value();
        self.done = !self.cursor.comma();
        Some(item)
    }
}

/// The members of an object, repeats included.
struct RawMembers<'a> {
    cursor: Cursor<'a>,
    done: bool,
}

impl<'a> Iterator for RawMembers<'a> {
    type Item = (Cow<'a, str>, Node<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let key = self.cursor.key();
        self.cursor.skip_space();
        self.cursor.pos += 1; // ':'
        let value = self.cursor.value();
        self.done = !self.cursor.comma();
        Some((key, value))
    }
}

/// The members of an object, each key once (with its first value).
pub(crate) struct Members<'a> {
    raw: RawMembers<'a>,
    /// The keys met so far, borrowed from the text unless they hold escapes.
    seen: HashSet<Cow<'a, str>>,
}

impl<'a> Iterator for Members<'a> {
    type Item = (Cow<'a, str>, Node<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let (key, value) = self.raw.next()?;
            if self.seen.insert(key.clone()) {
                return Some((key, value));
            }
        }
    }
}

/// A position in checked text.
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// Skips the separator after an item or member: whether another follows.
    fn comma(&mut self) -> bool {
        self.skip_space();
        if self.peek() == Some(b',') {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// The value starting here (after any space), leaving the cursor after it.
    fn value(&mut self) -> Node<'a> {
        self.skip_space();
        let start = self.pos;
        let kind = match self.peek() {
            Some(b'"' | b'\'') => {
                self.pos = string_end(self.text, start);
                Kind::Str
            }
            Some(b'{') => {
                self.skip_object();
                Kind::Object
            }
            Some(b'[') => {
                self.skip_array();
                Kind::Array
            }
            Some(b't') => self.word(4, Kind::Bool),
            Some(b'f') => self.word(5, Kind::Bool),
            Some(b'n') => self.word(4, Kind::Null),
            _ => {
                self.pos = number_end(self.text, start);
                if is_double(&self.text[start..self.pos]) {
                    Kind::Double
                } else {
                    Kind::Long
                }
            }
        };
        Node { text: self.text, kind, span: Span::new(start, self.pos) }
    }

    fn word(&mut self, len: usize, kind: Kind) -> Kind {
        self.pos = (self.pos + len).min(self.text.len());
        kind
    }

    fn skip_array(&mut self) {
        let list = Node { text: self.text, kind: Kind::Array, span: Span::new(self.pos, self.pos) };
        let mut items = list.items();
        items.by_ref().for_each(drop);
        self.pos = items.cursor.pos;
        self.skip_space();
        self.pos += 1; // ']'
    }

    fn skip_object(&mut self) {
        let object =
            Node { text: self.text, kind: Kind::Object, span: Span::new(self.pos, self.pos) };
        let mut members = object.raw_members();
        members.by_ref().for_each(drop);
        self.pos = members.cursor.pos;
        self.skip_space();
        self.pos += 1; // '}'
    }

    /// An object key (after any space), leaving the cursor after it.
    fn key(&mut self) -> Cow<'a, str> {
        self.skip_space();
        let start = self.pos;
        if matches!(self.peek(), Some(b'"' | b'\'')) {
            self.pos = string_end(self.text, start);
            return string_at(self.text, start, self.pos as u32);
        }
        self.pos = bare_key_end(self.text, start);
        Cow::Borrowed(&self.text[start..self.pos])
    }
}

/// Where the string literal opening at `start` ends (after its closing quote).
fn string_end(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    let quote = bytes.get(start).copied().unwrap_or(b'"');
    let mut at = start + 1;
    while let Some(&b) = bytes.get(at) {
        at += if b == b'\\' { 2 } else { 1 };
        if b == quote {
            break;
        }
    }
    at.min(text.len())
}

/// The content of the string literal at `start..end`: borrowed unless it holds escapes.
fn string_at(text: &str, start: usize, end: u32) -> Cow<'_, str> {
    let inner = text.get(start + 1..(end as usize).saturating_sub(1)).unwrap_or("");
    if inner.contains('\\') {
        Cow::Owned(decode_string(text, start))
    } else {
        Cow::Borrowed(inner)
    }
}
