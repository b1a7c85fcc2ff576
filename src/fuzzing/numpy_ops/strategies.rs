//! proptest strategies over the numpy-semantics generators: each draws a list of random
//! choices and interprets it, so proptest's shrinking of the list (fewer, smaller choices)
//! gives simpler programs, and [`hunt`] counts the examples a property takes to fail.

use proptest::prelude::*;
use proptest::strategy::ValueTree;

use super::config::NpConfig;
use super::generate::{draw_einsum_case, draw_program};
use super::mutate::near_valid;
use super::program::NpProgram;
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
/// assert!(found.is_some_and(|h| h.shrunk.values.len() <= h.first.values.len()));
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
