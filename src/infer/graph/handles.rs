//! Dimension handles (OCANNL's capture lists): a spec step names labels or row variables to
//! capture and gets a [`Handle`] for each; [`Graph::set_dim`] and [`Graph::set_equal`] add
//! constraints on them; after solving, [`Graph::handle_size`] reads their sizes. Row variables
//! made for declarations ([`Graph::row_var`], [`Graph::row_of`]) are handles too: the batch
//! row a [`Scheme`](crate::infer::Scheme) keeps symbolic is one.

use smallvec::SmallVec;

use super::events::{Event, StepExtra};
use super::steps::usage;
use super::{Graph, GraphId};
use crate::code::ErrorCode;
use crate::ids::{DimVar, RowVar, StepId, TensorId};
use crate::infer::error::InferError;
use crate::infer::solve::constraint::RowArg;
use crate::infer::solve::store::{RowId, ShapeRef};
use crate::infer::OpKind;
use crate::shape::Dim;
use crate::spec::ast::{EinsumSpec, Name, RowKind};

/// A captured label or row variable of one graph: set its size, set it equal to another,
/// read its solved size. Cheap to copy; valid on the graph that made it only (using it on
/// another graph is a `label` error).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Handle {
    graph: GraphId,
    index: u32,
}

impl Handle {
    /// The graph the handle belongs to.
    pub fn graph(self) -> GraphId {
        self.graph
    }

    /// Handle number `index` of `graph`, made without the graph (a scheme read back names its
    /// variables by the handles of the graph it was solved from).
    #[cfg(feature = "serde")]
    pub(crate) fn detached(graph: GraphId, index: u32) -> Handle {
        Handle { graph, index }
    }

    /// The handle's number in its graph.
    #[cfg(feature = "serde")]
    pub(crate) fn number(self) -> u32 {
        self.index
    }
}

/// What a handle stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HandleKind {
    /// One axis (a label): its size is a number.
    Dim,
    /// A row variable: any number of axes; its size is the product of theirs.
    Row,
}

/// The result of [`Graph::add_step_capturing`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Captured {
    /// The tensor the step produced.
    pub tensor: TensorId,
    /// The step.
    pub step: StepId,
    /// One handle per captured name, in the order asked.
    pub handles: Vec<Handle>,
}

/// What a handle refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Target {
    Dim(DimVar),
    Row(RowVar),
}

impl Target {
    /// The row variable of a row target (only asked of targets checked to be rows).
    pub(super) fn row(self) -> RowVar {
        match self {
            Target::Row(v) => v,
            Target::Dim(_) => RowVar(u32::MAX),
        }
    }

    fn kind(self) -> HandleKind {
        match self {
            Target::Dim(_) => HandleKind::Dim,
            Target::Row(_) => HandleKind::Row,
        }
    }
}

/// A handle's entry in its graph.
#[derive(Clone, Debug)]
pub(super) struct HandleEntry {
    pub target: Target,
    pub name: Name,
    /// The step it was captured from.
    pub step: Option<StepId>,
}

impl Graph {
    /// This graph's identity (handles carry it).
    pub fn id(&self) -> GraphId {
        self.id
    }

    fn push_handle(&mut self, target: Target, name: Name, step: Option<StepId>) -> Handle {
        self.handles.push(HandleEntry { target, name, step });
        Handle { graph: self.id, index: u32::try_from(self.handles.len() - 1).unwrap_or(u32::MAX) }
    }

    /// A handle's index in this graph's table.
    pub(super) fn handle_index(&self, h: Handle) -> u32 {
        h.index
    }

    /// The handle at an index of this graph's table (for replaying events).
    pub(super) fn handle_at(&self, index: u32) -> Handle {
        Handle { graph: self.id, index }
    }

    pub(super) fn entry(&self, h: Handle) -> Result<&HandleEntry, InferError> {
        if h.graph != self.id {
            let msg = format!("a handle of {} was used on {}", h.graph, self.id);
            return Err(usage(ErrorCode::Label, msg));
        }
        self.handles
            .get(h.index as usize)
            .ok_or_else(|| usage(ErrorCode::Label, format!("unknown handle {}", h.index)))
    }

    /// What a handle refers to, checked to be of the kind wanted.
    pub(super) fn handle_var(&self, h: Handle, want: HandleKind) -> Result<Target, InferError> {
        let e = self.entry(h)?;
        if e.target.kind() != want {
            let msg = format!("`{}` is a {:?} handle where a {want:?} handle is needed", e.name, {
                e.target.kind()
            });
            return Err(usage(ErrorCode::Label, msg));
        }
        Ok(e.target)
    }

