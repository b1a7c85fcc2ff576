#!/usr/bin/env python3
"""Writes opt_einsum.json: contraction paths and FLOP counts of opt_einsum and numpy.

Expressions: opt_einsum's own test expressions (tests/test_contract.py's `tests` list and the
edge cases of tests/test_paths.py), each with opt_einsum's default test sizes and with random
sizes, plus random expressions from opt_einsum.testing.rand_equation (3-10 operands, random
sizes 2-9, some with a global dimension) and a batch with sizes 2-3 small enough to evaluate
naively. For each: opt_einsum's greedy, dp and auto (and optimal up to 8 operands) paths with
their FLOP counts and largest intermediates, opt_einsum's naive count, and numpy's
einsum_path (its default greedy): path, and the naive and optimized counts it prints. Up to 6
operands, also the least FLOP count over every pairwise path, found by trying them all (opt_einsum's
'optimal' does not always find it).

Counts are decimal strings (they can exceed 64 bits). The Rust tests (tests/paths.rs) read
the JSON; nothing here runs at test time.

Usage: python3 tests/data/paths/gen_opt_einsum.py   (needs numpy and opt_einsum)
"""

import ast
import importlib
import itertools
import json
import os
import random
import sys
import types

import numpy as np

# opt_einsum.testing imports pytest only for `importorskip`; give it that without pytest.
sys.modules.setdefault("pytest", types.SimpleNamespace(importorskip=importlib.import_module))
import opt_einsum as oe  # noqa: E402
from opt_einsum.testing import _default_dim_dict, build_shapes, rand_equation  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OE_DIR = os.path.dirname(oe.__file__)


def listed(module_file, name):
    """The literal list `name = [...]` of an opt_einsum test module, read without running it."""
    with open(os.path.join(OE_DIR, "tests", module_file)) as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise KeyError(name)


# opt_einsum.testing's default sizes; letters it has no size for get 1 (as in opt_einsum's
# dimension-1 edge case).
DEFAULT_SIZES = _default_dim_dict


def terms(eq):
    return eq.split("->")[0].split(",")


def random_sizes(eq, rng, lo=2, hi=9):
    letters = sorted(set(eq.replace(",", "").replace("->", "")))
    return {c: rng.randint(lo, hi) for c in letters}


def oe_info(eq, shapes, optimize, memory_limit=None):
    path, info = oe.contract_path(eq, *shapes, shapes=True, optimize=optimize, memory_limit=memory_limit)
    return {
        "path": [list(map(int, s)) for s in path],
        "flops": str(int(info.opt_cost)),
        "largest": str(int(info.largest_intermediate)),
    }, str(int(info.naive_cost))


def pairwise_paths(n):
    """Every sequence of pairwise contractions of n operands (linear positions)."""
    if n <= 1:
        yield []
        return
    for pair in itertools.combinations(range(n), 2):
        for rest in pairwise_paths(n - 1):
            yield [pair] + rest


def exhaustive(eq, shapes):
    """The least FLOP count (opt_einsum's count) over every pairwise path, by trying them all."""
    return min(int(oe.contract_path(eq, *shapes, shapes=True, optimize=p)[1].opt_cost) for p in pairwise_paths(len(shapes)))


def printed(text, label):
    for line in text.splitlines():
        if label in line:
            return line.split(":", 1)[1].split()[0]
    raise KeyError(label)


def numpy_info(eq, shapes):
    arrays = [np.broadcast_to(np.empty(()), s) for s in shapes]
    path, text = np.einsum_path(eq, *arrays, optimize="greedy")
    steps = [list(map(int, s)) for s in path[1:]]
    # numpy prints its counts to 4 digits; the exact count of its path is opt_einsum's count
    # of the same explicit path (numpy's report adds 1 to it).
    exact = oe.contract_path(eq, *shapes, shapes=True, optimize=steps)[1]
    naive = printed(text, "Naive FLOP count")
    opt = printed(text, "Optimized FLOP count")
    assert float(naive) == float(f"{int(exact.naive_cost):.3e}"), (eq, naive, exact.naive_cost)
    assert float(opt) == float(f"{int(exact.opt_cost) + 1:.3e}"), (eq, opt, exact.opt_cost)
    return {
        "path": steps,
        "path_flops": str(int(exact.opt_cost)),
        "printed_naive_flops": naive,
        "printed_opt_flops": opt,
    }


