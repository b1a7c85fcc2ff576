//! Hostile extremes: programs built around the inputs that break a naive solver. Sizes near
//! 2^62 (and results of far more elements than that), chains of hundreds of strided steps,
//! a size doubled by concatenating a tensor with itself up to the limit, concatenations of
//! hundreds of operands, specs of hundreds of labels. Each stays well-formed: its witness
//! holds (every size at most 2^62), so the usual properties apply; the chains may start from
//! an opened leaf, whose sizes the solver must then carry through the whole chain.

use super::choices::Choices;
use super::pool::{Entry, Pool, Rows};
use crate::fuzzing::model::ConcreteDim;
use crate::infer::OpKind;
use crate::spec::lexer::MAX_INT;

/// The hostile extreme a program is built around ([`super::GenConfig::extremes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Extreme {
    /// Fresh dimensions often take sizes near 2^62, so that results hold far more than 2^62
    /// elements (no size may overflow, no buffer be sized from them).
    HugeSizes,
    /// A chain of strided permutes (`2*o`, `2*o+1`, `1*o`) over one axis, possibly of an
    /// opened leaf.
    DeepAffine,
    /// A tensor concatenated with itself again and again, its size doubling up to 2^62.
    SelfConcat,
    /// One concatenation of many operands (past 256, where narrow operand numbers wrap).
    WideFanIn,
    /// A permute and an einsum over a tensor of many axes, each a label.
    WideSpec,
}

impl Extreme {
    /// Every extreme.
    pub const ALL: [Extreme; 5] = [
        Extreme::HugeSizes,
        Extreme::DeepAffine,
        Extreme::SelfConcat,
        Extreme::WideFanIn,
        Extreme::WideSpec,
    ];
}

impl Extreme {
    /// The operations the extreme's steps use (none for [`Extreme::HugeSizes`], which only
    /// changes sizes): a configuration that does not draw them gets no such program.
    pub fn ops(self) -> &'static [OpKind] {
        match self {
            Extreme::HugeSizes => &[],
            Extreme::DeepAffine => &[OpKind::Permute],
            Extreme::SelfConcat | Extreme::WideFanIn => &[OpKind::Concat],
            Extreme::WideSpec => &[OpKind::Permute, OpKind::Einsum],
        }
    }
}

/// Sizes a fresh dimension may take in a [`Extreme::HugeSizes`] program.
const HUGE: [u64; 6] = [1 << 62, (1 << 62) - 1, 1 << 61, 3 << 59, (1 << 40) + 1, 1 << 31];

/// A huge size for a fresh dimension.
pub fn huge_size(ch: &mut Choices) -> u64 {
    HUGE[ch.below(HUGE.len())]
}

/// Adds the steps of an extreme to the program (sizes come from the pool, so a
/// [`Extreme::HugeSizes`] program needs none).
pub fn extend(p: &mut Pool, ch: &mut Choices, extreme: Extreme, len: usize) {
    let len = len.max(1);
    match extreme {
        Extreme::HugeSizes => {}
        Extreme::DeepAffine => deep_affine(p, ch, len),
        Extreme::SelfConcat => self_concat(p, ch, len),
        Extreme::WideFanIn => wide_fan_in(p, ch, len),
        Extreme::WideSpec => wide_spec(p, ch, len),
    }
}

/// A tensor of batch and input rows empty and a last output axis that is not `1!`: an
/// existing one, or a fresh leaf of one axis (which may be opened).
fn base(p: &mut Pool, ch: &mut Choices) -> usize {
    let fits = |e: &Entry| {
        e.rows[0].is_empty()
            && e.rows[1].is_empty()
            && e.rows[2].last().is_some_and(|d| !d.is_top())
            && !e.lead.iter().any(|l| *l)
    };
    if let Some(i) = p.pick(ch, fits) {
        return i;
    }
    let mut d = p.dim(ch);
    if d.is_top() {
        d = ConcreteDim::new(1);
    }
    p.leaf(ch, [vec![], vec![], vec![d]])
}

/// The result entry of a step over `arg` whose output row becomes `output`.
fn over(p: &Pool, arg: usize, output: Vec<ConcreteDim>) -> Entry {
    let e = &p.entries[arg];
    let rows: Rows = [vec![], vec![], output];
    Entry { name: String::new(), rows, ..e.clone() }
}

