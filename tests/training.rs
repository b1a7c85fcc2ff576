//! A compiled training step (forward, then backward into the parameters' gradients) against
//! finite differences of the loss, on programs of every kind of step: chains with
//! broadcasting, parameters read by several steps, diagonals, strided and padded
//! convolutions, concatenations, batch slices and numpy steps; in f64, f32 and bf16.

#![cfg(feature = "kernel")]

use einrow::code::{Coded, ErrorCode};
use einrow::ids::TensorId;
use einrow::infer::program::Program;
use einrow::infer::Graph;
use einrow::kernel::{Accum, Combine, RunOptions};
use einrow::project::{run_graph, Activation, Activations, Compute, Training};
use proptest::prelude::*;

#[path = "support/noise.rs"]
mod noise;

/// Programs whose last statement is the loss (a scalar), each parameter declared `param`.
const PROGRAMS: &[&str] = &[
    // A two-layer perceptron without activations, a bias broadcast over the batch.
    "tensor x: 3|4\nparam w1: 4->5\nparam b1: 5\nparam w2: 5->2\nh = compose w1 x\nh1 = pointwise h b1\ny = compose w2 h1\nloss = einsum \"...|o; ...|o => \" y y",
    // One parameter read by two steps, and twice by one.
    "tensor x: 2,3\nparam w: 3,3\na = einsum \"ij;jk=>ik\" x w\nb = einsum \"ik;kl=>il\" a w\nc = einsum \"ij;ij=>ij\" b b\nloss = permute \"ij=>\" c",
    // Attention scores with a head split and a diagonal.
    "tensor q: 2,4,6\nparam wk: 6,6\nk = einsum \"btd;de=>bte\" q wk\ns = einsum \"btd;bsd=>bts\" q k\nd = permute \"btt=>bt\" s\nloss = einsum \"bt;bt=>\" d d",
    // Strided and padded convolutions.
    "tensor x: 3,9\nparam k1: 3\nparam k2: 2\ny = einsum \"b,2*o<+k; k => b,o\" x k1\nz = einsum \"b,o=+k; k => b,o\" y k2\nloss = einsum \"b,o; b,o => \" z z",
    // A concatenation, a batch slice and a numpy step.
    "tensor x: 2,3\nparam p: 2,2\nparam q: 5,3\nc = concat \"i,a; i,b => i,a^b\" x p\nw = numpy \"ij,jk->ik\" c q\nu = permute \"ij => i|j\" w\nv = batch_slice u\nloss = einsum \"o; o => \" v v",
];

struct Built {
    g: Graph,
    loss: TensorId,
    leaves: Vec<TensorId>,
    params: Vec<TensorId>,
}

fn build(text: &str) -> Built {
    let program = Program::parse_text(text).expect("parses");
    let built = program.build();
    built.result.as_ref().map_err(|(e, l)| format!("{e} at {l:?}")).expect("builds");
    let mut g = built.graph;
    g.solve().expect("solves");
    let ids: Vec<TensorId> = g.tensor_ids().collect();
    let loss = *ids.last().expect("a loss");
    let leaves: Vec<TensorId> =
        ids.iter().copied().filter(|&t| g.tensor(t).expect("ours").leaf).collect();
    let params = leaves.iter().copied().filter(|&t| g.tensor(t).expect("ours").param).collect();
    Built { g, loss, leaves, params }
}

/// Each leaf's element count.
fn leaf_lens(b: &Built) -> Vec<usize> {
    let numel = |t| b.g.sizes(t).expect("solved").numel().expect("small") as usize;
    b.leaves.iter().map(|&t| numel(t)).collect()
}

fn computes(g: &Graph) -> Vec<Compute> {
    g.steps().iter().map(|s| Compute::default_for(s.op, s.args.len())).collect()
}

/// The loss of the program for these leaf values, by running every step afresh.
fn loss_of(b: &mut Built, values: &[Vec<f64>]) -> f64 {
    let computes = computes(&b.g);
    let leaves: Vec<(TensorId, Vec<f64>)> =
        b.leaves.iter().copied().zip(values.iter().cloned()).collect();
    let out = run_graph(&b.g, &leaves, &|s| computes[s.index()]).expect("runs");
    out[b.loss.index()].as_ref().expect("the loss")[0]
}

