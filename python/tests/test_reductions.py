"""Reductions as the kernel runs them, through the Python API: a reduction over an axis of
size 0 still sets every result element (0 for a sum, -inf for a max, ...) in a caller's
`out` that held other values, and a long float32 sum adds its partial sums pairwise (closer
to the exact sum than numpy's)."""

import numpy as np
import pytest

import einrow

FLOATS = [np.float64, np.float32, np.float16]


def empty_matmul():
    """A graph multiplying (2, 0) by (0, 3): its contraction axis has size 0."""
    g = einrow.Graph()
    a = g.input("a", (2, 0))
    b = g.input("b", (0, 3))
    c = g.einsum("ij;jk=>ik", a, b)
    g.solve()
    return g, a, b, c


@pytest.mark.parametrize("dtype", FLOATS + [np.int64, np.int32, np.bool_], ids=lambda d: np.dtype(d).name)
def test_einsum_over_an_empty_axis_overwrites_out(dtype):
    a, b = np.zeros((2, 0), dtype), np.zeros((0, 3), dtype)
    out = np.full((2, 3), 7, dtype)
    assert einrow.einsum("ij,jk->ik", a, b, out=out) is out
    want = np.einsum("ij,jk->ik", a, b, out=np.full((2, 3), 7, dtype))
    np.testing.assert_array_equal(out, want)
    assert not out.any()
    strided = np.full((4, 6), 7, dtype)[::2, ::2]
    einrow.einsum("ij,jk->ik", a, b, out=strided)
    assert not strided.any()


def test_einsum_sum_over_an_empty_batch_overwrites_out():
    out = np.full((2, 3), 7.0)
    einrow.einsum("bij->ij", np.zeros((0, 2, 3)), out=out)
    np.testing.assert_array_equal(out, np.zeros((2, 3)))
    total = np.full((), 7.0)
    einrow.einsum("b,b->", np.zeros(0), np.zeros(0), out=total)
    assert total == 0.0


# Each accumulation's value over nothing.
IDENTITY = {"+": 0.0, "*": 1.0, "max": -np.inf, "min": np.inf}


@pytest.mark.parametrize("accum", list(IDENTITY))
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_compiled_reduction_over_an_empty_axis_overwrites_out(accum, dtype):
    g, _, _, c = empty_matmul()
    exe = g.plan(c, accum=accum, combine="*" if accum == "+" else "+").compile()
    a, b = np.zeros((2, 0), dtype), np.zeros((0, 3), dtype)
    out = np.full((2, 3), 7, dtype)
    assert exe.run(a, b, out=out) is out
    np.testing.assert_array_equal(out, np.full((2, 3), IDENTITY[accum], dtype))
    np.testing.assert_array_equal(exe.run(a, b), out)


def test_compiled_int64_max_and_min_over_an_empty_axis_are_the_extremes():
    g, _, _, c = empty_matmul()
    a, b = np.zeros((2, 0), np.int64), np.zeros((0, 3), np.int64)
    info = np.iinfo(np.int64)
    for accum, want in (("max", info.min), ("min", info.max), ("+", 0)):
        out = np.full((2, 3), 7, np.int64)
        g.plan(c, accum=accum, combine="+").compile().run(a, b, out=out)
        assert (out == want).all(), accum


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32])
def test_compiled_narrow_integer_extremes_over_an_empty_axis_are_their_own(dtype):
    g, _, _, c = empty_matmul()
    info = np.iinfo(dtype)
    for accum, want in (("max", info.min), ("min", info.max)):
        out = np.full((2, 3), 7, dtype)
        plan = g.plan(c, accum=accum, combine="+").compile()
        plan.run(np.zeros((2, 0), dtype), np.zeros((0, 3), dtype), out=out)
        assert (out == want).all(), (accum, out)


def test_compiled_graph_over_an_empty_axis_overwrites_its_buffers():
    g, a, b, c = empty_matmul()
    buffers = {a: np.zeros((2, 0)), b: np.zeros((0, 3)), c: np.full((2, 3), 7.0)}
    g.compile().run(buffers)
    np.testing.assert_array_equal(buffers[c], np.zeros((2, 3)))


def test_compiled_sum_over_an_empty_batch_overwrites_its_buffer():
    g = einrow.Graph()
    batch = g.row_var("batch")
    x = g.input("x", batch=(batch,), output=(4,))
    total = g.permute("...|d => |d", x)
    inst = g.solve_scheme(batch).instantiate({batch: (0,)})
    assert inst.shape(x) == (0, 4)
    buffers = {x: np.zeros((0, 4)), total: np.full(4, 7.0)}
    inst.compile().run(buffers)
    np.testing.assert_array_equal(buffers[total], np.zeros(4))


EXACT = float(np.float32(0.1)) * 10**7  # 1000000.0149011612: the float32 values' exact sum


def test_long_float32_sum_is_within_a_millionth_of_the_exact_sum():
    x = np.full(10**7, 0.1, np.float32)
    got = einrow.einsum("i->", x)
    assert isinstance(got, np.float32)
    assert abs(float(got) - EXACT) / EXACT < 1e-6
    # numpy's own pairwise sum here: 999988.56, about 1.1e-5 away.
    g = einrow.Graph()
    v = g.input("v", (10**7,))
    s = g.permute("d => ", v)
    g.solve()
    compiled = g.plan(s).compile().run(x)
    assert compiled.dtype == np.float32
    assert abs(float(compiled) - EXACT) / EXACT < 1e-6
