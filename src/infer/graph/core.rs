//! The graph itself: its tensors, its steps and the solver they feed, and the operations a
//! framework adds, each propagated at once (solving is in `solving.rs`, side constraints in
//! `sides.rs`).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use smallvec::SmallVec;

use super::events::Event;
use super::handles::HandleEntry;
use super::identity::GraphId;
use super::op::OpKind;
use super::steps::{SpecCache, TextHasher, MAX_GRAPH_AXES};
use super::typed::Leaf;
use crate::ids::{StepId, TensorId};
use crate::infer::error::InferError;
use crate::infer::solve::solver::Solver;
use crate::infer::solve::store::ShapeRef;
use crate::shape::{Dim, Shape, ShapeText};
use crate::spec::ast::{EinsumSpec, Name};

/// A tensor of the graph. Its shape is read through [`Graph::shape`], its name through
/// [`Graph::name`].
#[derive(Clone, Debug)]
pub struct TensorEntry {
    /// Its name: an id in the graph's interned names, or `GENERATED` for a result nobody
    /// named (its name is made from its id when asked for). A large program names few of its
    /// tensors, and many under the same few names, so no tensor holds a string.
    pub(super) name: u32,
    /// Where its unsubstituted shape lives (three fresh rows, or a declared shape).
    pub(crate) shape: ShapeRef,
    /// Declared by the user (a leaf) rather than produced by a step.
    pub leaf: bool,
    /// A parameter: its unknowns are never guessed.
    pub param: bool,
}

/// An operation of the graph.
#[derive(Clone, Debug)]
pub struct Step {
    /// What it computes.
    pub op: OpKind,
    /// The tensor it defines.
    pub out: TensorId,
    /// Its operands.
    pub args: SmallVec<[TensorId; 3]>,
    /// The spec of spec operations, with its text (shared by the steps with the same text).
    pub spec: Option<Arc<StepSpec>>,
    /// Where the dims of its labels are in the graph's table of label dims (start, count): read
    /// them with [`Graph::step_labels`]. One table for all steps instead of a vector each, and
    /// the names once per spec (in [`StepSpec::labels`]).
    pub(super) labels: (u32, u32),
}

// A program has millions of tensors and steps: keep their entries small.
#[cfg(target_pointer_width = "64")]
const _: () =
    assert!(std::mem::size_of::<TensorEntry>() == 16 && std::mem::size_of::<Step>() == 64);

/// A declared shape: its text and its parse, shared by the declarations with the same text
/// (and by their events, which keep one pointer).
#[derive(Debug)]
pub(crate) struct DeclaredShape {
    /// The text as given.
    pub text: Arc<str>,
    /// The parsed shape.
    pub parsed: ShapeText,
}

/// A step's spec: its text, its parse and its labels, in one allocation (a short text and up
/// to four labels are stored inline).
#[derive(Debug)]
pub struct StepSpec {
    /// The text as given.
    pub text: Name,
    /// The parsed spec.
    pub parsed: EinsumSpec,
    /// Its labels, set by its first step: every step of a spec lists its labels in the same
    /// order (the order elaboration makes their variables in), so the names are kept once.
    pub(super) labels: OnceLock<SmallVec<[Name; 4]>>,
}

impl StepSpec {
    /// Its labels, in the order [`Graph::step_labels`] lists their dims. Set by the first step
    /// of the spec that got as far as listing them (a spec reached through a step of the graph
    /// always has them); empty before.
    pub fn labels(&self) -> &[Name] {
        self.labels.get().map_or(&[], |l| l.as_slice())
    }

    /// A spec with its labels set (a scheme's spec read back).
    #[cfg(feature = "serde")]
    pub(crate) fn with_labels(text: Name, parsed: EinsumSpec, labels: &[Name]) -> StepSpec {
        let spec = StepSpec { text, parsed, labels: OnceLock::new() };
        let _ = spec.labels.set(labels.iter().cloned().collect());
        spec
    }
}

/// The name id of a tensor named after its id.
const GENERATED: u32 = u32::MAX;

impl TensorEntry {
    /// What a leaf is ([`Leaf::Input`] or [`Leaf::Parameter`]); `None` for a step's result.
    pub fn kind(&self) -> Option<Leaf> {
        match (self.leaf, self.param) {
            (false, _) => None,
            (true, false) => Some(Leaf::Input),
            (true, true) => Some(Leaf::Parameter),
        }
    }

    /// The entry of a result tensor, named `name` (interned) or after its id.
    pub(crate) fn result(name: Option<u32>, shape: ShapeRef) -> TensorEntry {
        TensorEntry { name: name.unwrap_or(GENERATED), shape, leaf: false, param: false }
    }

