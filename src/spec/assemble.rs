//! Building slots, rows and affine axes from what the grammar matched.
//!
//! The grammar accepts a row as any sequence of axes, ellipses and commas; this module decides
//! which sequences are rows (at most one ellipsis, commas between axes, commas optional next to
//! an ellipsis, one trailing comma) and reports the others with the span of the offending item.
//!
//! Everything is written in place: the slot being parsed is the last of the builder's slots, and
//! the row being parsed is that slot's output row until the grammar knows its kind (a row is
//! the batch row when `|` follows it, the input row when `->` follows it); only then is it moved.

use lalrpop_util::ParseError;

use super::ast::{Affine, AxisKind, Coeff, Conv, Ellipsis, Name, Padding, RowKind, ShapeSpec};
use super::ast::{Axis, ConcatPart};
use super::error::SpecError;
use super::lexer::{int_value, MAX_INT};
use crate::span::Span;

/// Separator bookkeeping of the row being parsed.
#[derive(Clone, Copy, Default)]
struct RowState {
    prev_axis: bool,
    prev_comma: bool,
    /// Whether anything but commas came yet.
    started: bool,
    first_comma: Option<Span>,
}

/// What the parsed text contains, so that validation can skip rules that cannot apply.
#[derive(Clone, Copy, Default, Debug)]
pub struct Seen {
    /// A row variable (`...` or `..name..`).
    pub row_vars: bool,
    /// An axis that names a label (plain, strided, convolution or concatenation).
    pub labels: bool,
    /// A strided or convolution axis (its coefficients need checking).
    pub affine: bool,
    /// A concatenation axis.
    pub concat: bool,
}

/// A stride or dilation as the grammar matched it.
#[derive(Clone, Copy, Debug)]
pub enum CoeffTok {
    /// Not written: 1.
    One,
    /// An integer, at this span.
    Int(Span),
    /// An identifier, at this span.
    Name(Span),
}

/// A component of a concatenation axis as the grammar matched it.
#[derive(Clone, Copy, Debug)]
pub enum PartTok {
    /// A label, at this span.
    Label(Span),
    /// A fixed size, at this span.
    Size(Span),
}

/// What the grammar matched, assembled in text order into the slots of the spec.
pub struct Builder<'s, 't> {
    /// The spec, where identifiers and integers are read at their tokens' spans.
    src: &'s str,
    /// Single-char mode: axes need no comma between them.
    single_char: bool,
    state: RowState,
    /// The operand slots of an einsum spec, allocated up front by the caller (one default slot
    /// per operand).
    rhs: &'t mut Vec<ShapeSpec>,
    /// The index in `rhs` of the slot being parsed.
    at: usize,
    /// The slot of a labels spec, or the result slot of an einsum spec.
    lhs: &'t mut ShapeSpec,
    /// Whether the slot being parsed is `lhs`.
    in_lhs: bool,
    /// The kernel term of the convolution axis being parsed.
    kernel: Option<(u64, Coeff, Name, Span)>,
    /// The strided or convolution axis just parsed, waiting for its span.
    affine: Option<Box<Affine>>,
    /// The components of the concatenation axis being parsed.
    parts: Vec<ConcatPart>,
    /// The labels of the flattened axis being parsed.
    flat: Vec<(Name, Span)>,
    /// What the text contains.
    pub seen: Seen,
}

impl<'s, 't> Builder<'s, 't> {
    /// A builder that writes the slot of the labels spec `src` into `shape`, lexed in the
    /// given mode.
    ///
    /// The tree is written where the caller keeps it: slots are large, and moving them
    /// (in and out of the builder) cost more than building them.
    #[inline(always)]
    pub fn labels(
        src: &'s str,
        none: &'t mut Vec<ShapeSpec>,
        shape: &'t mut ShapeSpec,
        multichar: bool,
    ) -> Self {
        Builder::new(src, none, shape, true, multichar)
    }

    /// A builder that writes the operand slots of the einsum spec `src` into `rhs` (which
    /// holds a default slot per operand) and its result slot into `lhs`.
    #[inline(always)]
    pub fn einsum(
        src: &'s str,
        rhs: &'t mut Vec<ShapeSpec>,
        lhs: &'t mut ShapeSpec,
        multichar: bool,
    ) -> Self {
        Builder::new(src, rhs, lhs, false, multichar)
    }

    #[inline(always)]
    fn new(
        src: &'s str,
        rhs: &'t mut Vec<ShapeSpec>,
        lhs: &'t mut ShapeSpec,
        in_lhs: bool,
        multichar: bool,
    ) -> Self {
        Builder {
            src,
            single_char: !multichar,
            state: RowState::default(),
            rhs,
            at: 0,
            lhs,
            in_lhs,
            kernel: None,
            affine: None,
            parts: Vec::new(),
            flat: Vec::new(),
            seen: Seen::default(),
        }
    }

