"""The type an einsum computes in when `out=` or `dtype=` is given, as numpy decides it: the
common type of the operands and `out` (an `out` of a wider type widens the computation, it
is not a cast of a narrow result), or `dtype` when given; an `out` not safely cast to and
from that type is refused with numpy's `TypeError`. Checked on named cases, on every
combination of the types einrow computes in, and as a property over random einsums."""

import itertools

import numpy as np
import pytest

import einrow

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64]


def run_out(module, spec, *ops, out, **kw):
    module.einsum(spec, *ops, out=out, **kw)
    return out


def test_bool_operands_into_an_int64_out_are_counted():
    a = np.ones((2, 2), bool)
    got = run_out(einrow, "ij,jk->ik", a, a, out=np.zeros((2, 2), np.int64))
    want = run_out(np, "ij,jk->ik", a, a, out=np.zeros((2, 2), np.int64))
    assert want.tolist() == [[2, 2], [2, 2]]
    assert got.tolist() == want.tolist()
    halves = run_out(einrow, "ij,jk->ik", a, a, out=np.zeros((2, 2), np.float16))
    assert halves.tolist() == [[2.0, 2.0], [2.0, 2.0]]


def test_int64_operands_into_a_float64_out_do_not_wrap():
    x = np.array([2**40])
    got = run_out(einrow, "i,i->", x, x, out=np.zeros(()))
    want = run_out(np, "i,i->", x, x, out=np.zeros(()))
    assert want == 2.0**80
    assert got == want  # computed in int64 it wraps to 0.0


def test_float32_sum_into_a_float64_out_is_accumulated_in_float64():
    x = np.full(10**6, 0.1, np.float32)
    got = run_out(einrow, "i->", x, out=np.zeros(()))
    want = run_out(np, "i->", x, out=np.zeros(()))
    exact = float(np.float32(0.1)) * 10**6  # 100000.00149011612
    assert abs(want - exact) < 1e-6
    assert abs(got - exact) < 1e-6  # a float32 sum is 99999.9375 at best


def test_narrow_integers_into_a_wider_out_wrap_at_its_width():
    i8 = np.full(100, 100, np.int8)
    for out_type in (np.int16, np.int32, np.int64, np.float32):
        got = run_out(einrow, "i,i->", i8, i8, out=np.zeros((), out_type))
        want = run_out(np, "i,i->", i8, i8, out=np.zeros((), out_type))
        assert got == want, out_type
    assert run_out(einrow, "i,i->", i8, i8, out=np.zeros((), np.int16)) == 16960  # 10**6 mod 2**16
    u8, s8 = np.full(3, 200, np.uint8), np.full(3, 100, np.int8)  # common type int16
    assert run_out(einrow, "i,i->", u8, s8, out=np.zeros((), np.int16)) == -5536


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
def test_float16_products_into_a_float32_out_are_not_rounded_to_half():
    h = np.array([300.0, 300.0], np.float16)
    got = run_out(einrow, "i,i->", h, h, out=np.zeros((), np.float32))
    assert got == run_out(np, "i,i->", h, h, out=np.zeros((), np.float32)) == 180000.0
    assert np.isinf(einrow.einsum("i,i->", h, h))  # float16's own result overflows


def test_dtype_with_an_out_of_another_type_is_refused_like_numpy():
    i8 = np.full(100, 100, np.int8)
    f32 = np.full(10, 0.1, np.float32)
    for ops, out, dtype in [((i8,), np.zeros((), np.int64), np.int16),
                            ((f32,), np.zeros(()), np.float32),
                            ((f32,), np.zeros((), np.float32), np.float64)]:
        with pytest.raises(TypeError):
            np.einsum("i->", *ops, out=out, dtype=dtype)
        with pytest.raises(TypeError):
            einrow.einsum("i->", *ops, out=out, dtype=dtype)
        assert out == 0
    same = run_out(einrow, "i->", i8, out=np.zeros((), np.int16), dtype=np.int16)
    assert same == run_out(np, "i->", i8, out=np.zeros((), np.int16), dtype=np.int16) == 10000


def test_out_narrower_than_the_common_type_is_refused_like_numpy():
    i8 = np.ones(3, np.int8)
    for ops, out_type in [((i8,), np.uint8), ((i8.astype(np.int16),), np.int8),
                          ((np.ones(3),), np.float32), ((np.ones(3, np.int32),), np.float32),
                          ((i8.astype(np.uint8), i8), np.int8)]:
        spec = ",".join("i" for _ in ops) + "->"
        with pytest.raises(TypeError):
            np.einsum(spec, *ops, out=np.zeros((), out_type))
        with pytest.raises(TypeError):
            einrow.einsum(spec, *ops, out=np.zeros((), out_type))


