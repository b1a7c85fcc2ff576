//! The labels of spec steps: their names once per spec ([`StepSpec::labels`]), their dims per
//! step in one table of the graph.

use smallvec::SmallVec;

use super::{Graph, Step, StepSpec};
use crate::ids::StepId;
use crate::infer::error::InferError;
use crate::shape::Dim;
use crate::spec::ast::{same_name, Name};

/// A spec step's labels with their dims: a variable, or the size itself when the step was
/// evaluated directly (its operands were solved). Empty for other steps.
#[derive(Clone, Copy, Debug, Default)]
pub struct StepLabels<'g> {
    names: &'g [Name],
    dims: &'g [Dim],
}

impl<'g> StepLabels<'g> {
    /// The labels' names, in the order elaboration makes their variables.
    pub fn names(self) -> &'g [Name] {
        self.names
    }

    /// The labels' dims, in the order of [`StepLabels::names`].
    pub fn dims(self) -> &'g [Dim] {
        self.dims
    }

    /// Each label with its dim.
    pub fn iter(self) -> impl Iterator<Item = (&'g Name, Dim)> {
        self.names.iter().zip(self.dims.iter().copied())
    }

    /// The position of a label.
    pub fn position(self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| same_name(n, name))
    }

    /// The dim of a label.
    pub fn get(self, name: &str) -> Option<Dim> {
        self.position(name).and_then(|i| self.dims.get(i).copied())
    }

    /// The number of labels.
    pub fn len(self) -> usize {
        self.dims.len()
    }

    /// Whether there are none.
    pub fn is_empty(self) -> bool {
        self.dims.is_empty()
    }
}

impl Graph {
    /// A spec step's labels and their dims, for projections (empty for other steps). Errors
    /// (`name`): an id of another graph, or past this graph's steps.
    ///
    /// ```
    /// use einrow::infer::Graph;
    /// let mut g = Graph::new();
    /// let a = g.declare("a", Some("2,3"), false)?;
    /// let b = g.declare("b", Some("3,4"), false)?;
    /// let c = g.einsum("ij;jk=>ik", &[a, b])?;
    /// let labels = g.step_labels(g.producer(c)?.expect("a result"))?;
    /// let names: Vec<&str> = labels.names().iter().map(|n| n.as_str()).collect();
    /// assert_eq!(names, ["i", "k", "j"]);
    /// let j = labels.get("j").and_then(|d| d.solved()).map(|s| s.size);
    /// assert_eq!(j, Some(3));
    /// # Ok::<(), einrow::infer::InferError>(())
    /// ```
    pub fn step_labels(&self, s: StepId) -> Result<StepLabels<'_>, InferError> {
        let i = self.check_step(s)?;
        Ok(self.labels_of(i))
    }

    /// [`Graph::step_labels`] of step `i` of this graph.
    pub(crate) fn labels_of(&self, i: usize) -> StepLabels<'_> {
        let Some(Step { spec: Some(spec), .. }) = self.steps.get(i) else {
            return StepLabels::default();
        };
        let (names, dims) = (spec.labels(), self.step_label_dims(self.step_at(i)));
        // Equally long for every step that succeeded; cut to the shorter one in any case.
        let n = names.len().min(dims.len());
        StepLabels { names: &names[..n], dims: &dims[..n] }
    }

    /// The dims of a step's labels ([`StepLabels::dims`]), read without the names.
    pub(crate) fn step_label_dims(&self, s: StepId) -> &[Dim] {
        let Some(&Step { labels: (start, len), .. }) = self.steps.get(s.index()) else {
            return &[];
        };
        let (start, len) = (start as usize, len as usize);
        self.labels.get(start..start + len).unwrap_or_default()
    }

    /// Appends the dims of a step's labels to the table of label dims; returns where they
    /// are. The first step of a spec sets the spec's names; every later one lists the same
    /// names in the same order.
    pub(super) fn push_labels<'n>(
        &mut self,
        spec: &StepSpec,
        labels: impl IntoIterator<Item = (&'n Name, Dim)>,
    ) -> (u32, u32) {
        let start = self.labels.len();
        let known = spec.labels.get();
        let mut names: SmallVec<[Name; 4]> = SmallVec::new();
        for (i, (name, dim)) in labels.into_iter().enumerate() {
            match known {
                Some(k) => debug_assert!(k.get(i) == Some(name), "label order of `{}`", spec.text),
                None => names.push(name.clone()),
            }
            self.labels.push(dim);
        }
        debug_assert!(
            known.is_none_or(|k| k.len() == self.labels.len() - start),
            "label count of `{}`",
            spec.text
        );
        if known.is_none() {
            // Unset a moment ago, and only this graph's steps hold this spec (a replay parses
            // its own): `set` cannot fail, and if it did, it would hold these same names.
            let _ = spec.labels.set(names);
        }
        let len = self.labels.len() - start;
        (u32::try_from(start).unwrap_or(u32::MAX), u32::try_from(len).unwrap_or(0))
    }
}