/// Up to `len` strided permutes of the last output axis: `2*o` or `2*o+1` (two thirds of the
/// time, while the size is even), else `1*o` (the same size).
fn deep_affine(p: &mut Pool, ch: &mut Choices, len: usize) {
    let mut t = base(p, ch);
    for _ in 0..1 + ch.below(len) {
        let mut out = p.entries[t].rows[2].clone();
        let Some(last) = out.last_mut() else { return };
        // An offset is below its stride (the index `s*o+off` stays inside the axis).
        let spec = match ch.below(3) {
            0 if last.size % 2 == 0 && !last.is_top() => {
                last.size /= 2;
                "..r..,2*o=>..r..,o"
            }
            1 if last.size % 2 == 0 && !last.is_top() => {
                last.size /= 2;
                "..r..,2*o+1=>..r..,o"
            }
            _ => "..r..,1*o=>..r..,o",
        };
        let entry = over(p, t, out);
        t = p.result(OpKind::Permute, &[t], Some(spec.into()), entry);
    }
}

/// The last output axis concatenated with itself while its size stays at most 2^62 (at most
/// `len` times).
fn self_concat(p: &mut Pool, ch: &mut Choices, len: usize) {
    let mut t = base(p, ch);
    for _ in 0..1 + ch.below(len) {
        let mut out = p.entries[t].rows[2].clone();
        let Some(last) = out.last_mut() else { return };
        match last.size.checked_mul(2).filter(|s| *s <= MAX_INT) {
            Some(s) if s > 0 => last.size = s,
            _ => return,
        }
        let entry = over(p, t, out);
        let spec = "..r..,a;..r..,b=>..r..,a^b";
        t = p.result(OpKind::Concat, &[t, t], Some(spec.into()), entry);
    }
}

/// One concatenation of up to `len` one-axis operands (the base and fresh leaves of its
/// basis), as many as keep the sum at most 2^62.
fn wide_fan_in(p: &mut Pool, ch: &mut Choices, len: usize) {
    let mut first = base(p, ch);
    if p.entries[first].rows[2].len() != 1 {
        let Some(d) = p.entries[first].rows[2].last().cloned() else { return };
        first = p.leaf(ch, [vec![], vec![], vec![d]]);
    }
    let Some(axis) = p.entries[first].rows[2].last().cloned() else { return };
    let (mut args, mut sum) = (vec![first], axis.size);
    for _ in 1..2 + ch.below(len) {
        let arg = if ch.one_in(2) {
            first
        } else {
            let mut d = p.dim(ch);
            if d.is_top() {
                d = ConcreteDim::new(1);
            }
            d.basis = axis.basis.clone();
            p.leaf(ch, [vec![], vec![], vec![d]])
        };
        let Some(d) = p.entries[arg].rows[2].last() else { break };
        match sum.checked_add(d.size).filter(|s| *s <= MAX_INT) {
            Some(s) => sum = s,
            None => break,
        }
        args.push(arg);
    }
    if args.len() < 2 {
        return;
    }
    let names: Vec<String> = (0..args.len()).map(|i| format!("c{i}")).collect();
    let spec = format!("{}=>{}", names.join(";"), names.join("^"));
    let out = ConcreteDim { size: sum, basis: axis.basis.clone() };
    let determined = p.determined(&args);
    let entry = Entry { determined, ..over(p, first, vec![out]) };
    p.result(OpKind::Concat, &args, Some(spec), entry);
}

/// A fresh leaf of up to `len` output axes, permuted into the reverse order, and that result
/// multiplied with itself label by label (`l;l=>l`).
fn wide_spec(p: &mut Pool, ch: &mut Choices, len: usize) {
    let n = 1 + ch.below(len);
    let row: Vec<ConcreteDim> = (0..n).map(|_| p.dim(ch)).collect();
    let leaf = p.leaf(ch, [vec![], vec![], row.clone()]);
    // Labels of several characters need a comma to be read as such: one axis is `a`.
    let labels: Vec<String> =
        (0..n).map(|i| if n == 1 { "a".into() } else { format!("a{i}") }).collect();
    let reversed: Vec<String> = labels.iter().rev().cloned().collect();
    let spec = format!("{}=>{}", labels.join(","), reversed.join(","));
    let rev_row: Vec<ConcreteDim> = row.iter().rev().cloned().collect();
    // The results' rows are written in full: nothing of them stays open.
    let closed = |p: &Pool, arg: usize, row: Vec<ConcreteDim>| Entry {
        lead: [false; 3],
        open: [false; 3],
        soft: [false; 3],
        ..over(p, arg, row)
    };
    let entry = closed(p, leaf, rev_row.clone());
    let t = p.result(OpKind::Permute, &[leaf], Some(spec), entry);
    let l = reversed.join(",");
    let spec = format!("{l};{l}=>{l}");
    let entry = closed(p, t, rev_row);
    p.result(OpKind::Einsum, &[t, t], Some(spec), entry);
}
