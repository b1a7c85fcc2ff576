//! What a framework does with einrow: declare a transformer block with the typed API, solve
//! it once as a scheme with the batch symbolic, instantiate the scheme for two batch shapes,
//! compile every step's plan, and run the block forward in f32 on buffers the framework owns,
//! applying its own nonlinearities between steps. Each run is checked against a naive
//! evaluation of the same block written as plain loops.
//!
//! ```text
//! cargo run --example framework
//! ```

use einrow::ids::{StepId, TensorId};
use einrow::infer::{Graph, Instance, OpKind, Scheme, ShapeBuilder};
use einrow::kernel::{Accum, Combine};
use einrow::project::{CompiledGraph, Compute, ProjectError};

/// The sizes a user writes down; everything else is inferred.
const SEQ: u64 = 6;
const WIDTH: u64 = 8;
const HEADS: u64 = 2;
const HEAD_DIM: u64 = 4;
const HIDDEN: u64 = 16;

/// What the framework applies to a step's result after its plan ran.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Activation {
    None,
    Exp,
    Relu,
}

/// The block as the framework traced it: the graph, what each step computes, the tensors the
/// framework fills, and the result.
struct Block {
    g: Graph,
    batch: einrow::infer::Handle,
    computes: Vec<Compute>,
    activations: Vec<Activation>,
    x: TensorId,
    inv_width: TensorId,
    params: Vec<TensorId>,
    out: TensorId,
}

/// Records the step that made `t` with its computation.
fn record(b: &mut Block, t: TensorId, accum: Accum, combine: Combine, act: Activation) -> TensorId {
    let step = b.g.producer(t).ok().flatten().expect("a step result");
    b.computes.resize(step.index() + 1, Compute::new(Accum::Add, Combine::First));
    b.activations.resize(step.index() + 1, Activation::None);
    b.computes[step.index()] = Compute::new(accum, combine);
    b.activations[step.index()] = act;
    t
}

fn build() -> Result<Block, einrow::infer::InferError> {
    let mut g = Graph::new();
    // The batch row: any number of axes, shared by the input and everything computed from it.
    let batch = g.row_var("batch");
    let x = g.input("x", &ShapeBuilder::new().batch_var(batch).batch([SEQ]).output([WIDTH]))?;
    let inv_width = g.input("1/width", &ShapeBuilder::new())?;
    let mut b = Block {
        g,
        batch,
        computes: Vec::new(),
        activations: Vec::new(),
        x,
        inv_width,
        params: Vec::new(),
        out: x,
    };
    let (add, mul, first) = (Combine::Add, Combine::Mul, Combine::First);
    let none = Activation::None;

    // Layer norm: subtract the mean over the features, scale and shift per feature. The
    // parameters' output rows are left to inference (`...`).
    let gamma = b.g.parameter("gamma", &ShapeBuilder::new().output_open())?;
    let beta = b.g.parameter("beta", &ShapeBuilder::new().output_open())?;
    let sum = b.g.permute("...|d => ...|", x)?;
    let sum = record(&mut b, sum, Accum::Add, first, none);
    let mean = b.g.pointwise(&[sum, inv_width])?;
    let mean = record(&mut b, mean, Accum::Add, mul, none);
    let centred = b.g.einsum("...|d; ...| => ...|d", &[x, mean])?;
    let centred = record(&mut b, centred, Accum::Add, Combine::Sub, none);
    let scaled = b.g.pointwise(&[centred, gamma])?;
    let scaled = record(&mut b, scaled, Accum::Add, mul, none);
    let normed = b.g.pointwise(&[scaled, beta])?;
    let normed = record(&mut b, normed, Accum::Add, add, none);

    // Attention over the sequence axis (the last batch axis).
    let heads = ShapeBuilder::new().input_open().output([HEADS, HEAD_DIM]);
    let (wq, wk, wv) =
        (b.g.parameter("wq", &heads)?, b.g.parameter("wk", &heads)?, b.g.parameter("wv", &heads)?);
    let wo = b.g.parameter("wo", &ShapeBuilder::new().input_open().output_open())?;
    let q = b.g.compose(wq, normed)?;
    let q = record(&mut b, q, Accum::Add, mul, none);
    let k = b.g.compose(wk, normed)?;
    let k = record(&mut b, k, Accum::Add, mul, none);
    let v = b.g.compose(wv, normed)?;
    let v = record(&mut b, v, Accum::Add, mul, none);
    let scores = b.g.einsum("...,s|h,k; ...,t|h,k => ...,s,t|h", &[q, k])?;
    let scores = record(&mut b, scores, Accum::Add, mul, none);
    let e = b.g.pointwise(&[scores])?;
    let e = record(&mut b, e, Accum::Add, first, Activation::Exp);
    let total = b.g.permute("...,s,t|h => ...,s|h", e)?;
    let total = record(&mut b, total, Accum::Add, first, none);
    let p = b.g.einsum("...,s,t|h; ...,s|h => ...,s,t|h", &[e, total])?;
    let p = record(&mut b, p, Accum::Add, Combine::Div, none);
    let mixed = b.g.einsum("...,s,t|h; ...,t|h,k => ...,s|h,k", &[p, v])?;
    let mixed = record(&mut b, mixed, Accum::Add, mul, none);
    let attn = b.g.einsum("...|h,k; h,k->d => ...|d", &[mixed, wo])?;
    let attn = record(&mut b, attn, Accum::Add, mul, none);
    let x1 = b.g.pointwise(&[x, attn])?;
    let x1 = record(&mut b, x1, Accum::Add, add, none);

    // The MLP with its residual connection.
    let w1 = b.g.parameter("w1", &ShapeBuilder::new().input_open().output([HIDDEN]))?;
    let b1 = b.g.parameter("b1", &ShapeBuilder::new().output_open())?;
    let w2 = b.g.parameter("w2", &ShapeBuilder::new().input_open().output_open())?;
    let b2 = b.g.parameter("b2", &ShapeBuilder::new().output_open())?;
    let h = b.g.compose(w1, x1)?;
    let h = record(&mut b, h, Accum::Add, mul, none);
    let h = b.g.pointwise(&[h, b1])?;
    let h = record(&mut b, h, Accum::Add, add, none);
    let h = b.g.pointwise(&[h])?;
    let h = record(&mut b, h, Accum::Add, first, Activation::Relu);
    let y = b.g.compose(w2, h)?;
    let y = record(&mut b, y, Accum::Add, mul, none);
    let y = b.g.pointwise(&[y, b2])?;
    let y = record(&mut b, y, Accum::Add, add, none);
    let out = b.g.pointwise(&[x1, y])?;
    b.g.set_name(out, "out")?;
    b.out = record(&mut b, out, Accum::Add, add, none);
    b.params = vec![gamma, beta, wq, wk, wv, wo, w1, b1, w2, b2];
    Ok(b)
}

