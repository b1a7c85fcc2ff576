//! Dimension handles (OCANNL's capture lists): a spec step names labels or row variables to
//! capture and gets a [`Handle`] for each; [`Graph::set_dim`] and [`Graph::set_equal`] add
//! constraints on them; after solving, [`Graph::handle_size`] reads their sizes. Row variables
//! made for declarations ([`Graph::row_var`], [`Graph::row_of`]) are handles too: the batch
//! row a [`Scheme`](crate::infer::Scheme) keeps symbolic is one.

use smallvec::SmallVec;

use super::events::{Event, StepExtra};
use super::steps::usage;
use super::{Graph, GraphId};
use crate::code::{Coded, ErrorCode};
use crate::ids::{DimVar, RowVar, StepId, TensorId};
use crate::infer::constraint::{Constraint, Origin, Part, RowArg};
use crate::infer::error::InferError;
use crate::infer::store::{RowId, ShapeRef};
use crate::infer::OpKind;
use crate::shape::{Dim, Row};
use crate::spec::ast::{AxisKind, ConcatPart, EinsumSpec, Name, RowKind};
use crate::spec::lexer::MAX_INT;

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
}

/// What a handle stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

/// The constraint a setting adds.
enum Setting {
    /// A constraint ready to queue.
    Eq(Constraint),
    /// The elements of a row variable's axes number this many.
    Total(RowVar, u64),
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
    target: Target,
    name: Name,
    /// The step it was captured from.
    step: Option<StepId>,
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

    fn entry(&self, h: Handle) -> Result<&HandleEntry, InferError> {
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
        let Some(entry) = self.tensors.get(t.index()) else {
            return Err(usage(ErrorCode::Label, format!("unknown tensor {t}")));
        };
        let var = match entry.shape {
            ShapeRef::Fresh(v) => Some(RowVar(v.0 + kind.index() as u32)),
            ShapeRef::Stored(RowId(i)) => {
                self.solver.env.store.layout(RowId(i + kind.index() as u32)).3
            }
        };
        let name = self.name(t);
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
        self.capture = Some(names.iter().map(|n| Name::new(n)).collect());
        let result = self.add_step(op, args, Some(spec));
        self.capture = None;
        let tensor = result?;
        let step = StepId::from_index(self.steps.len() - 1);
        let rows = std::mem::take(&mut self.captured_rows);
        let mut handles = Vec::with_capacity(names.len());
        for name in names {
            let target =
                match (self.step_labels(step).get(name), rows.iter().find(|r| r.0 == *name)) {
                    (Some(Dim::Var(v)), _) => Target::Dim(v),
                    (_, Some(&(_, v))) => Target::Row(v),
                    // Checked above against the parsed spec; a spec that parsed then lists them.
                    _ => return Err(usage(ErrorCode::Label, format!("`{name}` was not captured"))),
                };
            handles.push(self.push_handle(target, Name::new(name), Some(step)));
        }
        Ok(Captured { tensor, step, handles })
    }

    /// The extra record of a step event: its result's name, numpy subscripts, captures.
    pub(super) fn step_extra(&self, numpy: Option<String>) -> Option<Box<StepExtra>> {
        match (self.next_name.clone(), numpy, self.capture.clone()) {
            (None, None, None) => None,
            (name, numpy, captures) => Some(Box::new(StepExtra { name, numpy, captures })),
        }
    }

