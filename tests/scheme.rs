//! Shape schemes: a graph solved once with its batch row symbolic, instantiated for several
//! batch shapes, gives every tensor's sizes, every label's size and every plan exactly as
//! solving the graph afresh with those batch axes; and the sizes a solution rules out are
//! coded errors.

use einrow::code::{Coded, ErrorCode};
use einrow::ids::{StepId, TensorId};
use einrow::infer::{
    Graph, Handle, InferError, Leaf, OpKind, Scheme, ShapeBuilder, SymDim, Warning,
};
use einrow::project::{derive_plan, instance_plan, instance_plans, Compute};
use einrow::spec::ast::RowKind;

/// A transformer-like block over an input of batch row `batch` (a shape-string row, e.g.
/// `...,` or `2,4,`), then a sequence axis of 6 and 8 features. Returns the graph and the
/// input.
fn block(batch: &str) -> Result<(Graph, TensorId), InferError> {
    let mut g = Graph::new();
    let x = g.declare("x", Some(&format!("{batch}6|8")), false)?;
    let gamma = g.declare("gamma", Some("..."), true)?;
    let mean = g.permute("...|d => ...|", x)?;
    let centred = g.einsum("...|d; ...| => ...|d", &[x, mean])?;
    let n = g.pointwise(&[centred, gamma])?;
    let heads = g.declare("wq", Some("...->2,4"), true)?;
    let wk = g.declare("wk", Some("...->2,4"), true)?;
    let q = g.compose(heads, n)?;
    let k = g.compose(wk, n)?;
    let scores = g.einsum("...,s|h,k; ...,t|h,k => ...,s,t|h", &[q, k])?;
    let e = g.pointwise(&[scores])?;
    let total = g.permute("...,s,t|h => ...,s|h", e)?;
    let p = g.einsum("...,s,t|h; ...,s|h => ...,s,t|h", &[e, total])?;
    let mixed = g.einsum("...,s,t|h; ...,t|h,k => ...,s|h,k", &[p, q])?;
    let wo = g.declare("wo", Some("...->..."), true)?;
    let out = g.einsum("...|h,k; h,k->d => ...|d", &[mixed, wo])?;
    let res = g.pointwise(&[x, out])?;
    let w1 = g.declare("w1", Some("...->16"), true)?;
    let b1 = g.declare("b1", Some("16"), true)?;
    let h = g.compose(w1, res)?;
    let h = g.pointwise(&[h, b1])?;
    let w2 = g.declare("w2", Some("...->..."), true)?;
    let y = g.compose(w2, h)?;
    g.pointwise(&[res, y])?;
    Ok((g, x))
}

/// The scheme of the block with the input's batch row symbolic.
fn block_scheme() -> (Scheme, Handle) {
    let (mut g, x) = block("...,").expect("builds");
    let batch = g.row_of(x, RowKind::Batch).expect("the input's batch row is open");
    (g.solve_scheme(&[batch]).expect("solves as a scheme"), batch)
}

/// Every tensor's sizes and every step's labels and plan of the instance equal those of the
/// graph solved afresh with these batch axes.
#[track_caller]
fn check_instance(scheme: &Scheme, batch: &[u64]) {
    let inst = scheme.instantiate(&[batch]).expect("instantiates");
    let prefix: String = batch.iter().map(|b| format!("{b},")).collect();
    let (mut g, _) = block(&prefix).expect("builds");
    g.solve().expect("solves");
    assert_eq!(inst.tensor_count(), g.tensor_count());
    // `g` is built afresh (another graph): tensors are matched by position.
    for (t, u) in inst.tensor_ids().zip(g.tensor_ids()) {
        let name = g.name(u).expect("a tensor of g");
        assert_eq!(inst.sizes(t).expect("known"), g.sizes(u).expect("solved"), "{name}");
    }
    let computes: Vec<Compute> =
        g.steps().iter().map(|s| Compute::default_for(s.op, s.args.len())).collect();
    let shared = instance_plans(&inst, &|s: StepId| computes[s.index()]).expect("plans");
    let pairs: Vec<(StepId, StepId)> = inst.step_ids().zip(g.step_ids()).collect();
    for (i, (shared, (step, fresh_step))) in shared.iter().zip(pairs).enumerate() {
        let labels = g.step_labels(fresh_step).expect("a step of g");
        let labels: Vec<u64> =
            labels.dims().iter().map(|d| g.dim_size(*d).expect("solved")).collect();
        assert_eq!(inst.label_sizes(step).expect("a step"), labels.as_slice(), "labels of {step}");
        let s = &g.steps()[i];
        let compute = Compute::default_for(s.op, s.args.len());
        let fresh = derive_plan(&g, fresh_step, compute, 0).expect("plans");
        assert_eq!(instance_plan(&inst, step, compute).expect("plans"), fresh, "plan of {step}");
        assert_eq!(**shared, fresh, "shared plan of {step}");
    }
}

