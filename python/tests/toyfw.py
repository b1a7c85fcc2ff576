"""A toy framework whose shape rules are written from numpy's documentation, with five
realistic bugs that can be planted (``BUGS``):

- ``broadcast_derived``: ``add`` skips its broadcast check when an operand came from an
  earlier operation (a cached "already validated" flag), taking the larger size per axis;
- ``einsum_diagonal``: ``einsum`` drops an output label that is repeated in an input term
  (it takes every repeated label for a contracted one);
- ``matmul_leading_one``: ``matmul`` strips a leading 1 from the result's batch axes;
- ``concat_ranks``: ``concatenate`` of operands of different ranks does not fail: it adds the
  size of each operand's own axis (normalized against that operand's rank);
- ``permute_negative``: ``transpose`` reads a negative axis one off (``-1`` as ``n - 2``).

More bugs, of other kinds, show that the kit is not tuned to those five (``MORE_BUGS``):
``zero_broadcast`` (1 against 0 gives 1), ``implicit_order`` (the implicit einsum output in
alphabetical rather than ASCII order), ``ellipsis_last`` (an explicit output's ``...`` put
last), ``vector_matmul`` (a 1-D second operand's axis kept), ``concat_flat`` (``axis=None``
concatenates along axis 0), ``stack_negative`` (a negative ``stack`` axis counted in the
operand's axes), ``expand_negative`` (the same for ``expand_dims``), ``keepdims_negative``
(``keepdims`` ignored for negative axes), ``squeeze_any`` (``squeeze`` of an axis whose size
is not 1 passes), ``reshape_zero`` (``-1`` beside a size-0 axis taken as 0), ``sum_tuple``
(a repeated ``axis`` entry accepted).

Tensors carry only a shape and whether an operation made them. Errors are ``ValueError``."""

MORE_BUGS = (
    "zero_broadcast", "implicit_order", "ellipsis_last", "vector_matmul", "concat_flat",
    "stack_negative", "expand_negative", "keepdims_negative", "squeeze_any", "reshape_zero",
    "sum_tuple",
)

import builtins
from math import prod

BUGS: set = set()


class Tensor:
    def __init__(self, shape, derived=False):
        self.shape = tuple(shape)
        self.derived = derived

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        return f"Tensor{self.shape}"


def tensor(shape, dtype="float64"):
    return Tensor(shape)


def _out(shape):
    return Tensor(shape, derived=True)


def _axis(a, n):
    if not -n <= a < n:
        raise ValueError(f"axis {a} out of bounds for {n} axes")
    return a % n


def _broadcast(shapes, check=True):
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for s in shapes:
        for i, d in enumerate(s, n - len(s)):
            if out[i] == 1:
                out[i] = 1 if d == 0 and "zero_broadcast" in BUGS else d
            elif d != 1 and d != out[i]:
                if check:
                    raise ValueError(f"cannot broadcast {shapes}")
                out[i] = max(out[i], d)
    return tuple(out)


def add(a, b):
    skip = "broadcast_derived" in BUGS and (a.derived or b.derived)
    return _out(_broadcast([a.shape, b.shape], check=not skip))


def matmul(a, b):
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul of a 0-d operand")
    sa = (1,) + a.shape if a.ndim == 1 else a.shape
    sb = b.shape + (1,) if b.ndim == 1 else b.shape
    if sa[-1] != sb[-2]:
        raise ValueError(f"matmul core mismatch {a.shape} {b.shape}")
    batch = _broadcast([sa[:-2], sb[:-2]])
    if "matmul_leading_one" in BUGS and batch[:1] == (1,):
        batch = batch[1:]
    keep_b = b.ndim != 1 or "vector_matmul" in BUGS
    core = (() if a.ndim == 1 else (sa[-2],)) + ((sb[-1],) if keep_b else ())
    return _out(batch + core)


def _term(term, shape, sizes, diag_ok):
    """Matches one einsum term to a shape: each letter's size, the ellipsis part."""
    head, dots, tail = term.partition("...")
    if not dots:
        head, tail = term, ""
    if len(shape) < len(head) + len(tail) or (not dots and len(shape) != len(head)):
        raise ValueError(f"term {term} does not fit {shape}")
    ell = shape[len(head):len(shape) - len(tail)]
    own = {}
    for c, d in list(zip(head, shape)) + list(zip(tail, shape[len(shape) - len(tail):])):
        if not c.isalpha():
            raise ValueError(f"bad label {c}")
        if c in own and own[c] != d:
            raise ValueError(f"diagonal {c} of sizes {own[c]} and {d}")
        own[c] = d
        if sizes.get(c, 1) == 1:
            sizes[c] = d
        elif d != 1 and d != sizes[c]:
            raise ValueError(f"label {c}: {sizes[c]} against {d}")
    return ell, bool(dots)


