//! numpy einsum shape semantics (`numpy.einsum`, `optimize=False`): from parsed subscripts
//! and operand shapes to one size per label and the output's labels.
//!
//! Rules (verified against numpy 2.4.6, see the reference survey):
//! - one term per operand; a term without `...` has exactly one label per axis, a term with
//!   `...` at most that many (the ellipsis covers the rest);
//! - a label repeated inside one term takes the diagonal: its sizes there must be equal;
//! - across operands a label's sizes must be equal or 1, and 1 broadcasts (also for a
//!   contracted label); 1 against 0 gives 0;
//! - ellipsis dimensions are right-aligned across operands and broadcast the same way;
//! - implicit output: the ellipsis dimensions first, then the labels occurring exactly once
//!   in ASCII order (uppercase before lowercase); explicit output: as written, and an input
//!   ellipsis covering dimensions needs `...` in the output.

use super::error::EinsumError;
use crate::span::Span;
use crate::spec::ast::{AxisKind, NumpySpec, Row};
use crate::spec::parse_numpy;

/// A label: a letter, or broadcast dimension `k` of the ellipsis (counted from the left of
/// the broadcast ellipsis shape).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Label {
    /// A letter label.
    Letter(char),
    /// An ellipsis dimension.
    Ellipsis(usize),
}

/// The shape analysis of one einsum call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The distinct labels (letters in order of first appearance, then ellipsis dims).
    pub labels: Vec<Label>,
    /// The size of each label (after broadcasting).
    pub sizes: Vec<usize>,
    /// For each operand, the label (index into `labels`) of each axis.
    pub operands: Vec<Vec<usize>>,
    /// The labels of the output axes, in order.
    pub output: Vec<usize>,
}

impl Analysis {
    /// The output shape.
    pub fn output_shape(&self) -> Vec<usize> {
        self.output.iter().map(|&l| self.sizes[l]).collect()
    }
}

/// One term resolved against its operand's shape: each axis's label and span.
struct Term {
    axes: Vec<(Label, Span)>,
    ellipsis: Option<(usize, usize, Span)>, // (first axis, count, span)
}

/// Parses subscripts for `operands` operands, numpy's way: numpy reads one input term per
/// operand from the left, so an input part of another number of terms is an arity error even
/// when the text after it (a second `->`) is malformed too (`->,->` on two operands).
pub fn parse_subscripts(spec: &str, operands: usize) -> Result<NumpySpec, EinsumError> {
    parse_numpy(spec).map_err(|e| {
        let inputs_end = spec.find("->").unwrap_or(spec.len());
        let terms = spec[..inputs_end].matches(',').count() + 1;
        if e.span().start as usize >= inputs_end && terms != operands {
            EinsumError::Arity { terms, operands }
        } else {
            e.into()
        }
    })
}

/// Infers label sizes and the output labels, with numpy's errors.
pub fn analyze(spec: &NumpySpec, shapes: &[&[usize]]) -> Result<Analysis, EinsumError> {
    if spec.inputs.len() != shapes.len() {
        return Err(EinsumError::Arity { terms: spec.inputs.len(), operands: shapes.len() });
    }
    // Checked first: the analysis below looks labels up in a list as long as the widest
    // ellipsis.
    if let Some((operand, s)) = shapes.iter().enumerate().find(|(_, s)| s.len() > MAX_DIMS) {
        let span = spec.inputs[operand].span;
        return Err(EinsumError::OperandRank { operand, axes: s.len(), max: MAX_DIMS, span });
    }
    let mut terms: Vec<Term> = spec
        .inputs
        .iter()
        .zip(shapes)
        .enumerate()
        .map(|(k, (row, s))| term(k, row, s.len()))
        .collect::<Result<_, _>>()?;
    let ell = broadcast_ellipsis(&terms, shapes)?;
    for t in &mut terms {
        // Ellipsis dims are right-aligned: local dim j of a `count`-dim ellipsis is broadcast
        // dim `rank - count + j`.
        if let Some((_, count, _)) = t.ellipsis {
            for a in &mut t.axes {
                if let Label::Ellipsis(j) = a.0 {
                    a.0 = Label::Ellipsis(ell.len() - count + j);
                }
            }
        }
    }
    let mut labels: Vec<Label> = Vec::new();
    let mut sizes: Vec<usize> = Vec::new();
    let mut fixed_by: Vec<Option<usize>> = Vec::new();
    let mut operands = Vec::with_capacity(terms.len());
    for (k, (t, shape)) in terms.iter().zip(shapes).enumerate() {
        let mut ids = Vec::with_capacity(t.axes.len());
        for (pos, &(label, span)) in t.axes.iter().enumerate() {
            let size = shape[pos];
            // Within one operand a repeated label needs equal sizes.
            if let Some(prev) = t.axes[..pos].iter().position(|a| a.0 == label) {
                if shape[prev] != size {
                    let (first, second) = (shape[prev], size);
                    let Label::Letter(label) = label else { continue };
                    return Err(EinsumError::Diagonal { label, operand: k, first, second, span });
                }
            }
            let id = match labels.iter().position(|&l| l == label) {
                Some(id) => id,
                None => {
                    labels.push(label);
                    sizes.push(if let Label::Ellipsis(g) = label { ell[g] } else { 1 });
                    fixed_by.push(None);
                    labels.len() - 1
                }
            };
            if let Label::Letter(c) = label {
                merge_size(&mut sizes[id], &mut fixed_by[id], size, k, c, span)?;
            }
            ids.push(id);
        }
        operands.push(ids);
    }
    let output = output_labels(spec, &mut labels, &mut sizes, &ell)?;
    let summed = (0..labels.len()).filter(|l| !output.contains(l)).count();
    if output.len() + summed > MAX_DIMS {
        let dims = output.len() + summed;
        return Err(EinsumError::TooManyDims { dims, output: output.len(), summed, max: MAX_DIMS });
    }
    Ok(Analysis { labels, sizes, operands, output })
}