#[test]
fn instances_match_fresh_solves_for_any_batch_shape() {
    let (scheme, _) = block_scheme();
    assert!(!scheme.is_rank_fixed(0), "the block treats its batch row as a whole");
    for batch in [&[1][..], &[8], &[64], &[2, 3], &[], &[0]] {
        check_instance(&scheme, batch);
    }
}

#[test]
fn scheme_shapes_are_symbolic() {
    let (scheme, _) = block_scheme();
    let x = scheme.tensor_ids().next().expect("x");
    assert_eq!(scheme.shape_string(x).expect("a tensor"), "..x.batch..,6|8");
    // The parameters are sized without the batch.
    let wq = scheme.tensor_ids().find(|t| scheme.name(*t).is_ok_and(|n| n == "wq")).expect("wq");
    assert_eq!(scheme.shape_string(wq).expect("a tensor"), "8->2,4");
    assert!(scheme.warnings().is_empty(), "{:?}", scheme.warnings());
}

#[test]
fn bad_instances_are_coded_errors() {
    let (scheme, _) = block_scheme();
    let code = |r: Result<einrow::infer::Instance, InferError>| r.expect_err("rejected").code();
    assert_eq!(code(scheme.instantiate(&[])), ErrorCode::Arity);
    assert_eq!(code(scheme.instantiate(&[&[1], &[2]])), ErrorCode::Arity);
    assert_eq!(code(scheme.instantiate(&[&[1 << 63]])), ErrorCode::Value);
}

/// A step that reads the batch axis by a label keeps the variable at one axis.
#[test]
fn a_labelled_batch_axis_fixes_the_rank() {
    let mut g = Graph::new();
    let batch = g.row_var("batch");
    let x = g.input("x", &ShapeBuilder::new().batch_var(batch).output([3])).expect("declares");
    let y = g.einsum("b|i; b|i => b|", &[x, x]).expect("adds");
    let scheme = g.solve_scheme(&[batch]).expect("solves");
    assert!(scheme.is_rank_fixed(0));
    let inst = scheme.instantiate(&[&[5]]).expect("one axis");
    assert_eq!(inst.sizes(y).expect("known").batch, [5]);
    let err = scheme.instantiate(&[&[2, 5]]).expect_err("two axes");
    assert_eq!(err.code(), ErrorCode::Rank);
    // A batch slice reads the leading batch axis alone.
    let mut g = Graph::new();
    let batch = g.row_var("batch");
    let x = g.input("x", &ShapeBuilder::new().batch_var(batch).output([3])).expect("declares");
    let s = g.batch_slice(x).expect("adds");
    let scheme = g.solve_scheme(&[batch]).expect("solves");
    assert!(scheme.is_rank_fixed(0));
    assert_eq!(
        scheme.instantiate(&[&[4]]).expect("one axis").sizes(s).expect("known").batch,
        [0u64; 0]
    );
}

/// A fixed index on the batch axis needs the axis to reach it; a convolution over the batch
/// computes an axis from it. Sizes that contradict either are `bounds` errors.
#[test]
fn sizes_the_solution_rules_out_are_bounds_errors() {
    let mut g = Graph::new();
    let batch = g.row_var("batch");
    let x = g.input("x", &ShapeBuilder::new().batch_var(batch).output([3])).expect("declares");
    let y = g.permute("2|i => i", x).expect("adds");
    let scheme = g.solve_scheme(&[batch]).expect("solves");
    assert_eq!(scheme.min_size(0), 3);
    assert_eq!(
        scheme.instantiate(&[&[3]]).expect("reaches index 2").sizes(y).expect("known").output,
        [3]
    );
    assert_eq!(scheme.instantiate(&[&[2]]).expect_err("index 2 of 2").code(), ErrorCode::Bounds);

    let mut g = Graph::new();
    let batch = g.row_var("batch");
    let x = g.input("x", &ShapeBuilder::new().batch_var(batch).output([2])).expect("declares");
    let k = g.input("k", &ShapeBuilder::array([3])).expect("declares");
    // A valid convolution over the batch axis: `o` is the input length less 2.
    let y = g.einsum("o<+k|c; k => o|c", &[x, k]).expect("adds");
    let scheme = g.solve_scheme(&[batch]).expect("solves");
    assert_eq!(scheme.shape_string(y).expect("a tensor"), "batch-2|2");
    // The same as values: an affine function of the variable, evaluated for a binding.
    let sym = scheme.sym_shape(y).expect("a tensor");
    assert!(
        matches!(&sym.batch[..], [SymDim::Affine { var: 0, scale: 1, offset: -2, .. }]),
        "{sym:?}"
    );
    assert_eq!(sym.eval(&[&[10]]).expect("sizes").batch, [8]);
    assert_eq!(sym.eval(&[&[1]]), None, "an empty convolution");
    assert_eq!(sym.to_string(), "batch-2|2");
    let leaves = scheme.leaves();
    assert_eq!(leaves.len(), 2);
    assert!(matches!(&leaves[0], (t, Leaf::Input, s) if *t == x && s.to_string() == "..batch..|2"));
    let inst = scheme.instantiate(&[&[10]]).expect("instantiates");
    assert_eq!(inst.sizes(y).expect("known").batch, [8]);
    assert_eq!(scheme.instantiate(&[&[2]]).expect_err("empty output").code(), ErrorCode::Bounds);
    // The same graph solved afresh agrees, and rejects the same size.
    let mut g = Graph::new();
    let x = g.input("x", &ShapeBuilder::new().batch([10]).output([2])).expect("declares");
    let k = g.input("k", &ShapeBuilder::array([3])).expect("declares");
    let y = g.einsum("o<+k|c; k => o|c", &[x, k]).expect("adds");
    g.solve().expect("solves");
    assert_eq!(g.sizes(y).expect("solved").batch, [8]);
}

