//! The numpy front end: einsum subscripts (`...ij,jk->ik`, implicit output `ij,jk`).
//!
//! Subscripts are ASCII letters; `...` (at most once per term) is the broadcast group; spaces
//! are ignored. Rules needing only the text are checked here: output labels must occur in an
//! input and may not repeat. Operand counts and sizes are checked against shapes later.

use super::assemble::name;
use super::ast::{Axis, AxisKind, Ellipsis, NumpySpec, Row};
use super::error::SpecError;
use crate::span::Span;
use std::collections::{BTreeMap, BTreeSet};

/// Parses numpy einsum subscripts.
pub fn parse_numpy(spec: &str) -> Result<NumpySpec, SpecError> {
    numpy(spec).map_err(|e| super::hints::refine(spec, e))
}

fn numpy(spec: &str) -> Result<NumpySpec, SpecError> {
    let (lhs, rhs) = split_arrow(spec)?;
    let mut inputs = Vec::with_capacity(lhs.bytes().filter(|&c| c == b',').count() + 1);
    let mut start = 0;
    for (i, c) in lhs.char_indices().chain(std::iter::once((lhs.len(), ','))) {
        if c == ',' {
            inputs.push(term(spec, start, i)?);
            start = i + 1;
        }
    }
    let output = match rhs {
        Some(at) => Some(term(spec, at, spec.len())?),
        None => None,
    };
    if let Some(out) = &output {
        check_output(&inputs, out)?;
    }
    Ok(NumpySpec { inputs, output })
}

/// Splits at the single `->`; returns the input part and the output's start offset.
fn split_arrow(spec: &str) -> Result<(&str, Option<usize>), SpecError> {
    let mut arrow: Option<usize> = None;
    let bytes = spec.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let is_arrow = b == b'-' && bytes.get(i + 1) == Some(&b'>');
        if b == b'-' && !is_arrow {
            return Err(SpecError::NumpySubscript { ch: '-', span: Span::new(i, i + 1) });
        }
        if b == b'>' && (i == 0 || bytes[i - 1] != b'-') {
            return Err(SpecError::NumpySubscript { ch: '>', span: Span::new(i, i + 1) });
        }
        if is_arrow {
            if arrow.is_some() {
                return Err(SpecError::NumpyArrow { span: Span::new(i, i + 2) });
            }
            arrow = Some(i);
        }
    }
    Ok(match arrow {
        Some(i) => (&spec[..i], Some(i + 2)),
        None => (spec, None),
    })
}

/// Parses one term `spec[start..end]` into an output-kind row.
fn term(spec: &str, start: usize, end: usize) -> Result<Row, SpecError> {
    let mut row = Row { span: Span::new(start, end), ..Row::default() };
    let text = &spec[start..end];
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let at = start + i;
        match c {
            ' ' => {}
            'a'..='z' | 'A'..='Z' => {
                // One-byte names point into a static string: no allocation per label.
                let label = name(&text[i..i + 1]);
                let axis = Axis { kind: AxisKind::Label(label), span: Span::new(at, at + 1) };
                if row.ellipsis.is_some() {
                    row.trailing.push(axis);
                } else {
                    row.leading.push(axis);
                }
            }
            '.' => {
                let mut n = 1;
                while chars.next_if(|&(_, d)| d == '.').is_some() {
                    n += 1;
                }
                let span = Span::new(at, at + n);
                if n != 3 {
                    return Err(SpecError::NumpyEllipsis { span });
                }
                if let Some(first) = &row.ellipsis {
                    return Err(SpecError::TwoEllipses { first: first.span, second: span });
                }
                row.ellipsis = Some(Ellipsis { name: None, span });
            }
            _ => {
                return Err(SpecError::NumpySubscript {
                    ch: c,
                    span: Span::new(at, at + c.len_utf8()),
                })
            }
        }
    }
    if row.ellipsis.is_none() {
        row.trailing = std::mem::take(&mut row.leading);
    }
    Ok(row)
}

fn label_of(axis: &Axis) -> char {
    match &axis.kind {
        AxisKind::Label(l) => l.chars().next().unwrap_or('?'),
        _ => '?',
    }
}

/// Checks the explicit output: no label twice, every label in some input. The input labels
/// are collected once, so that the check is linear in the subscripts.
fn check_output(inputs: &[Row], output: &Row) -> Result<(), SpecError> {
    let known: BTreeSet<char> = inputs.iter().flat_map(Row::axes).map(label_of).collect();
    let mut seen: BTreeMap<char, Span> = BTreeMap::new();
    for axis in output.axes() {
        let l = label_of(axis);
        if let Some(&first) = seen.get(&l) {
            return Err(SpecError::OutputLabelRepeated { label: l, first, second: axis.span });
        }
        seen.insert(l, axis.span);
        if !known.contains(&l) {
            return Err(SpecError::OutputLabelUnknown { label: l, span: axis.span });
        }
    }
    Ok(())
}

impl NumpySpec {
    /// The labels of numpy's implicit output: those occurring exactly once in the inputs, in
    /// ASCII order (uppercase before lowercase); the ellipsis, which comes first, is not
    /// among them. Each label is counted in one pass over the inputs (a map of the distinct
    /// labels), so the time is linear in the subscripts.
    ///
    /// ```
    /// let spec = einrow::spec::parse_numpy("ij,jk,Bk")?;
    /// assert_eq!(spec.implicit_output(), ['B', 'i']);
    /// # Ok::<(), einrow::spec::SpecError>(())
    /// ```
    pub fn implicit_output(&self) -> Vec<char> {
        let mut counts: BTreeMap<char, usize> = BTreeMap::new();
        for axis in self.inputs.iter().flat_map(Row::axes) {
            *counts.entry(label_of(axis)).or_insert(0) += 1;
        }
        counts.into_iter().filter(|&(_, n)| n == 1).map(|(c, _)| c).collect()
    }
}
