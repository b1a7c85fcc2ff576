"""An `out` whose elements share memory (a stride 0, axes that interleave onto one element,
strides shorter than an element) is refused with `BadValueError` (code `value`) before
anything is computed or written, by `einrow.einsum` and by compiled plans alike: also where
the result would otherwise be computed apart and copied in (an `out` that overlaps an
operand, needs a cast, or is misaligned). Outputs whose interleaved axes stay disjoint are
written."""

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import einrow


def overlapping(buf, shape, strides):
    """A writeable view of `buf` with byte `strides`."""
    view = as_strided(buf, shape, strides)
    assert view.flags.writeable
    return view


@pytest.fixture(scope="module")
def matmul():
    g = einrow.Graph()
    a = g.input("a", (2, 3))
    b = g.input("b", (3, 2))
    c = g.einsum("ij;jk=>ik", a, b)
    g.solve()
    return g, a, b, c


def refused(call, *untouched):
    """`call` raises `BadValueError` (code `value`) and leaves each array as it was."""
    before = [u.copy() for u in untouched]
    with pytest.raises(einrow.BadValueError) as info:
        call()
    assert info.value.code == "value"
    assert "overlaps" in info.value.message
    for u, b in zip(untouched, before):
        np.testing.assert_array_equal(u, b)


def test_executable_refuses_an_out_whose_elements_meet(matmul):
    g, _, _, c = matmul
    exe = g.plan(c).compile()
    x, y = np.ones((2, 3)), np.ones((3, 2))
    buf = np.full(3, 7.0)
    # (0, 1) and (1, 0) are one element: 3 float64s seen as 2x2.
    refused(lambda: exe.run(x, y, out=overlapping(buf, (2, 2), (8, 8))), buf)
    zero = np.full(2, 7.0)
    refused(lambda: exe.run(x, y, out=overlapping(zero, (2, 2), (0, 8))), zero)


def test_executable_refuses_before_computing_apart(matmul):
    g, _, _, c = matmul
    exe = g.plan(c).compile()
    shared = np.ones(6)
    x, y = shared.reshape(2, 3), np.ones((3, 2))
    # Also overlapping an operand: the path that computes apart and copies in.
    refused(lambda: exe.run(x, y, out=overlapping(shared, (2, 2), (8, 8))), shared)
    raw = np.zeros(8 * 3 + 1, np.uint8)
    misaligned = np.frombuffer(raw.data, np.float64, 3, 1)
    refused(lambda: exe.run(x, y, out=overlapping(misaligned, (2, 2), (8, 8))), raw)
    # Strides shorter than an element: elements share bytes, not addresses.
    refused(lambda: exe.run(x, y, out=overlapping(misaligned, (2, 2), (4, 8))), raw)


def test_compiled_graph_refuses_an_overlapping_result_buffer(matmul):
    g, a, b, c = matmul
    program = g.compile()
    buf = np.full(3, 7.0)
    buffers = {a: np.ones((2, 3)), b: np.ones((3, 2)), c: overlapping(buf, (2, 2), (8, 8))}
    refused(lambda: program.run(buffers), buf)
    refused(lambda: program.run_step(c, np.ones((2, 3)), np.ones((3, 2)), out=overlapping(buf, (2, 2), (8, 8))), buf)


def test_einsum_refuses_an_out_whose_elements_meet():
    x, y = np.ones((2, 3)), np.ones((3, 2))
    buf = np.full(3, 7.0)
    refused(lambda: einrow.einsum("ij,jk->ik", x, y, out=overlapping(buf, (2, 2), (8, 8))), buf)
    refused(lambda: einrow.einsum("ij->i", np.ones((3, 4)), out=overlapping(buf, (3,), (0,))), buf)


def test_einsum_refuses_before_computing_apart():
    shared = np.ones(6)
    x, y = shared.reshape(2, 3), np.ones((3, 2))
    out = overlapping(shared, (2, 2), (8, 8))
    refused(lambda: einrow.einsum("ij,jk->ik", x, y, out=out), shared)
    # Computed in another type than `out`'s (float32 into float64, int8 through int64).
    buf = np.full(3, 7.0)
    f32 = np.ones((2, 3), np.float32), np.ones((3, 2), np.float32)
    refused(lambda: einrow.einsum("ij,jk->ik", *f32, out=overlapping(buf, (2, 2), (8, 8))), buf)
    small = np.full(3, 7, np.int8)
    i8 = np.ones((2, 3), np.int8), np.ones((3, 2), np.int8)
    refused(lambda: einrow.einsum("ij,jk->ik", *i8, out=overlapping(small, (2, 2), (1, 1))), small)
    raw = np.zeros(8 * 3 + 1, np.uint8)
    misaligned = np.frombuffer(raw.data, np.float64, 3, 1)
    refused(lambda: einrow.einsum("ij,jk->ik", x, y, out=overlapping(misaligned, (2, 2), (4, 8))), raw)


def test_disjoint_interleaved_outputs_are_written(matmul):
    g, _, _, c = matmul
    exe = g.plan(c).compile()
    rng = np.random.default_rng(4)
    x, y = rng.uniform(size=(2, 3)), rng.uniform(size=(3, 2))
    # Rows at elements 0 and 3, columns 2 apart: elements 0, 2, 3, 5 are all distinct.
    for run in (lambda o: exe.run(x, y, out=o), lambda o: einrow.einsum("ij,jk->ik", x, y, out=o)):
        buf = np.full(6, -1.0)
        out = overlapping(buf, (2, 2), (24, 16))
        run(out)
        np.testing.assert_allclose(out, x @ y, rtol=1e-12)
        assert buf[[1, 4]].tolist() == [-1.0, -1.0]