def einsum(subscripts, *ops):
    lhs, arrow, out = subscripts.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ops):
        raise ValueError("einsum operand count")
    sizes, ells = {}, []
    for t, x in zip(terms, ops):
        ells.append(_term(t, x.shape, sizes, True)[0])
    ell = _broadcast(ells)
    letters = "".join(terms).replace(".", "")
    if not arrow:
        key = str.lower if "implicit_order" in BUGS else None
        once = sorted((c for c in set(letters) if letters.count(c) == 1), key=key)
        return _out(ell + tuple(sizes[c] for c in once))
    if ell and "..." not in out:
        raise ValueError("output without ... while operands broadcast")
    head, _, tail = out.partition("...")
    keep = head + tail
    if len(set(keep)) != len(keep) or any(c not in sizes for c in keep):
        raise ValueError(f"bad output {out}")
    if "einsum_diagonal" in BUGS:
        repeated = {c for t in terms for c in t if c.isalpha() and t.count(c) > 1}
        head = "".join(c for c in head if c not in repeated)
        tail = "".join(c for c in tail if c not in repeated)
    mid = ell if "..." in out else ()
    if "ellipsis_last" in BUGS:
        head, tail = head + tail, ""
    return _out(tuple(sizes[c] for c in head) + mid + tuple(sizes[c] for c in tail))


def concatenate(xs, axis=0):
    if not xs:
        raise ValueError("nothing to concatenate")
    if axis is None and "concat_flat" not in BUGS:
        return _out((builtins.sum(prod(x.shape) for x in xs),))
    axis = 0 if axis is None else axis
    first = xs[0]
    if first.ndim == 0:
        raise ValueError("0-d concatenation")
    ax = _axis(axis, first.ndim)
    out = list(first.shape)
    for x in xs[1:]:
        if x.ndim != first.ndim:
            if "concat_ranks" not in BUGS:
                raise ValueError("ranks differ")
            out[ax] += x.shape[_axis(axis, x.ndim)]
            continue
        if any(d != e for i, (d, e) in enumerate(zip(x.shape, first.shape)) if i != ax):
            raise ValueError("sizes differ off the axis")
        out[ax] += x.shape[ax]
    return _out(out)


def stack(xs, axis=0):
    if not xs or any(x.shape != xs[0].shape for x in xs):
        raise ValueError("stack needs equal shapes")
    out = list(xs[0].shape)
    n = len(out) if "stack_negative" in BUGS and axis < 0 else len(out) + 1
    out.insert(_axis(axis, n), len(xs))
    return _out(out)


def transpose(a, axes=None):
    n = a.ndim
    if axes is None:
        return _out(a.shape[::-1])
    if len(axes) != n:
        raise ValueError("axes don't match")
    if "permute_negative" in BUGS:
        axes = [x if x >= 0 else x + n - 1 for x in axes]
    norm = [_axis(x, n) for x in axes]
    if len(set(norm)) != n:
        raise ValueError("repeated axis")
    return _out(tuple(a.shape[i] for i in norm))


def sum(a, axis=None, keepdims=False):  # noqa: A001 - numpy's name
    n = a.ndim
    if axis is None:
        chosen = set(range(n))
    else:
        items = axis if isinstance(axis, tuple) else (axis,)
        if "keepdims_negative" in BUGS and any(x < 0 for x in items):
            keepdims = False
        norm = [_axis(x, n) for x in items]
        if len(set(norm)) != len(norm) and "sum_tuple" not in BUGS:
            raise ValueError("duplicate axis")
        chosen = set(norm)
    return _out(tuple(1 if i in chosen else d for i, d in enumerate(a.shape)
                      if keepdims or i not in chosen))


def expand_dims(a, axis):
    out = list(a.shape)
    n = len(out) if "expand_negative" in BUGS and axis < 0 else len(out) + 1
    out.insert(_axis(axis, n), 1)
    return _out(out)


def squeeze(a, axis=None):
    if axis is None:
        return _out(tuple(d for d in a.shape if d != 1))
    ax = _axis(axis, a.ndim)
    if a.shape[ax] != 1 and "squeeze_any" not in BUGS:
        raise ValueError("squeeze of a size other than 1")
    return _out(a.shape[:ax] + a.shape[ax + 1:])


def reshape(a, shape):
    total, shape = prod(a.shape), tuple(shape)
    if shape.count(-1) > 1 or any(d < -1 for d in shape):
        raise ValueError("bad target")
    known = prod(d for d in shape if d != -1)
    if -1 in shape:
        if known == 0 and "reshape_zero" in BUGS:
            return _out(tuple(0 if d == -1 else d for d in shape))
        if known == 0 or total % known:
            raise ValueError("cannot infer -1")
        shape = tuple(total // known if d == -1 else d for d in shape)
    elif known != total:
        raise ValueError("element counts differ")
    return _out(shape)