/// numpy's `NPY_MAXDIMS`: the most dimensions of an array, and of einsum's iteration space.
const MAX_DIMS: usize = 64;

/// Combines a label's size with the size `size` seen in operand `k` (equal, or 1 broadcasts).
fn merge_size(
    cur: &mut usize,
    fixed: &mut Option<usize>,
    size: usize,
    k: usize,
    label: char,
    span: Span,
) -> Result<(), EinsumError> {
    match *fixed {
        None if size != 1 => {
            *cur = size;
            *fixed = Some(k);
        }
        Some(earlier) if size != 1 && size != *cur => {
            return Err(EinsumError::Mismatch {
                label,
                operand: k,
                size,
                earlier,
                earlier_size: *cur,
                span,
            });
        }
        _ => {}
    }
    Ok(())
}

/// Resolves term `k` against an operand of `dims` axes.
fn term(k: usize, row: &Row, dims: usize) -> Result<Term, EinsumError> {
    let letter = |a: &crate::spec::ast::Axis| match &a.kind {
        AxisKind::Label(l) if l.chars().count() == 1 => {
            Ok((Label::Letter(l.chars().next().unwrap_or('?')), a.span))
        }
        _ => Err(EinsumError::NotALabel { span: a.span }),
    };
    let labels = row.len();
    let ellipsis = row.ellipsis.is_some();
    if labels > dims || (!ellipsis && labels < dims) {
        return Err(EinsumError::Rank { operand: k, labels, dims, ellipsis, span: row.span });
    }
    let mut axes: Vec<(Label, Span)> = row.leading.iter().map(letter).collect::<Result<_, _>>()?;
    let mut ell = None;
    if let Some(e) = &row.ellipsis {
        let count = dims - labels;
        ell = Some((axes.len(), count, e.span));
        // Placeholder labels, renumbered once the broadcast rank is known.
        axes.extend((0..count).map(|j| (Label::Ellipsis(j), e.span)));
    }
    for a in &row.trailing {
        axes.push(letter(a)?);
    }
    Ok(Term { axes, ellipsis: ell })
}

/// Right-aligns every term's ellipsis dims and broadcasts them: the broadcast ellipsis shape.
fn broadcast_ellipsis(terms: &[Term], shapes: &[&[usize]]) -> Result<Vec<usize>, EinsumError> {
    let rank = terms.iter().filter_map(|t| t.ellipsis.map(|e| e.1)).max().unwrap_or(0);
    let mut ell: Vec<Option<usize>> = vec![None; rank];
    for (k, (t, shape)) in terms.iter().zip(shapes).enumerate() {
        let Some((first, count, span)) = t.ellipsis else { continue };
        for j in 0..count {
            let (g, size) = (rank - count + j, shape[first + j]);
            ell[g] = Some(match ell[g] {
                None => size,
                Some(cur) if cur == size || size == 1 => cur,
                Some(1) => size,
                Some(other) => {
                    return Err(EinsumError::EllipsisMismatch {
                        operand: k,
                        size,
                        other,
                        dim: count - j,
                        span,
                    });
                }
            });
        }
    }
    Ok(ell.into_iter().map(|s| s.unwrap_or(1)).collect())
}

