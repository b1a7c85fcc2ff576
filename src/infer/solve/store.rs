//! Append-only compact storage of rows: the values of bound row variables and the declared
//! shapes of leaves. One flat vector of dims and a 12-byte head per row, instead of a
//! `Row` (two inline vectors) per entry. Rows are stored one after another, so a row's dims
//! start where the previous row's end: a head keeps only the end.

use super::constraint::RowArg;
use crate::ids::RowVar;
use crate::shape::{Dim, Dims, Row, Shape, Solved};
use crate::spec::ast::RowKind;

/// A stored row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowId(pub u32);

#[derive(Clone, Copy, Debug)]
struct Head {
    /// Where its dims end in the flat vector (the next row's start).
    end: u32,
    /// How many of its dims form the leading flank.
    beg: u32,
    /// Its row variable, or [`NO_VAR`].
    var: u32,
}

// The store holds several rows per operation of a program: keep a head at 12 bytes.
const _: () = assert!(std::mem::size_of::<Head>() == 12);

const NO_VAR: u32 = u32::MAX;

/// The store.
#[derive(Clone, Default)]
pub struct RowStore {
    dims: Vec<Dim>,
    heads: Vec<Head>,
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl RowStore {
    /// Makes room for `rows` more rows holding `dims` more axes in all.
    pub fn reserve(&mut self, rows: usize, dims: usize) {
        self.heads.reserve(rows);
        self.dims.reserve(dims);
    }

    /// The number of axes stored, in all rows.
    pub fn dim_len(&self) -> usize {
        self.dims.len()
    }

    /// Stores a row.
    pub fn push(&mut self, r: &Row) -> RowId {
        self.dims.extend_from_slice(&r.beg);
        self.dims.extend_from_slice(&r.dims);
        self.heads.push(Head {
            end: to_u32(self.dims.len()),
            beg: to_u32(r.beg.len()),
            var: r.var.map_or(NO_VAR, |v| v.0),
        });
        RowId(to_u32(self.heads.len() - 1))
    }

    /// Stores a closed row of solved sizes whose first `leading` axes form its leading flank.
    pub fn push_solved(&mut self, sizes: &[Solved], leading: usize) -> RowId {
        self.dims.extend(sizes.iter().map(|s| Dim::Solved(*s)));
        let (end, beg) = (to_u32(self.dims.len()), to_u32(leading.min(sizes.len())));
        self.heads.push(Head { end, beg, var: NO_VAR });
        RowId(to_u32(self.heads.len() - 1))
    }

    /// The parts of a stored row: leading dims, row variable, trailing dims.
    pub fn parts(&self, id: RowId) -> (&[Dim], Option<RowVar>, &[Dim]) {
        let (start, beg, len, var) = self.layout(id);
        let (beg, dims) = self.dims[start..start + len].split_at(beg);
        (beg, var, dims)
    }

    /// Whether a stored row is `r`, compared in place (its lengths first).
    pub fn holds(&self, id: RowId, r: &Row) -> bool {
        let (beg, var, dims) = self.parts(id);
        beg.len() == r.beg.len()
            && dims.len() == r.dims.len()
            && var == r.var
            && beg == r.beg.as_slice()
            && dims == r.dims.as_slice()
    }

    /// A stored row, rebuilt.
    pub fn row(&self, id: RowId) -> Row {
        let (beg, var, dims) = self.parts(id);
        Row { beg: Dims::from_slice(beg), var, dims: Dims::from_slice(dims) }
    }

    /// The position of the `i`-th dim of a stored row in the flat vector, with the row's
    /// leading length, total length and variable.
    pub fn layout(&self, id: RowId) -> (usize, usize, usize, Option<RowVar>) {
        let i = id.0 as usize;
        let h = self.heads[i];
        let start = i.checked_sub(1).map_or(0, |p| self.heads[p].end) as usize;
        let var = (h.var != NO_VAR).then_some(RowVar(h.var));
        (start, h.beg as usize, (h.end as usize).saturating_sub(start), var)
    }

    /// The dim at a flat position.
    pub fn dim_at(&self, i: usize) -> &Dim {
        &self.dims[i]
    }
}

/// Where a tensor's (unsubstituted) shape lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeRef {
    /// Three open rows of consecutive fresh variables: batch, input, output.
    Fresh(RowVar),
    /// Three consecutive stored rows: batch, input, output.
    Stored(RowId),
}

impl ShapeRef {
    /// The shape, rebuilt from the store.
    pub fn shape(self, store: &RowStore) -> Shape {
        match self {
            ShapeRef::Fresh(v) => Shape {
                batch: Row::open(v),
                input: Row::open(RowVar(v.0 + 1)),
                output: Row::open(RowVar(v.0 + 2)),
            },
            ShapeRef::Stored(RowId(i)) => Shape {
                batch: store.row(RowId(i)),
                input: store.row(RowId(i + 1)),
                output: store.row(RowId(i + 2)),
            },
        }
    }

    /// The three rows (batch, input, output) as constraint arguments, read without rebuilding.
    pub fn rows(self) -> [RowArg; 3] {
        RowKind::ALL.map(|k| self.row(k))
    }

    /// The row of a kind as a constraint argument, read without rebuilding.
    pub fn row(self, kind: RowKind) -> RowArg {
        let k = kind.index() as u32;
        match self {
            ShapeRef::Fresh(v) => RowArg::Var(RowVar(v.0 + k)),
            ShapeRef::Stored(RowId(i)) => RowArg::Stored(RowId(i + k)),
        }
    }

    /// Stores a shape's rows consecutively.
    pub fn store(shape: &Shape, store: &mut RowStore) -> ShapeRef {
        ShapeRef::store_rows([&shape.batch, &shape.input, &shape.output], store)
    }

    /// Stores three rows (batch, input, output: [`RowKind::ALL`] order) consecutively.
    pub fn store_rows([batch, input, output]: [&Row; 3], store: &mut RowStore) -> ShapeRef {
        let first = store.push(batch);
        store.push(input);
        store.push(output);
        ShapeRef::Stored(first)
    }
}