    /// A new row variable of this graph, to share between declarations
    /// ([`ShapeBuilder::var`](super::ShapeBuilder::var)), set, or keep symbolic in a
    /// [`Scheme`](crate::infer::Scheme).
    ///
    /// ```
    /// use einrow::infer::{Graph, ShapeBuilder};
    /// let mut g = Graph::new();
    /// let batch = g.row_var("batch");
    /// let x = g.input("x", &ShapeBuilder::new().batch_var(batch).output([3]))?;
    /// let m = g.input("mask", &ShapeBuilder::new().batch_var(batch).output([3]))?;
    /// let y = g.pointwise(&[x, m])?;
    /// g.set_dim(batch, 16)?;
    /// g.solve()?;
    /// assert_eq!(g.shape_string(y)?, "16|3");
    /// # Ok::<(), einrow::infer::InferError>(())
    /// ```
    pub fn row_var(&mut self, name: &str) -> Handle {
        let v = self.solver.env.new_row();
        self.events.push(Event::RowVar(Box::new(Name::new(name))));
        self.push_handle(Target::Row(v), Name::new(name), None)
    }

    /// A handle for the row variable of a tensor's row as declared (`...` in `...,8|32`), or
    /// of a result's row before it is solved. A `label` error when that row has none.
    ///
    /// ```
    /// use einrow::infer::Graph;
    /// use einrow::spec::ast::RowKind;
    /// let mut g = Graph::new();
    /// let x = g.declare("x", Some("...,8|32"), false)?;
    /// let batch = g.row_of(x, RowKind::Batch)?;
    /// g.set_dim(batch, 4)?;
    /// g.solve()?;
    /// assert_eq!(g.handle_dims(batch)?, [4]);
    /// assert!(g.row_of(x, RowKind::Output).is_err(), "`32` has no row variable");
    /// # Ok::<(), einrow::infer::InferError>(())
    /// ```
    pub fn row_of(&mut self, t: TensorId, kind: RowKind) -> Result<Handle, InferError> {
        let entry = &self.tensors[self.check_tensor(t)?];
        let var = match entry.shape {
            ShapeRef::Fresh(v) => Some(RowVar(v.0 + kind.index() as u32)),
            ShapeRef::Stored(RowId(i)) => {
                self.solver.env.store.layout(RowId(i + kind.index() as u32)).3
            }
        };
        let name = self.name_or_id(t);
        let Some(v) = var else {
            let msg = format!("the {} row of `{name}` has no row variable", kind.name());
            return Err(usage(ErrorCode::Label, msg));
        };
        self.events.push(Event::RowOf(t, kind));
        Ok(self.push_handle(Target::Row(v), Name::new(format!("{name}.{}", kind.name())), None))
    }

    /// Adds a spec step (as [`Graph::add_step`]) and captures the labels and row variables
    /// named in `names` (`...` is named after its row: `batch`, `input`, `output`): one
    /// handle each, in order. A name the spec does not have is a `label` error (nothing is
    /// added).
    ///
    /// ```
    /// use einrow::infer::{Graph, OpKind, ShapeBuilder};
    /// let mut g = Graph::new();
    /// let x = g.input("x", &ShapeBuilder::new().batch_open().output([3]))?;
    /// let w = g.parameter("w", &ShapeBuilder::unknown())?;
    /// // OCANNL's `x ; w => ...|h` with the capture list ["h"].
    /// let c = g.add_step_capturing(OpKind::Einsum, &[x, w], "...|i; i->h => ...|h", &["h", "batch"])?;
    /// let (h, batch) = (c.handles[0], c.handles[1]);
    /// g.set_dim(h, 7)?;
    /// g.set_dim(batch, 4)?;
    /// g.solve()?;
    /// assert_eq!(g.handle_size(h)?, 7);
    /// assert_eq!(g.sizes(c.tensor)?.output, [7]);
    /// assert_eq!(g.sizes(w)?.input, [3]);
    /// // A row's size is the product of its axes (OCANNL's rule): one axis of 4 here.
    /// assert_eq!(g.handle_dims(batch)?, [4]);
    ///
    /// // Setting a solved size to another one is an error naming the setting and the step.
    /// let err = g.set_dim(h, 8).unwrap_err();
    /// assert_eq!(einrow::Coded::code(&err), einrow::ErrorCode::Mismatch);
    /// assert!(err.to_string().contains("set_dim"));
    /// # Ok::<(), einrow::infer::InferError>(())
    /// ```
    pub fn add_step_capturing(
        &mut self,
        op: OpKind,
        args: &[crate::ids::TensorId],
        spec: &str,
        names: &[&str],
    ) -> Result<Captured, InferError> {
        if !op.has_spec() || op == OpKind::Numpy {
            let msg = format!("{op} has no labels to capture (a spec operation is needed)");
            return Err(usage(ErrorCode::Arity, msg));
        }
        if let Ok(parsed) = crate::spec::parse_einsum(spec) {
            let known = spec_names(&parsed);
            if let Some(bad) = names.iter().find(|n| !known.iter().any(|k| k == **n)) {
                let msg = format!("`{bad}` is not a label or row variable of `{spec}`");
                return Err(usage(ErrorCode::Label, msg));
            }
        }
        self.capture = Some(names.iter().copied().map(Name::new).collect());
        let result = self.add_step(op, args, Some(spec));
        self.capture = None;
        let tensor = result?;
        let step = self.step_at(self.steps.len() - 1);
        let rows = std::mem::take(&mut self.captured_rows);
        let mut handles = Vec::with_capacity(names.len());
        for name in names {
            let target = match (
                self.labels_of(step.index()).get(name),
                rows.iter().find(|r| r.0 == *name),
            ) {
                (Some(Dim::Var(v)), _) => Target::Dim(v),
                (_, Some(&(_, v))) => Target::Row(v),
                // Checked above against the parsed spec; a spec that parsed then lists them.
                _ => return Err(usage(ErrorCode::Label, format!("`{name}` was not captured"))),
            };
            handles.push(self.push_handle(target, Name::new(name), Some(step)));
        }
        Ok(Captured { tensor, step, handles })
    }

