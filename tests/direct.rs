//! Direct evaluation of spec steps over solved operands (`infer/graph/direct.rs`) agrees with
//! the solver: random programs of einsum, permute and pointwise steps over declared shapes are
//! run with direct evaluation on and off, and every step's outcome (error code or result rows,
//! flank structure included), the solved shapes and the derived plans must be the same.

use einrow::code::Coded;
use einrow::ids::TensorId;
use einrow::infer::{Graph, OpKind};
use einrow::project::{derive_plan, Compute};
use einrow::shape::Dim;
use proptest::prelude::*;

/// One step of a generated program.
#[derive(Clone, Debug)]
enum Step {
    /// An einsum (two slots) or permute (one slot) over these tensors (indices into all
    /// tensors so far, modulo their number).
    Spec { spec: String, args: Vec<usize> },
    /// A pointwise step over two tensors.
    Pointwise(usize, usize),
}

/// A declared shape: `2,3`, `1!,2`, `2|3`, or the empty shape.
fn shape() -> impl Strategy<Value = String> {
    // Mostly one size, so that labels often agree and the direct path is taken.
    let axis =
        prop_oneof![6 => Just("2".to_string()), 1 => Just("3".into()), 1 => Just("1!".into())];
    let row = || prop::collection::vec(axis.clone(), 0..4).prop_map(|v| v.join(","));
    (row(), prop::option::weighted(0.25, row()))
        .prop_map(|(out, batch)| batch.map_or(out.clone(), |b| format!("{b}|{out}")))
}

/// A written row: labels, placeholders and at most one row variable.
fn row(labels: &'static [&'static str]) -> impl Strategy<Value = String> {
    let token = prop::sample::select(labels);
    let ellipsis =
        prop::option::weighted(0.4, (prop::sample::select(&["...", "..r.."][..]), 0usize..4));
    (prop::collection::vec(token, 0..4), ellipsis).prop_map(
        |(mut toks, e): (Vec<&str>, Option<(&str, usize)>)| {
            if let Some((e, at)) = e {
                let at = at.min(toks.len());
                toks.insert(at, e);
            }
            toks.join(", ")
        },
    )
}

/// A slot: an output row, sometimes with a batch row.
fn slot(labels: &'static [&'static str]) -> impl Strategy<Value = String> {
    (row(labels), prop::option::weighted(0.2, row(labels)))
        .prop_map(|(out, batch)| batch.map_or(out.clone(), |b| format!("{b} | {out}")))
}

fn step() -> impl Strategy<Value = Step> {
    const RHS: &[&str] = &["i", "j", "k", "_"];
    const LHS: &[&str] = &["i", "j", "k"];
    let einsum =
        (slot(RHS), slot(RHS), slot(LHS), 0usize..8, 0usize..8).prop_map(|(a, b, c, x, y)| {
            Step::Spec { spec: format!("{a}; {b} => {c}"), args: vec![x, y] }
        });
    let permute = (slot(RHS), slot(LHS), 0usize..8)
        .prop_map(|(a, c, x)| Step::Spec { spec: format!("{a} => {c}"), args: vec![x] });
    let pointwise = (0usize..8, 0usize..8).prop_map(|(x, y)| Step::Pointwise(x, y));
    prop_oneof![3 => einsum, 3 => permute, 1 => pointwise]
}

/// An empty graph with direct evaluation on or off.
fn graph(direct: bool) -> Graph {
    let mut g = Graph::new();
    g.set_direct_evaluation(direct);
    g
}