    /// Requires a handle's size to be `n` (OCANNL's `set_dim`): a label's axis has size `n`; a
    /// row's axes hold `n` elements together (a row still open closes to one axis of `n`).
    /// A contradiction is an error naming the setting and the step the handle was captured
    /// from; the graph is then left as it was.
    ///
    /// ```
    /// use einrow::infer::{Graph, OpKind, ShapeBuilder};
    /// let mut g = Graph::new();
    /// let x = g.input("x", &ShapeBuilder::new().output_open())?;
    /// // `i` is the result's only label: a consumer or `set_dim` sizes it.
    /// let c = g.add_step_capturing(OpKind::Permute, &[x], "j => i,j", &["i", "j"])?;
    /// g.set_dim(c.handles[0], 3)?;
    /// g.set_dim(c.handles[1], 2)?;
    /// g.solve()?;
    /// assert_eq!(g.shape_string(c.tensor)?, "3,2");
    /// assert_eq!(g.shape_string(x)?, "2");
    /// # Ok::<(), einrow::infer::InferError>(())
    /// ```
    pub fn set_dim(&mut self, h: Handle, n: u64) -> Result<(), InferError> {
        let e = self.entry(h)?.clone();
        if n > MAX_INT {
            let msg = format!("set_dim of `{}` to {n}: sizes are at most 2^62", e.name);
            return Err(usage(ErrorCode::Value, msg));
        }
        let what = format!("set_dim of `{}` to {n}", e.name);
        let setting = match e.target {
            Target::Dim(v) => Setting::Eq(Constraint::DimEq(Dim::Var(v), Dim::size(n))),
            Target::Row(v) => Setting::Total(v, n),
        };
        self.setting(Event::SetDim(h.index, n), &e, &what, setting)
    }

    /// Requires two handles to be equal (OCANNL's `set_equal`): two labels the same size, two
    /// row variables the same axes. A label and a row need one side known: the row's
    /// elements then number the label's size. A contradiction is an error naming the setting
    /// and the steps; the graph is then left as it was.
    ///
    /// ```
    /// use einrow::infer::{Graph, OpKind, ShapeBuilder};
    /// let mut g = Graph::new();
    /// let a = g.input("a", &ShapeBuilder::array([4, 5]))?;
    /// let b = g.input("b", &ShapeBuilder::new().output_open())?;
    /// let ca = g.add_step_capturing(OpKind::Permute, &[a], "i,j => j,i", &["i"])?;
    /// let cb = g.add_step_capturing(OpKind::Permute, &[b], "k => k", &["k"])?;
    /// g.set_equal(ca.handles[0], cb.handles[0])?;
    /// g.solve()?;
    /// assert_eq!(g.sizes(b)?.output, [4]);
    /// # Ok::<(), einrow::infer::InferError>(())
    /// ```
    pub fn set_equal(&mut self, a: Handle, b: Handle) -> Result<(), InferError> {
        let (ea, eb) = (self.entry(a)?.clone(), self.entry(b)?.clone());
        let what = format!("set_equal of `{}` and `{}`", ea.name, eb.name);
        let setting = match (ea.target, eb.target) {
            (Target::Dim(x), Target::Dim(y)) => {
                Setting::Eq(Constraint::DimEq(Dim::Var(x), Dim::Var(y)))
            }
            (Target::Row(x), Target::Row(y)) => Setting::Eq(Constraint::RowEq(x.into(), y.into())),
            (Target::Dim(d), Target::Row(r)) | (Target::Row(r), Target::Dim(d)) => {
                self.dim_row_equal(d, r, &what)?
            }
        };
        self.setting(Event::SetEqual(a.index, b.index), &ea, &what, setting)
    }

    /// The constraint making a label's size the number of a row's elements, from whichever
    /// side is known.
    fn dim_row_equal(&self, d: DimVar, r: RowVar, what: &str) -> Result<Setting, InferError> {
        if let Some(s) = self.solver.env.peek_dim(&Dim::Var(d)).solved() {
            return Ok(Setting::Total(r, s.size));
        }
        match self.row_sizes(r) {
            Some(sizes) => {
                let n = sizes.iter().try_fold(1u64, |n, s| n.checked_mul(*s));
                let n = n.filter(|n| *n <= MAX_INT).ok_or_else(|| {
                    usage(ErrorCode::Value, format!("{what}: the row holds more than 2^62"))
                })?;
                Ok(Setting::Eq(Constraint::DimEq(Dim::Var(d), Dim::size(n))))
            }
            None => Err(InferError::shape(
                ErrorCode::Unresolved,
                format!("{what}: insufficient information (neither size is known yet)"),
            )),
        }
    }