    /// Its name, as given (in `names`) or made from its id `t`.
    pub(crate) fn name(&self, t: TensorId, names: &[Name]) -> Name {
        name_of(self.name, t, names)
    }
}

/// The name with id `id` in `names`, or made from the tensor id `t` (`t12`) when there is none.
fn name_of(id: u32, t: TensorId, names: &[Name]) -> Name {
    match names.get(id as usize) {
        Some(name) => name.clone(),
        None => crate::spec::ast::numbered_name("t", "", t.index(), ""),
    }
}

/// Lists `name` and returns its id (or [`GENERATED`] past `u32` ids: the tensor is then
/// named after its id).
pub(super) fn name_id(names: &mut Vec<Name>, name: Name) -> u32 {
    match u32::try_from(names.len()) {
        Ok(id) if id != GENERATED => {
            names.push(name);
            id
        }
        _ => GENERATED,
    }
}

impl Step {
    /// A step that is in no graph's table of label dims (a scheme's step read back: the scheme
    /// keeps its own labels).
    #[cfg(feature = "serde")]
    pub(crate) fn detached(
        op: OpKind,
        out: TensorId,
        args: SmallVec<[TensorId; 3]>,
        spec: Option<Arc<StepSpec>>,
    ) -> Step {
        Step { op, out, args, spec, labels: (0, 0) }
    }

    /// The spec text of a spec operation.
    pub fn spec_text(&self) -> Option<&str> {
        self.spec.as_ref().map(|s| s.text.as_str())
    }
}

/// A graph of tensors and operations with its shape solver.
///
/// ```
/// use einrow::infer::Graph;
/// let mut g = Graph::new();
/// let a = g.declare("a", Some("2,3"), false).unwrap();
/// let b = g.declare("b", Some("3,4"), false).unwrap();
/// let c = g.einsum("ij;jk=>ik", &[a, b]).unwrap();
/// g.solve().unwrap();
/// assert_eq!(g.shape_string(c).unwrap(), "2,4");
/// ```
pub struct Graph {
    pub(super) solver: Solver,
    pub(super) tensors: Vec<TensorEntry>,
    pub(super) steps: Vec<Step>,
    /// Tensors touched since the last solve.
    pub(super) pending: Vec<TensorId>,
    pub(super) in_pending: Vec<bool>,
    /// Leaves with row variables declared since the last solve: closed by it even if no
    /// operation uses them (after the touched tensors, so that they do not change the closing
    /// order of those).
    pub(super) declared: Vec<TensorId>,
    pub(super) events: Vec<Event>,
    pub(super) next_name: Option<Name>,
    /// The names given to tensors, by name id. Tensor names are mostly distinct (each
    /// statement of a program names its result), so they are listed, not interned: a map of
    /// a million names costs a cache miss per tensor and tens of megabytes.
    pub(super) names: Vec<Name>,
    /// The dims of the labels of all spec steps, each step's in one run.
    pub(super) labels: Vec<Dim>,
    /// The subscripts of the numpy steps, by step index (ascending: steps are added in order).
    pub(super) numpy_texts: Vec<(u32, Arc<str>)>,
    /// Parsed specs by text: a program repeats a few specs many times.
    pub(super) specs: SpecCache,
    /// Parsed declared shapes by text, for the same reason.
    pub(super) shape_texts: HashMap<Arc<str>, Arc<DeclaredShape>, TextHasher>,
    /// Spec steps over fully solved operands are evaluated directly (see `Graph::try_direct`).
    pub(super) direct: bool,
    /// This graph's identity, carried by its handles.
    pub(super) id: GraphId,
    /// Dimension and row handles, in the order they were made.
    pub(super) handles: Vec<HandleEntry>,
    /// The names the step being added captures (see `graph/handles.rs`): it then goes
    /// through the solver, and its spec's row variables are kept in `captured_rows`.
    pub(super) capture: Option<Box<[Name]>>,
    /// The row variables of the last spec step added while capturing.
    pub(super) captured_rows: SmallVec<[(Name, crate::ids::RowVar); 2]>,
    /// The most variables and stored axes the graph holds (see [`Graph::set_axis_limit`]).
    pub(super) axis_limit: usize,
}

impl Default for Graph {
    fn default() -> Graph {
        Graph::new()
    }
}

/// A copy of the graph with the same identity: its ids and handles name the copy's tensors,
/// steps and variables too.
impl Clone for Graph {
    fn clone(&self) -> Graph {
        self.fork()
    }
}

