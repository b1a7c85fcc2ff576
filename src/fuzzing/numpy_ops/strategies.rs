//! proptest strategies over the numpy-semantics generators: each draws a list of random
//! choices and interprets it, so proptest's shrinking of the list (fewer, smaller choices)
//! gives simpler programs. [`hunt`] counts the examples a property takes to fail;
//! [`hunt_programs`] does the same for programs, trying the simplest ones first, as
//! Hypothesis does.

use proptest::prelude::*;
use proptest::strategy::ValueTree;

use super::config::NpConfig;
use super::generate::{draw_einsum_case, draw_program};
use super::mutate::near_valid;
use super::program::NpProgram;
use super::shrink::shrink_np_program;
use crate::fuzzing::campaign::{runner, shrink_tree};
use crate::fuzzing::gen::Choices;

/// Most choices one program consumes.
const CHOICES: usize = 512;

fn choices() -> impl Strategy<Value = Vec<u32>> {
    proptest::collection::vec(any::<u32>(), 0..CHOICES)
}

/// Valid programs.
pub fn np_programs(cfg: NpConfig) -> impl Strategy<Value = NpProgram> {
    choices().prop_map(move |w| draw_program(&cfg, &mut Choices::new(&w)))
}

/// Programs one mutation away from valid (see [`near_valid`]).
///
/// ```
/// use einrow::fuzzing::numpy_ops::{strategies::near_valid_np_programs, NpConfig};
/// use proptest::prelude::*;
///
/// proptest!(ProptestConfig::with_cases(8), |(p in near_valid_np_programs(NpConfig::default()))| {
///     prop_assert!(!p.values.is_empty());
/// });
/// ```
pub fn near_valid_np_programs(cfg: NpConfig) -> impl Strategy<Value = NpProgram> {
    choices().prop_map(move |w| {
        let mut d = Choices::new(&w);
        let p = draw_program(&cfg, &mut d);
        near_valid(&p, &cfg, &mut d).program
    })
}

/// Valid einsum cases (one einsum step over fresh operands).
pub fn einsum_cases(cfg: NpConfig) -> impl Strategy<Value = NpProgram> {
    choices().prop_map(move |w| draw_einsum_case(&cfg, &mut Choices::new(&w)))
}

/// What [`hunt`] found: the example that failed first, how many examples it took, and the
/// failing value shrunk.
#[derive(Clone, Debug)]
pub struct Hunted<T> {
    /// Examples drawn up to and including the first failure.
    pub examples: usize,
    /// The first failing value.
    pub first: T,
    /// The same value after shrinking.
    pub shrunk: T,
}

/// Draws up to `max` examples of `strategy` with a seeded runner and returns the first one
/// for which `fails` holds, with the count and the value shrunk (at most `shrink_budget`
/// tries); `None` when none fails.
///
/// ```
/// use einrow::fuzzing::numpy_ops::{strategies::{hunt, np_programs}, NpConfig};
/// let found = hunt(&np_programs(NpConfig::default()), 3, 100, 200, &mut |p| p.values.len() > 6);
/// assert!(found.is_some_and(|h| h.shrunk.values.len() > 6 && h.examples >= 1));
/// ```
pub fn hunt<S: Strategy>(
    strategy: &S,
    seed: u64,
    max: usize,
    shrink_budget: usize,
    fails: &mut dyn FnMut(&S::Value) -> bool,
) -> Option<Hunted<S::Value>> {
    let mut runner = runner(seed);
    for examples in 1..=max {
        let mut tree = strategy.new_tree(&mut runner).ok()?;
        let first = tree.current();
        if fails(&first) {
            let shrunk = shrink_tree(&mut tree, shrink_budget, fails);
            return Some(Hunted { examples, first, shrunk });
        }
    }
    None
}

/// The choice lists of the simplest programs, tried first by [`hunt_programs`], as Hypothesis
/// tries its simplest example first and then the simplest of the largest size: every choice
/// 0 (one step), then every choice 0 but the step count (the most steps).
pub fn simplest_choices(cfg: &NpConfig) -> Vec<Vec<u32>> {
    let most = u32::try_from(cfg.steps() - 1).unwrap_or(0);
    vec![Vec::new(), vec![most]]
}

/// [`hunt`] over programs (near-valid ones when `near`): the simplest programs first
/// ([`simplest_choices`]), then random ones; a failing program is shrunk by its choices and
/// then by [`shrink_np_program`].
///
/// ```
/// use einrow::fuzzing::numpy_ops::{strategies::hunt_programs, NpConfig, NpKind};
/// let cfg = NpConfig::only(&[NpKind::Transpose]);
/// let found = hunt_programs(&cfg, true, 1, 50, 100, &mut |p| p.values.len() > 3);
/// assert!(found.is_some_and(|h| h.shrunk.values.len() == 4));
/// ```
pub fn hunt_programs(
    cfg: &NpConfig,
    near: bool,
    seed: u64,
    max: usize,
    shrink_budget: usize,
    fails: &mut dyn FnMut(&NpProgram) -> bool,
) -> Option<Hunted<NpProgram>> {
    let draw = |w: &[u32]| {
        let mut d = Choices::new(w);
        let p = draw_program(cfg, &mut d);
        if near {
            near_valid(&p, cfg, &mut d).program
        } else {
            p
        }
    };
    let simplest = simplest_choices(cfg);
    for (i, w) in simplest.iter().enumerate().take(max) {
        let first = draw(w);
        if fails(&first) {
            let shrunk = shrink_np_program(&first, shrink_budget, fails);
            return Some(Hunted { examples: i + 1, first, shrunk });
        }
    }
    let strategy = choices().prop_map(move |w| draw(&w));
    let left = max.saturating_sub(simplest.len());
    let mut found = hunt(&strategy, seed, left, shrink_budget, fails)?;
    found.examples += simplest.len();
    found.shrunk = shrink_np_program(&found.shrunk, shrink_budget, fails);
    Some(found)
}
