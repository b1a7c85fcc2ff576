//! Compiled graphs against the same computation written by hand on ndarray (matrixmultiply's
//! GEMM), and the memory a training step's arena saves. Three measurements:
//!
//! 1. the compiled 8×8 f32 matrix product on caller buffers against ndarray's
//!    `general_mat_mul` into a preallocated result (ns per call);
//! 2. a compiled forward pass of the transformer-like graph of `benches/support` (about 1000
//!    steps, batch 8) against the same forward pass on preallocated ndarray arrays: GEMMs by
//!    `general_mat_mul`, broadcasting and reductions by `Zip` (ms per pass; the two results are
//!    compared before timing);
//! 3. the arena of the graph's compiled training step (forward and backward to every
//!    parameter, a squared-sum loss) against one buffer per intermediate value and gradient.
//!
//! Rounds alternate between einrow and ndarray; each figure is the best round. ndarray runs on
//! one thread; set `RAYON_NUM_THREADS=1` to hold einrow to one too.
//!
//! ```text
//! RAYON_NUM_THREADS=1 cargo run --release --example bench_training -- --rounds 7
//! cargo run --release --example bench_training -- --only matmul   # or forward, arena
//! ```

#[path = "../benches/support/transformer.rs"]
#[allow(dead_code)]
mod transformer;

use std::error::Error;
use std::hint::black_box;
use std::time::Instant;

use einrow::ids::TensorId;
use einrow::infer::Graph;
use einrow::project::{plan_einsum, CompiledGraph, Compute, Concrete, Executable, Training};
use ndarray::linalg::general_mat_mul;
use ndarray::{s, Array2, ArrayD, ArrayView2, ArrayViewMut2, Axis, IxDyn, Zip};

type Res<T> = Result<T, Box<dyn Error>>;

/// Deterministic values in [-scale, scale].
fn noise(n: usize, seed: u64, scale: f32) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x % 2001) as f32 / 1000.0 - 1.0) * scale
        })
        .collect()
}

/// The best of `rounds` rounds of `f` for each of two contenders, alternating; seconds per call.
fn best_of(rounds: usize, calls: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> (f64, f64) {
    let (mut ta, mut tb) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..rounds {
        let t = Instant::now();
        (0..calls).for_each(|_| a());
        ta = ta.min(t.elapsed().as_secs_f64() / calls as f64);
        let t = Instant::now();
        (0..calls).for_each(|_| b());
        tb = tb.min(t.elapsed().as_secs_f64() / calls as f64);
    }
    (ta, tb)
}

fn matmul_8x8(rounds: usize) -> Res<()> {
    let m = Concrete::output(&[8, 8]);
    let exe = Executable::compile(&plan_einsum("ij;jk=>ik", &[&m, &m])?)?;
    let (a, b) = (noise(64, 1, 1.0), noise(64, 2, 1.0));
    let mut out = vec![0.0f32; 64];
    let (na, nb) =
        (Array2::from_shape_vec((8, 8), a.clone())?, Array2::from_shape_vec((8, 8), b.clone())?);
    let mut nout = Array2::<f32>::zeros((8, 8));
    exe.run(&[&a, &b], &mut out)?;
    general_mat_mul(1.0, &na, &nb, 0.0, &mut nout);
    let diff = out.iter().zip(nout.iter()).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max);
    assert!(diff < 1e-5, "the two products differ by {diff}");
    let (te, tn) = best_of(
        rounds,
        200_000,
        || exe.run(black_box(&[&a, &b]), black_box(&mut out)).expect("runs"),
        || general_mat_mul(1.0, black_box(&na), black_box(&nb), 0.0, black_box(&mut nout)),
    );
    println!(
        "8x8 f32 matmul            einrow {:8.1} ns   ndarray {:8.1} ns   ratio {:.2}",
        te * 1e9,
        tn * 1e9,
        te / tn
    );
    Ok(())
}

/// The transformer-like graph, solved for a batch of 8; its logits.
fn transformer_graph() -> Res<(Graph, TensorId)> {
    let (mut g, _, logits) = transformer::build_batched(1000, transformer::Sizes::default(), "8,")?;
    g.solve()?;
    Ok((g, logits))
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().collect();
    let rounds = args
        .iter()
        .position(|a| a == "--rounds")
        .and_then(|i| args.get(i + 1))
        .map_or(Ok(5), |r| r.parse())?;
    let only = args.iter().position(|a| a == "--only").and_then(|i| args.get(i + 1));
    let wanted = |name: &str| only.is_none_or(|o| o == name);
    println!("threads: einrow {}, ndarray 1", rayon::current_num_threads());
    if wanted("matmul") {
        matmul_8x8(rounds)?;
    }
    if wanted("forward") {
        forward(rounds)?;
    }
    if wanted("arena") {
        arena()?;
    }
    Ok(())
}

