//! Closing the world after the operations are in (stages 2–7): leaf rows and dims close
//! *down* to their caps, unconstrained leaf rows close empty and dims to the broadcast top,
//! interior ones close *up*; parameters are never guessed.

use std::collections::HashSet;

use smallvec::SmallVec;

use super::join::join_rows;
use crate::code::ErrorCode;
use crate::ids::{DimVar, RowVar, TensorId};
use crate::infer::error::InferError;
use crate::infer::graph::TensorEntry;
use crate::infer::solve::constraint::{Constraint, RowArg};
use crate::infer::solve::env::sole;
use crate::infer::solve::read::shape_walk::Item;
use crate::infer::solve::solver::Solver;
use crate::infer::solve::store::{RowId, ShapeRef};
use crate::shape::{pushed, Dim, Row, Solved};
use crate::spec::ast::Name;

/// A tensor whose shape takes part in closing.
struct Closing<'a> {
    /// The tensor.
    id: TensorId,
    /// Its entry (name, for messages).
    entry: &'a TensorEntry,
    /// The graph's names.
    names: &'a [Name],
    /// Its shape (possibly with variables).
    shape: ShapeRef,
    /// Whether it is a leaf (its unknowns close downward).
    leaf: bool,
    /// Whether it is a parameter (its unknowns are never guessed).
    param: bool,
}

/// The unbound variables of a shape, and whether it is fully solved.
struct Vars {
    dims: SmallVec<[DimVar; 8]>,
    rows: SmallVec<[RowVar; 4]>,
    solved: bool,
}

/// Which variables a list already holds: searched in the list while it is short, in a set
/// once it is long.
#[derive(Default)]
struct Seen {
    /// A fixed hash: made for every shape closing looks at, it must cost nothing when unused.
    set: HashSet<DimVar, foldhash::fast::FixedState>,
}

impl Seen {
    /// Whether `v` is not in `list` yet (the list of the variables seen so far).
    fn first_dim(&mut self, list: &[DimVar], v: DimVar) -> bool {
        const SHORT: usize = 16;
        if list.len() < SHORT {
            return !list.contains(&v);
        }
        if self.set.is_empty() {
            self.set.extend(list.iter().copied());
        }
        self.set.insert(v)
    }
}

/// The tensors to close, looked up as they are visited (no list of them is built).
#[derive(Clone, Copy)]
struct Tensors<'a> {
    entries: &'a [TensorEntry],
    names: &'a [Name],
    ids: &'a [TensorId],
}

impl<'a> Tensors<'a> {
    fn all(self) -> impl Iterator<Item = Closing<'a>> {
        self.ids.iter().map(move |&id| {
            let e = &self.entries[id.index()];
            let names = self.names;
            Closing { id, entry: e, names, shape: e.shape, leaf: e.leaf, param: e.param }
        })
    }
}

impl Closing<'_> {
    /// Its name, for messages.
    fn name(&self) -> Name {
        self.entry.name(self.id, self.names)
    }
}

impl Solver {
    /// The unbound variables of a shape, in memory order, without repeats (a shape of many
    /// axes checks repeats in a set).
    fn vars_of(&mut self, shape: ShapeRef) -> Vars {
        let mut vars = Vars { dims: SmallVec::new(), rows: SmallVec::new(), solved: true };
        // Affine and concatenation axes are expanded after the walk, which holds the env.
        let mut exprs: SmallVec<[Dim; 2]> = SmallVec::new();
        let mut seen = Seen::default();
        self.env.visit_shape(shape, &mut |item| match item {
            Item::Dim(Dim::Solved(_)) => {}
            Item::Dim(Dim::Var(v)) => {
                vars.solved = false;
                if seen.first_dim(&vars.dims, v) {
                    vars.dims.push(v)
                }
            }
            Item::Dim(d) => {
                vars.solved = false;
                exprs.push(d);
            }
            Item::Row(v) => {
                vars.solved = false;
                if !vars.rows.contains(&v) {
                    vars.rows.push(v);
                }
            }
        });
        for d in exprs {
            self.env.for_each_root(d, &mut |v| {
                if seen.first_dim(&vars.dims, v) {
                    vars.dims.push(v)
                }
            });
        }
        vars
    }

