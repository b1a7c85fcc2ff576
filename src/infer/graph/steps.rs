//! Adding operations to the graph: checking the arguments, parsing and lowering specs,
//! creating the result tensor, and propagating the step's constraints at once.

use smallvec::SmallVec;

use super::events::Event;
use super::{Graph, Step, StepSpec, TensorEntry};
use crate::code::ErrorCode;
use crate::ids::{StepId, TensorId};
use crate::infer::error::InferError;
use crate::infer::lower::elaborate::SpecEnv;
use crate::infer::lower::rules::StepShapes;
use crate::infer::op::OpKind;
use crate::infer::solve::store::ShapeRef;
use crate::shape::{Dim, Row};
use crate::spec::ast::{EinsumSpec, Name};
use crate::spec::parse_einsum;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// The hasher of the graph's caches of parsed spec and shape texts: short texts hashed with a
/// fast, randomly seeded hash (SipHash cost more than a cache hit saves on short specs).
pub(super) type TextHasher = foldhash::fast::RandomState;

/// Parsed specs by text: a program repeats a few specs many times. The first spec is kept
/// aside: a graph of one spec (eager use) needs neither hashing nor a table.
#[derive(Clone, Default)]
pub(super) struct SpecCache {
    first: Option<Arc<StepSpec>>,
    others: HashMap<Name, Arc<StepSpec>, TextHasher>,
}

impl SpecCache {
    fn get(&self, text: &str) -> Option<Arc<StepSpec>> {
        match &self.first {
            Some(s) if s.text == text => Some(s.clone()),
            _ if self.others.is_empty() => None,
            _ => self.others.get(text).cloned(),
        }
    }

    fn insert(&mut self, spec: Arc<StepSpec>) {
        match self.first {
            None => self.first = Some(spec),
            Some(_) => {
                self.others.insert(spec.text.clone(), spec);
            }
        }
    }
}

impl Graph {
    /// [`Graph::add_step`] with a name for the result (also when the step fails, so errors
    /// can name it).
    pub fn add_named_step(
        &mut self,
        name: &str,
        op: OpKind,
        args: &[TensorId],
        spec: Option<&str>,
    ) -> Result<TensorId, InferError> {
        self.next_name = Some(Name::new(name));
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
        let (given, id) = (self.next_name.clone(), self.tensors.len());
        let this = self.step_at(self.steps.len());
        let mut result = self.add_step_unchecked(op, args, spec);
        // An error blamed on an earlier step (a size that overflows there once this step
        // solves it) keeps that step's spec, which its spans point into.
        let elsewhere = |s: &crate::infer::ShapeError| s.step.is_some_and(|st| st != this);
        match &mut result {
            Err(InferError::Shape(s)) if !elsewhere(s) => {
                let name = given.as_ref().map_or_else(|| format!("t{id}"), |n| n.to_string());
                let names: Vec<Name> = args
                    .iter()
                    .filter(|a| a.index() < self.tensors.len())
                    .map(|a| self.name_or_id(*a))
                    .collect();
                let spec_part = spec.map(|t| format!(" \"{t}\"")).unwrap_or_default();
                s.statement = Some(format!("{name} = {op}{spec_part} {}", names.join(" ")));
                s.spec = spec.map(String::from);
                s.failed_step = Some((op, args.to_vec()));
                self.note_settings(s, args);
            }
            _ => {}
        }
        if let Err(e) = result {
            let given = given.as_ref().map(|n| (id, n.as_str()));
            result = Err(self.named_with(e, given));
        }
        if result.is_err() && self.events.len() > events {
            self.roll_back_to(events);
        }
        result
    }