/// A deterministic value in [-0.5, 0.5) for element `i` of tensor `t`.
fn value(t: TensorId, i: usize) -> f32 {
    let h = (t.index() as u64 * 0x9E37_79B9 + i as u64 * 0x85EB_CA6B) % 1000;
    h as f32 / 1000.0 - 0.5
}

/// Runs the compiled block on fresh buffers the "framework" owns; returns every buffer.
fn run(block: &Block, inst: &Instance) -> Result<Vec<Vec<f32>>, ProjectError> {
    let program = CompiledGraph::compile_instance(inst, &|s: StepId| block.computes[s.index()])?;
    let mut buffers: Vec<Vec<f32>> = program
        .tensor_ids()
        .map(|t| program.tensor_len(t).map(|n| vec![0.0; n]))
        .collect::<Result<_, _>>()?;
    for &t in block.params.iter().chain([&block.x]) {
        for (i, v) in buffers[t.index()].iter_mut().enumerate() {
            *v = value(t, i);
        }
    }
    buffers[block.inv_width.index()][0] = 1.0 / WIDTH as f32;
    let mut views: Vec<&mut [f32]> = buffers.iter_mut().map(|b| b.as_mut_slice()).collect();
    program.run_after(&mut views, None, |step, out| {
        match block.activations[step.index()] {
            Activation::None => {}
            Activation::Exp => out.iter_mut().for_each(|v| *v = v.exp()),
            Activation::Relu => out.iter_mut().for_each(|v| *v = v.max(0.0)),
        }
        Ok(())
    })?;
    Ok(buffers)
}

