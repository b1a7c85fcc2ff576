//! Checking a path the caller gives: positions within the current operand list, no position
//! twice in a step, every operand contracted into one result, intermediates within the
//! memory limit.

use std::collections::HashSet;

use super::error::PathError;
use super::live_sets::LiveSets;
use super::problem::Problem;

/// Checks that `path` is a valid linear path over `n` operands.
pub(crate) fn validate(path: &[Vec<usize>], n: usize) -> Result<(), PathError> {
    if path.is_empty() {
        return Err(PathError::EmptyPath { operands: n, span: None });
    }
    let mut left = n;
    let mut seen: HashSet<usize> = HashSet::new();
    for (step, positions) in path.iter().enumerate() {
        if positions.is_empty() {
            return Err(PathError::EmptyStep { step, span: None });
        }
        seen.clear();
        for &position in positions {
            if position >= left {
                return Err(PathError::Position { step, position, operands: left, span: None });
            }
            if !seen.insert(position) {
                return Err(PathError::RepeatedPosition { step, position, span: None });
            }
        }
        // Each step takes `len` operands (at most `left`) and adds one result.
        left = left - positions.len() + 1;
    }
    if left != 1 {
        return Err(PathError::Incomplete { remaining: left, span: None });
    }
    Ok(())
}

/// Checks that every intermediate of the valid `path` (each step's result but the last)
/// holds at most `limit` elements.
pub(crate) fn check_limit(p: &Problem, path: &[Vec<usize>], limit: u128) -> Result<(), PathError> {
    let mut live = LiveSets::new(&p.inputs, p.output, path.len());
    for (step, positions) in path.iter().enumerate() {
        let (_, keep) = live.contract(positions);
        let size = p.size(keep);
        if step + 1 < path.len() && size > limit {
            return Err(PathError::IntermediateTooLarge { step, size, limit, span: None });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::problem::letters;
    use super::*;
    use crate::code::{Coded, ErrorCode};

    fn code(path: &[Vec<usize>], n: usize) -> Option<ErrorCode> {
        validate(path, n).err().map(|e| e.code())
    }

    #[test]
    fn invalid_paths_get_coded_errors() {
        assert_eq!(code(&[vec![0, 1], vec![0, 1]], 3), None);
        assert_eq!(code(&[vec![0, 1, 2]], 3), None);
        assert_eq!(code(&[vec![0], vec![0, 1]], 2), None);
        assert_eq!(code(&[], 2), Some(ErrorCode::Arity));
        assert_eq!(code(&[vec![0, 1]], 3), Some(ErrorCode::Arity));
        assert_eq!(code(&[vec![0, 3], vec![0, 1]], 3), Some(ErrorCode::Bounds));
        // After one pairwise step only positions 0 and 1 exist.
        assert_eq!(code(&[vec![0, 1], vec![1, 2]], 3), Some(ErrorCode::Bounds));
        assert_eq!(code(&[vec![1, 1], vec![0, 1]], 3), Some(ErrorCode::Value));
        assert_eq!(code(&[vec![], vec![0, 1]], 2), Some(ErrorCode::Value));
    }

    #[test]
    fn intermediates_over_the_limit_are_refused() {
        let p = letters("ab,bc,cd->ad", &|_| 10);
        let path = [vec![0, 1], vec![0, 1]];
        assert!(check_limit(&p, &path, 100).is_ok());
        let e = check_limit(&p, &path, 99).unwrap_err();
        assert_eq!(
            e,
            PathError::IntermediateTooLarge { step: 0, size: 100, limit: 99, span: None }
        );
        // The output is not an intermediate.
        assert!(check_limit(&p, &[vec![0, 1, 2]], 1).is_ok());
    }
}