    fn add_step_unchecked(
        &mut self,
        op: OpKind,
        args: &[TensorId],
        spec: Option<&str>,
    ) -> Result<TensorId, InferError> {
        let step = self.step_at(self.steps.len());
        self.check_args(op, args)?;
        self.solver.clear_scratch();
        let numpy_text = spec.filter(|_| op == OpKind::Numpy).map(String::from);
        let extra = self.step_extra(numpy_text);
        self.events.push(Event::Step(step, extra));
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
        if let Some(p) = &parsed {
            check_spec_arity(op, &p.parsed, args.len())?;
        }
        // A step that captures names keeps its variables: it goes through the solver.
        let direct = match &parsed {
            Some(p) if self.capture.is_none() => self.try_direct(op, p, args),
            _ => None,
        };
        let (out, labels) = match (direct, &parsed) {
            // Operands and result are solved: solving has nothing to close in them.
            (Some((shape, labels)), _) => (self.add_result(shape), labels),
            (None, Some(p)) => {
                let (out, env) =
                    self.lower_spec_step(step, op, &p.parsed, &self.arg_shapes(args))?;
                self.touch_all(args, out);
                if self.capture.is_some() {
                    self.captured_rows = env.row_labels().iter().cloned().collect();
                }
                let labels = env.labels().iter().map(|(n, v)| (n, Dim::Var(*v)));
                (out, self.push_labels(p, labels))
            }
            (None, None) => {
                let shapes = self.arg_shapes(args);
                let out = self.lower_plain_step(step, op, &shapes, numpy.as_ref())?;
                self.touch_all(args, out);
                (out, (0, 0))
            }
        };
        self.steps.push(Step { op, out, args: SmallVec::from_slice(args), spec: parsed, labels });
        if let (OpKind::Numpy, Some(text)) = (op, spec) {
            self.numpy_texts.push((step.index() as u32, Arc::from(text)));
        }
        self.solver.run()?;
        self.check_stored(step)?;
        Ok(out)
    }

    /// Sets the most variables and stored axes the graph may hold ([`MAX_GRAPH_AXES`] unless
    /// set): the step that takes it past the limit fails with a `resource` error (and is not
    /// added). A step's result can be as wide as its operands whatever the length of its
    /// text, so without a bound a short program (a wide leaf read by many steps) needs memory
    /// of its rank times its steps.
    ///
    /// ```
    /// use einrow::infer::{Graph, OpKind};
    /// use einrow::ErrorCode;
    /// let mut g = Graph::new();
    /// g.set_axis_limit(100);
    /// let x = g.declare("x", Some("2,2,2,2,2,2,2,2,2,2"), false)?;
    /// let mut t = x;
    /// let e = loop {
    ///     match g.add_step(OpKind::Pointwise, &[t, x], None) {
    ///         Ok(next) => t = next,
    ///         Err(e) => break e,
    ///     }
    /// };
    /// assert_eq!(einrow::Coded::code(&e), ErrorCode::Resource);
    /// assert!(g.steps().len() < 10);
    /// # Ok::<(), einrow::infer::InferError>(())
    /// ```
    pub fn set_axis_limit(&mut self, limit: usize) {
        self.axis_limit = limit;
    }

    /// The most variables and stored axes the graph may hold (see [`Graph::set_axis_limit`]).
    pub fn axis_limit(&self) -> usize {
        self.axis_limit
    }

    /// A `resource` error once the graph holds more than its axis limit.
    fn check_stored(&self, step: StepId) -> Result<(), InferError> {
        let env = &self.solver.env;
        let held = env.dim_count() + env.row_count() + env.store.dim_len();
        let limit = self.axis_limit;
        if held <= limit {
            return Ok(());
        }
        let message = format!(
            "shape inference stopped: the program's shapes hold more than {limit} axes and \
             variables in all (a guard on memory; split the program, or give its wide tensors \
             fewer axes)"
        );
        Err(with_step(InferError::shape(ErrorCode::Resource, message), step))
    }

    /// Marks a step's operands and result for closing at the next solve.
    fn touch_all(&mut self, args: &[TensorId], out: TensorId) {
        for a in args {
            self.touch(*a);
        }
        self.touch(out);
    }

    /// The operands with where their unsubstituted shapes live, for lowering.
    fn arg_shapes(&self, args: &[TensorId]) -> SmallVec<[(TensorId, ShapeRef); 3]> {
        crate::shape::pushed(args.iter().map(|a| (*a, self.tensors[a.index()].shape)))
    }