    /// Calls `f` with each tensor (or leaf) and its variables, skipping tensors already found
    /// solved (a solved shape stays solved, and closing has nothing to do for it).
    fn each_open(
        &mut self,
        tensors: &Tensors,
        done: &mut [bool],
        leaves_only: bool,
        mut f: impl FnMut(&mut Self, &Closing, Vars) -> Result<(), InferError>,
    ) -> Result<(), InferError> {
        for (i, t) in tensors.all().enumerate() {
            if done[i] || (leaves_only && !t.leaf) {
                continue;
            }
            let vars = self.vars_of(t.shape);
            if vars.solved {
                done[i] = true;
                continue;
            }
            f(self, &t, vars)?;
        }
        Ok(())
    }

    /// Calls `f` with the unbound row variables of each tensor (or leaf) not yet found solved
    /// that has some. Reads no axis, so it finds no tensor solved.
    fn each_open_rows(
        &mut self,
        tensors: &Tensors,
        done: &[bool],
        leaves_only: bool,
        mut f: impl FnMut(&mut Self, &[RowVar]) -> Result<(), InferError>,
    ) -> Result<(), InferError> {
        let mut rows: SmallVec<[RowVar; 4]> = SmallVec::new();
        for (i, t) in tensors.all().enumerate() {
            if done[i] || (leaves_only && !t.leaf) {
                continue;
            }
            rows.clear();
            self.env.visit_row_vars(t.shape, &mut |v| {
                if !rows.contains(&v) {
                    rows.push(v);
                }
            });
            if !rows.is_empty() {
                f(self, &rows)?;
            }
        }
        Ok(())
    }

    /// Runs stages 2 to 7 over the given tensors; afterwards their shapes hold no variables.
    /// Returns the tensors whose shapes are still not fully solved sizes (normally none).
    /// `solved` says that every shape is already solved (then stages 3–7 are skipped when
    /// nothing is deferred).
    pub fn finish(
        &mut self,
        (entries, names): (&[TensorEntry], &[Name]),
        ids: &[TensorId],
        solved: bool,
    ) -> Result<Vec<TensorId>, InferError> {
        let tensors = Tensors { entries, names, ids };
        let mut done: SmallVec<[bool; 16]> = smallvec::smallvec![solved; ids.len()];
        let result = self.finish_stages(&tensors, &mut done);
        self.stage = 1;
        self.wake_deferred();
        result?;
        let mut unsolved = Vec::new();
        for (t, done) in ids.iter().zip(done) {
            if !done && !self.env.shape_solved(entries[t.index()].shape) {
                unsolved.push(*t);
            }
        }
        Ok(unsolved)
    }

    fn finish_stages(&mut self, tensors: &Tensors, done: &mut [bool]) -> Result<(), InferError> {
        self.stage = 2;
        self.wake_deferred();
        self.collapse_single_links()?;
        // Eager use (every step evaluated at once): nothing left for stages 3–7 to close.
        if !self.has_deferred() && !done.contains(&false) {
            return Ok(());
        }
        self.stage = 3;
        self.wake_deferred();
        self.each_open_rows(tensors, done, true, |s, rows| s.close_rows_to_caps(rows))?;
        self.run()?;
        self.stage = 4;
        self.wake_deferred();
        let waiting = self.deferred_broadcast_rows();
        self.each_open(tensors, done, true, |s, t, vars| s.close_leaf_stage4(t, vars, &waiting))?;
        self.run()?;
        self.stage = 5;
        self.wake_deferred();
        let waiting = self.deferred_dims();
        self.each_open(tensors, done, true, |s, t, vars| s.guess_leaf_dims(t, vars, &waiting))?;
        self.run()?;
        self.stage = 6;
        self.wake_deferred();
        self.run()?;
        self.each_open_rows(tensors, done, false, |s, rows| s.close_rows_to_caps(rows))?;
        self.run()?;
        self.stage = 7;
        self.wake_deferred();
        self.run()?;
        self.each_open(tensors, done, false, |s, t, vars| {
            s.close_all(t, vars)?;
            s.run()
        })?;
        if self.has_deferred() {
            let msg = "some constraints could not be decided (not enough shape information)";
            return Err(self.error(ErrorCode::Unresolved, msg.into()));
        }
        Ok(())
    }

