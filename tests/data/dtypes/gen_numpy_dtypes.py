#!/usr/bin/env python3
"""Writes numpy_dtypes.json: numpy's type promotion and einsum results for einrow's element types.

- "pairs": for every ordered pair of numpy's bool, int8, uint8, int16, int32, int64, float16,
  float32 and float64, `numpy.result_type` of the two, checked to be the dtype of
  `numpy.einsum("i,i->i", a, b)`, with the values of `einsum("i,i->", a, b)` and
  `einsum("i,i->i", a, b)` on fixed operands (PAIR_VALUES cast to each type, so narrow
  integer sums wrap).
- "triples": `numpy.result_type` of every ordered triple (numpy's n-ary promotion is not the
  pairwise one folded: int8, uint8, float16 gives float16).
- "bfloat16": ml_dtypes' `result_type` of bfloat16 with each type (null where ml_dtypes
  refuses to promote).
- "einsum": cases whose values overflow narrow integer types or round in float16: each with
  its subscripts, operands (dtype, shape, row-major values) and numpy's result (dtype, shape,
  values). float16 cases reduce along the operands' contiguous innermost axis, where numpy
  accumulates the whole sum in float32 before rounding once (the script checks that premise).

Values are JSON numbers (integers exact), booleans, or the strings "inf", "-inf", "nan".
The Rust tests (tests/dtypes.rs) read the JSON; nothing here runs at test time.

Usage: python3 tests/data/dtypes/gen_numpy_dtypes.py   (needs numpy and ml_dtypes)
"""

import itertools
import json
import math
import os

import ml_dtypes
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "float32", "float64"]
PAIR_VALUES = ([100, 120, 3], [3, 2, 1])


def encode(x):
    """One value as JSON: bools and integers exact, floats as numbers or inf/nan strings."""
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def values(a):
    return [encode(x) for x in np.asarray(a).reshape(-1).tolist()]


def operand(dtype, shape, vals):
    a = np.array(vals).astype(dtype).reshape(shape)
    return a, {"dtype": dtype, "shape": list(shape), "values": values(a)}


def pairs():
    out = []
    for a, b in itertools.product(TYPES, repeat=2):
        x = np.array(PAIR_VALUES[0]).astype(a)
        y = np.array(PAIR_VALUES[1]).astype(b)
        r = np.result_type(np.dtype(a), np.dtype(b))
        with np.errstate(over="ignore"):
            dot = np.einsum("i,i->", x, y)
            prod = np.einsum("i,i->i", x, y)
        assert prod.dtype == r and dot.dtype == r, (a, b, r, prod.dtype)
        out.append({"a": a, "b": b, "result": r.name, "dot": values(dot), "product": values(prod)})
    return out


def triples():
    return [
        {"types": list(t), "result": np.result_type(*[np.dtype(x) for x in t]).name}
        for t in itertools.product(TYPES, repeat=3)
    ]


def bfloat16_rows():
    bf = np.dtype(ml_dtypes.bfloat16)
    rows = []
    for t in TYPES + ["bfloat16"]:
        other = bf if t == "bfloat16" else np.dtype(t)
        try:
            r = np.result_type(bf, other)
            name = "bfloat16" if r == bf else r.name
        except TypeError:
            name = None
        rows.append({"other": t, "result": name})
    return {"ml_dtypes": ml_dtypes.__version__, "rows": rows}


def case(name, spec, *ops, reduce_inner_f16=False):
    """One einsum case: `ops` are (dtype, shape, values) triples."""
    arrays, described = [], []
    for dtype, shape, vals in ops:
        a, d = operand(dtype, shape, vals)
        arrays.append(a)
        described.append(d)
    with np.errstate(over="ignore", invalid="ignore"):
        r = np.einsum(spec, *arrays)
    if reduce_inner_f16:
        # The premise of the float16 cases: numpy's result is the float32 sum rounded once.
        with np.errstate(over="ignore"):
            once = np.einsum(spec, *[a.astype(np.float32) for a in arrays]).astype(np.float16)
        assert np.array_equal(once, r, equal_nan=True), (name, once, r)
    r = np.asarray(r)
    return {
        "name": name,
        "spec": spec,
        "operands": described,
        "result": {"dtype": r.dtype.name, "shape": list(r.shape), "values": values(r)},
    }


