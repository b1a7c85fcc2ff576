//! The scheme itself: the data a scheme stores and shares with its instances, and its
//! accessors.

use std::sync::Arc;

use super::form::{Item, TensorForm};
use crate::ids::{StepId, TensorId};
use crate::infer::error::InferError;
use crate::infer::graph::{GraphId, Handle, Step};
use crate::infer::warnings::Warning;
use crate::spec::ast::{Name, RowKind};

/// A symbolic row variable of a scheme.
#[derive(Clone, Debug)]
pub(super) struct Var {
    pub(super) handle: Handle,
    pub(super) name: Name,
    /// Some step reads the variable axis by axis: instances give it exactly one axis.
    pub(super) rank_fixed: bool,
    /// The smallest size its (single) axis may have (fixed indices, computed axes).
    pub(super) min: u64,
}

/// What a scheme stores (shared by its instances).
#[derive(Debug)]
pub(super) struct SchemeData {
    pub(super) graph: GraphId,
    pub(super) vars: Vec<Var>,
    /// Each tensor's rows as items.
    pub(super) tensors: Vec<TensorForm>,
    pub(super) items: Vec<Item>,
    /// Each spec step's labels: where they are in `label_items`.
    pub(super) labels: Vec<(u32, u32)>,
    pub(super) label_items: Vec<Item>,
    pub(super) steps: Vec<Step>,
    pub(super) names: Vec<Name>,
    /// What each tensor is: an input, a parameter, or a step's result (`None`).
    pub(super) leaves: Vec<Option<crate::infer::graph::Leaf>>,
    /// How many times each variable is spliced into tensors' rows (to size instances).
    pub(super) uses: Vec<usize>,
    /// The number of plain sizes in tensors' rows.
    pub(super) sizes: usize,
    pub(super) warnings: Vec<Warning>,
}

/// A graph solved once with some row variables symbolic ([`Graph::solve_scheme`]): every
/// tensor's shape, and every step's labels, in terms of those variables. Instantiate it for
/// concrete sizes ([`Scheme::instantiate`]) as often as needed, without solving again.
/// Cloning is cheap (the forms are shared).
///
/// With the `serde` feature, schemes are `Serialize` and `Deserialize`: their stored forms,
/// steps (specs as text, parsed again), tensor names, leaves and warnings. Deserialising
/// checks that the forms fit together (items over existing variables, rows within the forms,
/// steps over existing tensors with the arity of their operation, labels their spec
/// mentions, sizes at most 2^62) and gives the scheme a fresh [`GraphId`]: take its ids from
/// [`Scheme::tensor_ids`], [`Scheme::step_ids`] and [`Scheme::vars`].
///
/// [`Graph::solve_scheme`]: crate::infer::Graph::solve_scheme
///
/// ```
/// use einrow::infer::{Graph, ShapeBuilder};
///
/// let mut g = Graph::new();
/// let batch = g.row_var("batch");
/// let x = g.input("x", &ShapeBuilder::new().batch_var(batch).output([4]))?;
/// let w = g.parameter("w", &ShapeBuilder::new().input_open().output([2]))?;
/// let y = g.compose(w, x)?;
/// let scheme = g.solve_scheme(&[batch])?;
/// assert_eq!(scheme.shape_string(y)?, "..batch..|2");
/// assert_eq!(scheme.shape_string(w)?, "4->2");
///
/// let one = scheme.instantiate(&[&[8]])?;
/// assert_eq!(one.sizes(y)?.batch, [8]);
/// let two = scheme.instantiate(&[&[3, 5]])?;
/// assert_eq!(two.memory_dims(y)?, [3, 5, 2]);
/// # Ok::<(), einrow::infer::InferError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Scheme {
    pub(super) data: Arc<SchemeData>,
}

impl Scheme {
    /// The graph the scheme was solved from.
    pub fn graph(&self) -> GraphId {
        self.data.graph
    }

