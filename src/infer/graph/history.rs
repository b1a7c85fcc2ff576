//! Texts the graph keeps only in its record of events: each leaf's declared shape string (a
//! typed declaration's written as one) and each numpy step's subscripts, for explaining errors.

use std::collections::HashMap;
use std::sync::Arc;

use super::events::Event;
use super::Graph;
use crate::ids::{StepId, TensorId};

/// The declared shape strings and numpy subscripts of a graph.
#[derive(Clone, Debug, Default)]
pub struct RecordedTexts {
    /// Each leaf declared with a shape string, with it; a typed declaration with its shape
    /// written as one.
    pub declared: HashMap<TensorId, Arc<str>>,
    /// Each numpy step, with its subscripts.
    pub numpy: HashMap<StepId, String>,
}

impl Graph {
    /// The declared shape strings and numpy subscripts, read from the graph's record (one pass
    /// over it; explaining an error calls this once).
    pub fn recorded_texts(&self) -> RecordedTexts {
        let mut out = RecordedTexts::default();
        for e in &self.events {
            match e {
                Event::Declare(t, Some(d)) => {
                    out.declared.insert(*t, d.text.clone());
                }
                Event::Typed(t, shape) => {
                    out.declared.insert(*t, Arc::from(shape.to_string()));
                }
                Event::Step(s, Some(extra)) => {
                    if let Some(np) = &extra.numpy {
                        out.numpy.insert(*s, np.clone());
                    }
                }
                _ => {}
            }
        }
        out
    }
}