    /// Adds the result of a spec operation and its constraints: the result's rows are the
    /// result slot's rows.
    fn lower_spec_step(
        &mut self,
        step: StepId,
        op: OpKind,
        spec: &EinsumSpec,
        args: &[(TensorId, ShapeRef)],
    ) -> Result<(TensorId, SpecEnv), InferError> {
        let mut env = SpecEnv::default();
        let mut lhs: [Row; 3] = Default::default();
        match self.solver.lower_spec(step, args, (op, spec), (&mut env, &mut lhs)) {
            Ok(()) => {
                let stored = ShapeRef::store_rows(lhs.each_ref(), &mut self.solver.env.store);
                let out = self.add_result(stored);
                Ok((out, env))
            }
            Err(e) => {
                // The result exists, with nothing known about it.
                let fresh = ShapeRef::Fresh(self.solver.env.new_rows3());
                self.add_result(fresh);
                Err(with_step(e, step))
            }
        }
    }

    /// Adds the result of an operation without a spec and its constraints.
    fn lower_plain_step(
        &mut self,
        step: StepId,
        op: OpKind,
        args: &[(TensorId, ShapeRef)],
        numpy: Option<&crate::spec::ast::NumpySpec>,
    ) -> Result<TensorId, InferError> {
        let out_ref = match (op, args.first()) {
            (OpKind::Pointwise, Some(&(_, first))) => self.solver.pointwise_result(first),
            _ => ShapeRef::Fresh(self.solver.env.new_rows3()),
        };
        let out = self.add_result(out_ref);
        let s = StepShapes { step, out: (out, out_ref), args };
        match op {
            OpKind::Pointwise => self.solver.lower_pointwise(&s),
            OpKind::Compose => self.solver.lower_compose(&s),
            OpKind::Transpose => self.solver.lower_transpose(&s),
            OpKind::BatchSlice => self.solver.lower_batch_slice(&s),
            OpKind::Numpy => match numpy {
                Some(np) => self.solver.lower_numpy(&s, np).map_err(|e| with_step(e, step))?,
                None => return Err(usage(ErrorCode::Syntax, "numpy needs subscripts".into())),
            },
            // Spec operations always come with a parsed spec (checked by `add_step`).
            OpKind::Permute | OpKind::Einsum | OpKind::Einsum3 | OpKind::Concat => {}
        }
        Ok(out)
    }

    /// Adds the result tensor of a step, named as asked or after its id.
    fn add_result(&mut self, shape: ShapeRef) -> TensorId {
        let name = self.next_name.take().map(|n| super::core::name_id(&mut self.names, n));
        self.add_tensor(TensorEntry::result(name, shape))
    }

    /// Parses a spec, or finds it parsed already.
    fn parse_spec(&mut self, text: &str, step: StepId) -> Result<Arc<StepSpec>, InferError> {
        if let Some(found) = self.specs.get(text) {
            return Ok(found);
        }
        let parsed = parse_einsum(text).map_err(|error| InferError::Spec {
            step,
            spec: text.to_string(),
            error,
        })?;
        let spec = Arc::new(StepSpec { text: Name::new(text), parsed, labels: OnceLock::new() });
        self.specs.insert(spec.clone());
        Ok(spec)
    }

    fn check_args(&self, op: OpKind, args: &[TensorId]) -> Result<(), InferError> {
        for &a in args {
            self.check_tensor(a)?;
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
}

/// The most variables and stored axes a [`Graph`] holds unless [`Graph::set_axis_limit`]
/// says otherwise (each takes 8 to 16 bytes in the solver's tables, about 1 GiB in all): a
/// step past it fails with a `resource` error. Programs of a million operations hold a few
/// per operation.
pub const MAX_GRAPH_AXES: usize = 1 << 26;

pub(super) fn usage(code: ErrorCode, message: String) -> InferError {
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
