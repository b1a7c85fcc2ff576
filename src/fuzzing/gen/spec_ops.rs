//! Generators for the spec operations: permute, einsum, einsum3 and concat. Operand slots are
//! written for the operands' witness shapes (or fresh operands are made from the labels seen
//! so far); the result slot rearranges labels and row variables across kinds, drops some
//! (reductions), repeats some (diagonal embedding) and adds fixed indices (embedding).

use super::broadcast::first;
use super::choices::Choices;
use super::labeling::{row_of, set_row, Item, Labeler};
use super::pool::{Entry, Pool, Rows};
use crate::fuzzing::model::ConcreteDim;
use crate::infer::OpKind;
use crate::spec::ast::{Axis, AxisKind, ConcatPart, EinsumSpec, Ellipsis, RowKind, ShapeSpec};
use crate::Span;

/// Kinds in the order choices map onto them (0 = output, the simplest).
const KINDS: [RowKind; 3] = [RowKind::Output, RowKind::Batch, RowKind::Input];

/// What a left-hand side means: its slot, witness rows, lead flags, and whether it guessed.
struct Lhs {
    slot: ShapeSpec,
    rows: Rows,
    lead: [bool; 3],
    open: [bool; 3],
    guessed: bool,
}

enum LhsItem {
    Label(crate::spec::ast::Name, ConcreteDim),
    Var(usize),
    Fixed(u64),
}

fn lhs(lab: &Labeler, ch: &mut Choices) -> Lhs {
    let items = lhs_items(lab, ch);
    let mut per_kind = by_kind(lab, ch, items);
    let mut out = Lhs {
        slot: ShapeSpec::default(),
        rows: Default::default(),
        lead: [false; 3],
        open: [false; 3],
        guessed: false,
    };
    for kind in RowKind::ALL {
        let its = std::mem::take(&mut per_kind[kind.index()]);
        lhs_row(lab, ch, kind, its, &mut out);
    }
    out
}

/// What the result keeps: most labels and row variables, sometimes a fixed index (an embedded
/// axis) or a repeated label (a diagonal embedding).
fn lhs_items(lab: &Labeler, ch: &mut Choices) -> Vec<LhsItem> {
    let mut items: Vec<LhsItem> = Vec::new();
    for (n, d) in &lab.labels {
        if ch.below(4) != 3 {
            items.push(LhsItem::Label(n.clone(), d.clone()));
        }
    }
    for i in 0..lab.vars.len() {
        if ch.below(5) != 4 {
            items.push(LhsItem::Var(i));
        }
    }
    if ch.one_in(6) {
        items.push(LhsItem::Fixed(ch.below(3) as u64));
    }
    if ch.one_in(8) {
        if let Some(LhsItem::Label(n, d)) = items.first() {
            items.push(LhsItem::Label(n.clone(), d.clone()));
        }
    }
    items
}

/// Distributes the items over the kinds, at most one row variable per row.
fn by_kind(lab: &Labeler, ch: &mut Choices, items: Vec<LhsItem>) -> [Vec<LhsItem>; 3] {
    let mut per_kind: [Vec<LhsItem>; 3] = Default::default();
    let mut has_var = [false; 3];
    for it in items {
        let mut kind = KINDS[ch.below(3)];
        if let LhsItem::Var(v) = it {
            // In single-char mode a variable named after a kind (plain `...`) cannot be
            // written in another kind's row (`..batch..` needs multichar mode).
            let own = RowKind::ALL.into_iter().find(|kd| kd.name() == lab.vars[v].name);
            if let Some(kd) = own.filter(|_| !lab.multichar) {
                kind = kd;
            }
            let fixed = own.is_some() && !lab.multichar;
            let free = |kd: &&RowKind| {
                !has_var[kd.index()] && (**kd == kind || (!fixed && has_var[kind.index()]))
            };
            match KINDS.iter().find(free) {
                Some(kd) => kind = *kd,
                None => continue,
            }
            has_var[kind.index()] = true;
        }
        per_kind[kind.index()].push(it);
    }
    per_kind
}

