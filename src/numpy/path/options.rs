//! What the caller asks of the planner: a strategy ([`Optimize`]) and an optional memory
//! limit ([`MemoryLimit`]), together [`PathOptions`]; with a text form for command lines.

use std::fmt;

use super::error::PathError;
use crate::span::Span;

/// How to choose the order of pairwise contractions.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Optimize {
    /// opt_einsum's greedy heuristic: repeatedly the pair whose result frees the most memory.
    /// Fast for any operand count: the path is opt_einsum's unless more than
    /// [`GREEDY_BUDGET`](super::GREEDY_BUDGET) candidate pairs would be examined (many
    /// operands of distinct label sets sharing summed labels); past that, each new tensor is
    /// compared with at most [`CAPPED_PARTNERS`](super::CAPPED_PARTNERS) live tensors per
    /// shared label (the oldest), so planning stays O(n log n) in the operands.
    Greedy,
    /// The cheapest pairwise path by FLOPs, found exhaustively (up to
    /// [`OPTIMAL_MAX_OPERANDS`](super::OPTIMAL_MAX_OPERANDS) operands).
    Optimal,
    /// opt_einsum's dynamic programming over connected subgraphs (no outer products except
    /// between disconnected parts, or when a memory limit needs them), minimising FLOPs.
    Dp,
    /// einrow's default: the cheapest of the exhaustive search (few operands), dp and greedy
    /// (greedy bounded as under [`Optimize::Greedy`]).
    #[default]
    Auto,
    /// A path given by the caller, in numpy's convention: each step lists positions in the
    /// current operand list; the result is appended at the end.
    Explicit(Vec<Vec<usize>>),
}

impl Optimize {
    /// The strategy's name (`greedy`, `optimal`, `dp`, `auto`, `explicit`).
    pub fn name(&self) -> &'static str {
        match self {
            Optimize::Greedy => "greedy",
            Optimize::Optimal => "optimal",
            Optimize::Dp => "dp",
            Optimize::Auto => "auto",
            Optimize::Explicit(_) => "explicit",
        }
    }

    /// Parses a strategy name or an explicit path (`[[1, 2], [0, 1]]`, also numpy's printed
    /// forms `[(1, 2), (0, 1)]` and `['einsum_path', (1, 2), (0, 1)]`).
    ///
    /// ```
    /// use einrow::numpy::Optimize;
    /// assert_eq!(Optimize::parse("dp").unwrap(), Optimize::Dp);
    /// let p = Optimize::parse("['einsum_path', (1, 2), (0, 1)]").unwrap();
    /// assert_eq!(p, Optimize::Explicit(vec![vec![1, 2], vec![0, 1]]));
    /// ```
    pub fn parse(text: &str) -> Result<Optimize, PathError> {
        Optimize::parse_with_spans(text).map(|(o, _)| o)
    }

    /// [`Optimize::parse`], also returning the span of each explicit step (for
    /// [`PathError::at`]).
    pub fn parse_with_spans(text: &str) -> Result<(Optimize, Vec<Span>), PathError> {
        let trimmed = text.trim();
        let named = match trimmed {
            "greedy" => Some(Optimize::Greedy),
            "optimal" => Some(Optimize::Optimal),
            "dp" => Some(Optimize::Dp),
            "auto" => Some(Optimize::Auto),
            _ => None,
        };
        if let Some(o) = named {
            return Ok((o, Vec::new()));
        }
        if !trimmed.starts_with('[') {
            let start = text.len() - text.trim_start().len();
            let span = Span::new(start, start + trimmed.len());
            return Err(PathError::UnknownStrategy { name: trimmed.to_string(), span });
        }
        let (steps, spans) = PathText { text, at: 0 }.path()?;
        Ok((Optimize::Explicit(steps), spans))
    }
}

impl fmt::Display for Optimize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Optimize::Explicit(steps) => write!(f, "{steps:?}"),
            other => f.write_str(other.name()),
        }
    }
}

/// The most elements an intermediate may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryLimit {
    /// At most this many elements (at least 1).
    Elements(u64),
    /// The size of the largest operand or of the output (opt_einsum's `'max_input'`,
    /// numpy's default limit for its own planner).
    MaxInput,
}

impl MemoryLimit {
    /// Parses `max_input` or a number of elements.
    pub fn parse(text: &str) -> Result<MemoryLimit, PathError> {
        let t = text.trim();
        if t == "max_input" {
            return Ok(MemoryLimit::MaxInput);
        }
        let span = Span::new(0, text.len());
        match t.parse::<u64>() {
            Ok(0) => Err(PathError::ZeroMemoryLimit),
            Ok(n) => Ok(MemoryLimit::Elements(n)),
            Err(_) => {
                Err(PathError::Syntax { expected: "a number of elements or max_input", span })
            }
        }
    }
}

/// Planner options: the strategy and an optional limit on every intermediate's size.
///
/// ```
/// use einrow::numpy::{MemoryLimit, Optimize, PathOptions};
/// let opts = PathOptions::new(Optimize::Optimal).memory_limit(MemoryLimit::Elements(1 << 20));
/// assert_eq!(opts.optimize, Optimize::Optimal);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PathOptions {
    /// The strategy (default [`Optimize::Auto`]).
    pub optimize: Optimize,
    /// A bound on the elements of every intermediate (each step's result but the last, which
    /// is the einsum's output). Strategies keep pairwise steps within it and, when no pairwise
    /// step can continue, end with one step over all remaining operands (opt_einsum's rule;
    /// `dp` reports an error instead); an explicit path over it is an error.
    pub memory_limit: Option<MemoryLimit>,
}