def einsum_cases():
    rng = np.random.default_rng(7)
    ints = lambda lo, hi, n: rng.integers(lo, hi, n).tolist()
    bools = lambda n: (rng.random(n) < 0.3).tolist()
    tenth = [0.1] * 10
    return [
        case("uint8 200*2 wraps", "i,i->i", ("uint8", [3], [200, 100, 255]), ("uint8", [3], [2, 3, 255])),
        case("uint8 dot wraps", "i,i->", ("uint8", [4], [200, 100, 255, 7]), ("uint8", [4], [2, 3, 255, 9])),
        case("int8 matmul wraps", "ij,jk->ik", ("int8", [2, 3], [127, -128, 90, 64, 100, -7]),
             ("int8", [3, 2], [127, 3, -128, 5, 90, -100])),
        case("int16 wraps", "ij,j->i", ("int16", [2, 3], [300, 200, -32768, 1000, 999, 12345]),
             ("int16", [3], [300, 1000, 2])),
        case("int32 sum past 2^31", "i->", ("int32", [3], [2**30, 2**30, 2**30])),
        case("int32 dot past 2^31", "i,i->", ("int32", [3], [65536, 65536, 40000]),
             ("int32", [3], [32768, 32768, 60000])),
        case("int64 wraps", "i,i->", ("int64", [2], [2**32, 2**62]), ("int64", [2], [2**32, 3])),
        case("int64 exact beyond 2^53", "ij->i", ("int64", [2, 2], [2**53 + 1, 2, -(2**60) - 1, 2**60])),
        case("int32 three operands wrap", "ij,jk,kl->il", ("int32", [2, 2], [60000, 2, 3, 70000]),
             ("int32", [2, 2], [50000, 7, -1, 80000]), ("int32", [2, 2], [3, 40000, 90000, 1])),
        case("uint8 three operands wrap", "i,i,i->", ("uint8", [3], [200, 17, 255]),
             ("uint8", [3], [3, 250, 255]), ("uint8", [3], [5, 7, 2])),
        case("int8 x uint8 gives int16", "i,i->", ("int8", [2], [127, 127]), ("uint8", [2], [255, 255])),
        case("bool x int8 gives int8", "ij,j->i", ("bool", [2, 2], [True, False, True, True]),
             ("int8", [2], [100, 100])),
        case("uint8 x int32 gives int32", "i,i->i", ("uint8", [2], [255, 7]), ("int32", [2], [2**30, -3])),
        case("float32 x int16", "ij,jk->ik", ("float32", [2, 2], [0.5, 1.5, -2.0, 4.0]),
             ("int16", [2, 2], [3, -300, 32767, 2])),
        case("int64 x float32 gives float64", "i,i->", ("int64", [2], [2**40 + 1, 3]),
             ("float32", [2], [1.0, 0.5])),
        case("float16 x int8 gives float16", "i,i->", ("float16", [3], [0.5, 1.25, 3.0]),
             ("int8", [3], [100, -7, 2]), reduce_inner_f16=True),
        case("float16 x int16 gives float32", "i,i->i", ("float16", [2], [0.1, 2.5]),
             ("int16", [2], [1000, -3])),
        case("float16 tenths sum in float32", "i->", ("float16", [10], tenth), reduce_inner_f16=True),
        case("float16 dot rounds once", "ij,j->i", ("float16", [2, 10], tenth + [0.3] * 10),
             ("float16", [10], [1.0] * 9 + [0.5]), reduce_inner_f16=True),
        case("float16 overflow to inf", "i,i->", ("float16", [2], [300, 300]), ("float16", [2], [300, 300]),
             reduce_inner_f16=True),
        case("bool matmul is or of ands", "ij,jk->ik", ("bool", [3, 4], bools(12)), ("bool", [4, 5], bools(20))),
        case("bool three operands", "ij,jk,kl->il", ("bool", [3, 3], bools(9)), ("bool", [3, 3], bools(9)),
             ("bool", [3, 2], bools(6))),
        case("bool trace and sum", "ii->", ("bool", [3, 3], [False, True, True, False, False, True, True, True, False])),
        case("bool x bool empty sum", "ij,jk->ik", ("bool", [2, 0], []), ("bool", [0, 2], [])),
        case("uint8 batch matmul", "bij,bjk->bik", ("uint8", [2, 2, 3], ints(0, 256, 12)),
             ("uint8", [2, 3, 2], ints(0, 256, 12))),
        case("int16 outer product wraps", "i,j->ij", ("int16", [3], [300, -300, 7]), ("int16", [2], [200, -2])),
        case("int32 diagonal view", "ii->i", ("int32", [2, 2], [2**31 - 1, 5, 6, -(2**31)])),
        case("int64 transpose view", "ij->ji", ("int64", [2, 3], [1, -2, 2**62, 4, 5, -(2**63)])),
    ]


def dump(data):
    """The JSON with one list entry per line (diffs stay readable)."""
    compact = lambda x: json.dumps(x, separators=(",", ":"))
    lines = []
    for k, v in data.items():
        if isinstance(v, list) and v and isinstance(v[0], dict):
            items = ",\n".join("  " + compact(x) for x in v)
            lines.append(f"{json.dumps(k)}: [\n{items}\n]")
        else:
            lines.append(f"{json.dumps(k)}: {compact(v)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main():
    data = {
        "numpy": np.__version__,
        "types": TYPES,
        "pair_values": list(PAIR_VALUES),
        "pairs": pairs(),
        "triples": triples(),
        "bfloat16": bfloat16_rows(),
        "einsum": einsum_cases(),
    }
    path = os.path.join(HERE, "numpy_dtypes.json")
    with open(path, "w") as f:
        f.write(dump(data))
    print(f"wrote {path}: {len(data['pairs'])} pairs, {len(data['triples'])} triples, "
          f"{len(data['einsum'])} einsum cases")


if __name__ == "__main__":
    main()