/// Writes one result row from its items in a random order, with its witness and flags.
fn lhs_row(lab: &Labeler, ch: &mut Choices, kind: RowKind, its: Vec<LhsItem>, out: &mut Lhs) {
    let order = ch.permutation(its.len());
    let mut its: Vec<Option<LhsItem>> = its.into_iter().map(Some).collect();
    let mut row_items = Vec::new();
    let (mut before_var, mut var_lead, mut var_open, mut seen_var) = (0, false, false, false);
    let axis = |kind| Item::Axis(Axis { kind, span: Span::default() });
    for i in order {
        let Some(it) = its.get_mut(i).and_then(Option::take) else { continue };
        match it {
            LhsItem::Label(n, d) => {
                out.rows[kind.index()].push(d);
                row_items.push(axis(AxisKind::Label(n)));
                before_var += usize::from(!seen_var);
            }
            LhsItem::Fixed(i) => {
                out.rows[kind.index()].push(ConcreteDim::new(i + 1));
                out.guessed = true;
                row_items.push(axis(AxisKind::Int(i)));
                before_var += usize::from(!seen_var);
            }
            LhsItem::Var(v) => {
                let var = &lab.vars[v];
                out.rows[kind.index()].extend(var.value.iter().cloned());
                (var_lead, var_open, seen_var) = (var.lead, var.open, true);
                let name = (var.name != kind.name()).then(|| var.name.as_str().into());
                row_items.push(Item::Var(Ellipsis { name, span: Span::default() }));
            }
        }
    }
    out.lead[kind.index()] = seen_var && (before_var > 0 || var_lead);
    out.open[kind.index()] = seen_var && var_open;
    if !row_items.is_empty() || kind == RowKind::Output {
        set_row(&mut out.slot, kind, row_of(row_items));
    }
}

/// Writes the spec, records the statement, returns the result.
fn finish(
    p: &mut Pool,
    ch: &mut Choices,
    op: OpKind,
    lab: &Labeler,
    rhs: Vec<ShapeSpec>,
    args: &[usize],
) -> usize {
    let l = lhs(lab, ch);
    let spec = EinsumSpec { rhs, lhs: l.slot, multichar: lab.multichar };
    let determined = p.determined(args) && !l.guessed;
    let out = Entry {
        name: String::new(),
        rows: l.rows,
        lead: l.lead,
        open: l.open,
        soft: [false; 3],
        determined,
    };
    p.result(op, args, Some(spec.to_string()), out)
}

/// `permute` (one operand).
pub fn permute(p: &mut Pool, ch: &mut Choices) -> Option<usize> {
    let a = first(p, ch, |_| true);
    let mut lab = Labeler::new(ch.one_in(3));
    let e = p.entries[a].clone();
    let slot = lab.slot(ch, &e, p.cfg.avoid_known_issues, (true, false));
    Some(finish(p, ch, OpKind::Permute, &lab, vec![slot], &[a]))
}

/// `einsum` (two operands) or `einsum3` (three).
pub fn einsum(p: &mut Pool, ch: &mut Choices, arity: usize) -> Option<usize> {
    let a = first(p, ch, |_| true);
    let mut lab = Labeler::new(ch.one_in(3));
    let e = p.entries[a].clone();
    let avoid = p.cfg.avoid_known_issues;
    let mut slots = vec![lab.slot(ch, &e, avoid, (true, true))];
    let mut args = vec![a];
    for _ in 1..arity {
        let existing = if lab.required.is_empty() { p.pick(ch, |_| true) } else { None };
        let (b, slot) = match existing {
            Some(b) => {
                let eb = p.entries[b].clone();
                (b, lab.slot(ch, &eb, avoid, (false, false)))
            }
            None => {
                let (slot, rows) = fresh_operand(p, ch, &mut lab);
                (p.leaf(ch, rows), slot)
            }
        };
        slots.push(slot);
        args.push(b);
    }
    let op = if arity == 2 { OpKind::Einsum } else { OpKind::Einsum3 };
    Some(finish(p, ch, op, &lab, slots, &args))
}

