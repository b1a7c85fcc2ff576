//! Random operand shapes that fit a given einsum spec: each label gets one dimension, each row
//! variable one axis list, fixed indices get sizes above them, strided and convolution axes
//! the extent of their formula, concatenations the sum of their components. With the
//! operands comes the result shape the spec implies, where it is determined.

use proptest::prelude::*;

use super::gen::Choices;
use super::model::{ConcreteDim, ConcreteRow, ConcreteShape};
use crate::spec::ast::ShapeSpec;
use crate::spec::ast::{Affine, AxisKind, Coeff, ConcatPart, EinsumSpec, Padding, Row, RowKind};

/// Values chosen for a spec's names.
#[derive(Default)]
struct Env {
    labels: Vec<(String, ConcreteDim)>,
    rows: Vec<(String, Vec<ConcreteDim>)>,
}

impl Env {
    fn label(&mut self, ch: &mut Choices, name: &str) -> ConcreteDim {
        if let Some((_, d)) = self.labels.iter().find(|(n, _)| n == name) {
            return d.clone();
        }
        let d = match ch.below(8) {
            7 => ConcreteDim::top(),
            _ => ConcreteDim::new(1 + ch.below(5) as u64),
        };
        self.labels.push((name.to_string(), d.clone()));
        d
    }

    fn row_var(&mut self, ch: &mut Choices, name: &str) -> Vec<ConcreteDim> {
        if let Some((_, v)) = self.rows.iter().find(|(n, _)| n == name) {
            return v.clone();
        }
        let v: Vec<ConcreteDim> =
            (0..ch.below(3)).map(|_| ConcreteDim::new(1 + ch.below(4) as u64)).collect();
        self.rows.push((name.to_string(), v.clone()));
        v
    }

    /// The dimension an operand axis must have; `None` when the spec cannot be fitted (a
    /// host-language coefficient, an unspecified padding).
    fn axis(&mut self, ch: &mut Choices, kind: &AxisKind) -> Option<ConcreteDim> {
        Some(match kind {
            AxisKind::Label(l) => self.label(ch, l),
            AxisKind::Placeholder => ConcreteDim::new(1 + ch.below(4) as u64),
            AxisKind::Int(i) => ConcreteDim::new(i.checked_add(1 + ch.below(2) as u64)?),
            AxisKind::Affine(a) => ConcreteDim::new(self.affine(ch, a)?),
            AxisKind::Concat(parts) => {
                let mut n: u64 = 0;
                for p in parts {
                    n = n.checked_add(match p {
                        ConcatPart::Size(s) => *s,
                        ConcatPart::Label(l) => self.label(ch, l).size,
                    })?;
                }
                ConcreteDim::new(n)
            }
            AxisKind::Flat(labels) => {
                let mut n: u64 = 1;
                for (l, _) in labels {
                    n = n.checked_mul(self.label(ch, l).size)?;
                }
                ConcreteDim::new(n)
            }
        })
    }

    fn affine(&mut self, ch: &mut Choices, a: &Affine) -> Option<u64> {
        let int =
            |c: &Coeff| if let Coeff::Int(n) = c { Some(*n).filter(|n| *n > 0) } else { None };
        let (s, o) = (int(&a.stride)?, self.label(ch, &a.over).size);
        match &a.conv {
            None => s.checked_mul(o),
            Some(c) if c.padding == Padding::Same => s.checked_mul(o),
            Some(c) if c.padding == Padding::Valid => {
                let k = self.label(ch, &c.kernel).size;
                let span = int(&c.dilation)?.checked_mul(k.checked_sub(1)?)?.checked_add(1)?;
                s.checked_mul(o.checked_sub(1)?)?.checked_add(span)
            }
            Some(_) => None,
        }
    }

    fn row(&mut self, ch: &mut Choices, r: &Row, kind: RowKind) -> Option<ConcreteRow> {
        let mut dims = Vec::new();
        for a in &r.leading {
            dims.push(self.axis(ch, &a.kind)?);
        }
        if let Some(e) = &r.ellipsis {
            dims.extend(self.row_var(ch, e.var_name(kind)));
        }
        for a in &r.trailing {
            dims.push(self.axis(ch, &a.kind)?);
        }
        Some(ConcreteRow::trailing(dims))
    }

