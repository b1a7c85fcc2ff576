"""Integer and bool einsums: int64 and bool arrays read in place, numpy's other integer types
computed in int64 and cast back; values exactly numpy's, wrapping included."""

import numpy as np
import pytest

import einrow
from conftest import conformance_cases, strided_like

CASES = [c for c in conformance_cases() if "inputs" in c and c.get("dtype") != "f32"]


def int_operands(case, dtype):
    shapes = [tuple(s) for s in case["shapes"]]
    return [np.array(v).astype(dtype).reshape(s) for v, s in zip(case["inputs"], shapes)]


def assert_exact(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    assert (got == want).all()


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int8, np.uint8])
def test_conformance_cases_in_integers(case, dtype):
    ops = int_operands(case, dtype)
    if "error" in case["expect"]:
        with pytest.raises(einrow.ShapeError):
            einrow.einsum(case["spec"], *ops)
        return
    want = np.einsum(case["spec"], *ops)
    assert_exact(einrow.einsum(case["spec"], *ops), want)
    assert_exact(einrow.einsum(case["spec"], *[strided_like(o) for o in ops]), want)


def test_wrapping_like_numpy():
    big = np.full(4, 2**62, np.int64)
    assert_exact(einrow.einsum("i,i->", big, np.full(4, 3, np.int64)), np.einsum("i,i->", big, np.full(4, 3, np.int64)))
    a = np.arange(-100, 100, 7, dtype=np.int8)
    assert_exact(einrow.einsum("i,j->ij", a, a), np.einsum("i,j->ij", a, a))
    assert_exact(einrow.einsum("i,i", a, a), np.einsum("i,i", a, a))
    u = np.arange(250, 256, dtype=np.uint8)
    assert_exact(einrow.einsum("i,i", u, u), np.einsum("i,i", u, u))
    w = np.arange(2**31 - 4, 2**31, dtype=np.int64).astype(np.int32)
    assert_exact(einrow.einsum("i,i->i", w, w), np.einsum("i,i->i", w, w))


def test_bools():
    rng = np.random.default_rng(3)
    a = rng.random((4, 5)) > 0.5
    b = rng.random((5, 3)) > 0.5
    for spec in ("ij,jk->ik", "ij->", "ij,ij->i", "ii->i"):
        ops = (a, b) if spec.count(",") and spec.startswith("ij,jk") else (a, a) if "," in spec else (a[:4, :4],)
        assert_exact(einrow.einsum(spec, *ops), np.einsum(spec, *ops))
    assert_exact(einrow.einsum("i->", np.zeros(0, bool)), np.einsum("i->", np.zeros(0, bool)))


def test_mixed_types_promote_like_numpy():
    i32 = np.arange(6, dtype=np.int32).reshape(2, 3)
    i64 = np.arange(3, dtype=np.int64)
    f32 = np.linspace(0, 1, 3, dtype=np.float32)
    flags = np.array([True, False, True])
    for ops in ((i32, i64), (i32, f32), (i32, flags), (i32.astype(np.uint8), i64)):
        want = np.einsum("ij,j->i", *ops)
        got = einrow.einsum("ij,j->i", *ops)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_integer_outputs_and_dtype_argument():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    out = np.zeros(3, np.int32)
    assert einrow.einsum("ij->i", a, out=out) is out
    assert_exact(out, np.einsum("ij->i", a))
    wide = np.zeros(3, np.int64)
    einrow.einsum("ij->i", a, out=wide)
    assert_exact(wide, np.einsum("ij->i", a).astype(np.int64))
    with pytest.raises(TypeError):
        einrow.einsum("ij->i", a, out=np.zeros(3, np.int16))
    assert_exact(einrow.einsum("ij->i", a, dtype=np.int64), np.einsum("ij->i", a, dtype=np.int64))
    assert_exact(einrow.einsum("ij->i", a, dtype=np.float64), np.einsum("ij->i", a, dtype=np.float64))


def test_int64_operands_are_not_copied():
    import tracemalloc

    a = np.arange(400 * 400, dtype=np.int64).reshape(400, 400)
    einrow.einsum("ij,ji->", a, a)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        einrow.einsum("ij,ji->", a.T, a[::-1])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100_000  # one copy would be 1.28 MB
