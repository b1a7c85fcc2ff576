"""einrow.contract_expression against opt_einsum's: values on the conformance suite with
constants at every position, paths by name, by optimizer object and explicit, constants
evaluated once, other sizes of the same rank, pickling, deep copies and JSON; and einrow as
an opt_einsum backend (tensordot and transpose as numpy's)."""

import copy
import pickle

import numpy as np
import pytest

oe = pytest.importorskip("opt_einsum")

import einrow
from conftest import conformance_cases

CASES = [c for c in conformance_cases() if "error" not in c["expect"] and len(c["shapes"]) >= 2]


def operands(case, rng):
    return [rng.uniform(-1, 1, size=tuple(s)) for s in case["shapes"]]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_values_with_and_without_constants(case, rng):
    ops = operands(case, rng)
    spec, shapes = case["spec"], [o.shape for o in ops]
    want = np.einsum(spec, *ops)
    expr = einrow.contract_expression(spec, *shapes)
    assert expr.num_args == len(ops)
    np.testing.assert_allclose(expr(*ops), want, rtol=1e-9, atol=1e-12)
    for k in range(len(ops)):
        constants = [i for i in range(len(ops)) if i != k]
        args = [o if i in constants else o.shape for i, o in enumerate(ops)]
        expr = einrow.contract_expression(spec, *args, constants=constants)
        assert expr.num_args == 1
        np.testing.assert_allclose(expr(ops[k]), want, rtol=1e-9, atol=1e-12)
        again = pickle.loads(pickle.dumps(expr))
        np.testing.assert_allclose(again(ops[k]), want, rtol=1e-9, atol=1e-12)


def test_constants_are_evaluated_once_along_opt_einsums_rule(rng):
    """Steps of the path are run while they take only constants: with the constants first on
    the path, a call runs one product."""
    a, b, c = rng.random((3, 4)), rng.random((4, 5)), rng.random((5, 6))
    expr = einrow.contract_expression(
        "ij,jk,kl->il", a, (4, 5), c, constants=[0, 2], optimize=[(0, 2), (0, 1)]
    )
    assert expr.contraction == "[ij],jk,[kl]->il"
    assert repr(expr) == "<ContractExpression('[ij],jk,[kl]->il', constants=[0, 2])>"
    # The constants' outer product is done: what a call runs is one einsum of two operands.
    assert str(expr).endswith("einsum: jk,klij->il")
    np.testing.assert_allclose(expr(b), a @ b @ c)
    # The same as opt_einsum's expression with the same constants.
    want = oe.contract_expression("ij,jk,kl->il", a, (4, 5), c, constants=[0, 2])
    np.testing.assert_allclose(expr(b), want(b))


@pytest.mark.parametrize(
    "optimize",
    [True, None, "greedy", "optimal", "dp", "auto", "dynamic-programming", "branch-2",
     "auto-hq", "eager", [(1, 2), (0, 1), (0, 1)], ["einsum_path", (0, 1), (0, 1), (0, 1)]],
    ids=repr,
)
def test_paths(optimize, rng):
    spec, shapes = "ab,bc,cd,de->ae", [(3, 4), (4, 50), (50, 2), (2, 5)]
    ops = [rng.random(s) for s in shapes]
    expr = einrow.contract_expression(spec, *shapes, optimize=optimize)
    np.testing.assert_allclose(expr(*ops), np.einsum(spec, *ops), rtol=1e-12)
    if isinstance(optimize, str) and optimize not in ("auto", "dp", "dynamic-programming"):
        # A named strategy of both: the same path as opt_einsum's.
        want = oe.contract_path(spec, *shapes, shapes=True, optimize=optimize)[0]
        assert expr.path == [tuple(s) for s in want]


def test_a_path_optimizer_object_is_called_as_opt_einsum_calls_it(rng):
    calls = []

    class Recording(oe.paths.PathOptimizer):
        def __call__(self, inputs, output, size_dict, memory_limit=None):
            calls.append((inputs, output, dict(size_dict), memory_limit))
            return oe.paths.greedy(inputs, output, size_dict, memory_limit)

    spec, shapes = "...ab,bc,cd->...ad", [(2, 3, 4), (4, 5), (5, 6)]
    expr = einrow.contract_expression(spec, *shapes, optimize=Recording(), memory_limit=10**6)
    (inputs, output, sizes, limit), = calls
    assert [len(i) for i in inputs] == [3, 2, 2] and len(output) == 3 and limit == 10**6
    assert sorted(sizes.values()) == [2, 3, 4, 5, 6]
    ops = [rng.random(s) for s in shapes]
    np.testing.assert_allclose(expr(*ops), np.einsum(spec, *ops))
    random = oe.path_random.RandomGreedy(max_repeats=8)
    expr = einrow.contract_expression(spec, *shapes, optimize=random)
    np.testing.assert_allclose(expr(*ops), np.einsum(spec, *ops))


