"""numpy einsum's keywords and values, each against numpy itself: `order` (the result's
layout, `K` following the operands as numpy's iterator does), `casting` (which conversions
are allowed, and the values of the allowed ones), `optimize` in every form numpy accepts,
bytes subscripts, and numpy's error classes where numpy refuses."""

import itertools

import numpy as np
import pytest

import einrow
from conftest import conformance_cases

CASES = [c for c in conformance_cases() if "error" not in c["expect"]]


def outcome(fn, *args, **kwargs):
    """The result of a call, or the class of what it raised."""
    try:
        return fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the class itself is compared
        return e


def assert_same_outcome(got, want):
    """Both raised numpy's class, or both gave the same type and values."""
    if isinstance(want, Exception):
        assert isinstance(got, Exception), f"numpy raised {want!r}, einrow gave {got!r}"
        for cls in (KeyError, TypeError, ValueError, OverflowError, RuntimeError):
            if isinstance(want, cls):
                assert isinstance(got, cls), f"numpy raised {want!r}, einrow {got!r}"
        return
    assert not isinstance(got, Exception), f"einrow raised {got!r}, numpy gave {want!r}"
    assert type(got) is type(want)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def layouts(a, rng):
    """`a` in several memory layouts: C, Fortran, a transposed copy viewed back, reversed,
    strided."""
    a = np.asarray(a)
    yield a
    if a.ndim == 0:
        return
    yield np.asfortranarray(a)
    if a.ndim >= 2:
        perm = rng.permutation(a.ndim)
        yield np.ascontiguousarray(a.transpose(perm)).transpose(np.argsort(perm))
    yield a[::-1]
    big = np.zeros(tuple(2 * d for d in a.shape), a.dtype)
    view = big[tuple(slice(None, None, 2) for _ in a.shape)]
    view[...] = a
    yield view


@pytest.mark.parametrize("order", ["C", "F", "A", "K", "c", "k", None])
def test_result_layout_is_numpys(order, rng):
    """For every conformance case and several operand layouts, the fresh result has numpy's
    strides for each order (numpy's default `K` follows the operands)."""
    checked = 0
    for case in CASES:
        shapes = [tuple(s) for s in case["shapes"]]
        ops = [rng.uniform(-1, 1, size=s) for s in shapes]
        combos = itertools.islice(itertools.product(*(list(layouts(o, rng)) for o in ops)), 12)
        for combo in combos:
            want = np.einsum(case["spec"], *combo, order=order)
            got = einrow.einsum(case["spec"], *combo, order=order)
            if np.ndim(want) == 0:
                continue
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
            assert got.strides == want.strides, (case["spec"], [c.strides for c in combo])
            checked += 1
    assert checked > 500


def test_order_is_checked_as_numpy_checks_it():
    a = np.ones((2, 3))
    for bad in ["W", "", "CF", "d"]:
        assert_same_outcome(
            outcome(einrow.einsum, "ij->i", a, order=bad),
            outcome(np.einsum, "ij->i", a, order=bad),
        )
        with pytest.raises(einrow.BadValueError):
            einrow.einsum("ij->i", a, order=bad)
    with pytest.raises(TypeError, match="order must be str"):
        einrow.einsum("ij->i", a, order=3)


def test_a_lone_operand_stays_a_view_whatever_the_order():
    a = np.ones((2, 3))
    for order in "CFAK":
        v = einrow.einsum("ij->ji", a, order=order)
        assert np.shares_memory(v, a)
        assert v.strides == np.einsum("ij->ji", a, order=order).strides


TYPES = [np.bool_, np.int8, np.int32, np.int64, np.float16, np.float32, np.float64]
CASTINGS = ["no", "equiv", "safe", "same_kind", "unsafe"]


@pytest.mark.parametrize("casting", CASTINGS)
def test_casting_matches_numpy(casting):
    """Every pair of operand types, with and without `dtype`, with and without `out`:
    numpy's result (type and values, narrowing conversions included) or numpy's error."""
    values = np.array([0.5, 1.5, 2.75, -1.25, 3.0])
    dtypes = [None, np.int32, np.float16, np.float32, np.float64, np.bool_]
    compared = 0
    for ta, tb in itertools.product(TYPES, repeat=2):
        a, b = values.astype(ta), values[::-1].astype(tb)
        for dtype in dtypes:
            for out_type in [None, np.float32, np.float64, np.int64]:
                kw = {"casting": casting, "dtype": dtype}
                want_out = None if out_type is None else np.zeros(5, out_type)
                got_out = None if out_type is None else np.zeros(5, out_type)
                want = outcome(np.einsum, "i,i->i", a, b, out=want_out, **kw)
                got = outcome(einrow.einsum, "i,i->i", a, b, out=got_out, **kw)
                assert_same_outcome(got, want)
                compared += 1
            assert_same_outcome(
                outcome(einrow.einsum, "i,i", a, b, casting=casting, dtype=dtype),
                outcome(np.einsum, "i,i", a, b, casting=casting, dtype=dtype),
            )
    assert compared == len(TYPES) ** 2 * len(dtypes) * 4


def test_casting_rejects_what_numpy_rejects():
    a = np.ones(3)
    with pytest.raises(einrow.BadValueError, match="casting must be one of"):
        einrow.einsum("i->", a, casting="same_value")
    with pytest.raises(TypeError, match="casting must be str"):
        einrow.einsum("i->", a, casting=1)
    with pytest.raises(TypeError, match="rule 'no'"):
        einrow.einsum("i,i", a.astype(np.float32), a, casting="no")
    # A narrowing conversion is numpy's: float64 operands rounded to float16 first.
    x = np.array([1.0 + 2**-11 + 2**-30, 3.0])
    got = einrow.einsum("i,i->i", x, x, dtype=np.float16, casting="same_kind")
    want = np.einsum("i,i->i", x, x, dtype=np.float16, casting="same_kind")
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, want)


