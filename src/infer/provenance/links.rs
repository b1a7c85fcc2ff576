//! The axes each step makes equal (or broadcasts into one another), read off the step's
//! operation and spec against its tensors' rows as far as they are solved.

use std::collections::HashMap;

use smallvec::SmallVec;

use super::rows::{aligned, RowView};
use crate::ids::TensorId;
use crate::infer::error::AxisRef;
use crate::infer::{Graph, OpKind};
use crate::span::Span;
use crate::spec::ast::{Axis, AxisKind, EinsumSpec, NumpySpec, Row, RowKind, ShapeSpec};

/// What the walk needs of a step.
#[derive(Debug)]
pub struct StepInfo<'a> {
    /// The operation.
    pub op: OpKind,
    /// Its operands.
    pub args: &'a [TensorId],
    /// Its result.
    pub out: TensorId,
    /// Its spec, parsed (spec operations).
    pub einsum: Option<&'a EinsumSpec>,
    /// Its subscripts, parsed (numpy steps).
    pub numpy: Option<&'a NumpySpec>,
}

/// Two axes a step relates.
pub type Link = (AxisRef, AxisRef);

/// The rows read so far, by tensor and kind.
pub type Views = HashMap<(TensorId, RowKind), RowView>;

/// The row `kind` of `t`, read once.
pub fn view<'v>(g: &Graph, views: &'v mut Views, t: TensorId, kind: RowKind) -> &'v RowView {
    views.entry((t, kind)).or_insert_with(|| RowView::of(g, t, kind))
}

const B: RowKind = RowKind::Batch;
const I: RowKind = RowKind::Input;
const O: RowKind = RowKind::Output;

/// The axes a step relates.
pub fn links(g: &Graph, views: &mut Views, s: &StepInfo) -> Vec<Link> {
    let mut out = Vec::new();
    let mut bcast = |g: &Graph,
                     views: &mut Views,
                     (r, rk): (TensorId, RowKind),
                     (o, ok): (TensorId, RowKind)| {
        let rv = view(g, views, r, rk).clone();
        let ov = view(g, views, o, ok);
        for (pr, po) in aligned(&rv, ov) {
            out.push((axis(r, rk, pr), axis(o, ok, po)));
        }
    };
    match (s.op, s.args) {
        (OpKind::Pointwise, args) => {
            for &a in args {
                for k in RowKind::ALL {
                    bcast(g, views, (s.out, k), (a, k));
                }
            }
        }
        (OpKind::Compose, &[a, b]) => {
            bcast(g, views, (a, I), (b, O));
            bcast(g, views, (s.out, B), (a, B));
            bcast(g, views, (s.out, B), (b, B));
            bcast(g, views, (s.out, I), (b, I));
            bcast(g, views, (s.out, O), (a, O));
        }
        (OpKind::Transpose, &[a]) => {
            bcast(g, views, (s.out, B), (a, B));
            bcast(g, views, (s.out, I), (a, O));
            bcast(g, views, (s.out, O), (a, I));
        }
        (OpKind::BatchSlice, &[a]) => {
            for k in RowKind::ALL {
                bcast(g, views, (s.out, k), (a, k));
            }
        }
        _ => {}
    }
    if let Some(spec) = s.einsum {
        let slots = spec.rhs.iter().zip(s.args.iter().copied());
        let slots: Vec<(&ShapeSpec, TensorId)> = slots.chain([(&spec.lhs, s.out)]).collect();
        out.extend(spec_links(g, views, &slots));
    }
    if let Some(np) = s.numpy {
        out.extend(numpy_links(g, views, np, s.args, s.out));
    }
    out
}

/// The axes a step relates among its operands only, as a step being added (which has no
/// result yet) relates them: broadcast operands align with one another, a compose contracts
/// the first's input row with the second's output row, a spec's label ties its occurrences
/// in the operand slots.
pub fn operand_links(g: &Graph, views: &mut Views, s: &StepInfo) -> Vec<Link> {
    let mut out = Vec::new();
    let mut pair = |g: &Graph, views: &mut Views, (a, ak), (b, bk)| {
        let av = view(g, views, a, ak).clone();
        let bv = view(g, views, b, bk);
        for (pa, pb) in aligned(&av, bv) {
            out.push((axis(a, ak, pa), axis(b, bk, pb)));
        }
    };
    match (s.op, s.args) {
        (OpKind::Pointwise, args) => {
            for (i, &a) in args.iter().enumerate() {
                for &b in &args[i + 1..] {
                    for k in RowKind::ALL {
                        pair(g, views, (a, k), (b, k));
                    }
                }
            }
        }
        (OpKind::Compose, &[a, b]) => {
            pair(g, views, (a, I), (b, O));
            pair(g, views, (a, B), (b, B));
        }
        _ => {}
    }
    if let Some(spec) = s.einsum {
        let slots: Vec<(&ShapeSpec, TensorId)> =
            spec.rhs.iter().zip(s.args.iter().copied()).collect();
        out.extend(spec_links(g, views, &slots));
    }
    if let Some(np) = s.numpy {
        let mut groups = Groups::default();
        for (term, &t) in np.inputs.iter().zip(s.args) {
            groups.add(g, views, t, O, term);
        }
        out.extend(groups.links());
    }
    out
}

fn axis(tensor: TensorId, kind: RowKind, axis: i16) -> AxisRef {
    AxisRef { tensor, kind, axis }
}

