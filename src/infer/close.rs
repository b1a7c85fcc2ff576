//! Closing the world after the operations are in (stages 2–7): leaf rows and dims close
//! *down* to their caps, unconstrained leaf rows close empty and dims to the broadcast top,
//! interior ones close *up*; parameters are never guessed.

use super::constraint::Constraint;
use super::error::InferError;
use super::solver::Solver;
use crate::code::ErrorCode;
use crate::ids::{DimVar, RowVar, TensorId};
use crate::shape::{Dim, Row, Shape, Solved};

/// A tensor whose shape takes part in closing.
pub struct Closing<'a> {
    /// The tensor.
    pub id: TensorId,
    /// Its name, for messages.
    pub name: &'a str,
    /// Its shape (possibly with variables).
    pub shape: &'a Shape,
    /// Whether it is a leaf (its unknowns close downward).
    pub leaf: bool,
    /// Whether it is a parameter (its unknowns are never guessed).
    pub param: bool,
}

impl Solver {
    /// The unbound variables of a shape, in memory order, without repeats.
    fn vars_of(&mut self, shape: &Shape) -> (Vec<DimVar>, Vec<RowVar>) {
        let (mut dims, mut rows) = (Vec::new(), Vec::new());
        for row in [&shape.batch, &shape.output, &shape.input] {
            let r = self.env.row(row);
            for d in r.all() {
                d.for_each_var(&mut |v| {
                    if !dims.contains(&v) {
                        dims.push(v)
                    }
                });
            }
            if let Some(v) = r.var {
                if !rows.contains(&v) {
                    rows.push(v);
                }
            }
        }
        (dims, rows)
    }

    /// Runs stages 2 to 7 over the given tensors; afterwards their shapes hold no variables.
    pub fn finish(&mut self, tensors: &[Closing]) -> Result<(), InferError> {
        let result = self.finish_stages(tensors);
        self.stage = 1;
        result
    }

    fn finish_stages(&mut self, tensors: &[Closing]) -> Result<(), InferError> {
        self.stage = 2;
        self.collapse_single_links();
        self.run()?;
        self.stage = 3;
        for t in tensors.iter().filter(|t| t.leaf) {
            for v in self.vars_of(t.shape).1 {
                self.decide(|s| s.close_row_to_cap(v), |s| s.close_row_to_top_cap(v))?;
            }
        }
        self.run()?;
        self.stage = 4;
        for t in tensors.iter().filter(|t| t.leaf) {
            self.close_leaf_stage4(t)?;
        }
        self.run()?;
        self.stage = 5;
        for t in tensors.iter().filter(|t| t.leaf) {
            self.guess_leaf_dims(t)?;
        }
        self.run()?;
        self.stage = 6;
        let deferred = self.take_deferred();
        self.requeue(deferred);
        self.run()?;
        for t in tensors {
            for v in self.vars_of(t.shape).1 {
                self.close_row_to_cap(v)?;
            }
        }
        self.run()?;
        self.stage = 7;
        for t in tensors {
            self.close_all(t)?;
            self.run()?;
        }
        if self.has_deferred() {
            let msg = "some constraints could not be decided (not enough shape information)";
            return Err(self.error(ErrorCode::Unresolved, msg.into()));
        }
        Ok(())
    }

    /// Stage 2: a variable whose only upper neighbour has it as only lower neighbour, neither
    /// with a cap, is equal to it.
    fn collapse_single_links(&mut self) {
        for i in 0..self.env.dim_count() {
            let x = DimVar::from_index(i);
            if self.env.dim_root(x) != x || self.env.dim_bound(x) {
                continue;
            }
            let info = &self.env.dim_info[i];
            if let ([y], None) = (info.upper.as_slice(), &info.cap) {
                let y = *y;
                let yi = &self.env.dim_info[y.index()];
                if yi.lower.as_slice() == [x] && yi.cap.is_none() {
                    self.push(Constraint::DimEq(Dim::Var(x), Dim::Var(y)));
                }
            }
        }
        for i in 0..self.env.row_count() {
            let x = RowVar::from_index(i);
            if self.env.row_root(x) != x || self.env.row_bound(x) {
                continue;
            }
            let info = &self.env.row_info[i];
            if let ([y], true) = (info.upper.as_slice(), info.caps.is_empty()) {
                let y = *y;
                let yi = &self.env.row_info[y.index()];
                if yi.lower.as_slice() == [x] && yi.caps.is_empty() {
                    self.push(Constraint::RowEq(Row::open(x), Row::open(y)));
                }
            }
        }
    }

