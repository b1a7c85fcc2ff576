"""Five shape-rule bugs planted in a toy framework (``toyfw``), each hunted two ways with the
same seeds: einrow's kit (``einrow.strategies``: a near-valid program of the operation,
replayed through the framework) and a Hypothesis property with numpy as the oracle, written
as a user would without einrow. Both must find every bug; the kit in fewer examples. With no
bug planted, neither reports anything.

Run with ``-s`` to see the examples each took."""

import contextlib

import numpy as np
import pytest

pytest.importorskip("hypothesis")
import hypothesis.extra.numpy as hnp  # noqa: E402
from hypothesis import Phase, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import einrow.strategies as es  # noqa: E402
import toyfw  # noqa: E402

SEEDS = (1, 2, 3)
MAX_EXAMPLES = 1000


# --- the kit: one property per operation, the framework replayed as it is ----------------


def kit(ops):
    @given(es.near_valid(es.programs(ops=ops)))
    def prop(program):
        program.replay(toyfw, leaf=toyfw.tensor)

    return prop


# --- the baseline: Hypothesis with numpy as the oracle --------------------------------------

SHAPES = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)


def outcome(module, f, shapes):
    """f's result shape on zero arrays of `module`, or "error"."""
    make = np.zeros if module is np else toyfw.tensor
    try:
        return tuple(f(module, *[make(s) for s in shapes]).shape)
    except ValueError:
        return "error"


def same(f, *shapes):
    assert outcome(toyfw, f, shapes) == outcome(np, f, shapes), shapes


@st.composite
def einsum_args(draw):
    terms = draw(st.lists(st.text("ijk", max_size=3), min_size=1, max_size=2))
    out = draw(st.none() | st.text("ijk", max_size=3))
    sizes = draw(st.fixed_dictionaries({c: st.integers(0, 4) for c in "ijk"}))
    spec = ",".join(terms) + ("" if out is None else "->" + out)
    return spec, [tuple(sizes[c] for c in t) for t in terms]


@st.composite
def signed_perm(draw):
    shape = draw(SHAPES)
    perm = draw(st.permutations(range(len(shape))))
    return shape, tuple(p - len(shape) if draw(st.booleans()) else p for p in perm)


def base_add():
    @given(SHAPES, SHAPES, SHAPES)
    def prop(a, b, c):
        same(lambda m, x, y, z: m.add(m.add(x, y), z), a, b, c)

    return prop


def base_einsum():
    @given(einsum_args())
    def prop(args):
        same(lambda m, *xs: m.einsum(args[0], *xs), *args[1])

    return prop


def base_matmul():
    @given(hnp.mutually_broadcastable_shapes(signature=np.matmul.signature))
    def prop(shapes):
        same(lambda m, x, y: m.matmul(x, y), *shapes.input_shapes)

    return prop


def base_concat():
    @given(SHAPES, SHAPES, st.integers(-4, 4))
    def prop(a, b, axis):
        same(lambda m, x, y: m.concatenate([x, y], axis=axis), a, b)

    return prop


def base_transpose():
    @given(signed_perm())
    def prop(args):
        same(lambda m, x: m.transpose(x, axes=args[1]), args[0])

    return prop


# --- the hunt ----------------------------------------------------------------------------

BUGS = {
    "broadcast_derived": (["add"], base_add),
    "einsum_diagonal": (["einsum"], base_einsum),
    "matmul_leading_one": (["matmul"], base_matmul),
    "concat_ranks": (["concatenate"], base_concat),
    "permute_negative": (["transpose"], base_transpose),
}


@contextlib.contextmanager
def planted(*bugs):
    toyfw.BUGS.clear()
    toyfw.BUGS.update(bugs)
    try:
        yield
    finally:
        toyfw.BUGS.clear()


def examples_to_failure(prop, at_seed, max_examples=MAX_EXAMPLES):
    """How many examples `prop` draws until its first failure (None: it never fails)."""
    inner = prop.hypothesis.inner_test
    count, first = [0], [None]

    def counted(*args, **kwargs):
        count[0] += 1
        try:
            inner(*args, **kwargs)
        except AssertionError:
            if first[0] is None:
                first[0] = count[0]
            raise

    prop.hypothesis.inner_test = counted
    run = settings(max_examples=max_examples, database=None, deadline=None,
                   phases=[Phase.generate])(seed(at_seed)(prop))
    try:
        run()
    except AssertionError:
        pass
    finally:
        prop.hypothesis.inner_test = inner
    return first[0]


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_the_kit_finds_each_bug_in_fewer_examples(bug):
    ops, baseline = BUGS[bug]
    with planted(bug):
        counts = [(examples_to_failure(kit(ops), s), examples_to_failure(baseline(), s))
                  for s in SEEDS]
    print(f"\n{bug}: examples to the first failure (kit, hypothesis+numpy) per seed {SEEDS}:"
          f" {counts}")
    for k, b in counts:
        assert k is not None and b is not None, counts
    assert sum(k for k, _ in counts) < sum(b for _, b in counts), counts


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_nothing_is_reported_without_a_bug(bug):
    ops, baseline = BUGS[bug]
    with planted():
        for s in SEEDS:
            assert examples_to_failure(kit(ops), s, 300) is None
            assert examples_to_failure(baseline(), s, 300) is None


def test_every_operation_of_the_correct_framework_agrees():
    with planted():
        assert examples_to_failure(kit(None), 7, 500) is None


def test_each_bug_is_found_by_the_whole_program_property():
    """Not only per operation: programs of every operation find each bug too."""
    for bug in BUGS:
        with planted(bug):
            assert examples_to_failure(kit(None), 11, 3000) is not None, bug



# Bugs the kit was not built around, each with the operation a user would test.
MORE = {
    "zero_broadcast": ["add"], "implicit_order": ["einsum"], "ellipsis_last": ["einsum"],
    "vector_matmul": ["matmul"], "concat_flat": ["concatenate"], "stack_negative": ["stack"],
    "expand_negative": ["expand_dims"], "keepdims_negative": ["sum"], "squeeze_any": ["squeeze"],
    "reshape_zero": ["reshape"], "sum_tuple": ["sum"],
}


@pytest.mark.parametrize("bug", toyfw.MORE_BUGS)
def test_bugs_of_other_kinds_are_found(bug):
    with planted(bug):
        counts = [examples_to_failure(kit(MORE[bug]), s, 1000) for s in SEEDS]
    print(f"\n{bug}: examples to the first failure per seed {SEEDS}: {counts}")
    assert None not in counts
