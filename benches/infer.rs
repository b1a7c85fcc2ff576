//! Speed of shape inference (the goals in `benches/README.md`: ≤ 2 µs per operation amortized
//! over a large graph, and one 2-operand spec parsed, inferred and planned in under 1 µs).
//!
//! The 100k and 1M graphs and the peak memory are measured by `examples/infer_scale.rs` (one
//! process per size); this bench covers the small end with criterion's statistics.

#[path = "support/transformer.rs"]
mod transformer;

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};
use einrow::infer::{Graph, OpKind};
use einrow::project::{derive_plan, plan_einsum, Compute, Concrete, EinsumPlanner};

/// A graph with the two declared 2-d leaves of `ij;jk=>ik`.
///
/// Boxed: criterion moves each input into the timed routine and its output out of it, and a
/// `Graph` is over a kilobyte; moving it in and out measured about 70 ns a run, which is the
/// harness's cost, not the spec's.
fn two_leaves() -> Box<Graph> {
    let mut g = Box::new(Graph::new());
    declare_two(&mut g);
    g
}

/// Declares the leaves `a: 2,3` and `b: 3,4`.
fn declare_two(g: &mut Graph) {
    g.declare("a", Some("2,3"), false).expect("declares");
    g.declare("b", Some("3,4"), false).expect("declares");
}

/// The graph's first two tensors: the leaves `declare_two` declares.
fn leaves(g: &Graph) -> [einrow::ids::TensorId; 2] {
    let mut ids = g.tensor_ids();
    [ids.next().expect("a"), ids.next().expect("b")]
}

fn one_spec(c: &mut Criterion) {
    let mut group = c.benchmark_group("spec");
    group.bench_function("parse+infer ij;jk=>ik (leaves declared)", |b| {
        b.iter_batched(
            two_leaves,
            |mut g| {
                let out = g.einsum(black_box("ij;jk=>ik"), &leaves(&g)).expect("infers");
                g.solve().expect("solves");
                (g, out)
            },
            BatchSize::SmallInput,
        )
    });
    group.bench_function("parse+infer+plan ij;jk=>ik (leaves declared)", |b| {
        b.iter_batched(
            two_leaves,
            |mut g| {
                g.einsum(black_box("ij;jk=>ik"), &leaves(&g)).expect("infers");
                g.solve().expect("solves");
                let compute = Compute::default_for(OpKind::Einsum, 2);
                let step = g.step_ids().next().expect("a step");
                let plan = derive_plan(&g, step, compute, 0).expect("plans");
                (g, plan)
            },
            BatchSize::SmallInput,
        )
    });
    group.bench_function("plan ij;jk=>ik (solved graph)", |b| {
        b.iter_batched(
            || {
                let mut g = two_leaves();
                g.einsum("ij;jk=>ik", &leaves(&g)).expect("infers");
                g.solve().expect("solves");
                g
            },
            |g| {
                let compute = Compute::default_for(OpKind::Einsum, 2);
                let step = g.step_ids().next().expect("a step");
                let plan = derive_plan(&g, black_box(step), compute, 0).expect("plans");
                (g, plan)
            },
            BatchSize::SmallInput,
        )
    });
    // The eager route: operand sizes given, no graph (`project::plan_einsum`). The plan is
    // dropped outside the timing, as the rows above drop theirs.
    let (a, b) = (Concrete::output(&[2, 3]), Concrete::output(&[3, 4]));
    group.bench_function("plan_einsum ij;jk=>ik (eager, sizes given)", |bench| {
        bench
            .iter_with_large_drop(|| plan_einsum(black_box("ij;jk=>ik"), &[&a, &b]).expect("plans"))
    });
    // The same with one planner reused from call to call (`project::EinsumPlanner`): each call
    // parses, reads off and plans in full, into the buffers of the call before.
    let mut planner = EinsumPlanner::new();
    group.bench_function("EinsumPlanner::plan ij;jk=>ik (eager, buffers reused)", |bench| {
        bench.iter(|| {
            let plan = planner.plan(black_box("ij;jk=>ik"), &[&a, &b]).expect("plans");
            black_box(plan.parts.len())
        })
    });
    group.bench_function("new graph + declare + parse+infer ij;jk=>ik", |b| {
        b.iter(|| {
            let mut g = Graph::new();
            declare_two(&mut g);
            let out = g.einsum(black_box("ij;jk=>ik"), &leaves(&g)).expect("infers");
            g.solve().expect("solves");
            (g, out)
        })
    });
    group.finish();
}

fn graph(c: &mut Criterion) {
    let mut group = c.benchmark_group("transformer");
    group.sample_size(10);
    for ops in [1_000, 10_000] {
        group.bench_function(format!("build+solve {ops} ops"), |b| {
            b.iter(|| {
                let (mut g, n, _) =
                    transformer::build(ops, transformer::Sizes::default()).expect("builds");
                g.solve().expect("solves");
                (g, n)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, one_spec, graph);
criterion_main!(benches);