    /// Stage 2: a variable whose only upper neighbour has it as only lower neighbour, neither
    /// with a cap, is equal to it. Only variables linked since the last collapse can newly
    /// qualify (links and caps are only ever added), so only those are looked at, in index order.
    ///
    /// Every pair is chosen before any is united (the rule reads the links as stage 1 left
    /// them); the equalities then run in batches, so that the queue of a large program stays
    /// small instead of holding one constraint per variable.
    fn collapse_single_links(&mut self) -> Result<(), InferError> {
        let mut dims = std::mem::take(&mut self.env.linked_dims);
        for v in &mut dims {
            *v = self.env.dim_root(*v);
        }
        ascending_distinct(&mut dims, DimVar::index, DimVar::from_index, self.env.dim_info.len());
        let mut dim_pairs = Vec::new();
        for x in dims {
            if self.env.dim_bound(x) {
                continue;
            }
            let info = &self.env.dim_info[x.index()];
            if let ([y], None) = (info.upper(), info.cap()) {
                let y = *y;
                let yi = &self.env.dim_info[y.index()];
                if yi.lower() == [x] && yi.cap().is_none() {
                    dim_pairs.push((x, y));
                }
            }
        }
        let mut rows = std::mem::take(&mut self.env.linked_rows);
        for v in &mut rows {
            *v = self.env.row_root(*v);
        }
        ascending_distinct(&mut rows, RowVar::index, RowVar::from_index, self.env.row_info.len());
        let mut row_pairs = Vec::new();
        for x in rows {
            if self.env.row_bound(x) {
                continue;
            }
            let no_caps = |s: &Self, v: RowVar| s.env.row_caps(v).next().is_none();
            let Some(y) = sole(self.env.row_upper(x)) else { continue };
            if no_caps(self, x) && sole(self.env.row_lower(y)) == Some(x) && no_caps(self, y) {
                row_pairs.push((x, y));
            }
        }
        let dim_eqs =
            dim_pairs.into_iter().map(|(x, y)| Constraint::DimEq(Dim::Var(x), Dim::Var(y)));
        let row_eqs = row_pairs.into_iter().map(|(x, y)| Constraint::RowEq(x.into(), y.into()));
        self.run_in_batches(dim_eqs.chain(row_eqs))
    }

    /// Queues and runs constraints a batch at a time.
    fn run_in_batches(&mut self, cs: impl Iterator<Item = Constraint>) -> Result<(), InferError> {
        const BATCH: usize = 4096;
        for (i, c) in cs.enumerate() {
            self.push(c);
            if i % BATCH == BATCH - 1 {
                self.run()?;
            }
        }
        self.run()
    }

    fn close_rows_to_caps(&mut self, rows: &[RowVar]) -> Result<(), InferError> {
        for &v in rows {
            self.decide(|s| s.close_row_to_cap(v), |s| s.close_row_to_top_cap(v))?;
        }
        Ok(())
    }

