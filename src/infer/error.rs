//! Errors of shape inference: a code, a message, and the provenance that explains them.

use super::op::OpKind;
use crate::code::{Coded, ErrorCode};
use crate::ids::{StepId, TensorId};
use crate::span::Span;
use crate::spec::ast::RowKind;
use crate::spec::SpecError;

/// A shape inference failure.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InferError {
    /// A spec of an operation does not parse or breaks a rule checkable without solving.
    /// The parse error is the [`source`](std::error::Error::source) (its message says what
    /// is wrong, and where).
    #[error("{step}: the spec `{spec}` is not valid")]
    Spec {
        /// The operation.
        step: StepId,
        /// The spec text.
        spec: String,
        /// The parse error (spans into `spec`).
        #[source]
        error: SpecError,
    },
    /// The constraints cannot be satisfied, or leave something unresolved.
    #[error("{0}")]
    Shape(Box<ShapeError>),
    /// An operand that names no tensor (of the graph, or declared or defined above it in a
    /// program).
    #[error("unknown tensor `{name}`")]
    UnknownTensor {
        /// The name as written (for a graph: the id, `t12`).
        name: String,
    },
    /// A tensor or step id given out by another graph (ids are valid on the graph that made
    /// them, and on its schemes and instances).
    #[error("`{id}` is an id of another graph: ids are valid only on the graph that made them (and its schemes and instances)")]
    ForeignId {
        /// The id (`t12`, `step3`).
        id: String,
    },
    /// A step id past the graph's steps.
    #[error("unknown step `{id}`")]
    UnknownStep {
        /// The id (`step12`).
        id: String,
    },
    /// The graph was used wrongly (wrong operand count…).
    #[error("{message}")]
    Usage {
        /// The class of the error (usually `arity`).
        code: ErrorCode,
        /// What is wrong.
        message: String,
    },
}

/// An unsatisfiable or underdetermined shape problem, with its explanation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeError {
    /// The class.
    pub code: ErrorCode,
    /// What went wrong, in one sentence.
    pub message: String,
    /// The operation whose constraint failed.
    pub step: Option<StepId>,
    /// The tensors involved.
    pub tensors: Vec<TensorId>,
    /// Spec spans involved (into the step's spec).
    pub spans: Vec<Span>,
    /// The chain of facts that led to the conflict, most recent last.
    pub chain: Vec<String>,
    /// The failing step's spec text (the spans point into it).
    pub spec: Option<String>,
    /// The failing step as a statement (`c = einsum a b`).
    pub statement: Option<String>,
    /// For a dimension mismatch: the two sizes and where each was known from, typed.
    pub conflict: Option<Box<Conflict>>,
    /// For a rank conflict: the two rows' lengths.
    pub ranks: Option<RankConflict>,
    /// For an unresolved dimension: its name (a label of a step's spec, or `$n`).
    pub unknown: Option<String>,
    /// The failing step's operation and operands, when the step was being added (a step that
    /// fails is taken back: the graph no longer has it).
    pub failed_step: Option<(OpKind, Vec<TensorId>)>,
}

/// The two sides of a rank conflict: two rows, or a row and a pattern, whose lengths cannot
/// be equal (or the first cannot broadcast into the second).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RankConflict {
    /// Each side's number of axes (for a pattern: the least it needs).
    pub lengths: [usize; 2],
    /// Whether each side is a pattern with a row variable (it needs at least its length)
    /// rather than a closed row.
    pub patterns: [bool; 2],
    /// The tensor's row the failing constraint is about (one of the two sides), when known.
    pub row: Option<(TensorId, RowKind)>,
}

/// The two sides of a dimension mismatch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The two sizes, as the failing constraint relates them.
    pub sides: [Side; 2],
    /// Where the failing constraint is: its step, tensor, operand and row, and the axis of
    /// the row when the constraint pairs two axes of rows as its step gave them.
    pub at: Place,
}

/// One size of a [`Conflict`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Side {
    /// The size, as a shape string writes it (`3`, `rgb=3`, `1!`).
    pub size: String,
    /// The number of elements along the axis.
    pub value: u64,
    /// The spec label whose size this is, when the side is a label's dimension.
    pub label: Option<String>,
    /// Where the solver learnt it: the constraint that bound the label's dimension, or the
    /// failing constraint itself for a size written there.
    pub from: Option<Place>,
    /// Where the size was declared and each step that carried it to the conflict, in order
    /// (filled by [`trace`](crate::infer::explain::trace), which walks the graph only once
    /// an error is reported).
    pub trace: Option<Trace>,
}