    /// The extra record of a step event: numpy subscripts, captures.
    pub(super) fn step_extra(&self, numpy: Option<String>) -> Option<Box<StepExtra>> {
        match (numpy, self.capture.clone()) {
            (None, None) => None,
            (numpy, captures) => Some(Box::new(StepExtra { numpy, captures })),
        }
    }

    /// The solved sizes of a row variable, if it is solved.
    pub(super) fn row_sizes(&self, v: RowVar) -> Option<Vec<u64>> {
        let row = self.solver.env.peek_row_arg(&RowArg::Var(v));
        if row.var.is_some() {
            return None;
        }
        row.all().map(|d| d.solved().map(|s| s.size)).collect()
    }

    /// The solved size of a handle: a label's size, or the number of elements of a row (the
    /// product of its axes; 1 for an empty row). `unresolved` while it is not known.
    pub fn handle_size(&self, h: Handle) -> Result<u64, InferError> {
        let sizes = self.handle_dims(h)?;
        sizes.iter().try_fold(1u64, |n, s| n.checked_mul(*s)).ok_or_else(|| {
            usage(ErrorCode::Value, "the row holds more elements than a u64 counts".into())
        })
    }

    /// The solved axes of a handle: one size for a label, a row's sizes in order.
    pub fn handle_dims(&self, h: Handle) -> Result<Vec<u64>, InferError> {
        let e = self.entry(h)?;
        let sizes = match e.target {
            Target::Dim(v) => self.solver.env.peek_dim(&Dim::Var(v)).solved().map(|s| vec![s.size]),
            Target::Row(v) => self.row_sizes(v),
        };
        sizes.ok_or_else(|| {
            let from = e.step.map(|s| format!(" (captured from {s})")).unwrap_or_default();
            InferError::shape(
                ErrorCode::Unresolved,
                format!("`{}`{from} is not solved yet", e.name),
            )
        })
    }

    /// What a handle stands for.
    pub fn handle_kind(&self, h: Handle) -> Result<HandleKind, InferError> {
        Ok(self.entry(h)?.target.kind())
    }

    /// The name a handle was made with.
    pub fn handle_name(&self, h: Handle) -> Result<Name, InferError> {
        Ok(self.entry(h)?.name.clone())
    }

    /// The step a handle was captured from (`None` for row variables made for declarations).
    pub fn handle_step(&self, h: Handle) -> Result<Option<StepId>, InferError> {
        Ok(self.entry(h)?.step)
    }

    /// Every handle of this graph, in the order they were made.
    pub fn handles(&self) -> impl Iterator<Item = Handle> + '_ {
        (0..self.handles.len()).map(|i| self.handle_at(u32::try_from(i).unwrap_or(u32::MAX)))
    }
}

/// The labels and row-variable names of a spec, in order of appearance.
fn spec_names(spec: &EinsumSpec) -> SmallVec<[Name; 8]> {
    let mut out: SmallVec<[Name; 8]> = SmallVec::new();
    let mut add = |n: &str| {
        if !out.iter().any(|m| m == n) {
            out.push(Name::new(n));
        }
    };
    for slot in spec.rhs.iter().chain(std::iter::once(&spec.lhs)) {
        for (kind, row) in slot.rows() {
            if let Some(e) = &row.ellipsis {
                add(e.var_name(kind));
            }
        }
        crate::infer::warnings::labels_of(slot, &mut add);
    }
    out
}
