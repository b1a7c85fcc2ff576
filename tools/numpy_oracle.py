#!/usr/bin/env python3
"""numpy einsum as the reference of `einrow fuzz numpy`.

Reads a JSON list of requests on standard input, each {"spec": SUBSCRIPTS, "shapes": [[...],
...], "id": NAME}, evaluates numpy.einsum(SUBSCRIPTS, *operands, optimize=False) on small
integer operands, and prints a JSON list of einsum cases in einrow's conformance format
(einrow::check::format):

    {"id", "kind": "einsum", "spec", "shapes", "inputs", "expect": {"shape", "values"}}

or, where numpy raises, {"id", "kind", "spec", "shapes", "expect": {"error": CODE}, "note"}
with CODE the error code that numpy's message maps to.

`einrow fuzz numpy` runs this script (built into the binary) with the interpreter of
--python; it is also in the repository as tools/numpy_oracle.py, to run by hand:

    echo '[{"spec": "ij,jk->ik", "shapes": [[2, 3], [3, 4]], "id": "x"}]' | \\
        python3 tools/numpy_oracle.py

Exit status: 0 when every request was answered, 2 on input that is not a list of requests,
3 when numpy cannot be imported.
"""
import json
import math
import random
import sys
import zlib

try:
    import numpy
except ImportError:
    print("numpy is not installed for %s" % sys.executable, file=sys.stderr)
    sys.exit(3)

# Fragments of numpy's einsum messages and the error code each maps to; the first match wins.
CODES = [
    ("could not be broadcast", "mismatch"),
    ("for collapsing index", "mismatch"),
    ("does not match previous terms", "mismatch"),
    ("too many subscripts", "rank"),
    ("more dimensions than subscripts", "rank"),
    ("output has more dimensions", "label"),
    ("never appeared in an input", "label"),
    ("did not appear in the input", "label"),
    ("multiple times", "label"),
    ("more than once in the output", "label"),
    ("operands provided to einstein sum", "arity"),
    ("number of einsum subscripts must be equal", "arity"),
    ("not part of an ellipsis", "syntax"),
    ("invalid ellipses", "syntax"),
    ("subscripts must be letters", "syntax"),
    ("is not a valid symbol", "syntax"),
    ("one '->'", "syntax"),
]


def code_of(message):
    low = message.lower()
    for fragment, code in CODES:
        if fragment in low:
            return code
    return "syntax"


def number(v):
    v = float(v)
    return int(v) if v == int(v) and abs(v) < 2 ** 53 else v


def case(request):
    spec, shapes, name = request["spec"], request["shapes"], str(request.get("id", ""))
    rng = random.Random(zlib.crc32(name.encode()))
    inputs = [[rng.randint(-3, 3) for _ in range(math.prod(s))] for s in shapes]
    arrays = [numpy.array(v, dtype=numpy.float64).reshape(s) for v, s in zip(inputs, shapes)]
    out = {"id": name, "kind": "einsum", "spec": spec, "shapes": shapes}
    try:
        r = numpy.asarray(numpy.einsum(spec, *arrays, optimize=False))
    except (ValueError, TypeError) as e:
        out["expect"] = {"error": code_of(str(e))}
        out["note"] = "numpy: %s" % str(e)[:120]
        return out
    out["inputs"] = inputs
    out["expect"] = {"shape": list(r.shape), "values": [number(v) for v in r.ravel()]}
    return out


def main():
    try:
        requests = json.load(sys.stdin)
        if not isinstance(requests, list):
            raise ValueError("expected a JSON list of requests")
        cases = [case(r) for r in requests]
    except (ValueError, KeyError, TypeError) as e:
        print("numpy_oracle.py: %s" % e, file=sys.stderr)
        return 2
    print(json.dumps(cases))
    return 0


if __name__ == "__main__":
    sys.exit(main())
