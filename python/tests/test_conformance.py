"""einrow.einsum against numpy.einsum on every case of the public numpy einsum suite:
values and shapes, and errors (each case's code, and numpy raising too)."""

import numpy as np
import pytest

import einrow
from conftest import assert_same, conformance_cases, operands_of, strided_like

CASES = conformance_cases()


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(case, rng):
    ops = operands_of(case, rng)
    expect = case["expect"]
    if "error" in expect:
        with pytest.raises(einrow.ShapeError) as info:
            einrow.einsum(case["spec"], *ops)
        assert info.value.code == expect["error"]
        with pytest.raises(ValueError):
            np.einsum(case["spec"], *ops)
        return
    got = einrow.einsum(case["spec"], *ops)
    assert np.shape(got) == tuple(expect["shape"])
    want = np.einsum(case["spec"], *ops)
    assert_same(got, want)
    if "values" in expect:
        np.testing.assert_allclose(np.ravel(got), expect["values"], rtol=1e-5)


@pytest.mark.parametrize(
    "case", [c for c in CASES if "error" not in c["expect"]], ids=lambda c: c["id"]
)
def test_case_planned(case, rng):
    """Along a planned path (numpy's optimize=True): the same values as numpy's."""
    ops = operands_of(case, rng)
    for optimize in (True, "optimal"):
        try:
            want = np.einsum(case["spec"], *ops, optimize=optimize)
        except ValueError:
            continue
        assert_same(einrow.einsum(case["spec"], *ops, optimize=optimize), want)
    assert_same(einrow.einsum(case["spec"], *ops, optimize="dp"), np.einsum(case["spec"], *ops))


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case_strided_operands(case, rng):
    """The same cases on operands read through reversed, strided, transposed views."""
    ops = operands_of(case, rng)
    views = [strided_like(o) for o in ops]
    if "error" in case["expect"]:
        with pytest.raises(einrow.ShapeError) as info:
            einrow.einsum(case["spec"], *views)
        assert info.value.code == case["expect"]["error"]
        return
    assert_same(einrow.einsum(case["spec"], *views), np.einsum(case["spec"], *ops))