/// What running a program observed: per step the error code or the result's rows, then the
/// solved shapes (or the solve error's code) and the plans of the spec steps.
fn run(decls: &[String], steps: &[Step], direct: bool) -> Vec<String> {
    let mut g = graph(direct);
    let mut seen = Vec::new();
    let mut tensors: Vec<TensorId> = Vec::new();
    for (i, d) in decls.iter().enumerate() {
        tensors.push(g.declare(&format!("x{i}"), Some(d), false).expect("declared shapes parse"));
    }
    let mut spec_steps = Vec::new();
    for s in steps {
        let pick = |i: &usize| tensors[i % tensors.len()];
        let result = match s {
            Step::Spec { spec, args } => {
                let args: Vec<TensorId> = args.iter().map(pick).collect();
                let op = if args.len() == 1 { OpKind::Permute } else { OpKind::Einsum };
                g.add_step(op, &args, Some(spec)).inspect(|_| spec_steps.push(g.steps().len() - 1))
            }
            Step::Pointwise(a, b) => g.pointwise(&[pick(a), pick(b)]),
        };
        match result {
            Ok(t) => {
                seen.push(format!("{:?}", g.shape(t)));
                tensors.push(t);
            }
            Err(e) => seen.push(format!("error {}", e.code())),
        }
    }
    match g.solve() {
        Ok(()) => {
            for &t in &tensors {
                seen.push(format!("{:?}", g.shape(t)));
            }
            for s in spec_steps {
                let compute = Compute::default_for(OpKind::Einsum, 2);
                let step = g.step_ids().nth(s).expect("a step");
                let plan = derive_plan(&g, step, compute, 0);
                seen.push(format!("{plan:?}"));
            }
        }
        Err(e) => seen.push(format!("solve error {}", e.code())),
    }
    canonical_vars(&seen)
}

/// Renames variables (`$r7`, `$12`) within each line by order of first appearance. The two
/// paths create different numbers of variables, and a rolled-back step renumbers them, so
/// only the pattern of variables within one observation is comparable.
fn canonical_vars(lines: &[String]) -> Vec<String> {
    let rename = |line: &str| {
        let mut names: Vec<String> = Vec::new();
        let mut out = String::new();
        let mut rest = line;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let var = &rest[at..];
            // `$r7` is a row variable, `$12` a dim variable.
            let prefix = if var[1..].starts_with('r') { 2 } else { 1 };
            let digits = var[prefix..].find(|c: char| !c.is_ascii_digit());
            let end = digits.map_or(var.len(), |e| e + prefix);
            let name = &var[..end];
            let k = names.iter().position(|n| n == name).unwrap_or_else(|| {
                names.push(name.to_string());
                names.len() - 1
            });
            out.push_str(&format!("{}{k}", &name[..prefix]));
            rest = &var[end..];
        }
        out.push_str(rest);
        out
    };
    lines.iter().map(|l| rename(l)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn direct_evaluation_agrees_with_the_solver(
        decls in prop::collection::vec(shape(), 1..4),
        steps in prop::collection::vec(step(), 1..5),
    ) {
        let direct = run(&decls, &steps, true);
        let solver = run(&decls, &steps, false);
        prop_assert_eq!(direct, solver);
    }
}

/// A result slot with a leading flank keeps it: `a,..r..,c` over `2,3` gives a row whose first
/// axis aligns left in a later broadcast (so it cannot broadcast into `4,2,3`).
#[test]
fn a_direct_result_keeps_its_leading_flank() {
    for direct in [true, false] {
        let mut g = graph(direct);
        let x = g.declare("x", Some("2,3"), false).expect("declares");
        let y = g.declare("y", Some("4,2,3"), false).expect("declares");
        let p = g.permute("a, ..r.., c => a, ..r.., c", x).expect("permutes");
        let err = g.pointwise(&[p, y]).and_then(|_| g.solve()).expect_err("2 faces 4");
        assert_eq!(err.code(), einrow::code::ErrorCode::Mismatch, "direct: {direct}");
    }
}

/// Direct steps leave nothing for a solve to close, yet a leaf declared with a row variable
/// is still closed by the solve after them; a later solve with only direct steps since then
/// has nothing to close and keeps every shape.
#[test]
fn a_solve_after_direct_steps_still_closes_open_leaves() {
    for direct in [true, false] {
        let mut g = graph(direct);
        let a = g.declare("a", Some("2,3"), false).expect("declares");
        let b = g.declare("b", Some("3,4"), false).expect("declares");
        let open = g.declare("o", Some("5,..."), false).expect("declares");
        let c = g.einsum("ij;jk=>ik", &[a, b]).expect("infers");
        assert!(g.shape_string(open).is_err(), "open before solving (direct: {direct})");
        g.solve().expect("solves");
        assert_eq!(g.shape_string(open).expect("closed"), "5", "direct: {direct}");
        let d = g.permute("ij=>ji", c).expect("permutes");
        g.solve().expect("solves again");
        let shapes: Vec<String> =
            [a, b, open, c, d].map(|t| g.shape_string(t).expect("solved")).into();
        assert_eq!(shapes, ["2,3", "3,4", "5", "2,4", "4,2"], "direct: {direct}");
    }
}

