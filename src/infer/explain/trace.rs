//! Filling in where each size of a dimension mismatch came from ([`trace`]).

use std::collections::HashMap;

use crate::ids::{StepId, TensorId};
use crate::infer::error::{AxisRef, Conflict, Place, Side};
use crate::infer::provenance::{StepInfo, Walker};
use crate::infer::{Graph, InferError, OpKind};
use crate::spec::ast::{EinsumSpec, NumpySpec, RowKind};
use crate::spec::{parse_einsum, parse_numpy};

/// The failing step: its operation, operands, result (when the graph has it) and spec.
pub(super) struct Failing {
    pub op: OpKind,
    pub args: Vec<TensorId>,
    pub out: Option<TensorId>,
    pub step: Option<StepId>,
    pub einsum: Option<EinsumSpec>,
    pub numpy: Option<NumpySpec>,
}

impl Failing {
    /// The failing step of a shape error: the step being added (taken back, so only in the
    /// error), or a step of the graph.
    pub fn of(g: &Graph, e: &InferError) -> Option<Failing> {
        let InferError::Shape(s) = e else { return None };
        let in_graph = s.step.and_then(|st| g.steps().get(st.index()).map(|step| (st, step)));
        let (op, args, out, step, text) = match (&s.failed_step, in_graph) {
            (Some((op, args)), _) => (*op, args.clone(), None, None, s.spec.clone()),
            (None, Some((st, step))) => {
                let text = step.spec_text().map(String::from).or_else(|| {
                    (step.op == OpKind::Numpy)
                        .then(|| g.recorded_texts().numpy.remove(&st))
                        .flatten()
                });
                (step.op, step.args.to_vec(), Some(step.out), Some(st), text)
            }
            _ => return None,
        };
        let (einsum, numpy) = match (op, text) {
            (OpKind::Numpy, Some(t)) => (None, parse_numpy(&t).ok()),
            (_, Some(t)) if op.has_spec() => (parse_einsum(&t).ok(), None),
            _ => (None, None),
        };
        Some(Failing { op, args, out, step, einsum, numpy })
    }
}

/// Fills in, for each side of a dimension mismatch, where its size came from: the declaration
/// that writes it, and each step that carried it to the failing step ([`Side::trace`]).
///
/// Nothing is recorded while solving: this walks the graph as solved when the error was
/// reported (see [`provenance`](crate::infer::provenance)), in time linear in the graph, so
/// call it once per reported error. [`Program::build`](crate::infer::program::Program::build)
/// calls it for the error it returns; other errors are left as they are.
///
/// ```
/// use einrow::infer::{explain::trace, Graph, InferError};
///
/// let mut g = Graph::new();
/// let a = g.declare("a", None, false)?;
/// let src = g.declare("src", Some("3"), false)?;
/// let other = g.declare("other", Some("4"), false)?;
/// let b = g.pointwise(&[a, src])?;
/// let c = g.pointwise(&[b])?;
/// let mut e = g.einsum("i; i => i", &[c, other]).unwrap_err();
/// trace(&g, &mut e);
/// let InferError::Shape(s) = &e else { panic!() };
/// let three = &s.conflict.as_ref().unwrap().sides[0];
/// let origin = three.trace.as_ref().unwrap().origin.unwrap();
/// assert_eq!((three.value, g.name(origin.tensor)?.as_str()), (3, "src"));
/// assert_eq!(three.trace.as_ref().unwrap().hops.len(), 2);
/// # Ok::<(), InferError>(())
/// ```
pub fn trace(g: &Graph, e: &mut InferError) {
    let failing = Failing::of(g, e);
    let InferError::Shape(s) = e else { return };
    let Some(conflict) = s.conflict.as_deref_mut() else { return };
    let texts = g.recorded_texts();
    let numpy: HashMap<StepId, NumpySpec> =
        texts.numpy.iter().filter_map(|(s, t)| Some((*s, parse_numpy(t).ok()?))).collect();
    let declared = |t: TensorId| texts.declared.get(&t).map(|d| &**d);
    let numpy_of = |s: StepId| numpy.get(&s);
    let skip = failing.as_ref().and_then(|f| f.step);
    let mut w = Walker::new(g, skip, &declared, &numpy_of);
    let at = conflict.at.clone();
    // The two sizes of a label's mismatch are the label's on both sides, also where the
    // solver learnt only one side's label.
    let label = conflict.sides.iter().find_map(|x| x.label.clone());
    let values = [conflict.sides[0].value, conflict.sides[1].value];
    let pair = failing.as_ref().and_then(|f| conflict_pair(&mut w, f, values));
    for (i, side) in conflict.sides.iter_mut().enumerate() {
        let labelled = Side { label: side.label.clone().or(label.clone()), ..side.clone() };
        let paired = pair.map(|p| p[i]);
        let starts = starts(&mut w, &labelled, &at, failing.as_ref(), paired);
        side.trace = Some(w.trace(&starts, side.value));
    }
}

