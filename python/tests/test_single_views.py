"""A lone operand only permuted or diagonalised, with no `out`: numpy returns a view of it,
in its own type (whatever the type, the byte order, the alignment, and whatever `dtype=`
asks), writeable when the operand is; einrow returns the same view, so writes through the
result reach the operand. Named cases, every type, and a property over random subscripts."""

import numpy as np
import pytest

import einrow
from conftest import strided_like

COMPUTED = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32,
            np.float64, np.dtype(">f8"), np.complex64, np.complex128]
# Types einrow only views (numpy computes them; einrow refuses to).
VIEWED_ONLY = [np.dtype(np.clongdouble), np.dtype(object), np.dtype("<U3")]


def bfloat16():
    return pytest.importorskip("ml_dtypes").bfloat16


def filled(shape, dtype, rng):
    dtype = np.dtype(dtype)
    if dtype.kind == "U":
        return np.array([str(i) for i in range(int(np.prod(shape)))], dtype).reshape(shape)
    if dtype.kind == "O":
        return np.array(list(range(int(np.prod(shape)))), object).reshape(shape)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind == "c":
        parts = rng.integers(-100, 100, size=(2, *shape))
        return (parts[0] + 1j * parts[1]).astype(dtype)
    return rng.integers(-100, 100, size=shape).astype(dtype)


def same_view(got, want, operand):
    """The two results are the same view of `operand` (or the same copy)."""
    assert type(got) is type(want)
    if not isinstance(want, np.ndarray):
        assert got == want
        return
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.shares_memory(got, operand) == np.shares_memory(want, operand)
    if np.shares_memory(want, operand):
        assert got.strides == want.strides
        assert got.flags.writeable == want.flags.writeable
    np.testing.assert_array_equal(got, want)


def test_int32_diagonal_is_a_view_writes_reach_the_operand():
    a = np.zeros((3, 3), np.int32)
    einrow.einsum("ii->i", a)[:] = 1
    assert a.trace() == 3  # numpy's view does the same
    t = einrow.einsum("ij->ji", a)
    t[0, 1] = 5
    assert a[1, 0] == 5


@pytest.mark.parametrize("dtype", COMPUTED + VIEWED_ONLY + ["bfloat16"], ids=str)
@pytest.mark.parametrize("spec", ["ii->i", "ij->ji", "ij", "ji", "i...->...i", "...", "ij->ij"])
def test_views_in_every_type_are_numpys(dtype, spec, rng):
    dtype = bfloat16() if dtype == "bfloat16" else dtype
    a = filled((3, 3), dtype, rng)
    got, want = einrow.einsum(spec, a), np.einsum(spec, a)
    assert np.shares_memory(want, a)
    same_view(got, want, a)
    got[...] = a.flat[0] if a.dtype.kind not in "bO" else a.flat[1]
    assert np.shares_memory(got, a)


def test_dtype_argument_keeps_the_view_in_the_operands_type():
    a = np.arange(9, dtype=np.int32).reshape(3, 3)
    for dtype in (np.float64, np.int64, np.int8):  # numpy checks none of them for a view
        got, want = einrow.einsum("ii->i", a, dtype=dtype), np.einsum("ii->i", a, dtype=dtype)
        assert got.dtype == want.dtype == np.int32
        assert np.shares_memory(got, a) and np.shares_memory(want, a)
    with pytest.raises(TypeError):
        einrow.einsum("ii->i", a, dtype="not a type")


def test_views_of_unusual_layouts():
    rng = np.random.default_rng(1)
    raw = np.zeros(9 * 8 + 1, np.uint8)
    misaligned = np.frombuffer(raw.data, np.float64, 9, 1).reshape(3, 3)
    swapped = rng.uniform(size=(3, 3)).astype(">f8")
    read_only = rng.uniform(size=(3, 3))
    read_only.flags.writeable = False
    broadcast = np.broadcast_to(rng.uniform(size=(3, 1)), (3, 3))
    reversed_ = strided_like(rng.integers(0, 9, size=(3, 3)).astype(np.int16))
    for a in (misaligned, swapped, read_only, broadcast, reversed_):
        for spec in ("ij->ji", "ii->i"):
            same_view(einrow.einsum(spec, a), np.einsum(spec, a), a)
    assert not einrow.einsum("ii->i", read_only).flags.writeable


