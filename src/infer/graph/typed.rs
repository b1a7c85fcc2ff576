//! The typed way to declare leaves and read shapes: [`ShapeBuilder`] (sizes and row variables,
//! no text), [`Leaf`] (what a leaf is), [`TensorSizes`] (solved sizes with named rows) and
//! [`Graph::producer`] (the step that made a tensor).
//!
//! Sizes are `u64` throughout the graph, its plans and its schemes: sizes are checked against
//! 2^62, which a 32-bit `usize` cannot hold, and a plan describes a computation before any
//! memory exists. Rows are always named (`batch`, `input`, `output`); where sizes are listed
//! flat, the order is memory order: batch, then output, then input.

use smallvec::SmallVec;

use super::events::Event;
use super::handles::HandleKind;
use super::steps::usage;
use super::{Graph, Handle, TensorEntry};
use crate::code::ErrorCode;
use crate::ids::{RowVar, StepId, TensorId};
use crate::infer::error::InferError;
use crate::infer::solve::store::ShapeRef;
use crate::shape::{Dim, Dims, Row, Shape, Solved};
use crate::spec::ast::RowKind;
use crate::spec::lexer::MAX_INT;

/// What a declared tensor is.
///
/// `Serialize` and `Deserialize` with the `serde` feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Leaf {
    /// Data given to the program (an input, a label, a mask): unknown rows close to what
    /// the operations need, or to none.
    Input,
    /// A learned parameter: its unknowns are fixed only by the operations it takes part in,
    /// never guessed (an axis nothing determines is an `unresolved` error).
    Parameter,
}

/// One item of a row being built: a size, the broadcast axis, or a row variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item {
    Size(u64),
    Top,
    Var(Handle),
    Open,
}

/// A tensor's shape, built from sizes and row variables: the typed form of a shape string
/// (`2|4->3`, `...,8|32`). Each row lists its items in order; at most one of them is a row
/// variable, which the items before it lead and the items after it trail.
///
/// ```
/// use einrow::infer::{Graph, Leaf, ShapeBuilder};
///
/// let mut g = Graph::new();
/// let batch = g.row_var("batch");
/// // `..batch.., 8 | 32`: any number of batch axes, then a sequence axis of 8; 32 features.
/// let x = g.declare_leaf("x", Leaf::Input, &ShapeBuilder::new().batch_var(batch).batch([8]).output([32]))?;
/// // A parameter whose input row is left to inference: `...->128`.
/// let w = g.declare_leaf("w", Leaf::Parameter, &ShapeBuilder::new().input_open().output([128]))?;
/// let h = g.compose(w, x)?;
/// g.solve()?;
/// assert_eq!(g.sizes(w)?.input, [32]);
/// assert_eq!(g.sizes(h)?.batch, [8]);
/// # Ok::<(), einrow::infer::InferError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShapeBuilder {
    /// Items per row, in [`RowKind::ALL`] order.
    rows: [SmallVec<[Item; 4]>; 3],
}

impl ShapeBuilder {
    /// A shape with three closed, empty rows (a scalar); add axes with the row methods.
    pub fn new() -> ShapeBuilder {
        ShapeBuilder::default()
    }

    /// A shape nothing is known about: three open rows (a declaration without a shape).
    pub fn unknown() -> ShapeBuilder {
        ShapeBuilder::new().batch_open().input_open().output_open()
    }

    /// A plain n-dimensional array: one output row of these sizes.
    pub fn array(sizes: impl IntoIterator<Item = u64>) -> ShapeBuilder {
        ShapeBuilder::new().output(sizes)
    }

    /// Appends axes of these sizes to a row.
    pub fn sizes(mut self, kind: RowKind, sizes: impl IntoIterator<Item = u64>) -> ShapeBuilder {
        self.rows[kind.index()].extend(sizes.into_iter().map(Item::Size));
        self
    }

    /// Appends a broadcast axis (`1!`: size 1, broadcasting against any size) to a row.
    pub fn top(mut self, kind: RowKind) -> ShapeBuilder {
        self.rows[kind.index()].push(Item::Top);
        self
    }

    /// Places a row variable made by [`Graph::row_var`] (or [`Graph::row_of`]) in a row:
    /// every tensor declared with it shares those axes.
    pub fn var(mut self, kind: RowKind, row: Handle) -> ShapeBuilder {
        self.rows[kind.index()].push(Item::Var(row));
        self
    }

    /// Places a fresh row variable of its own in a row (`...` in a shape string): axes this
    /// tensor alone has, sized by inference.
    pub fn open(mut self, kind: RowKind) -> ShapeBuilder {
        self.rows[kind.index()].push(Item::Open);
        self
    }

    /// Appends batch axes.
    pub fn batch(self, sizes: impl IntoIterator<Item = u64>) -> ShapeBuilder {
        self.sizes(RowKind::Batch, sizes)
    }

    /// Appends input axes.
    pub fn input(self, sizes: impl IntoIterator<Item = u64>) -> ShapeBuilder {
        self.sizes(RowKind::Input, sizes)
    }

