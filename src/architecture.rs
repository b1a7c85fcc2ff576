//! How einrow is built: the pipeline, the invariants every change keeps, and why each
//! dependency is there.
//!
//! This module holds no code; it is the engineer's map of the crate.

// The map names the modules and types of the `kernel` feature; without it they are absent and
// their links are plain text.
#![cfg_attr(not(feature = "kernel"), allow(rustdoc::broken_intra_doc_links))]
//!
//! # The pipeline
//!
//! One module per stage; lower stages never import higher ones, and a module's `mod.rs` only
//! declares and re-exports.
//!
//! | module | stage |
//! |---|---|
//! | [`spec`](crate::spec) | 1. parsing: a logos lexer with OCANNL's two modes (single-character and multichar), a lalrpop grammar generated at build time, row assembly, numpy subscripts, the syntax tree ([`spec::ast`](crate::spec::ast)), the canonical printer, and the checks that need no solver |
//! | [`shape`](crate::shape) | the shape model: dims (a variable, a solved size with a basis, an affine or a concatenation dim), rows (leading flank, row variable, trailing flank), shapes (batch, input, output rows), and shape strings |
//! | [`infer`](crate::infer) | 2. inference: constraints per operation (`infer/lower/`), the solver (a worklist over ena union-find tables, `Env`: `infer/solve/`), the closing stages (`infer/close/`), the public [`Graph`](crate::infer::Graph), reading a step off solved operands without the solver, [`program`](crate::infer::program)s and [`explain`](crate::infer::explain)ed errors |
//! | [`project`](crate::project) | 3. projections: the [`IndexPlan`](crate::project::IndexPlan) of a solved step ([`derive_plan`](crate::project::derive_plan)); the plan of one spec over given sizes without a graph ([`plan_einsum`](crate::project::plan_einsum), and [`EinsumPlanner`](crate::project::EinsumPlanner), which plans spec after spec into reused buffers); lowering plans onto kernel nests and running graphs ([`run_graph`](crate::project::run_graph)) |
//! | [`kernel`](crate::kernel) | 4. the strided kernel: a [`Nest`](crate::kernel::Nest) is an affine strided loop nest; loop simplification and merging, vectorisable inner loops, GEMM dispatch, rayon splits, a guarded slow path for padded operands, and a naive reference ([`run_reference`](crate::kernel::run_reference)) |
//! | [`tensor`](crate::tensor) | [`Tensor`](crate::tensor::Tensor)s over shared buffers (numpy's bool, integer and float types, and bf16; numpy's promotion), [`Layout`](crate::tensor::Layout)s and views, Nervana [`NamedView`](crate::tensor::NamedView)s |
//! | [`numpy`](crate::numpy) | numpy einsum on einrow tensors ([`einsum`](crate::einsum)), with a pairwise greedy contraction order |
//! | [`formats`](crate::formats) | Vespa tensors, TensorStore index spaces, conversions between formats |
//! | [`check`](crate::check) | the conformance runner (the [case format](crate::check::format)) |
//! | `fuzzing` (feature `fuzzing`) | generators, an independent (one-sided) checker, a judge of single results, and properties, shared by `einrow fuzz` and by users who fuzz their own shape rules; `fuzzing::numpy_ops` draws numpy-semantics programs with einrow's verdict per step, which the Python package's `einrow.strategies` hands to Hypothesis |
//! | the `einrow` binary | the command line, one source file per subcommand |
//!
//! Shape inference follows OCANNL's staged solving: stage 1 runs while operations are added
//! (each step's constraints are solved as far as they go), and [`Graph::solve`] closes the
//! world in stages 2 to 7. Leaf rows and dims close *down* to their caps (the most material
//! value they admit), unconstrained leaf rows close empty and unconstrained leaf dims to the
//! broadcast top `1!`; interior rows and dims close *up*; parameters are never guessed.
//!
//! # Invariants
//!
//! **Parsing.**
//! - The grammar does no semantic checks; [`spec`](crate::spec) is the only module that knows
//!   about logos or lalrpop, and one function in it maps lalrpop's errors to
//!   [`SpecError`](crate::spec::SpecError).
//! - The printer is the inverse of the parser: `parse(print(ast)) == ast` modulo spans.
//!
//! **Errors.**
//! - Every error has a stable code ([`ErrorCode`], listed in the
//!   [case format](crate::check::format#error-codes)) and, where there is a text, a byte
//!   [`Span`](crate::Span) into it. No input makes einrow panic; a failing step leaves the
//!   graph as it was.
//! - An error that wraps another's (a step whose spec does not parse, an operand that cannot
//!   be read) says its own context in `Display` and gives the wrapped error as
//!   [`source`](std::error::Error::source), so a report that walks the chain shows each
//!   message once; one layer's error lifted into a higher layer's enum
//!   (`ProjectError::Infer`) is transparent: the same message and chain. Messages name
//!   tensors by the names they were given.
//! - Integers in specs and sizes are at most 2^62 ([`MAX_DIM`](crate::tensor::MAX_DIM)); size
//!   arithmetic is checked.
//! - Result buffers are allocated fallibly: a result too large for the machine is an error,
//!   never an abort.
//!
//! **Memory layout of the solver.**
//! - ena values are small and `Copy` (an index into an arena of bound values); provenance
//!   (origins, names, bounds) lives in side tables. Labels are interned; tensor names, nearly
//!   all distinct, are listed: a tensor entry holds a name id, and a result nobody named is
//!   named after its id when asked ([`Graph::name`]).
//!   The dims of the steps' labels live in one table of the graph and their names once per
//!   spec ([`Graph::step_labels`]).
//! - A [`Dim`](crate::shape::Dim) is a small `Copy` value too: the structure of affine and
//!   concatenation dims is hash-consed in a [`DimExprs`](crate::shape::DimExprs) table, so
//!   equal structures have equal ids and axis lists copy without drops.
//! - Substitution is lazy (`Env::dim`,
//!   `Env::row`): binding a variable costs O(its own facts),
//!   never O(all variables).
//! - A queued constraint owns nothing (`Constraint` is
//!   `Copy`): a row it holds that is neither empty, a bare variable nor a stored row is one of
//!   the solver's scratch rows (`RowArg::Scratch`),
//!   reused from one operation to the next; a deferred constraint moves its scratch rows into
//!   the row store, since it outlives the queue. Scratch rows are cleared only between
//!   operations, when nothing is queued.
//!
//! **Who binds variables.**
//! - Only the solver binds variables; constraint generation only queues constraints, and not
//!   those that hold as given: a closed empty operand row (it broadcasts into anything) and a
//!   spec step's two closed empty rows of a kind neither writes.
//! - The one shortcut is direct evaluation: an einsum or permute step whose operands are
//!   already fully solved, and whose spec has only labels, placeholders and row variables, has
//!   exactly one solution, which is read off the operands (the result is stored solved and the
//!   labels keep their sizes: no variable is created). Any disagreement, and anything else,
//!   goes through the solver. A property test runs random programs both ways
//!   ([`Graph::set_direct_evaluation`]) and requires the same outcomes.
//! - The reading itself knows no graph: the eager planner
//!   ([`plan_einsum`](crate::project::plan_einsum)) uses it over given sizes and sends
//!   everything else through a graph of one step, so its plans and errors are the graph's (a
//!   test compares it with a solver-only graph). [`EinsumPlanner`](crate::project::EinsumPlanner)
//!   reuses memory only: every call parses, reads off or solves, and plans in full (the same
//!   test plans every case with one planner whose buffers hold the case before).
//! - A pointwise result is born refined: each of its rows starts as the template its first
//!   operand's row would give a fresh row (a fresh row variable between new axes facing that
//!   row's axes, solved sizes copied). Nothing can change the first operand's rows before the
//!   step's first inequalities run, so this is the solver's own first move, without a fresh
//!   variable bound at once and its inequality queued twice.
//!
//! **Solving and closing.**
//! - A constraint is either decided, deferred (woken when one of its variables is bound or
//!   united), or an error: never dropped. A careful-mode decision that resolves a constraint
//!   takes one of its choices even when every choice fails on a trial copy, so that the
//!   contradiction is reported instead of lost.
//! - The solver terminates on every input: every binding removes a variable, row templates are
//!   bounded in depth, and a fuel counter bounds the total work (each queued constraint brings
//!   an allowance, and each run may take at least one, so a step whose constraints all held at
//!   once still leaves the solve after it room to close).
//! - Careful closing (the replay after a failed default solve, and every replay of the search
//!   over open row lengths) spends one budget of work, a constant times the solver's size:
//!   each copy of the solver for a trial costs its size and each constraint a trial processes
//!   costs one, failed trials and the trials nested in them included, so disjoint parts of a
//!   program add their work rather than multiply it. [`Graph::work`] counts all of it, the
//!   same on every run; the fuzz campaigns hold programs to a budget linear in their text.
//! - A row cap travels along each link once: a cap its variable has already (or that its
//!   joined cap covers) is not passed on, so a cycle of links cannot circulate it (frozen as
//!   the regression test `a_cap_known_already_is_not_passed_around_a_cycle`).
//! - Only a shape that may hold a variable is queued for closing: a directly evaluated step's
//!   operands and result, and a leaf declared without a row variable, are not. A solve with
//!   nothing queued, deferred or linked closes nothing and returns at once.
//! - Closing does not guess what a deferred constraint may still decide: a leaf dim that a
//!   deferred constraint mentions, and a leaf row at a marker of a deferred broadcast, wait for
//!   stage 6, where those constraints are decided first.
//! - numpy's ellipsis broadcasts right-aligned
//!   (`Constraint::RowIneqRight`), never
//!   through the left-aligned flank rule of OCANNL rows.
//!
//! **Projections and the kernel.**
//! - Projections are re-derived per step from the solved shapes: two steps that co-iterate an
//!   axis elsewhere do not share loops here. The kernel never sees labels, only
//!   [`Nest`](crate::kernel::Nest)s.
//!
//! # Dependencies and why
//!
//! - logos, lalrpop: the lexer and the LR(1) grammar (recursive-ascent code generation, which
//!   parses typical specs faster than the table-driven default).
//! - ena, petgraph, smallvec, thiserror: union-find, the operation graph's pictures
//!   (`einrow infer --dot`), inline axis lists, error enums.
//! - smol_str: names of labels and row variables are stored inline (no allocation per label).
//! - foldhash (already in the build as hashbrown's hasher): the hasher of a graph's caches of
//!   parsed spec and shape texts (fast on short texts, randomly seeded; SipHash cost more per
//!   step than the rest of a cache hit), and a fixed one for the solver's table of interned
//!   sizes, hashed on every binding to a size.
//! - serde, serde_json: the case files and every JSON format einrow speaks. The `serde`
//!   feature (off by default) adds `Serialize` and `Deserialize` to plans, gradient plans,
//!   schemes, compiled graphs and training steps (and smol_str's serde support for names), for
//!   frameworks that cache what einrow derives: the forms hold plans and sizes, never compiled
//!   executables, and reading one checks it and compiles again (`project/serde_form.rs`,
//!   `infer/scheme/serde_form.rs`).
//! - clap (feature `cli`): the command line.
//! - gemm (this and the next two with the feature `kernel`): a fast, well-kept pure-Rust GEMM
//!   for contraction-shaped nests; rayon: parallel
//!   outer loops; half: float16 and bf16 storage.
//! - libc (Linux only, feature `kernel`): one `madvise(MADV_HUGEPAGE)` call on fresh result buffers of 4 MiB or
//!   more, as numpy does, so that they take 2 MiB pages (64 page faults instead of 32 768 for a
//!   4000² f64 copy) where transparent huge pages are in `madvise` mode.
//! - proptest (dev, and the `fuzzing` feature), criterion (dev): property tests and
//!   benchmarks.
//!
//! # Features and the shape-only build
//!
//! gemm, rayon, half and libc are the kernel's and come with the `kernel` feature; clap with
//! `cli`, proptest with `fuzzing`, ndarray with `ndarray`. `default = ["cli"]`, and `cli`,
//! `fuzzing` and `ndarray` each imply `kernel`. A framework that wants shapes and plans only
//! depends with `default-features = false` and gets the shape engine: `spec`, `shape`,
//! `infer` (schemes included), `lint`, `diagnostic`, and in `project` plan derivation
//! (`derive_plan`, `instance_plan`, `plan_einsum`, `plan_numpy`, gradient plans, `IndexPlan`
//! with its text and JSON, `plan_arena`); in `numpy` subscript and sublist parsing, shape
//! solving (`analyze`, `einsum_shape`) and contraction paths (`einsum_path`). Of `kernel` and
//! `tensor` only what plans and shape code name is left: the operators (`Accum`, `Combine`)
//! and the checked size arithmetic (`numel`, `MAX_DIM`, `TensorError`); of `check` the case
//! format (documentation), `Program::from_case` and the JSON comparisons. `formats` holds
//! values and is left out whole, as are the case runner, compiled plans, views, storage,
//! training and einsum on values. The error variants that wrap kernel errors
//! (`ProjectError::Kernel`, `EinsumError::Kernel`) exist only with the kernel.
//!
//! `cargo tree -e normal --prefix none` lists 35 crates (by name and version, einrow
//! included) without default features, against 99 with them. The 35: einrow; its own
//! dependencies ena, foldhash, lalrpop-util, logos, petgraph, serde, serde_json, smallvec,
//! smol_str, thiserror; and below those aho-corasick, equivalent, fixedbitset, fnv, foldhash
//! (a second version), hashbrown (two versions), indexmap, itoa, log, logos-codegen,
//! logos-derive, memchr, proc-macro2, quote, regex-automata, regex-syntax, serde_core,
//! serde_derive, syn (two versions), thiserror-impl, unicode-ident and zmij. A clean release
//! build of the shape-only library takes 1 min 35 s of CPU time (52 s wall on the idle 2-core
//! development VM), a sixth of the `einrow` binary's (`benches/README.md`, "Build times"). CI
//! runs clippy and the whole test suite without default features, so that the split stays
//! clean.
//!
//! [`ErrorCode`]: crate::ErrorCode
//! [`Graph::solve`]: crate::infer::Graph::solve
//! [`Graph::work`]: crate::infer::Graph::work
//! [`Graph::name`]: crate::infer::Graph::name
//! [`Graph::step_labels`]: crate::infer::Graph::step_labels
//! [`Graph::set_direct_evaluation`]: crate::infer::Graph::set_direct_evaluation