def test_object_and_complex_outs_compute_as_numpy_or_are_refused():
    f32 = np.full(3, 0.1, np.float32)
    got = run_out(einrow, "i,i->", f32, f32, out=np.zeros((), object))
    want = run_out(np, "i,i->", f32, f32, out=np.zeros((), object))
    assert got[()] == want[()] == 0.03000000089406968  # Python's floats: float64 arithmetic
    flags = np.ones((2, 2), bool)
    counted = run_out(einrow, "ij,jk->ik", flags, flags, out=np.zeros((2, 2), object))
    assert counted.tolist() == run_out(np, "ij,jk->ik", flags, flags, out=np.zeros((2, 2), object)).tolist()
    x = np.array([2**40])
    with pytest.raises(TypeError):  # numpy's Python integers are unbounded: 2**80
        einrow.einsum("i,i->", x, x, out=np.zeros((), object))
    c = run_out(einrow, "i,i->", f32, f32, out=np.zeros((), np.complex128))
    assert c == run_out(np, "i,i->", f32, f32, out=np.zeros((), np.complex128))
    with pytest.raises(TypeError):  # numpy computes in float128: more than float64 holds
        einrow.einsum("i,i->", np.ones(3), np.ones(3), out=np.zeros((), np.longdouble))


# --- the rule over every combination ------------------------------------------------------


def values(dtype, shape, rng):
    """Values that tell the types apart: integer sums of products that wrap in the narrow
    types, bools whose sums exceed 1, floats not exact in float16 or float32."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.8
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -(2**40)), min(info.max, 2**40), size=shape, endpoint=True).astype(dtype)
    return rng.uniform(-4, 4, size=shape).astype(dtype)


TOLERANCE = {"f2": 2e-3, "f4": 1e-5, "f8": 1e-12}


def agree(got, want, scale):
    """Exact for integers and bools; for floats within the computed type's rounding of the
    sum of the terms' magnitudes (a computation in a narrower type is outside it)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if want.dtype.kind in "biu":
        return bool((got == want).all())
    tol = TOLERANCE[f"{want.dtype.kind}{want.dtype.itemsize}"]
    g, w = got.astype(np.float64), want.astype(np.float64)
    with np.errstate(invalid="ignore"):  # infinities of one sign are equal, not near
        return bool(((g == w) | (np.abs(g - w) <= tol * scale + 1e-300)).all())


def outcome(module, spec, ops, out_type, dtype):
    """The result (into a fresh `out` of `out_type` when given), or the exception's class."""
    shape = np.einsum(spec, *ops).shape
    out = None if out_type is None else np.zeros(shape, out_type)
    try:
        r = module.einsum(spec, *ops, out=out, dtype=dtype)
    except Exception as e:  # compared with numpy's class by the caller
        return type(e)
    return np.asarray(r)


def compare(spec, ops, out_type, dtype):
    """A description of how einrow departs from numpy, or None."""
    want = outcome(np, spec, ops, out_type, dtype)
    got = outcome(einrow, spec, ops, out_type, dtype)
    if isinstance(want, type):
        if isinstance(got, type) and issubclass(got, want):
            return None
        return f"numpy raised {want.__name__}, einrow gave {got!r}"
    if isinstance(got, type):
        return f"numpy gave {want!r}, einrow raised {got.__name__}"
    scale = np.einsum(spec, *[np.abs(o.astype(np.float64)) for o in ops])
    return None if agree(got, want, scale) else f"numpy {want!r} einrow {got!r}"


CASES = [("ij,jk->ik", [(3, 6), (6, 2)]), ("i,i->", [(1000,), (1000,)])]


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
@pytest.mark.parametrize("spec,shapes", CASES, ids=[s for s, _ in CASES])
def test_every_operand_out_and_dtype_combination_agrees_with_numpy(spec, shapes):
    rng = np.random.default_rng(7)
    failures = []
    for ta, tb in itertools.product(DTYPES, repeat=2):
        ops = [values(ta, shapes[0], rng), values(tb, shapes[1], rng)]
        for out_type, dtype in itertools.product([None, *DTYPES], [None, *DTYPES]):
            why = compare(spec, ops, out_type, dtype)
            if why:
                failures.append(f"{ops[0].dtype},{ops[1].dtype} out={out_type} dtype={dtype}: {why}")
    assert not failures, f"{len(failures)} departures, e.g.\n" + "\n".join(failures[:10])


SPECS = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 3)]),
    ("ii->", [(5, 5)]),
    ("ij->j", [(7, 3)]),
    ("i,j->ij", [(3,), (4,)]),
    ("...i,...i->...", [(2, 1, 6), (3, 6)]),
    ("ij,ij->", [(40, 30), (40, 30)]),
    ("i->", [(5000,)]),
]


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
def test_property_out_and_dtype_give_numpys_values_or_refusals():
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies

    @hypothesis.settings(max_examples=400, deadline=None, derandomize=True)
    @hypothesis.given(
        case=st.sampled_from(SPECS),
        types=st.lists(st.sampled_from(DTYPES), min_size=2, max_size=2),
        out_type=st.sampled_from([None, *DTYPES]),
        dtype=st.sampled_from([None, None, *DTYPES]),
        seed=st.integers(0, 2**32 - 1),
    )
    def check(case, types, out_type, dtype, seed):
        spec, shapes = case
        rng = np.random.default_rng(seed)
        ops = [values(t, s, rng) for t, s in zip(types, shapes)]
        why = compare(spec, ops, out_type, dtype)
        assert why is None, why

    check()
