//! Recipes (the random numbers a program is generated from), their strategies, and the
//! interpreter that turns a recipe into a program with its witness.

use std::collections::HashMap;

use proptest::prelude::*;

use super::broadcast;
use super::choices::Choices;
use super::extremes::{self, Extreme};
use super::pool::{Entry, Pool};
use super::spec_ops;
use crate::fuzzing::model::ConcreteShape;
use crate::infer::program::Program;
use crate::infer::OpKind;

/// The most operations a generated program may have: [`GenConfig::max_steps`] is clamped to
/// it (a recipe is drawn whole before it is built, and checking a program is not linear in its
/// length: 3000 operations already take about 0.1 s a program).
pub const MAX_STEPS: usize = 1000;

/// What programs to generate.
#[derive(Clone, Debug)]
pub struct GenConfig {
    /// Most operations per program (1 to [`MAX_STEPS`]; outside, the nearest of the two).
    pub max_steps: usize,
    /// Most axes per row of a fresh tensor.
    pub max_rank: usize,
    /// Sizes are drawn from the first `max_size_index + 1` of 2, 3, 4, 5, 6, 7, 8, 12.
    pub max_size_index: usize,
    /// Declare some leaves with less than their witness shape (row variables, no shape), so
    /// that the solver must infer them. Such programs are satisfiable but may legitimately be
    /// rejected (a parameter's hidden dimension is never guessed).
    pub open_leaves: bool,
    /// Stay clear of the open solver issues frozen in the regression tests, so that the
    /// properties find new things: (1) a spec row with axes beside its row variable, or a batch
    /// slice, meeting a row the solver keeps open until closing (a word equation like
    /// `[b].<ρ> = <τ>.[6]`, closed more materially than the least solution); (2) a numpy
    /// step's `...` over an operand row with a leading flank (it then aligns left, not right).
    /// Set to `false` to generate them.
    pub avoid_known_issues: bool,
    /// The operations to draw from, each with a weight.
    pub ops: Vec<(OpKind, u32)>,
    /// About one program in this many is built around a hostile extreme (0: none): sizes near
    /// 2^62, a deep strided chain, a self-concatenation up to 2^62, a concatenation of
    /// hundreds of operands, a spec of hundreds of labels (see [`Extreme`]).
    pub extreme_rate: u32,
    /// The extremes drawn from.
    pub extremes: Vec<Extreme>,
    /// The longest chain, widest concatenation or spec of an extreme program.
    pub extreme_len: usize,
}

impl Default for GenConfig {
    fn default() -> GenConfig {
        GenConfig {
            max_steps: 8,
            max_rank: 3,
            max_size_index: 4,
            open_leaves: false,
            avoid_known_issues: true,
            ops: vec![
                (OpKind::Pointwise, 4),
                (OpKind::Compose, 3),
                (OpKind::Transpose, 1),
                (OpKind::BatchSlice, 1),
                (OpKind::Permute, 3),
                (OpKind::Einsum, 4),
                (OpKind::Einsum3, 1),
                (OpKind::Concat, 2),
                (OpKind::Numpy, 2),
            ],
            extreme_rate: 10,
            extremes: Extreme::ALL.to_vec(),
            extreme_len: 300,
        }
    }
}

impl GenConfig {
    /// The most operations per program, within 1 to [`MAX_STEPS`].
    pub fn steps(&self) -> usize {
        self.max_steps.clamp(1, MAX_STEPS)
    }

    /// The default configuration with opened leaves.
    pub fn opened() -> GenConfig {
        GenConfig { open_leaves: true, ..GenConfig::default() }
    }

