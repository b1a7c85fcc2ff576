//! The logos lexer for OCANNL specs, with OCANNL's two modes.
//!
//! The mode is decided once per spec by [`is_multichar`]. In multichar mode identifiers are
//! `[A-Za-z][A-Za-z0-9_]*` and axes are separated by commas. In single-char mode every letter
//! is its own identifier, a run of digits is one integer, `_` is the placeholder, and a comma
//! is injected after every identifier and integer (the grammar tolerates the extra commas).

use logos::Logos;

use super::error::SpecError;
use crate::span::Span;

/// The largest integer a spec may contain: sizes and indices are bounded by 2^62.
pub const MAX_INT: u64 = 1 << 62;

/// Whether the spec is lexed in multichar mode: it contains one of `,` `*` `+` `^` `&` `<`, or
/// an `=` that is not immediately followed by `>`.
pub fn is_multichar(spec: &str) -> bool {
    let b = spec.as_bytes();
    b.iter().enumerate().any(|(i, c)| match c {
        b',' | b'*' | b'+' | b'^' | b'&' | b'<' => true,
        b'=' => b.get(i + 1) != Some(&b'>'),
        _ => false,
    })
}

/// A token as the grammar sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token<'s> {
    /// `,`
    Comma,
    /// `|`
    Pipe,
    /// `->`
    Arrow,
    /// `=>`
    FatArrow,
    /// `;`
    Semi,
    /// `+`
    Plus,
    /// `*`
    Star,
    /// `^`
    Caret,
    /// `&` (reserved: no rule uses it)
    Amp,
    /// `_`
    Underscore,
    /// `...`
    Ellipsis,
    /// `..`
    DotDot,
    /// `=`
    Eq,
    /// `<`
    Lt,
    /// An integer (at most [`MAX_INT`]).
    Int(u64),
    /// An identifier.
    Ident(&'s str),
}

#[derive(Logos, Clone, Copy, Debug, PartialEq)]
#[logos(skip r"[ \t\r\n\f]+")]
enum Raw {
    #[token(",")]
    Comma,
    #[token("|")]
    Pipe,
    #[token("->")]
    Arrow,
    #[token("=>")]
    FatArrow,
    #[token(";")]
    Semi,
    #[token("+")]
    Plus,
    #[token("*")]
    Star,
    #[token("^")]
    Caret,
    #[token("&")]
    Amp,
    #[token("_")]
    Underscore,
    #[token("...")]
    Ellipsis,
    #[token("..")]
    DotDot,
    #[token("=")]
    Eq,
    #[token("<")]
    Lt,
    #[regex("[0-9]+")]
    Int,
    #[regex("[A-Za-z][A-Za-z0-9_]*")]
    Ident,
}

/// One lexed token with its byte range, as lalrpop's external-lexer interface wants it.
pub type Spanned<'s> = (usize, Token<'s>, usize);

/// Lexes `spec` in the given mode into a token vector.
pub fn lex(spec: &str, multichar: bool) -> Result<Vec<Spanned<'_>>, SpecError> {
    let mut lexer = Lexer::new(spec, multichar);
    let tokens = lexer.by_ref().collect();
    lexer.into_error().map_or(Ok(tokens), Err)
}

/// The first lexing error of `spec`, if any (lexing errors take precedence over parse errors).
pub fn first_error(spec: &str, multichar: bool) -> Option<SpecError> {
    let mut lexer = Lexer::new(spec, multichar);
    lexer.by_ref().for_each(drop);
    lexer.into_error()
}

/// The tokens of a spec, produced on demand (the parser pulls them; nothing is collected).
///
/// The first lexing error ends the tokens; it is kept for [`Lexer::into_error`] (the parser
/// only sees tokens, so a spec is parsed only if its lexer has no error to report).
///
/// In single-char mode an identifier is split into letters, digit runs and `_`, each a token.
/// OCANNL separates such axes with commas; the grammar accepts axes written next to each other
/// in this mode, so a comma is injected only where the parser could tell the difference: after
/// the last axis of a run that is followed by something else than an axis (the parser then
/// reaches the same state with or without it, except in its error messages), and after every
/// piece of the name in `..name..`.
pub struct Lexer<'s> {
    raw: logos::Lexer<'s, Raw>,
    multichar: bool,
    /// An injected comma to emit next, at this position.
    comma: Option<usize>,
    /// The rest of a single-char identifier being split, with its start offset.
    split: Option<(&'s str, usize)>,
    /// The next raw token, read ahead to decide whether a comma goes before it.
    peeked: Option<RawItem<'s>>,
    /// The raw token being split follows `..` (a row variable's name).
    in_name: bool,
    /// The last raw token read was `..`.
    after_dotdot: bool,
    /// The lexing error that ended the tokens.
    error: Option<SpecError>,
}

/// A raw token with its byte range and text.
type RawItem<'s> = (Result<Raw, ()>, usize, usize, &'s str);

impl<'s> Lexer<'s> {
    /// A lexer over `spec` in the given mode.
    pub fn new(spec: &'s str, multichar: bool) -> Lexer<'s> {
        Lexer {
            raw: Raw::lexer(spec),
            multichar,
            comma: None,
            split: None,
            peeked: None,
            in_name: false,
            after_dotdot: false,
            error: None,
        }
    }

    /// The lexing error that ended the tokens, if any.
    pub fn into_error(self) -> Option<SpecError> {
        self.error
    }

    fn read_raw(&mut self) -> Option<RawItem<'s>> {
        let item = self.raw.next()?;
        let r = self.raw.span();
        Some((item, r.start, r.end, self.raw.slice()))
    }

