//! Solved sizes of one tensor in a single inline buffer: what plan derivation reads, without
//! one heap vector per row (the public [`Concrete`] is built from it).

use smallvec::SmallVec;

use super::concrete::{Concrete, ConcreteRow};
use crate::ids::TensorId;
use crate::infer::{Graph, InferError};
use crate::spec::ast::RowKind;

/// Where one row lies in [`Sizes::dims`].
#[derive(Clone, Copy, Debug, Default)]
struct Span {
    start: usize,
    beg: usize,
    len: usize,
}

/// One solved row: its sizes in order, split into leading and trailing flanks.
#[derive(Clone, Copy, Debug)]
pub struct RowSizes<'a> {
    all: &'a [u64],
    beg: usize,
}

impl<'a> RowSizes<'a> {
    /// All sizes in order.
    pub fn all(self) -> &'a [u64] {
        self.all
    }

    /// Sizes of the leading flank.
    pub fn beg(self) -> &'a [u64] {
        self.all.get(..self.beg).unwrap_or(&[])
    }

    /// Sizes of the trailing flank.
    pub fn dims(self) -> &'a [u64] {
        self.all.get(self.beg..).unwrap_or(&[])
    }

    /// Number of axes.
    pub fn len(self) -> usize {
        self.all.len()
    }
}

/// A solved shape: every size in memory order (batch, output, input), and each row's place.
#[derive(Clone, Debug, Default)]
pub struct Sizes {
    dims: SmallVec<[u64; 8]>,
    /// Rows in [`RowKind::ALL`] order.
    rows: [Span; 3],
}

impl Sizes {
    /// The solved sizes of `t` (fails when something is still unknown, with the error of
    /// [`Graph::dims`]).
    pub fn of(g: &Graph, t: TensorId) -> Result<Sizes, InferError> {
        let mut out = Sizes::default();
        out.read(g, t)?;
        Ok(out)
    }

    /// Replaces these sizes by those of `t`, in place (as [`Sizes::of`]).
    pub fn read(&mut self, g: &Graph, t: TensorId) -> Result<(), InferError> {
        g.check_tensor(t)?;
        self.dims.clear();
        let order = RowKind::MEMORY_ORDER;
        let Some(rows) = g.solved_shape(t, order, &mut |s| self.dims.push(s.size)) else {
            // Something is still unknown: `dims` names it.
            return Err(g.dims(t).err().unwrap_or_else(|| unsolved(g, t)));
        };
        let mut start = 0;
        for (kind, (len, beg)) in order.into_iter().zip(rows) {
            self.rows[kind.index()] = Span { start, beg, len };
            start += len;
        }
        Ok(())
    }

    /// Sizes given row by row: `push_row(kind, dims)` appends a row's sizes to `dims` and
    /// returns the length of its leading flank.
    #[inline]
    pub fn from_rows(push_row: impl FnMut(RowKind, &mut SmallVec<[u64; 8]>) -> usize) -> Sizes {
        let mut out = Sizes::default();
        out.set_rows(push_row);
        out
    }

    /// Replaces the sizes with those given row by row (as [`Sizes::from_rows`]).
    #[inline]
    pub fn set_rows(
        &mut self,
        mut push_row: impl FnMut(RowKind, &mut SmallVec<[u64; 8]>) -> usize,
    ) {
        self.dims.clear();
        for kind in RowKind::MEMORY_ORDER {
            let start = self.dims.len();
            let beg = push_row(kind, &mut self.dims);
            self.rows[kind.index()] = Span { start, beg, len: self.dims.len() - start };
        }
    }

    /// Replaces the sizes with those of a [`Concrete`] shape.
    pub fn set_concrete(&mut self, c: &Concrete) {
        self.set_rows(|kind, dims| {
            let row = c.row(kind);
            // Pushed one by one: `extend_from_slice` costs more than these few sizes.
            for &size in row.beg.iter().chain(&row.dims) {
                dims.push(size);
            }
            row.beg.len()
        })
    }