    /// The extreme a program whose first operation drew `raw` is built around, if any: about
    /// one in [`GenConfig::extreme_rate`], among the extremes whose operations
    /// [`GenConfig::ops`] draws ([`Extreme::ops`]). Shrinking (smaller numbers) leaves
    /// extremes.
    pub fn extreme(&self, raw: u32) -> Option<Extreme> {
        let rate = self.extreme_rate;
        let allowed: Vec<Extreme> = self
            .extremes
            .iter()
            .copied()
            .filter(|x| x.ops().iter().all(|op| self.ops.iter().any(|(o, w)| o == op && *w > 0)))
            .collect();
        if rate == 0 || allowed.is_empty() || (raw >> 16) % rate != rate - 1 {
            return None;
        }
        allowed.get(((raw >> 8) & 0xff) as usize % allowed.len()).copied()
    }

    fn op(&self, raw: u32) -> OpKind {
        let total: u32 = self.ops.iter().map(|(_, w)| *w).sum();
        let mut x = if total == 0 { 0 } else { raw % total };
        for (op, w) in &self.ops {
            if x < *w {
                return *op;
            }
            x -= w;
        }
        OpKind::Pointwise
    }
}

/// The random numbers of one operation.
#[derive(Clone, Debug)]
pub struct StepRecipe {
    /// Selects the operation (by weight).
    pub op: u32,
    /// Every other choice, consumed in order.
    pub choices: Vec<u32>,
}

/// The random numbers of a whole program.
#[derive(Clone, Debug)]
pub struct Recipe {
    /// One entry per operation.
    pub steps: Vec<StepRecipe>,
}

/// A generated tensor's witness: a shape satisfying every constraint.
#[derive(Clone, Debug)]
pub struct Witness {
    /// The tensor's name.
    pub name: String,
    /// Its witness shape (all axes in trailing flanks).
    pub shape: ConcreteShape,
    /// Whether this is the shape the solver must infer: every leaf upstream is declared with
    /// its full shape and no guess (a fixed index in a result) is involved.
    pub determined: bool,
}

/// A generated program with its witness.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The program.
    pub program: Program,
    /// One witness per declaration and statement, in definition order.
    pub witness: Vec<Witness>,
    /// Whether some leaf is declared with less than its witness shape.
    pub opened: bool,
    /// Whether a row the solver keeps open until closing is broadcast into a more material
    /// result (or rows with leading flanks meet): the solver then closes rows to their *caps*
    /// (OCANNL's stage 6), and its answer is not the witness. Such programs are satisfiable;
    /// that einrow solves them, and independently of the order of their steps, is only
    /// checked by the strict properties.
    pub capped: bool,
}

impl Recipe {
    /// Interprets the recipe.
    pub fn build(&self, cfg: &GenConfig) -> Generated {
        let mut pool = Pool::new(cfg);
        let extreme = self.steps.first().and_then(|s| cfg.extreme(s.op));
        pool.huge = extreme == Some(Extreme::HugeSizes);
        for step in self.steps.iter().take(cfg.steps()) {
            let mut ch = Choices::new(&step.choices);
            let _ = match cfg.op(step.op) {
                OpKind::Pointwise => broadcast::pointwise(&mut pool, &mut ch),
                OpKind::Compose => broadcast::compose(&mut pool, &mut ch),
                OpKind::Transpose => broadcast::transpose(&mut pool, &mut ch),
                OpKind::BatchSlice => broadcast::batch_slice(&mut pool, &mut ch),
                OpKind::Permute => spec_ops::permute(&mut pool, &mut ch),
                OpKind::Einsum => spec_ops::einsum(&mut pool, &mut ch, 2),
                OpKind::Einsum3 => spec_ops::einsum(&mut pool, &mut ch, 3),
                OpKind::Concat => spec_ops::concat(&mut pool, &mut ch),
                OpKind::Numpy => super::numpy_op::numpy(&mut pool, &mut ch),
            };
        }
        if let (Some(x), Some(first)) = (extreme, self.steps.first()) {
            extremes::extend(&mut pool, &mut Choices::new(&first.choices), x, cfg.extreme_len);
        }
        let Pool { entries, program, opened, capped, .. } = pool;
        // Entries interleave leaves and results; the program lists declarations first.
        let (leaves, results): (Vec<_>, Vec<_>) =
            entries.into_iter().partition(|e| e.name.starts_with('x'));
        let entries: Vec<Entry> = leaves.into_iter().chain(results).collect();
        let clean = clean_components(&program, &entries);
        let witness = entries
            .into_iter()
            .zip(clean)
            .map(|(e, clean)| {
                let [b, i, o] = e.rows;
                Witness {
                    name: e.name,
                    shape: ConcreteShape::from_rows(b, i, o),
                    determined: e.determined && clean && !capped,
                }
            })
            .collect();
        Generated { program, witness, opened, capped }
    }
}

