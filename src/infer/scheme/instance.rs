//! [`Instance`]: a scheme's shapes for concrete sizes of its variables.

use std::sync::Arc;

use super::core::SchemeData;
use super::form::Item;
use super::Scheme;
use crate::code::ErrorCode;
use crate::ids::{GraphId, StepId, TensorId};
use crate::infer::error::InferError;
use crate::infer::graph::{Step, TensorSizes};
use crate::spec::ast::{Name, RowKind};
use crate::spec::lexer::MAX_INT;

/// Where a tensor's sizes are in an instance: the start of its sizes (memory order), and per
/// row ([`RowKind::ALL`] order) its length and leading flank.
#[derive(Clone, Copy, Debug, Default)]
struct Span {
    start: u32,
    rows: [(u32, u32); 3],
}

/// A [`Scheme`] instantiated for concrete sizes: every tensor's sizes and every step's label
/// sizes, as solving the graph with those sizes would give them. Plans of its steps come from
/// `project::instance_plan` and `project::CompiledGraph::compile_instance`.
#[derive(Clone, Debug)]
pub struct Instance {
    scheme: Arc<SchemeData>,
    /// Every tensor's sizes, one after the other, each in memory order.
    dims: Vec<u64>,
    spans: Vec<Span>,
    labels: Vec<u64>,
    vars: Vec<Vec<u64>>,
}

fn usage(code: ErrorCode, message: String) -> InferError {
    InferError::Usage { code, message }
}

impl Scheme {
    /// The scheme for these sizes: `sizes[k]` are the axes of variable `k` (in the order of
    /// [`Scheme::vars`]). Nothing is solved: the stored forms are evaluated. Errors (coded):
    /// a count of size lists other than the variables' (`arity`), a rank-fixed variable
    /// given other than one axis (`rank`), a size above 2^62 (`value`), a size a fixed index
    /// reads past or that makes a computed axis empty (`bounds`).
    ///
    /// ```
    /// use einrow::infer::{Graph, ShapeBuilder};
    /// let mut g = Graph::new();
    /// let batch = g.row_var("batch");
    /// let x = g.input("x", &ShapeBuilder::new().batch_var(batch).output([3]))?;
    /// // Index 4 of the (single) batch axis.
    /// let y = g.permute("4|i => i", x)?;
    /// let scheme = g.solve_scheme(&[batch])?;
    /// assert_eq!(scheme.instantiate(&[&[5]])?.sizes(y)?.output, [3]);
    /// let err = scheme.instantiate(&[&[4]]).unwrap_err();
    /// assert_eq!(einrow::Coded::code(&err), einrow::ErrorCode::Bounds);
    /// # Ok::<(), einrow::infer::InferError>(())
    /// ```
    pub fn instantiate(&self, sizes: &[&[u64]]) -> Result<Instance, InferError> {
        let data = &*self.data;
        self.check_sizes(sizes)?;
        let total: usize =
            data.sizes + data.uses.iter().zip(sizes).map(|(u, s)| u * s.len()).sum::<usize>();
        let mut dims = Vec::with_capacity(total);
        let mut spans = Vec::with_capacity(data.tensors.len());
        for (t, form) in data.tensors.iter().enumerate() {
            let mut span = Span { start: to_u32(dims.len()), rows: [(0, 0); 3] };
            for kind in RowKind::MEMORY_ORDER {
                let (start, len, leading) = form.rows[kind.index()];
                let items =
                    data.items.get(start as usize..(start + len) as usize).unwrap_or_default();
                let before = dims.len();
                let mut lead = 0;
                for (i, item) in items.iter().enumerate() {
                    push_item(&mut dims, *item, sizes)
                        .ok_or_else(|| self.invalid(t, *item, sizes))?;
                    if i + 1 == leading as usize {
                        lead = dims.len() - before;
                    }
                }
                span.rows[kind.index()] = (to_u32(dims.len() - before), to_u32(lead));
            }
            spans.push(span);
        }
        let mut labels = Vec::with_capacity(data.label_items.len());
        for item in &data.label_items {
            let n = item.var().and_then(|k| sizes.get(k as usize)).and_then(|s| s.first());
            let size = item.one(n.copied().unwrap_or(0));
            labels.push(size.ok_or_else(|| self.invalid_label(*item, sizes))?);
        }
        let vars = sizes.iter().map(|s| s.to_vec()).collect();
        Ok(Instance { scheme: self.data.clone(), dims, spans, labels, vars })
    }

    fn check_sizes(&self, sizes: &[&[u64]]) -> Result<(), InferError> {
        let vars = &self.data.vars;
        if sizes.len() != vars.len() {
            let msg = format!(
                "the scheme has {} variables; {} size lists were given",
                vars.len(),
                sizes.len()
            );
            return Err(usage(ErrorCode::Arity, msg));
        }
        for (v, s) in vars.iter().zip(sizes) {
            if let Some(big) = s.iter().find(|&&n| n > MAX_INT) {
                let msg = format!("`{}`: size {big} is above the limit 2^62", v.name);
                return Err(usage(ErrorCode::Value, msg));
            }
            if v.rank_fixed && s.len() != 1 {
                let msg = format!(
                    "`{}` is read axis by axis by a step (a label, a fixed index, a batch slice): \
                     it has one axis, not {}",
                    v.name,
                    s.len()
                );
                return Err(usage(ErrorCode::Rank, msg));
            }
            if let Some(&n) = s.first().filter(|&&n| v.rank_fixed && n < v.min) {
                let msg = format!(
                    "`{}` = {n} contradicts the graph: its axis needs at least {} elements (a \
                     fixed index or a computed axis reads that far)",
                    v.name, v.min
                );
                return Err(usage(ErrorCode::Bounds, msg));
            }
            if !v.rank_fixed && v.min > 0 && s.iter().any(|&n| n < v.min) {
                let msg = format!("`{}`: every axis needs at least {} elements", v.name, v.min);
                return Err(usage(ErrorCode::Bounds, msg));
            }
        }
        Ok(())
    }

