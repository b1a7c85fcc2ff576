"""Operands read in place: transposed, sliced, reversed, broadcast (stride 0) and misaligned
arrays give numpy's values, and no operand is copied (numpy's allocations are traced)."""

import tracemalloc

import numpy as np
import pytest

import einrow
from conftest import assert_same, strided_like

SPECS = [
    ("ij,jk->ik", [(5, 6), (6, 7)]),
    ("ij,jk", [(5, 6), (6, 7)]),
    ("bij,bjk->bik", [(3, 4, 5), (3, 5, 2)]),
    ("ii->i", [(5, 5)]),
    ("ii", [(5, 5)]),
    ("iji->j", [(3, 4, 3)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("i...,i...->...", [(3, 2, 2), (3, 1, 2)]),
    ("ij,ij->", [(7, 9), (7, 9)]),
    ("i,j->ij", [(4,), (5,)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("abc,bcd,de,ea->", [(2, 3, 4), (3, 4, 5), (5, 6), (6, 2)]),
    ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 6)]),
    (",ij->ij", [(), (2, 3)]),
]


def ops_of(shapes, rng, dtype=np.float64):
    return [rng.uniform(-1, 1, size=s).astype(dtype) for s in shapes]


@pytest.mark.parametrize("spec,shapes", SPECS, ids=[s for s, _ in SPECS])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_strided_views_match_numpy(spec, shapes, dtype, rng):
    ops = ops_of(shapes, rng, dtype)
    views = [strided_like(o) for o in ops]
    assert all(not v.flags.c_contiguous for v in views if v.size > 1 and v.ndim > 0)
    assert_same(einrow.einsum(spec, *views), np.einsum(spec, *ops))


def test_transposed_sliced_and_negative_strides(rng):
    a = rng.uniform(size=(8, 10))
    b = rng.uniform(size=(16, 9))
    pairs = [
        (a.T, b[:8, :]),  # 10x8 transposed, 8x9 sliced rows
        (a[::-1].T, b[11:3:-1, ::-1]),  # reversed rows, then reversed both ways
        (a[:, ::-2].T[::-1], b[::2, 1::2][:8]),  # 5x8 every other column, reversed
    ]
    for x, y in pairs:
        assert x.shape[1] == y.shape[0] == 8
        assert_same(einrow.einsum("ij,jk->ik", x, y), np.einsum("ij,jk->ik", x, y))


def test_broadcast_operands_stride_zero(rng):
    row = rng.uniform(size=5)
    m = np.broadcast_to(row, (4, 5))
    assert m.strides[0] == 0
    v = rng.uniform(size=5)
    assert_same(einrow.einsum("ij,j->i", m, v), np.einsum("ij,j->i", m, v))
    col = np.broadcast_to(rng.uniform(size=(4, 1)), (4, 5))
    assert_same(einrow.einsum("ij,ij->j", m, col), np.einsum("ij,ij->j", m, col))


def test_size_one_axes_broadcast_like_numpy(rng):
    a = rng.uniform(size=(3, 1))
    b = rng.uniform(size=(1, 4))
    assert_same(einrow.einsum("ij,ij->ij", a, b), np.einsum("ij,ij->ij", a, b))
    assert_same(einrow.einsum("...j,...j->...", a, b), np.einsum("...j,...j->...", a, b))


def test_empty_operands(rng):
    a = np.zeros((0, 3))
    b = rng.uniform(size=(3, 4))
    assert_same(einrow.einsum("ij,jk->ik", a, b), np.einsum("ij,jk->ik", a, b))
    assert_same(einrow.einsum("ij,jk->k", a, b), np.einsum("ij,jk->k", a, b))


def test_misaligned_and_byteswapped_operands_are_read_correctly(rng):
    a = rng.uniform(size=(4, 5))
    raw = np.zeros(a.nbytes + 1, np.uint8)
    misaligned = np.frombuffer(raw.data, dtype=np.float64, count=a.size, offset=1).reshape(4, 5)
    misaligned[...] = a
    assert not misaligned.flags.aligned
    swapped = a.astype(a.dtype.newbyteorder(">"))
    for x in (misaligned, swapped):
        assert_same(einrow.einsum("ij,kj->ik", x, a), np.einsum("ij,kj->ik", a, a))


def test_python_scalars_and_lists_are_arrays():
    assert_same(einrow.einsum("i,i", [1.0, 2.0], [3.0, 4.0]), np.float64(11.0))
    assert_same(einrow.einsum(",i->i", 2.0, np.ones(3)), np.full(3, 2.0))


def test_mixed_float_types_promote_like_numpy(rng):
    a = rng.uniform(size=(3, 4)).astype(np.float32)
    b = rng.uniform(size=(4,))
    assert_same(einrow.einsum("ij,j->i", a, b), np.einsum("ij,j->i", a, b))
    ints = np.arange(4)
    assert_same(einrow.einsum("ij,j->i", a, ints), np.einsum("ij,j->i", a, ints))


def test_dtype_argument(rng):
    a = rng.uniform(size=(3, 4)).astype(np.float32)
    assert_same(einrow.einsum("ij->i", a, dtype=np.float64), np.einsum("ij->i", a, dtype=np.float64))
    with pytest.raises(TypeError):
        einrow.einsum("ij->i", a.astype(np.float64), dtype=np.float32)
    with pytest.raises(TypeError):
        einrow.einsum("ij->i", a, dtype=np.int64)


def test_single_operand_without_sums_is_a_view_like_numpy(rng):
    a = rng.uniform(size=(4, 4))
    for spec in ("ij->ji", "ii->i", "ij->ij", "ij"):
        got, want = einrow.einsum(spec, a), np.einsum(spec, a)
        assert_same(got, want)
        assert np.shares_memory(got, a) == np.shares_memory(want, a)
        assert got.flags.writeable == want.flags.writeable
    d = einrow.einsum("ii->i", a)
    d[0] = 42.0
    assert a[0, 0] == 42.0


def test_scalar_results_are_numpy_scalars():
    r = einrow.einsum("i,i", np.ones(3), np.ones(3))
    assert isinstance(r, np.float64) and r == 3.0
    r = einrow.einsum("i->", np.ones(3, np.float32))
    assert isinstance(r, np.float32)


def traced_peak(f):
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        f()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_strided_operands_are_not_copied(rng):
    a = rng.uniform(size=(600, 600))
    b = rng.uniform(size=(600, 600))
    views = (a.T, b[::-1, ::-1])
    einrow.einsum("ij,ij->", *views)  # planned once, outside the measurement
    # A copy of one operand is 2.9 MB; the numbers below allow for interpreter noise only.
    assert traced_peak(lambda: einrow.einsum("ij,ij->", *views)) < 100_000
    result = 300 * 600 * 8
    peak = traced_peak(lambda: einrow.einsum("ij,jk->ik", a.T[::2], b[:, ::-1]))
    assert peak < result + 100_000
    c = np.empty((300, 600))
    peak = traced_peak(lambda: einrow.einsum("ij,jk->ik", a.T[::2], b[:, ::-1], out=c))
    assert peak < 100_000


def test_plans_are_reused_across_shapes(rng):
    for n in (2, 3, 2, 5, 3):
        a = rng.uniform(size=(n, n + 1))
        assert_same(einrow.einsum("ij,kj->ik", a, a), np.einsum("ij,kj->ik", a, a))
