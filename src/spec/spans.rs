//! Erasing spans, to compare trees parsed from different texts.

use super::ast::{AxisKind, EinsumSpec, LabelsSpec, NumpySpec, Row, ShapeSpec};
use crate::span::Span;

fn erase_row(row: &mut Row) {
    row.span = Span::default();
    if let Some(e) = &mut row.ellipsis {
        e.span = Span::default();
    }
    for axis in row.leading.iter_mut().chain(row.trailing.iter_mut()) {
        axis.span = Span::default();
        if let AxisKind::Affine(a) = &mut axis.kind {
            a.over_span = Span::default();
            if let Some(c) = &mut a.conv {
                c.kernel_span = Span::default();
            }
        }
    }
}

fn erase_shape(shape: &mut ShapeSpec) {
    shape.span = Span::default();
    for row in [&mut shape.batch, &mut shape.input].into_iter().flatten() {
        erase_row(row);
    }
    erase_row(&mut shape.output);
}

impl ShapeSpec {
    /// The same slot with every span set to `0..0`.
    pub fn without_spans(&self) -> ShapeSpec {
        let mut s = self.clone();
        erase_shape(&mut s);
        s
    }
}

impl LabelsSpec {
    /// The same spec with every span set to `0..0`.
    pub fn without_spans(&self) -> LabelsSpec {
        LabelsSpec { shape: self.shape.without_spans(), multichar: self.multichar }
    }
}

impl EinsumSpec {
    /// The same spec with every span set to `0..0`.
    pub fn without_spans(&self) -> EinsumSpec {
        EinsumSpec {
            rhs: self.rhs.iter().map(ShapeSpec::without_spans).collect(),
            lhs: self.lhs.without_spans(),
            multichar: self.multichar,
        }
    }
}

impl NumpySpec {
    /// The same spec with every span set to `0..0`.
    pub fn without_spans(&self) -> NumpySpec {
        let mut s = self.clone();
        for row in s.inputs.iter_mut().chain(s.output.iter_mut()) {
            erase_row(row);
        }
        s
    }
}