    fn slot(&mut self, ch: &mut Choices, slot: &ShapeSpec) -> Option<ConcreteShape> {
        let mut shape = ConcreteShape::default();
        for (kind, r) in slot.rows() {
            *shape.row_mut(kind) = self.row(ch, r, kind)?;
        }
        Some(shape)
    }
}

/// Operand shapes, and the result shape when the operands determine it.
pub type Fitted = (Vec<ConcreteShape>, Option<ConcreteShape>);

/// Operand shapes fitting `spec`'s right-hand slots, and the result shape its left-hand slot
/// then has (`None` when that is not determined by the operands: a label, placeholder or row
/// variable only on the left, or a fixed index there). `None` overall when the spec cannot be
/// fitted.
pub fn shapes_for(
    ch: &mut Choices,
    spec: &EinsumSpec,
) -> Option<(Vec<ConcreteShape>, Option<ConcreteShape>)> {
    let mut env = Env::default();
    let operands: Vec<ConcreteShape> =
        spec.rhs.iter().map(|s| env.slot(ch, s)).collect::<Option<_>>()?;
    let (labels, rows) = (env.labels.len(), env.rows.len());
    let result = env.slot(ch, &spec.lhs);
    let fresh = env.labels.len() > labels || env.rows.len() > rows;
    let guessed = spec
        .lhs
        .rows()
        .any(|(_, r)| r.axes().any(|a| matches!(a.kind, AxisKind::Int(_) | AxisKind::Placeholder)));
    Some((operands, result.filter(|_| !fresh && !guessed)))
}

/// Strategy: a spec from `specs` with operand shapes that fit it.
pub fn spec_with_shapes(
    specs: impl Strategy<Value = EinsumSpec>,
) -> impl Strategy<Value = (EinsumSpec, Option<Fitted>)> {
    (specs, proptest::collection::vec(any::<u32>(), 0..64)).prop_map(|(spec, data)| {
        let fitted = shapes_for(&mut Choices::new(&data), &spec);
        (spec, fitted)
    })
}

/// Rewrites the result slot to use only what the operand slots name: a result label the
/// operands lack becomes one of theirs (dropped when they have none), a result row variable
/// they lack is dropped. Such a spec's result is determined by its operands.
pub fn result_from_operands(spec: &mut EinsumSpec) {
    let mut labels: Vec<crate::spec::ast::Name> = Vec::new();
    let mut vars: Vec<String> = Vec::new();
    for slot in &spec.rhs {
        for (kind, r) in slot.rows() {
            if let Some(e) = &r.ellipsis {
                vars.push(e.var_name(kind).to_string());
            }
            labels.extend(r.axes().filter_map(|a| match &a.kind {
                AxisKind::Label(l) => Some(l.clone()),
                _ => None,
            }));
        }
    }
    let mut next = 0usize;
    let lhs = &mut spec.lhs;
    for (kind, r) in [
        (RowKind::Batch, lhs.batch.as_deref_mut()),
        (RowKind::Input, lhs.input.as_deref_mut()),
        (RowKind::Output, Some(&mut lhs.output)),
    ] {
        let Some(r) = r else { continue };
        if r.ellipsis.as_ref().is_some_and(|e| !vars.iter().any(|v| v == e.var_name(kind))) {
            r.ellipsis = None;
            let lead: Vec<_> = r.leading.drain(..).collect();
            r.trailing.insert_many(0, lead);
        }
        for axes in [&mut r.leading, &mut r.trailing] {
            axes.retain(|a| !matches!(a.kind, AxisKind::Label(_)) || !labels.is_empty());
            for a in axes.iter_mut() {
                if let AxisKind::Label(l) = &a.kind {
                    if !labels.contains(l) {
                        a.kind = AxisKind::Label(labels[next % labels.len()].clone());
                        next += 1;
                    }
                }
            }
        }
    }
}
