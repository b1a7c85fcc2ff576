//! Fuzzing shape rules (feature `fuzzing`): proptest strategies for specs, shapes, operation
//! graphs and numpy-semantics programs, invariant checkers that are independent of the
//! solver, and a judge of a framework's answers.
//!
//! einrow ships the tools it fuzzes itself with, so that a framework author can fuzz their own
//! shape rules against an independent model. The feature pulls in `proptest` and enables
//! `kernel` (the checks compare the kernel's values with a naive evaluator); the default
//! feature `cli` enables it (the `einrow` binary needs it for `einrow fuzz`). A library user
//! who wants fuzzing without the command line depends with `default-features = false`:
//!
//! ```toml
//! [dependencies]
//! einrow = { version = "0.1", default-features = false, features = ["fuzzing"] }
//! ```
//!
//! # Two routes
//!
//! - **Frameworks that follow numpy** (flat shapes, integer axes, broadcasting, matmul,
//!   einsum subscripts): [`numpy_ops`] draws programs of numpy operations with einrow's
//!   verdict on every step (the shape and type, or numpy's error), valid or one mutation away
//!   from valid, and runs them through the framework's own functions
//!   ([`numpy_ops::Framework`], [`numpy_ops::check_framework`]): no translation. The Python
//!   package has the same as Hypothesis strategies (`einrow.strategies`); that is the shortest
//!   route from a Python framework.
//! - **Frameworks with OCANNL's shape model** (rows, row variables, labels specs): the
//!   program generators below, judged step by step with [`judge::judge_step`].
//!
//! # What is in the box
//!
//! - [`gen`]: [`programs`]`(`[`GenConfig`]`)` draws random operation graphs (every operation
//!   of the [program format](crate::infer::program); row variables, `1!` broadcasting, named
//!   bases, fixed indices, strided and convolution axes, parameters) that are *well-formed by
//!   construction*: leaf shapes are drawn first, then each operation is built so that its
//!   constraints hold. Each program comes with a *witness* (a concrete shape per tensor that
//!   satisfies everything) and says which witnesses are the solver's answer
//!   ([`gen::Witness::determined`]). [`GenConfig::opened`] also declares leaves with row
//!   variables or no shape; [`gen::malformed_programs`] gives random, mostly ill-formed
//!   programs (wrong arities, undefined names, garbage shapes and specs).
//! - [`model`]: concrete shapes (sizes with bases, rows with their flank split);
//!   [`solution`]: a solved graph read back as concrete shapes.
//! - [`fit`]: [`fit::shapes_for`] gives operand shapes that fit a given einsum spec, with the
//!   result shape it implies; [`fit::spec_with_shapes`] as a strategy.
//! - [`checker`] (with [`rules`], [`spec_rules`] and [`numpy_rules`]): [`check_solution`] and
//!   [`checker::check_step`] re-check every operation's constraints on concrete shapes,
//!   written from the specification, not from the solver (broadcasting with flank alignment,
//!   compose, transpose, batch slice, einsum label and row-variable consistency with fixed
//!   indices as bounds, strided and convolution formulas, concatenation sums, numpy steps'
//!   letter broadcasting). The checker is one-sided: a shape that satisfies a step's
//!   constraints is not necessarily its result (a pointwise result with a spurious leading
//!   axis passes), which is right for whole solutions and wrong for a framework's answers.
//! - [`judge`]: is a claimed result THE result? [`judge::judge_step`] solves the step alone
//!   and compares ([`Judgement::Admissible`] where nothing determines the result);
//!   [`judge::judge_np`] does the same for a numpy operation.
//! - [`numpy_ops`]: numpy-semantics programs (`add`, `matmul`, `einsum`, `concatenate`,
//!   `stack`, `transpose`, `sum`, `expand_dims`, `squeeze`, `reshape` with numpy's
//!   parameters), einsum cases and broadcast cases (with row variables), drawn from any
//!   source of choices (size-0 and size-1 axes, diagonals, `...`, many operands, negative
//!   axes, mixed-rank concatenations, every element type); einrow's verdict per step; near-
//!   valid programs (one step copied with one mutation); a framework run step by step and
//!   judged, saved cases replayed through it; a shrinker of steps, sizes and einsum width;
//!   proptest strategies and [`numpy_ops::strategies::hunt_programs`], which tries the
//!   simplest programs first and counts the examples to the first failure.
//! - [`props`]: the properties as functions returning a [`Failure`]:
//!   [`props::check_program`] (no panic; a solution passes the checker),
//!   [`props::check_generated`] (a satisfiable, fully declared program is solved, to the
//!   witness where determined), [`props::check_deterministic`],
//!   [`props::check_order_independent`] (random topological reorderings).
//! - [`specs`]: spec-text strategies for labels specs, einsum specs and numpy subscripts (valid
//!   trees printed in both lexer modes, near-valid edits, arbitrary text) and
//!   [`specs::check_spec_text`] (no panic, spans inside the text, `parse ∘ print` is the
//!   identity).
//! - [`numpy`] and [`views`]: numpy einsum cases (broadcast size-1 axes, ellipses, diagonals,
//!   implicit outputs, near-valid variants), a naive reference evaluator, random strided views
//!   (zero, negative and gapped strides, offsets) and [`views::check_einsum_views`].
//! - [`exec`] and [`execution`]: a naive evaluator of solved programs and
//!   [`execution::check_execution`]: einrow's projections and kernel give the same values, in
//!   an element type drawn per program ([`exec_type::ExecType`]: every float and signed
//!   integer type, where the values stay exact; programs with numpy steps are skipped).
//! - [`shrink`] and [`case_file`]: [`shrink::shrink_program`] (structural edits keep a
//!   satisfiable program satisfiable; shape edits for crashes and wrong answers: axes
//!   removed, sizes halved or made 1 or 2, bases forgotten), and
//!   [`case_file::infer_case`], [`case_file::suite`] and [`case_file::program_text`]: a
//!   failure becomes a case file ([`check::format`](crate::check::format)) or an `einrow infer`
//!   program.
//! - [`campaign`]: seeded loops over all of it ([`campaign::fuzz_programs`],
//!   [`campaign::fuzz_specs`], [`campaign::numpy_problems`] with
//!   [`campaign::check_oracle_case`]), with two-level shrinking: first the random choices
//!   ([`campaign::shrink_tree`]), then the program. This is what `einrow fuzz` runs.
//!
//! Generators interpret a stream of random numbers ([`gen::Choices`]); an exhausted stream
//! answers 0, and 0 is always the simplest option. Shrinking the stream therefore yields
//! simpler programs that are still well-formed.
//!
//! # Fuzzing your own rules
//!
//! For a framework that follows numpy, implement [`numpy_ops::Framework`] (make a tensor of
//! a shape, call the framework's function on a step, read a shape back) and hunt:
//!
//! ```
//! use einrow::fuzzing::numpy_ops::strategies::hunt_programs;
//! use einrow::fuzzing::numpy_ops::{check_framework, Framework, NpConfig, NpKind, NpOp};
//!
//! /// A framework whose transpose reads negative axes one off (its tensors are shapes).
//! struct Mine;
//! impl Framework for Mine {
//!     type Tensor = Vec<usize>;
//!     type Error = String;
//!     fn leaf(&mut self, shape: &[usize], _dtype: &str) -> Vec<usize> { shape.to_vec() }
//!     fn apply(&mut self, op: &NpOp, xs: &[&Vec<usize>]) -> Result<Vec<usize>, String> {
//!         let (NpOp::Transpose { axes: Some(axes) }, [a]) = (op, xs) else { return Err("no".into()) };
//!         let n = a.len() as i64;
//!         let axis = |x: i64| if x < 0 { x + n - 1 } else { x };
//!         axes.iter().map(|&x| a.get(axis(x) as usize).copied().ok_or("bad axis".into())).collect()
//!     }
//!     fn shape(&self, t: &Vec<usize>) -> Vec<usize> { t.clone() }
//! }
//!
//! let cfg = NpConfig::only(&[NpKind::Transpose]);
//! let found = hunt_programs(&cfg, true, 7, 100, 1000, &mut |p| check_framework(p, &mut Mine).is_err());
//! let found = found.expect("the bug is found");
//! println!("{}", check_framework(&found.shrunk, &mut Mine).unwrap_err());
//! ```
//!
//! A failure prints the program as numpy code with einrow's verdict on each step; keep it with
//! [`numpy_ops::Disagreement::case`] and run it again with [`numpy_ops::replay`] (through the
//! same framework). For OCANNL-model frameworks, draw programs, run your framework's rules
//! over them, judge each result with [`judge::judge_step`], and shrink what fails:
//!
//! ```
//! use einrow::fuzzing::campaign::{runner, shrink_tree};
//! use einrow::fuzzing::case_file::program_text;
//! use einrow::fuzzing::gen::{programs, GenConfig, Generated};
//! use proptest::strategy::{Strategy, ValueTree};
//!
//! // Your framework's judgement of one program; here einrow's own property stands in for it.
//! fn my_check(g: &Generated) -> Result<(), String> {
//!     einrow::fuzzing::props::check_generated(g).map_err(|f| f.to_string())
//! }
//!
//! let strategy = programs(GenConfig::default());
//! let mut runner = runner(7); // seeded: reproducible
//! for _ in 0..20 {
//!     let mut tree = strategy.new_tree(&mut runner).unwrap();
//!     if my_check(&tree.current()).is_err() {
//!         let small = shrink_tree(&mut tree, 2000, &mut |g| my_check(g).is_err());
//!         panic!("a failing program:\n{}", program_text(&small.program));
//!     }
//! }
//! ```
//!
//! In a test suite, use the strategies with `proptest!` directly (its `#[test] fn` form, or,
//! as here, the closure form that runs at once):
//!
//! ```
//! use einrow::fuzzing::gen::{programs, GenConfig, Generated};
//! use proptest::prelude::*;
//!
//! fn my_check(g: &Generated) -> Result<(), String> {
//!     einrow::fuzzing::props::check_generated(g).map_err(|f| f.to_string())
//! }
//!
//! proptest!(ProptestConfig::with_cases(16), |(g in programs(GenConfig::default()))| {
//!     my_check(&g).map_err(TestCaseError::fail)?;
//! });
//! ```
//!
//! The example `fuzz_shape_rules` in the repository fuzzes a toy framework's pointwise,
//! matmul-style and transpose rules this way. Its `compose` forgets to broadcast the second
//! operand's batch axes; the example finds that, shrinks it and prints the case file
//! (`cargo run --example fuzz_shape_rules`; add `-- fixed` for the corrected rules, which
//! agree with the judge on 2000 programs; CI runs both). `tests/planted_bugs.rs` plants five
//! realistic bugs in a numpy-style toy framework and finds each with [`numpy_ops`].
//!
//! # Keeping what you find
//!
//! A shrunk failure prints as an `infer` case whose `expect` holds the witness shapes of the
//! determined tensors; add it to a suite and `einrow check` runs it. For properties a case file
//! cannot state (a solution that breaks a constraint, order dependence), freeze the program as
//! a named test calling the property function.
//!
//! # From the command line
//!
//! ```text
//! einrow fuzz infer --count 5000 --seed 1    # checker, determinism, order, execution
//! einrow fuzz infer --no-exec --max-steps 12 # skip the kernel comparison; longer programs
//! einrow fuzz infer --open --time 60         # leaves with row variables or no shape
//! einrow fuzz infer --strict                 # also demand that capped programs solve
//! einrow fuzz specs --count 20000            # the three spec front ends
//! einrow fuzz numpy --count 1000 --oracle numpy_einsum_oracle.py   # differential against numpy
//! ```
//!
//! Every failure is shrunk and written to `--out` (default `fuzz-failures/`) as a one-case file
//! (`einrow check fuzz-failures/` replays them) and, for programs, as program text next to it
//! (`einrow infer fuzz-failures/<id>.ein`). The same `--seed` repeats a run. The exit status
//! is 1 when something failed.
//!
//! `--strict` and `--known-issues` widen what is demanded and generated. Rows the solver keeps
//! open until closing are closed to their *caps* when they broadcast into larger results
//! (OCANNL's closing), so einrow's answer may be more material than the least solution; such
//! programs are marked `capped` ([`Generated::capped`]) and only required to pass the checker
//! unless `--strict`. The patterns of solver issues found by earlier campaigns are fixed and
//! frozen as regression tests; the generator still leaves them out of default runs
//! ([`GenConfig::avoid_known_issues`]) and `--known-issues` puts them back.
//!
//! # cargo-fuzz
//!
//! The repository's `fuzz/` folder holds cargo-fuzz targets (not built by `cargo test`):
//! `parse_spec` (the front ends on arbitrary text), `solve_graph` (well-formed programs
//! interpreted from the bytes, or the bytes as program text: no panic, termination, solutions
//! pass the checker), `kernel` (numpy einsum on strided views from the bytes against the naive
//! reference), `formats` (the Vespa and TensorStore readers), `einsum_path` (numpy
//! subscripts, shapes, a strategy or explicit path and a memory limit from text: a planned
//! path contracts every operand into one) and `shape_rules`, a template for your own
//! framework (near-valid numpy-semantics programs from the bytes, judged through an adapter
//! you write). Every target has seeds in `fuzz/seeds/<target>`; `cargo test --test
//! fuzz_seeds` runs them through the same properties. cargo-fuzz needs nightly features; on
//! a stable toolchain:
//!
//! ```text
//! cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run solve_graph seeds/solve_graph -- -max_total_time=600
//! ```

pub mod campaign;
pub mod case_file;
pub mod checker;
pub mod exec;
mod exec_spec;
pub mod exec_type;
pub mod execution;
pub mod fit;
pub mod gen;
pub mod judge;
pub mod model;
pub mod numpy;
pub mod numpy_ops;
pub mod numpy_rules;
pub mod props;
pub mod rules;
pub mod shrink;
pub mod solution;
pub mod spec_rules;
pub mod specs;
pub mod views;
pub mod work;

pub use checker::{check_solution, Violation};
pub use gen::{programs, GenConfig, Generated};
pub use judge::{judge_np, judge_step, Judgement};
pub use model::{ConcreteBasis, ConcreteDim, ConcreteRow, ConcreteShape};
pub use props::{Failure, FailureKind};
pub use solution::Solution;
