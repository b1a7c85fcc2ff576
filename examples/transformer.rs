//! A transformer block (attention + MLP) described to einrow's shape engine the way a deep
//! learning framework would: declare the inputs and parameters, add one operation per tensor
//! operation as the model is traced, then solve once and read every shape back.
//!
//! Only a few sizes are given: the sequence length and width of the input, the number of heads
//! and the width per head, and the MLP's hidden width. Inference sizes every parameter declared
//! with unknown rows (`...->...`, `...`) from the operations it takes part in.
//!
//! ```text
//! cargo run --example transformer
//! ```
//!
//! Each line of the output is `name kind shape`, with shapes written `batch|input->output`
//! (kinds left out when empty): `8|32` is a batch axis of 8 (the sequence) and an output axis
//! of 32 features; `32->4,8` maps 32 input features to 4 heads of 8.

use einrow::ids::TensorId;
use einrow::infer::{Graph, InferError};

/// The sizes a user writes down; everything else is inferred.
struct Sizes {
    seq: u64,
    width: u64,
    heads: u64,
    head_dim: u64,
    hidden: u64,
}

fn main() -> Result<(), InferError> {
    let z = Sizes { seq: 8, width: 32, heads: 4, head_dim: 8, hidden: 128 };
    let mut g = Graph::new();

    // Shapes follow OCANNL: `batch|input->output`. The input has an unknown number of leading
    // batch axes (the row variable `...`) followed by the sequence axis, and one output axis
    // holding the features.
    let x = g.declare("x", Some(&format!("...,{}|{}", z.seq, z.width)), false)?;

    let normed = layer_norm(&mut g, x, "ln1")?;
    let attended = attention(&mut g, normed, &z)?;
    // A residual connection is a pointwise operation: the operands broadcast into the result.
    let x1 = g.pointwise(&[x, attended])?;
    g.set_name(x1, "x1")?;
    let normed = layer_norm(&mut g, x1, "ln2")?;
    let y = mlp(&mut g, normed, &z)?;
    let out = g.pointwise(&[x1, y])?;
    g.set_name(out, "out")?;

    // Until now every operation was propagated as it was added (cheap, local). `solve` closes
    // the world: leaves take the sizes their uses force (or broadcast), parameters must be fully
    // determined (an unknown parameter axis is an error, never a silent guess), and unknown
    // batch axes of the input close to none.
    g.solve()?;

    for t in g.tensor_ids() {
        let name = g.name(t)?;
        let entry = g.tensor(t)?;
        let kind = if entry.param {
            "param"
        } else if entry.leaf {
            "input"
        } else {
            ""
        };
        println!("{name:>12} {kind:>5}  {}", g.shape_string(t)?);
    }
    Ok(())
}

/// Layer normalisation: subtract the mean over the features, then scale and shift by learned
/// per-feature parameters.
fn layer_norm(g: &mut Graph, x: TensorId, name: &str) -> Result<TensorId, InferError> {
    // `...` alone declares the output row as unknown: the parameter takes whatever feature axes
    // it is broadcast against.
    let gamma = g.declare(&format!("{name}.gamma"), Some("..."), true)?;
    let beta = g.declare(&format!("{name}.beta"), Some("..."), true)?;
    // A one-operand spec (`=>` with one slot on the left): reduce the feature axis `d`. The
    // batch row variable `...` stands for whatever batch axes the operand has.
    let mean = g.permute("...|d => ...|", x)?;
    g.set_name(mean, &format!("{name}.mean"))?;
    // A two-operand spec: `x - mean` with the mean broadcast over `d`.
    let centred = g.einsum("...|d; ...| => ...|d", &[x, mean])?;
    g.set_name(centred, &format!("{name}.centred"))?;
    let scaled = g.pointwise(&[centred, gamma])?;
    g.set_name(scaled, &format!("{name}.scaled"))?;
    let shifted = g.pointwise(&[scaled, beta])?;
    g.set_name(shifted, name)?;
    Ok(shifted)
}

/// Multi-head self-attention over the sequence axis (the last batch axis).
fn attention(g: &mut Graph, x: TensorId, z: &Sizes) -> Result<TensorId, InferError> {
    // The projections fix the output axes (heads, width per head) and leave the input row
    // unknown: `compose` contracts a parameter's input row with its argument's output row, so
    // inference sizes it to the model width.
    let heads = format!("...->{},{}", z.heads, z.head_dim);
    let wq = g.declare("wq", Some(&heads), true)?;
    let wk = g.declare("wk", Some(&heads), true)?;
    let wv = g.declare("wv", Some(&heads), true)?;
    // The output projection is entirely unknown: its input row comes from the einsum below and
    // its output row from the residual connection it feeds.
    let wo = g.declare("wo", Some("...->..."), true)?;
    let q = g.compose(wq, x)?;
    let k = g.compose(wk, x)?;
    let v = g.compose(wv, x)?;
    for (t, name) in [(q, "q"), (k, "k"), (v, "v")] {
        g.set_name(t, name)?;
    }
    // Scores for every pair of positions `s`, `t`; the heads `h` stay, `k` is contracted. The
    // spec is in multichar mode (commas), so labels can be longer than one letter.
    let scores = g.einsum("...,s|h,k; ...,t|h,k => ...,s,t|h", &[q, k])?;
    // Softmax over `t`: exponentiate (pointwise), sum over `t`, divide.
    let e = g.pointwise(&[scores])?;
    let total = g.permute("...,s,t|h => ...,s|h", e)?;
    let p = g.einsum("...,s,t|h; ...,s|h => ...,s,t|h", &[e, total])?;
    // Mix the values with the attention weights, then project back to the model width.
    let mixed = g.einsum("...,s,t|h; ...,t|h,k => ...,s|h,k", &[p, v])?;
    for (t, name) in [(scores, "scores"), (e, "exp"), (total, "sum"), (p, "weights")] {
        g.set_name(t, name)?;
    }
    g.set_name(mixed, "mixed")?;
    let out = g.einsum("...|h,k; h,k->d => ...|d", &[mixed, wo])?;
    g.set_name(out, "attn")?;
    Ok(out)
}

/// A two-layer MLP with biases and an activation.
fn mlp(g: &mut Graph, x: TensorId, z: &Sizes) -> Result<TensorId, InferError> {
    // Only the hidden width is given; the first layer's input and the second layer's output
    // are inferred from the tensors around them.
    let w1 = g.declare("w1", Some(&format!("...->{}", z.hidden)), true)?;
    let b1 = g.declare("b1", Some("..."), true)?;
    let w2 = g.declare("w2", Some("...->..."), true)?;
    let b2 = g.declare("b2", Some("..."), true)?;
    let h = g.compose(w1, x)?;
    g.set_name(h, "x.w1")?;
    let h = g.pointwise(&[h, b1])?;
    g.set_name(h, "x.w1+b1")?;
    // An activation is a one-argument pointwise operation.
    let h = g.pointwise(&[h])?;
    g.set_name(h, "hidden")?;
    let y = g.compose(w2, h)?;
    g.set_name(y, "hidden.w2")?;
    let y = g.pointwise(&[y, b2])?;
    g.set_name(y, "mlp")?;
    Ok(y)
}
