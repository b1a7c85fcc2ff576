//! Training with einrow: a two-layer perceptron and an attention block, each declared with
//! the typed API, solved once, compiled into a training step (forward, then backward into the
//! parameters' gradients, intermediates placed by liveness), and trained with plain SGD on
//! synthetic data. ReLU runs natively between the steps (`Activations`); the softmax, which
//! is not elementwise, runs with its derivative in the framework's own hooks. Each run checks that the loss falls by at least
//! ten times and exits with an error otherwise.
//!
//! ```text
//! cargo run --release --example train
//! ```

use std::error::Error;

use einrow::ids::{StepId, TensorId};
use einrow::infer::{Graph, ShapeBuilder};
use einrow::project::{Activation, Activations, Compute, Hooks, ProjectError, Training};

/// A deterministic stream of values in [-1, 1].
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % 2001) as f32 / 1000.0 - 1.0
    }

    fn vec(&mut self, n: usize, scale: f32) -> Vec<f32> {
        (0..n).map(|_| self.next() * scale).collect()
    }
}

/// What the framework does between the steps: a softmax over the last axis (rows of
/// `width`) after some.
struct Softmax(Vec<(StepId, usize)>);

impl Hooks<f32> for Softmax {
    fn forward(&mut self, step: StepId, r: &mut [f32]) -> Result<(), ProjectError> {
        if let Some(&(_, width)) = self.0.iter().find(|(s, _)| *s == step) {
            for row in r.chunks_mut(width) {
                let top = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                row.iter_mut().for_each(|v| *v = (*v - top).exp());
                let sum: f32 = row.iter().sum();
                row.iter_mut().for_each(|v| *v /= sum);
            }
        }
        Ok(())
    }

    fn backward(&mut self, step: StepId, r: &[f32], g: &mut [f32]) -> Result<(), ProjectError> {
        if let Some(&(_, width)) = self.0.iter().find(|(s, _)| *s == step) {
            // The softmax's Jacobian-vector product: s * (g - <g, s>).
            for (g, s) in g.chunks_mut(width).zip(r.chunks(width)) {
                let dot: f32 = g.iter().zip(s).map(|(g, s)| g * s).sum();
                g.iter_mut().zip(s).for_each(|(g, &s)| *g = s * (*g - dot));
            }
        }
        Ok(())
    }
}

/// A model ready to train: its training step, native activations and hooks, leaf values, and
/// which leaves are the parameters (in the training's order).
struct Model {
    train: Training,
    hooks: (Activations, Softmax),
    values: Vec<Vec<f32>>,
    params: Vec<usize>,
}

impl Model {
    fn new(
        mut g: Graph,
        loss: TensorId,
        params: &[TensorId],
        (activations, softmax): (&[(TensorId, Activation)], Softmax),
        init: impl Fn(TensorId, usize) -> Vec<f32>,
    ) -> Result<Model, Box<dyn Error>> {
        g.solve()?;
        let computes: Vec<Compute> =
            g.steps().iter().map(|s| Compute::default_for(s.op, s.args.len())).collect();
        let train = Training::compile(&g, loss, params, &|s| computes[s.index()])?;
        let mut native = Activations::new(&train);
        for &(t, f) in activations {
            native.set(&g, t, f)?;
        }
        let hooks = (native, softmax);
        let mut values = Vec::new();
        for &t in train.leaves() {
            let n = g.sizes(t)?.numel().ok_or("a leaf too large")? as usize;
            values.push(init(t, n));
        }
        let params = params
            .iter()
            .map(|p| train.leaves().iter().position(|l| l == p).ok_or("a parameter"))
            .collect::<Result<_, _>>()?;
        Ok(Model { train, hooks, values, params })
    }

    /// `steps` of SGD with learning rate `lr`; the first and the last loss.
    fn fit(&mut self, steps: usize, lr: f32) -> Result<(f32, f32), Box<dyn Error>> {
        let mut ws = self.train.workspace::<f32>()?;
        let mut grads: Vec<Vec<f32>> =
            self.params.iter().map(|&k| vec![0.0; self.values[k].len()]).collect();
        let (mut first, mut last) = (f32::NAN, f32::NAN);
        for step in 0..steps {
            let leaves: Vec<&[f32]> = self.values.iter().map(Vec::as_slice).collect();
            let mut outs: Vec<&mut [f32]> = grads.iter_mut().map(Vec::as_mut_slice).collect();
            self.train.run(&mut ws, &leaves, &mut outs, &mut self.hooks)?;
            last = ws.value(&self.train, self.train.loss())?[0];
            if step == 0 {
                first = last;
            }
            for (&k, g) in self.params.iter().zip(&grads) {
                self.values[k].iter_mut().zip(g).for_each(|(w, g)| *w -= lr * g);
            }
        }
        Ok((first, last))
    }
}

/// y = relu(x W1 + b1) W2, fitted to a fixed random teacher of the same form; the loss is
/// the squared error summed over the batch (the targets enter negated: the difference is a
/// sum), the learning rate divided by the batch.
fn mlp() -> Result<(f32, f32), Box<dyn Error>> {
    const BATCH: u64 = 64;
    let mut g = Graph::new();
    let x = g.input("x", &ShapeBuilder::new().batch([BATCH]).output([8]))?;
    let minus_t = g.input("-target", &ShapeBuilder::new().batch([BATCH]).output([1]))?;
    let w1 = g.parameter("w1", &ShapeBuilder::new().input([8]).output([16]))?;
    let b1 = g.parameter("b1", &ShapeBuilder::new().output([16]))?;
    let w2 = g.parameter("w2", &ShapeBuilder::new().input([16]).output([1]))?;
    let h = g.compose(w1, x)?;
    let a = g.pointwise(&[h, b1])?;
    let y = g.compose(w2, a)?;
    let d = g.pointwise(&[y, minus_t])?;
    let loss = g.einsum("...|o; ...|o => ", &[d, d])?;
    let hooks = (&[(a, Activation::Relu)][..], Softmax(Vec::new()));
    let mut noise = Noise(7);
    let xs = noise.vec((BATCH * 8) as usize, 1.0);
    let targets = teacher(&xs, &mut Noise(99));
    let init = |t: TensorId, n: usize| match t {
        t if t == x => xs.clone(),
        t if t == minus_t => targets.iter().map(|v| -v).collect(),
        _ => Noise(t.index() as u64 + 3).vec(n, 0.3),
    };
    Model::new(g, loss, &[w1, b1, w2], hooks, init).and_then(|mut m| m.fit(400, 0.2 / BATCH as f32))
}

