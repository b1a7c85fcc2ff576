//! Flattened axes `(h*d)`: inference in both directions (the flattened size from its parts,
//! a part from the flattened size and the other parts), the errors of sizes that do not
//! divide, plans that read and write row-major (a reshape), and their gradients.

#![cfg(feature = "kernel")]

use einrow::code::{Coded, ErrorCode};
use einrow::infer::{Graph, ShapeBuilder};
use einrow::project::{derive_plan, run_plan, Compute, IndexPlan};
use einrow::spec::parse_einsum;
use proptest::prelude::*;

fn solve(
    shapes: &[&str],
    spec: &str,
) -> Result<(Graph, einrow::ids::TensorId), einrow::infer::InferError> {
    let mut g = Graph::new();
    let ids: Vec<_> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| g.declare(&format!("x{i}"), Some(s), false))
        .collect::<Result<_, _>>()?;
    let op = match ids.len() {
        1 => einrow::infer::OpKind::Permute,
        2 => einrow::infer::OpKind::Einsum,
        _ => einrow::infer::OpKind::Einsum3,
    };
    let out = g.add_step(op, &ids, Some(spec))?;
    g.solve()?;
    Ok((g, out))
}

fn plan(g: &mut Graph, out: einrow::ids::TensorId) -> IndexPlan {
    let step = g.producer(out).expect("ours").expect("a result");
    let op = g.steps()[step.index()].op;
    let n = g.steps()[step.index()].args.len();
    derive_plan(g, step, Compute::default_for(op, n), 0).expect("plans")
}

#[test]
fn flattened_sizes_are_inferred_both_ways() {
    let (g, y) = solve(&["2,3,4"], "b,h,d => b,(h*d)").expect("solves");
    assert_eq!(g.shape_string(y).expect("ours"), "2,12");
    // A part from the flattened size and the other parts: the head split of attention.
    let (g, x) = solve(&["2,12", "3"], "b,(h*d); h => b,h,d").expect("solves");
    assert_eq!(g.shape_string(x).expect("ours"), "2,3,4");
    let (g, x) = solve(&["5,24", "2", "3"], "b,(h*w*c); h; w => b,h,w,c").expect("solves");
    assert_eq!(g.shape_string(x).expect("ours"), "5,2,3,4");
    let e = solve(&["2,10", "3"], "b,(h*d); h => b,h,d").expect_err("3 does not divide 10");
    assert_eq!(e.code(), ErrorCode::Mismatch);
    assert!(e.to_string().contains("`h` = 3"), "{e}");
    let e = solve(&["2,3,4", "2,11"], "b,h,d; b,(h*d) => b").expect_err("12 is not 11");
    assert_eq!(e.code(), ErrorCode::Mismatch);
}

#[test]
fn flattened_axes_parse_and_print() {
    let spec = parse_einsum("b,(h*d) => b,h,d").expect("parses");
    assert_eq!(spec.to_string(), "b, (h*d) => b, h, d");
    assert_eq!(parse_einsum(&spec.to_string()).expect("reparses").to_string(), spec.to_string());
    let single = parse_einsum("b(hd)=>bhd");
    assert!(single.is_err(), "single-char flattening needs `*`: {single:?}");
    assert!(parse_einsum("b,(h) => b").is_err(), "one label is not a flattening");
}

proptest! {
    /// Flattening then unflattening reads every element where a row-major reshape puts it.
    #[test]
    fn flattening_is_a_row_major_reshape(b in 0u64..3, h in 1u64..4, d in 0u64..4) {
        let shape = format!("{b},{h},{d}");
        let (mut g, y) = solve(&[&shape], "b,h,d => b,(h*d)").expect("solves");
        let p = plan(&mut g, y);
        let x: Vec<f64> = (0..b * h * d).map(|v| v as f64).collect();
        prop_assert_eq!(run_plan(&p, &[&x]).expect("runs"), x.clone());
        let flat = format!("{b},{}", h * d);
        let (mut g, z) = solve(&[&flat, &h.to_string()], "b,(h*d); h => b,h,d").expect("solves");
        let p = plan(&mut g, z);
        let ones = vec![1.0; h as usize];
        prop_assert_eq!(run_plan(&p, &[&x, &ones]).expect("runs"), x);
    }
}

/// The gradient of a flattening is the unflattening of the cotangent.
#[test]
fn the_gradient_of_a_flattening_unflattens() {
    let mut g = Graph::new();
    let x = g.input("x", &ShapeBuilder::array([2, 3])).expect("declares");
    let y = g.permute("h,d => (h*d)", x).expect("adds");
    g.solve().expect("solves");
    let p = plan(&mut g, y);
    let grad = p.gradient(0).expect("a gradient plan");
    let ct: Vec<f64> = (0..6).map(|v| v as f64 * 10.0).collect();
    let mut out = vec![0.0; 6];
    grad.plan.compile().expect("compiles").run(&[&ct], &mut out).expect("runs");
    assert_eq!(out, ct);
}