    /// The row of a kind.
    pub fn row(&self, kind: RowKind) -> RowSizes<'_> {
        let s = self.rows[kind.index()];
        let all = self.dims.get(s.start..s.start + s.len).unwrap_or(&[]);
        RowSizes { all, beg: s.beg }
    }

    /// All sizes in memory order (batch, output, input).
    pub fn memory(&self) -> &[u64] {
        &self.dims
    }

    /// The same sizes as a [`Concrete`].
    pub fn to_concrete(&self) -> Concrete {
        let row = |kind| {
            let r = self.row(kind);
            ConcreteRow { beg: r.beg().to_vec(), dims: r.dims().to_vec() }
        };
        Concrete { rows: RowKind::ALL.map(row) }
    }
}

/// The error of a shape that `Graph::dims` accepts but that is not plain sizes (unreachable
/// while both read the same substituted shape; kept so that no input can panic here).
fn unsolved(g: &Graph, t: TensorId) -> InferError {
    let name = g.name_or_id(t);
    InferError::shape(
        crate::code::ErrorCode::Unresolved,
        format!("the shape of `{name}` is not known"),
    )
}

#[cfg(test)]
mod tests {
    use super::Sizes;
    use crate::code::{Coded, ErrorCode};
    use crate::infer::Graph;
    use crate::spec::ast::RowKind;

    /// Declares one leaf of `shape`, solves, and compares its sizes row by row
    /// (batch, input, output) and in memory order.
    #[track_caller]
    fn check(shape: &str, rows: [&[u64]; 3], memory: &[u64]) {
        let mut g = Graph::new();
        let t = g.declare("a", Some(shape), false).expect("declares");
        g.solve().expect("solves");
        let s = Sizes::of(&g, t).expect("solved");
        for (kind, want) in RowKind::ALL.into_iter().zip(rows) {
            assert_eq!(s.row(kind).all(), want, "{kind:?} row of {shape}");
            assert_eq!(s.row(kind).beg().len() + s.row(kind).dims().len(), want.len());
        }
        assert_eq!(s.memory(), memory);
        assert_eq!(s.to_concrete().memory_dims(), memory);
    }

    #[test]
    fn rows_and_memory_order() {
        check("2,3", [&[], &[], &[2, 3]], &[2, 3]);
        check("5|2,3->4", [&[5], &[2, 3], &[4]], &[5, 4, 2, 3]);
        check("7,8|9", [&[7, 8], &[], &[9]], &[7, 8, 9]);
        check("", [&[], &[], &[]], &[]);
    }

    /// Sizes and flanks agree with the substituted shape, also through leading flanks.
    #[test]
    fn flanks_match_the_substituted_shape() {
        let mut g = Graph::new();
        let a = g.declare("a", Some("2,...,5"), true).expect("declares");
        let b = g.declare("b", Some("2,3,4,5"), false).expect("declares");
        let c = g.pointwise(&[a, b]).expect("adds");
        g.solve().expect("solves");
        let mut leading = 0;
        for t in [a, b, c] {
            let s = Sizes::of(&g, t).expect("solved");
            let shape = g.shape(t).expect("a tensor of g");
            for kind in RowKind::ALL {
                let (row, want) = (s.row(kind), shape.row(kind));
                let size = |d: &crate::shape::Dim| d.solved().map(|s| s.size);
                let beg: Vec<_> = want.beg.iter().map(size).collect();
                let dims: Vec<_> = want.dims.iter().map(size).collect();
                assert_eq!(row.beg().iter().map(|s| Some(*s)).collect::<Vec<_>>(), beg);
                assert_eq!(row.dims().iter().map(|s| Some(*s)).collect::<Vec<_>>(), dims);
                leading += row.beg().len();
            }
        }
        assert!(leading > 0, "no leading flank was exercised");
    }

    #[test]
    fn unsolved_shapes_fail_like_dims() {
        let mut g = Graph::new();
        let a = g.declare("a", Some("2"), false).expect("declares");
        let b = g.pointwise(&[a]).expect("adds");
        // Not solved yet: the result's rows are still open.
        let err = Sizes::of(&g, b).expect_err("unsolved");
        let want = g.dims(b).expect_err("unsolved");
        assert_eq!(err.code(), want.code());
        assert_eq!(err.to_string(), want.to_string());
        assert_eq!(err.code(), ErrorCode::Unresolved);
    }
}
