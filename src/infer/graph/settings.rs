//! Settings of handles: [`Graph::set_dim`] and [`Graph::set_equal`] (OCANNL's), each a
//! constraint whose origin is the step the handle was captured from, undone when it
//! contradicts the graph; and the notes that name them in the errors of later steps.

use super::events::Event;
use super::handles::{HandleEntry, Target};
use super::steps::usage;
use super::{Graph, Handle};
use crate::code::{Coded, ErrorCode};
use crate::ids::{DimVar, RowVar, TensorId};
use crate::infer::error::InferError;
use crate::infer::solve::constraint::{Constraint, Count, Origin, Part};
use crate::infer::solve::store::ShapeRef;
use crate::shape::{Dim, Row};
use crate::spec::lexer::MAX_INT;

/// The constraint a setting adds.
enum Setting {
    /// A constraint ready to queue.
    Eq(Constraint),
    /// The elements of a row variable's axes number this many.
    Total(RowVar, u64),
}

impl Graph {
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
        self.setting(Event::SetDim(self.handle_index(h), n), &e, &what, setting)
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
        self.setting(
            Event::SetEqual(self.handle_index(a), self.handle_index(b)),
            &ea,
            &what,
            setting,
        )
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
            Setting::Total(v, n) => Constraint::TotalElems(self.row_shape(v), Count(n)),
        };
        self.solver.push_with(c, origin);
        let result = self.solver.run();
        let Err(err) = result else { return Ok(()) };
        let err = self.named(err);
        self.roll_back_to(events);
        Err(with_setting(err, e, what))
    }

    /// Three stored rows, `[v]`, empty, empty: a shape whose elements are those of `v`.
    fn row_shape(&mut self, v: RowVar) -> ShapeRef {
        let (open, empty) = (Row::open(v), Row::empty());
        ShapeRef::store_rows([&open, &empty, &empty], &mut self.solver.env.store)
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

/// A [`Graph::set_dim`] as an explanation reads it: which handle, where it was captured, the
/// size it set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SetDimRecord {
    /// The handle's name (a label, a row variable, `x.batch` for a leaf's row).
    pub name: crate::spec::ast::Name,
    /// The size set.
    pub size: u64,
    /// Where the handle came from.
    pub at: SetDimAt,
}

/// Where a set handle came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SetDimAt {
    /// A label (`row` false) or row variable captured from a step's spec.
    Step(crate::ids::StepId, bool),
    /// A leaf's declared row variable ([`Graph::row_of`]).
    Leaf(TensorId, crate::spec::ast::RowKind),
    /// A row variable made on its own ([`Graph::row_var`]).
    Free,
}

impl Graph {
    /// Every `set_dim` that holds in the graph, in order. Read only to explain an error.
    /// The sizes `set_dim` gave, in order.
    pub(crate) fn set_dim_sizes(&self) -> impl Iterator<Item = u64> + '_ {
        self.events.iter().filter_map(|e| match e {
            Event::SetDim(_, n) => Some(*n),
            _ => None,
        })
    }

    pub(crate) fn set_dim_records(&self) -> Vec<SetDimRecord> {
        // Handles not captured from a step are made one per `RowVar`/`RowOf` event, in order.
        let mut free = self.events.iter().filter_map(|e| match e {
            Event::RowOf(t, k) => Some(SetDimAt::Leaf(*t, *k)),
            Event::RowVar(_) => Some(SetDimAt::Free),
            _ => None,
        });
        let places: Vec<SetDimAt> = self
            .handles
            .iter()
            .map(|h| match h.step {
                Some(s) => SetDimAt::Step(s, matches!(h.target, Target::Row(_))),
                None => free.next().unwrap_or(SetDimAt::Free),
            })
            .collect();
        let mut out = Vec::new();
        for e in &self.events {
            let Event::SetDim(h, n) = e else { continue };
            let (Some(entry), Some(at)) = (self.handles.get(*h as usize), places.get(*h as usize))
            else {
                continue;
            };
            out.push(SetDimRecord { name: entry.name.clone(), size: *n, at: *at });
        }
        out
    }
}