fn values(seed: u64, n: usize) -> Vec<f64> {
    noise::xorshift(seed).take(n).map(|x| ((x % 7) as f64 - 3.0) / 4.0).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn training_gradients_match_finite_differences(which in 0..PROGRAMS.len(), seed in any::<u64>()) {
        let mut b = build(PROGRAMS[which]);
        let computes = computes(&b.g);
        let train = Training::compile(&b.g, b.loss, &b.params, &|s| computes[s.index()]).expect("compiles");
        prop_assert_eq!(train.leaves(), &b.leaves[..]);
        let lens = leaf_lens(&b);
        let xs: Vec<Vec<f64>> = lens.iter().enumerate().map(|(k, &n)| values(seed.wrapping_add(k as u64), n)).collect();
        let mut ws = train.workspace::<f64>().expect("allocates");
        let mut grads: Vec<Vec<f64>> = b.params.iter().map(|&p| vec![9.0; lens[b.leaves.iter().position(|&l| l == p).expect("a leaf")]]).collect();
        let refs: Vec<&[f64]> = xs.iter().map(Vec::as_slice).collect();
        let mut outs: Vec<&mut [f64]> = grads.iter_mut().map(|g| g.as_mut_slice()).collect();
        train.run(&mut ws, &refs, &mut outs, &mut ()).expect("runs");
        let loss = ws.value(&train, b.loss).expect("the loss")[0];
        prop_assert!((loss - loss_of(&mut b, &xs)).abs() <= 1e-9 * (1.0 + loss.abs()));
        let params = b.params.clone();
        for (g, &p) in grads.iter().zip(&params) {
            let k = b.leaves.iter().position(|&l| l == p).expect("a leaf");
            for e in 0..xs[k].len() {
                // The loss is a polynomial of degree at most 4 in one element: the five-point
                // difference is exact for it (up to rounding).
                let h = 0.5;
                let mut at = |d: f64| {
                    let mut moved = xs.clone();
                    moved[k][e] += d;
                    loss_of(&mut b, &moved)
                };
                let want = (at(-2.0 * h) - 8.0 * at(-h) + 8.0 * at(h) - at(2.0 * h)) / (12.0 * h);
                prop_assert!((g[e] - want).abs() <= 1e-9 * (1.0 + want.abs()), "program {} param {} element {}: {} vs {}", which, k, e, g[e], want);
            }
        }
    }
}

/// The same training in f32 and bf16 gives f64's gradients within their rounding, with one
/// and two threads.
#[test]
fn float_types_and_threads_agree() {
    let b = build(PROGRAMS[0]);
    let computes = computes(&b.g);
    let train =
        Training::compile(&b.g, b.loss, &b.params, &|s| computes[s.index()]).expect("compiles");
    let lens = leaf_lens(&b);
    let xs: Vec<Vec<f64>> =
        lens.iter().enumerate().map(|(k, &n)| values(k as u64 + 7, n)).collect();
    let grad_lens: Vec<usize> = b
        .params
        .iter()
        .map(|p| lens[b.leaves.iter().position(|l| l == p).expect("a leaf")])
        .collect();
    let run = |threads: usize| -> Vec<Vec<f64>> {
        let mut ws = train.workspace::<f64>().expect("allocates");
        let refs: Vec<&[f64]> = xs.iter().map(Vec::as_slice).collect();
        let mut grads: Vec<Vec<f64>> = grad_lens.iter().map(|&n| vec![0.0; n]).collect();
        let mut outs: Vec<&mut [f64]> = grads.iter_mut().map(|g| g.as_mut_slice()).collect();
        let opts = RunOptions { threads, ..RunOptions::default() };
        train.run_with(&mut ws, &refs, &mut outs, &mut (), &opts).expect("runs");
        grads
    };
    let want = run(1);
    assert_eq!(run(2), want);
    let narrow = |cast: fn(f64) -> f64, tol: f64| {
        for (g, w) in run_typed(&train, &xs, &grad_lens, cast).iter().zip(&want) {
            for (a, b) in g.iter().zip(w) {
                assert!((a - b).abs() <= tol * (1.0 + b.abs()), "{a} vs {b}");
            }
        }
    };
    narrow(|x| x as f32 as f64, 1e-5);
    narrow(|x| half::bf16::from_f64(x).to_f64(), 5e-2);
}