#[test]
fn graphs_that_fix_the_batch_are_coded_errors() {
    // Another input fixes the batch: it is not free.
    let mut g = Graph::new();
    let batch = g.row_var("batch");
    let x = g.input("x", &ShapeBuilder::new().batch_var(batch).output([3])).expect("declares");
    let z = g.input("z", &ShapeBuilder::new().batch([32]).output([3])).expect("declares");
    g.pointwise(&[x, z]).expect("adds");
    let err = g.solve_scheme(&[batch]).expect_err("the batch is fixed");
    assert_eq!(err.code(), ErrorCode::Mismatch);
    assert!(err.to_string().contains("`batch` symbolic"), "{err}");

    // A solved variable, a handle of another graph, a dimension handle.
    let mut g = Graph::new();
    let batch = g.row_var("batch");
    g.input("x", &ShapeBuilder::new().batch_var(batch).output([3])).expect("declares");
    let other = Graph::new().row_var("batch");
    assert_eq!(g.solve_scheme(&[other]).expect_err("foreign").code(), ErrorCode::Label);
    g.solve().expect("solves");
    assert_eq!(g.solve_scheme(&[batch]).expect_err("solved").code(), ErrorCode::Unsupported);
}

#[test]
fn scheme_warnings_show_symbolic_axes() {
    let mut g = Graph::new();
    let batch = g.row_var("batch");
    let x = g.input("x", &ShapeBuilder::new().batch_var(batch).output([3])).expect("declares");
    let b = g.parameter("b", &ShapeBuilder::unknown()).expect("declares");
    g.pointwise(&[x, b]).expect("adds");
    let scheme = g.solve_scheme(&[batch]).expect("solves");
    let w = scheme.warnings();
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(w[0].to_string().contains("`..batch..`"), "{}", w[0]);
    // Its input row is open too: nothing sizes it, and it closed to no axes.
    assert!(matches!(w[1], Warning::ClosedRow { row: RowKind::Input, .. }), "{:?}", w[1]);
    let _ = OpKind::Pointwise;
}

/// A batch read at a fixed index above the scheme's old marker sizes (65521) solves, and an
/// error of a scheme shows no size the user did not write.
#[test]
fn large_fixed_indices_solve_and_marker_sizes_stay_hidden() {
    let mut g = Graph::new();
    let batch = g.row_var("batch");
    let x = g.input("x", &ShapeBuilder::new().batch_var(batch).output([4])).expect("declares");
    let y = g.permute("70000|i => |i", x).expect("adds");
    let scheme = g.solve_scheme(&[batch]).expect("solves");
    assert!(scheme.is_rank_fixed(0));
    assert_eq!(scheme.min_size(0), 70_001);
    let inst = scheme.instantiate(&[&[70_001]]).expect("instantiates");
    assert_eq!(inst.sizes(y).expect("known").output, [4]);
    assert_eq!(
        scheme.instantiate(&[&[70_000]]).expect_err("index 70000 of 70000").code(),
        ErrorCode::Bounds
    );

    let mut g = Graph::new();
    let batch = g.row_var("batch");
    let x = g.input("x", &ShapeBuilder::new().batch_var(batch).output([4])).expect("declares");
    let z = g.input("z", &ShapeBuilder::new().batch([3]).output([4])).expect("declares");
    g.pointwise(&[x, z]).expect("adds");
    let e = g.solve_scheme(&[batch]).expect_err("the batch is 3, not symbolic");
    let shown = format!("{e} {}", einrow::infer::explain::render_error(Some(&g), &e, true));
    let long = shown.split(|c: char| !c.is_ascii_digit()).find(|w| w.len() >= 5);
    assert_eq!(long, None, "a size the user did not write in: {shown}");
}
