//! The public graph API a framework calls: declare tensors, add operations (each propagated at
//! once), solve (close the world), read shapes back.

use std::collections::HashMap;
use std::sync::Arc;

use smallvec::SmallVec;

mod search;

use super::constraint::{Constraint, Origin, Part};
use super::elaborate::SpecEnv;
use super::error::InferError;
use super::lower::StepShapes;
use super::op::OpKind;
use super::solver::Solver;
use super::store::ShapeRef;
use crate::code::ErrorCode;
use crate::ids::{StepId, TensorId};
use crate::shape::{parse_shape_string, Basis, Dim, Dims, Row, Shape, ShapeText, Solved, TextAxis};
use crate::spec::ast::{EinsumSpec, Name, RowKind};
use crate::spec::parse_einsum;

/// A tensor of the graph. Its shape is read through [`Graph::shape`].
#[derive(Clone, Debug)]
pub struct TensorEntry {
    /// Its name.
    pub name: Name,
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
    /// The spec of spec operations (shared by the steps with the same spec text).
    pub spec: Option<Arc<EinsumSpec>>,
    /// The spec text.
    pub spec_text: Option<Arc<str>>,
    /// The spec's labels and their variables, for projections.
    pub labels: Vec<(crate::spec::ast::Name, crate::ids::DimVar)>,
}

/// What was done to a graph, in order: enough to rebuild it (for careful re-solving).
#[derive(Clone, Debug)]
enum Event {
    Declare { name: String, shape: Option<String>, param: bool },
    Step { op: OpKind, args: Vec<TensorId>, spec: Option<String>, name: Option<String> },
    Equal(TensorId, TensorId),
    Name(TensorId, String),
    Solve,
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
    solver: Solver,
    tensors: Vec<TensorEntry>,
    steps: Vec<Step>,
    /// Tensors touched since the last solve.
    pending: Vec<TensorId>,
    in_pending: Vec<bool>,
    events: Vec<Event>,
    next_name: Option<String>,
    /// Parsed specs by text: a program repeats a few specs many times.
    specs: HashMap<Arc<str>, Arc<EinsumSpec>>,
}

impl Default for Graph {
    fn default() -> Graph {
        Graph::new()
    }
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Graph {
        Graph {
            solver: Solver::new(),
            tensors: Vec::new(),
            steps: Vec::new(),
            pending: Vec::new(),
            in_pending: Vec::new(),
            events: Vec::new(),
            next_name: None,
            specs: HashMap::new(),
        }
    }

    /// Declares a leaf tensor from a shape string (FORMAT.md: `2|4->3`, `rgb=3`, `1!`, `...`,
    /// `..name..`); `None` means nothing is known (three open rows). A parameter's unknowns
    /// are fixed only by the operations it takes part in.
    pub fn declare(
        &mut self,
        name: &str,
        shape: Option<&str>,
        param: bool,
    ) -> Result<TensorId, InferError> {
        let event = Event::Declare { name: name.into(), shape: shape.map(String::from), param };
        let shape = match shape {
            None => ShapeRef::Fresh(self.solver.env.new_rows3()),
            Some(text) => {
                let parsed = parse_shape_string(text).map_err(|e| InferError::Usage {
                    code: ErrorCode::Syntax,
                    message: format!("tensor `{name}`: {e}"),
                })?;
                let shape = self.shape_from_text(&parsed);
                ShapeRef::store(&shape, &mut self.solver.env.store)
            }
        };
        self.events.push(event);
        Ok(self.add_tensor(TensorEntry { name: name.into(), shape, leaf: true, param }))
    }

    fn shape_from_text(&mut self, t: &ShapeText) -> Shape {
        let mut vars: Vec<(String, crate::ids::RowVar)> = Vec::new();
        let mut shape = Shape::default();
        for kind in RowKind::ALL {
            let row = t.row(kind);
            let beg: Dims = row.beg.iter().map(|a| self.text_dim(a)).collect();
            let dims: Dims = row.dims.iter().map(|a| self.text_dim(a)).collect();
            let var = row.var.as_ref().map(|n| match vars.iter().find(|(m, _)| m == n) {
                Some((_, v)) => *v,
                None => {
                    let v = self.solver.env.new_row();
                    vars.push((n.clone(), v));
                    v
                }
            });
            *shape.row_mut(kind) = Row { beg, var, dims };
        }
        shape
    }

    fn text_dim(&mut self, a: &TextAxis) -> Dim {
        if a.top {
            return Dim::top();
        }
        let basis = a.basis.as_deref().map_or(Basis::DEFAULT, |b| self.solver.bases.intern(b));
        Dim::Solved(Solved { size: a.size, basis })
    }