/// The training run in f32 (`cast` rounds the inputs as the narrow type would) or bf16.
fn run_typed(
    train: &Training,
    xs: &[Vec<f64>],
    grad_lens: &[usize],
    cast: fn(f64) -> f64,
) -> Vec<Vec<f64>> {
    if cast(0.1) == 0.1f32 as f64 {
        let xs: Vec<Vec<f32>> = xs.iter().map(|v| v.iter().map(|&x| x as f32).collect()).collect();
        let mut ws = train.workspace::<f32>().expect("allocates");
        let refs: Vec<&[f32]> = xs.iter().map(Vec::as_slice).collect();
        let mut grads: Vec<Vec<f32>> = grad_lens.iter().map(|&n| vec![0.0; n]).collect();
        let mut outs: Vec<&mut [f32]> = grads.iter_mut().map(|g| g.as_mut_slice()).collect();
        train.run(&mut ws, &refs, &mut outs, &mut ()).expect("runs");
        return grads.iter().map(|g| g.iter().map(|&x| x as f64).collect()).collect();
    }
    let xs: Vec<Vec<half::bf16>> =
        xs.iter().map(|v| v.iter().map(|&x| half::bf16::from_f64(x)).collect()).collect();
    let mut ws = train.workspace::<half::bf16>().expect("allocates");
    let refs: Vec<&[half::bf16]> = xs.iter().map(Vec::as_slice).collect();
    let mut grads: Vec<Vec<half::bf16>> =
        grad_lens.iter().map(|&n| vec![half::bf16::ZERO; n]).collect();
    let mut outs: Vec<&mut [half::bf16]> = grads.iter_mut().map(|g| g.as_mut_slice()).collect();
    train.run(&mut ws, &refs, &mut outs, &mut ()).expect("runs");
    grads.iter().map(|g| g.iter().map(|x| x.to_f64()).collect()).collect()
}

#[test]
fn bad_runs_and_steps_without_gradients_are_coded_errors() {
    let b = build(PROGRAMS[0]);
    let computes = computes(&b.g);
    let train =
        Training::compile(&b.g, b.loss, &b.params, &|s| computes[s.index()]).expect("compiles");
    let mut ws = train.workspace::<i32>().expect("allocates");
    let e = train.run(&mut ws, &[], &mut [], &mut ()).expect_err("an integer type");
    assert_eq!(e.code(), ErrorCode::Type);
    let mut ws = train.workspace::<f32>().expect("allocates");
    let e = train.run(&mut ws, &[], &mut [], &mut ()).expect_err("no buffers");
    assert_eq!(e.code(), ErrorCode::Arity);
    // Messages name tensors by their names.
    let short = [0.0f32; 1];
    let mut grads = [[0.0f32; 1]; 3];
    let mut outs: Vec<&mut [f32]> = grads.iter_mut().map(|g| &mut g[..]).collect();
    let e = train.run(&mut ws, &[&short[..]; 4], &mut outs, &mut ()).expect_err("short buffers");
    assert_eq!(e.code(), ErrorCode::Elems);
    assert!(e.to_string().contains("leaf buffer 0 has 1 elements; `x` holds 12"), "{e}");
    let e = ws.value(&train, b.leaves[0]).expect_err("not the loss");
    assert!(e.to_string().contains("not `x`'s"), "{e}");
    // A maximum on the way from a parameter to the loss has no gradient plan.
    let max = |s: einrow::ids::StepId| match s.index() {
        0 => Compute::new(Accum::Max, Combine::Mul),
        k => computes[k],
    };
    let e = Training::compile(&b.g, b.loss, &b.params, &max).expect_err("no gradient");
    assert_eq!(e.code(), ErrorCode::Unsupported);
    // A computed tensor is not a parameter; an id of another graph is a name error.
    let h = b.g.tensor_ids().nth(4).expect("h");
    let e =
        Training::compile(&b.g, b.loss, &[h], &|s| computes[s.index()]).expect_err("not a leaf");
    assert_eq!(e.code(), ErrorCode::Value);
    let other = build(PROGRAMS[0]);
    let e = Training::compile(&b.g, other.loss, &b.params, &|s| computes[s.index()])
        .expect_err("foreign");
    assert_eq!(e.code(), ErrorCode::Name);
}