/// Compiled forward pass against ndarray (see the module docs).
fn forward(rounds: usize) -> Res<()> {
    let (g, logits) = transformer_graph()?;
    let steps = g.steps().len();
    let compiled = CompiledGraph::compile_defaults(&g)?;
    let dims: Vec<Vec<usize>> = compiled
        .tensor_ids()
        .map(|t| compiled.tensor_dims(t).map(|d| d.iter().map(|&x| x as usize).collect()))
        .collect::<Result<_, _>>()?;
    let mut bufs: Vec<Vec<f32>> = dims
        .iter()
        .enumerate()
        .map(|(i, d)| noise(d.iter().product(), i as u64 + 1, 0.1))
        .collect();
    let mut arrays: Vec<ArrayD<f32>> = dims
        .iter()
        .zip(&bufs)
        .map(|(d, b)| ArrayD::from_shape_vec(IxDyn(d), b.clone()))
        .collect::<Result<_, _>>()?;
    let plan = HandForward::new(&g)?;
    let run_einrow = |bufs: &mut Vec<Vec<f32>>| {
        let mut refs: Vec<&mut [f32]> = bufs.iter_mut().map(Vec::as_mut_slice).collect();
        compiled.run(&mut refs).expect("runs");
    };
    run_einrow(&mut bufs);
    plan.run(&mut arrays);
    let (ours, theirs) = (&bufs[logits.index()], &arrays[logits.index()]);
    let scale = theirs.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    let diff = ours.iter().zip(theirs.iter()).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max);
    assert!(diff <= 1e-4 * scale.max(1.0), "logits differ by {diff} (largest {scale})");
    let (te, tn) = best_of(rounds, 5, || run_einrow(&mut bufs), || plan.run(&mut arrays));
    println!(
        "forward, {steps} steps     einrow {:8.3} ms   ndarray {:8.3} ms   ratio {:.2}",
        te * 1e3,
        tn * 1e3,
        te / tn
    );
    Ok(())
}

/// The training step's arena against one buffer per value and gradient.
fn arena() -> Res<()> {
    let (mut g, logits) = transformer_graph()?;
    let loss = g.einsum("...|o; ...|o => ", &[logits, logits])?;
    g.solve()?;
    let made: Vec<TensorId> = g.steps().iter().map(|s| s.out).collect();
    let params: Vec<TensorId> = g.tensor_ids().skip(1).filter(|t| !made.contains(t)).collect();
    let computes: Vec<Compute> =
        g.steps().iter().map(|s| Compute::default_for(s.op, s.args.len())).collect();
    let train = Training::compile(&g, loss, &params, &|s| computes[s.index()])?;
    let (arena, unplanned) = (train.arena_len(), train.unplanned_len());
    println!(
        "training arena            {:.1} MiB (f32) against {:.1} MiB one buffer each: {:.2}x less",
        arena as f64 * 4.0 / 1048576.0,
        unplanned as f64 * 4.0 / 1048576.0,
        unplanned as f64 / arena as f64
    );
    Ok(())
}

/// The forward pass by hand: one operation per step of the graph, dispatched on the step's
/// place in its block (the graph repeats one block; see `benches/support/transformer.rs`).
struct HandForward {
    ops: Vec<(Op, Vec<usize>, usize)>,
}

/// The operations of the transformer-like graph with their default computations.
#[derive(Clone, Copy)]
enum Op {
    /// `y[.., o] = Σ_i w[o.., i..] x[.., i..]` (compose; weight first).
    Compose,
    /// `y = a + b`, b broadcast.
    Add,
    /// `y = a` (a unary pointwise step).
    Copy,
    /// `y[.., s] = Σ_d a[.., s, d]` (the last axis summed).
    SumLast,
    /// `y[b, s, d] = x[b, s, d] · m[b, s]`.
    ScaleRows,
    /// `y[b, s, t, h] = Σ_k q[b, s, h, k] k[b, t, h, k]`.
    Scores,
    /// `y[b, s, h] = Σ_t e[b, s, t, h]`.
    SumT,
    /// `y[b, s, t, h] = e[b, s, t, h] · n[b, s, h]`.
    ScaleT,
    /// `y[b, s, h, k] = Σ_t p[b, s, t, h] v[b, t, h, k]`.
    Mix,
    /// `y[b, s, d] = Σ_{h,k} m[b, s, h, k] w[d, h, k]` (einsum, weight second).
    Project,
}

/// The operations of one block in order (24).
const BLOCK: [Op; 24] = {
    use Op::*;
    [
        SumLast, ScaleRows, Add, Add, Compose, Compose, Compose, Scores, Copy, SumT, ScaleT, Mix,
        Project, Add, SumLast, ScaleRows, Add, Add, Compose, Add, Copy, Compose, Add, Add,
    ]
};

