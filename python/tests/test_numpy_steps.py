"""Graph.numpy steps (numpy einsum subscripts over operands whose output rows are arrays) are
planned and compiled like every other step: each step's plan, a whole compiled graph, and a
graph mixing numpy steps with spec steps, against numpy.einsum on the same arrays."""

import numpy as np
import pytest

import einrow

STEPS = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ii->i", [(4, 4)]),
    ("ij->", [(3, 4)]),
    ("ij,ij->ij", [(3, 1), (1, 5)]),
    ("...i,i->...", [(2, 3, 4), (4,)]),
    ("bij,bjk->bki", [(2, 3, 4), (2, 4, 5)]),
    ("ij,jk,kl->li", [(2, 3), (3, 4), (4, 2)]),
    ("iij,j->i", [(3, 3, 2), (2,)]),
    ("i,j->ij", [(3,), (1,)]),
]


def declared(shape):
    """A shape string where each size-1 axis is `1!`, the broadcast top (numpy's size 1
    broadcasts against any size; a plain 1 is a fixed size)."""
    return ",".join("1!" if d == 1 else str(d) for d in shape)


@pytest.mark.parametrize("subscripts,shapes", STEPS, ids=[s for s, _ in STEPS])
def test_a_numpy_step_is_planned_compiled_and_run(subscripts, shapes, rng):
    g = einrow.Graph()
    xs = [g.input(f"x{k}", declared(s)) for k, s in enumerate(shapes)]
    y = g.numpy(subscripts, *xs, name="y")
    g.solve()
    ops = [rng.standard_normal(s) for s in shapes]
    want = np.einsum(subscripts, *ops)
    assert g.shape(y) == want.shape
    plan = g.plan(y)
    assert plan.result_shape == want.shape
    np.testing.assert_allclose(plan.compile().run(*ops), want, rtol=1e-12, atol=1e-12)
    compiled = g.compile()
    buffers = dict(zip(xs, ops))
    compiled.run(buffers)
    np.testing.assert_allclose(buffers[y], want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(compiled.run_step(y, *ops), want, rtol=1e-12, atol=1e-12)


def test_numpy_steps_chain_with_spec_steps(rng):
    """An attention score by numpy subscripts, a softmax-free mix by a spec step, and a
    numpy reduction: the compiled graph gives numpy's values."""
    g = einrow.Graph()
    q = g.input("q", (2, 5, 4))
    k = g.input("k", (2, 6, 4))
    scores = g.numpy("bqd,bkd->bqk", q, k, name="scores")
    w = g.input("w", (2, 6, 4))
    mixed = g.numpy("bqk,bkd->bqd", scores, w, name="mixed")
    total = g.numpy("bqd->b", mixed, name="total")
    g.solve()
    arrays = {q: rng.standard_normal((2, 5, 4)), k: rng.standard_normal((2, 6, 4)),
              w: rng.standard_normal((2, 6, 4))}
    compiled = g.compile()
    buffers = dict(arrays)
    compiled.run(buffers)
    s = np.einsum("bqd,bkd->bqk", arrays[q], arrays[k])
    m = np.einsum("bqk,bkd->bqd", s, arrays[w])
    np.testing.assert_allclose(buffers[scores], s, rtol=1e-12)
    np.testing.assert_allclose(buffers[mixed], m, rtol=1e-12)
    np.testing.assert_allclose(buffers[total], m.sum(axis=(1, 2)), rtol=1e-12)


def test_a_numpy_step_of_another_computation(rng):
    """`accum`/`combine` other than numpy's sum of products: a max over products."""
    g = einrow.Graph()
    a, b = g.input("a", (3, 4)), g.input("b", (4, 5))
    c = g.numpy("ij,jk->ik", a, b)
    g.solve()
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((4, 5))
    got = g.plan(c, accum="max").compile().run(x, y)
    np.testing.assert_allclose(got, (x[:, :, None] * y[None]).max(axis=1), rtol=1e-12)