/// The two axes the failing step relates whose sizes are the conflict's two values: among
/// its operands first, then with its result.
fn conflict_pair(w: &mut Walker, f: &Failing, values: [u64; 2]) -> Option<[AxisRef; 2]> {
    let out = f.out.or_else(|| f.args.first().copied())?;
    let info = StepInfo {
        op: f.op,
        args: &f.args,
        out,
        einsum: f.einsum.as_ref(),
        numpy: f.numpy.as_ref(),
    };
    let links = w.failing_links(&info, f.out.is_some());
    for (x, y) in links {
        match (w.size(x), w.size(y)) {
            (Some(p), Some(q)) if [p, q] == values => return Some([x, y]),
            (Some(p), Some(q)) if [q, p] == values => return Some([y, x]),
            _ => {}
        }
    }
    None
}

/// The axes of the failing step where a side's size shows: its label's axes; else its end of
/// the pair of axes the step relates with the conflict's two sizes (`paired`); else the axis
/// the solver names; else axes of the same row and position, the same row, any row of the
/// operands; else the result's.
fn starts(
    w: &mut Walker,
    side: &Side,
    at: &Place,
    f: Option<&Failing>,
    paired: Option<AxisRef>,
) -> Vec<AxisRef> {
    let Some(f) = f else {
        return place_axis(side.from.as_ref()).into_iter().collect();
    };
    let v = Some(side.value);
    let mut found: Vec<AxisRef> = Vec::new();
    if let Some(label) = &side.label {
        found = label_axes(w, f, label);
    }
    found.retain(|&a| w.size(a) == v);
    if !found.is_empty() {
        return found;
    }
    if let Some(a) = paired {
        return vec![a];
    }
    let places = [side.from.as_ref(), Some(at)];
    for p in places.into_iter().flatten() {
        if let Some(a) = place_axis(Some(p)).filter(|a| f.args.contains(&a.tensor)) {
            if w.size(a) == v {
                return vec![a];
            }
        }
    }
    let kind = side.from.as_ref().and_then(|p| p.kind).or(at.kind);
    let axis = side.from.as_ref().and_then(|p| p.axis).or(at.axis);
    let tensors: Vec<TensorId> = f.args.clone();
    let any = |w: &mut Walker, ts: &[TensorId], kinds: &[RowKind], axis: Option<i16>| {
        let mut out = Vec::new();
        for &t in ts {
            for &k in kinds {
                for pos in w.positions(t, k) {
                    let a = AxisRef { tensor: t, kind: k, axis: pos };
                    if axis.is_none_or(|x| x == pos) && w.size(a) == v {
                        out.push(a);
                    }
                }
            }
        }
        out
    };
    let kinds: Vec<RowKind> = kind.into_iter().collect();
    for (ts, ks, ax) in [
        (&tensors[..], &kinds[..], axis),
        (&tensors[..], &kinds[..], None),
        (&tensors[..], &RowKind::ALL[..], None),
    ] {
        found = any(w, ts, ks, ax);
        if !found.is_empty() {
            return found;
        }
    }
    let result: Vec<TensorId> = f.out.into_iter().collect();
    any(w, &result, &RowKind::ALL, None)
}

/// The axis a place names, when it names one fully.
fn place_axis(p: Option<&Place>) -> Option<AxisRef> {
    let p = p?;
    Some(AxisRef { tensor: p.tensor?, kind: p.kind?, axis: p.axis? })
}

/// The axes of the failing step's operands that hold `label`.
fn label_axes(w: &mut Walker, f: &Failing, label: &str) -> Vec<AxisRef> {
    if let Some(spec) = &f.einsum {
        let slots: Vec<_> = spec.rhs.iter().zip(f.args.iter().copied()).collect();
        return w.label_axes(&slots, label);
    }
    if let Some(np) = &f.numpy {
        let terms: Vec<_> = np.inputs.iter().zip(f.args.iter().copied()).collect();
        return w.numpy_label_axes(&terms, label);
    }
    Vec::new()
}

/// The conflict of an error, when it has one.
pub fn conflict_of(e: &InferError) -> Option<&Conflict> {
    match e {
        InferError::Shape(s) => s.conflict.as_deref(),
        _ => None,
    }
}
