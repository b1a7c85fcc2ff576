"""Shared helpers of the einrow Python tests."""

import json
import pathlib

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def conformance_cases():
    """The public numpy einsum suite: one dict per case."""
    path = REPO / "tests" / "conformance" / "numpy-einsum.json"
    return json.loads(path.read_text())["cases"]


def operands_of(case, rng):
    """A case's operands: its own values when it has them, else seeded random values."""
    dtype = np.float32 if case.get("dtype") == "f32" else np.float64
    shapes = [tuple(s) for s in case["shapes"]]
    if "inputs" in case:
        return [np.array(v, dtype=dtype).reshape(s) for v, s in zip(case["inputs"], shapes)]
    return [rng.uniform(-1, 1, size=s).astype(dtype) for s in shapes]


def assert_same(got, want):
    """Values, shape and dtype equal up to the rounding of the dtype."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    tol = 1e-5 if want.dtype == np.float32 else 1e-9
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.fixture
def rng():
    return np.random.default_rng(20240611)


def strided_like(a):
    """An array equal to `a` whose elements are neither C- nor F-ordered: every axis reversed
    and strided by 2 in a buffer twice as large, stored transposed. No copy of it is
    contiguous, so reading it in place is the only way to avoid a copy."""
    a = np.asarray(a)
    if a.ndim == 0:
        return a
    big = np.zeros(tuple(2 * d for d in a.shape[::-1]), a.dtype).T
    view = big[tuple(slice(None, None, -2) for _ in a.shape)]
    view[...] = a
    return view
