//! Decoding Vespa tensor JSON (`JsonFormat.decode`): `cells` (list of address/value objects or
//! a `{label: value}` object), `values` (nested lists read flat in canonical order, or hex),
//! `blocks` (object or list), or the same content directly at the root. A `"type"` member is
//! not checked against the declared type. An address given twice in a `cells` or `blocks`
//! list is an error, as in literals (a repeated object key never gets here: the reader keeps
//! its first value).

use super::builder::Builder;
use super::error::{Result, VespaError};
use super::hex;
use super::javanum::parse_double;
use super::json_reader::{read_json, Json, Node};
use super::tensor::Tensor;
use super::types::TensorType;

/// Decodes tensor JSON for `ty`; without a type, the document's `"type"` member gives it.
///
/// A document of more than [`MAX_JSON_VALUES`](super::MAX_JSON_VALUES) values is a `value`
/// error, and the tensor's limits are those of [`Tensor::from_literal`].
pub fn decode_json(text: &str, ty: Option<&TensorType>) -> Result<Tensor> {
    let root = read_json(text)?;
    let declared;
    let ty = match ty {
        Some(t) => t,
        None => {
            declared = type_member(&root)?;
            &declared
        }
    };
    let mut b = Builder::new(ty, root.span)?;
    decode_root(&root, &mut b)?;
    b.build(root.span)
}

fn type_member(root: &Node) -> Result<TensorType> {
    let Some(node) = root.get("type") else {
        return Err(VespaError::unresolved(
            root.span,
            "no tensor type was given and the JSON has no \"type\" member",
        ));
    };
    match node.value() {
        Json::Str(s) => {
            TensorType::parse(&s).map_err(|e| VespaError::syntax(node.span, e.message()))
        }
        _ => Err(VespaError::type_error(node.span, "the \"type\" member must be a string")),
    }
}

fn decode_root(root: &Node, b: &mut Builder) -> Result<()> {
    if let Some(cells) = root.get("cells").filter(|c| !primitive(c)) {
        return decode_cells(&cells, b);
    }
    if let Some(values) = root.get("values").filter(|_| !b.ty().has_mapped()) {
        return decode_values(&values, b);
    }
    if let Some(blocks) = root.get("blocks") {
        return decode_blocks(&blocks, b);
    }
    if array_of_objects(root) {
        decode_cells(root, b)
    } else if !b.ty().has_mapped() {
        decode_values(root, b)
    } else if b.ty().has_indexed() {
        decode_blocks(root, b)
    } else {
        decode_cells(root, b)
    }
}

/// A reserved member whose content is a number (or a list starting with one) is a label.
fn primitive(node: &Node) -> bool {
    node.is_number() || (node.is_array() && node.first().is_some_and(|n| n.is_number()))
}

fn array_of_objects(node: &Node) -> bool {
    let mut node = *node;
    // Each step goes one level deeper into a checked document of bounded depth.
    while node.is_array() {
        match node.first() {
            Some(first) if first.is_array() => node = first,
            Some(first) => return first.is_object(),
            None => return false,
        }
    }
    false
}

fn decode_cells(cells: &Node, b: &mut Builder) -> Result<()> {
    match cells.value() {
        Json::Array => cells.items().try_for_each(|cell| decode_cell(&cell, b)),
        Json::Object => {
            for (label, value) in cells.members() {
                let address = single_address(b.ty(), &label, &value)?;
                b.cell(address, number(&value, b)?, value.span)?;
            }
            Ok(())
        }
        _ => Err(VespaError::type_error(
            cells.span,
            format!("expected 'cells' to be an array or an object, not {}", cells.type_name()),
        )),
    }
}

fn decode_cell(cell: &Node, b: &mut Builder) -> Result<()> {
    let address = address(cell.get("address"), cell, b.ty())?;
    let Some(value) = cell.get("value") else {
        return Err(VespaError::syntax(cell.span, "expected a cell to have a numeric 'value'"));
    };
    b.cell(address, number(&value, b)?, cell.span)
}

