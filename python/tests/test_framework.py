"""The framework flow in Python (as examples/framework.rs in the crate): a transformer block
declared once with the typed API, solved once as a scheme with the batch symbolic,
instantiated for two batch shapes, every step's plan compiled, and the block run forward on
numpy buffers with the framework's activations applied between steps; each run is checked
against the same block written with numpy."""

import numpy as np
import pytest

import einrow

SEQ, WIDTH, HEADS, HEAD_DIM, HIDDEN = 6, 8, 2, 4, 16


class Block:
    """The block as a framework traces it: the graph, each step's computation and
    activation, the tensors it fills and its result."""

    def __init__(self):
        g = self.g = einrow.Graph()
        self.compute, self.activation = {}, {}
        self.batch = g.row_var("batch")
        self.x = g.input("x", batch=(self.batch, SEQ), output=(WIDTH,))
        self.inv_width = g.input("1/width", ())

        # Layer norm: the mean over the features subtracted, scaled and shifted per feature.
        gamma = g.parameter("gamma", output=(...,))
        beta = g.parameter("beta", output=(...,))
        total = self.rec(g.permute("...|d => ...|", self.x), "+", "first")
        mean = self.rec(g.pointwise(total, self.inv_width), "+", "*")
        centred = self.rec(g.einsum("...|d; ...| => ...|d", self.x, mean), "+", "-")
        scaled = self.rec(g.pointwise(centred, gamma), "+", "*")
        normed = self.rec(g.pointwise(scaled, beta), "+", "+")

        # Attention over the sequence axis (the last batch axis).
        wq, wk, wv = (g.parameter(n, input=(...,), output=(HEADS, HEAD_DIM)) for n in "qkv")
        wo = g.parameter("wo", input=(...,), output=(...,))
        q = self.rec(g.compose(wq, normed), "+", "*")
        k = self.rec(g.compose(wk, normed), "+", "*")
        v = self.rec(g.compose(wv, normed), "+", "*")
        scores = self.rec(g.einsum("...,s|h,k; ...,t|h,k => ...,s,t|h", q, k), "+", "*")
        e = self.rec(g.pointwise(scores), "+", "first", np.exp)
        norm = self.rec(g.permute("...,s,t|h => ...,s|h", e), "+", "first")
        p = self.rec(g.einsum("...,s,t|h; ...,s|h => ...,s,t|h", e, norm), "+", "/")
        mixed = self.rec(g.einsum("...,s,t|h; ...,t|h,k => ...,s|h,k", p, v), "+", "*")
        attn = self.rec(g.einsum("...|h,k; h,k->d => ...|d", mixed, wo), "+", "*")
        x1 = self.rec(g.pointwise(self.x, attn), "+", "+")

        # The MLP with its residual connection.
        w1 = g.parameter("w1", input=(...,), output=(HIDDEN,))
        b1 = g.parameter("b1", output=(...,))
        w2 = g.parameter("w2", input=(...,), output=(...,))
        b2 = g.parameter("b2", output=(...,))
        h = self.rec(g.compose(w1, x1), "+", "*")
        h = self.rec(g.pointwise(h, b1), "+", "+")
        h = self.rec(g.pointwise(h), "+", "first", lambda a: np.maximum(a, 0))
        y = self.rec(g.compose(w2, h), "+", "*")
        y = self.rec(g.pointwise(y, b2), "+", "+")
        self.out = self.rec(g.pointwise(x1, y, name="out"), "+", "+")
        self.params = [gamma, beta, wq, wk, wv, wo, w1, b1, w2, b2]

    def rec(self, t, accum, combine, activation=None):
        self.compute[t] = (accum, combine)
        if activation is not None:
            self.activation[t] = activation
        return t

    def after(self, t, out):
        f = self.activation.get(t)
        if f is not None:
            out[...] = f(out)


def reference(values, x):
    """The block written with numpy, in float64."""
    gamma, beta, wq, wk, wv, wo, w1, b1, w2, b2 = (v.astype(np.float64) for v in values)
    x = x.astype(np.float64)
    ln = (x - x.mean(-1, keepdims=True)) * gamma + beta
    q, k, v = (np.einsum("hkd,...sd->...shk", w, ln) for w in (wq, wk, wv))
    e = np.exp(np.einsum("...shk,...thk->...sth", q, k))
    p = e / e.sum(axis=-2)[..., :, None, :]
    mixed = np.einsum("...sth,...thk->...shk", p, v)
    x1 = x + np.einsum("...shk,dhk->...sd", mixed, wo)
    hidden = np.maximum(np.einsum("fd,...sd->...sf", w1, x1) + b1, 0)
    return x1 + np.einsum("df,...sf->...sd", w2, hidden) + b2


@pytest.fixture(scope="module")
def block():
    return Block()


@pytest.fixture(scope="module")
def scheme(block):
    return block.g.solve_scheme(block.batch)


def test_the_scheme_is_symbolic_in_the_batch(block, scheme):
    assert scheme.vars == [block.batch]
    assert scheme.shape_string(block.x) == f"..batch..,{SEQ}|{WIDTH}"
    assert scheme.shape_string(block.out) == f"..batch..,{SEQ}|{WIDTH}"
    assert scheme.shape_string(block.params[2]) == f"{WIDTH}->{HEADS},{HEAD_DIM}"
    assert scheme.steps == list(block.compute)
    assert scheme.tensor_count == len(block.g.tensors())
    assert not scheme.is_rank_fixed(block.batch)
    assert scheme.min_size(block.batch) == 0


