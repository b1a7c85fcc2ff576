//! Rules checked right after parsing, before any solving: a name is either an axis label or a
//! row variable (per spec), strides and dilations are positive, and fixed-size concatenation
//! components appear only where they are read.

use std::collections::HashMap;

use foldhash::fast::FixedState;
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
    let mut labels = Names::default();
    let mut row_vars = Names::default();
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
    for (name, row_span) in &row_vars.list {
        if let Some(label_span) = labels.get(name) {
            return Err(SpecError::NameClash {
                name: (*name).into(),
                label: label_span,
                row_var: *row_span,
            });
        }
    }
    if let (Some(result), true) = (result, seen.concat) {
        check_result(result)?;
    }
    Ok(())
}

/// Up to this many names are looked up by a linear scan (specs are short: scanning an inline
/// vector beats hashing); past it, through an index.
const SCAN: usize = 32;

/// Names with the span of their first use, in order.
#[derive(Default)]
struct Names<'a> {
    list: SmallVec<[(&'a str, Span); 16]>,
    /// Every name of `list`, once it holds [`SCAN`] names: a spec of many labels costs one
    /// lookup per label, not a scan.
    index: HashMap<&'a str, Span, FixedState>,
}

impl<'a> Names<'a> {
    fn note_first(&mut self, name: &'a str, span: Span) {
        if self.list.len() < SCAN {
            if self.get(name).is_none() {
                self.list.push((name, span));
            }
            return;
        }
        if self.index.is_empty() {
            self.index.extend(self.list.iter().copied());
        }
        if let std::collections::hash_map::Entry::Vacant(v) = self.index.entry(name) {
            v.insert(span);
            self.list.push((name, span));
        }
    }

    /// The span of a name's first use.
    fn get(&self, name: &str) -> Option<Span> {
        if self.index.is_empty() {
            self.list.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
        } else {
            self.index.get(name).copied()
        }
    }
}

fn collect_names<'a>(
    slot: &'a ShapeSpec,
    labels: &mut Names<'a>,
    row_vars: &mut Names<'a>,
) -> Result<(), SpecError> {
    for (kind, row) in slot.rows() {
        if let Some(e) = &row.ellipsis {
            row_vars.note_first(row_var_name(e.name.as_deref(), kind), e.span);
        }
        for axis in row.axes() {
            for_each_label(&axis.kind, axis.span, |name, span| labels.note_first(name, span));
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
        AxisKind::Flat(labels) => {
            for (l, at) in labels {
                f(l, *at);
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

#[cfg(test)]
mod tests {
    use crate::spec::error::SpecError;
    use crate::spec::parse_einsum;

    /// A name used both as a label and as a row variable clashes, found by a scan in a short
    /// spec and through the index in a long one, with the spans of both first uses.
    #[test]
    fn name_clashes_are_found_in_short_and_long_specs() {
        for n in [3, super::SCAN * 4] {
            let labels: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
            let l = labels.join(",");
            let clash = &labels[n - 2];
            let text = format!("{l};..{clash}..,b=>b,{l}");
            let Err(SpecError::NameClash { name, label, row_var }) = parse_einsum(&text) else {
                panic!("a clash in {text}");
            };
            assert_eq!(name.as_str(), clash.as_str());
            let first = text.find(&format!("{clash},")).expect("the label is written");
            assert_eq!(label.start as usize, first);
            assert_eq!(&text[row_var.start as usize..row_var.end as usize], format!("..{clash}.."));
            assert!(parse_einsum(&format!("{l};..r..,b=>b,{l}")).is_ok());
        }
    }
}
