//! The stored form of a scheme's shapes: each axis an [`Item`] over the scheme's variables.

use crate::spec::ast::RowKind;
use crate::spec::lexer::MAX_INT;

/// One axis of a scheme's shape (or of a step's label).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(super) enum Item {
    /// A size.
    Size(u64),
    /// Every axis of variable `k`, spliced in.
    Var(u32),
    /// One axis of size `scale·n + offset`, `n` the size of the single axis of variable
    /// `var` (an axis computed from the variable: strided, convolution, concatenation).
    Affine { var: u32, scale: u64, offset: i64 },
}

impl Item {
    /// The variable the item depends on.
    pub fn var(self) -> Option<u32> {
        match self {
            Item::Size(_) => None,
            Item::Var(k) | Item::Affine { var: k, .. } => Some(k),
        }
    }

    /// The size of a one-axis item for a variable's single axis `n` (`None`: out of range).
    pub fn one(self, n: u64) -> Option<u64> {
        match self {
            Item::Size(s) => Some(s),
            Item::Var(_) => Some(n),
            Item::Affine { scale, offset, .. } => affine(scale, offset, n),
        }
    }
}

/// `scale·n + offset` when it is a size (at least 1 when it has a negative offset, at most
/// 2^62).
pub(super) fn affine(scale: u64, offset: i64, n: u64) -> Option<u64> {
    let v = i128::from(scale) * i128::from(n) + i128::from(offset);
    let least = if offset < 0 { 1 } else { 0 };
    (v >= least && v <= i128::from(MAX_INT)).then_some(v as u64)
}

/// Where a tensor's rows are in the scheme's items: per row ([`RowKind::ALL`] order), the
/// start, the number of items, and how many of them form the leading flank.
#[derive(Clone, Copy, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub(super) struct TensorForm {
    pub rows: [(u32, u32, u32); 3],
}

impl TensorForm {
    /// The items of a row.
    pub fn row_items<'a>(&self, kind: RowKind, items: &'a [Item]) -> &'a [Item] {
        let (start, len, _) = self.rows[kind.index()];
        items.get(start as usize..(start + len) as usize).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::{affine, Item};

    #[test]
    fn affine_sizes() {
        assert_eq!(affine(2, 1, 5), Some(11));
        assert_eq!(affine(1, -2, 3), Some(1));
        assert_eq!(affine(1, -2, 2), None);
        assert_eq!(affine(1, 0, 0), Some(0));
        assert_eq!(affine(u64::MAX, 0, 2), None);
        assert_eq!(Item::Affine { var: 0, scale: 3, offset: -1 }.one(2), Some(5));
        assert_eq!(Item::Var(0).one(7), Some(7));
    }
}
