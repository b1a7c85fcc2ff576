//! numpy einsum cases: random subscripts with operand shapes that fit (broadcast size-1 axes,
//! ellipsis groups, diagonals, implicit and explicit outputs), near-valid variants that numpy
//! rejects or accepts in another way, request JSON for the oracle script
//! (`numpy_einsum_oracle.py`), and a naive reference evaluator (nested loops over every index)
//! for valid cases.

use proptest::prelude::*;
use serde_json::{json, Value};

use super::gen::Choices;
use crate::spec::ast::{AxisKind, Row};
use crate::spec::parse_numpy;

/// One numpy einsum problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NumpyCase {
    /// The subscripts.
    pub spec: String,
    /// One shape per operand.
    pub shapes: Vec<Vec<usize>>,
}

impl NumpyCase {
    /// The oracle request for this case (`{"spec", "shapes", "id"}`).
    pub fn request(&self, id: &str) -> Value {
        json!({ "spec": self.spec, "shapes": self.shapes, "id": id })
    }
}

const LETTERS: &[u8] = b"ijkabcAB";

/// Interprets random choices as a numpy einsum case; `near_valid` applies one mutation that
/// usually makes it invalid.
pub fn numpy_case(ch: &mut Choices, near_valid: bool) -> NumpyCase {
    let nlabels = 1 + ch.below(5);
    let sizes: Vec<usize> = (0..nlabels).map(|_| 1 + ch.below(4)).collect();
    let broadcast: Vec<usize> = (0..ch.below(3)).map(|_| 1 + ch.below(3)).collect();
    let mut terms = Vec::new();
    let mut shapes = Vec::new();
    let mut any_dots = false;
    for _ in 0..1 + ch.below(3) {
        let labels: Vec<usize> = (0..ch.below(4)).map(|_| ch.below(nlabels)).collect();
        let dots = ch.below(3) == 1 || !broadcast.is_empty() && ch.one_in(2);
        let at = ch.below(labels.len() + 1);
        let mut term = String::new();
        let mut shape = Vec::new();
        for (i, &l) in labels.iter().enumerate() {
            if dots && i == at {
                term.push_str("...");
                shape.extend(ellipsis_dims(ch, &broadcast));
            }
            term.push(char::from(LETTERS[l]));
            let repeated = labels.iter().filter(|x| **x == l).count() > 1;
            shape.push(if !repeated && ch.one_in(5) { 1 } else { sizes[l] });
        }
        if dots && at >= labels.len() {
            term.push_str("...");
            shape.extend(ellipsis_dims(ch, &broadcast));
        }
        any_dots |= dots;
        terms.push(term);
        shapes.push(shape);
    }
    let mut spec = terms.join(",");
    if ch.below(3) != 0 {
        spec.push_str("->");
        spec.push_str(&explicit_output(ch, &terms, any_dots));
    }
    let mut case = NumpyCase { spec, shapes };
    if near_valid {
        mutate(ch, &mut case);
    }
    case
}

fn ellipsis_dims(ch: &mut Choices, broadcast: &[usize]) -> Vec<usize> {
    let n = broadcast.len() - ch.below(broadcast.len() + 1).min(broadcast.len());
    broadcast[broadcast.len() - n..].iter().map(|&d| if ch.one_in(4) { 1 } else { d }).collect()
}

fn explicit_output(ch: &mut Choices, terms: &[String], dots: bool) -> String {
    let mut labels: Vec<char> = Vec::new();
    for c in terms.iter().flat_map(|t| t.chars()).filter(char::is_ascii_alphabetic) {
        if !labels.contains(&c) {
            labels.push(c);
        }
    }
    let order = ch.permutation(labels.len());
    let kept: Vec<char> =
        order.into_iter().filter(|_| ch.below(4) != 3).map(|i| labels[i]).collect();
    let mut out: String = kept.iter().collect();
    if dots || ch.one_in(6) {
        let at = ch.below(kept.len() + 1);
        out.insert_str(at, "...");
    }
    out
}

