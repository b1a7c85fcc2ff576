//! Dimensions: variables, solved sizes with a basis, affine (strided/convolution) and
//! concatenation dimensions.

use std::collections::HashSet;
use std::fmt;

use smallvec::SmallVec;

use super::exprs::DimExprs;
use crate::ids::DimVar;

/// The basis ("unit") of a solved dimension. Two reserved bases: [`Basis::DEFAULT`] (any axis a
/// user writes without naming one) and [`Basis::BCAST`] (the broadcast top `1⊤`, the only dim
/// that broadcasts when its size is 1). Named bases are interned by [`BasisTable`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Basis(pub u32);

impl Basis {
    /// The basis of user-written sizes.
    pub const DEFAULT: Basis = Basis(0);
    /// The reserved broadcast basis (`bcast_if_1`).
    pub const BCAST: Basis = Basis(1);

    /// Whether this is a user-named basis (neither reserved one).
    pub fn is_named(self) -> bool {
        self.0 > 1
    }
}

/// Interns basis names.
#[derive(Clone, Debug, Default)]
pub struct BasisTable {
    names: Vec<Box<str>>,
}

impl BasisTable {
    /// The basis named `name` (`default` and `bcast_if_1` are the reserved ones).
    pub fn intern(&mut self, name: &str) -> Basis {
        match name {
            "default" => return Basis::DEFAULT,
            "bcast_if_1" => return Basis::BCAST,
            _ => {}
        }
        if let Some(i) = self.names.iter().position(|n| &**n == name) {
            return Basis::from_named_index(i);
        }
        self.names.push(name.into());
        Basis::from_named_index(self.names.len() - 1)
    }

    /// The name of a basis.
    pub fn name(&self, b: Basis) -> &str {
        match b {
            Basis::DEFAULT => "default",
            Basis::BCAST => "bcast_if_1",
            Basis(i) => self.names.get(i as usize - 2).map_or("?", |n| n),
        }
    }
}

impl Basis {
    fn from_named_index(i: usize) -> Basis {
        Basis(u32::try_from(i + 2).unwrap_or(u32::MAX))
    }
}

/// A dimension with a known size. Packed to 4-byte alignment (12 bytes), so that a [`Dim`] is
/// 16 bytes rather than 24: axis lists, stored rows and constraints are full of them.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(C, packed(4))]
pub struct Solved {
    /// The size (at most 2^62).
    pub size: u64,
    /// The basis.
    pub basis: Basis,
}

impl Solved {
    /// The broadcast top `1⊤`.
    pub const TOP: Solved = Solved { size: 1, basis: Basis::BCAST };

    /// A size with the default basis.
    pub fn new(size: u64) -> Solved {
        Solved { size, basis: Basis::DEFAULT }
    }

    /// Whether this is the broadcast top.
    pub fn is_top(self) -> bool {
        self == Solved::TOP
    }

    /// The dim as a shape string writes it: `1!` for the top, `rgb=3` for a named basis, `3`
    /// for the default one. The reserved broadcast basis on a size other than 1 (an affine
    /// axis over `1!`, e.g. `2*o` with `o = 1!`) is written `bcast_if_1=2`: it is not `2`.
    pub fn text(self, bases: &BasisTable) -> String {
        if self.is_top() {
            "1!".into()
        } else if self.basis == Basis::DEFAULT {
            { self.size }.to_string()
        } else {
            format!("{}={}", bases.name(self.basis), { self.size })
        }
    }
}

/// The padding behaviour of a convolution dimension.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum ConvPadding {
    /// Padded: the input extent is `stride * over`.
    Same,
    /// Valid: the input extent is `stride*(over-1) + dilation*(kernel-1) + 1`.
    Valid,
}

/// A strided or convolution input dimension: `stride*over + offset + dilation*kernel`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct AffineDim {
    /// Stride (≥ 1).
    pub stride: u64,
    /// The output-side dimension iterated over.
    pub over: Dim,
    /// Index offset (does not change sizes).
    pub offset: u64,
    /// The kernel term, for convolutions.
    pub conv: Option<(u64, Dim, ConvPadding)>,
}

// Checked at compile time: the point of packing `Solved`.
const _: () = assert!(std::mem::size_of::<Dim>() == 16);

/// The index of an affine or concatenation dim in its [`DimExprs`] table.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct ExprId(pub u32);

/// A dimension: a variable, a solved size, an affine expression or a concatenation. A small
/// `Copy` value: the structure of affine and concatenation dims lives in a [`DimExprs`] table
/// (hash-consed, so equal structures have equal ids).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum Dim {
    /// An unknown dimension.
    Var(DimVar),
    /// A known size with a basis.
    Solved(Solved),
    /// A strided or convolution input dimension.
    Affine(ExprId),
    /// A concatenation: the size is the sum of the components.
    Concat(ExprId),
}

impl Dim {
    /// A solved dimension of `size` with the default basis.
    pub fn size(size: u64) -> Dim {
        Dim::Solved(Solved::new(size))
    }