/// An `"address"` object: one string label per dimension of `ty`.
fn address(node: Option<Node>, parent: &Node, ty: &TensorType) -> Result<Vec<Option<String>>> {
    let node =
        node.ok_or_else(|| VespaError::syntax(parent.span, "expected an 'address' object"))?;
    if !node.is_object() {
        return Err(VespaError::syntax(
            node.span,
            format!("expected an 'address' object, not {}", node.type_name()),
        ));
    };
    let mut out = vec![None; ty.rank()];
    for (dim, label) in node.members() {
        let Some(i) = ty.index_of(&dim) else {
            return Err(VespaError::label(
                label.span,
                format!("{ty} does not contain dimension '{dim}'"),
            ));
        };
        let Json::Str(s) = label.value() else {
            return Err(VespaError::type_error(
                label.span,
                format!("the label of '{dim}' must be a string"),
            ));
        };
        out[i] = Some(s.into_owned());
    }
    Ok(out)
}

/// The address of `{label: ...}` content: the type must have exactly one dimension.
fn single_address(ty: &TensorType, label: &str, at: &Node) -> Result<Vec<Option<String>>> {
    if ty.rank() != 1 {
        return Err(VespaError::type_error(
            at.span,
            format!("{{label: value}} needs a tensor with a single dimension, not {ty}"),
        ));
    }
    Ok(vec![Some(label.to_string())])
}

/// A cell value: a number, a number string (`"Infinity"`, `"-inf"`, `"nan"`, `"1.5"`, ...), or
/// `null` for NaN; narrowed to the cell type.
fn number(node: &Node, b: &Builder) -> Result<f64> {
    let v = match node.value() {
        Json::Long(n) => n as f64,
        Json::Double(d) => d,
        Json::Null => f64::NAN,
        Json::Str(s) => number_string(&s)
            .ok_or_else(|| VespaError::syntax(node.span, format!("'{s}' is not a number")))?,
        _ => {
            return Err(VespaError::type_error(
                node.span,
                format!("expected a number, not {}", node.type_name()),
            ))
        }
    };
    Ok(b.ty().cell_type().narrow(v))
}

/// Vespa's `decodeNumberString`: infinities and NaN in several spellings, else a Java double.
pub(crate) fn number_string(s: &str) -> Option<f64> {
    match s.to_ascii_lowercase().as_str() {
        "infinity" | "+infinity" | "inf" | "+inf" => Some(f64::INFINITY),
        "-infinity" | "-inf" => Some(f64::NEG_INFINITY),
        "nan" | "+nan" | "-nan" => Some(f64::NAN),
        _ => parse_double(s),
    }
}

/// `values` of a bound dense type: nested lists read flat in canonical order (nesting is not
/// checked; missing values stay 0), or a hex string.
fn decode_values(values: &Node, b: &mut Builder) -> Result<()> {
    if b.ty().has_mapped() || !b.is_bound() {
        return Err(VespaError::type_error(
            values.span,
            format!("a list of values needs a bound dense type, not {}", b.ty()),
        ));
    }
    match values.value() {
        Json::Str(s) => {
            let decoded = decode_hex(&s, values, b)?;
            decoded.into_iter().enumerate().try_for_each(|(i, v)| b.direct(i, v, values.span))
        }
        Json::Array => flat_values(values, b, &mut 0),
        _ => Err(VespaError::type_error(
            values.span,
            format!("expected values to be an array, not {}", values.type_name()),
        )),
    }
}

fn flat_values(list: &Node, b: &mut Builder, next: &mut usize) -> Result<()> {
    if !list.is_array() {
        return Ok(());
    }
    let mut items = list.items().peekable();
    if items.peek().is_none() {
        return Err(VespaError::elems(list.span, "the values array does not contain any values"));
    }
    for item in items {
        match item.value() {
            Json::Array => flat_values(&item, b, next)?,
            Json::Bool(_) | Json::Object => {
                return Err(VespaError::type_error(
                    item.span,
                    format!(
                        "expected the values array to contain numbers or nested arrays, not {}",
                        item.type_name()
                    ),
                ))
            }
            _ => {
                let v = number(&item, b)?;
                b.direct(*next, v, item.span)?;
                *next += 1;
            }
        }
    }
    Ok(())
}