fn mutate(ch: &mut Choices, case: &mut NumpyCase) {
    let k = ch.below(case.shapes.len());
    match ch.below(6) {
        0 => {
            if let Some(d) = case.shapes[k].first_mut() {
                *d += 1 + ch.below(2);
            }
        }
        1 => case.shapes[k].push(2),
        2 => {
            case.shapes[k].pop();
        }
        3 => case.spec.push_str(if case.spec.contains("->") { "z" } else { "->z" }),
        4 => {
            if case.shapes.len() > 1 {
                case.shapes.pop();
            } else {
                case.shapes.push(vec![2]);
            }
        }
        _ => {
            let dup = case.spec.chars().find(char::is_ascii_alphabetic).unwrap_or('i');
            let arrow = if case.spec.contains("->") { "" } else { "->" };
            case.spec.push_str(&format!("{arrow}{dup}{dup}"));
        }
    }
}

/// Strategy: numpy cases, valid ones and (when `near_valid`) mutated ones.
pub fn numpy_cases(near_valid: bool) -> impl Strategy<Value = NumpyCase> {
    (proptest::collection::vec(any::<u32>(), 0..64), any::<bool>())
        .prop_map(move |(data, mutate)| numpy_case(&mut Choices::new(&data), near_valid && mutate))
}

/// Small integer inputs (in -3..=3) for a case's operands, from random choices.
pub fn inputs(ch: &mut Choices, shapes: &[Vec<usize>]) -> Vec<Vec<f64>> {
    shapes
        .iter()
        .map(|s| (0..s.iter().product::<usize>()).map(|_| ch.below(7) as f64 - 3.0).collect())
        .collect()
}

/// The naive reference: the result shape and values of numpy einsum (`optimize=False`
/// semantics) by looping over every index combination. For errors it only says that the case
/// is invalid; numpy's exact error classes are the oracle's business.
pub fn naive_einsum(
    spec: &str,
    shapes: &[Vec<usize>],
    inputs: &[Vec<f64>],
) -> Result<(Vec<usize>, Vec<f64>), String> {
    let parsed = parse_numpy(spec).map_err(|e| e.to_string())?;
    if parsed.inputs.len() != shapes.len() || inputs.len() != shapes.len() {
        return Err("operand count".into());
    }
    // Per operand: each axis is a label index or a broadcast position (counted from the right).
    let mut axes: Vec<Vec<Slot>> = Vec::new();
    let mut letters: Vec<char> = Vec::new();
    let mut nb = 0usize;
    for (term, shape) in parsed.inputs.iter().zip(shapes) {
        let (a, e) = term_axes(term, shape.len(), &mut letters)?;
        nb = nb.max(e);
        axes.push(a);
    }
    let (size, bsize) = sizes(&axes, shapes, letters.len(), nb)?;
    let out = output_axes(&parsed.output, &axes, &letters, nb)?;
    let out_shape: Vec<usize> = out
        .iter()
        .map(|s| match s {
            Slot::Label(l) => size[*l],
            Slot::Broadcast(p) => bsize[nb - 1 - p],
        })
        .collect();
    let all: Vec<usize> = size.iter().chain(&bsize).copied().collect();
    let at = |slot: &Slot, idx: &[usize]| match slot {
        Slot::Label(l) => idx[*l],
        Slot::Broadcast(p) => idx[letters.len() + nb - 1 - p],
    };
    let mut values = vec![0.0; out_shape.iter().product()];
    let mut idx = vec![0usize; all.len()];
    if all.iter().all(|&d| d > 0) {
        loop {
            let mut prod = 1.0;
            for ((a, shape), vals) in axes.iter().zip(shapes).zip(inputs) {
                let flat = a
                    .iter()
                    .zip(shape)
                    .fold(0, |f, (slot, &d)| f * d + if d == 1 { 0 } else { at(slot, &idx) });
                prod *= vals.get(flat).copied().ok_or("too few input values")?;
            }
            let o = out.iter().zip(&out_shape).fold(0, |o, (slot, &d)| o * d + at(slot, &idx));
            values[o] += prod;
            if !advance(&mut idx, &all) {
                break;
            }
        }
    }
    Ok((out_shape, values))
}

