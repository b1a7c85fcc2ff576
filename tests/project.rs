//! Projections: the plans of typical steps, printed as readable loops (data-driven), their
//! TensorStore export, and end-to-end runs against values computed by hand.

#![cfg(feature = "kernel")]

use einrow::formats::tensorstore::{from_json, IndexTransform};
use einrow::infer::{Graph, OpKind};
use einrow::project::{derive_plan, run_plan, Compute, IndexPlan};

/// Solves one step over leaves of the given shapes and derives its plan.
fn plan(op: OpKind, spec: Option<&str>, shapes: &[&str]) -> IndexPlan {
    let mut g = Graph::new();
    let ids: Vec<_> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| g.declare(&format!("x{i}"), Some(s), false).expect("declares"))
        .collect();
    g.add_step(op, &ids, spec).expect("step is valid");
    g.solve().expect("solves");
    let step = g.step_ids().next().expect("a step");
    derive_plan(&g, step, Compute::default_for(op, ids.len()), 0).expect("plan derives")
}

#[track_caller]
fn check(op: OpKind, spec: Option<&str>, shapes: &[&str], expected: &str) {
    let p = plan(op, spec, shapes);
    assert_eq!(p.to_string().trim_end(), expected.trim());
}

#[test]
fn plans_print_as_loops() {
    check(
        OpKind::Einsum,
        Some("ij;jk=>ik"),
        &["2,3", "3,4"],
        "out[..] = neutral of `+=`\nfor i in 0..2, k in 0..4, j in 0..3: out[i, k] += x0[i, j] * x1[j, k]",
    );
    check(OpKind::Permute, Some("ii=>i"), &["3,3"], "for i in 0..3: out[i] += x0[i, i]");
    check(OpKind::Permute, Some("i=>i0"), &["4"], "for i in 0..4: out[i, 0] += x0[i]");
    check(
        OpKind::Pointwise,
        None,
        &["2,3", "1!"],
        "for o0 in 0..2, o1 in 0..3: out[o0, o1] += x0[o0, o1] + x1[0]",
    );
    check(
        OpKind::Compose,
        None,
        &["3->2", "3"],
        "out[..] = neutral of `+=`\nfor o0 in 0..2, k0 in 0..3: out[o0] += x0[o0, k0] * x1[k0]",
    );
    check(
        OpKind::Concat,
        Some("a; b => a^b"),
        &["3", "2"],
        "out[..] = neutral of `+=`\nfor a in 0..3: out[a] += x0[a]\nfor b in 0..2: out[b+3] += x1[b]",
    );
    check(
        OpKind::Einsum,
        Some("2*o<+k; k => o"),
        &["7", "3"],
        "out[..] = neutral of `+=`\nfor o in 0..3, k in 0..3: out[o] += x0[2*o+k] * x1[k]",
    );
    check(
        OpKind::Permute,
        Some("..r..|i->o => o|..r..->i"),
        &["2,3|4->5"],
        "for o in 0..5, i in 0..4, r[0] in 0..2, r[1] in 0..3: out[o, i, r[0], r[1]] += x0[r[0], r[1], o, i]",
    );
}

/// A label repeated among a concatenation's components is iterated by every part: no operand
/// is left out for it (it used to leave every operand out, and the plan had no part).
#[test]
fn a_repeated_concatenation_label_reads_every_operand() {
    check(
        OpKind::Einsum,
        Some("i; i => i^i"),
        &["2", "2"],
        "out[..] = neutral of `+=`\nfor i in 0..2: out[i] += x0[i] * x1[i]\nfor i in 0..2: out[i+2] += x0[i] * x1[i]",
    );
}

#[test]
fn same_convolution_pads_by_half_the_kernel() {
    let p = plan(OpKind::Einsum, Some("o=+k; k => o"), &["5", "3"]);
    assert_eq!(
        p.parts[0].operand(0).map(|i| format!("{i:?}")),
        Some("[Affine { terms: [(1, 0), (1, 1)], offset: -1, padded: true }]".into())
    );
    let out = run_plan(&p, &[&[1.0, 2.0, 3.0, 4.0, 5.0], &[1.0, 1.0, 1.0]]).expect("runs");
    assert_eq!(out, vec![3.0, 6.0, 9.0, 12.0, 9.0]);
}

#[test]
fn plans_export_as_tensorstore_transforms() {
    let p = plan(OpKind::Einsum, Some("ij;jk=>ik"), &["2,3", "3,4"]);
    let t = p.index_transform(0, Some(0)).expect("expressible");
    let parsed: IndexTransform = from_json(&t).expect("valid IndexTransform JSON");
    assert_eq!(parsed.input_rank(), 3);
    let fixed = plan(OpKind::Permute, Some("ij=>i0"), &["2,3"]);
    let t = fixed.index_transform(0, None).expect("expressible");
    assert_eq!(t["output"][1], serde_json::json!({"offset": 0}));
    from_json::<IndexTransform>(&t).expect("valid IndexTransform JSON");
    let conv = plan(OpKind::Einsum, Some("2*o<+k; k => o"), &["7", "3"]);
    assert!(
        conv.index_transform(0, Some(0)).is_none(),
        "two loops on one axis are not expressible"
    );
}

