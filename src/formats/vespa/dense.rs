//! The dense short forms of literals: nested `[[1,2],[3,4]]` or flat `[1,2,3,4]` lists nested in
//! the order the dimensions were written, hex strings, and lists sized by their nesting for
//! unbound dimensions.

use super::builder::{Builder, MAX_CELLS};
use super::cell::CellType;
use super::error::{Result, VespaError};
use super::hex;
use super::scanner::{parse_cell_value, Scanner};
use super::tensor::{Block, Tensor};
use super::types::TensorType;
use crate::span::Span;

/// The indexed dimensions of a type as a dense block: sizes in canonical order and the order in
/// which values are written.
pub(crate) struct DenseLayout {
    sizes: Vec<usize>,
    /// For each written position, the canonical position among the indexed dimensions.
    written: Vec<usize>,
}

impl DenseLayout {
    /// The layout of `ty`'s bound indexed dimensions, written in `order` (names as written in
    /// the type spec) or else canonically.
    pub fn new(ty: &TensorType, order: Option<&[String]>) -> DenseLayout {
        let indexed: Vec<&str> =
            ty.dims().iter().filter(|d| d.is_indexed()).map(|d| d.name()).collect();
        let sizes = ty
            .dims()
            .iter()
            .filter(|d| d.is_indexed())
            .map(|d| d.size().and_then(|s| usize::try_from(s).ok()).unwrap_or(0))
            .collect();
        let written = match order {
            Some(names) => {
                names.iter().filter_map(|n| indexed.iter().position(|m| m == n)).collect()
            }
            None => (0..indexed.len()).collect(),
        };
        DenseLayout { sizes, written }
    }

    /// The number of cells.
    pub fn total(&self) -> usize {
        self.sizes.iter().product()
    }

    /// The canonical row-major offset of each cell, in written order.
    pub fn offsets(&self) -> Vec<usize> {
        let mut strides = vec![1; self.sizes.len()];
        for i in (0..self.sizes.len().saturating_sub(1)).rev() {
            strides[i] = strides[i + 1] * self.sizes[i + 1];
        }
        let mut out = Vec::with_capacity(self.total());
        let mut idx = vec![0usize; self.written.len()];
        for _ in 0..self.total() {
            out.push(idx.iter().zip(&self.written).map(|(i, &c)| i * strides[c]).sum());
            for k in (0..idx.len()).rev() {
                idx[k] += 1;
                if idx[k] < self.sizes[self.written[k]] {
                    break;
                }
                idx[k] = 0;
            }
        }
        out
    }

    /// How many lists open before (`at_start`) and close after (`at_end`) each cell.
    fn brackets(&self) -> Vec<(usize, usize)> {
        let sizes: Vec<usize> = self.written.iter().map(|&c| self.sizes[c]).collect();
        let mut out = Vec::with_capacity(self.total());
        let mut idx = vec![0usize; sizes.len()];
        for _ in 0..self.total() {
            let open = idx.iter().rev().take_while(|i| **i == 0).count();
            let close = idx.iter().zip(&sizes).rev().take_while(|(i, s)| **i + 1 == **s).count();
            out.push((open, close));
            for k in (0..idx.len()).rev() {
                idx[k] += 1;
                if idx[k] < sizes[k] {
                    break;
                }
                idx[k] = 0;
            }
        }
        out
    }
}

/// Parses a whole literal value in the dense form for a purely indexed type.
pub(crate) fn parse_dense(
    mut sc: Scanner,
    ty: &TensorType,
    order: Option<&[String]>,
    span: Span,
) -> Result<Tensor> {
    if ty.has_mapped() {
        return Err(VespaError::type_error(
            span,
            format!("the dense form [...] needs a type with indexed dimensions only, not {ty}"),
        ));
    }
    if ty.has_unbound() {
        return parse_unbound(sc, ty, span);
    }
    let mut builder = Builder::new(ty, span)?;
    let layout = DenseLayout::new(ty, order);
    let mut values = vec![0.0; layout.total()];
    parse_block(&mut sc, &layout, ty.cell_type(), &mut values, false)?;
    // Java reads no further than the complete value: text after it is ignored.
    builder.block(Vec::new(), &values, span)?;
    builder.build(span)
}

/// Fails unless only whitespace is left.
pub(crate) fn expect_end(sc: &mut Scanner, what: &str) -> Result<()> {
    sc.skip_space();
    if sc.at_end() {
        return Ok(());
    }
    Err(VespaError::syntax(
        Span::new(sc.pos, sc.end()),
        format!("unexpected text after {what}: '{}'", sc.rest()),
    ))
}