/// A random two-layer ReLU network's outputs on `xs` (rows of 8).
fn teacher(xs: &[f32], noise: &mut Noise) -> Vec<f32> {
    let (w1, w2) = (noise.vec(8 * 16, 0.5), noise.vec(16, 0.5));
    xs.chunks(8)
        .map(|x| {
            let h: Vec<f32> = (0..16)
                .map(|j| (0..8).map(|i| x[i] * w1[j * 8 + i]).sum::<f32>().max(0.0))
                .collect();
            h.iter().zip(&w2).map(|(h, w)| h * w).sum()
        })
        .collect()
}

/// Sizes of the attention block: a batch of sequences of tokens of a width.
const B: usize = 16;
const T: usize = 4;
const D: usize = 8;

/// One attention head, `y = softmax(q kᵀ) v wo` with `q, k, v = x wq, x wk, x wv`, fitted to
/// the outputs of the same block with random weights.
fn attention() -> Result<(f32, f32), Box<dyn Error>> {
    let mut g = Graph::new();
    let x = g.input("x", &ShapeBuilder::new().batch([B as u64, T as u64]).output([D as u64]))?;
    let minus_t =
        g.input("-target", &ShapeBuilder::new().batch([B as u64, T as u64]).output([1]))?;
    let square = ShapeBuilder::new().input([D as u64]).output([D as u64]);
    let (wq, wk, wv) =
        (g.parameter("wq", &square)?, g.parameter("wk", &square)?, g.parameter("wv", &square)?);
    let wo = g.parameter("wo", &ShapeBuilder::new().input([D as u64]).output([1]))?;
    let (q, k, v) = (g.compose(wq, x)?, g.compose(wk, x)?, g.compose(wv, x)?);
    let s = g.einsum("b,t|d; b,u|d => b,t|u", &[q, k])?;
    let c = g.einsum("b,t|u; b,u|d => b,t|d", &[s, v])?;
    let y = g.compose(wo, c)?;
    let d = g.pointwise(&[y, minus_t])?;
    let loss = g.einsum("...|o; ...|o => ", &[d, d])?;
    let softmax = vec![(g.producer(s)?.ok_or("a step")?, T)];
    let hooks = (&[][..], Softmax(softmax));
    let xs = Noise(11).vec(B * T * D, 1.0);
    let targets = attention_teacher(&xs, &mut Noise(5));
    let init = |t: TensorId, n: usize| match t {
        t if t == x => xs.clone(),
        t if t == minus_t => targets.iter().map(|v| -v).collect(),
        _ => Noise(t.index() as u64 + 17).vec(n, 0.3),
    };
    let mut model = Model::new(g, loss, &[wq, wk, wv, wo], hooks, init)?;
    model.fit(400, 0.6 / (B * T) as f32)
}

/// The attention block's outputs on `xs` with random weights, by plain loops.
fn attention_teacher(xs: &[f32], noise: &mut Noise) -> Vec<f32> {
    let w: Vec<Vec<f32>> = (0..3).map(|_| noise.vec(D * D, 0.5)).collect();
    let wo = noise.vec(D, 0.5);
    // `w[o * D + i]`: output `o` from input `i` (memory order output, input).
    let proj = |w: &[f32], x: &[f32]| -> Vec<f32> {
        (0..D).map(|o| (0..D).map(|i| w[o * D + i] * x[i]).sum()).collect()
    };
    let mut out = Vec::with_capacity(B * T);
    for seq in xs.chunks(T * D) {
        let tokens: Vec<&[f32]> = seq.chunks(D).collect();
        let qkv: Vec<Vec<Vec<f32>>> =
            w.iter().map(|w| tokens.iter().map(|x| proj(w, x)).collect()).collect();
        for t in 0..T {
            let scores: Vec<f32> =
                (0..T).map(|u| (0..D).map(|d| qkv[0][t][d] * qkv[1][u][d]).sum()).collect();
            let top = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let e: Vec<f32> = scores.iter().map(|s| (s - top).exp()).collect();
            let sum: f32 = e.iter().sum();
            let c: Vec<f32> =
                (0..D).map(|d| (0..T).map(|u| e[u] / sum * qkv[2][u][d]).sum()).collect();
            out.push(c.iter().zip(&wo).map(|(c, w)| c * w).sum());
        }
    }
    out
}

fn main() -> Result<(), Box<dyn Error>> {
    let (first, last) = mlp()?;
    println!("perceptron: loss {first:.4} -> {last:.4} in 400 SGD steps");
    if last * 10.0 > first {
        return Err(format!("the perceptron's loss fell from {first} to {last} only").into());
    }
    let (first, last) = attention()?;
    println!("attention:  loss {first:.4} -> {last:.4} in 400 SGD steps");
    if last * 10.0 > first {
        return Err(format!("the attention block's loss fell from {first} to {last} only").into());
    }
    Ok(())
}