    /// The error of an item that does not evaluate to a size.
    fn invalid(&self, t: usize, item: Item, sizes: &[&[u64]]) -> InferError {
        let name = self.data.names.get(t).map_or("?", |n| n.as_str());
        let what = self.data.item_text(&item);
        let given = self.given(item, sizes);
        usage(
            ErrorCode::Bounds,
            format!("{given} contradicts the graph: the axis `{what}` of `{name}` would be empty or too large"),
        )
    }

    fn invalid_label(&self, item: Item, sizes: &[&[u64]]) -> InferError {
        let given = self.given(item, sizes);
        let what = self.data.item_text(&item);
        usage(
            ErrorCode::Bounds,
            format!(
                "{given} contradicts the graph: a label sized `{what}` would be empty or too large"
            ),
        )
    }

    fn given(&self, item: Item, sizes: &[&[u64]]) -> String {
        let k = item.var().unwrap_or(0) as usize;
        let name = self.data.vars.get(k).map_or("?", |v| v.name.as_str());
        format!("`{name}` = {:?}", sizes.get(k).copied().unwrap_or_default())
    }
}

/// Appends the sizes an item stands for; `None` when it is not a size.
fn push_item(dims: &mut Vec<u64>, item: Item, sizes: &[&[u64]]) -> Option<()> {
    match item {
        Item::Size(n) => dims.push(n),
        Item::Var(k) => dims.extend_from_slice(sizes.get(k as usize)?),
        Item::Affine { var, .. } => dims.push(item.one(*sizes.get(var as usize)?.first()?)?),
    }
    Some(())
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Instance {
    /// The scheme's steps.
    pub fn steps(&self) -> &[Step] {
        &self.scheme.steps
    }

    /// The number of tensors.
    pub fn tensor_count(&self) -> usize {
        self.spans.len()
    }

    /// A tensor's name. Errors (`name`): an id of another graph, or past its tensors.
    pub fn name(&self, t: TensorId) -> Result<&Name, InferError> {
        Ok(&self.scheme.names[self.scheme.check(t)?])
    }

    /// The graph the instance's scheme was solved from: its tensor and step ids name the
    /// instance's.
    pub fn graph(&self) -> GraphId {
        self.scheme.graph
    }

    /// The index of step `s`, checked: an id of the scheme's graph naming one of its steps.
    pub(crate) fn check_step(&self, s: StepId) -> Result<usize, InferError> {
        self.scheme.check_step(s)
    }

    /// The ids of the tensors (those of the graph the scheme was solved from).
    pub fn tensor_ids(&self) -> impl ExactSizeIterator<Item = TensorId> + '_ {
        (0..self.spans.len()).map(|i| self.tensor_at(i))
    }

    /// The ids of the steps (those of the graph the scheme was solved from).
    pub fn step_ids(&self) -> impl ExactSizeIterator<Item = StepId> + '_ {
        (0..self.scheme.steps.len()).map(|i| self.step_at(i))
    }

    /// The id of tensor `i`.
    pub(crate) fn tensor_at(&self, i: usize) -> TensorId {
        TensorId::new(i, self.scheme.graph)
    }

    /// The id of step `i`.
    pub(crate) fn step_at(&self, i: usize) -> StepId {
        StepId::new(i, self.scheme.graph)
    }

    /// The sizes given for variable `k`.
    pub fn var_sizes(&self, k: usize) -> Option<&[u64]> {
        self.vars.get(k).map(|v| v.as_slice())
    }

    fn span(&self, t: TensorId) -> Result<Span, InferError> {
        Ok(self.spans[self.scheme.check(t)?])
    }

    /// A tensor's sizes in memory order (batch, output, input).
    pub fn memory_dims(&self, t: TensorId) -> Result<&[u64], InferError> {
        let span = self.span(t)?;
        let len: u32 = span.rows.iter().map(|r| r.0).sum();
        let (start, end) = (span.start as usize, (span.start + len) as usize);
        Ok(self.dims.get(start..end).unwrap_or_default())
    }

    /// A row's sizes and the length of its leading flank.
    pub fn row(&self, t: TensorId, kind: RowKind) -> Result<(&[u64], usize), InferError> {
        let span = self.span(t)?;
        let mut start = span.start as usize;
        for k in RowKind::MEMORY_ORDER {
            let (len, lead) = span.rows[k.index()];
            if k == kind {
                let row = self.dims.get(start..start + len as usize).unwrap_or_default();
                return Ok((row, lead as usize));
            }
            start += len as usize;
        }
        Ok((&[], 0))
    }

    /// A tensor's sizes, row by row.
    pub fn sizes(&self, t: TensorId) -> Result<TensorSizes, InferError> {
        let row = |kind| self.row(t, kind).map(|(r, _)| r.to_vec());
        Ok(TensorSizes {
            batch: row(RowKind::Batch)?,
            input: row(RowKind::Input)?,
            output: row(RowKind::Output)?,
        })
    }

    /// The sizes of a spec step's labels, in the order of its spec's labels
    /// ([`StepSpec::labels`](crate::infer::StepSpec::labels)); empty for other steps.
    /// Errors (`name`): an id of another graph, or past its steps.
    pub fn label_sizes(&self, step: StepId) -> Result<&[u64], InferError> {
        let i = self.scheme.check_step(step)?;
        let Some(&(start, len)) = self.scheme.labels.get(i) else { return Ok(&[]) };
        Ok(self.labels.get(start as usize..(start + len) as usize).unwrap_or_default())
    }
}
