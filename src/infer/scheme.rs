//! Shape schemes: a graph solved once with chosen row variables kept symbolic (typically the
//! batch), then instantiated for concrete sizes without solving again.
//!
//! # How a scheme is solved
//!
//! The graph is solved as it is, with each symbolic row variable bound to one axis of a size
//! above every size, index and stride the program writes (a prime: no fixed index reads past
//! it, and no message shows it), carrying a basis of its own (a marker: the solver keeps a basis through
//! every equation, broadcast and arithmetic, so each solved axis says whether it came from the
//! variable). Every solved axis is then a size, the variable's axes, or, for an axis computed
//! from one of them (a convolution or strided axis over the batch), an affine function of the
//! variable's size. Two more solves at other marker sizes check that nothing else depends on
//! the size (and fit the affine functions); one solve per variable with two marker axes checks
//! that nothing depends on the variable's rank. A variable some step reads axis by axis (a
//! label, a fixed index, a batch slice) keeps its rank: its instances have exactly one axis.
//!
//! # Instances
//!
//! [`Scheme::instantiate`] substitutes sizes into the stored forms: no solving, a pass over
//! the tensors' axes. Sizes the solution rules out are coded errors: a rank other than a
//! rank-fixed variable's (`rank`), a size a fixed index reads past or that makes a computed
//! axis empty (`bounds`), a size above 2^62 (`value`). Plans of an instance are derived from
//! its sizes (`project::instance_plan`, `project::CompiledGraph::compile_instance`).

mod build;
mod form;
mod instance;
mod markers;
#[cfg(feature = "serde")]
mod serde_form;
mod symbolic;

use std::sync::Arc;

pub use instance::Instance;
pub use symbolic::{SymDim, SymShape};

use form::{Item, TensorForm};

use super::error::InferError;
use super::graph::{GraphId, Handle, Step};
use super::warnings::Warning;
use crate::ids::{StepId, TensorId};
use crate::spec::ast::{Name, RowKind};

/// A symbolic row variable of a scheme.
#[derive(Clone, Debug)]
struct Var {
    handle: Handle,
    name: Name,
    /// Some step reads the variable axis by axis: instances give it exactly one axis.
    rank_fixed: bool,
    /// The smallest size its (single) axis may have (fixed indices, computed axes).
    min: u64,
}

/// What a scheme stores (shared by its instances).
#[derive(Debug)]
struct SchemeData {
    graph: GraphId,
    vars: Vec<Var>,
    /// Each tensor's rows as items.
    tensors: Vec<TensorForm>,
    items: Vec<Item>,
    /// Each spec step's labels: where they are in `label_items`.
    labels: Vec<(u32, u32)>,
    label_items: Vec<Item>,
    steps: Vec<Step>,
    names: Vec<Name>,
    /// What each tensor is: an input, a parameter, or a step's result (`None`).
    leaves: Vec<Option<super::graph::Leaf>>,
    /// How many times each variable is spliced into tensors' rows (to size instances).
    uses: Vec<usize>,
    /// The number of plain sizes in tensors' rows.
    sizes: usize,
    warnings: Vec<Warning>,
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
/// [`Graph::solve_scheme`]: super::Graph::solve_scheme
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
    data: Arc<SchemeData>,
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
    fn row_text(&self, t: TensorId, kind: RowKind) -> String {
        let Some(form) = self.tensors.get(t.index()) else { return String::new() };
        let items = form.row_items(kind, &self.items);
        items.iter().map(|i| self.item_text(i)).collect::<Vec<_>>().join(",")
    }

    /// An item as a shape string writes it.
    fn item_text(&self, item: &Item) -> String {
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
