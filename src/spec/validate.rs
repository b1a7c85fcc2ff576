//! Rules checked right after parsing, before any solving: a name is either an axis label or a
//! row variable (per spec), strides and dilations are positive, and fixed-size concatenation
//! components appear only where they are read.

use smallvec::SmallVec;

use super::assemble::Seen;
use super::ast::{AxisKind, Coeff, ConcatPart, RowKind, ShapeSpec};
use super::error::SpecError;
use crate::span::Span;

/// Checks every slot of a spec together (names are shared by all slots of one spec); `seen`
/// says what the text contains, so that rules that cannot apply are not scanned for.
pub fn check_slots<'a>(
    slots: impl Iterator<Item = &'a ShapeSpec> + Clone,
    result: Option<&ShapeSpec>,
    seen: Seen,
) -> Result<(), SpecError> {
    // Specs are short: linear scans over inline vectors beat hashing here.
    let mut labels: Names = SmallVec::new();
    let mut row_vars: Names = SmallVec::new();
    for slot in slots {
        if seen.row_vars && seen.labels {
            collect_names(slot, &mut labels, &mut row_vars)?;
        } else if seen.affine {
            // Without both labels and row variables no name can clash: only the coefficients
            // need checking.
            for (_, row) in slot.rows() {
                row.axes().try_for_each(|a| check_coefficients(&a.kind, a.span))?;
            }
        }
    }
    for (name, row_span) in &row_vars {
        if let Some((_, label_span)) = labels.iter().find(|(l, _)| l == name) {
            return Err(SpecError::NameClash {
                name: (*name).into(),
                label: *label_span,
                row_var: *row_span,
            });
        }
    }
    if let (Some(result), true) = (result, seen.concat) {
        check_result(result)?;
    }
    Ok(())
}

/// Names with the span of their first use.
type Names<'a> = SmallVec<[(&'a str, Span); 16]>;

fn note_first<'a>(names: &mut Names<'a>, name: &'a str, span: Span) {
    if !names.iter().any(|(n, _)| *n == name) {
        names.push((name, span));
    }
}

fn collect_names<'a>(
    slot: &'a ShapeSpec,
    labels: &mut Names<'a>,
    row_vars: &mut Names<'a>,
) -> Result<(), SpecError> {
    for (kind, row) in slot.rows() {
        if let Some(e) = &row.ellipsis {
            note_first(row_vars, row_var_name(e.name.as_deref(), kind), e.span);
        }
        for axis in row.axes() {
            for_each_label(&axis.kind, axis.span, |name, span| note_first(labels, name, span));
            check_coefficients(&axis.kind, axis.span)?;
        }
    }
    Ok(())
}

fn row_var_name(name: Option<&str>, kind: RowKind) -> &str {
    name.unwrap_or(kind.name())
}

/// Calls `f` with every label an axis mentions and the span to blame for it.
pub fn for_each_label<'a>(kind: &'a AxisKind, span: Span, mut f: impl FnMut(&'a str, Span)) {
    match kind {
        AxisKind::Label(l) => f(l, span),
        AxisKind::Placeholder | AxisKind::Int(_) => {}
        AxisKind::Affine(a) => {
            f(&a.over, a.over_span);
            if let Some(c) = &a.conv {
                f(&c.kernel, c.kernel_span);
            }
        }
        AxisKind::Concat(parts) => {
            for p in parts {
                if let ConcatPart::Label(l) = p {
                    f(l, span);
                }
            }
        }
    }
}

fn check_coefficients(kind: &AxisKind, span: Span) -> Result<(), SpecError> {
    if let AxisKind::Affine(a) = kind {
        let zero_dilation = a.conv.as_ref().is_some_and(|c| c.dilation == Coeff::Int(0));
        if a.stride == Coeff::Int(0) || zero_dilation {
            return Err(SpecError::ZeroCoefficient { span });
        }
    }
    Ok(())
}

fn check_result(result: &ShapeSpec) -> Result<(), SpecError> {
    for (_, row) in result.rows() {
        for axis in row.axes() {
            if let AxisKind::Concat(parts) = &axis.kind {
                if parts.iter().any(|p| matches!(p, ConcatPart::Size(_))) {
                    return Err(SpecError::ConcatSizeInResult { span: axis.span });
                }
            }
        }
    }
    Ok(())
}
