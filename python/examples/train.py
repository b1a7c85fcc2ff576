"""Training with einrow from Python: a two-layer perceptron and an attention block, each
declared on an `einrow.Graph`, compiled into a training step (forward, then backward into the
parameters' gradients), and trained with plain SGD on numpy arrays. ReLU runs natively
(`activations=`); numpy applies the softmax and its derivative in the run's hooks. Exits with
an error unless each loss falls tenfold.

    python python/examples/train.py
"""

import sys

import numpy as np

import einrow


def fit(graph, loss, params, values, hooks, steps, lr):
    """SGD on `params` (updating `values` in place); the first and the last loss."""
    graph.solve()
    train = graph.training(loss, params)
    losses = []
    for _ in range(steps):
        value, grads = train.run(values, **hooks)
        losses.append(float(value[0]))
        for p, g in zip(params, grads):
            values[p] -= lr * g
    return losses[0], losses[-1]


def perceptron(rng):
    batch = 64
    g = einrow.Graph()
    x = g.input("x", batch=(batch,), output=(8,))
    minus_t = g.input("-target", batch=(batch,), output=(1,))
    w1 = g.parameter("w1", input=(8,), output=(16,))
    b1 = g.parameter("b1", output=(16,))
    w2 = g.parameter("w2", input=(16,), output=(1,))
    a = g.pointwise(g.compose(w1, x), b1)
    d = g.pointwise(g.compose(w2, a), minus_t)
    loss = g.einsum("...|o; ...|o => ", d, d)
    xs = rng.uniform(-1, 1, size=(batch, 8)).astype(np.float32)
    t1, t2 = rng.normal(0, 0.5, (16, 8)), rng.normal(0, 0.5, (1, 16))
    targets = (np.maximum(xs @ t1.T, 0) @ t2.T).astype(np.float32)
    values = {x: xs, minus_t: -targets}
    for p in (w1, b1, w2):
        values[p] = rng.normal(0, 0.3, size=g.shape(p)).astype(np.float32)

    hooks = {"activations": {a: "relu"}}
    return fit(g, loss, [w1, b1, w2], values, hooks, 400, 0.2 / batch)


def softmax_rows(s, width):
    rows = s.reshape(-1, width)
    e = np.exp(rows - rows.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).reshape(s.shape)


def attention(rng):
    b, t, dim = 16, 4, 8
    g = einrow.Graph()
    x = g.input("x", batch=(b, t), output=(dim,))
    minus_t = g.input("-target", batch=(b, t), output=(1,))
    wq, wk, wv = (g.parameter(n, input=(dim,), output=(dim,)) for n in ("wq", "wk", "wv"))
    wo = g.parameter("wo", input=(dim,), output=(1,))
    q, k, v = g.compose(wq, x), g.compose(wk, x), g.compose(wv, x)
    s = g.einsum("b,t|d; b,u|d => b,t|u", q, k)
    c = g.einsum("b,t|u; b,u|d => b,t|d", s, v)
    d = g.pointwise(g.compose(wo, c), minus_t)
    loss = g.einsum("...|o; ...|o => ", d, d)
    xs = rng.uniform(-1, 1, size=(b, t, dim)).astype(np.float32)
    tq, tk, tv = (rng.normal(0, 0.5, (dim, dim)) for _ in range(3))
    to = rng.normal(0, 0.5, (1, dim))
    scores = np.einsum("btd,bud->btu", xs @ tq.T, xs @ tk.T)
    targets = (np.einsum("btu,bud->btd", softmax_rows(scores, t), xs @ tv.T) @ to.T).astype(np.float32)
    values = {x: xs, minus_t: -targets}
    for p in (wq, wk, wv, wo):
        values[p] = rng.normal(0, 0.3, size=g.shape(p)).astype(np.float32)

    def forward(tensor, result):
        if tensor == s:
            result[:] = softmax_rows(result, t)

    def backward(tensor, result, grad):
        if tensor == s:
            rows, sm = grad.reshape(-1, t), result.reshape(-1, t)
            rows[:] = sm * (rows - (rows * sm).sum(axis=1, keepdims=True))

    hooks = {"forward": forward, "backward": backward}
    return fit(g, loss, [wq, wk, wv, wo], values, hooks, 400, 0.6 / (b * t))


def main():
    rng = np.random.default_rng(0)
    for name, model in (("perceptron", perceptron), ("attention", attention)):
        first, last = model(rng)
        print(f"{name}: loss {first:.4f} -> {last:.4f} in 400 SGD steps")
        if last * 10 > first:
            sys.exit(f"the {name}'s loss fell from {first} to {last} only")


if __name__ == "__main__":
    main()