/// The graph's identity and size (its shapes are read with [`Graph::shape_string`]).
impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph")
            .field("id", &self.id)
            .field("tensors", &self.tensors.len())
            .field("steps", &self.steps.len())
            .finish_non_exhaustive()
    }
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Graph {
        // Room for a small program from the start: a graph of a few steps (eager use, one
        // graph per operation) then allocates each table once instead of growing it in steps.
        const TENSORS: usize = 8;
        let id = GraphId::fresh();
        let mut solver = Solver::new();
        solver.origins.set_graph(id);
        solver.env.store.reserve(3 * TENSORS, 4 * TENSORS);
        Graph {
            solver,
            tensors: Vec::with_capacity(TENSORS),
            steps: Vec::with_capacity(TENSORS / 2),
            pending: Vec::new(),
            in_pending: Vec::with_capacity(TENSORS),
            declared: Vec::new(),
            events: Vec::with_capacity(TENSORS),
            next_name: None,
            names: Vec::new(),
            labels: Vec::new(),
            numpy_texts: Vec::new(),
            specs: SpecCache::default(),
            shape_texts: HashMap::default(),
            direct: true,
            id,
            handles: Vec::new(),
            capture: None,
            captured_rows: SmallVec::new(),
            axis_limit: MAX_GRAPH_AXES,
        }
    }

    pub(super) fn add_tensor(&mut self, t: TensorEntry) -> TensorId {
        self.tensors.push(t);
        self.in_pending.push(false);
        self.tensor_at(self.tensors.len() - 1)
    }

    /// The id of tensor `i` of this graph.
    pub(crate) fn tensor_at(&self, i: usize) -> TensorId {
        TensorId::new(i, self.id)
    }

    /// The id of step `i` of this graph.
    pub(crate) fn step_at(&self, i: usize) -> StepId {
        StepId::new(i, self.id)
    }

    /// The ids of the tensors, in the order they were made.
    pub fn tensor_ids(&self) -> impl ExactSizeIterator<Item = TensorId> + '_ {
        (0..self.tensors.len()).map(|i| self.tensor_at(i))
    }

    /// The ids of the steps, in the order they were added.
    pub fn step_ids(&self) -> impl ExactSizeIterator<Item = StepId> + '_ {
        (0..self.steps.len()).map(|i| self.step_at(i))
    }

    /// The index of tensor `t`, checked: a `name` error for an id of another graph or one
    /// past the graph's tensors.
    pub(crate) fn check_tensor(&self, t: TensorId) -> Result<usize, InferError> {
        if !t.belongs_to(self.id) {
            return Err(InferError::ForeignId { id: t.to_string() });
        }
        match t.index() < self.tensors.len() {
            true => Ok(t.index()),
            false => Err(InferError::UnknownTensor { name: t.to_string() }),
        }
    }

    /// The index of step `s`, checked as [`Graph::check_tensor`] checks a tensor.
    pub(crate) fn check_step(&self, s: StepId) -> Result<usize, InferError> {
        if !s.belongs_to(self.id) {
            return Err(InferError::ForeignId { id: s.to_string() });
        }
        match s.index() < self.steps.len() {
            true => Ok(s.index()),
            false => Err(InferError::UnknownStep { id: s.to_string() }),
        }
    }

    pub(super) fn touch(&mut self, t: TensorId) {
        if !self.in_pending[t.index()] {
            self.in_pending[t.index()] = true;
            self.pending.push(t);
        }
    }

    /// Whether an einsum or permute step whose operands are already fully solved is evaluated
    /// directly, without the solver (on by default). The shapes and errors are the same either
    /// way; turning it off puts every step's constraints through the solver, which the
    /// differential tests of the two paths use.
    pub fn set_direct_evaluation(&mut self, on: bool) {
        self.direct = on;
    }

    /// Renames a tensor (for messages and pictures). Errors (`name`): an id of another
    /// graph or past this graph's tensors.
    pub fn set_name(&mut self, t: TensorId, name: &str) -> Result<(), InferError> {
        let i = self.check_tensor(t)?;
        self.tensors[i].name = name_id(&mut self.names, Name::new(name));
        self.events.push(Event::Name(Box::new((t, name.into()))));
        Ok(())
    }

    /// The tensor entry. Errors (`name`): an id of another graph or past this graph's
    /// tensors.
    pub fn tensor(&self, t: TensorId) -> Result<&TensorEntry, InferError> {
        Ok(&self.tensors[self.check_tensor(t)?])
    }

    /// The closing choices no operation forced ([`Graph::warnings`] reports them).
    pub(crate) fn guesses(&self) -> &[crate::infer::solve::guesses::Guess] {
        &self.solver.guesses
    }

    /// The numpy subscripts of a numpy step (`None` for other steps). Errors (`name`): an
    /// id of another graph, or past this graph's steps.
    pub fn numpy_subscripts(&self, s: StepId) -> Result<Option<&str>, InferError> {
        let i = self.check_step(s)? as u32;
        let found = self.numpy_texts.binary_search_by_key(&i, |(k, _)| *k).ok();
        Ok(found.map(|k| &*self.numpy_texts[k].1))
    }

    /// The entry of a tensor of this graph (an id the graph made itself).
    pub(crate) fn tensor_entry(&self, t: TensorId) -> &TensorEntry {
        &self.tensors[t.index()]
    }

    /// The name of a tensor: as declared or given, or `t` and its id (`t12`) for a result
    /// nobody named. Errors (`name`): an id of another graph or past this graph's tensors.
    ///
    /// ```
    /// use einrow::infer::Graph;
    /// let mut g = Graph::new();
    /// let x = g.declare("x", Some("2,3"), false)?;
    /// let y = g.pointwise(&[x])?;
    /// assert_eq!((g.name(x)?.as_str(), g.name(y)?.as_str()), ("x", "t1"));
    /// g.set_name(y, "activation")?;
    /// assert_eq!(g.name(y)?.as_str(), "activation");
    /// let other = Graph::new().declare("z", Some("2"), false)?;
    /// assert!(g.name(other).is_err(), "an id of another graph");
    /// # Ok::<(), einrow::infer::InferError>(())
    /// ```
    pub fn name(&self, t: TensorId) -> Result<Name, InferError> {
        let i = self.check_tensor(t)?;
        Ok(name_of(self.tensors[i].name, t, &self.names))
    }

    /// The name of a tensor of this graph (as [`Graph::name`]; an unknown one is named after
    /// its id), for messages.
    pub(crate) fn name_or_id(&self, t: TensorId) -> Name {
        let id = self.tensors.get(t.index()).map_or(GENERATED, |e| e.name);
        name_of(id, t, &self.names)
    }

    /// The name given to a tensor (declared, given to its step, or set), `None` for a result
    /// named after its id.
    pub(crate) fn given_name(&self, t: TensorId) -> Option<Name> {
        let e = self.tensors.get(t.index())?;
        self.names.get(e.name as usize).cloned()
    }

    /// The steps added so far.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Number of tensors.
    pub fn tensor_count(&self) -> usize {
        self.tensors.len()
    }

    /// Pointwise operation over 1, 2 or 3 arguments (broadcasting).
    pub fn pointwise(&mut self, args: &[TensorId]) -> Result<TensorId, InferError> {
        self.add_step(OpKind::Pointwise, args, None)
    }

    /// `a * b`, matrix-multiply style.
    pub fn compose(&mut self, a: TensorId, b: TensorId) -> Result<TensorId, InferError> {
        self.add_step(OpKind::Compose, &[a, b], None)
    }

    /// Swaps input and output rows.
    pub fn transpose(&mut self, a: TensorId) -> Result<TensorId, InferError> {
        self.add_step(OpKind::Transpose, &[a], None)
    }

    /// A one-operand spec (`b|i->o => o|b->i`, `ij=>i`, `i=>ii`…).
    pub fn permute(&mut self, spec: &str, a: TensorId) -> Result<TensorId, InferError> {
        self.add_step(OpKind::Permute, &[a], Some(spec))
    }

    /// An einsum spec of one, two or three operands (`ij=>ji`, `ij;jk=>ik`, `i;j;k=>ijk`):
    /// the step is a [`permute`](Graph::permute), an einsum or an
    /// [`einsum3`](Graph::einsum3) by the operand count (others are an `arity` error).
    pub fn einsum(&mut self, spec: &str, args: &[TensorId]) -> Result<TensorId, InferError> {
        let op = match args.len() {
            1 => OpKind::Permute,
            3 => OpKind::Einsum3,
            _ => OpKind::Einsum,
        };
        self.add_step(op, args, Some(spec))
    }

    /// A three-operand einsum spec.
    pub fn einsum3(&mut self, spec: &str, args: &[TensorId]) -> Result<TensorId, InferError> {
        self.add_step(OpKind::Einsum3, args, Some(spec))
    }

    /// Concatenation of n operands (`a; b => a^b`).
    pub fn concat(&mut self, spec: &str, args: &[TensorId]) -> Result<TensorId, InferError> {
        self.add_step(OpKind::Concat, args, Some(spec))
    }

    /// Drops the leftmost batch axis.
    pub fn batch_slice(&mut self, a: TensorId) -> Result<TensorId, InferError> {
        self.add_step(OpKind::BatchSlice, &[a], None)
    }

    /// The unsubstituted shape of a tensor.
    pub(super) fn raw_shape(&self, t: TensorId) -> Shape {
        self.tensors[t.index()].shape.shape(&self.solver.env.store)
    }

    /// The table of affine and concatenation dims, to read or show the dims of
    /// [`Graph::shape`].
    pub fn dim_exprs(&self) -> &crate::shape::DimExprs {
        &self.solver.env.exprs
    }
}
