//! The constraints of a `numpy` step in a graph, checked on concrete shapes: operands and the
//! result have output rows only; every occurrence of a letter is the letter's dimension or
//! the broadcast top `1!`, repeats within one operand are equal; the result's `...` part
//! broadcasts (right-aligned, by `⊑`) into every operand's `...` part, which must be empty
//! when the result has no `...`; the implicit output is `...` then the letters seen once, in
//! ASCII order.

use super::model::{ConcreteDim, ConcreteRow, ConcreteShape};
use super::rules::{dim_leq, row_leq};
use crate::spec::ast::{AxisKind, Row};
use crate::spec::parse_numpy;

/// A row split by a term: (letter, dim) pairs, and the `...` part.
type Split = (Vec<(char, ConcreteDim)>, Vec<ConcreteDim>);

fn letter(kind: &AxisKind) -> char {
    match kind {
        AxisKind::Label(l) => l.chars().next().unwrap_or('?'),
        _ => '?',
    }
}

/// Splits a row by a term: (letter, dim) pairs and the `...` part.
fn split(term: &Row, flat: &[ConcreteDim]) -> Result<Split, String> {
    let (l, t) = (term.leading.len(), term.trailing.len());
    let ok = if term.ellipsis.is_some() { flat.len() >= l + t } else { flat.len() == l + t };
    if !ok {
        return Err(format!("{} axes for a term of {} letters", flat.len(), l + t));
    }
    let tail = flat.len() - t;
    let mut pairs: Vec<(char, ConcreteDim)> =
        term.leading.iter().zip(flat).map(|(a, d)| (letter(&a.kind), d.clone())).collect();
    pairs
        .extend(term.trailing.iter().zip(&flat[tail..]).map(|(a, d)| (letter(&a.kind), d.clone())));
    Ok((pairs, flat[l..tail].to_vec()))
}

fn only_output(s: &ConcreteShape, what: &str) -> Result<Vec<ConcreteDim>, String> {
    if !s.batch.is_empty() || !s.input.is_empty() {
        return Err(format!("{what} has batch or input axes"));
    }
    Ok(s.output.flat())
}

/// Checks a `numpy` step.
pub fn check_numpy(text: &str, args: &[&ConcreteShape], c: &ConcreteShape) -> Result<(), String> {
    let spec = parse_numpy(text).map_err(|e| e.to_string())?;
    if spec.inputs.len() != args.len() {
        return Err(format!("{} terms for {} operands", spec.inputs.len(), args.len()));
    }
    let mut occurrences: Vec<(char, ConcreteDim)> = Vec::new();
    let mut ellipses = Vec::new();
    for (i, (term, a)) in spec.inputs.iter().zip(args).enumerate() {
        let (pairs, ell) =
            split(term, &only_output(a, "an operand")?).map_err(|e| format!("operand {i}: {e}"))?;
        for (j, (x, d)) in pairs.iter().enumerate() {
            if pairs[..j].iter().any(|(y, e)| y == x && e != d) {
                return Err(format!("operand {i}: letter {x} repeats with two sizes"));
            }
        }
        occurrences.extend(pairs);
        ellipses.push(ell);
    }
    let out = only_output(c, "the result")?;
    let (pairs, ell) = match &spec.output {
        Some(term) => split(term, &out)?,
        None => implicit(&spec.inputs, &out)?,
    };
    for (x, r) in &pairs {
        for (y, d) in occurrences.iter().filter(|(y, _)| y == x) {
            if !dim_leq(r, d) {
                return Err(format!("letter {y}: result {r} does not refine occurrence {d}"));
            }
        }
    }
    let has_dots = spec.output.as_ref().is_none_or(|t| t.ellipsis.is_some());
    for e in &ellipses {
        if !has_dots && !e.is_empty() {
            return Err("an operand's `...` has axes the result drops".into());
        }
        row_leq(&ConcreteRow::trailing(ell.clone()), &ConcreteRow::trailing(e.clone()))
            .map_err(|m| format!("`...`: {m}"))?;
    }
    Ok(())
}

/// The implicit output's split: `...` first, then the letters seen once, in ASCII order.
fn implicit(inputs: &[Row], out: &[ConcreteDim]) -> Result<Split, String> {
    // Counted in one pass (a map is in ASCII order): linear in the subscripts.
    let mut counts: std::collections::BTreeMap<char, usize> = std::collections::BTreeMap::new();
    for c in inputs.iter().flat_map(|t| t.axes().map(|a| letter(&a.kind))) {
        *counts.entry(c).or_insert(0) += 1;
    }
    let once: Vec<char> = counts.into_iter().filter(|&(_, n)| n == 1).map(|(c, _)| c).collect();
    if out.len() < once.len() {
        return Err(format!("{} result axes for {} letters", out.len(), once.len()));
    }
    let dots = out.len() - once.len();
    let pairs = once.into_iter().zip(&out[dots..]).map(|(c, d)| (c, d.clone())).collect();
    Ok((pairs, out[..dots].to_vec()))
}
