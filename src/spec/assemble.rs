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
pub enum CoeffTok<'s> {
    /// An integer.
    Int(u64),
    /// An identifier.
    Name(&'s str),
}

impl CoeffTok<'_> {
    fn build(self) -> Coeff {
        match self {
            CoeffTok::Int(n) => Coeff::Int(n),
            CoeffTok::Name(s) => Coeff::Name(name(s)),
        }
    }
}

/// A component of a concatenation axis as the grammar matched it.
#[derive(Clone, Copy, Debug)]
pub enum PartTok<'s> {
    /// A label.
    Label(&'s str),
    /// A fixed size.
    Size(u64),
}

/// A label of an affine axis with its span.
pub type Label<'s> = (&'s str, Span);

/// What the grammar matched, assembled in text order into the slots of the spec.
pub struct Builder<'t> {
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
    /// What the text contains.
    pub seen: Seen,
}

impl<'t> Builder<'t> {
    /// A builder that writes the slot of a labels spec into `shape`, lexed in the given mode.
    ///
    /// The tree is written where the caller keeps it: slots are large, and moving them
    /// (in and out of the builder) cost more than building them.
    #[inline(always)]
    pub fn labels(none: &'t mut Vec<ShapeSpec>, shape: &'t mut ShapeSpec, multichar: bool) -> Self {
        Builder::new(none, shape, true, multichar)
    }

    /// A builder that writes the operand slots of an einsum spec into `rhs` (which holds a
    /// default slot per operand) and its result slot into `lhs`.
    #[inline(always)]
    pub fn einsum(rhs: &'t mut Vec<ShapeSpec>, lhs: &'t mut ShapeSpec, multichar: bool) -> Self {
        Builder::new(rhs, lhs, false, multichar)
    }

    #[inline(always)]
    fn new(
        rhs: &'t mut Vec<ShapeSpec>,
        lhs: &'t mut ShapeSpec,
        in_lhs: bool,
        multichar: bool,
    ) -> Self {
        Builder {
            single_char: !multichar,
            state: RowState::default(),
            rhs,
            at: 0,
            lhs,
            in_lhs,
            kernel: None,
            affine: None,
            parts: Vec::new(),
            seen: Seen::default(),
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

    /// Adds an axis to the row being parsed.
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

    /// Adds a component to the concatenation axis being parsed.
    pub fn part(&mut self, part: PartTok<'_>) {
        self.parts.push(match part {
            PartTok::Label(s) => ConcatPart::Label(name(s)),
            PartTok::Size(n) => ConcatPart::Size(n),
        });
    }

    /// Notes the kernel term `[offset+][dilation*]kernel` of the convolution axis being parsed.
    pub fn kernel(&mut self, offset: u64, dilation: CoeffTok<'_>, (kernel, span): Label<'_>) {
        self.kernel = Some((offset, dilation.build(), name(kernel), span));
    }

    /// Builds a strided axis `stride*over[+offset]`.
    pub fn affine(&mut self, stride: CoeffTok<'_>, (over, over_span): Label<'_>, offset: u64) {
        let (stride, over) = (stride.build(), name(over));
        self.affine = Some(Box::new(Affine { stride, over, over_span, offset, conv: None }));
    }

    /// Builds a convolution axis from the stride, the `over` label, the padding marker and the
    /// kernel term noted last.
    pub fn conv(&mut self, stride: CoeffTok<'_>, (over, over_span): Label<'_>, padding: Padding) {
        if let Some((offset, dilation, kernel, kernel_span)) = self.kernel.take() {
            self.affine = Some(Box::new(Affine {
                stride: stride.build(),
                over: name(over),
                over_span,
                offset,
                conv: Some(Conv { dilation, kernel, padding, kernel_span }),
            }));
        }
    }

    /// Adds a row variable to the row being parsed.
    pub fn ellipsis(&mut self, var: Option<&str>, span: Span) -> Result<(), SpecError> {
        let row = &mut self.slot().output;
        if let Some(first) = &row.ellipsis {
            return Err(SpecError::TwoEllipses { first: first.span, second: span });
        }
        row.ellipsis = Some(Ellipsis { name: var.map(name), span });
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
        match kind {
            RowKind::Output => {}
            RowKind::Batch => slot.batch = Some(std::mem::take(&mut slot.output)),
            RowKind::Input => slot.input = Some(std::mem::take(&mut slot.output)),
        }
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
    if let [b] = text.as_bytes() {
        let at = usize::from(b.wrapping_sub(b'0'));
        if let Some(one) = ONE_BYTE_NAMES.get(at..at + 1) {
            return Name::new_static(one);
        }
    }
    Name::new(text)
}

/// Wraps a builder error for the parser.
pub fn user<T>(error: SpecError) -> ParseError<usize, T, SpecError> {
    ParseError::User { error }
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