    /// Appends output axes.
    pub fn output(self, sizes: impl IntoIterator<Item = u64>) -> ShapeBuilder {
        self.sizes(RowKind::Output, sizes)
    }

    /// Places a shared row variable in the batch row.
    pub fn batch_var(self, row: Handle) -> ShapeBuilder {
        self.var(RowKind::Batch, row)
    }

    /// Places a shared row variable in the input row.
    pub fn input_var(self, row: Handle) -> ShapeBuilder {
        self.var(RowKind::Input, row)
    }

    /// Places a shared row variable in the output row.
    pub fn output_var(self, row: Handle) -> ShapeBuilder {
        self.var(RowKind::Output, row)
    }

    /// Opens the batch row (`...|`).
    pub fn batch_open(self) -> ShapeBuilder {
        self.open(RowKind::Batch)
    }

    /// Opens the input row (`...->`).
    pub fn input_open(self) -> ShapeBuilder {
        self.open(RowKind::Input)
    }

    /// Opens the output row.
    pub fn output_open(self) -> ShapeBuilder {
        self.open(RowKind::Output)
    }
}

/// The shape as a shape string (`...,8|32`); a row variable, shared or not, shows as `...`.
///
/// ```
/// use einrow::infer::ShapeBuilder;
/// let s = ShapeBuilder::new().batch_open().batch([8]).input([4]).output([32]);
/// assert_eq!(s.to_string(), "...,8|4->32");
/// ```
impl std::fmt::Display for ShapeBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let row = |items: &SmallVec<[Item; 4]>| {
            let shown: Vec<String> = items
                .iter()
                .map(|item| match item {
                    Item::Size(n) => n.to_string(),
                    Item::Top => "1!".to_string(),
                    Item::Var(_) | Item::Open => "...".to_string(),
                })
                .collect();
            shown.join(",")
        };
        let [b, i, o] = &self.rows;
        f.write_str(&crate::shape::rows_text(&row(b), &row(i), &row(o)))
    }
}

/// A tensor's solved sizes, row by row. The memory layout of a tensor is row-major over
/// batch, then output, then input axes ([`TensorSizes::memory_order`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TensorSizes {
    /// The batch axes.
    pub batch: Vec<u64>,
    /// The input axes.
    pub input: Vec<u64>,
    /// The output axes.
    pub output: Vec<u64>,
}

impl TensorSizes {
    /// The row of a kind.
    pub fn row(&self, kind: RowKind) -> &[u64] {
        match kind {
            RowKind::Batch => &self.batch,
            RowKind::Input => &self.input,
            RowKind::Output => &self.output,
        }
    }

    /// Every size in memory order: batch, output, input.
    pub fn memory_order(&self) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.rank());
        for kind in RowKind::MEMORY_ORDER {
            out.extend_from_slice(self.row(kind));
        }
        out
    }

    /// The number of axes.
    pub fn rank(&self) -> usize {
        self.batch.len() + self.input.len() + self.output.len()
    }

    /// The number of elements; `None` when it does not fit in a `u64`.
    pub fn numel(&self) -> Option<u64> {
        RowKind::ALL.iter().flat_map(|k| self.row(*k)).try_fold(1u64, |n, &s| n.checked_mul(s))
    }
}

impl Graph {
    /// Declares a leaf tensor from a typed shape: the typed form of [`Graph::declare`].
    /// Errors (coded, nothing declared): a size above 2^62 (`value`), two row variables in
    /// one row (`syntax`), a handle of another graph or a dimension handle used as a row
    /// (`label`).
    ///
    /// ```
    /// use einrow::infer::{Graph, Leaf, ShapeBuilder};
    /// let mut g = Graph::new();
    /// // `2|3`, and a bias whose output row inference sizes (`...`).
    /// let x = g.declare_leaf("x", Leaf::Input, &ShapeBuilder::new().batch([2]).output([3]))?;
    /// let b = g.declare_leaf("b", Leaf::Parameter, &ShapeBuilder::new().output_open())?;
    /// let y = g.pointwise(&[x, b])?;
    /// g.solve()?;
    /// assert_eq!((g.shape_string(b)?, g.shape_string(y)?), ("3".into(), "2|3".into()));
    /// let err = g.declare_leaf("big", Leaf::Input, &ShapeBuilder::array([1 << 63])).unwrap_err();
    /// assert_eq!(einrow::Coded::code(&err), einrow::ErrorCode::Value);
    /// # Ok::<(), einrow::infer::InferError>(())
    /// ```
    pub fn declare_leaf(
        &mut self,
        name: &str,
        leaf: Leaf,
        shape: &ShapeBuilder,
    ) -> Result<TensorId, InferError> {
        let built = self.build_shape(name, shape)?;
        let open = RowKind::ALL.iter().any(|k| built.row(*k).var.is_some());
        let stored = ShapeRef::store(&built, &mut self.solver.env.store);
        let entry = TensorEntry {
            name: super::core::name_id(&mut self.names, name.into()),
            shape: stored,
            leaf: true,
            param: leaf == Leaf::Parameter,
        };
        let t = self.add_tensor(entry);
        self.events.push(Event::Typed(t, Box::new(shape.clone())));
        if open {
            self.declared.push(t);
        }
        Ok(t)
    }

