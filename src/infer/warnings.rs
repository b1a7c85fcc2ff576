//! Warnings as values: things a solution does that are legal but often not what was meant,
//! for a framework to surface ([`Graph::warnings`], [`Scheme::warnings`](super::Scheme)).

use std::collections::HashMap;
use std::fmt;

use smallvec::SmallVec;

use super::graph::{Graph, StepSpec};
use super::guesses::Guessed;
use crate::ids::{StepId, TensorId};
use crate::shape::{Basis, Dim};
use crate::spec::ast::{same_name, AxisKind, ConcatPart, EinsumSpec, Name, RowKind, ShapeSpec};

/// A legal but surprising outcome of solving.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// A parameter declared without its batch row (no shape at all, or an open batch row
    /// with no axis written) took batch axes from the operations it takes part in: a bias
    /// added to a batch of activations becomes `32|10` rather than `10`, one bias per example.
    ParameterBatch {
        /// The parameter.
        tensor: TensorId,
        /// Its name.
        name: Name,
        /// The row that took axes (the batch row).
        row: RowKind,
        /// The axes it took, as a shape string row writes them (`32`, `..batch..`).
        axes: String,
    },
    /// A label written only in a step's result: no operand sizes it, so its size came from
    /// what the result is used for, or it closed to 1 (the broadcast axis).
    ResultOnlyLabel {
        /// The step.
        step: StepId,
        /// The label.
        label: Name,
        /// Its solved size.
        size: u64,
        /// Whether it closed to 1 for want of any use that sizes it.
        closed: bool,
    },
    /// An open row that no operation sizes closed to no axes (most often an input's batch
    /// row declared `...`): a legal choice, but rows of any length fit as well.
    ClosedRow {
        /// The tensor.
        tensor: TensorId,
        /// Its name.
        name: Name,
        /// The row.
        row: RowKind,
    },
    /// A dimension that no operation determines closed to 1, the broadcast size (or 0 where
    /// an axis may vanish), although other sizes fit too (an underdetermined strided split,
    /// an axis nothing reads).
    ClosedDim {
        /// The tensor.
        tensor: TensorId,
        /// Its name.
        name: Name,
        /// The dimension's name (its label, or `$n`).
        dim: String,
        /// The size it took.
        size: u64,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::ParameterBatch { name, row, axes, .. } => write!(
                f,
                "parameter `{name}` was declared without its {} row and took the axes `{axes}` \
                 from its uses: declare its shape if it is shared across the batch",
                row.name()
            ),
            Warning::ResultOnlyLabel { step, label, size, closed: true } => write!(
                f,
                "{step}: label `{label}` appears only in the result and nothing sizes it: it \
                 closed to {size}"
            ),
            Warning::ResultOnlyLabel { step, label, size, closed: false } => write!(
                f,
                "{step}: label `{label}` appears only in the result: its size {size} comes from \
                 what the result is used for"
            ),
            Warning::ClosedRow { name, row, .. } => write!(
                f,
                "the {} row of `{name}` is open and no operation sizes it: it closed to no axes \
                 (declare its axes if it should have some)",
                row.name()
            ),
            Warning::ClosedDim { name, dim, size, .. } => write!(
                f,
                "dimension `{dim}` of `{name}` is not determined by the operations: it closed to \
                 {size}, though other sizes fit too (declare it, or fix it with a capture)"
            ),
        }
    }
}

