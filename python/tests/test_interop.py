"""Arrays of other libraries: objects offering only DLPack, or `__array__`, are read in place
(torch and jax CPU tensors where installed), results come back as numpy arrays; duck arrays
overriding `__array_function__` get numpy's dispatch, as with `numpy.einsum`."""

import numpy as np
import pytest

import einrow


class DLPackOnly:
    """An array offering DLPack alone (no `__array__`): what a GPU-first library's CPU
    tensor may be."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, **kwargs):
        return self._a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


class ArrayOnly:
    """An object offering `__array__` alone."""

    def __init__(self, a):
        self._a = a

    def __array__(self, dtype=None, copy=None):
        return self._a


def test_dlpack_only_objects_are_read_in_place(rng):
    base = rng.random((3, 4))
    view = einrow.einsum("ij->ji", DLPackOnly(base))
    assert isinstance(view, np.ndarray) and np.shares_memory(view, base)
    b = rng.random((4, 5))
    np.testing.assert_allclose(einrow.einsum("ij,jk->ik", DLPackOnly(base), DLPackOnly(b)), base @ b)
    assert einrow.einsum_path("ij,jk->ik", DLPackOnly(base), b)[0] == ["einsum_path", (0, 1)]
    expr = einrow.contract_expression("ij,jk->ik", (3, 4), (4, 5))
    np.testing.assert_allclose(expr(DLPackOnly(base), DLPackOnly(b)), base @ b)


def test_array_objects_are_read_in_place(rng):
    base = rng.random((3, 4))
    view = einrow.einsum("ij->ji", ArrayOnly(base))
    assert np.shares_memory(view, base)


class Duck:
    """A duck array overriding `__array_function__`: numpy's functions on it come here."""

    def __init__(self, a):
        self.a = a

    def __array_function__(self, func, types, args, kwargs):
        return ("duck", func.__name__, len(args), sorted(kwargs))


def test_duck_arrays_are_dispatched_as_numpy_dispatches_them():
    a = np.ones((2, 2))
    got = einrow.einsum("ij,jk->ik", Duck(a), a, optimize="greedy")
    assert got == np.einsum("ij,jk->ik", Duck(a), a, optimize="greedy")
    assert got == ("duck", "einsum", 3, ["optimize"])
    assert einrow.einsum("ij->i", a, out=Duck(a)) == ("duck", "einsum", 2, ["out"])
    assert einrow.einsum_path("ij,jk", Duck(a), a)[0] == "duck"
    # ndarray subclasses that do not override it are computed by einrow.
    m = np.ones((2, 2)).view(np.ma.MaskedArray).data.view(type("Sub", (np.ndarray,), {}))
    np.testing.assert_allclose(einrow.einsum("ij->", m), 4.0)


def test_jax_arrays():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    x = jnp.arange(12.0, dtype=jnp.float32).reshape(3, 4)
    y = jnp.ones((4, 2), dtype=jnp.float32)
    got = einrow.einsum("ij,jk->ik", x, y)
    assert isinstance(got, np.ndarray) and got.dtype == np.float32
    np.testing.assert_allclose(got, np.asarray(x) @ np.asarray(y))
    # Read in place: the view einrow returns is jax's own buffer.
    view = einrow.einsum("ij->ji", x)
    assert view.__array_interface__["data"][0] == x.unsafe_buffer_pointer()


def test_torch_tensors():
    torch = pytest.importorskip("torch")
    t = torch.arange(12.0).reshape(3, 4)
    view = einrow.einsum("ij->ji", t)
    assert isinstance(view, np.ndarray)
    assert view.__array_interface__["data"][0] == t.data_ptr()
    u = torch.ones(4, 5, dtype=torch.float64)
    np.testing.assert_allclose(einrow.einsum("ij,jk->ik", t.double(), u), t.double().numpy() @ u.numpy())
    # A transposed tensor is read through its strides, not copied.
    np.testing.assert_allclose(einrow.einsum("ij->i", t.T), t.T.numpy().sum(axis=1))
    # A tensor seen through DLPack alone.
    base = torch.arange(6.0).reshape(2, 3)
    v = einrow.einsum("ij->ji", DLPackOnly(base))
    assert v.__array_interface__["data"][0] == base.data_ptr()
