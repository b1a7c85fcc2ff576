//! Turning a JSON pointer back into a byte span of the JSON text it came from, so errors on a
//! JSON document can point at the offending bytes.

use super::error::{JsonPath, TsError};
use crate::span::Span;

/// A minimal scanner over JSON text that is known to be valid.
struct Scanner<'a> {
    text: &'a [u8],
    pos: usize,
}

impl Scanner<'_> {
    fn skip_ws(&mut self) {
        while self.text.get(self.pos).is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.text.get(self.pos).copied()
    }

    /// Skips a string starting at `pos` (which holds `"`) and returns its raw contents.
    fn string(&mut self) -> Option<&[u8]> {
        let start = self.pos + 1;
        let mut i = start;
        while let Some(&b) = self.text.get(i) {
            match b {
                b'\\' => i += 2,
                b'"' => {
                    self.pos = i + 1;
                    return self.text.get(start..i);
                }
                _ => i += 1,
            }
        }
        None
    }

    /// Skips one value and returns its span.
    fn value(&mut self) -> Option<(usize, usize)> {
        let start = self.pos;
        match self.peek()? {
            b'"' => {
                self.string()?;
            }
            open @ (b'[' | b'{') => {
                let close = if open == b'[' { b']' } else { b'}' };
                self.pos += 1;
                if self.peek()? == close {
                    self.pos += 1;
                } else {
                    loop {
                        if open == b'{' {
                            self.peek()?;
                            self.string()?;
                            self.peek()?;
                            self.pos += 1; // ':'
                        }
                        self.peek()?;
                        self.value()?;
                        match self.peek()? {
                            b',' => self.pos += 1,
                            _ => break,
                        }
                    }
                    self.peek()?;
                    self.pos += 1;
                }
            }
            _ => {
                while self.text.get(self.pos).is_some_and(|b| !b",]} \t\r\n".contains(b)) {
                    self.pos += 1;
                }
            }
        }
        let begin =
            start + self.text.get(start..)?.iter().take_while(|b| b.is_ascii_whitespace()).count();
        Some((begin, self.pos))
    }

    /// Moves to the element `token` of the array or object at `pos`.
    fn enter(&mut self, token: &str) -> Option<()> {
        match self.peek()? {
            b'[' => {
                let index: usize = token.parse().ok()?;
                self.pos += 1;
                for _ in 0..index {
                    self.peek()?;
                    self.value()?;
                    if self.peek()? != b',' {
                        return None;
                    }
                    self.pos += 1;
                }
                (self.peek()? != b']').then_some(())
            }
            b'{' => {
                self.pos += 1;
                loop {
                    self.peek()?;
                    let key = self.string()?.to_vec();
                    self.peek()?;
                    self.pos += 1; // ':'
                    if key == token.as_bytes() {
                        return self.peek().map(|_| ());
                    }
                    self.peek()?;
                    self.value()?;
                    if self.peek()? != b',' {
                        return None;
                    }
                    self.pos += 1;
                }
            }
            _ => None,
        }
    }
}

/// The byte span of the value at `path` in the JSON `text` (`None` when the text is not
/// valid JSON or has no such value; keys with escapes are not matched).
pub fn locate(text: &str, path: &JsonPath) -> Option<Span> {
    serde_json::from_str::<serde_json::Value>(text).ok()?;
    let mut s = Scanner { text: text.as_bytes(), pos: 0 };
    let tokens = path.as_str().split('/').skip(1);
    for token in tokens {
        let token = token.replace("~1", "/").replace("~0", "~");
        s.enter(&token)?;
    }
    let (start, end) = s.value()?;
    Some(Span::new(start, end))
}

impl TsError {
    /// The byte span in `text` (the JSON document that was read) of the offending value.
    pub fn span_in(&self, text: &str) -> Option<Span> {
        locate(text, self.path())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::tensorstore::IndexTransform;

    #[test]
    fn spans_of_pointers() {
        let text = r#"{ "a": [1, {"b": "x\"y", "c": [ 2 , 3 ]}], "d": {} }"#;
        let at = |p: &str| {
            let path =
                p.split('/').skip(1).fold(JsonPath::root(), |acc, t| match t.parse::<usize>() {
                    Ok(i) => acc.index(i),
                    Err(_) => acc.key(t),
                });
            locate(text, &path).map(|s| &text[s.range()])
        };
        assert_eq!(at(""), Some(text));
        assert_eq!(at("/a/0"), Some("1"));
        assert_eq!(at("/a/1/b"), Some(r#""x\"y""#));
        assert_eq!(at("/a/1/c/1"), Some("3"));
        assert_eq!(at("/d"), Some("{}"));
        assert_eq!(at("/a/2"), None);
        assert_eq!(at("/e"), None);
    }

    #[test]
    fn error_span_points_at_the_value() {
        let text = r#"{"input_shape": [3], "output": [{"input_dimension": 0, "stride": "two"}]}"#;
        let e = IndexTransform::from_json_str(text).unwrap_err();
        let span = e.span_in(text).unwrap();
        assert_eq!(&text[span.range()], "\"two\"");
    }
}
