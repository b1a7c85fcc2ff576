//! Building rows and affine axes from what the grammar matched.
//!
//! The grammar accepts a row as any sequence of axes, ellipses and commas; this module decides
//! which sequences are rows (at most one ellipsis, commas between axes, commas optional next to
//! an ellipsis, one trailing comma) and reports the others with the span of the offending item.

use smallvec::SmallVec;

use super::ast::{Affine, Axis, Coeff, Conv, Ellipsis, Name, Padding, Row, ShapeSpec};
use super::error::SpecError;
use crate::span::Span;

/// One element of a row as the grammar sees it.
#[derive(Clone, Debug)]
pub enum Item {
    /// An axis.
    Axis(Axis),
    /// A row variable.
    Ellipsis(Ellipsis),
    /// A comma (written, or injected by the single-char lexer).
    Comma(Span),
}

/// Builds a row item by item, checking separators and the single-ellipsis rule as it goes.
#[derive(Default)]
pub struct RowBuilder {
    /// Single-char mode: axes need no comma between them.
    single_char: bool,
    row: Row,
    prev_axis: bool,
    prev_comma: bool,
    /// Whether anything but commas came yet.
    started: bool,
    first_comma: Option<Span>,
}

impl RowBuilder {
    /// Adds the next item.
    pub fn push(&mut self, item: Item) -> Result<(), SpecError> {
        let (is_axis, is_comma) = (matches!(item, Item::Axis(_)), matches!(item, Item::Comma(_)));
        match item {
            Item::Axis(axis) => {
                if self.prev_axis && !self.single_char {
                    let at = axis.span.start as usize;
                    return Err(SpecError::MissingComma { span: Span::point(at) });
                }
                // `, a` is rejected, as in OCANNL, while `, ...` is accepted.
                if let (true, Some(comma)) = (!self.started, self.first_comma) {
                    return Err(SpecError::StrayComma { span: comma });
                }
                if self.row.ellipsis.is_some() {
                    self.row.trailing.push(axis);
                } else {
                    self.row.leading.push(axis);
                }
                self.started = true;
            }
            Item::Ellipsis(e) => {
                if let Some(first) = &self.row.ellipsis {
                    return Err(SpecError::TwoEllipses { first: first.span, second: e.span });
                }
                self.row.ellipsis = Some(e);
                self.started = true;
            }
            Item::Comma(c) if self.prev_comma => return Err(SpecError::StrayComma { span: c }),
            Item::Comma(c) => {
                self.first_comma.get_or_insert(c);
            }
        }
        (self.prev_axis, self.prev_comma) = (is_axis, is_comma);
        Ok(())
    }

    /// The finished row; a row without an ellipsis has all its axes trailing.
    pub fn finish(self, span: Span) -> Row {
        let mut row = self.row;
        row.span = span;
        if row.ellipsis.is_none() && !row.leading.is_empty() {
            let leading = std::mem::take(&mut row.leading);
            row.trailing = leading;
        }
        row
    }
}

/// What the grammar matched, assembled in text order: items go into the current row, a finished
/// row waits for its slot, a finished slot is kept until the end.
pub struct Builder {
    row: RowBuilder,
    single_char: bool,
    rows: SmallVec<[Row; 3]>,
    slots: SmallVec<[ShapeSpec; 1]>,
}

impl Builder {
    /// A builder for a spec of (at most) `slots` slots, lexed in the given mode.
    #[inline(always)]
    pub fn new(slots: usize, multichar: bool) -> Builder {
        Builder {
            row: RowBuilder { single_char: !multichar, ..RowBuilder::default() },
            single_char: !multichar,
            rows: SmallVec::new(),
            slots: SmallVec::with_capacity(slots),
        }
    }

    /// Adds the next item of the current row.
    pub fn push(&mut self, item: Item) -> Result<(), SpecError> {
        self.row.push(item)
    }

    /// Finishes the current row.
    pub fn end_row(&mut self, span: Span) {
        let fresh = RowBuilder { single_char: self.single_char, ..RowBuilder::default() };
        let row = std::mem::replace(&mut self.row, fresh).finish(span);
        self.rows.push(row);
    }

    /// Finishes a slot from the rows just finished (batch, input, output as written).
    pub fn slot(&mut self, batch: bool, input: bool, span: Span) {
        let output = self.rows.pop().unwrap_or_default();
        let input = input.then(|| self.rows.pop().unwrap_or_default());
        let batch = batch.then(|| self.rows.pop().unwrap_or_default());
        self.slots.push(ShapeSpec { batch, input, output, span });
    }

    /// The finished slots, in text order.
    pub fn into_slots(self) -> Vec<ShapeSpec> {
        self.slots.into_vec()
    }

    /// The first finished slot (a labels spec has exactly one).
    pub fn into_slot(self) -> ShapeSpec {
        self.slots.into_iter().next().unwrap_or_default()
    }
}

/// Builds a convolution axis from the stride, the `over` label, the padding marker and the
/// kernel term `(offset, dilation, kernel)`.
pub fn conv(
    stride: Coeff,
    over: (Name, Span),
    padding: Padding,
    kernel: (u64, Coeff, (Name, Span)),
) -> Box<Affine> {
    let (offset, dilation, (kernel, kernel_span)) = kernel;
    Box::new(Affine {
        stride,
        over: over.0,
        over_span: over.1,
        offset,
        conv: Some(Conv { dilation, kernel, padding, kernel_span }),
    })
}