    /// Runs one setting: its event, its constraint (with an origin at the handle's step),
    /// solving; on failure, the error with the setting named and the graph rolled back.
    fn setting(
        &mut self,
        event: Event,
        e: &HandleEntry,
        what: &str,
        setting: Setting,
    ) -> Result<(), InferError> {
        let events = self.events.len();
        self.events.push(event);
        let origin = self.solver.origin(Origin {
            step: e.step,
            tensor: None,
            part: Part::Setting,
            span: None,
        });
        let c = match setting {
            Setting::Eq(c) => c,
            Setting::Total(v, n) => Constraint::TotalElems(self.row_shape(v), n),
        };
        self.solver.push_with(c, origin);
        let result = self.solver.run();
        let Err(err) = result else { return Ok(()) };
        self.roll_back_to(events);
        Err(with_setting(err, e, what))
    }

    /// Three stored rows, `[v]`, empty, empty: a shape whose elements are those of `v`.
    fn row_shape(&mut self, v: RowVar) -> ShapeRef {
        let (open, empty) = (Row::open(v), Row::empty());
        ShapeRef::store_rows([&open, &empty, &empty], &mut self.solver.env.store)
    }

    /// The solved sizes of a row variable, if it is solved.
    fn row_sizes(&self, v: RowVar) -> Option<Vec<u64>> {
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

impl Graph {
    /// Adds to the error of a failed step the settings of handles captured from steps whose
    /// tensors the failed step reads: the sizes it contradicts may come from them.
    pub(super) fn note_settings(&self, s: &mut crate::infer::error::ShapeError, args: &[TensorId]) {
        if self.handles.is_empty() {
            return;
        }
        let mut notes: Vec<String> = Vec::new();
        for e in &self.events {
            let (h, what) = match e {
                Event::SetDim(h, n) => (*h, format!("set to {n} by set_dim")),
                Event::SetEqual(a, b) => {
                    let other = self.handles.get(*b as usize).map_or("?", |x| x.name.as_str());
                    (*a, format!("set equal to `{other}` by set_equal"))
                }
                _ => continue,
            };
            let Some(entry) = self.handles.get(h as usize) else { continue };
            let Some(step) = entry.step.and_then(|st| self.steps.get(st.index())) else { continue };
            let touches = args.iter().any(|a| *a == step.out || step.args.contains(a));
            if touches {
                let from = entry.step.map(|st| format!(", captured from {st}")).unwrap_or_default();
                notes.push(format!("`{}` was {what}{from}", entry.name));
            }
        }
        if !notes.is_empty() {
            s.message = format!("{}; {}", s.message, notes.join("; "));
            s.chain.extend(notes);
        }
    }
}

/// An error of a setting, with the setting named (and the step the handle came from, when the
/// solver did not name one).
fn with_setting(err: InferError, e: &HandleEntry, what: &str) -> InferError {
    match err {
        InferError::Shape(mut s) => {
            if s.step.is_none() {
                s.step = e.step;
            }
            let from = e.step.map(|st| format!(" (captured from {st})")).unwrap_or_default();
            s.message = format!("{what}{from}: {}", s.message);
            s.statement = Some(what.to_string());
            InferError::Shape(s)
        }
        other => {
            let code = other.code();
            usage(code, format!("{what}: {other}"))
        }
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
            for axis in row.axes() {
                match &axis.kind {
                    AxisKind::Label(n) => add(n),
                    AxisKind::Affine(a) => {
                        add(&a.over);
                        if let Some(c) = &a.conv {
                            add(&c.kernel);
                        }
                    }
                    AxisKind::Concat(parts) => {
                        for p in parts {
                            if let ConcatPart::Label(n) = p {
                                add(n);
                            }
                        }
                    }
                    AxisKind::Placeholder | AxisKind::Int(_) => {}
                }
            }
        }
    }
    out
}