def case(name, source, eq, shapes):
    n = len(shapes)
    entry = {"name": name, "source": source, "subscripts": eq, "shapes": [list(map(int, s)) for s in shapes]}
    oe_entry = {}
    for opt in ["greedy", "dp", "auto"] + (["optimal"] if n <= 8 else []):
        oe_entry[opt], naive = oe_info(eq, shapes, opt)
    oe_entry["naive_flops"] = naive
    if 3 <= n <= 6:
        oe_entry["exhaustive_flops"] = str(exhaustive(eq, shapes))
    entry["opt_einsum"] = oe_entry
    if "..." not in eq:
        entry["numpy"] = numpy_info(eq, shapes)
    return entry


def main():
    rng = random.Random(2024)
    cases = []
    contract_tests = [e for e in listed("test_contract.py", "tests") if isinstance(e, str)]
    edge = [e for _, e, _ in listed("test_paths.py", "path_edge_tests")]
    extra = [
        "abc,bdef,fghj,cem,mhk,ljk->adgl",  # test_memory_paths
        "a,ac,ab,ad,cd,bd,bc->",  # test_optimal_edge_cases
        "abc,cfd,dbe,efa",  # test_greedy_edge_cases
        "nlp,nlq,pl->n",  # test_dp_edge_cases_dimension_1
        "a,bcd,efg->",  # test_dp_edge_cases_all_singlet_indices
        "a,b,abc->c",  # test_custom_dp_can_optimize_for_outer_products
        "ab,cd,ef,fg",  # test_can_optimize_outer_products
        "...ab,...bc,...cd->...ad",
        "a...,...b,ab->...",
    ]
    seen = set()
    for eq in contract_tests + edge + extra:
        if eq in seen:
            continue
        seen.add(eq)
        if "..." in eq:
            base = {c: rng.randint(2, 6) for c in sorted(set(eq) - set(",->."))}
            ell = [rng.randint(1, 4) for _ in range(2)]
            shapes = []
            for t in terms(eq):
                dims = [base[c] for c in t.replace("...", "")]
                pre = ell if t.startswith("...") else []
                post = ell if t.endswith("...") and not t.startswith("...") else []
                shapes.append(tuple(pre + dims + post))
            cases.append(case(eq, "ellipsis", eq, shapes))
            continue
        default = {c: DEFAULT_SIZES.get(c, 1) for c in set(eq) - set(",->")}
        cases.append(case(eq + " default", "opt_einsum tests", eq, build_shapes(eq, default)))
        for k in range(2):
            sizes = random_sizes(eq, rng)
            cases.append(case(f"{eq} random{k}", "opt_einsum tests", eq, build_shapes(eq, sizes)))
    seed = 0
    for n in range(3, 11):
        for regularity in (2, 3, 4):
            for n_out in (0, 2):
                for global_dim in (False, True):
                    seed += 1
                    eq, shapes = rand_equation(n, regularity, n_out=n_out, seed=seed, global_dim=global_dim)
                    name = f"rand n={n} reg={regularity} out={n_out} global={global_dim} seed={seed}"
                    cases.append(case(name, "rand_equation", eq, shapes))
    for n in range(3, 8):
        for seed in range(100 + 10 * n, 104 + 10 * n):
            eq, shapes = rand_equation(n, 3, n_out=2, d_min=1, d_max=3, seed=seed)
            cases.append(case(f"small n={n} seed={seed}", "rand_equation small", eq, shapes))
    out = {
        "generator": "tests/data/paths/gen_opt_einsum.py",
        "numpy": np.__version__,
        "opt_einsum": oe.__version__,
        "cases": cases,
    }
    # One case a line, so that a regenerated table diffs by case.
    head = {k: v for k, v in out.items() if k != "cases"}
    lines = [json.dumps(c, separators=(",", ":")) for c in cases]
    with open(os.path.join(HERE, "opt_einsum.json"), "w") as f:
        f.write(json.dumps(head)[:-1] + ', "cases": [\n' + ",\n".join(lines) + "\n]}\n")
    print(f"{len(cases)} cases")


if __name__ == "__main__":
    main()