/// Recipes of up to `cfg.max_steps` operations.
pub fn recipes(cfg: &GenConfig) -> impl Strategy<Value = Recipe> {
    let step = (any::<u32>(), proptest::collection::vec(any::<u32>(), 0..48))
        .prop_map(|(op, choices)| StepRecipe { op, choices });
    proptest::collection::vec(step, 1..=cfg.steps()).prop_map(|steps| Recipe { steps })
}

/// Well-formed programs with their witnesses, shrinking to simpler well-formed programs.
pub fn programs(cfg: GenConfig) -> impl Strategy<Value = Generated> {
    recipes(&cfg).prop_map(move |r| r.build(&cfg))
}

/// Per entry: whether every tensor connected to it through steps is determined. A later step
/// can tie an earlier tensor's unknown axes (a template's `1!`) to an opened leaf's, whose
/// closing follows caps the witness does not model: only wholly determined components are.
fn clean_components(program: &Program, entries: &[Entry]) -> Vec<bool> {
    let index: HashMap<&str, usize> =
        entries.iter().enumerate().map(|(i, e)| (e.name.as_str(), i)).collect();
    let mut parent: Vec<usize> = (0..entries.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for s in &program.stmts {
        let Some(&out) = index.get(s.out.as_str()) else { continue };
        for a in s.args.iter().filter_map(|a| index.get(a.as_str())) {
            let (x, y) = (root(&mut parent, out), root(&mut parent, *a));
            parent[x] = y;
        }
    }
    let mut clean = vec![true; entries.len()];
    for (i, e) in entries.iter().enumerate() {
        if !e.determined {
            let r = root(&mut parent, i);
            clean[r] = false;
        }
    }
    (0..entries.len()).map(|i| clean[root(&mut parent, i)]).collect()
}

#[cfg(test)]
mod tests {
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::TestRunner;

    use super::*;

    /// A step count above what a size range can hold made drawing a recipe panic; counts are
    /// clamped to 1 to [`MAX_STEPS`].
    #[test]
    fn step_counts_are_clamped() {
        let mut runner = TestRunner::deterministic();
        for (asked, most) in [(usize::MAX, MAX_STEPS), (0, 1), (3, 3)] {
            let cfg = GenConfig { max_steps: asked, ..GenConfig::default() };
            assert_eq!(cfg.steps(), most);
            for _ in 0..4 {
                let recipe = recipes(&cfg).new_tree(&mut runner).expect("draws").current();
                assert!(
                    (1..=most).contains(&recipe.steps.len()),
                    "{asked}: {}",
                    recipe.steps.len()
                );
            }
        }
    }

    /// Extreme programs used to add permute and concat steps whatever `ops` said.
    #[test]
    fn extremes_keep_to_the_operations_drawn() {
        let ops = vec![(OpKind::Pointwise, 3), (OpKind::Compose, 3), (OpKind::Transpose, 1)];
        let cfg = GenConfig { ops: ops.clone(), extreme_rate: 1, ..GenConfig::default() };
        let mut runner = TestRunner::deterministic();
        for _ in 0..200 {
            let g = programs(cfg.clone()).new_tree(&mut runner).expect("draws").current();
            for s in &g.program.stmts {
                assert!(ops.iter().any(|(o, _)| *o == s.op), "{:?} drawn", s.op);
            }
        }
        let all = GenConfig { extreme_rate: 1, ..GenConfig::default() };
        assert!((0..64u32).any(|i| all.extreme((i << 16) | (i << 8)).is_some()));
    }
}
