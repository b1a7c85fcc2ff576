//! A graph call that fails leaves the graph as it was: adding a step, a side constraint
//! (`equal_shapes`, `total_elems`) or a setting that contradicts what is known is an error,
//! and every tensor's shape, the steps and the next solve are then as if it had never been
//! made. Random calls on random solved programs, each kept when it succeeds; element counts
//! include 0, 1, 2^62 and one past it.
#![cfg(feature = "fuzzing")]

use einrow::fuzzing::gen::{programs, GenConfig};
use einrow::ids::TensorId;
use einrow::infer::{Graph, OpKind};
use einrow::{Coded, ErrorCode};
use proptest::prelude::*;

/// What a caller can see of a graph: every tensor's shape (or why it is not known), the
/// number of steps, and whether it solves.
fn seen(g: &Graph) -> (Vec<Result<String, ErrorCode>>, usize, Result<(), ErrorCode>) {
    let shapes = g.tensor_ids().map(|t| g.shape_string(t).map_err(|e| e.code())).collect();
    let solved = g.clone().solve().map_err(|e| e.code());
    (shapes, g.steps().len(), solved)
}

/// One call, by number: a step or a side constraint over two tensors.
fn call(g: &mut Graph, kind: u8, a: TensorId, b: TensorId, n: u64) -> Result<(), ErrorCode> {
    let r = match kind % 6 {
        0 => g.equal_shapes(a, b),
        1 => g.total_elems(a, n),
        2 => g.pointwise(&[a, b]).map(|_| ()),
        3 => g.compose(a, b).map(|_| ()),
        4 => g.einsum("...|i; ...|i => ...|i", &[a, b]).map(|_| ()),
        _ => g.add_step(OpKind::Permute, &[a], Some("i, j => j, i")).map(|_| ()),
    };
    r.map_err(|e| e.code())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn failing_calls_leave_the_graph_as_it_was(
        g in programs(GenConfig::default()),
        calls in proptest::collection::vec((any::<u8>(), any::<u16>(), any::<u16>(), prop_oneof![0u64..64, Just(1u64 << 62), Just((1u64 << 62) + 1)]), 1..12),
    ) {
        let built = g.program.build();
        prop_assume!(built.result.is_ok());
        let mut graph = built.graph;
        for (kind, a, b, n) in calls {
            let ids: Vec<TensorId> = graph.tensor_ids().collect();
            let (a, b) = (ids[a as usize % ids.len()], ids[b as usize % ids.len()]);
            let before = seen(&graph);
            let mut trial = graph.clone();
            match call(&mut trial, kind, a, b, n) {
                Ok(()) => graph = trial,
                Err(code) => {
                    prop_assert_eq!(seen(&trial), before, "after a failed call {} ({:?})", kind % 6, code);
                }
            }
        }
    }
}

#[test]
fn a_contradicting_side_constraint_is_taken_back() {
    let mut g = Graph::new();
    let a = g.declare("a", Some("2,3"), false).expect("declares");
    let b = g.declare("b", Some("4,5"), false).expect("declares");
    let c = g.declare("c", Some("..."), false).expect("declares");
    let before = seen(&g);
    assert_eq!(g.equal_shapes(a, b).map_err(|e| e.code()), Err(ErrorCode::Mismatch));
    assert_eq!(seen(&g), before);
    assert_eq!(g.total_elems(a, 7).map_err(|e| e.code()), Err(ErrorCode::Elems));
    assert_eq!(seen(&g), before);
    // The next constraint meets only its own facts.
    g.equal_shapes(c, b).expect("c takes b's shape");
    g.solve().expect("solves");
    assert_eq!(g.shape_string(c).expect("solved"), "4,5");
}

/// Shrunk from the property: a graph solved once, then grown by steps that leave it
/// unsolvable (the first solve's closing choices stand). A failed step was taken back by
/// replaying the graph's events, and the replay forgot the first solve: its next solve closed
/// everything at once, as a fresh build does, and succeeded where the graph had failed.
#[test]
fn a_step_taken_back_keeps_the_solves_before_it() {
    let text = "tensor x0: 1,1|\nparam x1: 1!|5\ntensor x2: 1!,1|5\n\
                t0 = einsum \"a_|...;bc|=>abc...\" x0 x0\nt1 = pointwise x1 x0\n\
                t2 = einsum \"a|b;cd|=>abcd\" x1 x0\nt3 = pointwise t1 x2 x0\n";
    let built = einrow::infer::program::Program::parse_text(text).expect("parses").build();
    built.result.as_ref().expect("solves");
    let mut g = built.graph;
    let ids: Vec<TensorId> = g.tensor_ids().collect();
    g.pointwise(&[ids[5], ids[0]]).expect("adds");
    let t8 = g.pointwise(&[ids[3], ids[6]]).expect("adds");
    g.pointwise(&[ids[2], ids[4]]).expect("adds");
    let before = seen(&g);
    assert_eq!(before.2, Err(ErrorCode::Mismatch), "closed at the first solve, `t0` is 1 wide");
    let e = g.einsum("...|i; ...|i => ...|i", &[ids[6], t8]).expect_err("ranks");
    assert_eq!(e.code(), ErrorCode::Rank);
    assert_eq!(seen(&g), before);
}

/// Shrunk from the property: `compose` made two rows of `b` one row variable, and closing
/// `total_elems(b, 0)` bound that variable once per row (a second binding of a bound variable:
/// a panic in debug builds, an arbitrary one of the two values otherwise). It is bound once,
/// and the tensor holds the count asked for.
#[test]
fn a_row_variable_shared_by_two_rows_closes_once() {
    for n in [0u64, 1, 7, 9] {
        let mut g = Graph::new();
        let x = g.declare("x", Some(""), false).expect("declares");
        let a = g.pointwise(&[x, x]).expect("adds");
        let b = g.pointwise(&[a, x]).expect("adds");
        g.compose(a, b).expect("adds");
        g.total_elems(b, n).expect("not known yet");
        g.solve().unwrap_or_else(|e| panic!("{n}: {e}"));
        let sizes = g.sizes(b).expect("solved");
        assert_eq!(sizes.numel(), Some(n), "{n}: {sizes:?}");
    }
}