/// The output labels; registers ellipsis labels no input term had (none can be missing, but
/// stay total).
fn output_labels(
    spec: &NumpySpec,
    labels: &mut Vec<Label>,
    sizes: &mut Vec<usize>,
    ell: &[usize],
) -> Result<Vec<usize>, EinsumError> {
    let mut id_of = |l: Label| match labels.iter().position(|&x| x == l) {
        Some(id) => id,
        None => {
            labels.push(l);
            sizes.push(if let Label::Ellipsis(g) = l { ell[g] } else { 1 });
            labels.len() - 1
        }
    };
    let ellipsis_ids: Vec<usize> = (0..ell.len()).map(|g| id_of(Label::Ellipsis(g))).collect();
    let Some(out) = &spec.output else {
        // The terms' letters are the inputs' labels (each checked to be one letter).
        let once = spec.implicit_output();
        return Ok(ellipsis_ids
            .into_iter()
            .chain(once.into_iter().map(|c| id_of(Label::Letter(c))))
            .collect());
    };
    if out.ellipsis.is_none() && !ell.is_empty() {
        return Err(EinsumError::EllipsisDropped { dims: ell.len(), span: out.span });
    }
    let mut ids = Vec::new();
    for a in &out.leading {
        ids.push(output_letter(a, &mut id_of)?);
    }
    if out.ellipsis.is_some() {
        ids.extend(ellipsis_ids);
    }
    for a in &out.trailing {
        ids.push(output_letter(a, &mut id_of)?);
    }
    Ok(ids)
}

fn output_letter(
    a: &crate::spec::ast::Axis,
    id_of: &mut impl FnMut(Label) -> usize,
) -> Result<usize, EinsumError> {
    match &a.kind {
        AxisKind::Label(l) if l.chars().count() == 1 => {
            Ok(id_of(Label::Letter(l.chars().next().unwrap_or('?'))))
        }
        _ => Err(EinsumError::NotALabel { span: a.span }),
    }
}

/// The output shape of `spec` on operands of the given shapes (no data needed).
pub fn einsum_shape(spec: &str, shapes: &[&[usize]]) -> Result<Vec<usize>, EinsumError> {
    let parsed = parse_subscripts(spec, shapes.len())?;
    let an = analyze(&parsed, shapes)?;
    crate::tensor::numel(&an.output_shape())?;
    Ok(an.output_shape())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::{Coded, ErrorCode};
    use crate::spec::parse_numpy;

    #[test]
    fn the_operand_count_is_checked_before_a_later_syntax_error() {
        // numpy reads one term per operand first: two operands, one input term.
        let err = parse_subscripts("->,->", 2).unwrap_err();
        assert_eq!(err, EinsumError::Arity { terms: 1, operands: 2 });
        // One operand, one term: the second `->` is the error.
        assert_eq!(parse_subscripts("->,->", 1).unwrap_err().code(), ErrorCode::Syntax);
        // A syntax error inside the input terms comes first.
        assert_eq!(parse_subscripts("i%,j->", 1).unwrap_err().code(), ErrorCode::Syntax);
        assert!(parse_subscripts("ij,jk->ik", 3).is_ok(), "the count is analyze's to check");
    }

    fn check(spec: &str, shapes: &[&[usize]], expected: Result<&[usize], ErrorCode>) {
        let got = parse_numpy(spec)
            .map_err(EinsumError::from)
            .and_then(|s| analyze(&s, shapes))
            .map(|a| a.output_shape())
            .map_err(|e| e.code());
        assert_eq!(got, expected.map(|s| s.to_vec()), "{spec} {shapes:?}");
    }

    #[test]
    fn shapes_and_errors() {
        check("ij,jk", &[&[2, 3], &[3, 4]], Ok(&[2, 4]));
        check("aB", &[&[2, 3]], Ok(&[3, 2]));
        check("ij,jk->ik", &[&[2, 1], &[3, 4]], Ok(&[2, 4]));
        check("...ij,...jk->...ik", &[&[2, 1, 3, 4], &[5, 4, 6]], Ok(&[2, 5, 3, 6]));
        check("i...", &[&[2, 3, 4]], Ok(&[3, 4, 2]));
        check("ii->i", &[&[1, 3]], Err(ErrorCode::Mismatch));
        check("...i,...i", &[&[2, 3], &[4, 3]], Err(ErrorCode::Mismatch));
        check("...->", &[&[2, 3]], Err(ErrorCode::Label));
        check("ijk", &[&[2, 3]], Err(ErrorCode::Rank));
        check("t", &[&[4, 2]], Err(ErrorCode::Rank));
        check("ij,jk", &[&[2, 3]], Err(ErrorCode::Arity));
        check("i,i", &[&[0], &[2]], Err(ErrorCode::Mismatch));
        check("i,i->i", &[&[0], &[1]], Ok(&[0]));
        check("", &[&[]], Ok(&[]));
        check("he->e...", &[&[5, 3]], Ok(&[3]));
        check("f...f,f", &[&[1, 1, 1], &[3]], Ok(&[1]));
    }
}