/// Shrunk from `direct_evaluation_agrees_with_the_solver`: the second step's constraints all
/// hold at once (closed empty rows on both sides), so it queued none, and the solve after it
/// found no work allowance left and reported `did not converge`. Both paths solve it, and
/// `i` (which nothing sizes) closes to the broadcast top.
#[test]
fn a_step_whose_constraints_all_hold_leaves_the_solve_its_allowance() {
    for direct in [true, false] {
        let mut g = graph(direct);
        let x = g.declare("x", Some("2|"), false).expect("declares");
        let summed = g.permute("... |  => ", x).expect("permutes");
        let grown = g.permute(" => i | ", summed).expect("permutes");
        g.solve().expect("solves");
        assert_eq!(g.shape_string(summed).expect("solved"), "", "direct: {direct}");
        assert_eq!(g.shape_string(grown).expect("solved"), "1!|", "direct: {direct}");
    }
}

/// The label names of a spec are kept once, set by its first step: a direct step and a solved
/// step of the same spec list the same names in the same order (the result's labels first,
/// which here is not the order in which the operands mention them), each with its own dims.
#[test]
fn steps_of_one_spec_share_label_names_in_either_order() {
    for direct_first in [true, false] {
        let mut g = graph(true);
        let solved = [
            g.declare("a", Some("2,3"), false).expect("declares"),
            g.declare("b", Some("3,4"), false).expect("declares"),
        ];
        let open = [
            g.declare("c", Some("5,..r.."), false).expect("declares"),
            g.declare("d", Some("6,7"), false).expect("declares"),
        ];
        let order = if direct_first { [solved, open] } else { [open, solved] };
        for args in order {
            g.einsum("ij;jk=>ki", &args).expect("adds");
        }
        let (direct, solver) = if direct_first { (0, 1) } else { (1, 0) };
        let step = |g: &Graph, s: usize| g.step_ids().nth(s).expect("a step");
        let dims = |g: &Graph, s: usize| g.step_labels(step(g, s)).expect("a step").dims().to_vec();
        // The direct step keeps sizes, the other step the solver's variables.
        assert!(dims(&g, direct).iter().all(|d| matches!(d, Dim::Solved(_))));
        assert!(dims(&g, solver).iter().all(|d| matches!(d, Dim::Var(_))));
        g.solve().expect("solves");
        let sizes = |g: &mut Graph, s: usize| {
            let labels = g.step_labels(step(g, s)).expect("a step");
            let names: Vec<String> = labels.names().iter().map(|n| n.to_string()).collect();
            let dims = labels.dims().to_vec();
            let sizes: Vec<Option<u64>> = dims.into_iter().map(|d| g.dim_size(d)).collect();
            (names, sizes)
        };
        let names = ["k", "i", "j"].map(String::from).to_vec();
        assert_eq!(sizes(&mut g, direct), (names.clone(), vec![Some(4), Some(2), Some(3)]));
        assert_eq!(sizes(&mut g, solver), (names, vec![Some(7), Some(5), Some(6)]));
    }
}

/// A failed step rebuilds the graph from its events: the rebuilt graph keeps direct
/// evaluation off when it was turned off (the differential test above relies on it).
#[test]
fn a_failed_step_keeps_direct_evaluation_off() {
    let mut g = graph(false);
    let a = g.declare("a", Some("2,3"), false).expect("declares");
    let b = g.declare("b", Some("3,4"), false).expect("declares");
    let c = g.declare("c", Some("5,4"), false).expect("declares");
    g.einsum("ij;jk=>ik", &[a, c]).expect_err("j is 3 and 5");
    g.einsum("ij;jk=>ik", &[a, b]).expect("adds");
    let labels = g.step_labels(g.step_ids().next().expect("a step")).expect("a step");
    assert_eq!(labels.len(), 3);
    assert!(labels.dims().iter().all(|d| matches!(d, Dim::Var(_))), "{:?}", labels.dims());
}
