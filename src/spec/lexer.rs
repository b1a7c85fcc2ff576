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

/// One lexed item as lalrpop's external-lexer interface wants it.
pub type Spanned<'s> = Result<(usize, Token<'s>, usize), SpecError>;

/// Lexes `spec` in the given mode into a token vector (specs are short; a vector keeps the
/// single-char splitting simple and the parser's input a plain iterator).
pub fn lex(spec: &str, multichar: bool) -> Result<Vec<(usize, Token<'_>, usize)>, SpecError> {
    let mut out = Vec::with_capacity(spec.len() + 4);
    let mut raw = Raw::lexer(spec);
    while let Some(item) = raw.next() {
        let r = raw.span();
        let text = raw.slice();
        let tok = match item {
            Ok(t) => t,
            Err(()) => return Err(bad_char(spec, r.start)),
        };
        match tok {
            Raw::Ident if !multichar => split_single_char(text, r.start, &mut out)?,
            Raw::Int => {
                out.push((r.start, Token::Int(parse_int(text, r.start)?), r.end));
                if !multichar {
                    out.push((r.end, Token::Comma, r.end));
                }
            }
            Raw::Underscore if !multichar => {
                out.push((r.start, Token::Underscore, r.end));
                out.push((r.end, Token::Comma, r.end));
            }
            _ => out.push((r.start, simple(tok, text), r.end)),
        }
    }
    Ok(out)
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

/// Splits a multichar identifier into single-char tokens: letters, digit runs and `_`, each
/// followed by an injected comma.
fn split_single_char<'s>(
    text: &'s str,
    base: usize,
    out: &mut Vec<(usize, Token<'s>, usize)>,
) -> Result<(), SpecError> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let tok = if bytes[i].is_ascii_digit() {
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            Token::Int(parse_int(&text[start..i], base + start)?)
        } else {
            i += 1;
            if bytes[start] == b'_' {
                Token::Underscore
            } else {
                Token::Ident(&text[start..i])
            }
        };
        out.push((base + start, tok, base + i));
        out.push((base + i, Token::Comma, base + i));
    }
    Ok(())
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