    /// Binds a row variable to the join of its caps (the most material row below all of them).
    pub fn close_row_to_cap(&mut self, v: RowVar) -> Result<(), InferError> {
        let v = self.env.row_root(v);
        if self.env.row_bound(v) {
            return Ok(());
        }
        if self.env.row_caps(v).next().is_none() {
            return Ok(());
        }
        let ids: SmallVec<[RowId; 2]> = pushed(self.env.row_caps(v));
        // Each cap is substituted straight from the store.
        let mut caps: SmallVec<[Row; 2]> =
            ids.iter().map(|&id| self.env.row_arg(&RowArg::Stored(id))).collect();
        match caps.len() {
            0 => Ok(()),
            1 => self.bind_row_var_to_cap(v, caps.swap_remove(0), ids[0]),
            _ => join_rows(&caps).map_or(Ok(()), |joined| self.bind_row_var(v, joined)),
        }
    }

    /// Stage 4: leaf dims with a cap take it; leaf rows with nothing known close empty. A row
    /// at a marker of a deferred broadcast (`waiting`) is not "nothing known": that broadcast,
    /// decided at stage 6, may still give it a cap or axes, whichever operand came first.
    fn close_leaf_stage4(
        &mut self,
        t: &Closing,
        vars: Vars,
        waiting: &HashSet<RowVar>,
    ) -> Result<(), InferError> {
        for v in vars.dims {
            if let (false, Some(cap)) =
                (self.env.dim_bound(v), self.env.dim_info[v.index()].cap().cloned())
            {
                let to = |d: Dim| {
                    move |s: &mut Solver| {
                        s.push(Constraint::DimEq(Dim::Var(v), d));
                        Ok(())
                    }
                };
                self.decide(to(cap), to(Dim::top()))?;
            }
        }
        for v in vars.rows {
            if self.env.row_bound(v)
                || self.env.row_caps(v).next().is_some()
                || waiting.contains(&v)
            {
                continue;
            }
            let info = &self.env.row_info[v.index()];
            let pointwise_only = info.used_in_pointwise && !info.used_in_spec;
            if t.param && !info.safe_to_guess && !pointwise_only {
                let msg = format!(
                    "the parameter `{}` has a row of unknown axes that no operation determines: \
                     declare it, or use the parameter where its axes are fixed",
                    t.name()
                );
                return Err(self.unresolved(msg, t.id));
            }
            self.note_empty_row(t.id, t.shape, v);
            self.bind_row_var(v, Row::empty())?;
        }
        Ok(())
    }

    /// Stage 5: unconstrained leaf dims become the broadcast top (size 0 if discardable);
    /// a parameter's are an error. A dim a deferred constraint mentions (`waiting`) is not
    /// unconstrained: it waits for that constraint, decided at stage 6.
    fn guess_leaf_dims(
        &mut self,
        t: &Closing,
        vars: Vars,
        waiting: &HashSet<DimVar>,
    ) -> Result<(), InferError> {
        for v in vars.dims {
            let info = &self.env.dim_info[v.index()];
            if info.cap().is_some() || info.at_least() > 0 || waiting.contains(&v) {
                continue;
            }
            if t.param {
                return Err(self.forgot_hidden_dim(t, v));
            }
            let size = if info.discardable() { 0 } else { 1 };
            self.note_dim_guess(t.id, v, size);
            let guess = if size == 0 { Dim::size(0) } else { Dim::top() };
            self.push(Constraint::DimEq(Dim::Var(v), guess));
        }
        Ok(())
    }

    fn forgot_hidden_dim(&mut self, t: &Closing, v: DimVar) -> InferError {
        let msg = format!(
            "the parameter `{}` has a dimension `{}` that no operation determines \
             (a hidden dimension to specify)",
            t.name(),
            self.var_name(v)
        );
        let mut e = self.unresolved(msg, t.id);
        if let InferError::Shape(s) = &mut e {
            s.unknown = Some(self.var_name(v));
        }
        e
    }