    fn add_tensor(&mut self, t: TensorEntry) -> TensorId {
        self.tensors.push(t);
        self.in_pending.push(false);
        TensorId::from_index(self.tensors.len() - 1)
    }

    fn touch(&mut self, t: TensorId) {
        if !self.in_pending[t.index()] {
            self.in_pending[t.index()] = true;
            self.pending.push(t);
        }
    }

    /// Renames a tensor (for messages and pictures).
    pub fn set_name(&mut self, t: TensorId, name: &str) {
        if let Some(e) = self.tensors.get_mut(t.index()) {
            e.name = name.into();
            self.events.push(Event::Name(t, name.into()));
        }
    }

    /// The tensor entry.
    pub fn tensor(&self, t: TensorId) -> &TensorEntry {
        &self.tensors[t.index()]
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

    /// A two-operand einsum spec (`ij;jk=>ik`).
    pub fn einsum(&mut self, spec: &str, args: &[TensorId]) -> Result<TensorId, InferError> {
        self.add_step(OpKind::Einsum, args, Some(spec))
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
    fn raw_shape(&self, t: TensorId) -> Shape {
        self.tensors[t.index()].shape.shape(&self.solver.env.store)
    }

    /// Requires two tensors to have equal shapes (all three rows).
    pub fn equal_shapes(&mut self, a: TensorId, b: TensorId) -> Result<(), InferError> {
        if a.index() >= self.tensors.len() || b.index() >= self.tensors.len() {
            return Err(usage(ErrorCode::Label, format!("unknown tensor {a} or {b}")));
        }
        self.events.push(Event::Equal(a, b));
        let (sa, sb) = (self.raw_shape(a), self.raw_shape(b));
        let o = self.solver.origin(Origin {
            step: None,
            tensor: Some(a),
            part: Part::Side,
            span: None,
        });
        for k in RowKind::ALL {
            self.solver.push_with(Constraint::RowEq(sa.row(k).into(), sb.row(k).into()), o);
        }
        self.touch(a);
        self.touch(b);
        self.solver.run()
    }

    /// [`Graph::add_step`] with a name for the result (also when the step fails, so errors
    /// can name it).
    pub fn add_named_step(
        &mut self,
        name: &str,
        op: OpKind,
        args: &[TensorId],
        spec: Option<&str>,
    ) -> Result<TensorId, InferError> {
        self.next_name = Some(name.to_string());
        let result = self.add_step(op, args, spec);
        self.next_name = None;
        result
    }

    /// Adds an operation producing a new tensor; its constraints are propagated at once.
    /// A step that fails leaves the graph as it was before the call.
    pub fn add_step(
        &mut self,
        op: OpKind,
        args: &[TensorId],
        spec: Option<&str>,
    ) -> Result<TensorId, InferError> {
        let events = self.events.len();
        let name = self.next_name.clone().unwrap_or_else(|| format!("t{}", self.tensors.len()));
        let mut result = self.add_step_unchecked(op, args, spec);
        if let Err(InferError::Shape(s)) = &mut result {
            let names: Vec<&str> = args
                .iter()
                .filter_map(|a| self.tensors.get(a.index()))
                .map(|t| t.name.as_str())
                .collect();
            let spec_part = spec.map(|t| format!(" \"{t}\"")).unwrap_or_default();
            s.statement = Some(format!("{name} = {op}{spec_part} {}", names.join(" ")));
            s.spec = spec.map(String::from);
        }
        if result.is_err() && self.events.len() > events {
            self.roll_back_to(events);
        }
        result
    }

    /// Rebuilds the graph from its first `events` events (deterministic: the same ids).
    fn roll_back_to(&mut self, events: usize) {
        let mut g = Graph::new();
        let ok = self.events[..events].iter().all(|e| g.replay_event(e).is_some());
        if ok {
            *self = g;
        }
    }

    fn add_step_unchecked(
        &mut self,
        op: OpKind,
        args: &[TensorId],
        spec: Option<&str>,
    ) -> Result<TensorId, InferError> {
        let step = StepId::from_index(self.steps.len());
        self.check_args(op, args)?;
        let name = self.next_name.clone();
        self.events.push(Event::Step {
            op,
            args: args.to_vec(),
            spec: spec.map(String::from),
            name,
        });
        let numpy = match (op, spec) {
            (OpKind::Numpy, Some(text)) => {
                Some(crate::spec::parse_numpy(text).map_err(|error| InferError::Spec {
                    step,
                    spec: text.to_string(),
                    error,
                })?)
            }
            _ => None,
        };
        let parsed = match spec {
            _ if op == OpKind::Numpy => None,
            Some(text) => Some(self.parse_spec(text, step)?),
            None if op.has_spec() => {
                return Err(usage(ErrorCode::Syntax, format!("{op} needs a spec")));
            }
            None => None,
        };
        if let Some((_, p)) = &parsed {
            check_spec_arity(op, p, args.len())?;
        }
        let out_ref = ShapeRef::Fresh(self.solver.env.new_rows3());
        let out_shape = out_ref.shape(&self.solver.env.store);
        let name = match self.next_name.take() {
            Some(n) => smol_str::SmolStr::from(n),
            None => smol_str::format_smolstr!("t{}", self.tensors.len()),
        };
        let out = self.add_tensor(TensorEntry { name, shape: out_ref, leaf: false, param: false });
        let arg_shapes: SmallVec<[(TensorId, Shape); 3]> =
            args.iter().map(|a| (*a, self.raw_shape(*a))).collect();
        let s = StepShapes { step, out: (out, &out_shape), args: &arg_shapes };
        let env = match (op, &parsed) {
            (OpKind::Pointwise, _) => {
                self.solver.lower_pointwise(&s);
                SpecEnv::default()
            }
            (OpKind::Compose, _) => {
                self.solver.lower_compose(&s);
                SpecEnv::default()
            }
            (OpKind::Transpose, _) => {
                self.solver.lower_transpose(&s);
                SpecEnv::default()
            }
            (OpKind::BatchSlice, _) => {
                self.solver.lower_batch_slice(&s);
                SpecEnv::default()
            }
            (OpKind::Numpy, _) => {
                let np = numpy
                    .as_ref()
                    .ok_or_else(|| usage(ErrorCode::Syntax, "numpy needs subscripts".into()))?;
                self.solver.lower_numpy(&s, np).map_err(|e| with_step(e, step))?;
                SpecEnv::default()
            }
            (_, Some((_, p))) => {
                self.solver.lower_spec(&s, op, p).map_err(|e| with_step(e, step))?
            }
            (_, None) => SpecEnv::default(),
        };
        for a in args {
            self.touch(*a);
        }
        self.touch(out);
        let (spec_text, spec) = parsed.unzip();
        self.steps.push(Step {
            op,
            out,
            args: args.iter().copied().collect(),
            spec,
            spec_text,
            labels: env.labels().to_vec(),
        });
        self.solver.run()?;
        Ok(out)
    }

    /// Parses a spec, or finds it parsed already.
    fn parse_spec(
        &mut self,
        text: &str,
        step: StepId,
    ) -> Result<(Arc<str>, Arc<EinsumSpec>), InferError> {
        if let Some((k, v)) = self.specs.get_key_value(text) {
            return Ok((k.clone(), v.clone()));
        }
        let parsed = parse_einsum(text).map_err(|error| InferError::Spec {
            step,
            spec: text.to_string(),
            error,
        })?;
        let (key, value): (Arc<str>, _) = (text.into(), Arc::new(parsed));
        self.specs.insert(key.clone(), value.clone());
        Ok((key, value))
    }

    fn check_args(&self, op: OpKind, args: &[TensorId]) -> Result<(), InferError> {
        if let Some(bad) = args.iter().find(|a| a.index() >= self.tensors.len()) {
            return Err(usage(ErrorCode::Label, format!("unknown tensor {bad}")));
        }
        let ok = match op {
            OpKind::Pointwise => (1..=3).contains(&args.len()),
            OpKind::Compose | OpKind::Einsum => args.len() == 2,
            OpKind::Transpose | OpKind::Permute | OpKind::BatchSlice => args.len() == 1,
            OpKind::Einsum3 => args.len() == 3,
            OpKind::Concat | OpKind::Numpy => !args.is_empty(),
        };
        if ok {
            Ok(())
        } else {
            Err(usage(ErrorCode::Arity, format!("{op} does not take {} operands", args.len())))
        }
    }

    /// Closes the world for everything added since the last solve (stages 2–7). Afterwards
    /// every shape touched so far is fully known; more operations may still be added.
    ///
    /// When the default closing policy fails, the graph is rebuilt and closed carefully (see
    /// `careful.rs`); the original error is returned if that fails too.
    pub fn solve(&mut self) -> Result<(), InferError> {
        let result = self.solve_once();
        if result.is_ok() || self.solver.careful {
            self.events.push(Event::Solve);
            return result;
        }
        match self.replay_carefully().or_else(|| self.search_lengths()) {
            Some(g) => {
                *self = g;
                self.solver.careful = false;
                self.events.push(Event::Solve);
                Ok(())
            }
            None => result,
        }
    }

    /// Rebuilds the graph from its events and solves the last round carefully; `None` when
    /// that fails too (or the graph cannot be rebuilt).
    fn replay_carefully(&self) -> Option<Graph> {
        let mut g = Graph::new();
        for e in &self.events {
            g.replay_event(e)?;
        }
        g.solver.careful = true;
        g.solve_once().ok()?;
        Some(g)
    }

    /// Applies one recorded event to this graph; `None` when it fails.
    fn replay_event(&mut self, e: &Event) -> Option<()> {
        match e {
            Event::Declare { name, shape, param } => {
                self.declare(name, shape.as_deref(), *param).ok()?;
            }
            Event::Step { op, args, spec, name } => {
                self.next_name = name.clone();
                self.add_step(*op, args, spec.as_deref()).ok()?;
            }
            Event::Equal(a, b) => self.equal_shapes(*a, *b).ok()?,
            Event::Name(t, n) => self.set_name(*t, n),
            Event::Solve => self.solve_once().ok()?,
        }
        Some(())
    }

    fn solve_once(&mut self) -> Result<(), InferError> {
        let pending = std::mem::take(&mut self.pending);
        let result = self.solver.finish(&self.tensors, &pending);
        for t in &pending {
            self.in_pending[t.index()] = false;
        }
        // Every touched shape is now variable-free; a concatenation of conflicting bases is
        // the one thing that can still be left unsimplified.
        for t in result? {
            self.dims(t)?;
        }
        Ok(())
    }

    /// The current shape of a tensor, with the bindings substituted.
    pub fn shape(&mut self, t: TensorId) -> Shape {
        let s = self.raw_shape(t);
        Shape {
            batch: self.solver.env.row(&s.batch),
            input: self.solver.env.row(&s.input),
            output: self.solver.env.row(&s.output),
        }
    }

    /// The solved sizes of a tensor's rows (batch, input, output), or an error naming what is
    /// still unknown.
    pub fn dims(&mut self, t: TensorId) -> Result<[Vec<Solved>; 3], InferError> {
        let shape = self.shape(t);
        let mut out: [Vec<Solved>; 3] = Default::default();
        for (i, kind) in RowKind::ALL.into_iter().enumerate() {
            let row = shape.row(kind);
            if row.var.is_some() {
                return Err(self.unknown(t, &format!("its {} row", kind.name())));
            }
            for d in row.all() {
                match d.solved() {
                    Some(s) => out[i].push(s),
                    None => return Err(self.unknown(t, &format!("the {} axis `{d}`", kind.name()))),
                }
            }
        }
        Ok(out)
    }

    fn unknown(&self, t: TensorId, what: &str) -> InferError {
        let name = &self.tensors[t.index()].name;
        if what.contains('^') {
            let msg = format!("`{name}` concatenates dimensions with conflicting bases: {what}");
            return InferError::shape(ErrorCode::Mismatch, msg);
        }
        InferError::shape(
            ErrorCode::Unresolved,
            format!("the shape of `{name}` is not known: {what} is unresolved"),
        )
    }

    /// The shape as a FORMAT.md shape string (`2|4->3`, `rgb=3`, `1!`).
    pub fn shape_string(&mut self, t: TensorId) -> Result<String, InferError> {
        let [b, i, o] = self.dims(t)?;
        let show = |v: &[Solved]| {
            v.iter()
                .map(|s| {
                    if s.is_top() {
                        "1!".to_string()
                    } else if s.basis.is_named() {
                        format!("{}={}", self.solver.bases.name(s.basis), s.size)
                    } else {
                        s.size.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(",")
        };
        let mut text = String::new();
        if !b.is_empty() {
            text.push_str(&format!("{}|", show(&b)));
        }
        if !i.is_empty() {
            text.push_str(&format!("{}->", show(&i)));
        }
        text.push_str(&show(&o));
        Ok(text)
    }

    /// The solved size of a dim variable (after [`Graph::solve`]).
    pub fn var_size(&mut self, v: crate::ids::DimVar) -> Option<u64> {
        self.solver.env.dim(&Dim::Var(v)).solved().map(|s| s.size)
    }

    /// The name of a basis.
    pub fn basis_name(&self, b: Basis) -> &str {
        self.solver.bases.name(b)
    }
}

fn usage(code: ErrorCode, message: String) -> InferError {
    InferError::Usage { code, message }
}

fn with_step(e: InferError, step: StepId) -> InferError {
    match e {
        InferError::Shape(mut s) => {
            s.step.get_or_insert(step);
            InferError::Shape(s)
        }
        other => other,
    }
}

fn check_spec_arity(op: OpKind, spec: &EinsumSpec, args: usize) -> Result<(), InferError> {
    let want = match op {
        OpKind::Permute => 1,
        OpKind::Einsum => 2,
        OpKind::Einsum3 => 3,
        _ => args,
    };
    if spec.rhs.len() != want || args != want {
        return Err(usage(
            ErrorCode::Arity,
            format!("{op} expects {want} operand slot(s); the spec has {} and {args} operand(s) were given", spec.rhs.len()),
        ));
    }
    Ok(())
}