/// Parses one dense block into `out` (canonical row-major): a hex token, a bracketed list
/// (nested per the layout, or flat), or, when `single_number` is set and the block has one
/// cell, a bare number.
pub(crate) fn parse_block(
    sc: &mut Scanner,
    layout: &DenseLayout,
    cell: CellType,
    out: &mut [f64],
    single_number: bool,
) -> Result<()> {
    sc.skip_space();
    if sc.peek() != Some('[') {
        let stop = sc.stop_index(sc.pos);
        let token = sc.rest().get(..stop - sc.pos).unwrap_or("");
        let span = Span::new(sc.pos, stop);
        if !layout.sizes.is_empty() && hex::is_hex_of(token, layout.total(), cell) {
            let values = hex::decode(token, cell.hex_digits(), span)?;
            for (offset, v) in layout.offsets().into_iter().zip(values) {
                out[offset] = cell.narrow(v);
            }
            sc.pos = stop;
            return Ok(());
        }
        if let (true, 1, Some(v)) = (single_number, layout.total(), parse_cell_value(token, cell)) {
            out[0] = v;
            sc.pos = stop;
            return Ok(());
        }
    }
    let nested = has_inner_structure(sc.rest());
    if !nested {
        sc.consume_or('[', VespaError::elems)?;
    }
    let total = layout.total();
    for (k, (offset, brackets)) in layout.offsets().into_iter().zip(layout.brackets()).enumerate() {
        let (open, close) = if nested { brackets } else { (0, 0) };
        for _ in 0..open {
            sc.consume_or('[', VespaError::elems)?;
        }
        out[offset] = sc.number(cell)?.0;
        for _ in 0..close {
            sc.consume_or(']', VespaError::elems)?;
        }
        if k + 1 < total {
            sc.consume_or(',', VespaError::elems)?;
        }
    }
    if !nested {
        sc.consume_or(']', VespaError::elems)?;
    }
    Ok(())
}

/// Java's test for nested lists: after the first character, a `[` comes before the first `]`.
fn has_inner_structure(rest: &str) -> bool {
    let mut chars = rest.trim_start_matches(|c: char| c <= ' ').chars();
    chars.next();
    let tail = chars.as_str();
    match (tail.find('['), tail.find(']')) {
        (Some(open), Some(close)) => open < close,
        _ => false,
    }
}

/// The value of an unbound dense type: nested lists in canonical dimension order whose lengths
/// give the sizes; every list at one depth must have the same length, bound dimensions their
/// declared size.
fn parse_unbound(mut sc: Scanner, ty: &TensorType, span: Span) -> Result<Tensor> {
    let rank = ty.rank();
    let mut sizes: Vec<Option<usize>> = vec![None; rank];
    let mut values = Vec::new();
    // As for bound types, text after the complete value is ignored (Java).
    parse_list(&mut sc, 0, ty, &mut sizes, &mut values)?;
    let sizes: Vec<usize> = sizes.into_iter().map(|s| s.unwrap_or(0)).collect();
    for (d, size) in ty.dims().iter().zip(&sizes) {
        if let Some(declared) = d.size().filter(|n| *n != *size as u64) {
            return Err(VespaError::elems(
                span,
                format!("dimension {} has size {size}, but {ty} declares {declared}", d.name()),
            ));
        }
    }
    Ok(Tensor::from_parts(ty.clone(), sizes, vec![Block { labels: Vec::new(), values }]))
}

fn parse_list(
    sc: &mut Scanner,
    depth: usize,
    ty: &TensorType,
    sizes: &mut [Option<usize>],
    values: &mut Vec<f64>,
) -> Result<()> {
    let start = sc.pos;
    sc.consume_or('[', VespaError::elems)?;
    let mut count = 0;
    loop {
        sc.skip_space();
        match sc.peek() {
            None => {
                return Err(VespaError::syntax(
                    sc.here(),
                    "expected ']' but got the end of the text",
                ))
            }
            Some(']') => break,
            Some(_) if depth + 1 == sizes.len() => {
                if values.len() >= MAX_CELLS {
                    return Err(VespaError::value(
                        sc.here(),
                        format!("more than {MAX_CELLS} values"),
                    ));
                }
                values.push(sc.number(ty.cell_type())?.0);
            }
            Some(_) => parse_list(sc, depth + 1, ty, sizes, values)?,
        }
        count += 1;
        sc.consume_optional(',');
    }
    sc.consume(']')?;
    let span = Span::new(start, sc.pos);
    let name = ty.dims().get(depth).map_or("", |d| d.name());
    match sizes.get(depth).copied().flatten() {
        _ if count == 0 => {
            Err(VespaError::elems(span, format!("an empty list for dimension {name}")))
        }
        None => {
            sizes[depth] = Some(count);
            Ok(())
        }
        Some(n) if n == count => Ok(()),
        Some(n) => Err(VespaError::elems(
            span,
            format!("lists for dimension {name} have different lengths ({n} and {count})"),
        )),
    }
}
