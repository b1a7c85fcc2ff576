"""einsum(..., out=...): written in place (any strides), or computed apart and copied in when
`out` shares memory with an operand or is of a type the kernel does not compute in; bad
outputs raise (the types: test_out_types.py; overlapping elements: test_out_overlap.py)."""

import numpy as np
import pytest

import einrow
from conftest import assert_same


def test_out_is_written_and_returned(rng):
    a, b = rng.uniform(size=(3, 4)), rng.uniform(size=(4, 5))
    out = np.full((3, 5), np.nan)
    r = einrow.einsum("ij,jk->ik", a, b, out=out)
    assert r is out
    assert_same(out, a @ b)


def test_strided_out_touches_only_its_elements(rng):
    a, b = rng.uniform(size=(3, 4)), rng.uniform(size=(4, 5))
    buf = np.full((5, 6), -7.0)
    out = buf[::-1, ::2][:, :3].T  # 3x5, reversed and strided, transposed
    assert out.shape == (3, 5) and not out.flags.c_contiguous
    einrow.einsum("ij,jk->ik", a, b, out=out)
    assert_same(out, a @ b)
    untouched = np.ones(buf.shape, bool)
    untouched[::-1, ::2][:, :3] = False
    assert (buf[untouched] == -7.0).all()


def test_out_with_reduction_is_reset_first(rng):
    a = rng.uniform(size=(4, 6))
    out = np.full(4, 100.0)
    einrow.einsum("ij->i", a, out=out)
    assert_same(out, a.sum(axis=1))
    out = np.full((), 100.0)
    einrow.einsum("ij->", a, out=out)
    assert_same(out, np.asarray(a.sum()))


def test_out_aliasing_an_operand_gives_numpys_result(rng):
    a = rng.uniform(size=(4, 4))
    want = np.einsum("ij,jk->ik", a, a)
    einrow.einsum("ij,jk->ik", a, a, out=a)
    assert_same(a, want)
    b = rng.uniform(size=(4, 4))
    want = np.einsum("ij->ji", b.copy())
    einrow.einsum("ij->ji", b.copy(), out=b)
    assert_same(b, want)


def test_out_of_a_wider_type_widens_the_computation_like_numpy(rng):
    a = rng.uniform(size=(3, 4)).astype(np.float32)
    out, want = np.zeros(3, np.float64), np.zeros(3, np.float64)
    einrow.einsum("ij->i", a, out=out)
    np.einsum("ij->i", a, out=want)  # summed in float64, not a float32 sum cast
    assert_same(out, want)


def test_out_of_the_wrong_shape_is_a_mismatch(rng):
    a = rng.uniform(size=(3, 4))
    with pytest.raises(einrow.MismatchError) as info:
        einrow.einsum("ij,jk->ik", a, a.T, out=np.zeros((3, 4)))
    assert info.value.code == "mismatch"
    assert "[3, 3]" in str(info.value)
    strided = np.zeros((6, 8))[::2, ::2]
    with pytest.raises(einrow.ShapeError):
        einrow.einsum("ij,jk->ik", a, a.T, out=strided)


def test_out_of_a_narrower_type_is_a_type_error(rng):
    a = rng.uniform(size=(3, 4))
    with pytest.raises(TypeError):
        einrow.einsum("ij->i", a, out=np.zeros(3, np.float32))
    with pytest.raises(TypeError):
        einrow.einsum("ij->i", a, out=np.zeros(3, np.int64))
    objects = np.zeros(3, object)  # numpy casts float64 to objects safely; so does einrow
    einrow.einsum("ij->i", a, out=objects)
    assert list(objects) == list(a.sum(axis=1))


def test_out_that_is_not_an_array_or_read_only(rng):
    a = rng.uniform(size=(3, 4))
    with pytest.raises(TypeError):
        einrow.einsum("ij->i", a, out=[0.0, 0.0, 0.0])
    ro = np.zeros(3)
    ro.flags.writeable = False
    with pytest.raises(einrow.ShapeError) as info:
        einrow.einsum("ij->i", a, out=ro)
    assert info.value.code == "value"
    assert (ro == 0).all()


def test_misaligned_out_is_written(rng):
    a = rng.uniform(size=(3, 4))
    raw = np.zeros(3 * 8 + 1, np.uint8)
    out = np.frombuffer(raw.data, dtype=np.float64, count=3, offset=1)
    assert not out.flags.aligned and out.flags.writeable
    einrow.einsum("ij->i", a, out=out)
    assert_same(out, a.sum(axis=1))
