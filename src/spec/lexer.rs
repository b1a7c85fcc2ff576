//! The logos lexers for OCANNL specs, with OCANNL's two modes.
//!
//! The mode is decided once per spec by [`is_multichar`]. In multichar mode identifiers are
//! `[A-Za-z][A-Za-z0-9_]*` and axes are separated by commas. In single-char mode every letter
//! is its own identifier, a run of digits is one integer and `_` is the placeholder.
//!
//! [`Lexer`] gives the tokens as written. OCANNL's single-char lexer also injects a comma after
//! every identifier and integer; the grammar accepts axes written next to each other in this
//! mode, so those commas change only what a parse error says. Specs are parsed with [`Lexer`]
//! first; a spec that fails is parsed again with the comma-injecting lexer (`spec::commas`),
//! which gives the errors their exact text.
//!
//! In single-char mode, [`Lexer`] gives a run of letters as one token ([`Token::Idents`]), which
//! the parser turns into one label axis per letter, as it does with one token per letter.
//!
//! Tokens carry no text: the parser reads identifiers and integers from the spec at their span.

use std::ops::Range;

use logos::Logos;

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

/// A token as the grammar sees it. Identifiers and integers are read from the spec at the
/// token's span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token {
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
    /// `~`
    Tilde,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// An integer (at most [`MAX_INT`]).
    Int,
    /// An identifier.
    Ident,
    /// Two or more letters written next to each other in single-char mode: one label each
    /// (one token instead of one per letter; only [`Lexer`] produces it).
    Idents,
}

impl Token {
    /// How an error message names this token, whose text is `text`.
    pub fn describe(self, text: &str) -> String {
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
            Token::Tilde => "`~`",
            Token::LParen => "`(`",
            Token::RParen => "`)`",
            Token::Int => return format!("integer `{}`", int_value(text).unwrap_or(MAX_INT)),
            Token::Ident => return format!("label `{text}`"),
            Token::Idents => return format!("labels `{text}`"),
        };
        s.to_string()
    }
}

/// Declares a logos token set: the punctuation and integers every mode shares, then the
/// mode's own identifier tokens. (logos derives one lexer per enum, so each mode needs an enum
/// of its own; the macro keeps their shared tokens in one list.)
macro_rules! token_set {
    ($(#[$doc:meta])* $vis:vis enum $name:ident { $($idents:tt)* }) => {
        $(#[$doc])*
        #[derive(Logos, Clone, Copy, Debug, PartialEq)]
        #[logos(skip r"[ \t\r\n\f]+")]
        $vis enum $name {
            #[token(",", |_| Token::Comma)]
            #[token("|", |_| Token::Pipe)]
            #[token("->", |_| Token::Arrow)]
            #[token("=>", |_| Token::FatArrow)]
            #[token(";", |_| Token::Semi)]
            #[token("+", |_| Token::Plus)]
            #[token("*", |_| Token::Star)]
            #[token("^", |_| Token::Caret)]
            #[token("&", |_| Token::Amp)]
            #[token("_", |_| Token::Underscore)]
            #[token("...", |_| Token::Ellipsis)]
            #[token("..", |_| Token::DotDot)]
            #[token("=", |_| Token::Eq)]
            #[token("<", |_| Token::Lt)]
            #[token("~", |_| Token::Tilde)]
            #[token("(", |_| Token::LParen)]
            #[token(")", |_| Token::RParen)]
            Punct(Token),
            #[regex("[0-9]+")]
            Int,
            $($idents)*
        }
    };
}

token_set! {
    /// The tokens of multichar mode (an identifier is one token).
    pub(super) enum Raw {
        #[regex("[A-Za-z][A-Za-z0-9_]*")]
        Ident,
    }
}

token_set! {
    /// The tokens of single-char mode: every letter is an identifier of its own (a run of
    /// letters is one token, split into one label per letter).
    enum OneChar {
        #[regex("[A-Za-z]")]
        Ident,
        #[regex("[A-Za-z][A-Za-z]+")]
        Idents,
    }
}

/// One lexed token with its byte range, as lalrpop's external-lexer interface wants it.
pub type Spanned = (u32, Token, u32);

/// The tokens of a spec as written, produced on demand (the parser pulls them).
///
/// A character no token starts with, or an integer above [`MAX_INT`], ends the tokens and
/// marks the lexer as failed (the comma-injecting lexer reports the error).
pub struct Lexer<'s> {
    raw: Modes<'s>,
    failed: bool,
}

/// Shows the type only: its state is borrowed tables and closures.
impl std::fmt::Debug for Lexer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lexer").finish_non_exhaustive()
    }
}

enum Modes<'s> {
    Multi(logos::Lexer<'s, Raw>),
    Single(logos::Lexer<'s, OneChar>),
}

impl<'s> Lexer<'s> {
    /// A lexer over `spec` in the given mode.
    pub fn new(spec: &'s str, multichar: bool) -> Lexer<'s> {
        let raw = match multichar {
            true => Modes::Multi(Raw::lexer(spec)),
            false => Modes::Single(OneChar::lexer(spec)),
        };
        Lexer { raw, failed: false }
    }

    /// Whether the tokens ended at a lexing error.
    pub fn failed(&self) -> bool {
        self.failed
    }
}

impl Iterator for Lexer<'_> {
    type Item = Spanned;

    #[inline]
    fn next(&mut self) -> Option<Spanned> {
        if self.failed {
            return None;
        }
        let item = match &mut self.raw {
            Modes::Multi(lex) => {
                let tok = lex.next()?.map(|raw| match raw {
                    Raw::Punct(t) => t,
                    Raw::Int => Token::Int,
                    Raw::Ident => Token::Ident,
                });
                checked(tok, lex.slice(), lex.span())
            }
            Modes::Single(lex) => {
                let tok = lex.next()?.map(|raw| match raw {
                    OneChar::Punct(t) => t,
                    OneChar::Int => Token::Int,
                    OneChar::Ident => Token::Ident,
                    OneChar::Idents => Token::Idents,
                });
                checked(tok, lex.slice(), lex.span())
            }
        };
        self.failed = item.is_none();
        item
    }
}

/// The token `tok` at `span`, `None` if it is a lexing error or an integer above [`MAX_INT`].
#[inline]
fn checked(tok: Result<Token, ()>, text: &str, span: Range<usize>) -> Option<Spanned> {
    match tok {
        Ok(Token::Int) if int_value(text).is_none() => None,
        Ok(tok) => Some((pos(span.start), tok, pos(span.end))),
        Err(()) => None,
    }
}

/// A byte offset as a parser location (spans are `u32`; longer specs saturate, as spans do).
#[inline]
pub fn pos(at: usize) -> u32 {
    u32::try_from(at).unwrap_or(u32::MAX)
}

/// The value of an integer token's text, `None` above [`MAX_INT`].
#[inline]
pub fn int_value(text: &str) -> Option<u64> {
    text.parse::<u64>().ok().filter(|&n| n <= MAX_INT)
}