/// Liveness shares the arena: a long chain needs a few buffers' room, not one per step.
#[test]
fn the_arena_of_a_long_chain_is_a_few_buffers() {
    let mut text = String::from("tensor x: 64\nparam w: 64,64\nt0 = einsum \"i;ij=>j\" x w\n");
    for i in 1..200 {
        text.push_str(&format!("t{i} = einsum \"i;ij=>j\" t{} w\n", i - 1));
    }
    text.push_str("loss = einsum \"i;i=>\" t199 t199\n");
    let b = build(&text);
    let computes = computes(&b.g);
    let train =
        Training::compile(&b.g, b.loss, &b.params, &|s| computes[s.index()]).expect("compiles");
    // 201 values and 201 gradients of 64: the values are kept for the backward pass, the
    // gradients take two buffers.
    assert!(
        train.arena_len() < train.unplanned_len() * 3 / 5,
        "{} of {}",
        train.arena_len(),
        train.unplanned_len()
    );
    // The chain's plan and its two gradients, the loss's plan and its one gradient (both
    // operands read alike): each compiled once.
    assert_eq!(train.executable_count(), 5);
}

/// Native activations between the steps: the gradients of a perceptron with an activation
/// after each layer match central differences of the training's own loss (in f64; ReLU,
/// whose kink a difference can straddle, is checked by the unit tests), and an activation
/// on a leaf, a foreign graph or a missing step is a coded error.
#[test]
fn native_activations_match_finite_differences() {
    let text = "tensor x: 3|4\nparam w1: 4->5\nparam b1: 5\nparam w2: 5->2\nh = compose w1 x\nh1 = pointwise h b1\ny = compose w2 h1\nloss = einsum \"...|o; ...|o => \" y y";
    for (f, g) in [
        (Activation::Tanh, Activation::Sigmoid),
        (Activation::Softplus, Activation::Elu),
        (Activation::Sigmoid, Activation::Tanh),
    ] {
        let b = build(text);
        let computes = computes(&b.g);
        let train =
            Training::compile(&b.g, b.loss, &b.params, &|s| computes[s.index()]).expect("compiles");
        let ids: Vec<TensorId> = b.g.tensor_ids().collect();
        let (h1, y) = (ids[5], ids[6]);
        let mut acts = Activations::new(&train);
        acts.set(&b.g, h1, f).expect("a step").set(&b.g, y, g).expect("a step");
        let lens = leaf_lens(&b);
        let xs: Vec<Vec<f64>> =
            lens.iter().enumerate().map(|(k, &n)| values(k as u64 + 11, n)).collect();
        let run = |xs: &[Vec<f64>], acts: &mut Activations| -> (f64, Vec<Vec<f64>>) {
            let mut ws = train.workspace::<f64>().expect("allocates");
            let refs: Vec<&[f64]> = xs.iter().map(Vec::as_slice).collect();
            let mut grads: Vec<Vec<f64>> = b
                .params
                .iter()
                .map(|p| vec![0.0; lens[b.leaves.iter().position(|l| l == p).expect("a leaf")]])
                .collect();
            let mut outs: Vec<&mut [f64]> = grads.iter_mut().map(|g| g.as_mut_slice()).collect();
            train.run(&mut ws, &refs, &mut outs, acts).expect("runs");
            (ws.value(&train, b.loss).expect("the loss")[0], grads)
        };
        let (_, grads) = run(&xs, &mut acts);
        for (grad, p) in grads.iter().zip(&b.params) {
            let k = b.leaves.iter().position(|l| l == p).expect("a leaf");
            for (e, got) in grad.iter().enumerate() {
                let h = 1e-5;
                let at = |d: f64| {
                    let mut moved = xs.clone();
                    moved[k][e] += d;
                    run(&moved, &mut acts.clone()).0
                };
                let want = (at(h) - at(-h)) / (2.0 * h);
                assert!(
                    (got - want).abs() <= 1e-6 * (1.0 + want.abs()),
                    "{f}/{g} {k}[{e}]: {got} vs {want}"
                );
            }
        }
        assert_eq!(acts.get(b.g.producer(h1).expect("ours").expect("a step")), Some(f));
    }
    let b = build(text);
    let computes = computes(&b.g);
    let train =
        Training::compile(&b.g, b.loss, &b.params, &|s| computes[s.index()]).expect("compiles");
    let mut acts = Activations::new(&train);
    let e = acts.set(&b.g, b.leaves[0], Activation::Relu).expect_err("a leaf");
    assert_eq!(e.code(), ErrorCode::Name);
    let other = build(text);
    let e = acts.set(&other.g, other.loss, Activation::Relu).expect_err("another graph");
    assert_eq!(e.code(), ErrorCode::Name);
    let foreign = other.g.producer(other.loss).expect("ours").expect("a step");
    let e = acts.set_step(foreign, Activation::Relu).expect_err("another graph's step");
    assert_eq!(e.code(), ErrorCode::Name);
}