#[test]
fn graph_runs_end_to_end_and_failed_steps_leave_it_unchanged() {
    let mut g = Graph::new();
    let a = g.declare("a", Some("2,3"), false).unwrap();
    let b = g.declare("b", Some("3"), false).unwrap();
    let m = g.einsum("ij;j=>i", &[a, b]).unwrap();
    let err = g.pointwise(&[m, b]).unwrap_err();
    assert_eq!(einrow::Coded::code(&err), einrow::ErrorCode::Mismatch);
    assert_eq!(g.steps().len(), 1, "the failed step is not kept");
    let t = g.permute("i=>ii", m).unwrap();
    g.solve().unwrap();
    let computes =
        [Compute::default_for(OpKind::Einsum, 2), Compute::default_for(OpKind::Permute, 1)];
    let values = einrow::project::run_graph(
        &g,
        &[(a, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), (b, vec![1.0, 0.0, -1.0])],
        &|step| computes[step.index()],
    )
    .unwrap();
    assert_eq!(values[m.index()].as_deref(), Some(&[-2.0, -2.0][..]));
    assert_eq!(values[t.index()].as_deref(), Some(&[-2.0, 0.0, 0.0, -2.0][..]));
}

/// A numpy step is planned like any other: one loop per label, numpy's size-1 broadcasting
/// at index 0, repeated labels as diagonals; compiled graphs run it.
#[test]
fn numpy_steps_are_planned_and_compiled() {
    let mut g = Graph::new();
    let a = g.declare("a", Some("2,3"), false).expect("declares");
    let b = g.declare("b", Some("1!,3"), false).expect("declares");
    let c = g.add_step(OpKind::Numpy, &[a, b], Some("ij,kj->ij")).expect("adds");
    let d = g.declare("d", Some("3,3"), false).expect("declares");
    let e = g.add_step(OpKind::Numpy, &[d], Some("ii->i")).expect("adds");
    g.solve().expect("solves");
    let step = g.producer(c).expect("ours").expect("a result");
    let plan = derive_plan(&g, step, Compute::default_for(OpKind::Numpy, 2), 0).expect("plans");
    assert_eq!(plan.result_dims, [2, 3]);
    let program = einrow::project::CompiledGraph::compile_defaults(&g).expect("compiles");
    let (mut av, mut bv) = (vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], vec![10.0f64, 20.0, 30.0]);
    let (mut cv, mut dv) = (vec![0.0f64; 6], (0..9).map(f64::from).collect::<Vec<_>>());
    let mut ev = vec![0.0f64; 3];
    program.run(&mut [&mut av, &mut bv, &mut cv, &mut dv, &mut ev]).expect("runs");
    assert_eq!(cv, [10.0, 40.0, 90.0, 40.0, 100.0, 180.0]);
    assert_eq!(ev, [0.0, 4.0, 8.0]);
    let _ = e;
}

/// `CompiledGraph::run_with` takes run options, as `run_with` does everywhere: one and two
/// threads give `run`'s results; `run_after` sees each step's result once it ran.
#[test]
fn compiled_graphs_run_with_options_and_after_each_step() {
    let mut g = Graph::new();
    let a = g.declare("a", Some("64,48"), false).expect("declares");
    let b = g.declare("b", Some("48,32"), false).expect("declares");
    let c = g.add_step(OpKind::Numpy, &[a, b], Some("ij,jk->ik")).expect("adds");
    g.solve().expect("solves");
    let program = einrow::project::CompiledGraph::compile_defaults(&g).expect("compiles");
    let run = |how: &dyn Fn(&mut [&mut [f64]])| {
        let mut av: Vec<f64> = (0..64 * 48).map(|i| f64::from(i % 7) - 3.0).collect();
        let mut bv: Vec<f64> = (0..48 * 32).map(|i| f64::from(i % 5) - 2.0).collect();
        let mut cv = vec![0.0f64; 64 * 32];
        how(&mut [&mut av, &mut bv, &mut cv]);
        cv
    };
    let want = run(&|bufs| program.run(bufs).expect("runs"));
    for threads in [1, 2] {
        let opts = einrow::kernel::RunOptions { threads, ..Default::default() };
        assert_eq!(run(&|bufs| program.run_with(bufs, &opts).expect("runs")), want);
    }
    let seen = std::cell::RefCell::new(Vec::new());
    let doubled = run(&|bufs| {
        let mut after = |step, out: &mut [f64]| {
            out.iter_mut().for_each(|v| *v *= 2.0);
            seen.borrow_mut().push(step);
            Ok(())
        };
        program.run_after(bufs, None, &mut after).expect("runs")
    });
    assert_eq!(doubled, want.iter().map(|v| v * 2.0).collect::<Vec<_>>());
    assert_eq!(*seen.borrow(), [g.producer(c).expect("ours").expect("a step")]);
}