/// Hex cells for a block of `b.dense_size()` cells, narrowed to the cell type. The width per
/// cell is the cell type's, or else inferred from the length (2, 4, 8 or 16 digits per cell;
/// int8 accepts only 2). A shorter string of the cell type's width fills the first cells.
fn decode_hex(s: &str, node: &Node, b: &Builder) -> Result<Vec<f64>> {
    let cell = b.ty().cell_type();
    let cells = b.dense_size();
    if s.is_empty() {
        return Err(VespaError::elems(node.span, "the values string does not contain any values"));
    }
    let own = cell.hex_digits();
    let inferred = (cells > 0 && s.len().is_multiple_of(cells))
        .then(|| s.len() / cells)
        .filter(|w| [2, 4, 8, 16].contains(w));
    let width = match inferred {
        Some(w) if w != own && cell == super::cell::CellType::Int8 => {
            return Err(VespaError::elems(
                node.span,
                format!("expected 2 hex digits per cell for {}, but got {w}", b.ty()),
            ))
        }
        Some(w) => w,
        None if s.len().is_multiple_of(own) && s.len() / own <= cells => own,
        None => {
            return Err(VespaError::elems(
                node.span,
                format!(
                    "expected {} hex digits for {}, but got {}",
                    cells * own,
                    b.ty(),
                    s.chars().count()
                ),
            ))
        }
    };
    let inner = crate::span::Span::new(
        node.span.start as usize + 1,
        node.span.end.saturating_sub(1) as usize,
    );
    Ok(hex::decode(s, width, inner)?.into_iter().map(|v| cell.narrow(v)).collect())
}

/// `blocks` of a mixed type with bound dense dimensions.
fn decode_blocks(blocks: &Node, b: &mut Builder) -> Result<()> {
    if !(b.ty().has_mapped() && b.ty().has_indexed() && b.is_bound()) {
        return Err(VespaError::type_error(
            blocks.span,
            format!("blocks need a mixed type with bound dense dimensions, not {}", b.ty()),
        ));
    }
    let mapped = TensorType::new(
        b.ty().cell_type(),
        b.ty().dims().iter().filter(|d| d.is_mapped()).cloned().collect(),
        blocks.span,
    )?;
    match blocks.value() {
        Json::Array => blocks.items().try_for_each(|block| {
            if !block.is_object() {
                return Err(VespaError::type_error(
                    block.span,
                    format!(
                        "expected an item in a blocks array to be an object, not {}",
                        block.type_name()
                    ),
                ));
            }
            let labels = address(block.get("address"), &block, &mapped)?;
            let values = block.get("values").ok_or_else(|| {
                VespaError::syntax(block.span, "expected a block to have 'values'")
            })?;
            set_block(labels, &values, b)
        }),
        Json::Object => blocks.members().try_for_each(|(label, values)| {
            let labels = single_address(&mapped, &label, &values)?;
            set_block(labels, &values, b)
        }),
        _ => Err(VespaError::type_error(
            blocks.span,
            format!("expected the blocks to be an array or an object, not {}", blocks.type_name()),
        )),
    }
}

fn set_block(labels: Vec<Option<String>>, values: &Node, b: &mut Builder) -> Result<()> {
    let labels: Vec<String> = match labels.into_iter().collect::<Option<Vec<String>>>() {
        Some(l) => l,
        None => {
            return Err(VespaError::label(
                values.span,
                format!("a block address misses a mapped dimension of {}", b.ty()),
            ))
        }
    };
    let mut cells = vec![0.0; b.dense_size()];
    match values.value() {
        Json::Array => block_values(values, b, &mut cells, &mut 0)?,
        Json::Str(s) => {
            if s.is_empty() {
                return Err(VespaError::elems(
                    values.span,
                    "the block value string does not contain any values",
                ));
            }
            for (slot, v) in cells.iter_mut().zip(decode_hex(&s, values, b)?) {
                *slot = v;
            }
        }
        _ => {
            return Err(VespaError::type_error(
                values.span,
                format!(
                    "expected a block to contain an array of values or a hex string, not {}",
                    values.type_name()
                ),
            ))
        }
    }
    b.block(labels, &cells, values.span)
}

fn block_values(list: &Node, b: &Builder, cells: &mut [f64], next: &mut usize) -> Result<()> {
    if !list.is_array() {
        return Ok(());
    }
    let mut items = list.items().peekable();
    if items.peek().is_none() {
        return Err(VespaError::elems(
            list.span,
            "the block value array does not contain any values",
        ));
    }
    for item in items {
        if item.is_array() {
            block_values(&item, b, cells, next)?;
            continue;
        }
        let v = number(&item, b)?;
        let Some(slot) = cells.get_mut(*next) else {
            return Err(VespaError::elems(
                item.span,
                format!("a block of {} has only {} cells", b.ty(), cells.len()),
            ));
        };
        *slot = v;
        *next += 1;
    }
    Ok(())
}