/// Each label's size and each broadcast position's size (numbered from the right), with
/// numpy's rules: sizes of one label agree or are 1, a label repeated in one operand has one
/// size there.
fn sizes(
    axes: &[Vec<Slot>],
    shapes: &[Vec<usize>],
    nlabels: usize,
    nb: usize,
) -> Result<(Vec<usize>, Vec<usize>), String> {
    let mut size = vec![1usize; nlabels];
    let mut bsize = vec![1usize; nb];
    for (a, shape) in axes.iter().zip(shapes) {
        for (slot, &d) in a.iter().zip(shape) {
            let target = match slot {
                Slot::Label(l) => &mut size[*l],
                Slot::Broadcast(p) => &mut bsize[nb - 1 - p],
            };
            if *target != d && *target != 1 && d != 1 {
                return Err("sizes do not broadcast".into());
            }
            *target = (*target).max(d);
        }
        for (i, s) in a.iter().enumerate() {
            for (j, t) in a.iter().enumerate().skip(i + 1) {
                if s == t && shape[i] != shape[j] {
                    return Err("a repeated label with two sizes in one operand".into());
                }
            }
        }
    }
    Ok((size, bsize))
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Slot {
    Label(usize),
    /// Broadcast axis, numbered from the right of the group.
    Broadcast(usize),
}

fn letter(a: &crate::spec::ast::Axis) -> char {
    match &a.kind {
        AxisKind::Label(l) => l.chars().next().unwrap_or('?'),
        _ => '?',
    }
}

fn term_axes(
    term: &Row,
    ndim: usize,
    letters: &mut Vec<char>,
) -> Result<(Vec<Slot>, usize), String> {
    let n = term.len();
    if ndim < n || (term.ellipsis.is_none() && ndim != n) {
        return Err("operand rank does not match its subscripts".into());
    }
    let e = ndim - n;
    let mut id = |c: char| match letters.iter().position(|x| *x == c) {
        Some(i) => i,
        None => {
            letters.push(c);
            letters.len() - 1
        }
    };
    let mut out: Vec<Slot> = term.leading.iter().map(|a| Slot::Label(id(letter(a)))).collect();
    out.extend((0..e).rev().map(Slot::Broadcast));
    out.extend(term.trailing.iter().map(|a| Slot::Label(id(letter(a)))));
    Ok((out, e))
}

fn output_axes(
    output: &Option<Row>,
    axes: &[Vec<Slot>],
    letters: &[char],
    nb: usize,
) -> Result<Vec<Slot>, String> {
    let pos =
        |c: char| letters.iter().position(|x| *x == c).ok_or("unknown output label".to_string());
    match output {
        Some(row) => {
            if row.ellipsis.is_none() && nb > 0 {
                return Err("broadcast axes without an ellipsis in the output".into());
            }
            let mut out: Vec<Slot> = row
                .leading
                .iter()
                .map(|a| pos(letter(a)).map(Slot::Label))
                .collect::<Result<_, _>>()?;
            if row.ellipsis.is_some() {
                out.extend((0..nb).rev().map(Slot::Broadcast));
            }
            for a in &row.trailing {
                out.push(Slot::Label(pos(letter(a))?));
            }
            Ok(out)
        }
        None => {
            let mut out: Vec<Slot> = (0..nb).rev().map(Slot::Broadcast).collect();
            let mut once: Vec<char> = letters
                .iter()
                .enumerate()
                .filter(|(i, _)| {
                    axes.iter().flatten().filter(|s| **s == Slot::Label(*i)).count() == 1
                })
                .map(|(_, c)| *c)
                .collect();
            once.sort_unstable();
            for c in once {
                out.push(Slot::Label(pos(c)?));
            }
            Ok(out)
        }
    }
}

fn advance(idx: &mut [usize], dims: &[usize]) -> bool {
    for i in (0..idx.len()).rev() {
        idx[i] += 1;
        if idx[i] < dims[i] {
            return true;
        }
        idx[i] = 0;
    }
    false
}
