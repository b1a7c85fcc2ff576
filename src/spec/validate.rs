//! Rules checked right after parsing, before any solving: a name is either an axis label or a
//! row variable (per spec), strides and dilations are positive, and fixed-size concatenation
//! components appear only where they are read.

use std::collections::HashMap;

use super::ast::{AxisKind, Coeff, ConcatPart, RowKind, ShapeSpec};
use super::error::SpecError;
use crate::span::Span;

/// Checks every slot of a spec together (names are shared by all slots of one spec).
pub fn check_slots<'a>(
    slots: impl Iterator<Item = &'a ShapeSpec> + Clone,
    result: Option<&ShapeSpec>,
) -> Result<(), SpecError> {
    let mut labels: HashMap<&str, Span> = HashMap::new();
    let mut row_vars: HashMap<&str, Span> = HashMap::new();
    for slot in slots.clone() {
        collect_names(slot, &mut labels, &mut row_vars)?;
    }
    for (name, row_span) in &row_vars {
        if let Some(label_span) = labels.get(name) {
            return Err(SpecError::NameClash {
                name: (*name).into(),
                label: *label_span,
                row_var: *row_span,
            });
        }
    }
    if let Some(result) = result {
        check_result(result)?;
    }
    Ok(())
}

fn collect_names<'a>(
    slot: &'a ShapeSpec,
    labels: &mut HashMap<&'a str, Span>,
    row_vars: &mut HashMap<&'a str, Span>,
) -> Result<(), SpecError> {
    for (kind, row) in slot.rows() {
        if let Some(e) = &row.ellipsis {
            row_vars.entry(row_var_name(e.name.as_deref(), kind)).or_insert(e.span);
        }
        for axis in row.axes() {
            for (name, span) in axis_labels(&axis.kind, axis.span) {
                labels.entry(name).or_insert(span);
            }
            check_coefficients(&axis.kind, axis.span)?;
        }
    }
    Ok(())
}

fn row_var_name(name: Option<&str>, kind: RowKind) -> &str {
    name.unwrap_or(kind.name())
}

/// The labels an axis mentions, with the span to blame for each.
pub fn axis_labels(kind: &AxisKind, span: Span) -> Vec<(&str, Span)> {
    match kind {
        AxisKind::Label(l) => vec![(l, span)],
        AxisKind::Placeholder | AxisKind::Int(_) => Vec::new(),
        AxisKind::Affine(a) => {
            let mut v = vec![(&*a.over, a.over_span)];
            if let Some(c) = &a.conv {
                v.push((&c.kernel, c.kernel_span));
            }
            v
        }
        AxisKind::Concat(parts) => parts
            .iter()
            .filter_map(|p| match p {
                ConcatPart::Label(l) => Some((&**l, span)),
                ConcatPart::Size(_) => None,
            })
            .collect(),
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
