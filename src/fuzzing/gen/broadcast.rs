//! Generators for the broadcasting operations (pointwise, compose, transpose) and batch
//! slicing: operands are picked or made so that the operation's inequalities hold on the
//! witness shapes, and the result's witness is the least row both sides broadcast into.

use super::choices::Choices;
use super::pool::{Entry, Pool, Rows};
use crate::fuzzing::model::ConcreteDim;
use crate::fuzzing::rules::{join_trailing, trailing_fits};
use crate::infer::OpKind;

/// Whether the solver's result row for a join of these rows is the witness: not when a row
/// with a leading flank meets another non-empty row (the solver's template then aligns one
/// left and the other right, and may give a longer result).
pub fn join_exact(a: &[ConcreteDim], la: bool, b: &[ConcreteDim], lb: bool) -> bool {
    !(la || lb) || a.is_empty() || b.is_empty()
}

/// The join of two witness rows with their lead flags. Rows that may carry a leading flank
/// only join with an equal or an empty row (where the flank split cannot matter).
pub fn join_row(
    a: &[ConcreteDim],
    la: bool,
    b: &[ConcreteDim],
    lb: bool,
) -> Option<(Vec<ConcreteDim>, bool)> {
    if la || lb {
        return if a == b {
            Some((a.to_vec(), true))
        } else if b.is_empty() {
            Some((a.to_vec(), la))
        } else if a.is_empty() {
            Some((b.to_vec(), lb))
        } else {
            None
        };
    }
    join_trailing(a, b).map(|r| (r, false))
}

/// Whether an operand row (with its lead flag) broadcasts into a result row.
pub fn fits(res: &[ConcreteDim], opnd: &[ConcreteDim], lead: bool) -> bool {
    if lead {
        opnd.is_empty() || res == opnd
    } else {
        trailing_fits(res, opnd)
    }
}

/// A fresh operand row that joins with `row`: a suffix of it with some axes replaced by `1!`
/// (or by anything where `row` has `1!`), sometimes longer; equal or empty when `lead`.
fn partner_row(p: &Pool, ch: &mut Choices, row: &[ConcreteDim], lead: bool) -> Vec<ConcreteDim> {
    if lead {
        return if ch.one_in(3) { Vec::new() } else { row.to_vec() };
    }
    let mut out = Vec::new();
    if ch.one_in(4) {
        out.push(p.dim(ch));
    }
    out.extend(suffix_row(p, ch, row, true));
    out
}

/// A fresh row that broadcasts into `row` (never longer).
fn operand_row(p: &Pool, ch: &mut Choices, row: &[ConcreteDim], lead: bool) -> Vec<ConcreteDim> {
    if lead {
        return if ch.one_in(3) { Vec::new() } else { row.to_vec() };
    }
    suffix_row(p, ch, row, false)
}

/// A suffix of `row` with some axes replaced by `1!`; with `free_tops` (a join partner rather
/// than an operand) an axis facing a `1!` of `row` may be anything.
fn suffix_row(
    p: &Pool,
    ch: &mut Choices,
    row: &[ConcreteDim],
    free_tops: bool,
) -> Vec<ConcreteDim> {
    let n = row.len() - ch.below(row.len() + 1).min(row.len());
    let n = if ch.one_in(2) { row.len() } else { n };
    row[row.len() - n..]
        .iter()
        .map(|d| match ch.below(5) {
            4 => ConcreteDim::top(),
            3 if free_tops && d.is_top() => p.dim(ch),
            _ => d.clone(),
        })
        .collect()
}

/// The first operand: an existing tensor or a fresh leaf.
pub fn first(p: &mut Pool, ch: &mut Choices, ok: impl Fn(&Entry) -> bool) -> usize {
    match p.pick(ch, ok) {
        Some(i) => i,
        None => {
            let rows = p.rows(ch);
            p.leaf(ch, rows)
        }
    }
}