    fn close_row_to_cap(&mut self, v: RowVar) -> Result<(), InferError> {
        let v = self.env.row_root(v);
        if self.env.row_bound(v) {
            return Ok(());
        }
        if let Some(cap) = self.env.row_info[v.index()].caps.first().cloned() {
            self.bind_row_var(v, cap)?;
        }
        Ok(())
    }

    /// Stage 4: leaf dims with a cap take it; leaf rows with nothing known close empty.
    fn close_leaf_stage4(&mut self, t: &Closing) -> Result<(), InferError> {
        let (dims, rows) = self.vars_of(t.shape);
        for v in dims {
            if let (false, Some(cap)) =
                (self.env.dim_bound(v), self.env.dim_info[v.index()].cap.clone())
            {
                self.push(Constraint::DimEq(Dim::Var(v), cap));
            }
        }
        for v in rows {
            if self.env.row_bound(v) || !self.env.row_info[v.index()].caps.is_empty() {
                continue;
            }
            let info = &self.env.row_info[v.index()];
            if t.param && info.used_in_spec && !info.safe_to_guess {
                let msg = format!(
                    "the parameter `{}` has a row of unknown axes that no operation determines: \
                     declare it, or use the parameter where its axes are fixed",
                    t.name
                );
                return Err(self.unresolved(msg, t.id));
            }
            self.bind_row_var(v, Row::empty())?;
        }
        Ok(())
    }

    /// Stage 5: unconstrained leaf dims become the broadcast top (size 0 if discardable);
    /// a parameter's are an error.
    fn guess_leaf_dims(&mut self, t: &Closing) -> Result<(), InferError> {
        for v in self.vars_of(t.shape).0 {
            let info = &self.env.dim_info[v.index()];
            if info.cap.is_some() || info.at_least > 0 {
                continue;
            }
            if t.param {
                return Err(self.forgot_hidden_dim(t, v));
            }
            let guess = if info.discardable { Dim::size(0) } else { Dim::top() };
            self.push(Constraint::DimEq(Dim::Var(v), guess));
        }
        Ok(())
    }

    fn forgot_hidden_dim(&mut self, t: &Closing, v: DimVar) -> InferError {
        let msg = format!(
            "the parameter `{}` has a dimension `{}` that no operation determines \
             (a hidden dimension to specify)",
            t.name,
            self.var_name(v)
        );
        self.unresolved(msg, t.id)
    }

    fn unresolved(&self, msg: String, tensor: TensorId) -> InferError {
        let mut e = InferError::shape(ErrorCode::Unresolved, msg);
        if let InferError::Shape(s) = &mut e {
            s.tensors.push(tensor);
        }
        e
    }

    /// Stage 7: every remaining dim takes its cap (checked against fixed-index bounds), its
    /// lower bound, or the broadcast top; every remaining row closes empty.
    fn close_all(&mut self, t: &Closing) -> Result<(), InferError> {
        let (dims, rows) = self.vars_of(t.shape);
        for v in dims {
            if self.env.dim_bound(v) {
                continue;
            }
            if t.param {
                return Err(self.forgot_hidden_dim(t, v));
            }
            let value = self.closing_value(v)?;
            self.push(Constraint::DimEq(Dim::Var(v), value));
            self.run()?;
        }
        for v in rows {
            if !self.env.row_bound(v) {
                self.bind_row_var(v, Row::empty())?;
                self.run()?;
            }
        }
        Ok(())
    }

    fn closing_value(&mut self, v: DimVar) -> Result<Dim, InferError> {
        let info = &self.env.dim_info[v.index()];
        let (at_least, discardable) = (info.at_least, info.discardable);
        match info.cap.clone().map(|c| self.env.dim(&c)) {
            Some(Dim::Solved(cap)) if at_least > cap.size => {
                let msg = format!(
                    "index {} is used where the dimension has size {}",
                    at_least - 1,
                    cap.size
                );
                Err(self.error(ErrorCode::Bounds, msg))
            }
            Some(_) if at_least == 1 => Ok(Dim::top()),
            Some(cap) => Ok(cap),
            None if at_least > 0 => Ok(Dim::Solved(Solved::new(at_least))),
            None if discardable => Ok(Dim::size(0)),
            None => Ok(Dim::top()),
        }
    }
}
