//! Shrinking a failing program to a minimal one that still fails the same way.
//!
//! Two families of edits: *structural* ones (drop a statement with everything that uses its
//! result, drop an unused leaf), which keep a satisfiable program satisfiable, and *shape*
//! edits (drop an axis of a leaf, shrink a size to 2 or 1 or halve it, forget a basis),
//! which may not.
//! A failure that is only a bug on satisfiable programs ([`super::FailureKind::Rejected`])
//! must be shrunk with structural edits only.

use super::case_file::shape_text_string;
use crate::infer::program::Program;
use crate::shape::{parse_shape_string, TextAxis, TextRow};
use crate::spec::ast::RowKind;

/// Edits allowed while shrinking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edits {
    /// Only edits that keep a satisfiable program satisfiable.
    Structural,
    /// Also edits of leaf shapes.
    All,
}

/// Shrinks `p` while `fails` holds, trying at most `budget` candidates. `fails(p)` should be
/// true on entry.
pub fn shrink_program(
    p: &Program,
    edits: Edits,
    budget: usize,
    fails: &mut dyn FnMut(&Program) -> bool,
) -> Program {
    let mut best = p.clone();
    let tries = std::cell::Cell::new(0usize);
    let mut attempt = |cand: Program, best: &mut Program| -> bool {
        if tries.get() >= budget {
            return false;
        }
        tries.set(tries.get() + 1);
        if fails(&cand) {
            *best = cand;
            true
        } else {
            false
        }
    };
    loop {
        let mut progress = false;
        for i in (0..best.stmts.len()).rev() {
            if i < best.stmts.len() && attempt(without_stmt(&best, i), &mut best) {
                progress = true;
            }
        }
        for i in (0..best.decls.len()).rev() {
            if i < best.decls.len() && unused(&best, i) {
                let mut cand = best.clone();
                cand.decls.remove(i);
                progress |= attempt(cand, &mut best);
            }
        }
        if edits == Edits::All {
            for cand in shape_edits(&best) {
                if attempt(cand, &mut best) {
                    progress = true;
                    break;
                }
            }
        }
        if !progress || tries.get() >= budget {
            return best;
        }
    }
}

/// The program without statement `i` and every statement that (transitively) uses it.
pub fn without_stmt(p: &Program, i: usize) -> Program {
    let mut gone: Vec<String> = vec![p.stmts[i].out.clone()];
    let mut out = Program { decls: p.decls.clone(), stmts: Vec::new() };
    for (j, s) in p.stmts.iter().enumerate() {
        if j == i {
            continue;
        }
        if j > i && s.args.iter().any(|a| gone.contains(a)) {
            gone.push(s.out.clone());
            continue;
        }
        out.stmts.push(s.clone());
    }
    out
}

fn unused(p: &Program, i: usize) -> bool {
    let name = &p.decls[i].name;
    !p.stmts.iter().any(|s| s.args.contains(name))
}

/// Every single-step simplification of a leaf shape, simplest first.
fn shape_edits(p: &Program) -> Vec<Program> {
    let mut out = Vec::new();
    for (i, d) in p.decls.iter().enumerate() {
        let Some(text) = &d.shape else { continue };
        let Ok(t) = parse_shape_string(text) else { continue };
        for kind in RowKind::ALL {
            let row = t.row(kind);
            for variant in row_edits(row) {
                let mut t2 = t.clone();
                *row_mut(&mut t2, kind) = variant;
                let mut cand = p.clone();
                cand.decls[i].shape = Some(shape_text_string(&t2));
                out.push(cand);
            }
        }
        if d.param {
            let mut cand = p.clone();
            cand.decls[i].param = false;
            out.push(cand);
        }
    }
    out
}

fn row_mut(t: &mut crate::shape::ShapeText, kind: RowKind) -> &mut TextRow {
    match kind {
        RowKind::Batch => &mut t.batch,
        RowKind::Input => &mut t.input,
        RowKind::Output => &mut t.output,
    }
}

fn row_edits(row: &TextRow) -> Vec<TextRow> {
    let mut out = Vec::new();
    for (flank, len) in [(0, row.beg.len()), (1, row.dims.len())] {
        for j in 0..len {
            let mut r = row.clone();
            let axes = if flank == 0 { &mut r.beg } else { &mut r.dims };
            axes.remove(j);
            out.push(r);
        }
    }
    for (flank, len) in [(0, row.beg.len()), (1, row.dims.len())] {
        for j in 0..len {
            let axis = if flank == 0 { &row.beg[j] } else { &row.dims[j] };
            for simpler in axis_edits(axis) {
                let mut r = row.clone();
                let axes = if flank == 0 { &mut r.beg } else { &mut r.dims };
                axes[j] = simpler;
                out.push(r);
            }
        }
    }
    out
}

/// Simpler axes: the basis forgotten, the size made 1 or 2 or halved (a size near 2^62 takes
/// many halvings where 1 and 2 break the program's constraints).
fn axis_edits(a: &TextAxis) -> Vec<TextAxis> {
    let mut out = Vec::new();
    if a.basis.is_some() || a.top {
        out.push(TextAxis { size: a.size, basis: None, top: false });
    }
    for size in [1, 2, a.size / 2] {
        if a.size > size
            && size > 0
            && !a.top
            && out.iter().all(|o: &TextAxis| o.size != size || o.basis != a.basis)
        {
            out.push(TextAxis { size, ..a.clone() });
        }
    }
    out
}