    /// The text of a token.
    #[inline]
    fn text(&self, span: Span) -> &'s str {
        self.src.get(span.range()).unwrap_or_default()
    }

    /// A [`Name`] for the text of a token.
    #[inline]
    fn name(&self, span: Span) -> Name {
        name(self.text(span))
    }

    /// The value of an integer token (the lexer checked that it is at most `MAX_INT`).
    #[inline]
    fn int(&self, span: Span) -> u64 {
        int_value(self.text(span)).unwrap_or(MAX_INT)
    }

    /// A stride or dilation.
    fn coeff(&self, tok: CoeffTok) -> Coeff {
        match tok {
            CoeffTok::One => Coeff::Int(1),
            CoeffTok::Int(at) => Coeff::Int(self.int(at)),
            CoeffTok::Name(at) => Coeff::Name(self.name(at)),
        }
    }

    /// The slot being parsed.
    #[inline]
    fn slot(&mut self) -> &mut ShapeSpec {
        if self.in_lhs {
            return self.lhs;
        }
        if self.at >= self.rhs.len() {
            self.rhs.resize_with(self.at + 1, ShapeSpec::default);
        }
        &mut self.rhs[self.at]
    }

    /// Adds an integer axis to the row being parsed.
    #[inline]
    pub fn int_axis(&mut self, span: Span) -> Result<(), SpecError> {
        let n = self.int(span);
        self.axis(AxisKind::Int(n), span)
    }

    /// Adds a label axis to the row being parsed.
    #[inline]
    pub fn label_axis(&mut self, span: Span) -> Result<(), SpecError> {
        let label = self.name(span);
        self.axis(AxisKind::Label(label), span)
    }

    /// Adds a label axis per letter of a run of single-char identifiers (a [`Token::Idents`]).
    ///
    /// [`Token::Idents`]: super::lexer::Token::Idents
    pub fn label_axes(&mut self, span: Span) -> Result<(), SpecError> {
        for (at, &b) in (span.start..).zip(self.text(span).as_bytes()) {
            let one = Span { start: at, end: at + 1 };
            // The lexer gives ASCII letters only, which all have a static name.
            let label = one_byte_name(b).unwrap_or_else(|| self.name(one));
            self.axis(AxisKind::Label(label), one)?;
        }
        Ok(())
    }

    /// Adds an axis to the row being parsed.
    #[inline]
    pub fn axis(&mut self, kind: AxisKind, span: Span) -> Result<(), SpecError> {
        let st = self.state;
        if st.prev_axis && !self.single_char {
            return Err(SpecError::MissingComma { span: Span::point(span.start as usize) });
        }
        // `, a` is rejected, as in OCANNL, while `, ...` is accepted.
        if let (false, Some(comma)) = (st.started, st.first_comma) {
            return Err(SpecError::StrayComma { span: comma });
        }
        match &kind {
            AxisKind::Int(_) | AxisKind::Placeholder => {}
            AxisKind::Label(_) => self.seen.labels = true,
            AxisKind::Affine(_) => (self.seen.labels, self.seen.affine) = (true, true),
            AxisKind::Concat(_) => (self.seen.labels, self.seen.concat) = (true, true),
            AxisKind::Flat(_) => self.seen.labels = true,
        }
        // Axes are trailing until an ellipsis turns them into leading ones.
        self.slot().output.trailing.push(Axis { kind, span });
        self.state = RowState { prev_axis: true, prev_comma: false, started: true, ..st };
        Ok(())
    }

    /// Adds the strided or convolution axis just parsed to the row being parsed.
    pub fn affine_axis(&mut self, span: Span) -> Result<(), SpecError> {
        match self.affine.take() {
            Some(a) => self.axis(AxisKind::Affine(a), span),
            None => Ok(()),
        }
    }

    /// Adds the concatenation axis just parsed to the row being parsed.
    pub fn concat_axis(&mut self, span: Span) -> Result<(), SpecError> {
        let parts = std::mem::take(&mut self.parts);
        self.axis(AxisKind::Concat(parts), span)
    }

    /// Adds the flattened axis whose labels were noted by [`Builder::flat_part`].
    pub fn flat_axis(&mut self, span: Span) -> Result<(), SpecError> {
        let labels = std::mem::take(&mut self.flat);
        self.axis(AxisKind::Flat(labels), span)
    }

    /// Notes a label of the flattened axis being parsed.
    pub fn flat_part(&mut self, span: Span) {
        self.flat.push((self.name(span), span));
    }

    /// Adds a component to the concatenation axis being parsed.
    pub fn part(&mut self, part: PartTok) {
        let part = match part {
            PartTok::Label(at) => ConcatPart::Label(self.name(at)),
            PartTok::Size(at) => ConcatPart::Size(self.int(at)),
        };
        self.parts.push(part);
    }

    /// Notes the kernel term `[offset+][dilation*]kernel` of the convolution axis being parsed.
    pub fn kernel(&mut self, offset: Option<Span>, dilation: CoeffTok, span: Span) {
        let offset = offset.map_or(0, |at| self.int(at));
        self.kernel = Some((offset, self.coeff(dilation), self.name(span), span));
    }

    /// Builds a strided axis `stride*over[+offset]`.
    pub fn affine(&mut self, stride: CoeffTok, over_span: Span, offset: Option<Span>) {
        let (stride, over) = (self.coeff(stride), self.name(over_span));
        let offset = offset.map_or(0, |at| self.int(at));
        self.affine = Some(Box::new(Affine { stride, over, over_span, offset, conv: None }));
    }

    /// Builds a convolution axis from the stride, the `over` label, the padding marker and the
    /// kernel term noted last.
    pub fn conv(&mut self, stride: CoeffTok, over_span: Span, padding: Padding) {
        if let Some((offset, dilation, kernel, kernel_span)) = self.kernel.take() {
            self.affine = Some(Box::new(Affine {
                stride: self.coeff(stride),
                over: self.name(over_span),
                over_span,
                offset,
                conv: Some(Conv { dilation, kernel, padding, kernel_span }),
            }));
        }
    }

    /// Builds a PyTorch-style convolution axis `[S*]over~P+kernel` with padding `P` (the
    /// integer at `pad`).
    pub fn floor_conv(&mut self, stride: CoeffTok, over_span: Span, pad: Span) {
        let pad = self.int(pad);
        self.conv(stride, over_span, Padding::Floor(pad));
    }

    /// Adds a row variable to the row being parsed.
    pub fn ellipsis(&mut self, var: Option<Span>, span: Span) -> Result<(), SpecError> {
        let var = var.map(|at| self.name(at));
        let row = &mut self.slot().output;
        if let Some(first) = &row.ellipsis {
            return Err(SpecError::TwoEllipses { first: first.span, second: span });
        }
        row.ellipsis = Some(Ellipsis { name: var, span });
        if !row.trailing.is_empty() {
            row.leading = std::mem::take(&mut row.trailing);
        }
        self.seen.row_vars = true;
        self.state = RowState { prev_axis: false, prev_comma: false, started: true, ..self.state };
        Ok(())
    }

    /// Adds a comma (written, or injected by the single-char lexer) to the row being parsed.
    pub fn comma(&mut self, span: Span) -> Result<(), SpecError> {
        if self.state.prev_comma {
            return Err(SpecError::StrayComma { span });
        }
        self.state.first_comma.get_or_insert(span);
        (self.state.prev_axis, self.state.prev_comma) = (false, true);
        Ok(())
    }

    /// Finishes the row being parsed as the row of `kind` of the current slot.
    pub fn end_row(&mut self, kind: RowKind, span: Span) {
        self.state = RowState::default();
        let slot = self.slot();
        slot.output.span = span;
        // The finished row trades places with an empty one (no copy of the row through a
        // temporary).
        let target = match kind {
            RowKind::Output => return,
            RowKind::Batch => &mut slot.batch,
            RowKind::Input => &mut slot.input,
        };
        std::mem::swap(&mut **target.insert(Box::default()), &mut slot.output);
    }

    /// Finishes the current slot.
    pub fn end_slot(&mut self, span: Span) {
        self.slot().span = span;
    }

    /// Starts the next operand slot (after `;`).
    pub fn next_slot(&mut self) {
        self.at += 1;
    }

    /// Starts the result slot (after `=>`).
    pub fn result_slot(&mut self) {
        self.in_lhs = true;
    }

    /// The number of operand slots parsed (the caller's vector may be longer).
    pub fn operands(&self) -> usize {
        self.at + 1
    }
}

