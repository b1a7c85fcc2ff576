//! Declaring leaf tensors from shape strings (parsed once per text).

use std::sync::Arc;

use smallvec::SmallVec;

use super::events::Event;
use super::{DeclaredShape, Graph, TensorEntry};
use crate::code::ErrorCode;
use crate::ids::TensorId;
use crate::infer::error::{InferError, ShapeError};
use crate::infer::solve::store::ShapeRef;
use crate::shape::{
    parse_shape_string, pushed, Basis, Dim, Dims, Row, Shape, ShapeText, Solved, TextAxis,
};
use crate::spec::ast::RowKind;

impl Graph {
    /// Declares a leaf tensor from a shape string (`2|4->3`, `rgb=3`, `1!`, `...`, `..name..`;
    /// see the [case format](crate::check::format#shared-notations)); `None` means nothing is
    /// known (three open rows). A parameter's unknowns are fixed only by the operations it
    /// takes part in.
    pub fn declare(
        &mut self,
        name: &str,
        shape: Option<&str>,
        param: bool,
    ) -> Result<TensorId, InferError> {
        // `open`: whether the shape has a row variable. One without holds only sizes, and
        // solving has nothing to close in it.
        let (shape, text, open) = match shape {
            None => (ShapeRef::Fresh(self.solver.env.new_rows3()), None, true),
            Some(text) => {
                let declared = match self.shape_texts.get(text) {
                    Some(d) => d.clone(),
                    None => {
                        let parsed = parse_shape_string(text).map_err(|e| {
                            // The span points into the shape text, which the error carries.
                            InferError::Shape(Box::new(ShapeError {
                                code: ErrorCode::Syntax,
                                message: format!("tensor `{name}`: {e}"),
                                step: None,
                                tensors: Vec::new(),
                                spans: vec![e.span],
                                chain: Vec::new(),
                                spec: Some(text.to_string()),
                                statement: None,
                                conflict: None,
                                ranks: None,
                                unknown: None,
                                failed_step: None,
                            }))
                        })?;
                        let text: Arc<str> = text.into();
                        let d = Arc::new(DeclaredShape { text: text.clone(), parsed });
                        self.shape_texts.insert(text, d.clone());
                        d
                    }
                };
                let shape = self.shape_from_text(&declared.parsed);
                let open = RowKind::ALL.iter().any(|k| shape.row(*k).var.is_some());
                (ShapeRef::store(&shape, &mut self.solver.env.store), Some(declared), open)
            }
        };
        let name = super::core::name_id(&mut self.names, name.into());
        let t = self.add_tensor(TensorEntry { name, shape, leaf: true, param });
        self.events.push(Event::Declare(t, text));
        if open {
            self.declared.push(t);
        }
        Ok(t)
    }

    fn shape_from_text(&mut self, t: &ShapeText) -> Shape {
        let mut vars: SmallVec<[(&str, crate::ids::RowVar); 3]> = SmallVec::new();
        let mut shape = Shape::default();
        for kind in RowKind::ALL {
            let row = t.row(kind);
            let beg: Dims = pushed(row.beg.iter().map(|a| self.text_dim(a)));
            let dims: Dims = pushed(row.dims.iter().map(|a| self.text_dim(a)));
            let var = row.var.as_ref().map(|n| match vars.iter().find(|(m, _)| *m == n.as_str()) {
                Some((_, v)) => *v,
                None => {
                    let v = self.solver.env.new_row();
                    vars.push((n.as_str(), v));
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
}
