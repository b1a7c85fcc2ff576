//! Building rows and affine axes from what the grammar matched.
//!
//! The grammar accepts a row as any sequence of axes, ellipses and commas; this module decides
//! which sequences are rows (at most one ellipsis, commas between axes, commas optional next to
//! an ellipsis, one trailing comma) and reports the others with the span of the offending item.

use smallvec::SmallVec;

use super::ast::{Affine, Axis, Coeff, Conv, Ellipsis, Padding, Row};
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

/// Assembles a row from its items, checking separators and the single-ellipsis rule.
pub fn row(items: Vec<Item>, span: Span) -> Result<Row, SpecError> {
    let mut row = Row { span, ..Row::default() };
    // What came just before the current item, and whether anything but commas came yet.
    let mut prev: Option<&Item> = None;
    let mut started = false;
    for item in &items {
        match item {
            Item::Axis(axis) => {
                match prev {
                    Some(Item::Axis(_)) => {
                        let at = axis.span.start as usize;
                        return Err(SpecError::MissingComma { span: Span::point(at) });
                    }
                    // `, a` is rejected, as in OCANNL, while `, ...` is accepted.
                    Some(Item::Comma(c)) if !started => {
                        return Err(SpecError::StrayComma { span: *c });
                    }
                    _ => {}
                }
                push_axis(&mut row, axis.clone());
                started = true;
            }
            Item::Ellipsis(e) => {
                if let Some(first) = &row.ellipsis {
                    return Err(SpecError::TwoEllipses { first: first.span, second: e.span });
                }
                row.ellipsis = Some(e.clone());
                started = true;
            }
            Item::Comma(c) => {
                if let Some(Item::Comma(_)) = prev {
                    return Err(SpecError::StrayComma { span: *c });
                }
            }
        }
        prev = Some(item);
    }
    close_row(&mut row);
    Ok(row)
}

fn push_axis(row: &mut Row, axis: Axis) {
    if row.ellipsis.is_some() {
        row.trailing.push(axis);
    } else {
        row.leading.push(axis);
    }
}

/// Builds a convolution axis from the stride, the `over` label, the padding marker and the
/// kernel term `(offset, dilation, kernel)`.
pub fn conv(
    stride: Coeff,
    over: (Box<str>, Span),
    padding: Padding,
    kernel: (u64, Coeff, (Box<str>, Span)),
) -> Affine {
    let (offset, dilation, (kernel, kernel_span)) = kernel;
    Affine {
        stride,
        over: over.0,
        over_span: over.1,
        offset,
        conv: Some(Conv { dilation, kernel, padding, kernel_span }),
    }
}

/// Moves the axes of a row without an ellipsis to the trailing flank (a closed row's axes are
/// all trailing).
fn close_row(row: &mut Row) {
    if row.ellipsis.is_none() && !row.leading.is_empty() {
        let mut axes: SmallVec<[Axis; 4]> = std::mem::take(&mut row.leading);
        axes.extend(std::mem::take(&mut row.trailing));
        row.trailing = axes;
    }
}
