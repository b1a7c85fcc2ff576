//! The eager planner (`project::plan_einsum`) agrees with the graph: for random specs of one to
//! three operand slots over random operand sizes, its plan or error is the one a graph gives
//! after declaring the operands, adding the step with direct evaluation off (so that the
//! solver decides everything) and solving. An `EinsumPlanner` reused from case to case (its
//! buffers holding the previous case's plan) gives the same plans and errors.

use einrow::code::{Coded, ErrorCode};
use einrow::ids::TensorId;
use einrow::infer::{Graph, InferError, OpKind};
use std::cell::RefCell;

use einrow::project::EinsumPlanner;
use einrow::project::{derive_plan, plan_einsum, Compute, Concrete, ConcreteRow, IndexPlan};
use einrow::project::{operand_name, ProjectError};
use proptest::prelude::*;

/// A declared shape without row variables: an output row, sometimes batch and input rows.
/// Sizes are mostly 2 so that labels often agree; a plain 1 does not broadcast.
fn shape() -> impl Strategy<Value = String> {
    let axis = prop_oneof![6 => Just("2"), 2 => Just("3"), 1 => Just("1")];
    let row = move || prop::collection::vec(axis.clone(), 0..4).prop_map(|v| v.join(","));
    let opt = || prop::option::weighted(0.25, row());
    (opt(), opt(), row()).prop_map(|(batch, input, output)| {
        let batch = batch.map(|b| format!("{b}|")).unwrap_or_default();
        let input = input.map(|i| format!("{i}->")).unwrap_or_default();
        format!("{batch}{input}{output}")
    })
}

/// One written item of a generated row.
#[derive(Clone, Copy, Debug)]
enum Item {
    Label(&'static str),
    Placeholder,
    Fixed,
    /// `...` (named after the row's kind) or `..r..` (shared by every kind).
    RowVar(&'static str),
}

/// A generated slot: its batch, input and output rows (`None`: not written).
type Slot = [Option<Vec<Item>>; 3];

/// A written row: labels (from `labels`), placeholders, fixed indices, at most one row
/// variable.
fn row(labels: &'static [&'static str]) -> impl Strategy<Value = Vec<Item>> {
    let item = prop_oneof![
        16 => prop::sample::select(labels).prop_map(Item::Label),
        1 => Just(Item::Placeholder),
        1 => Just(Item::Fixed),
    ];
    let var = prop::option::weighted(0.4, (prop::sample::select(&["...", "r"][..]), 0usize..4));
    (prop::collection::vec(item, 0..4), var).prop_map(|(mut items, var)| {
        if let Some((name, at)) = var {
            items.insert(at.min(items.len()), Item::RowVar(name));
        }
        items
    })
}

fn slot(labels: &'static [&'static str]) -> impl Strategy<Value = Slot> {
    let opt = || prop::option::weighted(0.2, row(labels));
    (opt(), opt(), row(labels)).prop_map(|(batch, input, output)| [batch, input, Some(output)])
}

/// The text of a slot.
fn slot_text(slot: &Slot) -> String {
    let row = |items: &[Item]| {
        let text = |i: &Item| match i {
            Item::Label(l) => l.to_string(),
            Item::Placeholder => "_".into(),
            Item::Fixed => "0".into(),
            Item::RowVar(v) if *v == "..." => "...".into(),
            Item::RowVar(v) => format!("..{v}.."),
        };
        items.iter().map(text).collect::<Vec<_>>().join(", ")
    };
    let [batch, input, output] = slot;
    let batch = batch.as_ref().map(|b| format!("{} | ", row(b))).unwrap_or_default();
    let input = input.as_ref().map(|i| format!("{} -> ", row(i))).unwrap_or_default();
    format!("{batch}{input}{}", row(output.as_deref().unwrap_or_default()))
}

/// What a fitting operand's axes take: sizes of `i`, `j`, `k`, and the axes of `...` per
/// kind and of `..r..`.
#[derive(Clone, Debug)]
struct Fit {
    labels: [u64; 3],
    ellipsis: [Vec<u64>; 3],
    r: Vec<u64>,
}

