//! OCANNL's token stream, commas included, for reporting errors.
//!
//! OCANNL's single-char lexer injects a comma after every identifier and integer. The grammar
//! accepts axes written next to each other in this mode, so a spec parses to the same tree
//! with or without those commas, but a parse error says what was expected after the last token,
//! and that depends on them. A spec that fails to parse with the plain [`Lexer`] is parsed
//! again with [`CommaLexer`], which reports lexing errors and gives parse errors their text.
//!
//! [`Lexer`]: super::lexer::Lexer

use logos::Logos;

use super::error::SpecError;
use super::lexer::{int_value, pos, Raw, Spanned, Token};
use crate::span::Span;

/// The first lexing error of `spec`, if any (lexing errors take precedence over parse errors).
pub fn first_error(spec: &str, multichar: bool) -> Option<SpecError> {
    let mut lexer = CommaLexer::new(spec, multichar);
    lexer.by_ref().for_each(drop);
    lexer.into_error()
}

/// The tokens of a spec with OCANNL's injected commas, produced on demand.
///
/// The first lexing error ends the tokens; it is kept for [`CommaLexer::into_error`] (the
/// parser only sees tokens, so a spec is parsed only if its lexer has no error to report).
///
/// In single-char mode an identifier is split into letters, digit runs and `_`, each a token.
/// A comma is injected only where the parser could tell the difference: after the last axis of
/// a run that is followed by something else than an axis (the parser then reaches the same
/// state with or without it, except in its error messages), and after every piece of the name
/// in `..name..`.
pub struct CommaLexer<'s> {
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

impl<'s> CommaLexer<'s> {
    /// A lexer over `spec` in the given mode.
    pub fn new(spec: &'s str, multichar: bool) -> CommaLexer<'s> {
        CommaLexer {
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
        self.after_dotdot = matches!(item.0, Ok(Raw::Punct(Token::DotDot)));
        Some(item)
    }

    /// Whether the next raw token is an axis of single-char mode (no comma needed before it).
    fn axis_follows(&mut self) -> bool {
        if self.peeked.is_none() {
            self.peeked = self.read_raw();
        }
        matches!(self.peeked, Some((Ok(Raw::Ident | Raw::Int | Raw::Punct(Token::Underscore)), ..)))
    }

    /// Injects a comma after a single-char axis ending at `end`, if one is needed.
    fn separate(&mut self, end: usize, more_in_run: bool) {
        if self.in_name || (!more_in_run && !self.axis_follows()) {
            self.comma = Some(end);
        }
    }

    /// The next piece of a single-char identifier: a letter, a digit run or `_`.
    fn next_piece(&mut self, text: &'s str, base: usize) -> Result<Spanned, SpecError> {
        let bytes = text.as_bytes();
        let mut end = 1;
        let tok = match bytes.first() {
            Some(b) if b.is_ascii_digit() => {
                while bytes.get(end).is_some_and(u8::is_ascii_digit) {
                    end += 1;
                }
                check_int(&text[..end], base)?;
                Token::Int
            }
            Some(b'_') => Token::Underscore,
            _ => Token::Ident,
        };
        let rest = &text[end..];
        self.split = (!rest.is_empty()).then_some((rest, base + end));
        self.separate(base + end, !rest.is_empty());
        Ok((pos(base), tok, pos(base + end)))
    }

    /// The next token, or the lexing error that ends the tokens.
    fn lex_next(&mut self) -> Option<Result<Spanned, SpecError>> {
        if let Some(at) = self.comma.take() {
            return Some(Ok((pos(at), Token::Comma, pos(at))));
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
            Raw::Ident => Ok((pos(start), Token::Ident, pos(end))),
            Raw::Int => {
                let n = check_int(text, start);
                if !self.multichar && n.is_ok() {
                    self.separate(end, false);
                }
                n.map(|()| (pos(start), Token::Int, pos(end)))
            }
            Raw::Punct(Token::Underscore) if !self.multichar => {
                self.separate(end, false);
                Ok((pos(start), Token::Underscore, pos(end)))
            }
            Raw::Punct(tok) => Ok((pos(start), tok, pos(end))),
        })
    }
}

impl Iterator for CommaLexer<'_> {
    type Item = Spanned;

    #[inline]
    fn next(&mut self) -> Option<Spanned> {
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

fn check_int(text: &str, start: usize) -> Result<(), SpecError> {
    match int_value(text) {
        Some(_) => Ok(()),
        None => Err(SpecError::IntTooLarge { span: Span::new(start, start + text.len()) }),
    }
}

fn bad_char(spec: &str, at: usize) -> SpecError {
    let ch = spec.get(at..).and_then(|s| s.chars().next()).unwrap_or('\u{fffd}');
    SpecError::BadChar { ch, span: Span::new(at, at + ch.len_utf8()) }
}