def test_zero_d_view_is_a_scalar_of_the_operands_type():
    for dtype in (np.int16, np.float16, np.uint8):
        z = np.array(3, dtype)
        for spec in ("", "...", "->"):
            got, want = einrow.einsum(spec, z), np.einsum(spec, z)
            assert type(got) is type(want) is np.dtype(dtype).type
            assert got == want


def test_sums_and_outs_are_not_views():
    a = np.arange(9, dtype=np.int32).reshape(3, 3)
    for spec in ("ij->i", "ii", "ij->"):
        got = einrow.einsum(spec, a)
        assert not np.shares_memory(got, a)
    out = np.zeros((3, 3), np.int32)
    assert einrow.einsum("ij->ji", a, out=out) is out
    assert not np.shares_memory(out, a)
    np.testing.assert_array_equal(out, a.T)


# --- property ---------------------------------------------------------------------------


def subscripts(draw, st):
    """A single-operand einsum: its term (labels with repeats, maybe `...`), the output (an
    order of its labels, or a subset, or implicit), and the operand's shape."""
    labels = draw(st.lists(st.sampled_from("abc"), min_size=0, max_size=4))
    ellipsis = draw(st.integers(-1, 2))  # -1: no `...`; else the axes it covers
    sizes = {c: draw(st.integers(1, 3)) for c in "abc"}
    term, shape = list(labels), [sizes[c] for c in labels]
    if ellipsis >= 0:
        at = draw(st.integers(0, len(term)))
        term.insert(at, "...")
        shape[at:at] = [draw(st.integers(1, 3)) for _ in range(ellipsis)]
    mode = draw(st.sampled_from(["permuted", "subset", "implicit"]))
    if mode == "implicit":
        return "".join(term), tuple(shape)
    unique = sorted(set(labels))
    out = draw(st.permutations(unique)) if mode == "permuted" else draw(st.lists(st.sampled_from(unique or ["a"]), unique=True))
    out = [c for c in out if c in unique]
    if ellipsis >= 0:
        out.insert(draw(st.integers(0, len(out))), "...")
    return "".join(term) + "->" + "".join(out), tuple(shape)


def only_permuted(spec):
    """Whether every label of the term is in the output (numpy's implicit output: the labels
    that appear once)."""
    term, _, out = spec.partition("->")
    letters = [c for c in term if c.isalpha()]
    if "->" not in spec:
        out = "".join(c for c in letters if letters.count(c) == 1)
    return set(letters) <= set(out)


def test_property_a_view_exactly_when_numpys_is_one():
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    types = COMPUTED + VIEWED_ONLY

    @hypothesis.settings(max_examples=400, deadline=None, derandomize=True)
    @hypothesis.given(data=st.data(), dtype=st.sampled_from(types), strided=st.booleans(),
                      seed=st.integers(0, 2**32 - 1))
    def check(data, dtype, strided, seed):
        spec, shape = subscripts(data.draw, st)
        a = filled(shape, dtype, np.random.default_rng(seed))
        if strided:
            a = strided_like(a)
        try:
            want = np.einsum(spec, a)
        except Exception as e:  # noqa: BLE001 - einrow must raise the same class
            with pytest.raises(type(e)):
                einrow.einsum(spec, a)
            return
        viewable = only_permuted(spec)
        if isinstance(want, np.ndarray):
            assert np.shares_memory(want, a) == viewable  # numpy's own rule
        if not viewable and np.dtype(dtype) in VIEWED_ONLY:
            with pytest.raises(TypeError):  # computed: einrow computes numbers only
                einrow.einsum(spec, a)
            return
        same_view(einrow.einsum(spec, a), want, a)

    check()
