//! Dimensions: variables, solved sizes with a basis, affine (strided/convolution) and
//! concatenation dimensions.

use std::fmt;

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
    /// of affine and concatenation dims).
    pub fn for_each_var(&self, exprs: &DimExprs, f: &mut impl FnMut(DimVar)) {
        match *self {
            Dim::Var(v) => f(v),
            Dim::Solved(_) => {}
            Dim::Affine(id) => {
                let a = exprs.get_affine(id);
                a.over.for_each_var(exprs, f);
                if let Some((_, k, _)) = a.conv {
                    k.for_each_var(exprs, f);
                }
            }
            Dim::Concat(id) => exprs.parts(id).iter().for_each(|p| p.for_each_var(exprs, f)),
        }
    }

    /// The dimension as text (`3`, `1!`, `2*o+1`, `a^b`), reading `exprs` for the parts.
    pub fn show(self, exprs: &DimExprs) -> ShowDim<'_> {
        ShowDim { dim: self, exprs }
    }
}

/// A [`Dim`] with its expression table, for display.
#[derive(Clone, Copy)]
pub struct ShowDim<'a> {
    dim: Dim,
    exprs: &'a DimExprs,
}

impl fmt::Display for ShowDim<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |d: Dim| d.show(self.exprs);
        match self.dim {
            Dim::Var(v) => write!(f, "{v}"),
            Dim::Solved(s) if s.is_top() => f.write_str("1!"),
            Dim::Solved(s) => write!(f, "{}", { s.size }),
            Dim::Affine(id) => {
                let a = self.exprs.get_affine(id);
                write!(f, "{}*{}", a.stride, show(a.over))?;
                if a.offset > 0 {
                    write!(f, "+{}", a.offset)?;
                }
                if let Some((d, k, p)) = a.conv {
                    let pad = if p == ConvPadding::Same { "=" } else { "<" };
                    write!(f, "{pad}+{d}*{}", show(k))?;
                }
                Ok(())
            }
            Dim::Concat(id) => {
                for (i, p) in self.exprs.parts(id).iter().enumerate() {
                    if i > 0 {
                        f.write_str("^")?;
                    }
                    write!(f, "{}", show(*p))?;
                }
                Ok(())
            }
        }
    }
}