fn fit() -> impl Strategy<Value = Fit> {
    let size = || 1u64..4;
    let axes = || prop::collection::vec(size(), 0..3);
    ([size(), size(), size()], [axes(), axes(), axes()], axes())
        .prop_map(|(labels, ellipsis, r)| Fit { labels, ellipsis, r })
}

/// The shape string of an operand that fits its slot under `fit` (fixed indices and
/// placeholders get size 2).
fn fitting_shape(slot: &Slot, fit: &Fit) -> String {
    let rows: Vec<String> = (0..3)
        .map(|kind| {
            let items = slot[kind].as_deref().unwrap_or_default();
            let size = |i: &Item| -> Vec<u64> {
                match i {
                    Item::Label(l) => vec![fit.labels[usize::from(l.as_bytes()[0] - b'i')]],
                    Item::Placeholder | Item::Fixed => vec![2],
                    Item::RowVar(v) if *v == "..." => fit.ellipsis[kind].clone(),
                    Item::RowVar(_) => fit.r.clone(),
                }
            };
            let sizes: Vec<String> = items.iter().flat_map(size).map(|s| s.to_string()).collect();
            sizes.join(",")
        })
        .collect();
    let batch = if rows[0].is_empty() { String::new() } else { format!("{}|", rows[0]) };
    let input = if rows[1].is_empty() { String::new() } else { format!("{}->", rows[1]) };
    format!("{batch}{input}{}", rows[2])
}

/// A spec of one to three operand slots, and operand shapes: most fit their slots, so that
/// many steps are read off their operands; the others are random. Fixed indices, and a
/// result label (`l`) no operand has, send some steps through the solver.
fn case() -> impl Strategy<Value = (String, Vec<String>)> {
    const RHS: &[&str] = &["i", "j", "k"];
    const LHS: &[&str] = &["i", "j", "k", "i", "j", "k", "i", "j", "k", "l"];
    let operand = (slot(RHS), prop::option::weighted(0.1, shape()));
    (prop::collection::vec(operand, 1..4), slot(LHS), fit()).prop_map(|(rhs, lhs, fit)| {
        let slots: Vec<String> = rhs.iter().map(|(s, _)| slot_text(s)).collect();
        let spec = format!("{} => {}", slots.join("; "), slot_text(&lhs));
        let shapes =
            rhs.iter().map(|(s, random)| random.clone().unwrap_or_else(|| fitting_shape(s, &fit)));
        (spec, shapes.collect())
    })
}

/// The operation of a spec with this many operands.
fn op(operands: usize) -> OpKind {
    match operands {
        1 => OpKind::Permute,
        2 => OpKind::Einsum,
        3 => OpKind::Einsum3,
        _ => OpKind::Concat,
    }
}

/// The sizes of a declared shape, as a graph solves them.
fn concrete(shape: &str) -> Concrete {
    let mut g = Graph::new();
    let t = g.declare("x", Some(shape), false).expect("declared shapes parse");
    g.solve().expect("a declared shape solves");
    Concrete::of(&g, t).expect("a declared shape is solved")
}

/// The plan through a graph whose solver decides everything (direct evaluation off).
fn through_solver(spec: &str, shapes: &[String]) -> Result<IndexPlan, ProjectError> {
    let mut g = Graph::new();
    g.set_direct_evaluation(false);
    let mut args: Vec<TensorId> = Vec::new();
    for (i, shape) in shapes.iter().enumerate() {
        args.push(g.declare(&operand_name(i), Some(shape), false)?);
    }
    let op = op(shapes.len());
    g.add_step(op, &args, Some(spec))?;
    g.solve()?;
    let step = g.step_ids().next().expect("a step");
    derive_plan(&g, step, Compute::default_for(op, shapes.len()), 0)
}

thread_local! {
    /// One planner for every case of a test thread: each case plans into the buffers of the
    /// case before.
    static PLANNER: RefCell<EinsumPlanner> = RefCell::new(EinsumPlanner::new());
}