/// The printable ASCII characters from `0` to `z`, which include every one-byte name.
const ONE_BYTE_NAMES: &str =
    "0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz";

/// A [`Name`] for `text`. One-byte names (all names of single-char specs) point into a static
/// string instead of being copied in.
#[inline]
pub fn name(text: &str) -> Name {
    match text.as_bytes() {
        [b] => one_byte_name(*b).unwrap_or_else(|| Name::new(text)),
        _ => Name::new(text),
    }
}

/// The [`Name`] of a one-byte name from `0` to `z`, pointing into a static string.
#[inline]
fn one_byte_name(b: u8) -> Option<Name> {
    let at = usize::from(b.wrapping_sub(b'0'));
    ONE_BYTE_NAMES.get(at..at + 1).map(Name::new_static)
}

/// Wraps a builder error for the parser (boxed: the parser moves its results around, and a
/// small error type keeps them small).
pub fn user<T>(error: SpecError) -> ParseError<u32, T, Box<SpecError>> {
    ParseError::User { error: Box::new(error) }
}

/// The span of a token or symbol from the parser's locations.
#[inline(always)]
pub fn span(start: u32, end: u32) -> Span {
    Span { start, end: end.max(start) }
}

#[cfg(test)]
mod tests {
    use super::name;

    #[test]
    fn names_keep_their_text() {
        for c in (0u8..128).map(char::from) {
            let text = c.to_string();
            assert_eq!(name(&text), text.as_str());
        }
        for text in ["", "ab", "hid_1", "é", "a_very_long_label_of_more_than_23_bytes"] {
            assert_eq!(name(text), text);
        }
    }
}
