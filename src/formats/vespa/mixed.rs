//! The short forms keyed by labels: the map form `{a:1, b:2}`, the mixed form with one or more
//! mapped dimensions nested in written order (`{a:{b:[[1,2],[3,4]]}}`), each leaf a number or a
//! dense block, and `{0:1.0, 2:3.0}` for a single unbound indexed dimension.

use super::builder::Builder;
use super::dense::{expect_end, parse_block, DenseLayout};
use super::error::{Result, VespaError};
use super::scanner::Scanner;
use super::tensor::Tensor;
use super::types::{DimKind, TensorType};
use crate::span::Span;

/// What the nested parser needs to know about the type.
struct Shape<'t> {
    ty: &'t TensorType,
    /// Canonical positions of the mapped dimensions, in written order.
    mapped: Vec<usize>,
    layout: DenseLayout,
}

/// Parses `{label: ...}` for a type that is known and not rank 0.
pub(crate) fn parse_mixed(
    mut sc: Scanner,
    ty: &TensorType,
    order: Option<&[String]>,
    span: Span,
) -> Result<Tensor> {
    let names: Vec<&str> = match order {
        Some(o) => o.iter().map(String::as_str).collect(),
        None => ty.dims().iter().map(|d| d.name()).collect(),
    };
    let mapped: Vec<usize> =
        names.iter().filter_map(|n| ty.index_of(n)).filter(|&i| ty.dims()[i].is_mapped()).collect();
    if mapped.is_empty() {
        if ty.rank() == 1 && ty.dims()[0].kind() == DimKind::Indexed(None) {
            return parse_single_unbound(sc, ty, span);
        }
        return Err(VespaError::type_error(
            span,
            format!("no suitable dimension in {ty} for the mixed form {{label:...}}: it needs a mapped dimension"),
        ));
    }
    if ty.has_unbound() {
        return Err(VespaError::type_error(
            span,
            format!("the mixed form {{label:...}} needs bound indexed dimensions, not {ty}"),
        ));
    }
    let shape = Shape { ty, mapped, layout: DenseLayout::new(ty, order) };
    let mut b = Builder::new(ty, span)?;
    sc.consume('{')?;
    sc.skip_space();
    while sc.pos + 1 < sc.end() {
        let mut labels = Vec::with_capacity(shape.mapped.len());
        parse_subspace(&mut sc, 0, &mut labels, &shape, &mut b)?;
        if !sc.separator('}')? {
            break;
        }
    }
    sc.consume('}')?;
    // Java reads no further than the closing '}': text after it is ignored.
    b.build(span)
}

fn parse_subspace(
    sc: &mut Scanner,
    level: usize,
    labels: &mut Vec<String>,
    shape: &Shape,
    b: &mut Builder,
) -> Result<()> {
    if level >= shape.mapped.len() {
        return Err(VespaError::syntax(
            sc.here(),
            format!(
                "too many nested {{label:...}} levels: {} has {} mapped dimension(s)",
                shape.ty,
                shape.mapped.len()
            ),
        ));
    }
    let start = sc.pos;
    let (label, _) = sc.label()?;
    labels.truncate(level);
    labels.push(label);
    sc.consume(':')?;
    if sc.consume_optional('{') {
        loop {
            parse_subspace(sc, level + 1, labels, shape, b)?;
            if !sc.separator('}')? {
                break;
            }
        }
        return sc.consume('}');
    }
    if level + 1 < shape.mapped.len() {
        return Err(VespaError::syntax(
            sc.here(),
            format!(
                "not enough nested {{label:...}} levels: {} has {} mapped dimensions",
                shape.ty,
                shape.mapped.len()
            ),
        ));
    }
    let mut address: Vec<Option<String>> = vec![None; shape.ty.rank()];
    for (&dim, label) in shape.mapped.iter().zip(labels.iter()) {
        address[dim] = Some(label.clone());
    }
    if shape.ty.has_indexed() {
        let mut values = vec![0.0; shape.layout.total()];
        parse_block(sc, &shape.layout, shape.ty.cell_type(), &mut values, true)?;
        let canonical: Vec<String> = address.into_iter().flatten().collect();
        b.block(canonical, &values, Span::new(start, sc.pos))
    } else {
        let (value, vspan) = sc.number(shape.ty.cell_type())?;
        b.cell(address, value, Span::new(start, vspan.end as usize))
    }
}

/// `{0:1.0, 2:3.0}` for `tensor(x[])`: labels are indices, missing cells are 0.
fn parse_single_unbound(mut sc: Scanner, ty: &TensorType, span: Span) -> Result<Tensor> {
    let mut b = Builder::new(ty, span)?;
    sc.skip_space();
    sc.consume('{')?;
    sc.skip_space();
    while sc.pos + 1 < sc.end() {
        let start = sc.pos;
        let (label, _) = sc.label()?;
        sc.consume(':')?;
        let (value, vspan) = sc.number(ty.cell_type())?;
        b.cell(vec![Some(label)], value, Span::new(start, vspan.end as usize))?;
        if !sc.separator('}')? {
            sc.consume('}')?;
        }
        sc.skip_space();
    }
    sc.consume_optional('}');
    expect_end(&mut sc, "the closing '}'")?;
    b.build(span)
}
