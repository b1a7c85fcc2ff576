"""Compiled plans and compiled graphs run on every element type einsum takes: bool, int8,
uint8, int16, int32, int64, float16, bfloat16 (where ml_dtypes provides it), float32 and
float64. Each is computed as the crate computes it (narrower integers in int64 with the
result wrapped back, numpy's integer semantics; float16/bfloat16 in float32 with the result
rounded back) and checked against numpy."""

import numpy as np
import pytest

import einrow

INTS = [np.int8, np.uint8, np.int16, np.int32, np.int64]
FLOATS = [np.float16, np.float32, np.float64]


def bfloat16():
    return pytest.importorskip("ml_dtypes").bfloat16


def values(rng, shape, dtype):
    """Values of `dtype` that make integer sums of products wrap."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -(1 << 40)), min(info.max, 1 << 40), size=shape, dtype=dtype)
    return rng.uniform(-2, 2, size=shape).astype(dtype)


def expected(subscripts, *ops):
    """numpy's einsum in the crate's compute type, cast back to the operands' type."""
    dtype = ops[0].dtype
    if dtype.kind in "iu":
        return np.einsum(subscripts, *(o.astype(np.int64) for o in ops)).astype(dtype)
    if dtype.itemsize == 2 and dtype.kind != "i":  # float16, bfloat16
        return np.einsum(subscripts, *(o.astype(np.float32) for o in ops)).astype(dtype)
    return np.einsum(subscripts, *ops)


def check(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    else:
        tol = {2: 1e-2, 4: 1e-5, 8: 1e-12}[want.dtype.itemsize]
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol)


@pytest.fixture(scope="module")
def matmul():
    g = einrow.Graph()
    a = g.input("a", (5, 7))
    b = g.input("b", (7, 3))
    c = g.einsum("ij;jk=>ik", a, b)
    g.solve()
    return g, a, b, c


def all_dtypes():
    return [np.bool_, *INTS, *FLOATS, "bfloat16"]


def resolve(dtype):
    return bfloat16() if dtype == "bfloat16" else dtype


@pytest.mark.parametrize("dtype", all_dtypes(), ids=lambda d: np.dtype(d).name if d != "bfloat16" else d)
def test_executable_runs_every_dtype(matmul, rng, dtype):
    dtype = resolve(dtype)
    g, _, _, c = matmul
    exe = g.plan(c).compile()
    x, y = values(rng, (5, 7), dtype), values(rng, (7, 3), dtype)
    want = expected("ij,jk->ik", x, y)
    check(exe.run(x, y), want)
    # Strided operands read in place, a strided `out` written in place.
    xs = np.zeros((20, 16), dtype).T[::2, ::-1][:5, 3:10]
    xs[...] = x
    big = np.zeros((7, 6), dtype)
    big[:, ::2] = y
    out = np.zeros((3, 5), dtype).T
    assert exe.run(xs, big[:, ::2], out=out) is out
    check(out, want)
    # An `out` that is an operand: computed apart, then copied in.
    if dtype != np.bool_:
        m = einrow.Graph()
        p = m.input("p", (4,))
        r = m.pointwise(p, p)
        m.solve()
        add = m.plan(r, combine="+").compile()
        v = values(rng, (4,), dtype)
        wide = np.int64 if np.dtype(dtype).kind in "iu" else np.float64
        want_sum = (v.astype(wide) * 2).astype(dtype)
        assert add.run(v, v, out=v) is v
        check(v, want_sum)


@pytest.mark.parametrize("dtype", INTS)
def test_integer_reductions_wrap_and_use_their_accumulation(matmul, rng, dtype):
    g, _, _, c = matmul
    best = g.plan(c, accum="max", combine="+").compile()
    x, y = values(rng, (5, 7), dtype), values(rng, (7, 3), dtype)
    wide = (x.astype(np.int64)[:, :, None] + y.astype(np.int64)[None]).max(axis=1)
    check(best.run(x, y), wide.astype(dtype))


@pytest.mark.parametrize("dtype", all_dtypes(), ids=lambda d: np.dtype(d).name if d != "bfloat16" else d)
def test_compiled_graph_runs_every_dtype(rng, dtype):
    dtype = resolve(dtype)
    g = einrow.Graph()
    batch = g.row_var("batch")
    x = g.input("x", batch=(batch,), output=(6,))
    w = g.parameter("w", input=(...,), output=(4,))
    h = g.compose(w, x)
    s = g.einsum("...|o; ...|o => ...|", h, h)
    inst = g.solve_scheme(batch).instantiate({batch: (3,)})
    program = inst.compile()
    xs, ws = values(rng, (3, 6), dtype), values(rng, (4, 6), dtype)
    buffers = program.run({x: xs, w: ws})
    hs = expected("oi,bi->bo", ws, xs)
    check(buffers[h], hs)
    check(buffers[s], expected("bo,bo->b", hs, hs))


def test_einsum_and_plans_agree_on_bfloat16(rng):
    bf16 = bfloat16()
    a, b = values(rng, (3, 4), bf16), values(rng, (4, 2), bf16)
    check(einrow.einsum("ij,jk->ik", a, b), expected("ij,jk->ik", a, b))


def test_mixed_or_unsupported_dtypes_are_coded_type_errors(matmul):
    g, _, _, c = matmul
    exe = g.plan(c).compile()
    x, y = np.ones((5, 7)), np.ones((7, 3))
    for args in [(x, y.astype(np.float32)), (x.astype(np.int8), y.astype(np.uint8)),
                 (x.astype(np.complex64), y.astype(np.complex128)), (x, y.astype(np.complex128)),
                 (x.astype(object), y.astype(object))]:
        with pytest.raises(einrow.DTypeError) as info:
            exe.run(*args)
        assert info.value.code == "type"
        assert isinstance(info.value, TypeError) and isinstance(info.value, einrow.ShapeError)
    with pytest.raises(einrow.DTypeError):
        exe.run(x, y, out=np.zeros((5, 3), np.float32))