    fn next_raw(&mut self) -> Option<RawItem<'s>> {
        let item = self.peeked.take().or_else(|| self.read_raw())?;
        self.in_name = self.after_dotdot;
        self.after_dotdot = matches!(item.0, Ok(Raw::DotDot));
        Some(item)
    }

    /// Whether the next raw token is an axis of single-char mode (no comma needed before it).
    fn axis_follows(&mut self) -> bool {
        if self.peeked.is_none() {
            self.peeked = self.read_raw();
        }
        matches!(self.peeked, Some((Ok(Raw::Ident | Raw::Int | Raw::Underscore), ..)))
    }

    /// Injects a comma after a single-char axis ending at `end`, if one is needed.
    fn separate(&mut self, end: usize, more_in_run: bool) {
        if self.in_name || (!more_in_run && !self.axis_follows()) {
            self.comma = Some(end);
        }
    }

    /// The next piece of a single-char identifier: a letter, a digit run or `_`.
    fn next_piece(&mut self, text: &'s str, base: usize) -> Result<Spanned<'s>, SpecError> {
        let bytes = text.as_bytes();
        let mut end = 1;
        let tok = match bytes.first() {
            Some(b) if b.is_ascii_digit() => {
                while bytes.get(end).is_some_and(u8::is_ascii_digit) {
                    end += 1;
                }
                Token::Int(parse_int(&text[..end], base)?)
            }
            Some(b'_') => Token::Underscore,
            _ => Token::Ident(&text[..1]),
        };
        let rest = &text[end..];
        self.split = (!rest.is_empty()).then_some((rest, base + end));
        self.separate(base + end, !rest.is_empty());
        Ok((base, tok, base + end))
    }

    /// The next token, or the lexing error that ends the tokens.
    fn lex_next(&mut self) -> Option<Result<Spanned<'s>, SpecError>> {
        if let Some(at) = self.comma.take() {
            return Some(Ok((at, Token::Comma, at)));
        }
        if let Some((text, base)) = self.split.take() {
            return Some(self.next_piece(text, base));
        }
        let (item, start, end, text) = self.next_raw()?;
        let Ok(tok) = item else {
            return Some(Err(bad_char(self.raw.source(), start)));
        };
        Some(match tok {
            Raw::Ident if !self.multichar => self.next_piece(text, start),
            Raw::Int => {
                let n = parse_int(text, start);
                if !self.multichar && n.is_ok() {
                    self.separate(end, false);
                }
                n.map(|n| (start, Token::Int(n), end))
            }
            Raw::Underscore if !self.multichar => {
                self.separate(end, false);
                Ok((start, Token::Underscore, end))
            }
            _ => Ok((start, simple(tok, text), end)),
        })
    }
}

impl<'s> Iterator for Lexer<'s> {
    type Item = Spanned<'s>;

    #[inline]
    fn next(&mut self) -> Option<Spanned<'s>> {
        if self.error.is_some() {
            return None;
        }
        match self.lex_next()? {
            Ok(tok) => Some(tok),
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }
}

fn simple(tok: Raw, text: &str) -> Token<'_> {
    match tok {
        Raw::Comma => Token::Comma,
        Raw::Pipe => Token::Pipe,
        Raw::Arrow => Token::Arrow,
        Raw::FatArrow => Token::FatArrow,
        Raw::Semi => Token::Semi,
        Raw::Plus => Token::Plus,
        Raw::Star => Token::Star,
        Raw::Caret => Token::Caret,
        Raw::Amp => Token::Amp,
        Raw::Underscore => Token::Underscore,
        Raw::Ellipsis => Token::Ellipsis,
        Raw::DotDot => Token::DotDot,
        Raw::Eq => Token::Eq,
        Raw::Lt => Token::Lt,
        Raw::Int | Raw::Ident => Token::Ident(text),
    }
}

fn parse_int(text: &str, start: usize) -> Result<u64, SpecError> {
    match text.parse::<u64>() {
        Ok(n) if n <= MAX_INT => Ok(n),
        _ => Err(SpecError::IntTooLarge { span: Span::new(start, start + text.len()) }),
    }
}

fn bad_char(spec: &str, at: usize) -> SpecError {
    let ch = spec.get(at..).and_then(|s| s.chars().next()).unwrap_or('\u{fffd}');
    SpecError::BadChar { ch, span: Span::new(at, at + ch.len_utf8()) }
}

impl std::fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = match self {
            Token::Comma => "`,`",
            Token::Pipe => "`|`",
            Token::Arrow => "`->`",
            Token::FatArrow => "`=>`",
            Token::Semi => "`;`",
            Token::Plus => "`+`",
            Token::Star => "`*`",
            Token::Caret => "`^`",
            Token::Amp => "`&`",
            Token::Underscore => "`_`",
            Token::Ellipsis => "`...`",
            Token::DotDot => "`..`",
            Token::Eq => "`=`",
            Token::Lt => "`<`",
            Token::Int(n) => return write!(f, "integer `{n}`"),
            Token::Ident(s) => return write!(f, "label `{s}`"),
        };
        f.write_str(s)
    }
}