    /// The broadcast top `1⊤`.
    pub fn top() -> Dim {
        Dim::Solved(Solved::TOP)
    }

    /// The solved value, if this is a solved dimension.
    pub fn solved(&self) -> Option<Solved> {
        match self {
            Dim::Solved(s) => Some(*s),
            _ => None,
        }
    }

    /// Whether this dimension is the broadcast top.
    pub fn is_top(&self) -> bool {
        self.solved().is_some_and(Solved::is_top)
    }

    /// Calls `f` on every variable the dimension mentions (looking into `exprs` for the parts
    /// of affine and concatenation dims). The walk is iterative and visits each node of the
    /// table once: a concatenation may share its parts many times over (`y = x^x`,
    /// `z = y^y`, ...), which a plain recursion would walk exponentially often.
    pub fn for_each_var(&self, exprs: &DimExprs, f: &mut impl FnMut(DimVar)) {
        let mut stack: SmallVec<[Dim; 8]> = smallvec::smallvec![*self];
        let mut seen: HashSet<Dim> = HashSet::new();
        while let Some(d) = stack.pop() {
            match d {
                Dim::Var(v) => f(v),
                Dim::Solved(_) => {}
                Dim::Affine(_) | Dim::Concat(_) if !seen.insert(d) => {}
                Dim::Affine(id) => {
                    let a = exprs.get_affine(id);
                    stack.extend(a.conv.map(|(_, k, _)| k));
                    stack.push(a.over);
                }
                Dim::Concat(id) => stack.extend(exprs.parts(id).iter().rev().copied()),
            }
        }
    }

    /// The dimension as text (`3`, `1!`, `2*o+1`, `a^b`), reading `exprs` for the parts.
    pub fn show(self, exprs: &DimExprs) -> ShowDim<'_> {
        ShowDim { dim: self, exprs }
    }
}

/// A [`Dim`] with its expression table, for display.
#[derive(Clone, Copy, Debug)]
pub struct ShowDim<'a> {
    dim: Dim,
    exprs: &'a DimExprs,
}

/// At most this many characters of a dimension are shown; longer ones end in `…`. A
/// concatenation of a million labels, or one that doubles itself sixty times, is not printed
/// whole into a message.
pub const SHOW_LIMIT: usize = 400;

/// A piece of a dimension's text still to write ([`write_dim`] writes iteratively).
enum Piece {
    Dim(Dim),
    Text(&'static str),
    Number(u64),
}

impl fmt::Display for ShowDim<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        write_dim(self.dim, self.exprs, &mut out, |d| d, |v, out| out.push_str(&v.to_string()));
        f.write_str(&out)
    }
}

/// Writes a dimension as text (`3`, `1!`, `2*o+1`, `a^b`), iteratively, cut after
/// [`SHOW_LIMIT`] characters. `value` gives what each dim (the whole, or a part) stands for
/// (itself, or its value with some bindings substituted): a variable is then written by
/// `var`, an affine or concatenation dim by its parts as `exprs` has them.
pub fn write_dim(
    d: Dim,
    exprs: &DimExprs,
    out: &mut String,
    mut value: impl FnMut(Dim) -> Dim,
    mut var: impl FnMut(DimVar, &mut String),
) {
    let mut todo: Vec<Piece> = vec![Piece::Dim(d)];
    while let Some(p) = todo.pop() {
        if out.len() > SHOW_LIMIT {
            out.push('…');
            break;
        }
        let d = match p {
            Piece::Text(t) => {
                out.push_str(t);
                continue;
            }
            Piece::Number(n) => {
                out.push_str(&n.to_string());
                continue;
            }
            Piece::Dim(d) => value(d),
        };
        match d {
            Dim::Var(v) => var(v, out),
            Dim::Solved(s) if s.is_top() => out.push_str("1!"),
            Dim::Solved(s) => out.push_str(&{ s.size }.to_string()),
            Dim::Affine(id) => {
                let a = exprs.get_affine(id);
                // Pushed in reverse: `stride*over[+offset][=+ or <+dilation*kernel]`.
                if let Some((d, k, p)) = a.conv {
                    let pad = if p == ConvPadding::Same { "=+" } else { "<+" };
                    todo.extend([Piece::Dim(k), Piece::Text("*"), Piece::Number(d)]);
                    todo.push(Piece::Text(pad));
                }
                if a.offset > 0 {
                    todo.extend([Piece::Number(a.offset), Piece::Text("+")]);
                }
                todo.extend([Piece::Dim(a.over), Piece::Text("*"), Piece::Number(a.stride)]);
            }
            Dim::Concat(id) => {
                let parts = exprs.parts(id);
                // No more parts than could be shown are queued.
                let shown = &parts[..parts.len().min(SHOW_LIMIT)];
                if shown.len() < parts.len() {
                    todo.push(Piece::Text("^…"));
                }
                for (i, p) in shown.iter().enumerate().rev() {
                    todo.push(Piece::Dim(*p));
                    if i > 0 {
                        todo.push(Piece::Text("^"));
                    }
                }
            }
        }
    }
}