/// The block written as plain loops over `n` batch positions (the batch axes flattened), in
/// f64, from the same values.
fn naive(block: &Block, n: usize) -> Vec<f64> {
    let (s_, d_, h_, k_, f_) =
        (SEQ as usize, WIDTH as usize, HEADS as usize, HEAD_DIM as usize, HIDDEN as usize);
    let p = |i: usize| -> Vec<f64> {
        let t = block.params[i];
        let len = match i {
            0 | 1 | 9 => d_,
            2..=4 => h_ * k_ * d_,
            5 => d_ * h_ * k_,
            6 | 8 => f_ * d_,
            _ => f_,
        };
        (0..len).map(|j| f64::from(value(t, j))).collect()
    };
    let (gamma, beta, wq, wk, wv, wo, w1, b1, w2, b2) =
        (p(0), p(1), p(2), p(3), p(4), p(5), p(6), p(7), p(8), p(9));
    let x: Vec<f64> = (0..n * s_ * d_).map(|i| f64::from(value(block.x, i))).collect();
    let mut out = vec![0.0; n * s_ * d_];
    for b in 0..n {
        let xs = |s: usize, d: usize| x[(b * s_ + s) * d_ + d];
        let mut ln = vec![0.0; s_ * d_];
        for s in 0..s_ {
            let mean = (0..d_).map(|d| xs(s, d)).sum::<f64>() / d_ as f64;
            for d in 0..d_ {
                ln[s * d_ + d] = (xs(s, d) - mean) * gamma[d] + beta[d];
            }
        }
        // Projections: w[h][k][d] (memory order: output row, then input row).
        let proj = |w: &[f64]| -> Vec<f64> {
            let mut r = vec![0.0; s_ * h_ * k_];
            for s in 0..s_ {
                for hk in 0..h_ * k_ {
                    r[s * h_ * k_ + hk] = (0..d_).map(|d| w[hk * d_ + d] * ln[s * d_ + d]).sum();
                }
            }
            r
        };
        let (q, k, v) = (proj(&wq), proj(&wk), proj(&wv));
        let mut mixed = vec![0.0; s_ * h_ * k_];
        for s in 0..s_ {
            for h in 0..h_ {
                let e: Vec<f64> = (0..s_)
                    .map(|t| {
                        let dot: f64 = (0..k_)
                            .map(|kk| q[(s * h_ + h) * k_ + kk] * k[(t * h_ + h) * k_ + kk])
                            .sum();
                        dot.exp()
                    })
                    .collect();
                let total: f64 = e.iter().sum();
                for kk in 0..k_ {
                    mixed[(s * h_ + h) * k_ + kk] =
                        (0..s_).map(|t| e[t] / total * v[(t * h_ + h) * k_ + kk]).sum();
                }
            }
        }
        for s in 0..s_ {
            let mut x1 = vec![0.0; d_];
            for d in 0..d_ {
                let attn: f64 =
                    (0..h_ * k_).map(|hk| mixed[s * h_ * k_ + hk] * wo[d * h_ * k_ + hk]).sum();
                x1[d] = xs(s, d) + attn;
            }
            let hidden: Vec<f64> = (0..f_)
                .map(|f| ((0..d_).map(|d| w1[f * d_ + d] * x1[d]).sum::<f64>() + b1[f]).max(0.0))
                .collect();
            for d in 0..d_ {
                let y: f64 = (0..f_).map(|f| w2[d * f_ + f] * hidden[f]).sum::<f64>() + b2[d];
                out[(b * s_ + s) * d_ + d] = x1[d] + y;
            }
        }
    }
    out
}

fn instance_run(
    block: &Block,
    scheme: &Scheme,
    batch: &[u64],
) -> Result<(), Box<dyn std::error::Error>> {
    let inst = scheme.instantiate(&[batch])?;
    let got = run(block, &inst)?;
    let n: u64 = batch.iter().product();
    let want = naive(block, n as usize);
    let out = &got[block.out.index()];
    assert_eq!(out.len(), want.len(), "the result's size");
    let worst = out
        .iter()
        .zip(&want)
        .map(|(a, b)| (f64::from(*a) - b).abs() / b.abs().max(1.0))
        .fold(0.0, f64::max);
    println!(
        "batch {batch:?}: out {:?}, {} steps run, largest relative difference from the naive loops {worst:.2e}",
        inst.sizes(block.out)?.memory_order(),
        inst.steps().len(),
    );
    if worst > 1e-4 {
        return Err(format!("the compiled block differs from the naive one by {worst}").into());
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let block = build()?;
    let scheme = block.g.solve_scheme(&[block.batch])?;
    for w in scheme.warnings() {
        println!("warning: {w}");
    }
    println!("solved once, the batch symbolic:");
    for t in [block.x, block.out].into_iter().chain(block.params.iter().copied()) {
        println!("  {:>8}  {}", scheme.name(t)?, scheme.shape_string(t)?);
    }
    assert_eq!(block.computes.len(), scheme.steps().len(), "every step has its computation");
    assert!(scheme.steps().iter().all(|s| s.op != OpKind::Numpy));
    for batch in [&[2][..], &[3, 2]] {
        instance_run(&block, &scheme, batch)?;
    }
    Ok(())
}
