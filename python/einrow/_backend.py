"""numpy's ``tensordot`` and ``transpose`` computed by einrow: with ``einsum``, what
opt_einsum asks of a backend module, so that ``opt_einsum.contract(..., backend="einrow")``
runs every step on einrow."""

import operator

import numpy as np

from . import einsum  # already imported by the package, from the native module


def _array(x):
    """``x`` as a numpy array, read in place where einsum reads it (numpy arrays, DLPack and
    ``__array__`` objects)."""
    if isinstance(x, np.ndarray):
        return x
    return np.asarray(einsum("...", x))


def _axis_list(axes):
    """numpy's reading of one side of ``tensordot``'s ``axes``: a sequence, or one axis."""
    try:
        return [operator.index(axes)]
    except TypeError:
        return [operator.index(k) for k in axes]


def tensordot(a, b, axes=2):
    """numpy's ``tensordot``: the sum of products over ``axes`` (the last ``axes`` of ``a``
    with the first of ``b``, or two sequences of axes), the free axes of ``a`` then of ``b``
    in the result. numpy's ``ValueError`` when the summed sizes differ."""
    a, b = _array(a), _array(b)
    try:
        n = operator.index(axes)
    except TypeError:
        axes_a, axes_b = axes
        axes_a, axes_b = _axis_list(axes_a), _axis_list(axes_b)
    else:
        axes_a, axes_b = list(range(a.ndim - n, a.ndim)), list(range(n))
    if len(axes_a) != len(axes_b):
        raise ValueError("shape-mismatch for sum")
    try:
        axes_a = [k + a.ndim if k < 0 else k for k in axes_a]
        axes_b = [k + b.ndim if k < 0 else k for k in axes_b]
        if any(a.shape[i] != b.shape[j] for i, j in zip(axes_a, axes_b)):
            raise ValueError("shape-mismatch for sum")
    except IndexError:
        raise ValueError("shape-mismatch for sum") from None
    labels_a = list(range(a.ndim))
    labels_b = list(range(a.ndim, a.ndim + b.ndim))
    for i, j in zip(axes_a, axes_b):
        labels_b[j] = labels_a[i]
    out = [l for k, l in enumerate(labels_a) if k not in axes_a]
    out += [l for k, l in enumerate(labels_b) if k not in axes_b]
    return np.asarray(einsum(a, labels_a, b, labels_b, out))


def transpose(a, axes=None):
    """numpy's ``transpose``: a view of ``a`` with its axes permuted (reversed when ``axes``
    is ``None``)."""
    return np.transpose(_array(a), axes)
