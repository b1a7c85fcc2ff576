//! What a framework pays per call: a compiled plan run on caller buffers (target: the 8x8 f32
//! matrix product under 1 µs a call), and a solved scheme instantiated for a new batch size
//! against solving the same graph afresh (target: at least 10x faster, 1000 steps).

#[path = "support/transformer.rs"]
mod transformer;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use einrow::ids::StepId;
use einrow::project::{
    derive_plan, instance_plans, plan_einsum, Compute, Concrete, Executable, View, ViewMut,
};
use einrow::spec::ast::RowKind;

fn compiled(c: &mut Criterion) {
    let mut group = c.benchmark_group("compiled");
    let m = Concrete::output(&[8, 8]);
    let plan = plan_einsum("ij;jk=>ik", &[&m, &m]).expect("plans");
    let exe = Executable::compile(&plan).expect("compiles");
    let a: Vec<f32> = (0..64).map(|i| i as f32 * 0.25).collect();
    let b: Vec<f32> = (0..64).map(|i| 1.0 - i as f32 * 0.125).collect();
    let mut out = vec![0.0f32; 64];
    group.bench_function("ij,jk->ik 8x8 f32, caller buffers", |bench| {
        bench.iter(|| exe.run(black_box(&[&a, &b]), black_box(&mut out)).expect("runs"))
    });
    // Blocks of larger buffers (row pitches 16 and 24): rows contiguous, as a framework's
    // slices of bigger tensors are.
    let (big_a, big_b) = (vec![0.5f32; 16 * 8], vec![0.25f32; 24 * 8]);
    let mut big_out = vec![0.0f32; 12 * 8];
    group.bench_function("ij,jk->ik 8x8 f32, strided views (blocks of larger buffers)", |bench| {
        bench.iter(|| {
            let va = View::strided(&big_a, &[8, 8], &[16, 1], 3).expect("view");
            let vb = View::strided(&big_b, &[8, 8], &[24, 1], 5).expect("view");
            let mut vo = ViewMut::strided(&mut big_out, &[8, 8], &[12, 1], 2).expect("view");
            exe.run_views(black_box(&[va, vb]), &mut vo).expect("runs")
        })
    });
    group.bench_function("ij,jk->ik 8x8 f32, strided views (b transposed)", |bench| {
        bench.iter(|| {
            let va = View::contiguous(&a, &[8, 8]).expect("view");
            let vb = View::strided(&b, &[8, 8], &[1, 8], 0).expect("view");
            let mut vo = ViewMut::contiguous(&mut out, &[8, 8]).expect("view");
            exe.run_views(black_box(&[va, vb]), &mut vo).expect("runs")
        })
    });
    // How fast the machine is running: `README.md` records this planning call at 1.13-1.14 µs
    // in calm spells; the ratio of the two rows carries over between spells.
    let (m23, m34) = (Concrete::output(&[2, 3]), Concrete::output(&[3, 4]));
    group.bench_function("calibration: plan_einsum ij;jk=>ik 2x3,3x4 (fresh planner)", |bench| {
        bench.iter(|| plan_einsum(black_box("ij;jk=>ik"), &[&m23, &m34]).expect("plans"))
    });
    let ab: Vec<half::bf16> = a.iter().map(|&x| half::bf16::from_f32(x)).collect();
    let bb: Vec<half::bf16> = b.iter().map(|&x| half::bf16::from_f32(x)).collect();
    let mut ob = vec![half::bf16::ZERO; 64];
    group.bench_function("ij,jk->ik 8x8 bf16, caller buffers", |bench| {
        bench.iter(|| exe.run(black_box(&[&ab, &bb]), black_box(&mut ob)).expect("runs"))
    });
    group.finish();
}

/// Every step's default computation.
fn computes(g: &einrow::infer::Graph) -> Vec<Compute> {
    g.steps().iter().map(|s| Compute::default_for(s.op, s.args.len())).collect()
}

fn scheme(c: &mut Criterion) {
    let mut group = c.benchmark_group("scheme (1000 steps)");
    let z = transformer::Sizes::default();
    let (mut g, ops, _) = transformer::build(1000, z).expect("builds");
    let tokens = g.tensor_ids().next().expect("the tokens");
    let batch = g.row_of(tokens, RowKind::Batch).expect("open batch row");
    let scheme = g.solve_scheme(&[batch]).expect("solves as a scheme");
    let steps = scheme.steps().len();
    assert!(ops >= 1000 && steps == ops, "{ops} operations, {steps} steps");
    let all = computes(&g);
    group.sample_size(20);
    group.bench_function("solve the scheme (once)", |bench| {
        bench.iter(|| g.solve_scheme(black_box(&[batch])).expect("solves"))
    });
    group.bench_function("instantiate for a new batch size", |bench| {
        bench.iter(|| scheme.instantiate(black_box(&[&[8]])).expect("instantiates"))
    });
    group.bench_function("build and solve afresh for a new batch size", |bench| {
        bench.iter(|| {
            let (mut g, _, _) =
                transformer::build_batched(1000, z, black_box("8,")).expect("builds");
            g.solve().expect("solves");
            g
        })
    });
    group.bench_function("instantiate + every plan", |bench| {
        bench.iter(|| {
            let inst = scheme.instantiate(black_box(&[&[8]])).expect("instantiates");
            instance_plans(&inst, &|s: StepId| all[s.index()]).expect("plans")
        })
    });
    group.bench_function("build, solve afresh + every plan", |bench| {
        bench.iter(|| {
            let (mut g, _, _) =
                transformer::build_batched(1000, z, black_box("8,")).expect("builds");
            g.solve().expect("solves");
            let plans: Vec<_> = (0..steps)
                .map(|i| {
                    let step = g.step_ids().nth(i).expect("a step");
                    derive_plan(&g, step, all[i], 0).expect("plans")
                })
                .collect();
            plans
        })
    });
    group.finish();
}

criterion_group!(benches, compiled, scheme);
criterion_main!(benches);