/// The eager plan of `spec` over these declared shapes: by [`plan_einsum`] (fresh buffers),
/// or by the thread's reused planner.
fn eager(spec: &str, shapes: &[String], reused: bool) -> Result<IndexPlan, ProjectError> {
    let sizes: Vec<Concrete> = shapes.iter().map(|s| concrete(s)).collect();
    let refs: Vec<&Concrete> = sizes.iter().collect();
    if reused {
        PLANNER.with_borrow_mut(|p| p.plan(spec, &refs).cloned())
    } else {
        plan_einsum(spec, &refs)
    }
}

/// The routes give the same plan, or errors of the same code and text.
fn same_outcome(spec: &str, shapes: &[String]) -> Result<(), String> {
    let same =
        |a: &Result<IndexPlan, ProjectError>, b: &Result<IndexPlan, ProjectError>| match (a, b) {
            (Ok(a), Ok(b)) => a == b,
            (Err(a), Err(b)) => a.code() == b.code() && a.to_string() == b.to_string(),
            _ => false,
        };
    let (fresh, solver) = (eager(spec, shapes, false), through_solver(spec, shapes));
    if !same(&fresh, &solver) {
        return Err(format!("`{spec}` over {shapes:?}:\neager  {fresh:?}\nsolver {solver:?}"));
    }
    let reused = eager(spec, shapes, true);
    if !same(&reused, &fresh) {
        return Err(format!("`{spec}` over {shapes:?}:\nreused {reused:?}\nfresh  {fresh:?}"));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn the_eager_plan_is_the_solvers((spec, shapes) in case()) {
        if let Err(diff) = same_outcome(&spec, &shapes) {
            return Err(TestCaseError::fail(diff));
        }
    }
}

/// A matrix's sizes.
fn matrix(rows: u64, cols: u64) -> Concrete {
    Concrete::output(&[rows, cols])
}

#[test]
fn a_matmul_is_read_off_its_operands() {
    let plan = plan_einsum("ij;jk=>ik", &[&matrix(2, 3), &matrix(3, 4)]).expect("plans");
    assert_eq!(plan.result_dims, vec![2, 4]);
    assert_eq!(plan.operand_dims, vec![vec![2, 3], vec![3, 4]]);
    let want = through_solver("ij;jk=>ik", &["2,3".into(), "3,4".into()]).expect("plans");
    assert_eq!(plan, want);
}

/// Steps the operands do not settle alone (a fixed index, a result axis no operand has, a
/// convolution) go through a graph, with the same plans.
#[test]
fn steps_the_operands_do_not_settle_go_through_the_solver() {
    for (spec, shapes) in [
        ("i, 0 => i", &["2,3"][..]),
        ("i => i, l", &["2"][..]),
        ("i => 0", &["5"][..]),
        ("i+k; k => i", &["6", "3"][..]),
        ("a^b => a", &["7"][..]),
        ("i; j; k; l => i^j^k^l", &["2", "3", "1", "4"][..]),
        ("i; i; i; i => i", &["2", "2", "2", "2"][..]),
    ] {
        let shapes: Vec<String> = shapes.iter().map(|s| s.to_string()).collect();
        same_outcome(spec, &shapes).unwrap_or_else(|diff| panic!("{diff}"));
    }
}

#[test]
fn a_size_mismatch_is_the_graphs_error_naming_the_operands() {
    let err = plan_einsum("ij;jk=>ik", &[&matrix(2, 3), &matrix(5, 4)]).expect_err("mismatch");
    assert_eq!(err.code(), ErrorCode::Mismatch);
    let ProjectError::Infer(InferError::Shape(shape)) = &err else { panic!("{err:?}") };
    assert_eq!(shape.statement.as_deref(), Some("t2 = einsum \"ij;jk=>ik\" a b"));
    assert!(shape.message.contains("`j` is 3"), "{}", shape.message);
    same_outcome("ij;jk=>ik", &["2,3".into(), "5,4".into()]).unwrap_or_else(|d| panic!("{d}"));
}

#[test]
fn a_malformed_spec_is_a_syntax_error_with_its_span() {
    let err = plan_einsum("ij;jk=>i$", &[&matrix(2, 3), &matrix(3, 4)]).expect_err("syntax");
    assert_eq!(err.code(), ErrorCode::Syntax);
    same_outcome("ij;jk=>i$", &["2,3".into(), "3,4".into()]).unwrap_or_else(|d| panic!("{d}"));
}

#[test]
fn any_number_of_operands_but_none_is_planned() {
    let m = matrix(2, 2);
    assert!(plan_einsum("ij => ji", &[&m]).is_ok());
    assert!(plan_einsum("ij; jk; kl => il", &[&m, &m, &m]).is_ok());
    let concat =
        plan_einsum("i, j; i, j; i, j; i, j => i^i^i^i, j", &[&m; 4]).expect("concatenates");
    assert_eq!((concat.op, concat.result_dims), (OpKind::Concat, vec![8, 2]));
    for operands in [vec![], vec![&m; 4]] {
        let err = plan_einsum("ij => ji", &operands).expect_err("arity");
        assert_eq!(err.code(), ErrorCode::Arity);
    }
    assert_eq!([0, 2, 25, 26].map(operand_name), ["a", "c", "z", "x26"]);
    // A spec whose slots do not match the operands is refused as the graph refuses it.
    let err = plan_einsum("ij => ji", &[&m, &m]).expect_err("arity");
    assert_eq!(err.code(), ErrorCode::Arity);
}

#[test]
fn sizes_above_2_to_the_62_are_refused() {
    let err = plan_einsum("ij => ji", &[&matrix(2, (1 << 62) + 1)]).expect_err("too large");
    assert_eq!(err.code(), ErrorCode::Value);
    assert!(err.to_string().contains("operand `a`"), "{err}");
    assert!(plan_einsum("ij => ji", &[&matrix(2, 1 << 62)]).is_ok());
}

/// Only sizes count: how a row splits into leading and trailing flanks does not change the
/// plan.
#[test]
fn a_leading_flank_does_not_change_the_plan() {
    let flat = matrix(2, 3);
    let mut split = flat.clone();
    split.rows[2] = ConcreteRow::new(vec![2], vec![3]);
    for spec in ["ij => ji", "..r.., j => j, ..r..", "i, ... => ..., i"] {
        assert_eq!(plan_einsum(spec, &[&split]).ok(), plan_einsum(spec, &[&flat]).ok(), "{spec}");
    }
}

/// A planner reused over plans of different shapes (several parts, one part, one to four
/// operands, a strided axis, an error in between) gives each time what a fresh one gives.
#[test]
fn a_reused_planner_plans_like_a_fresh_one() {
    let m = matrix(2, 2);
    let calls: [(&str, Vec<&Concrete>); 7] = [
        ("i, j; i, j; i, j; i, j => i^i^i^i, j", vec![&m; 4]),
        ("ij;jk=>ik", vec![&m; 2]),
        ("ij => ji", vec![&m]),
        ("ij;jk=>ik", vec![&m; 3]),
        ("2*i, j => i, j", vec![&m]),
        ("ij; jk; kl => il", vec![&m; 3]),
        ("i, j; i, j => i^i, j", vec![&m; 2]),
    ];
    let mut planner = EinsumPlanner::new();
    for round in 0..2 {
        for (spec, operands) in &calls {
            let fresh = plan_einsum(spec, operands);
            let reused = planner.plan(spec, operands).cloned();
            match (&reused, &fresh) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "round {round}: {spec}"),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{spec}"),
                _ => panic!("round {round}: {spec}: reused {reused:?}, fresh {fresh:?}"),
            }
        }
    }
    assert!(planner.plan("i, j; i, j => i^i, j", &[&m, &m]).is_ok_and(|p| p.parts.len() == 2));
}