    fn unresolved(&self, msg: String, tensor: TensorId) -> InferError {
        let mut e = InferError::shape(ErrorCode::Unresolved, msg);
        if let InferError::Shape(s) = &mut e {
            s.tensors.push(tensor);
        }
        e
    }

    /// Stage 7: every remaining dim takes its cap (checked against fixed-index bounds), its
    /// lower bound (the broadcast top for a bound of 1), or the broadcast top; every remaining
    /// row closes empty.
    fn close_all(&mut self, t: &Closing, vars: Vars) -> Result<(), InferError> {
        for v in vars.dims {
            if self.env.dim_bound(v) {
                continue;
            }
            if t.param {
                return Err(self.forgot_hidden_dim(t, v));
            }
            let info = &self.env.dim_info[v.index()];
            let free = info.cap().is_none() && info.at_least() == 0;
            let value = self.closing_value(v)?;
            if let (true, Dim::Solved(s)) = (free, &value) {
                self.note_dim_guess(t.id, v, s.size);
            }
            self.push(Constraint::DimEq(Dim::Var(v), value));
            self.run()?;
        }
        for v in vars.rows {
            if !self.env.row_bound(v) {
                // A result's open row closing empty is the least row its operands allow: a
                // leaf's is a choice of rank.
                if t.leaf {
                    self.note_empty_row(t.id, t.shape, v);
                }
                self.bind_row_var(v, Row::empty())?;
                self.run()?;
            }
        }
        Ok(())
    }

    fn closing_value(&mut self, v: DimVar) -> Result<Dim, InferError> {
        let info = &self.env.dim_info[v.index()];
        let (at_least, discardable) = (info.at_least(), info.discardable());
        match info.cap().cloned().map(|c| self.env.dim(&c)) {
            Some(Dim::Solved(cap)) if at_least > cap.size => {
                let msg =
                    format!("index {} is used where the dimension has size {}", at_least - 1, {
                        cap.size
                    });
                Err(self.error(ErrorCode::Bounds, msg))
            }
            // A lone fixed index 0 needs size 1: the broadcast top, with or without a cap
            // (whether a cap has arrived by now depends on the order of operations).
            _ if at_least == 1 => Ok(self.top_or_conv_over(v)),
            Some(cap) => Ok(cap),
            None if at_least > 0 => Ok(Dim::Solved(Solved::new(at_least))),
            None if discardable => Ok(Dim::size(0)),
            None => Ok(self.top_or_conv_over(v)),
        }
    }

    /// The broadcast top, or size 1 with the basis a deferred valid convolution needs of its
    /// `over` (`Solver::conv_over_basis`): same size, so the same sizes are chosen, but the
    /// convolution's axis keeps the basis its solved size has.
    fn top_or_conv_over(&mut self, v: DimVar) -> Dim {
        match self.conv_over_basis(v) {
            Some(basis) => Dim::Solved(Solved { size: 1, basis }),
            None => Dim::top(),
        }
    }
}

/// Sorts variables (indices below `universe`, the number of variables) ascending and drops
/// repeats. Many of them (a large graph links millions) are marked in a bitmap and read back
/// in order, which costs a bit per variable instead of a comparison sort; few are sorted.
fn ascending_distinct<T: Copy + Ord>(
    vars: &mut Vec<T>,
    index: impl Fn(T) -> usize,
    from_index: impl Fn(usize) -> T,
    universe: usize,
) {
    if vars.len() < 256
        || vars.len().saturating_mul(1024) < universe
        || vars.iter().any(|&v| index(v) >= universe)
    {
        vars.sort_unstable();
        vars.dedup();
        return;
    }
    let mut marks = vec![0u64; universe.div_ceil(64)];
    for &v in vars.iter() {
        let i = index(v);
        marks[i / 64] |= 1 << (i % 64);
    }
    vars.clear();
    for (w, &word) in marks.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            vars.push(from_index(w * 64 + bits.trailing_zeros() as usize));
            bits &= bits - 1;
        }
    }
}
