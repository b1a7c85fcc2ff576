//! The general (cell) form `{{x:a,y:0}:1.0, ...}`, its scalar variants `{5.0}` and `{}`, and
//! the inference of its type (all mapped, double) from the first address. As in Java, a ','
//! may follow the last cell and the last pair of an address.

use super::builder::Builder;
use super::cell::CellType;
use super::error::{Result, VespaError};
use super::scanner::Scanner;
use super::tensor::Tensor;
use super::types::{check_name, check_rank, Dimension, TensorType};
use crate::span::Span;

/// Parses `{cell, ...}`; without a type, the type is inferred from the first address.
pub(crate) fn parse_general(mut sc: Scanner, ty: Option<TensorType>, span: Span) -> Result<Tensor> {
    let ty = match ty {
        Some(t) => t,
        None => infer_type(sc.clone(), span)?,
    };
    let mut b = Builder::new(&ty, span)?;
    sc.consume('{')?;
    loop {
        sc.skip_space();
        if matches!(sc.peek(), None | Some('}')) {
            break;
        }
        let start = sc.pos;
        let address = parse_address(&mut sc, &ty)?;
        if ty.rank() > 0 {
            sc.consume(':')?;
        } else {
            sc.consume_optional(':');
        }
        let (value, vspan) = sc.number(ty.cell_type())?;
        b.cell(address, value, Span::new(start, vspan.end as usize))?;
        // A ',' before the closing '}' is accepted, as Java does.
        if !sc.consume_optional(',') {
            break;
        }
    }
    if !sc.consume_optional('}') {
        return Err(VespaError::syntax(sc.here(), "a tensor in the cell form must end with '}'"));
    }
    sc.skip_space();
    if !sc.at_end() {
        return Err(VespaError::syntax(
            Span::new(sc.pos, sc.end()),
            format!("unexpected text after the closing '}}': '{}'", sc.rest()),
        ));
    }
    b.build(span)
}

/// Reads `{dim:label, ...}` (or nothing, for a scalar cell) into one slot per dimension.
fn parse_address(sc: &mut Scanner, ty: &TensorType) -> Result<Vec<Option<String>>> {
    let mut address = vec![None; ty.rank()];
    if !sc.consume_optional('{') {
        return Ok(address);
    }
    address_pairs(sc, |dim, dspan, label| {
        let Some(i) = ty.index_of(&dim) else {
            return Err(VespaError::label(
                dspan,
                format!("{ty} does not contain dimension '{dim}'"),
            ));
        };
        if address[i].is_some() {
            return Err(VespaError::label(
                dspan,
                format!("dimension '{dim}' appears twice in one address"),
            ));
        }
        address[i] = Some(label);
        Ok(())
    })?;
    Ok(address)
}

/// Reads the `dim:label` pairs of an address whose `{` was just read, through its `}`: pairs
/// separated by single commas (A.2: `address = "{" [ pair { "," pair } ] "}"`), and, as Java
/// reads them, a ',' before the closing '}'.
fn address_pairs(
    sc: &mut Scanner,
    mut pair: impl FnMut(String, Span, String) -> Result<()>,
) -> Result<()> {
    if sc.consume_optional('}') {
        return Ok(());
    }
    loop {
        let (dim, dspan) = sc.identifier()?;
        sc.consume(':')?;
        let (label, _) = sc.label()?;
        pair(dim, dspan, label)?;
        if !sc.consume_optional(',') {
            return sc.consume('}');
        }
        if sc.consume_optional('}') {
            return Ok(());
        }
    }
}

/// The type of a literal without one: every dimension of the first address, mapped, double.
/// `{}` and `{5.0}` are rank 0.
fn infer_type(mut sc: Scanner, span: Span) -> Result<TensorType> {
    sc.consume('{')?;
    let mut dims: Vec<Dimension> = Vec::new();
    if sc.consume_optional('{') {
        address_pairs(&mut sc, |dim, dspan, _| {
            check_name(&dim, dspan)?;
            check_rank(dims.len() + 1, dspan)?;
            if dims.iter().any(|d| d.name() == dim) {
                return Err(VespaError::label(
                    dspan,
                    format!("dimension '{dim}' appears twice in one address"),
                ));
            }
            dims.push(Dimension::mapped(dim));
            Ok(())
        })?;
    }
    TensorType::new(CellType::Double, dims, span)
}