/// A place in a graph: a step's operand or result row, or a tensor's row (each part known or
/// not). Operands count from 0, axes as numpy counts (0 the first, -1 the last).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    /// The step.
    pub step: Option<StepId>,
    /// The tensor.
    pub tensor: Option<TensorId>,
    /// The operand of the step it is (`None` for the result or a declaration).
    pub operand: Option<usize>,
    /// The row.
    pub kind: Option<RowKind>,
    /// The axis of the row.
    pub axis: Option<i16>,
}

/// An axis of a tensor: its row and its position in the row (0 the first, -1 the last).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AxisRef {
    /// The tensor.
    pub tensor: TensorId,
    /// The row.
    pub kind: RowKind,
    /// The position.
    pub axis: i16,
}

/// Where a size came from: the declared axis that holds it (when a declaration writes it, or a
/// [`set_dim`](crate::infer::Graph::set_dim) sets it) and each step that carried it from axis
/// to axis, toward the conflict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// The axis of the failing step's operand (or result) where the size shows.
    pub at: Option<AxisRef>,
    /// The declared axis, written as a size in its tensor's declaration; or, for a size a
    /// setting gave, an axis the setting's handle stands for.
    pub origin: Option<AxisRef>,
    /// Where the size is written in the origin's declared shape string.
    pub origin_span: Option<Span>,
    /// The setting that gave the size, when a `set_dim` did rather than a declaration.
    pub setting: Option<SetBy>,
    /// Each step that related two axes of equal size, from the origin on.
    pub hops: Vec<Hop>,
    /// When no declaration writes the size: the step that computed it from other sizes (a
    /// convolution, a stride, a concatenation), each of those traced in turn. The hops then
    /// carry it from the computed axis on.
    pub derived: Option<Box<Derivation>>,
}

/// A size a step computed from other sizes: a strided or convolution axis's extent or its
/// output, a concatenation's sum or one of its components.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Derivation {
    /// The step.
    pub step: StepId,
    /// The axis whose size the step computed.
    pub at: AxisRef,
    /// The axis of the step's spec that computes it (the strided, convolution or
    /// concatenation axis), in the spec's text.
    pub span: Option<Span>,
    /// What is computed, in words (`the output extent of a valid convolution`).
    pub what: String,
    /// The computation with the sizes put in (`(32 - 3)/1 + 1`).
    pub formula: String,
    /// The sizes it is computed from, each traced.
    pub inputs: Vec<DerivedFrom>,
}

/// One size a [`Derivation`] computes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DerivedFrom {
    /// What it is, in words (`the input extent`, `the kernel `k``).
    pub role: String,
    /// The size.
    pub value: u64,
    /// Where it came from.
    pub trace: Trace,
}

/// A size given by [`Graph::set_dim`](crate::infer::Graph::set_dim) on a handle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetBy {
    /// The handle's name: the label or row variable captured, or `x.batch` for a leaf's row.
    pub handle: String,
    /// The step the handle was captured from (none for a leaf's row or a free row variable).
    pub step: Option<StepId>,
    /// The size set.
    pub size: u64,
}

/// One step of a [`Trace`]: the step made two axes the same size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    /// The step.
    pub step: StepId,
    /// The axis the size came from.
    pub from: AxisRef,
    /// The axis it went to.
    pub to: AxisRef,
}

impl std::fmt::Display for ShapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(step) = self.step {
            write!(f, "{step}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl Coded for InferError {
    fn code(&self) -> ErrorCode {
        match self {
            InferError::Spec { error, .. } => error.code(),
            InferError::Shape(e) => e.code,
            InferError::Usage { code, .. } => *code,
            InferError::UnknownTensor { .. }
            | InferError::ForeignId { .. }
            | InferError::UnknownStep { .. } => ErrorCode::Name,
        }
    }
}

impl InferError {
    /// A shape error without provenance yet (the solver adds it).
    pub fn shape(code: ErrorCode, message: impl Into<String>) -> InferError {
        InferError::Shape(Box::new(ShapeError {
            code,
            message: message.into(),
            step: None,
            tensors: Vec::new(),
            spans: Vec::new(),
            chain: Vec::new(),
            spec: None,
            statement: None,
            conflict: None,
            ranks: None,
            unknown: None,
            failed_step: None,
        }))
    }
}
