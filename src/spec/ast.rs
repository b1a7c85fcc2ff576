//! The syntax tree of labels specs, einsum specs and numpy subscripts.
//!
//! Every axis, row and slot carries the byte span of the text it was parsed from. Spans are
//! provenance, not meaning: [`PartialEq`] compares them too, so compare trees parsed from
//! different texts after `without_spans()` (see `spec::spans`).
//!
//! Names are [`Name`]s (`SmolStr`): labels up to 23 bytes are stored inline, without allocation.

use smallvec::SmallVec;
pub use smol_str::SmolStr as Name;

use crate::span::Span;

/// Whether two names are equal. The one-byte names of single-char specs share their text (see
/// `spec::assemble::name`), so equal names are often the same pointer; other names are a few
/// bytes, compared without a `memcmp` call.
#[inline]
pub fn same_name(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && (a.as_ptr() == b.as_ptr() || a.bytes().zip(b.bytes()).all(|(x, y)| x == y))
}

/// A numbered name, `{head}{open}{n}{close}` (`t3`, `rho[0]`), built without the formatter.
pub fn numbered_name(head: &str, open: &str, n: usize, close: &str) -> Name {
    // The digits are written backwards from the end of their buffer.
    let (mut digits, mut first, mut rest) = ([0u8; 20], 20usize, n);
    while let Some(d) = first.checked_sub(1).and_then(|i| digits.get_mut(i)) {
        *d = b'0' + (rest % 10) as u8;
        first -= 1;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let digits = digits.get(first..).unwrap_or_default();
    // Names that fit are built in place (byte by byte: the parts are a few bytes each).
    let mut buf = [0u8; 23];
    let mut len = 0;
    for part in [head.as_bytes(), open.as_bytes(), digits, close.as_bytes()] {
        for &b in part {
            match buf.get_mut(len) {
                Some(to) => *to = b,
                None => return Name::from(format!("{head}{open}{n}{close}")),
            }
            len += 1;
        }
    }
    // Only ASCII digits were added to the given texts.
    Name::new(std::str::from_utf8(buf.get(..len).unwrap_or_default()).unwrap_or_default())
}

/// The three kinds of row a shape has. Memory order is batch, output, input.
///
/// `Serialize` and `Deserialize` with the `serde` feature.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum RowKind {
    /// Batch axes (outermost in memory).
    Batch,
    /// Input axes (innermost in memory).
    Input,
    /// Output axes (between batch and input in memory).
    Output,
}

impl RowKind {
    /// All kinds in printing order (`batch|input->output`).
    pub const ALL: [RowKind; 3] = [RowKind::Batch, RowKind::Input, RowKind::Output];
    /// All kinds in memory order (batch, output, input).
    pub const MEMORY_ORDER: [RowKind; 3] = [RowKind::Batch, RowKind::Output, RowKind::Input];

    /// The position of this kind in [`RowKind::ALL`] (0, 1, 2): rows kept in an array of three
    /// are indexed by it.
    pub fn index(self) -> usize {
        match self {
            RowKind::Batch => 0,
            RowKind::Input => 1,
            RowKind::Output => 2,
        }
    }

    /// The lowercase name (`batch`, `input`, `output`), which is also the name `...` stands for.
    pub fn name(self) -> &'static str {
        match self {
            RowKind::Batch => "batch",
            RowKind::Input => "input",
            RowKind::Output => "output",
        }
    }
}

/// A stride or dilation coefficient: an integer, or an identifier spliced in by a host language.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum Coeff {
    /// A literal integer (always ≥ 1 after validation).
    Int(u64),
    /// An identifier standing for a host-language integer.
    Name(Name),
}

impl Coeff {
    /// Whether this is the literal integer 1.
    pub fn is_one(&self) -> bool {
        matches!(self, Coeff::Int(1))
    }
}

/// How a convolution treats the borders of its input.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum Padding {
    /// `+` alone: left for a host language to decide; shape inference rejects it.
    Unspecified,
    /// `=+`: padded ("same") convolution; the input extent is `stride * over`.
    Same,
    /// `<+`: valid convolution; the input extent is `stride*(over-1) + dilation*(kernel-1) + 1`.
    Valid,
    /// `~+` (`~P+` with padding `P` on both sides): PyTorch's convolution, whose output is
    /// `floor((input + 2P - dilation*(kernel-1) - 1) / stride) + 1`; input elements past the
    /// last window are not read.
    Floor(u64),
}

/// The kernel term of a convolution axis: `[D*]kernel`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Conv {
    /// Dilation `D` (default 1).
    pub dilation: Coeff,
    /// The kernel label.
    pub kernel: Name,
    /// The padding marker written before the kernel term.
    pub padding: Padding,
    /// Span of the kernel label.
    pub kernel_span: Span,
}

/// A strided or convolution axis: `S*over [+offset]` or `[S*]over PAD+ [offset+] [D*]kernel`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Affine {
    /// Stride `S` (default 1).
    pub stride: Coeff,
    /// The output-side label the axis is iterated over.
    pub over: Name,
    /// Span of the `over` label.
    pub over_span: Span,
    /// Constant offset added to the index (default 0).
    pub offset: u64,
    /// The kernel term, for convolution axes.
    pub conv: Option<Conv>,
}