@pytest.mark.parametrize("batch", [(2,), (3, 2)])
def test_the_block_runs_for_each_batch_shape(block, scheme, rng, batch):
    inst = scheme.instantiate({block.batch: batch})
    assert inst.shape(block.out) == (*batch, SEQ, WIDTH)
    assert inst.sizes(block.out) == {"batch": (*batch, SEQ), "input": (), "output": (WIDTH,)}
    assert inst.dims(block.batch) == batch
    assert inst.size(block.batch) == int(np.prod(batch))
    program = inst.compile(compute=block.compute)
    assert program.tensor_count == inst.tensor_count
    assert program.steps == inst.steps
    buffers = {}
    for t in [*block.params, block.x]:
        buffers[t] = rng.uniform(-0.5, 0.5, size=program.shape(t)).astype(np.float32)
    buffers[block.inv_width] = np.array(1.0 / WIDTH, np.float32)
    values = [buffers[t] for t in block.params]
    result = program.run(buffers, after=block.after)
    assert result is buffers
    out = buffers[block.out]
    assert out.dtype == np.float32 and out.shape == (*batch, SEQ, WIDTH)
    np.testing.assert_allclose(out, reference(values, buffers[block.x]), rtol=1e-4, atol=1e-4)

    # The same run on a list of buffers indexed by tensor, results preallocated (strided).
    listed = [None] * program.tensor_count
    for t in [*block.params, block.x, block.inv_width]:
        listed[t.index] = buffers[t]
    strided_out = np.zeros(tuple(reversed(program.shape(block.out))), np.float32).T
    listed[block.out.index] = strided_out
    program.run(listed, after=block.after)
    np.testing.assert_allclose(strided_out, out, rtol=1e-5, atol=1e-6)


def test_instance_plans_and_steps_match_the_solved_graph(block, scheme, rng):
    inst = scheme.instantiate([(4,)])
    g = einrow.Graph()
    x = g.input("x", batch=(4, SEQ), output=(WIDTH,))
    w = g.parameter("w", input=(...,), output=(3,))
    y = g.compose(w, x)
    g.solve()
    plan = inst.plan(block.out)
    assert plan.result_shape == (4, SEQ, WIDTH)
    mean_step = list(block.compute)[1]
    assert inst.plan(mean_step, accum="+", combine="*").result_shape == (4, SEQ)
    # One step run alone, into `out`, as the compiled graph's executable.
    program = inst.compile(compute=block.compute)
    first = program.steps[0]
    xs = rng.uniform(-1, 1, size=inst.shape(block.x)).astype(np.float32)
    out = np.empty(inst.shape(first), np.float32)
    assert program.run_step(first, xs, out=out) is out
    np.testing.assert_allclose(out, xs.sum(-1), rtol=1e-5)
    np.testing.assert_allclose(program.executable(first).run(xs), out)
    # A solved graph compiles the same way.
    whole = g.compile()
    buffers = {x: np.ones(g.shape(x)), w: np.full(g.shape(w), 0.5)}
    whole.run(buffers)
    np.testing.assert_allclose(buffers[y], np.full((4, SEQ, 3), 0.5 * WIDTH))


def test_captured_labels_are_handles():
    g = einrow.Graph()
    batch = g.row_var("batch")
    x = g.input("x", batch=(batch,), output=(...,))
    w = g.parameter("w")
    y, (h, b) = g.capture("...|i; i->h => ...|h", x, w, names=["h", "batch"], name="y")
    assert isinstance(h, einrow.Dim) and isinstance(b, einrow.RowVar)
    assert y.name == "y" and h.name == "h"
    g.set_dim(h, 7)
    xi = g.row_of(x, "output")
    g.set_dim(xi, 3)
    scheme = g.solve_scheme(batch)
    inst = scheme.instantiate({"batch": 5})
    assert inst.shape(y) == (5, 7) and inst.shape(w) == (7, 3)
    assert inst.labels(y) == {"i": 3, "h": 7}
    assert inst.dims(h) == (7,) and inst.size(h) == 7
    # Handles constrain the graph; solved, they read their sizes.
    g2 = einrow.Graph()
    a = g2.input("a", (4, 5))
    c = g2.input("c", output=(...,))
    _, (i,) = g2.capture("i,j => j,i", a, names=["i"])
    _, (k,) = g2.capture("k => k", c, names=["k"])
    g2.set_equal(i, k)
    g2.solve()
    assert g2.shape(c) == (4,)
    assert i.size == 4 and k.dims == (4,)


def test_the_readme_flow():
    g = einrow.Graph()
    batch = g.row_var("batch")
    x = g.input("x", batch=(batch, 6), output=(8,))
    w1 = g.parameter("w1", input=(...,), output=(16,))
    h = g.compose(w1, x)
    r = g.pointwise(h)
    w2 = g.parameter("w2", input=(...,), output=(8,))
    y = g.compose(w2, r, name="y")
    scheme = g.solve_scheme(batch)
    assert scheme.shape_string(y) == "..batch..,6|8"
    for sizes in [(2,), (3, 2)]:
        inst = scheme.instantiate({batch: sizes})
        assert inst.shape(h) == (*sizes, 6, 16)
        program = inst.compile(compute={r: ("+", "first")})
        buffers = {t: np.random.rand(*inst.shape(t)).astype(np.float32) for t in (x, w1, w2)}
        relu = lambda t, out: np.maximum(out, 0, out=out) if t == r else None
        program.run(buffers, after=relu)
        want = np.einsum("df,...f->...d", buffers[w2],
                         np.maximum(np.einsum("fd,...d->...f", buffers[w1], buffers[x]), 0))
        assert buffers[y].shape == (*sizes, 6, 8)
        np.testing.assert_allclose(buffers[y], want, rtol=1e-5)