/// A fresh operand written from the labels and row variables seen so far (plus new ones), with
/// the kernel labels of convolution axes placed as plain axes.
fn fresh_operand(p: &Pool, ch: &mut Choices, lab: &mut Labeler) -> (ShapeSpec, Rows) {
    let mut per_kind: [Vec<(Axis, ConcreteDim)>; 3] = Default::default();
    for name in std::mem::take(&mut lab.required) {
        let d = lab.labels.iter().find(|(n, _)| *n == name).map(|(_, d)| d.clone());
        let d = d.unwrap_or_else(|| ConcreteDim::new(1));
        per_kind[KINDS[ch.below(3)].index()].push((label_axis(AxisKind::Label(name)), d));
    }
    for kind in RowKind::ALL {
        for _ in 0..ch.below(p.cfg.max_rank.min(3) + 1) {
            let reuse = ch.below(3) == 1;
            let known: Vec<(crate::spec::ast::Name, ConcreteDim)> = lab.labels.clone();
            let (ax, d) = match ch.pick(&known) {
                Some((n, d)) if reuse => (AxisKind::Label(n.clone()), d.clone()),
                _ => {
                    let d = p.dim(ch);
                    match ch.below(8) {
                        6 => (AxisKind::Placeholder, d),
                        7 => (AxisKind::Int(ch.below(d.size.min(3) as usize) as u64), d),
                        _ => {
                            (lab.fresh_label(&d).map_or(AxisKind::Placeholder, AxisKind::Label), d)
                        }
                    }
                }
            };
            per_kind[kind.index()].push((label_axis(ax), d));
        }
    }
    let mut slot = ShapeSpec::default();
    let mut rows: Rows = Default::default();
    for kind in RowKind::ALL {
        let axes = std::mem::take(&mut per_kind[kind.index()]);
        let var = if ch.one_in(3) { fresh_var_value(p, ch, lab, kind) } else { None };
        let at = ch.below(axes.len() + 1);
        let mut items = Vec::new();
        for (i, (ax, d)) in axes.into_iter().enumerate() {
            if i == at {
                if let Some((e, v)) = var.clone() {
                    rows[kind.index()].extend(v);
                    items.push(Item::Var(e));
                }
            }
            rows[kind.index()].push(d);
            items.push(Item::Axis(ax));
        }
        if at >= items.len() {
            if let Some((e, v)) = var {
                rows[kind.index()].extend(v);
                items.push(Item::Var(e));
            }
        }
        if !items.is_empty() || kind == RowKind::Output {
            set_row(&mut slot, kind, row_of(items));
        }
    }
    (slot, rows)
}

/// A row variable for a fresh operand: one already in the spec (same value) or a new one.
fn fresh_var_value(
    p: &Pool,
    ch: &mut Choices,
    lab: &mut Labeler,
    kind: RowKind,
) -> Option<(Ellipsis, Vec<ConcreteDim>)> {
    let reuse = ch.below(2) == 0;
    // In single-char mode only variables with one-letter names, or `...` in its own kind's
    // row, can be written.
    let writable = |v: &&super::labeling::VarValue| {
        lab.multichar || v.name == kind.name() || RowKind::ALL.iter().all(|kd| kd.name() != v.name)
    };
    if let Some(v) = ch.pick(&lab.vars).filter(|_| reuse).filter(writable) {
        let name = (v.name != kind.name()).then(|| v.name.as_str().into());
        return Some((Ellipsis { name, span: Span::default() }, v.value.clone()));
    }
    let value = p.row(ch, 2);
    let e = lab.row_var(kind, &value, (false, p.cfg.open_leaves))?;
    Some((e, value))
}

fn label_axis(kind: AxisKind) -> Axis {
    Axis { kind, span: Span::default() }
}