/// Labels and row variables of slots: every axis of a label is related to its other axes, and
/// the axes a row variable covers to those it covers in the other slots (from the right).
#[derive(Default)]
struct Groups<'s> {
    labels: HashMap<&'s str, SmallVec<[AxisRef; 4]>>,
    rows: HashMap<String, Vec<SmallVec<[AxisRef; 4]>>>,
}

impl<'s> Groups<'s> {
    /// Places the axes of a slot row `row` (of kind `kind`) on tensor `t`'s row.
    fn add(&mut self, g: &Graph, views: &mut Views, t: TensorId, kind: RowKind, row: &'s Row) {
        let v = view(g, views, t, kind);
        let (lead, trail) = flanks(row);
        for (a, pos) in placed(v, row) {
            if let (AxisKind::Label(name), Some(p)) = (&a.kind, pos) {
                self.labels.entry(name.as_str()).or_default().push(axis(t, kind, p));
            }
        }
        if let (Some(e), false) = (&row.ellipsis, v.is_open()) {
            let covered = (lead..v.len().saturating_sub(trail)).rev();
            let covered = covered.filter_map(|i| v.left(i)).map(|p| axis(t, kind, p)).collect();
            self.rows.entry(e.var_name(kind).to_string()).or_default().push(covered);
        }
    }

    fn links(self) -> Vec<Link> {
        let mut out = Vec::new();
        for (_, axes) in self.labels {
            out.extend(axes.iter().skip(1).map(|&a| (axes[0], a)));
        }
        for (_, rows) in self.rows {
            for r in rows.iter().skip(1) {
                out.extend(rows[0].iter().zip(r).map(|(&a, &b)| (a, b)));
            }
        }
        out
    }
}

/// The lengths of a spec row's leading and trailing flanks (all axes trail in a closed row).
fn flanks(row: &Row) -> (usize, usize) {
    match row.ellipsis {
        Some(_) => (row.leading.len(), row.trailing.len()),
        None => (0, row.len()),
    }
}

/// Each axis of a spec row with its position on the tensor row `v`, when known.
pub(super) fn placed<'r>(
    v: &RowView,
    row: &'r Row,
) -> impl Iterator<Item = (&'r Axis, Option<i16>)> {
    let (lead, trail) = flanks(row);
    let at: Vec<Option<i16>> = (0..row.len())
        .map(|k| if k < lead { v.left(k) } else { v.right(lead + trail - k) })
        .collect();
    row.axes().zip(at)
}

/// The span, in its spec, of what stands for axis `a` in the spec row `row` (written for
/// `a`'s row): the axis written there, or the row variable that covers it.
pub fn axis_span(g: &Graph, row: &Row, a: AxisRef) -> Option<Span> {
    let v = RowView::of(g, a.tensor, a.kind);
    if let Some((axis, _)) = placed(&v, row).find(|(_, pos)| *pos == Some(a.axis)) {
        return Some(axis.span);
    }
    row.ellipsis.as_ref().map(|e| e.span)
}

/// The labels and row variables of the slots `slots` (each with its tensor), placed on the
/// tensors' rows.
fn slot_groups<'s>(
    g: &Graph,
    views: &mut Views,
    slots: &[(&'s ShapeSpec, TensorId)],
) -> Groups<'s> {
    let mut groups = Groups::default();
    for &(slot, t) in slots {
        for (kind, row) in slot.rows() {
            groups.add(g, views, t, kind, row);
        }
    }
    groups
}

/// The axes of the operand slots `slots` (each with its tensor) that hold `label`, as placed on
/// the tensors' rows.
pub fn label_axes(
    g: &Graph,
    views: &mut Views,
    slots: &[(&ShapeSpec, TensorId)],
    label: &str,
) -> Vec<AxisRef> {
    let groups = slot_groups(g, views, slots);
    groups.labels.get(label).map(|a| a.to_vec()).unwrap_or_default()
}

/// [`label_axes`] for numpy subscripts: the input terms `terms`, each with its operand.
pub fn numpy_label_axes(
    g: &Graph,
    views: &mut Views,
    terms: &[(&Row, TensorId)],
    label: &str,
) -> Vec<AxisRef> {
    let mut groups = Groups::default();
    for &(term, t) in terms {
        groups.add(g, views, t, O, term);
    }
    groups.labels.get(label).map(|a| a.to_vec()).unwrap_or_default()
}

/// The axes a row variable `name` covers in each of the slots `slots` (each with its tensor), as
/// placed on the tensors' rows: one group per slot row that has it.
pub fn row_axes(
    g: &Graph,
    views: &mut Views,
    slots: &[(&ShapeSpec, TensorId)],
    name: &str,
) -> Vec<SmallVec<[AxisRef; 4]>> {
    slot_groups(g, views, slots).rows.remove(name).unwrap_or_default()
}

fn spec_links(g: &Graph, views: &mut Views, slots: &[(&ShapeSpec, TensorId)]) -> Vec<Link> {
    slot_groups(g, views, slots).links()
}

fn numpy_links(
    g: &Graph,
    views: &mut Views,
    np: &NumpySpec,
    args: &[TensorId],
    out: TensorId,
) -> Vec<Link> {
    let mut groups = Groups::default();
    for (term, &t) in np.inputs.iter().zip(args) {
        groups.add(g, views, t, O, term);
    }
    if let Some(o) = &np.output {
        groups.add(g, views, out, O, o);
    }
    groups.links()
}