def test_refusals():
    with pytest.raises(einrow.BadValueError, match="optimized contractions"):
        einrow.contract_expression("ij,jk", (2, 3), (3, 4), optimize=False)
    with pytest.raises(KeyError):
        einrow.contract_expression("ij,jk,kl", (2, 3), (3, 4), (4, 2), optimize="fastest")
    with pytest.raises(einrow.BadValueError, match="memory_limit"):
        einrow.contract_expression("ij,jk", (2, 3), (3, 4), memory_limit=0)
    with pytest.raises(einrow.BoundsError):
        einrow.contract_expression("ij,jk", (2, 3), (3, 4), constants=[2])
    with pytest.raises(einrow.MismatchError):
        einrow.contract_expression("ij,jk", (2, 3), (4, 4))
    with pytest.raises(TypeError):
        einrow.contract_expression("ij,jk", (2, 3), "ab")
    expr = einrow.contract_expression("ij,jk", (2, 3), (3, 4))
    with pytest.raises(einrow.ArityError, match="exactly 2 array arguments"):
        expr(np.ones((2, 3)))
    with pytest.raises(ValueError):
        expr(np.ones((2, 3)), np.ones((3, 4)), backend="torch")


def test_other_sizes_of_the_same_rank_and_out(rng):
    expr = einrow.contract_expression("bij,bjk->bik", (4, 8, 8), (4, 8, 8))
    for b, n in [(4, 8), (2, 16), (1, 1)]:
        x, y = rng.random((b, n, n)), rng.random((b, n, n))
        np.testing.assert_allclose(expr(x, y), x @ y)
        out = np.empty((b, n, n))
        assert expr(x, y, out=out) is out
        np.testing.assert_allclose(out, x @ y)


def test_sublist_form_and_keywords(rng):
    a, b = rng.random((3, 4)), rng.random((4, 5))
    expr = einrow.contract_expression((3, 4), [0, 1], (4, 5), [1, 2], [2, 0])
    np.testing.assert_allclose(expr(a, b), (a @ b).T)
    expr = einrow.contract_expression("ij,jk->ik", (3, 4), (4, 5), dtype=np.float32,
                                      casting="same_kind", order="F")
    got = expr(a, b)
    assert got.dtype == np.float32 and got.flags.f_contiguous
    np.testing.assert_allclose(got, a @ b, rtol=1e-5)


def test_pickle_deepcopy_and_json_round_trips(rng):
    c32 = rng.random((4, 5)).astype(np.float32)
    expr = einrow.contract_expression("ij,jk,kl->il", (3, 4), c32, (5, 2), constants=[1],
                                      optimize="optimal", dtype=np.float64, order="C")
    a, d = rng.random((3, 4)), rng.random((5, 2))
    want = expr(a, d)
    for again in (pickle.loads(pickle.dumps(expr)), copy.deepcopy(expr), copy.copy(expr),
                  einrow.ContractExpression.from_json(expr.to_json())):
        assert isinstance(again, einrow.ContractExpression)
        assert again.path == expr.path and again.constants == [1]
        assert again.shapes == expr.shapes and again.contraction == expr.contraction
        np.testing.assert_array_equal(again(a, d), want)
    assert einrow.ContractExpression.from_json(expr.to_json()).to_json() == expr.to_json()
    with pytest.raises(einrow.SpecSyntaxError):
        einrow.ContractExpression.from_json("{}")


def test_einrow_is_an_opt_einsum_backend(rng):
    for case in CASES[:200]:
        ops = operands(case, rng)
        want = np.einsum(case["spec"], *ops)
        got = oe.contract(case["spec"], *ops, backend="einrow")
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    spec, shapes = "ab,bc,cd->ad", [(3, 4), (4, 5), (5, 6)]
    ops = [rng.random(s) for s in shapes]
    expr = oe.contract_expression(spec, *shapes)
    np.testing.assert_allclose(expr(*ops, backend="einrow"), np.einsum(spec, *ops))


@pytest.mark.parametrize(
    "sa,sb,axes",
    [((3, 4, 5), (4, 5, 6), 2), ((3, 4), (4, 5), 1), ((2, 3), (4, 5), 0),
     ((3, 4, 5), (5, 3, 2), ([0, 2], [1, 0])), ((3, 4), (4, 3), (1, 0)),
     ((3, 4, 5), (6, 5), (-1, -1)), ((3,), (3,), 1)],
)
def test_tensordot_is_numpys(sa, sb, axes, rng):
    a, b = rng.random(sa), rng.random(sb)
    want = np.tensordot(a, b, axes)
    got = einrow.tensordot(a, b, axes)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_tensordot_and_transpose_errors_and_views():
    with pytest.raises(ValueError, match="shape-mismatch"):
        einrow.tensordot(np.ones((2, 3)), np.ones((4, 5)), 1)
    with pytest.raises(ValueError, match="shape-mismatch"):
        einrow.tensordot(np.ones((2, 3)), np.ones((3, 5)), ([1, 0], [0]))
    a = np.arange(24.0).reshape(2, 3, 4)
    t = einrow.transpose(a, (2, 0, 1))
    assert np.shares_memory(t, a)
    np.testing.assert_array_equal(t, np.transpose(a, (2, 0, 1)))
    np.testing.assert_array_equal(einrow.transpose(a), a.T)
