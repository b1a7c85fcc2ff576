//! The analyses of the last few einsum calls of a thread, so that a loop calling the same
//! contraction on operands of the same shapes parses its subscripts and infers its sizes
//! once. Only successful analyses are kept; a call that errs recomputes (and reports) every
//! time.

use std::cell::RefCell;
use std::rc::Rc;

use smallvec::SmallVec;

use super::error::EinsumError;
use super::shapes::{analyze, parse_subscripts, Analysis};

/// Analyses kept per thread.
const ENTRIES: usize = 8;
/// Longer subscripts are not kept (the cache holds a copy).
const MAX_SPEC: usize = 256;

struct Entry {
    spec: Box<str>,
    operands: usize,
    /// Every operand's rank, then all sizes, concatenated.
    shapes: SmallVec<[usize; 12]>,
    analysis: Rc<Analysis>,
}

#[derive(Default)]
struct Recent {
    entries: Vec<Entry>,
    next: usize,
}

thread_local! {
    static RECENT: RefCell<Recent> = RefCell::new(Recent::default());
}

fn key(shapes: &[&[usize]]) -> SmallVec<[usize; 12]> {
    let mut k: SmallVec<[usize; 12]> = shapes.iter().map(|s| s.len()).collect();
    k.extend(shapes.iter().flat_map(|s| s.iter().copied()));
    k
}

fn same_shapes(key: &[usize], shapes: &[&[usize]]) -> bool {
    let Some((ranks, sizes)) = key.split_at_checked(shapes.len()) else { return false };
    ranks.iter().zip(shapes).all(|(&r, s)| r == s.len())
        && sizes.iter().copied().eq(shapes.iter().flat_map(|s| s.iter().copied()))
}

/// The analysis of `spec` on operands of `shapes` (from this thread's recent calls when
/// there).
pub fn analysis(spec: &str, shapes: &[&[usize]]) -> Result<Rc<Analysis>, EinsumError> {
    let hit = RECENT.with(|r| {
        let r = r.borrow();
        r.entries
            .iter()
            .find(|e| {
                e.operands == shapes.len() && &*e.spec == spec && same_shapes(&e.shapes, shapes)
            })
            .map(|e| Rc::clone(&e.analysis))
    });
    if let Some(a) = hit {
        return Ok(a);
    }
    let analysis = Rc::new(analyze(&parse_subscripts(spec, shapes.len())?, shapes)?);
    if spec.len() <= MAX_SPEC {
        let entry = Entry {
            spec: spec.into(),
            operands: shapes.len(),
            shapes: key(shapes),
            analysis: Rc::clone(&analysis),
        };
        RECENT.with(|r| {
            let mut r = r.borrow_mut();
            if r.entries.len() < ENTRIES {
                r.entries.push(entry);
            } else {
                let at = r.next;
                r.entries[at] = entry;
                r.next = (at + 1) % ENTRIES;
            }
        });
    }
    Ok(analysis)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::parse_numpy;

    #[test]
    fn recent_analyses_match_fresh_ones() {
        let specs = ["ij,jk->ik", "ii->", "i,i", "...ij,...jk", "bij,bjk->bik", "ij->ji"];
        let shapes: [&[&[usize]]; 6] = [
            &[&[2, 3], &[3, 4]],
            &[&[5, 5]],
            &[&[3], &[3]],
            &[&[2, 1, 3], &[5, 3, 2]],
            &[&[4, 2, 3], &[4, 3, 1]],
            &[&[7, 2]],
        ];
        // More distinct calls than entries, twice over: hits and evictions.
        for round in 0..3 {
            for (spec, sh) in specs.iter().zip(&shapes) {
                for extra in 0..2usize {
                    let grown: Vec<Vec<usize>> = sh
                        .iter()
                        .map(|s| s.iter().map(|&d| d + extra * (d > 1) as usize).collect())
                        .collect();
                    let refs: Vec<&[usize]> = grown.iter().map(|s| s.as_slice()).collect();
                    let fresh = parse_numpy(spec)
                        .map_err(EinsumError::from)
                        .and_then(|p| analyze(&p, &refs));
                    let got = analysis(spec, &refs).map(|a| (*a).clone());
                    assert_eq!(got, fresh, "{spec} {refs:?} round {round}");
                }
            }
        }
        // Errors are not kept: the same bad call errs again.
        assert!(analysis("ij,jk->ik", &[&[2, 3], &[4, 5]]).is_err());
        assert!(analysis("ij,jk->ik", &[&[2, 3], &[4, 5]]).is_err());
        // Same spec, shapes differing only in how sizes split across operands.
        let a = analysis("i,j->ij", &[&[2], &[3]]).unwrap();
        let b = analysis("i,j->ij", &[&[3], &[2]]).unwrap();
        assert_eq!((a.output_shape(), b.output_shape()), (vec![2, 3], vec![3, 2]));
    }
}
