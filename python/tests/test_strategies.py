"""einrow.strategies: the cases are what they say (numpy itself, replayed as a framework,
agrees with every verdict, valid or not), every feature is drawn, Hypothesis shrinks them, and
saved programs replay."""

import doctest
import warnings

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, Phase, find, given, settings  # noqa: E402

import einrow.strategies as es  # noqa: E402

# numpy itself is the framework: every verdict must be what numpy does.
CHECK = settings(max_examples=300, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.too_slow])


def numpy_dtype(t):
    return str(t.dtype)


@CHECK
@given(es.programs())
def test_numpy_agrees_with_every_verdict_of_valid_programs(program):
    assert all(step.error is None for step in program.steps), program
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program.replay(dtype=numpy_dtype)


@CHECK
@given(es.near_valid(es.programs()))
def test_numpy_agrees_with_every_verdict_of_near_valid_programs(program):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program.replay(dtype=numpy_dtype)


@CHECK
@given(es.near_valid(es.programs(ops=["concatenate", "stack", "transpose", "sum",
                                       "expand_dims", "squeeze"])))
def test_axis_errors_are_bounds_errors(program):
    """numpy raises its AxisError exactly where einrow's code is `bounds`."""
    step = program.steps[-1]
    made = {i: np.zeros(s, d) for i, (s, d) in program.leaves.items()}
    for st in program.steps[:-1]:
        made[st.index] = st.call(getattr(np, st.op), [made[a] for a in st.args])
    try:
        step.call(getattr(np, step.op), [made[a] for a in step.args])
    except np.exceptions.AxisError:
        assert step.error == "bounds", program
    except ValueError:
        assert step.error not in (None, "bounds"), program
    else:
        assert step.error is None, program


@CHECK
@given(es.einsum_cases(max_operands=6))
def test_einsum_cases_are_numpys(case):
    got = np.einsum(case.subscripts, *case.operands())
    assert (np.shape(got), np.result_type(got).name) == (case.result, case.dtype)


def _numpy_takes_first_zero_as_unset(case):
    """numpy's einsum reads a repeated label's first size 0 in an operand as "not seen yet"
    (`ij...j` over (3, 0, 3) takes j = 3, and (3, 3, 0) is an error): einrow refuses both."""
    inputs = case.subscripts.split("->")[0].split(",")
    for term, shape in zip(inputs, case.shapes):
        if "..." in term:
            head, tail = term.split("...")
            labels = list(head) + [None] * (len(shape) - len(head) - len(tail)) + list(tail)
        else:
            labels = list(term)
        first = {}
        for label, size in zip(labels, shape):
            if label is None:
                continue
            if first.get(label) == 0 and size != 0:
                return True
            first.setdefault(label, size)
    return False


@CHECK
@given(es.near_valid(es.einsum_cases()))
def test_near_valid_einsum_cases(case):
    try:
        got = np.einsum(case.subscripts, *case.operands())
    except ValueError:
        assert case.error is not None, case
    else:
        if case.error == "mismatch" and _numpy_takes_first_zero_as_unset(case):
            return
        assert case.error is None and np.shape(got) == case.result, case


def test_numpy_quirk_is_recognised():
    """The exception above is numpy's behaviour, recognised only where it applies."""
    assert np.einsum("ij...j->...ij", np.zeros((3, 0, 3))).shape == (3, 3)
    with pytest.raises(ValueError):
        np.einsum("ij...j->...ij", np.zeros((3, 3, 0)))

    class Case:
        subscripts, shapes = "ij...j->...ij", [(3, 0, 3)]

    assert _numpy_takes_first_zero_as_unset(Case)
    Case.shapes = [(3, 3, 0)]
    assert not _numpy_takes_first_zero_as_unset(Case)


@CHECK
@given(es.broadcastable_shapes(3))
def test_broadcastable_shapes(case):
    assert np.broadcast_shapes(*case.shapes) == case.result


@CHECK
@given(es.near_valid(es.broadcastable_shapes(2)))
def test_near_valid_broadcasts(case):
    try:
        got = np.broadcast_shapes(*case.shapes)
    except ValueError:
        assert case.error == "mismatch", case
    else:
        assert case.error is None and got == case.result, case


@CHECK
@given(es.broadcastable_shapes(signature="..b..ij,..b..jk"))
def test_row_variables_broadcast_as_matmul_batches(case):
    a, b = (np.zeros(s) for s in case.shapes)
    got = np.matmul(a, b).shape
    assert got == case.rows["b"] + (case.letters["i"], case.letters["k"])


def test_every_feature_is_drawn():
    seen = set()

    @settings(max_examples=400, database=None, deadline=None, derandomize=True)
    @given(es.near_valid(es.programs()))
    def collect(program):
        for step in program.steps:
            seen.add(step.op)
            seen.add(step.error or "ok")
            seen.update(d for d in step.dtypes if d)
            if any(s and 0 in s for s in step.shapes):
                seen.add("size 0")
            if step.op == "concatenate" and len({len(s) for s in step.shapes if s}) > 1:
                seen.add("mixed ranks")
            if any(isinstance(v, int) and v < 0 for v in step.params.values()):
                seen.add("negative axis")

    collect()
    want = set(es.OPS) | set(es.DTYPES) | {"ok", "mismatch", "rank", "bounds", "value", "elems",
                                           "label", "size 0", "mixed ranks", "negative axis"}
    assert want - seen == set()


def test_hypothesis_shrinks_to_a_minimal_case():
    program = find(
        es.near_valid(es.programs(ops=["concatenate"])),
        lambda p: any(s.error == "rank" for s in p.steps),
        settings=settings(database=None, max_examples=500, phases=list(Phase)),
    )
    # The simplest program (one step) and its mutated copy: the simplest shape, (2, 3), and
    # the same with an axis more or less.
    assert len(program.steps) == 2 and program.mutated == program.steps[-1].index, program
    shapes = program.steps[-1].shapes
    assert (2, 3) in shapes and sum(len(s) for s in shapes) <= 5, program


def test_saved_programs_replay():
    program = find(es.programs(), lambda p: len(p.steps) >= 3,
                   settings=settings(database=None, max_examples=200))
    again = es.Program.from_json(program.to_json())
    assert again.text == program.text
    assert again.replay() == len(program.steps)


def test_replay_reports_the_first_disagreement():
    program = es.Program.from_json(
        '{"values": [{"shape": [2, 3], "dtype": "float64"}, {"shape": [3], "dtype": "float64"},'
        ' {"op": "concatenate", "axis": 0, "args": [0, 1]}]}'
    )

    class Lenient:
        """numpy, except a concatenation that never checks ranks."""

        @staticmethod
        def concatenate(xs, axis):
            return np.zeros((sum(x.shape[0] for x in xs),))

    with pytest.raises(es.Disagreement) as info:
        program.replay(Lenient)
    assert info.value.expected.error == "rank"
    assert "einrow says Verdict(error='rank'" in str(info.value)


def test_module_docs_run():
    failures, tried = doctest.testmod(es, optionflags=doctest.ELLIPSIS)
    assert tried > 8 and failures == 0