impl PathOptions {
    /// Options with this strategy and no memory limit.
    pub fn new(optimize: Optimize) -> PathOptions {
        PathOptions { optimize, memory_limit: None }
    }

    /// The same options with a memory limit.
    pub fn memory_limit(mut self, limit: MemoryLimit) -> PathOptions {
        self.memory_limit = Some(limit);
        self
    }
}

/// A cursor over the text of an explicit path.
struct PathText<'a> {
    text: &'a str,
    at: usize,
}

impl PathText<'_> {
    fn skip_space(&mut self) {
        let rest = &self.text[self.at..];
        self.at += rest.len() - rest.trim_start().len();
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.text.as_bytes().get(self.at).copied()
    }

    fn error(&self, expected: &'static str) -> PathError {
        let end = self.text[self.at..].chars().next().map_or(self.at, |c| self.at + c.len_utf8());
        PathError::Syntax { expected, span: Span::new(self.at, end) }
    }

    fn expect(&mut self, byte: u8, expected: &'static str) -> Result<(), PathError> {
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.error(expected))
        }
    }

    /// `[` (`'einsum_path'` `,`)? step (`,` step)* `,`? `]`, nothing after.
    fn path(mut self) -> Result<(Vec<Vec<usize>>, Vec<Span>), PathError> {
        self.expect(b'[', "`[`")?;
        if matches!(self.peek(), Some(b'\'' | b'"')) {
            self.einsum_path_tag()?;
        }
        let (mut steps, mut spans) = (Vec::new(), Vec::new());
        while self.peek() != Some(b']') {
            let start = self.at;
            steps.push(self.step()?);
            spans.push(Span::new(start, self.at));
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {}
                _ => return Err(self.error("`,` or `]` after a step")),
            }
        }
        self.at += 1;
        if self.peek().is_some() {
            return Err(self.error("nothing after the path's closing `]`"));
        }
        Ok((steps, spans))
    }

    fn einsum_path_tag(&mut self) -> Result<(), PathError> {
        for quote in [b'\'', b'"'] {
            let tag =
                [quote].iter().chain(b"einsum_path").chain(&[quote]).copied().collect::<Vec<_>>();
            if self.text.as_bytes()[self.at..].starts_with(&tag) {
                self.at += tag.len();
                return self.expect(b',', "`,` after 'einsum_path'");
            }
        }
        Err(self.error("'einsum_path' or a step"))
    }

    /// `[` or `(`, positions separated by commas, the matching bracket.
    fn step(&mut self) -> Result<Vec<usize>, PathError> {
        let close = match self.peek() {
            Some(b'[') => b']',
            Some(b'(') => b')',
            _ => return Err(self.error("a step: `[` or `(`")),
        };
        self.at += 1;
        let mut positions = Vec::new();
        while self.peek() != Some(close) {
            positions.push(self.number()?);
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(c) if c == close => {}
                _ => return Err(self.error("`,` or the step's closing bracket")),
            }
        }
        self.at += 1;
        Ok(positions)
    }

    fn number(&mut self) -> Result<usize, PathError> {
        self.skip_space();
        let digits = self.text[self.at..].bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return Err(self.error("an operand position (a number)"));
        }
        let span = Span::new(self.at, self.at + digits);
        let n = self.text[span.range()]
            .parse()
            .map_err(|_| PathError::Syntax { expected: "a position that fits in usize", span })?;
        self.at += digits;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::{Coded, ErrorCode};

    #[test]
    fn explicit_paths_parse_in_numpys_forms() {
        let want = Optimize::Explicit(vec![vec![0, 2], vec![0, 1]]);
        for text in ["[[0,2],[0,1]]", " [(0, 2), (0, 1)] ", "['einsum_path', (0, 2), (0, 1)]"] {
            assert_eq!(Optimize::parse(text).unwrap(), want, "{text}");
        }
        let (_, spans) = Optimize::parse_with_spans("[[0, 2], [0,1]]").unwrap();
        assert_eq!(spans, vec![Span::new(1, 7), Span::new(9, 14)]);
        assert_eq!(Optimize::parse("[]").unwrap(), Optimize::Explicit(vec![]));
    }

    #[test]
    fn bad_text_points_at_the_fault() {
        let e = Optimize::parse("[[0, x]]").unwrap_err();
        assert_eq!((e.code(), e.span()), (ErrorCode::Syntax, Some(Span::new(5, 6))));
        let e = Optimize::parse("[[0, 1]] 3").unwrap_err();
        assert_eq!(e.span(), Some(Span::new(9, 10)));
        let e = Optimize::parse("fastest").unwrap_err();
        assert_eq!((e.code(), e.span()), (ErrorCode::Value, Some(Span::new(0, 7))));
        let e = Optimize::parse("[[99999999999999999999999]]").unwrap_err();
        assert_eq!(e.code(), ErrorCode::Syntax);
        assert_eq!(MemoryLimit::parse("0").unwrap_err().code(), ErrorCode::Value);
        assert_eq!(MemoryLimit::parse("max_input").unwrap(), MemoryLimit::MaxInput);
    }
}