    /// The symbolic row variables, in the order [`Scheme::instantiate`] takes their sizes.
    pub fn vars(&self) -> impl Iterator<Item = Handle> + '_ {
        self.data.vars.iter().map(|v| v.handle)
    }

    /// Whether some step reads variable `k` axis by axis: its instances have one axis.
    pub fn is_rank_fixed(&self, k: usize) -> bool {
        self.data.vars.get(k).is_some_and(|v| v.rank_fixed)
    }

    /// The smallest size variable `k`'s axis may have (0 when any size will do).
    pub fn min_size(&self, k: usize) -> u64 {
        self.data.vars.get(k).map_or(0, |v| v.min)
    }

    /// The steps of the graph.
    pub fn steps(&self) -> &[Step] {
        &self.data.steps
    }

    /// The number of tensors.
    pub fn tensor_count(&self) -> usize {
        self.data.tensors.len()
    }

    /// The ids of the tensors (those of the graph the scheme was solved from).
    pub fn tensor_ids(&self) -> impl ExactSizeIterator<Item = TensorId> + '_ {
        (0..self.data.tensors.len()).map(|i| TensorId::new(i, self.data.graph))
    }

    /// The ids of the steps (those of the graph the scheme was solved from).
    pub fn step_ids(&self) -> impl ExactSizeIterator<Item = StepId> + '_ {
        (0..self.data.steps.len()).map(|i| StepId::new(i, self.data.graph))
    }

    /// A tensor's name. Errors (`name`): an id of another graph, or past its tensors.
    pub fn name(&self, t: TensorId) -> Result<&Name, InferError> {
        Ok(&self.data.names[self.data.check(t)?])
    }

    /// The warnings of the solution ([`Warning`]).
    pub fn warnings(&self) -> &[Warning] {
        &self.data.warnings
    }

    /// A tensor's shape as a shape string with the symbolic variables written `..name..`
    /// and computed axes as `2*batch+1`. Errors (`name`): an id of another graph, or past
    /// its tensors.
    pub fn shape_string(&self, t: TensorId) -> Result<String, InferError> {
        self.data.check(t)?;
        let row = |kind: RowKind| self.data.row_text(t, kind);
        let rows = (row(RowKind::Batch), row(RowKind::Input), row(RowKind::Output));
        Ok(crate::shape::rows_text(&rows.0, &rows.1, &rows.2))
    }
}

impl SchemeData {
    /// The index of tensor `t`, checked: an id of the scheme's graph naming one of its
    /// tensors.
    pub(super) fn check(&self, t: TensorId) -> Result<usize, InferError> {
        if !t.belongs_to(self.graph) {
            return Err(InferError::ForeignId { id: t.to_string() });
        }
        match t.index() < self.tensors.len() {
            true => Ok(t.index()),
            false => Err(InferError::UnknownTensor { name: t.to_string() }),
        }
    }

    /// The index of step `s`, checked as [`SchemeData::check`] checks a tensor.
    pub(super) fn check_step(&self, s: StepId) -> Result<usize, InferError> {
        if !s.belongs_to(self.graph) {
            return Err(InferError::ForeignId { id: s.to_string() });
        }
        match s.index() < self.steps.len() {
            true => Ok(s.index()),
            false => Err(InferError::UnknownStep { id: s.to_string() }),
        }
    }

    /// A row's axes as a shape string writes them.
    pub(super) fn row_text(&self, t: TensorId, kind: RowKind) -> String {
        let Some(form) = self.tensors.get(t.index()) else { return String::new() };
        let items = form.row_items(kind, &self.items);
        items.iter().map(|i| self.item_text(i)).collect::<Vec<_>>().join(",")
    }

    /// An item as a shape string writes it.
    pub(super) fn item_text(&self, item: &Item) -> String {
        let name = |k: u32| self.vars.get(k as usize).map_or("?", |v| v.name.as_str());
        match *item {
            Item::Size(n) => n.to_string(),
            Item::Var(k) => format!("..{}..", name(k)),
            Item::Affine { var, scale, offset } => {
                let s = if scale == 1 { String::new() } else { format!("{scale}*") };
                match offset {
                    0 => format!("{s}{}", name(var)),
                    o => format!("{s}{}{o:+}", name(var)),
                }
            }
        }
    }
}
