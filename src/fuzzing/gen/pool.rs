//! The generator's state: the tensors defined so far with their witness shapes (a concrete
//! assignment known to satisfy every constraint so far), leaf declarations (possibly opened
//! with row variables), and the statements.

use super::choices::Choices;
use super::GenConfig;
use crate::fuzzing::model::{join_dims, ConcreteDim, ConcreteShape};
use crate::infer::program::{Decl, Program, Stmt};
use crate::infer::OpKind;
use crate::spec::ast::RowKind;

/// Rows in [`RowKind::ALL`] order: batch, input, output.
pub type Rows = [Vec<ConcreteDim>; 3];

/// A tensor of the program being generated.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Its name.
    pub name: String,
    /// Its witness rows.
    pub rows: Rows,
    /// Per row: whether the solver may give the row a leading flank (then the row is only
    /// broadcast against equal or empty rows, where the flank split cannot matter).
    pub lead: [bool; 3],
    /// Per row: whether the solver keeps a row variable in it until closing (results of
    /// broadcasting operations are templates `<τ>.[dims]`; opened declarations).
    pub open: [bool; 3],
    /// Per row: whether a `1!` of the witness may be a variable in the solver (a template axis
    /// facing only `1!`s), which closes to a cap if the row is broadcast into a larger one.
    pub soft: [bool; 3],
    /// Whether the witness is the solution the solver must find (no opened leaf and no guess
    /// upstream).
    pub determined: bool,
}

/// Sizes drawn for fresh dimensions, simplest first.
const SIZES: [u64; 8] = [2, 3, 4, 5, 6, 7, 8, 12];

/// The generator state.
pub struct Pool<'c> {
    /// The configuration.
    pub cfg: &'c GenConfig,
    /// Tensors, in definition order (leaves and results interleaved).
    pub entries: Vec<Entry>,
    /// The program so far.
    pub program: Program,
    /// Whether some leaf was declared with less than its witness shape.
    pub opened: bool,
    /// Whether a row the solver keeps open is an operand of a broadcast whose result row is
    /// more material: the solver then closes it to that *cap* (OCANNL's stage 6), which the
    /// witness does not model, so no witness is the solver's answer.
    pub capped: bool,
    /// Whether fresh dimensions often take sizes near 2^62 ([`super::Extreme::HugeSizes`]).
    pub huge: bool,
}

