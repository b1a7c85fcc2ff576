"""A two-layer perceptron's forward and backward pass: einrow's compiled training step
(`Graph.training`; ReLU applied natively, `activations=`, and, for comparison, in Python
hooks) against the same pass written by hand in numpy (`@` on OpenBLAS), on one thread each,
interleaved rounds, best round each. The gradients are compared before timing.

    OPENBLAS_NUM_THREADS=1 python python/benches/train_mlp.py [--rounds 7]
"""

import argparse
import os
import time

for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
    os.environ.pop(var, None)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import einrow  # noqa: E402

SIZES = [(64, 64, 128, 10), (256, 256, 512, 64), (1024, 784, 256, 10)]


def blas_kernel():
    """numpy's BLAS library and the core type it runs (numpy.show_runtime's record)."""
    try:
        from threadpoolctl import threadpool_info
        info = [i for i in threadpool_info() if i.get("user_api") == "blas"]
        return ", ".join(f"{i['internal_api']} {i['version']} {i.get('architecture')}" for i in info)
    except ImportError:
        config = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"{config['name']} {config['version']} (numpy.show_runtime() names the kernel)"


def by_hand(x, t, w1, b1, w2):
    """Forward and backward in numpy: the loss and the gradients of w1, b1 and w2."""
    h = x @ w1.T
    h += b1
    a = np.maximum(h, 0)
    d = a @ w2.T
    d -= t
    loss = float((d * d).sum())
    gd = 2 * d
    gw2 = gd.T @ a
    ga = gd @ w2
    ga *= h > 0
    return loss, ga.T @ x, ga.sum(axis=0), gw2


def compiled(batch, n_in, hidden, n_out):
    g = einrow.Graph()
    x = g.input("x", batch=(batch,), output=(n_in,))
    minus_t = g.input("-target", batch=(batch,), output=(n_out,))
    w1 = g.parameter("w1", input=(n_in,), output=(hidden,))
    b1 = g.parameter("b1", output=(hidden,))
    w2 = g.parameter("w2", input=(hidden,), output=(n_out,))
    a = g.pointwise(g.compose(w1, x), b1)
    d = g.pointwise(g.compose(w2, a), minus_t)
    loss = g.einsum("...|o; ...|o => ", d, d)
    g.solve()
    train = g.training(loss, [w1, b1, w2])

    def relu(tensor, result):
        np.maximum(result, 0, out=result)

    def relu_grad(tensor, result, grad):
        grad *= result > 0

    # Hooks as mappings: only the step computing `a` calls Python.
    native = {"activations": {a: "relu"}}
    hooks = {"forward": {a: relu}, "backward": {a: relu_grad}}
    return train, (x, minus_t, w1, b1, w2), native, hooks


def bench(sizes, rounds):
    batch, n_in, hidden, n_out = sizes
    rng = np.random.default_rng(0)
    f32 = np.float32
    x = rng.uniform(-1, 1, (batch, n_in)).astype(f32)
    t = rng.uniform(-1, 1, (batch, n_out)).astype(f32)
    w1 = rng.normal(0, 0.1, (hidden, n_in)).astype(f32)
    b1 = rng.normal(0, 0.1, hidden).astype(f32)
    w2 = rng.normal(0, 0.1, (n_out, hidden)).astype(f32)
    train, (tx, tt, tw1, tb1, tw2), native, hooks = compiled(batch, n_in, hidden, n_out)
    values = {tx: x, tt: -t, tw1: w1, tb1: b1, tw2: w2}
    want = by_hand(x, t, w1, b1, w2)
    for how in (native, hooks):
        loss, grads = train.run(values, **how)
        assert np.isclose(float(loss[0]), want[0], rtol=1e-4), (loss, want[0])
        for got, ref in zip(grads, want[1:]):
            np.testing.assert_allclose(got, ref, rtol=2e-3, atol=2e-3 * np.abs(ref).max())
    calls = max(5, int(2e8 / (batch * hidden * (n_in + n_out) * 6)))
    runs = [lambda: train.run(values, **native), lambda: by_hand(x, t, w1, b1, w2),
            lambda: train.run(values, **hooks)]
    best = [float("inf")] * len(runs)
    for _ in range(rounds):
        for k, run in enumerate(runs):
            t0 = time.perf_counter()
            for _ in range(calls):
                run()
            best[k] = min(best[k], (time.perf_counter() - t0) / calls)
    return best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    einrow.set_num_threads(1)
    print(f"numpy {np.__version__}, BLAS: {blas_kernel()}; einrow and numpy on one thread")
    for sizes in SIZES:
        e, n, k = bench(sizes, args.rounds)
        b, i, h, o = sizes
        print(f"MLP batch {b}, {i}->{h}->{o}: einrow {e * 1e6:9.1f} us   numpy {n * 1e6:9.1f} us"
              f"   ratio {e / n:.2f}   (ReLU in Python hooks: {k * 1e6:9.1f} us, {k / n:.2f})")


if __name__ == "__main__":
    main()
