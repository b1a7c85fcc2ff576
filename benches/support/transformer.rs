//! A generated transformer-like graph for the inference benchmarks (shared by
//! `benches/infer.rs` and `examples/infer_scale.rs` through `#[path]`).
//!
//! The state `x` has batch row `[..., seq]` (a row variable for the unknown batch axes) and
//! output row `[d]`. Each block is a layer-norm-like normalisation, multi-head attention written
//! with einsum specs over the batch row variable, a residual add, another normalisation and a
//! two-layer MLP (compose and pointwise) with its residual add: 24 operations and 12 parameter
//! leaves per block. Most parameters are declared `...->...` or `...` so that inference must size
//! them from the operations they take part in.

use einrow::ids::TensorId;
use einrow::infer::{Graph, InferError};

/// Operations per block (see the module docs).
pub const OPS_PER_BLOCK: usize = 24;

/// The sizes of the generated model.
#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    /// Sequence length.
    pub seq: u64,
    /// Vocabulary size.
    pub vocab: u64,
    /// Model width.
    pub d: u64,
    /// Attention heads.
    pub heads: u64,
    /// Width per head.
    pub head_dim: u64,
    /// MLP hidden width.
    pub hidden: u64,
}

impl Default for Sizes {
    fn default() -> Sizes {
        Sizes { seq: 16, vocab: 1000, d: 64, heads: 4, head_dim: 16, hidden: 256 }
    }
}

/// Builds a graph of at least `ops` operations (whole blocks); returns the graph, the number of
/// operations added and the final logits tensor.
pub fn build(ops: usize, z: Sizes) -> Result<(Graph, usize, TensorId), InferError> {
    build_batched(ops, z, "...,")
}

/// [`build`] with the tokens' leading batch axes written as `batch`, a shape-string prefix:
/// `...,` (any number, the default), `8,` (one axis of 8), `` (none). The tokens are tensor 0.
#[allow(dead_code)]
pub fn build_batched(
    ops: usize,
    z: Sizes,
    batch: &str,
) -> Result<(Graph, usize, TensorId), InferError> {
    let mut g = Graph::new();
    let tokens = g.declare("tokens", Some(&format!("{batch}{}|{}", z.seq, z.vocab)), false)?;
    let embed = g.declare("embed", Some(&format!("...->{}", z.d)), true)?;
    let pos = g.declare("pos", Some(&format!("{}|{}", z.seq, z.d)), true)?;
    let e = g.compose(embed, tokens)?;
    let mut x = g.pointwise(&[e, pos])?;
    let mut count = 2;
    while count + 1 < ops {
        x = block(&mut g, x, z)?;
        count += OPS_PER_BLOCK;
    }
    let unembed = g.declare("unembed", Some(&format!("...->{}", z.vocab)), true)?;
    let logits = g.compose(unembed, x)?;
    Ok((g, count + 1, logits))
}

/// One transformer block.
fn block(g: &mut Graph, x: TensorId, z: Sizes) -> Result<TensorId, InferError> {
    let n = norm(g, x)?;
    let a = attention(g, n, z)?;
    let x = g.pointwise(&[x, a])?;
    let n = norm(g, x)?;
    let m = mlp(g, n, z)?;
    g.pointwise(&[x, m])
}

/// Layer-norm-like: subtract the mean over the features, then scale and shift (4 operations).
fn norm(g: &mut Graph, x: TensorId) -> Result<TensorId, InferError> {
    let gamma = g.declare("gamma", Some("..."), true)?;
    let beta = g.declare("beta", Some("..."), true)?;
    let mean = g.permute("...|d => ...|", x)?;
    let centred = g.einsum("...|d; ...| => ...|d", &[x, mean])?;
    let scaled = g.pointwise(&[centred, gamma])?;
    g.pointwise(&[scaled, beta])
}

/// Multi-head attention over the sequence axis of the batch row (10 operations).
fn attention(g: &mut Graph, x: TensorId, z: Sizes) -> Result<TensorId, InferError> {
    let heads = format!("...->{},{}", z.heads, z.head_dim);
    let wq = g.declare("wq", Some(&heads), true)?;
    let wk = g.declare("wk", Some(&heads), true)?;
    let wv = g.declare("wv", Some(&heads), true)?;
    let wo = g.declare("wo", Some("...->..."), true)?;
    let q = g.compose(wq, x)?;
    let k = g.compose(wk, x)?;
    let v = g.compose(wv, x)?;
    let scores = g.einsum("...,s|h,k; ...,t|h,k => ...,s,t|h", &[q, k])?;
    let e = g.pointwise(&[scores])?;
    let total = g.permute("...,s,t|h => ...,s|h", e)?;
    let p = g.einsum("...,s,t|h; ...,s|h => ...,s,t|h", &[e, total])?;
    let mixed = g.einsum("...,s,t|h; ...,t|h,k => ...,s|h,k", &[p, v])?;
    g.einsum("...|h,k; h,k->d => ...|d", &[mixed, wo])
}

/// Two-layer MLP with biases and an activation (6 operations with the caller's residual).
fn mlp(g: &mut Graph, x: TensorId, z: Sizes) -> Result<TensorId, InferError> {
    let w1 = g.declare("w1", Some(&format!("...->{}", z.hidden)), true)?;
    let b1 = g.declare("b1", Some("..."), true)?;
    let w2 = g.declare("w2", Some("...->..."), true)?;
    let b2 = g.declare("b2", Some("..."), true)?;
    let h = g.compose(w1, x)?;
    let h = g.pointwise(&[h, b1])?;
    let h = g.pointwise(&[h])?;
    let y = g.compose(w2, h)?;
    g.pointwise(&[y, b2])
}
