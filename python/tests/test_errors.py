"""Errors: ShapeError (a ValueError) and its subclass per code, with code, message, spans and
the rendered text; TypeError for arguments of the wrong type. Nothing crashes."""

import numpy as np
import pytest

import einrow

CODES = {
    "syntax": einrow.SpecSyntaxError,
    "arity": einrow.ArityError,
    "label": einrow.LabelError,
    "name": einrow.UnknownNameError,
    "mismatch": einrow.MismatchError,
    "rank": einrow.RankError,
    "cycle": einrow.CycleError,
    "unresolved": einrow.UnresolvedError,
    "elems": einrow.ElemsError,
    "bounds": einrow.BoundsError,
    "value": einrow.BadValueError,
    "unsupported": einrow.UnsupportedError,
    "resource": einrow.ResourceError,
}


def test_hierarchy():
    assert issubclass(einrow.ShapeError, ValueError)
    for cls in CODES.values():
        assert issubclass(cls, einrow.ShapeError)


def test_attributes_and_rendered_text():
    with pytest.raises(einrow.MismatchError) as info:
        einrow.einsum("ij,jk->ik", np.ones((2, 3)), np.ones((4, 5)))
    e = info.value
    assert e.code == "mismatch"
    assert e.source == "ij,jk->ik"
    assert e.span == (3, 4)  # the `j` of operand 1
    assert e.spans[0] == e.span
    assert e.message == "dimension mismatch: `j` is 3 in operand 0 but 4 in operand 1"
    assert str(e).startswith("error[mismatch]: ")
    assert "  | ij,jk->ik\n  |    ^" in str(e)


@pytest.mark.parametrize(
    "spec,shapes,code",
    [
        ("ij,jk->ik", [(2, 3)], "arity"),
        ("ij->ij", [(2, 3), (3,)], "arity"),
        ("ijk", [(2, 3)], "rank"),
        ("ij->iji", [(2, 3)], "label"),
        ("ij->k", [(2, 3)], "label"),
        ("i1", [(2,)], "syntax"),
        ("ij->j->i", [(2, 3)], "syntax"),
        ("...->", [(2, 3)], "label"),
        ("ii", [(2, 3)], "mismatch"),
        ("i,i", [(2,), (3,)], "mismatch"),
    ],
)
def test_einsum_errors_carry_codes(spec, shapes, code):
    ops = [np.ones(s) for s in shapes]
    with pytest.raises(CODES[code]) as info:
        einrow.einsum(spec, *ops)
    assert info.value.code == code
    with pytest.raises(ValueError):
        np.einsum(spec, *ops)


def test_wrong_argument_types_are_type_errors():
    a = np.ones((2, 2))
    with pytest.raises(TypeError):
        einrow.einsum(3, a)  # sublist form: `a` is not a list of labels
    with pytest.raises(TypeError):
        einrow.einsum(a, ["i", "j"])
    # Computed, not viewed (a lone operand only permuted is a view in any type, as numpy's).
    with pytest.raises(TypeError):
        einrow.einsum("ij->i", np.array([[object(), 1]], dtype=object))
    with pytest.raises(TypeError):
        einrow.einsum("i->", np.ones(2, np.clongdouble))
    with pytest.raises(TypeError):
        einrow.einsum("i->", np.array(["a", "b"]))
    with pytest.raises(TypeError):
        einrow.einsum("ij", a, unknown=1)
    with pytest.raises(TypeError):
        einrow.einsum("ij", a, optimize=3.5)
    with pytest.raises(TypeError):
        einrow.einsum("ij", a, optimize=["einsum_path", ("x",)])
    with pytest.raises(einrow.ArityError):
        einrow.einsum()
    with pytest.raises(einrow.ArityError):
        einrow.einsum("ij")
    with pytest.raises(einrow.RankError):  # a 0-d array of text: numpy's ValueError too
        einrow.einsum("ij", "not an array")
    with pytest.raises(TypeError):
        einrow.einsum(",", "not", "numbers")


def test_sublist_errors():
    a = np.ones((2, 2))
    with pytest.raises(einrow.BoundsError):
        einrow.einsum(a, [0, 52])
    with pytest.raises(einrow.SpecSyntaxError):
        einrow.einsum(a, [Ellipsis, 0, Ellipsis])
    with pytest.raises(einrow.MismatchError):
        einrow.einsum(a, [0, 1], np.ones(3), [1])


def test_bad_paths():
    a = np.ones((2, 2))
    with pytest.raises(einrow.ShapeError) as info:
        einrow.einsum("ij,jk,kl", a, a, a, optimize="fastest")
    assert info.value.code == "value"
    with pytest.raises(einrow.ShapeError):
        einrow.einsum("ij,jk,kl", a, a, a, optimize=["einsum_path", (0, 7)])
    with pytest.raises(einrow.ShapeError):
        einrow.einsum("ij,jk,kl", a, a, a, optimize=["einsum_path", (0, 1)])
    # A memory limit no intermediate fits is numpy's one step over every operand.
    got = einrow.einsum("ij,jk,kl", a, a, a, optimize=("greedy", 0))
    np.testing.assert_array_equal(got, np.einsum("ij,jk,kl", a, a, a, optimize=("greedy", 0)))


def test_huge_shapes_are_errors_not_crashes():
    big = np.lib.stride_tricks.as_strided(np.zeros(1), shape=(2**20, 2**20), strides=(0, 0))
    with pytest.raises((einrow.ShapeError, MemoryError)):
        einrow.einsum("ij,jk->ik", big, big)