CHAIN = ("ij,jk,kl->il", np.ones((2, 3)), np.ones((3, 4)), np.ones((4, 2)))


@pytest.mark.parametrize(
    "optimize",
    [
        False,
        True,
        None,
        "greedy",
        "optimal",
        ("greedy", 0),
        ("greedy", -3),
        ("optimal", 2.9),
        ["greedy", 10**30],
        ("greedy", True),
        ("greedy", np.float64(12.0)),
        ("einsum_path", (0, 1), (0, 1)),
        ["einsum_path", (1, 2), (0, 1)],
        "fast",
        ("fast", 5),
        ("greedy", np.int64(5)),
        ("greedy", float("nan")),
        ("greedy", float("inf")),
        (b"greedy", 5),
        b"greedy",
        [],
        [(0, 1), (0, 1)],
        np.True_,
        1,
    ],
    ids=repr,
)
def test_optimize_values_are_numpys(optimize):
    """Each value numpy accepts gives numpy's values; each it refuses, numpy's class."""
    assert_same_outcome(
        outcome(einrow.einsum, *CHAIN, optimize=optimize),
        outcome(np.einsum, *CHAIN, optimize=optimize),
    )


def test_any_strategy_name_where_numpy_plans_nothing():
    """numpy takes any name for one or two operands, or when no label is summed."""
    a = np.arange(6.0).reshape(2, 3)
    for spec, ops in [("ij->j", (a,)), ("ij,jk->ik", (a, a.T)), ("i,j,k->ijk", (a[0], a[1], a[0]))]:
        want = np.einsum(spec, *ops, optimize="fast")
        np.testing.assert_allclose(einrow.einsum(spec, *ops, optimize="fast"), want)


def test_an_unknown_strategy_is_a_key_error_and_a_coded_one():
    with pytest.raises(KeyError) as info:
        einrow.einsum(*CHAIN, optimize="fast")
    err = info.value
    assert isinstance(err, einrow.UnknownStrategyError)
    assert isinstance(err, einrow.BadValueError)
    assert err.code == "value"
    # The message is the rendered text (not a quoted KeyError key), and what it suggests
    # works.
    assert str(err).startswith("error[value]: unknown optimize strategy `fast`")
    for suggested in ["greedy", "optimal", "dp", "auto", True, ["einsum_path", (0, 1), (0, 1)]]:
        np.testing.assert_allclose(einrow.einsum(*CHAIN, optimize=suggested), np.einsum(*CHAIN))
    with pytest.raises(KeyError):
        einrow.einsum_path(*CHAIN, optimize="fast")


def test_optimal_past_sixteen_operands_says_so_and_suggests_dp():
    n = 18
    spec = ",".join("ab"[i % 2] + "ab"[(i + 1) % 2] for i in range(n))
    ops = [np.full((2, 2), 0.5)] * n
    with pytest.raises(einrow.UnsupportedError) as info:
        einrow.einsum(spec, *ops, optimize="optimal")
    assert "at most 16 operands" in str(info.value) and "use dp" in str(info.value)
    np.testing.assert_allclose(einrow.einsum(spec, *ops, optimize="auto"), np.einsum(spec, *ops))


def test_bytes_subscripts():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(einrow.einsum(b"ij,jk->ik", a, b), np.einsum(b"ij,jk->ik", a, b))
    with pytest.raises(einrow.SpecSyntaxError):
        einrow.einsum(b"i\xff->i", a[0])
    path, _ = einrow.einsum_path(b"ij,jk->ik", a, b)
    assert path == ["einsum_path", (0, 1)]


def test_two_arrows_on_two_operands_is_an_arity_error():
    """numpy reads one term per operand first: `->,->` on two operands is about arity."""
    with pytest.raises(ValueError, match="fewer operands"):
        np.einsum("->,->", 1.0, 1.0)
    with pytest.raises(einrow.ArityError):
        einrow.einsum("->,->", 1.0, 1.0)
    with pytest.raises(einrow.SpecSyntaxError):
        einrow.einsum("->,->", 1.0)


@pytest.mark.parametrize(
    "x",
    [np.array(3.0), np.array(3), np.array(True), np.array(3, np.int8), np.array(1 + 2j),
     np.array(3.0, ">f8"), 3.0, np.float32(2), np.array(None, object), np.array(5, "m8[s]")],
    ids=repr,
)
@pytest.mark.parametrize("spec", ["->", "", "...->...", "..."])
def test_a_zero_d_result_is_numpys_scalar(x, spec):
    got, want = einrow.einsum(spec, x), np.einsum(spec, x)
    assert type(got) is type(want)
    assert got == want


def test_keywords_all_at_once():
    a = np.arange(6.0).reshape(2, 3)
    got = einrow.einsum("ij->", a, dtype=None, order=None, casting="safe", optimize=None)
    assert got == np.einsum("ij->", a, dtype=None, order=None, casting="safe", optimize=None)
    with pytest.raises(TypeError):
        einrow.einsum("ij->", a, bad_arg=0)


def test_a_path_that_leaves_operands_is_numpys_runtime_error():
    """An explicit path whose steps stop before one result remains: numpy's RuntimeError,
    einrow's arity code."""
    spec, *ops = CHAIN
    short = ["einsum_path", (0, 1)]
    with pytest.raises(RuntimeError):
        np.einsum(spec, *ops, optimize=short)
    with pytest.raises(einrow.IncompletePathError) as info:
        einrow.einsum(spec, *ops, optimize=short)
    assert isinstance(info.value, RuntimeError) and isinstance(info.value, einrow.ArityError)
    assert info.value.code == "arity" and "uncontracted" in str(info.value)