/// `pointwise` over one to three operands.
pub fn pointwise(p: &mut Pool, ch: &mut Choices) -> Option<usize> {
    let arity = 1 + ch.below(3);
    let a = first(p, ch, |_| true);
    let (mut rows, mut lead) = (p.entries[a].rows.clone(), p.entries[a].lead);
    let mut args = vec![a];
    for _ in 1..arity {
        let joins = |e: &Entry| {
            (0..3).all(|i| join_row(&rows[i], lead[i], &e.rows[i], e.lead[i]).is_some())
        };
        let b = match p.pick(ch, joins) {
            Some(b) => b,
            None => {
                let fresh: Rows = [0, 1, 2].map(|i| partner_row(p, ch, &rows[i], lead[i]));
                p.leaf(ch, fresh)
            }
        };
        for i in 0..3 {
            let e = &p.entries[b];
            let exact = join_exact(&rows[i], lead[i], &e.rows[i], e.lead[i]);
            let (r, l) = join_row(&rows[i], lead[i], &e.rows[i], e.lead[i])?;
            p.capped |= !exact;
            rows[i] = r;
            lead[i] = l;
        }
        args.push(b);
    }
    for a in &args {
        for (i, row) in rows.iter().enumerate() {
            p.broadcast_into(*a, i, row);
        }
    }
    let determined = p.determined(&args);
    Some(p.result(
        OpKind::Pointwise,
        &args,
        None,
        Entry { name: String::new(), rows, lead, open: [true; 3], soft: [false; 3], determined },
    ))
}

/// `compose a b`: `a`'s input against `b`'s output.
pub fn compose(p: &mut Pool, ch: &mut Choices) -> Option<usize> {
    let a = first(p, ch, |_| true);
    let ea = p.entries[a].clone();
    let ok = |e: &Entry| {
        fits(&ea.rows[1], &e.rows[2], e.lead[2])
            && join_row(&ea.rows[0], ea.lead[0], &e.rows[0], e.lead[0]).is_some()
    };
    let b = match p.pick(ch, ok) {
        Some(b) => b,
        None => {
            let batch = partner_row(p, ch, &ea.rows[0], ea.lead[0]);
            let output = operand_row(p, ch, &ea.rows[1], false);
            let input = p.row(ch, 2);
            p.leaf(ch, [batch, input, output])
        }
    };
    let eb = p.entries[b].clone();
    let (batch, lb) = join_row(&ea.rows[0], ea.lead[0], &eb.rows[0], eb.lead[0])?;
    // Leading flanks on either side of `a`'s input against `b`'s output: the solver's
    // templates may then make rows longer than the witness.
    p.capped |= !join_exact(&ea.rows[0], ea.lead[0], &eb.rows[0], eb.lead[0])
        || (eb.lead[2] && !eb.rows[2].is_empty())
        || (ea.lead[1] && ea.open[1] && !eb.rows[2].is_empty());
    p.broadcast_into(a, 0, &batch);
    p.broadcast_into(b, 0, &batch);
    p.broadcast_into(b, 2, &ea.rows[1]);
    let rows = [batch, eb.rows[1].clone(), ea.rows[2].clone()];
    let lead = [lb, eb.lead[1], ea.lead[2]];
    let determined = p.determined(&[a, b]);
    Some(p.result(
        OpKind::Compose,
        &[a, b],
        None,
        Entry { name: String::new(), rows, lead, open: [true; 3], soft: [false; 3], determined },
    ))
}

/// `transpose a`: input and output swap.
pub fn transpose(p: &mut Pool, ch: &mut Choices) -> Option<usize> {
    let a = first(p, ch, |_| true);
    let e = p.entries[a].clone();
    let rows = [e.rows[0].clone(), e.rows[2].clone(), e.rows[1].clone()];
    let lead = [e.lead[0], e.lead[2], e.lead[1]];
    let out = Entry {
        name: String::new(),
        rows,
        lead,
        open: [true; 3],
        soft: [false; 3],
        determined: e.determined,
    };
    Some(p.result(OpKind::Transpose, &[a], None, out))
}

/// `batch_slice a`: drops the leftmost batch axis.
pub fn batch_slice(p: &mut Pool, ch: &mut Choices) -> Option<usize> {
    // A batch row the solver keeps open meets `[s].<ρ>` in a word equation that the solver
    // closes more materially than needed (a known issue): avoided unless asked for.
    let avoid = p.cfg.avoid_known_issues;
    let a = match p.pick(ch, |e| !(e.rows[0].is_empty() || avoid && e.open[0])) {
        Some(a) => a,
        None => {
            let mut rows = p.rows(ch);
            if rows[0].is_empty() {
                rows[0].push(p.dim(ch));
            }
            p.leaf(ch, rows)
        }
    };
    let e = p.entries[a].clone();
    let rows = [e.rows[0][1..].to_vec(), e.rows[1].clone(), e.rows[2].clone()];
    let out = Entry {
        name: String::new(),
        rows,
        lead: e.lead,
        open: e.open,
        soft: [false; 3],
        determined: e.determined,
    };
    Some(p.result(OpKind::BatchSlice, &[a], None, out))
}
