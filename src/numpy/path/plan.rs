//! Choosing the path: the requested strategy, or for `auto` the cheapest of several, with
//! the memory limit resolved and every search bounded.

use super::dp::{dp, DpFailure, DP_MAX_OPERANDS};
use super::error::PathError;
use super::explicit::{check_limit, validate};
use super::greedy::greedy;
use super::optimal::{optimal, OPTIMAL_MAX_OPERANDS};
use super::options::{MemoryLimit, Optimize, PathOptions};
use super::problem::Problem;
use super::ssa::Path;

/// The most operands `auto` searches exhaustively (more go to dp and greedy).
pub const AUTO_OPTIMAL_MAX_OPERANDS: usize = 10;

/// The subset pairs `dp` examines at most when asked for by name (under a second).
pub const DP_BUDGET: u64 = 1 << 24;

/// The subset pairs `dp` examines at most inside `auto` (well under a millisecond).
pub const AUTO_DP_BUDGET: u64 = 1 << 16;

/// Which planner produced a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Planner {
    /// One or two operands: a single step, nothing to choose.
    Direct,
    /// The greedy heuristic.
    Greedy,
    /// The exhaustive search.
    Optimal,
    /// Dynamic programming over connected subgraphs.
    Dp,
    /// The caller's path.
    Explicit,
}

impl Planner {
    /// The planner's name.
    pub fn name(self) -> &'static str {
        match self {
            Planner::Direct => "direct",
            Planner::Greedy => "greedy",
            Planner::Optimal => "optimal",
            Planner::Dp => "dp",
            Planner::Explicit => "explicit",
        }
    }
}

/// The limit in elements: `MaxInput` is the largest operand or the output.
pub(crate) fn resolve_limit(
    p: &Problem,
    limit: Option<MemoryLimit>,
) -> Result<Option<u128>, PathError> {
    match limit {
        None => Ok(None),
        Some(MemoryLimit::Elements(0)) => Err(PathError::ZeroMemoryLimit),
        Some(MemoryLimit::Elements(n)) => Ok(Some(u128::from(n))),
        Some(MemoryLimit::MaxInput) => {
            let sizes = p.inputs.iter().chain([&p.output]).map(|&m| p.size(m));
            Ok(Some(sizes.max().unwrap_or(1)))
        }
    }
}

/// The path for `p` under `opts` and the planner that produced it.
pub(crate) fn plan(p: &Problem, opts: &PathOptions) -> Result<(Path, Planner), PathError> {
    let limit = resolve_limit(p, opts.memory_limit)?;
    let n = p.len();
    if let Optimize::Explicit(path) = &opts.optimize {
        validate(path, n)?;
        if let Some(l) = limit {
            check_limit(p, path, l)?;
        }
        return Ok((path.clone(), Planner::Explicit));
    }
    if n <= 2 {
        return Ok((vec![(0..n).collect()], Planner::Direct));
    }
    match opts.optimize {
        Optimize::Greedy => Ok((greedy(p, limit), Planner::Greedy)),
        Optimize::Optimal => {
            if n > OPTIMAL_MAX_OPERANDS {
                let max = OPTIMAL_MAX_OPERANDS;
                return Err(PathError::TooManyOperands { strategy: "optimal", operands: n, max });
            }
            let g = greedy(p, limit);
            Ok((optimal(p, limit, p.path_cost_f(&g)).unwrap_or(g), Planner::Optimal))
        }
        Optimize::Dp => match dp(p, limit, DP_BUDGET) {
            Ok(path) => Ok((path, Planner::Dp)),
            Err(DpFailure::TooMany) => {
                let max = DP_MAX_OPERANDS;
                Err(PathError::TooManyOperands { strategy: "dp", operands: n, max })
            }
            Err(DpFailure::Budget) => {
                Err(PathError::SearchBudget { strategy: "dp", budget: DP_BUDGET })
            }
            Err(DpFailure::Limit) => Err(PathError::NoPathWithinLimit {
                strategy: "dp",
                limit: limit.unwrap_or(u128::MAX),
            }),
        },
        _ => Ok(auto(p, limit)),
    }
}

/// The cheapest by FLOPs of greedy, the exhaustive search (up to
/// [`AUTO_OPTIMAL_MAX_OPERANDS`] operands) and a budgeted dp; ties keep the earlier of
/// optimal, dp, greedy.
fn auto(p: &Problem, limit: Option<u128>) -> (Path, Planner) {
    let n = p.len();
    let g = greedy(p, limit);
    let mut cost = p.path_cost_f(&g);
    let mut best = (g, Planner::Greedy);
    if n <= AUTO_OPTIMAL_MAX_OPERANDS {
        if let Some(o) = optimal(p, limit, cost) {
            cost = p.path_cost_f(&o);
            best = (o, Planner::Optimal);
        }
    }
    if let Ok(d) = dp(p, limit, AUTO_DP_BUDGET) {
        let c = p.path_cost_f(&d);
        if c < cost {
            best = (d, Planner::Dp);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::super::problem::letters;
    use super::*;
    use crate::code::{Coded, ErrorCode};

    #[test]
    fn auto_is_never_worse_than_greedy_or_optimal() {
        let p = letters("ab,cd,ef,fg", &|c| if c == 'g' { 2 } else { 10 });
        let (a, _) = plan(&p, &PathOptions::default()).unwrap();
        let (g, _) = plan(&p, &PathOptions::new(Optimize::Greedy)).unwrap();
        let (o, s) = plan(&p, &PathOptions::new(Optimize::Optimal)).unwrap();
        assert_eq!(s, Planner::Optimal);
        assert!(p.path_cost_f(&a) <= p.path_cost_f(&g).min(p.path_cost_f(&o)));
    }

    #[test]
    fn bounds_and_limits_are_coded_errors() {
        let many = letters(&vec!["ab"; 17].join(","), &|_| 2);
        let e = plan(&many, &PathOptions::new(Optimize::Optimal)).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Unsupported);
        let chain = letters("ab,bc,cd,de->ae", &|_| 10);
        let tight = PathOptions::new(Optimize::Dp).memory_limit(MemoryLimit::Elements(10));
        assert_eq!(plan(&chain, &tight).unwrap_err().code(), ErrorCode::Elems);
        let zero = PathOptions::new(Optimize::Greedy).memory_limit(MemoryLimit::Elements(0));
        assert_eq!(plan(&chain, &zero).unwrap_err().code(), ErrorCode::Value);
        // Optimal and greedy end with one step over the rest instead.
        for o in [Optimize::Optimal, Optimize::Greedy, Optimize::Auto] {
            let opts = PathOptions::new(o).memory_limit(MemoryLimit::Elements(10));
            assert_eq!(plan(&chain, &opts).unwrap().0, vec![vec![0, 1, 2, 3]]);
        }
    }
}