impl Graph {
    /// The warnings of the current solution, tensors first, then steps (computed when asked:
    /// a pass over the graph). Call after [`Graph::solve`]: unsolved parts warn of nothing.
    ///
    /// ```
    /// use einrow::infer::{Graph, ShapeBuilder, Warning};
    /// let mut g = Graph::new();
    /// let x = g.input("x", &ShapeBuilder::new().batch([32]).output([10]))?;
    /// let b = g.parameter("b", &ShapeBuilder::unknown())?;
    /// let y = g.pointwise(&[x, b])?;
    /// g.permute("...|i => ...|ij", y)?;
    /// g.solve()?;
    /// let w = g.warnings();
    /// assert!(matches!(&w[0], Warning::ParameterBatch { tensor, axes, .. } if *tensor == b && axes == "32"));
    /// assert!(matches!(&w[1], Warning::ResultOnlyLabel { label, size: 1, closed: true, .. } if label == "j"));
    /// # Ok::<(), einrow::infer::InferError>(())
    /// ```
    pub fn warnings(&self) -> Vec<Warning> {
        let mut out = Vec::new();
        for i in 0..self.tensor_count() {
            let t = self.tensor_at(i);
            if let Some(w) = self.parameter_batch(t, |sizes| {
                sizes.iter().map(|s| self.solved_text(*s)).collect::<Vec<_>>().join(",")
            }) {
                out.push(w);
            }
        }
        let mut only: HashMap<*const StepSpec, SmallVec<[Name; 2]>> = HashMap::new();
        let mut result_only_labels: Vec<Warning> = Vec::new();
        for (i, step) in self.steps().iter().enumerate() {
            let Some(spec) = &step.spec else { continue };
            let labels = only
                .entry(std::sync::Arc::as_ptr(spec))
                .or_insert_with(|| result_only(&spec.parsed));
            let step = self.step_at(i);
            for label in labels.iter() {
                let dim = self.labels_of(step.index()).get(label).map(|d| self.peek(d));
                if let Some(Dim::Solved(s)) = dim {
                    let closed = s.basis == Basis::BCAST;
                    result_only_labels.push(Warning::ResultOnlyLabel {
                        step,
                        label: label.clone(),
                        size: s.size,
                        closed,
                    });
                }
            }
        }
        self.guess_warnings(&result_only_labels, &mut out);
        out.extend(result_only_labels);
        out
    }

    /// The closing guesses as warnings, but for a result-only label (its own warning says
    /// it closed).
    fn guess_warnings(&self, result_only: &[Warning], out: &mut Vec<Warning>) {
        for g in self.guesses() {
            let Ok(i) = self.check_tensor(g.tensor) else { continue };
            let name = self.name_or_id(g.tensor);
            out.push(match &g.what {
                Guessed::EmptyRow(row) => Warning::ClosedRow { tensor: g.tensor, name, row: *row },
                Guessed::Dim { name: dim, size } => {
                    let step = self.steps().binary_search_by_key(&g.tensor, |s| s.out).ok();
                    let warned = result_only.iter().any(|w| {
                        matches!(w, Warning::ResultOnlyLabel { step: s, label, .. }
                            if Some(s.index()) == step && label.as_str() == dim)
                    });
                    if warned || i >= self.tensor_count() {
                        continue;
                    }
                    Warning::ClosedDim { tensor: g.tensor, name, dim: dim.clone(), size: *size }
                }
            });
        }
    }

    /// The warning of a parameter whose undeclared batch row took axes, its axes written by
    /// `text`.
    pub(crate) fn parameter_batch(
        &self,
        t: TensorId,
        text: impl Fn(&[crate::shape::Solved]) -> String,
    ) -> Option<Warning> {
        let e = self.tensor_entry(t);
        if !(e.leaf && e.param && self.batch_undeclared(t)) {
            return None;
        }
        let [batch, _, _] = self.dims(t).ok()?;
        if batch.is_empty() {
            return None;
        }
        let name = self.name_or_id(t);
        Some(Warning::ParameterBatch { tensor: t, name, row: RowKind::Batch, axes: text(&batch) })
    }
}

/// The labels of a spec's result that no operand slot has.
fn result_only(spec: &EinsumSpec) -> SmallVec<[Name; 2]> {
    let mut operands: SmallVec<[Name; 8]> = SmallVec::new();
    for slot in &spec.rhs {
        labels_of(slot, &mut |n| operands.push(n.into()));
    }
    let mut out: SmallVec<[Name; 2]> = SmallVec::new();
    labels_of(&spec.lhs, &mut |n| {
        let known = operands.iter().any(|m| same_name(m, n)) || out.iter().any(|m| same_name(m, n));
        if !known {
            out.push(n.into());
        }
    });
    out
}

/// Calls `f` with every label a slot writes (as an axis, an affine axis's parts, a
/// concatenation's components).
pub(crate) fn labels_of(slot: &ShapeSpec, f: &mut impl FnMut(&str)) {
    for (_, row) in slot.rows() {
        for axis in row.axes() {
            match &axis.kind {
                AxisKind::Label(n) => f(n),
                AxisKind::Affine(a) => {
                    f(&a.over);
                    if let Some(c) = &a.conv {
                        f(&c.kernel);
                    }
                }
                AxisKind::Concat(parts) => {
                    for p in parts {
                        if let ConcatPart::Label(n) = p {
                            f(n);
                        }
                    }
                }
                AxisKind::Flat(labels) => labels.iter().for_each(|(n, _)| f(n)),
                AxisKind::Placeholder | AxisKind::Int(_) => {}
            }
        }
    }
}