    /// [`Graph::declare_leaf`] of an input.
    pub fn input(&mut self, name: &str, shape: &ShapeBuilder) -> Result<TensorId, InferError> {
        self.declare_leaf(name, Leaf::Input, shape)
    }

    /// [`Graph::declare_leaf`] of a parameter.
    pub fn parameter(&mut self, name: &str, shape: &ShapeBuilder) -> Result<TensorId, InferError> {
        self.declare_leaf(name, Leaf::Parameter, shape)
    }

    /// The solver's shape of a typed declaration (its fresh row variables made last, once
    /// every item is known to be valid).
    fn build_shape(&mut self, name: &str, shape: &ShapeBuilder) -> Result<Shape, InferError> {
        let mut vars: [Option<Option<RowVar>>; 3] = [None; 3];
        for (kind, items) in RowKind::ALL.into_iter().zip(&shape.rows) {
            for item in items {
                let var = match *item {
                    Item::Size(n) if n > MAX_INT => {
                        let msg = format!(
                            "tensor `{name}`: size {n} of its {} row is above the limit 2^62",
                            kind.name()
                        );
                        return Err(usage(ErrorCode::Value, msg));
                    }
                    Item::Size(_) | Item::Top => continue,
                    Item::Var(h) => Some(self.handle_var(h, HandleKind::Row)?.row()),
                    Item::Open => None,
                };
                if vars[kind.index()].is_some() {
                    let msg =
                        format!("tensor `{name}`: its {} row has two row variables", kind.name());
                    return Err(usage(ErrorCode::Syntax, msg));
                }
                vars[kind.index()] = Some(var);
            }
        }
        let mut out = Shape::default();
        for (kind, items) in RowKind::ALL.into_iter().zip(&shape.rows) {
            let var = vars[kind.index()].map(|v| v.unwrap_or_else(|| self.solver.env.new_row()));
            // Axes before the row variable lead it; a closed row is all trailing.
            let at = items.iter().position(|i| matches!(i, Item::Var(_) | Item::Open));
            let axis = |item: &Item| match *item {
                Item::Size(n) => Some(Dim::Solved(Solved::new(n))),
                Item::Top => Some(Dim::top()),
                Item::Var(_) | Item::Open => None,
            };
            let (lead, trail) = items.split_at(at.unwrap_or(0));
            let beg: Dims = lead.iter().filter_map(axis).collect();
            let dims: Dims = trail.iter().filter_map(axis).collect();
            *out.row_mut(kind) = Row { beg, var, dims };
        }
        Ok(out)
    }

    /// The solved sizes of a tensor, row by row; an error naming what is still unknown (or a
    /// `label` error for a tensor of another graph).
    ///
    /// ```
    /// use einrow::infer::{Graph, ShapeBuilder};
    /// let mut g = Graph::new();
    /// let x = g.input("x", &ShapeBuilder::new().batch([5]).input([2, 3]).output([4]))?;
    /// g.solve()?;
    /// let s = g.sizes(x)?;
    /// assert_eq!((s.batch.as_slice(), s.input.as_slice(), s.output.as_slice()), (&[5][..], &[2, 3][..], &[4][..]));
    /// assert_eq!(s.memory_order(), [5, 4, 2, 3]);
    /// # Ok::<(), einrow::infer::InferError>(())
    /// ```
    pub fn sizes(&self, t: TensorId) -> Result<TensorSizes, InferError> {
        let [batch, input, output] = self.dims(t)?;
        let plain = |v: Vec<Solved>| v.into_iter().map(|s| s.size).collect();
        Ok(TensorSizes { batch: plain(batch), input: plain(input), output: plain(output) })
    }

    /// The step that produced a tensor; `None` for a leaf. Errors (`name`): an id of another
    /// graph, or past this graph's tensors.
    ///
    /// ```
    /// use einrow::infer::{Graph, ShapeBuilder};
    /// let mut g = Graph::new();
    /// let a = g.input("a", &ShapeBuilder::array([2, 3]))?;
    /// let b = g.einsum("ij;ij=>i", &[a, a])?;
    /// let step = g.producer(b)?.expect("b is a result");
    /// assert_eq!(g.steps()[step.index()].out, b);
    /// assert_eq!(g.producer(a)?, None);
    /// # Ok::<(), einrow::infer::InferError>(())
    /// ```
    pub fn producer(&self, t: TensorId) -> Result<Option<StepId>, InferError> {
        self.check_tensor(t)?;
        // Each step adds its result after those of the steps before it: results ascend.
        let i = self.steps.binary_search_by_key(&t, |s| s.out).ok();
        Ok(i.map(|i| self.step_at(i)))
    }
}