/// One component of a concatenation axis `a^b^3`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum ConcatPart {
    /// A label whose size is inferred.
    Label(Name),
    /// A fixed-size component (`3^a => a` skips three elements).
    Size(u64),
}

/// What one axis position of a row holds.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum AxisKind {
    /// A label (`i`, `hid`). Repeated labels denote the same dimension.
    Label(Name),
    /// `_`: an unconstrained placeholder; each occurrence is its own dimension.
    Placeholder,
    /// An integer: a fixed index in an einsum spec, a size in a labels spec.
    Int(u64),
    /// A strided or convolution axis (boxed: it is rare and large).
    Affine(Box<Affine>),
    /// A concatenation of two or more components.
    Concat(Vec<ConcatPart>),
    /// `(h*d)`: two or more labels flattened into one axis, row-major (the last label varies
    /// fastest): its size is the product of theirs, and index `(i_h, i_d)` is `i_h·d + i_d`.
    Flat(Vec<(Name, Span)>),
}

/// An axis with its span.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Axis {
    /// The axis content.
    pub kind: AxisKind,
    /// Where the axis was written.
    pub span: Span,
}

/// A row variable: `...` (named after the row kind it stands in) or `..name..`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Ellipsis {
    /// `None` for plain `...`, else the variable's name.
    pub name: Option<Name>,
    /// Where the ellipsis was written.
    pub span: Span,
}

impl Ellipsis {
    /// The row variable's name: the written one, or the row kind's name for plain `...`.
    pub fn var_name(&self, kind: RowKind) -> &str {
        self.name.as_deref().unwrap_or(kind.name())
    }
}

/// The axes of one kind: leading axes, an optional row variable, trailing axes.
///
/// Without a row variable every axis is trailing and the row is closed.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Row {
    /// Axes written before the row variable.
    pub leading: SmallVec<[Axis; 2]>,
    /// The row variable, if any.
    pub ellipsis: Option<Ellipsis>,
    /// Axes written after the row variable, or all axes of a closed row.
    pub trailing: SmallVec<[Axis; 2]>,
    /// Span of the row's text (empty at the row's position for an empty row).
    pub span: Span,
}

impl Row {
    /// All axes in order, leading then trailing.
    pub fn axes(&self) -> impl Iterator<Item = &Axis> {
        self.leading.iter().chain(self.trailing.iter())
    }

    /// Number of written axes (the row variable not counted).
    pub fn len(&self) -> usize {
        self.leading.len() + self.trailing.len()
    }

    /// Whether no axis and no row variable is written.
    pub fn is_empty(&self) -> bool {
        self.len() == 0 && self.ellipsis.is_none()
    }
}

/// One slot of a spec: `batch|input->output`, kinds omitted from the left.
///
/// The batch and input rows are boxed: many specs write neither, and a small slot is cheaper
/// to build, move and allocate.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct ShapeSpec {
    /// The batch row, when `|` is written.
    pub batch: Option<Box<Row>>,
    /// The input row, when `->` is written.
    pub input: Option<Box<Row>>,
    /// The output row (always present; possibly empty).
    pub output: Row,
    /// Span of the whole slot.
    pub span: Span,
}

impl ShapeSpec {
    /// The row of `kind`, `None` when that kind was not written (an empty closed row).
    pub fn row(&self, kind: RowKind) -> Option<&Row> {
        match kind {
            RowKind::Batch => self.batch.as_deref(),
            RowKind::Input => self.input.as_deref(),
            RowKind::Output => Some(&self.output),
        }
    }

    /// Rows that are written, with their kind, in printing order.
    pub fn rows(&self) -> impl Iterator<Item = (RowKind, &Row)> {
        RowKind::ALL.into_iter().filter_map(move |k| self.row(k).map(|r| (k, r)))
    }
}

/// A labels spec: the shape of one tensor.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct LabelsSpec {
    /// The single slot.
    pub shape: ShapeSpec,
    /// Whether the lexer chose multichar mode.
    pub multichar: bool,
}

/// An einsum spec in OCANNL syntax: `rhs1;rhs2;...=>lhs`. The default is an empty spec to
/// parse into ([`crate::spec::parse_einsum_into`]).
#[derive(Clone, Default, PartialEq, Eq, Hash, Debug)]
pub struct EinsumSpec {
    /// The operand slots (one or more).
    pub rhs: Vec<ShapeSpec>,
    /// The result slot.
    pub lhs: ShapeSpec,
    /// Whether the lexer chose multichar mode.
    pub multichar: bool,
}

/// Numpy einsum subscripts: `...ij,jk->ik` or the implicit form `ij,jk`.
///
/// Each term is an output-kind [`Row`]; an ellipsis is `...` (numpy has one broadcast group).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct NumpySpec {
    /// One term per operand.
    pub inputs: Vec<Row>,
    /// The explicit output term, `None` for the implicit form.
    pub output: Option<Row>,
}