impl<'c> Pool<'c> {
    /// An empty pool.
    pub fn new(cfg: &'c GenConfig) -> Pool<'c> {
        let program = Program::default();
        Pool { cfg, entries: Vec::new(), program, opened: false, capped: false, huge: false }
    }

    /// A fresh dimension: mostly default sizes, sometimes `1!`, a user-written `1` or a named
    /// basis.
    pub fn dim(&self, ch: &mut Choices) -> ConcreteDim {
        let mut size = SIZES[ch.below(SIZES.len().min(self.cfg.max_size_index + 1))];
        if self.huge && ch.one_in(2) {
            size = super::extremes::huge_size(ch);
        }
        match ch.below(12) {
            0..=7 => ConcreteDim::new(size),
            8 => ConcreteDim::top(),
            9 => ConcreteDim::new(1),
            10 => ConcreteDim::named("h", size),
            _ => ConcreteDim::named("w", size),
        }
    }

    /// A fresh row of at most `max` axes.
    pub fn row(&self, ch: &mut Choices, max: usize) -> Vec<ConcreteDim> {
        let n = ch.below(max.min(self.cfg.max_rank) + 1);
        (0..n).map(|_| self.dim(ch)).collect()
    }

    /// Fresh rows for a new leaf.
    pub fn rows(&self, ch: &mut Choices) -> Rows {
        [self.row(ch, 2), self.row(ch, 2), self.row(ch, 3)]
    }

    /// Picks an existing tensor satisfying `ok`, or `None` (meaning: make a new leaf) with
    /// probability about one in (candidates + 1).
    pub fn pick(&self, ch: &mut Choices, ok: impl Fn(&Entry) -> bool) -> Option<usize> {
        let cands: Vec<usize> = (0..self.entries.len()).filter(|i| ok(&self.entries[*i])).collect();
        let i = ch.below(cands.len() + 1);
        cands.get(i).copied()
    }

    /// Declares a new leaf with these witness rows; it may be declared opened (row variables
    /// instead of some axes, or no shape) and may be a parameter.
    pub fn leaf(&mut self, ch: &mut Choices, rows: Rows) -> usize {
        let name = format!("x{}", self.program.decls.len());
        let param = ch.one_in(4);
        let mut lead = [false; 3];
        let mut open = [false; 3];
        let shape = if self.cfg.open_leaves && ch.one_in(3) {
            self.opened = true;
            open = [true; 3];
            self.opened_text(ch, &rows, &mut lead)
        } else {
            Some(ConcreteShape::from_rows(rows[0].clone(), rows[1].clone(), rows[2].clone()))
                .map(|s| s.to_string())
        };
        let determined = shape.as_deref().is_some_and(|t| !t.contains(".."));
        self.program.decls.push(Decl { name: name.clone(), shape, param, values: None, line: 0 });
        self.entries.push(Entry { name, rows, lead, open, soft: [false; 3], determined });
        self.entries.len() - 1
    }

    fn opened_text(&self, ch: &mut Choices, rows: &Rows, lead: &mut [bool; 3]) -> Option<String> {
        if ch.one_in(4) {
            *lead = [true; 3];
            return None;
        }
        let mut text = String::new();
        for kind in RowKind::ALL {
            let row = &rows[kind.index()];
            let body = match ch.below(3) {
                0 => join_dims(row),
                1 => "...".to_string(),
                _ => {
                    let t = ch.below(row.len() + 1);
                    let l = ch.below(row.len() - t + 1);
                    lead[kind.index()] = l > 0;
                    let mut items: Vec<String> = row[..l].iter().map(|d| d.to_string()).collect();
                    items.push("...".into());
                    items.extend(row[row.len() - t..].iter().map(|d| d.to_string()));
                    items.join(",")
                }
            };
            match kind {
                RowKind::Batch if !body.is_empty() => text.push_str(&format!("{body}|")),
                RowKind::Input if !body.is_empty() => text.push_str(&format!("{body}->")),
                RowKind::Output => text.push_str(&body),
                _ => {}
            }
        }
        Some(text)
    }

    /// Records a statement and its result.
    pub fn result(
        &mut self,
        op: OpKind,
        args: &[usize],
        spec: Option<String>,
        out: Entry,
    ) -> usize {
        let line = self.program.stmts.len();
        let soft = self.soft_rows(op, args, &out.rows);
        let args = args.iter().map(|a| self.entries[*a].name.clone()).collect();
        let name = format!("t{line}");
        self.program.stmts.push(Stmt {
            op,
            out: name.clone(),
            args,
            spec,
            accum: None,
            combine: None,
            line,
        });
        self.entries.push(Entry { name, soft, ..out });
        self.entries.len() - 1
    }

    /// Which result rows may hold soft `1!`s (see [`Entry::soft`]).
    fn soft_rows(&self, op: OpKind, args: &[usize], rows: &Rows) -> [bool; 3] {
        let has_top = |i: usize| rows[i].iter().any(ConcreteDim::is_top);
        match op {
            OpKind::Pointwise | OpKind::Compose | OpKind::Transpose | OpKind::Numpy => {
                [0, 1, 2].map(has_top)
            }
            OpKind::BatchSlice => args.first().map_or([false; 3], |a| self.entries[*a].soft),
            _ => {
                let any = args.iter().any(|a| self.entries[*a].soft.iter().any(|s| *s));
                [0, 1, 2].map(|i| any && has_top(i))
            }
        }
    }

    /// Notes that operand `arg`'s row `i` is compared (`⊑`) with a result row `res`.
    pub fn broadcast_into(&mut self, arg: usize, i: usize, res: &[ConcreteDim]) {
        let e = &self.entries[arg];
        if (e.open[i] || e.soft[i]) && e.rows[i] != res {
            self.capped = true;
        }
    }

    /// Whether all of these tensors are determined.
    pub fn determined(&self, args: &[usize]) -> bool {
        args.iter().all(|a| self.entries[*a].determined)
    }
}