impl HandForward {
    fn new(g: &Graph) -> Res<HandForward> {
        let steps = g.steps();
        let n = steps.len();
        let mut ops = Vec::with_capacity(n);
        for (i, s) in steps.iter().enumerate() {
            let op = match i {
                0 => Op::Compose,
                1 => Op::Add,
                _ if i == n - 1 => Op::Compose,
                _ => BLOCK[(i - 2) % BLOCK.len()],
            };
            ops.push((op, s.args.iter().map(|a| a.index()).collect(), s.out.index()));
        }
        Ok(HandForward { ops })
    }

    fn run(&self, t: &mut [ArrayD<f32>]) {
        for (op, args, out) in &self.ops {
            // Moved out while its operands are read (no allocation: an empty placeholder).
            let mut y = std::mem::replace(&mut t[*out], empty());
            let a = &t[args[0]];
            let b = args.get(1).map(|&i| &t[i]);
            apply(*op, a, b, &mut y);
            t[*out] = y;
        }
    }
}

/// An array of no elements (allocates nothing).
fn empty() -> ArrayD<f32> {
    ArrayD::from_shape_vec(IxDyn(&[0]), Vec::new()).expect("empty")
}

/// A contiguous array as a matrix of `rows` rows.
fn mat(a: &ArrayD<f32>, rows: usize) -> ArrayView2<'_, f32> {
    let cols = a.len() / rows;
    a.view().into_shape_with_order((rows, cols)).expect("contiguous")
}

fn mat_mut(a: &mut ArrayD<f32>, rows: usize) -> ArrayViewMut2<'_, f32> {
    let cols = a.len() / rows;
    a.view_mut().into_shape_with_order((rows, cols)).expect("contiguous")
}

fn apply(op: Op, a: &ArrayD<f32>, b: Option<&ArrayD<f32>>, y: &mut ArrayD<f32>) {
    let b = || b.expect("a second operand");
    match op {
        Op::Compose => {
            // a: the weight (outputs, inputs); b: the activations (rows, inputs).
            let (w, x) = (a, b());
            let outs: usize = w.len() / (x.shape()[x.ndim() - 1]);
            let rows = y.len() / outs;
            let wm = mat(w, outs);
            general_mat_mul(1.0, &mat(x, rows), &wm.t(), 0.0, &mut mat_mut(y, rows));
        }
        Op::Project => {
            let (m, w) = (a, b());
            let outs = w.shape()[0];
            let rows = y.len() / outs;
            general_mat_mul(1.0, &mat(m, rows), &mat(w, outs).t(), 0.0, &mut mat_mut(y, rows));
        }
        Op::Add => Zip::from(y).and(a).and_broadcast(b()).for_each(|y, &a, &b| *y = a + b),
        Op::Copy => y.assign(a),
        Op::SumLast => {
            let last = Axis(a.ndim() - 1);
            Zip::from(y).and(a.lanes(last)).for_each(|y, l| *y = l.sum());
        }
        Op::ScaleRows => {
            let m = b().view().insert_axis(Axis(2));
            Zip::from(y).and(a).and_broadcast(&m).for_each(|y, &a, &m| *y = a * m);
        }
        Op::SumT => {
            // e[b, s, t, h] summed over t.
            y.fill(0.0);
            for t in 0..a.shape()[2] {
                Zip::from(&mut *y).and(a.index_axis(Axis(2), t)).for_each(|y, &e| *y += e);
            }
        }
        Op::ScaleT => {
            let n = b().view().insert_axis(Axis(2));
            Zip::from(y).and(a).and_broadcast(&n).for_each(|y, &e, &n| *y = e * n);
        }
        Op::Scores => heads(a, b(), y, |q, k, mut y| general_mat_mul(1.0, &q, &k.t(), 0.0, &mut y)),
        Op::Mix => {
            let (p, v) = (a, b());
            for bi in 0..p.shape()[0] {
                for h in 0..p.shape()[3] {
                    let pm = p.slice(s![bi, .., .., h]);
                    let vm = v.slice(s![bi, .., h, ..]);
                    let mut ym = y.slice_mut(s![bi, .., h, ..]);
                    general_mat_mul(1.0, &pm, &vm, 0.0, &mut ym);
                }
            }
        }
    }
}

/// Per batch element and head: `f(q[b, :, h, :], k[b, :, h, :], y[b, :, :, h])`.
fn heads(
    q: &ArrayD<f32>,
    k: &ArrayD<f32>,
    y: &mut ArrayD<f32>,
    f: impl Fn(ArrayView2<'_, f32>, ArrayView2<'_, f32>, ArrayViewMut2<'_, f32>),
) {
    for bi in 0..q.shape()[0] {
        for h in 0..q.shape()[2] {
            let qm = q.slice(s![bi, .., h, ..]);
            let km = k.slice(s![bi, .., h, ..]);
            f(qm, km, y.slice_mut(s![bi, .., .., h]));
        }
    }
}