/// `concat` of two or three operands along one axis: operands equal except at that axis.
pub fn concat(p: &mut Pool, ch: &mut Choices) -> Option<usize> {
    let has_axis = |e: &Entry| e.rows.iter().flatten().any(|d| !d.is_top());
    let a = first(p, ch, has_axis);
    let e = p.entries[a].clone();
    let spots: Vec<(usize, usize)> = (0..3)
        .flat_map(|r| (0..e.rows[r].len()).map(move |i| (r, i)))
        .filter(|(r, i)| !e.rows[*r][*i].is_top())
        .collect();
    let &(r, at) = ch.pick(&spots)?;
    let n = 2 + ch.below(2);
    let mut lab = Labeler::new(true);
    let mut shared = lab.slot(ch, &e, p.cfg.avoid_known_issues, (false, false));
    strip_non_labels(&mut shared, &mut lab);
    let kind = RowKind::ALL[r];
    let mut args = vec![a];
    let mut sizes = vec![e.rows[r][at].size];
    for _ in 1..n {
        let mut rows = e.rows.clone();
        let mut d = p.dim(ch);
        d.basis = e.rows[r][at].basis.clone();
        sizes.push(d.size);
        rows[r][at] = d;
        let avoid = p.cfg.avoid_known_issues;
        let same = |x: &Entry| {
            x.rows == rows && !x.lead.iter().any(|l| *l) && !(avoid && x.open.iter().any(|o| *o))
        };
        let b = match p.pick(ch, same) {
            Some(b) => b,
            None => p.leaf(ch, rows),
        };
        args.push(b);
    }
    let names: Vec<_> = (0..n).map(|j| crate::spec::ast::Name::from(format!("c{j}"))).collect();
    let rhs: Vec<ShapeSpec> = names
        .iter()
        .map(|c| with_axis(&shared, kind, at, &e.rows[r], AxisKind::Label(c.clone())))
        .collect();
    let parts = names.into_iter().map(ConcatPart::Label).collect();
    let lhs = with_axis(&shared, kind, at, &e.rows[r], AxisKind::Concat(parts));
    let mut rows = e.rows.clone();
    // Sizes near 2^62 may not add up to a size.
    let sum = sizes.iter().try_fold(0u64, |a, s| a.checked_add(*s));
    rows[r][at].size = sum.filter(|s| *s <= crate::spec::lexer::MAX_INT)?;
    let spec = EinsumSpec { rhs, lhs, multichar: true };
    let determined = p.determined(&args);
    let has_var = |kd: RowKind| spec.lhs.row(kd).is_some_and(|r| r.ellipsis.is_some());
    let lead_of = |kd: RowKind| spec.lhs.row(kd).is_some_and(|r| !r.leading.is_empty());
    let lead = RowKind::ALL.map(|kd| has_var(kd) && (lead_of(kd) || e.lead[kd.index()]));
    let open =
        RowKind::ALL.map(|kd| has_var(kd) && args.iter().any(|a| p.entries[*a].open[kd.index()]));
    let out = Entry { name: String::new(), rows, lead, open, soft: [false; 3], determined };
    Some(p.result(OpKind::Concat, &args, Some(spec.to_string()), out))
}

/// Replaces placeholders, fixed indices and arithmetic axes of a shared slot by fresh labels
/// (a concatenation's other axes must be labels shared by every slot and the result).
fn strip_non_labels(slot: &mut ShapeSpec, lab: &mut Labeler) {
    for row in [slot.batch.as_deref_mut(), slot.input.as_deref_mut(), Some(&mut slot.output)]
        .into_iter()
        .flatten()
    {
        for a in row.leading.iter_mut().chain(row.trailing.iter_mut()) {
            if !matches!(a.kind, AxisKind::Label(_)) {
                let name = lab.fresh_label(&ConcreteDim::new(1));
                a.kind = name.map_or(AxisKind::Placeholder, AxisKind::Label);
            }
        }
    }
}

/// The slot with the axis at flat position `at` of `kind`'s row replaced; a row variable
/// covering that position is expanded into labels first.
fn with_axis(
    slot: &ShapeSpec,
    kind: RowKind,
    at: usize,
    row: &[ConcreteDim],
    ax: AxisKind,
) -> ShapeSpec {
    let mut s = slot.clone();
    let r = match kind {
        RowKind::Batch => &mut **s.batch.get_or_insert_with(Default::default),
        RowKind::Input => &mut **s.input.get_or_insert_with(Default::default),
        RowKind::Output => &mut s.output,
    };
    let lead = r.leading.len();
    let tail_at = row.len() - r.trailing.len();
    if at < lead {
        r.leading[at].kind = ax;
    } else if at >= tail_at {
        r.trailing[at - tail_at].kind = ax;
    } else {
        // Inside the row variable: close the row, writing the middle with its own labels.
        r.ellipsis = None;
        let mut all: Vec<Axis> = r.leading.drain(..).collect();
        for i in lead..tail_at {
            let k = if i == at { ax.clone() } else { AxisKind::Label(format!("m{i}").into()) };
            all.push(label_axis(k));
        }
        all.extend(r.trailing.drain(..));
        r.trailing = all.into_iter().collect();
    }
    s
}
