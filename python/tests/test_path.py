"""einsum_path: numpy's return shape (['einsum_path', steps...], report text), the same paths
and report as numpy where the choice has no ties, and einsum along any of them."""

import numpy as np
import pytest

import einrow
from conftest import assert_same

CASES = [
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("abc,bcd,de,ea->", [(2, 3, 4), (3, 4, 5), (5, 6), (6, 2)]),
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("i,i", [(3,), (3,)]),
    ("ij,jk,kl,lm->im", [(5, 9), (9, 2), (2, 7), (7, 3)]),
    ("ij,jk,kl,lm->im", [(50, 9), (9, 20), (20, 7), (7, 30)]),
    ("ab,bc,cd,de,ef->af", [(8, 2), (2, 9), (9, 3), (3, 10), (10, 4)]),
    ("ijk,jkl,lm->im", [(4, 5, 6), (5, 6, 3), (3, 7)]),
]


@pytest.mark.parametrize("spec,shapes", CASES, ids=[f"{s}-{i}" for i, (s, _) in enumerate(CASES)])
@pytest.mark.parametrize("optimize", ["greedy", "optimal", False, True])
def test_path_and_report_match_numpy(spec, shapes, optimize):
    ops = [np.ones(s) for s in shapes]
    want = np.einsum_path(spec, *ops, optimize=optimize)
    got = einrow.einsum_path(spec, *ops, optimize=optimize)
    assert isinstance(got, tuple) and isinstance(got[0], list) and isinstance(got[1], str)
    assert got[0] == want[0]
    assert got[1] == want[1]


def test_default_is_greedy():
    ops = [np.ones(s) for s in CASES[0][1]]
    assert einrow.einsum_path(CASES[0][0], *ops) == einrow.einsum_path(CASES[0][0], *ops, optimize="greedy")


def test_path_only_reads_shapes():
    lists = [[[1.0] * 3] * 2, [[1.0] * 4] * 3]
    path, text = einrow.einsum_path("ij,jk->ik", *lists)
    assert path == ["einsum_path", (0, 1)]
    assert "ij,jk->ik" in text


def test_memory_limit_and_explicit_paths():
    ops = [np.ones(s) for s in [(50, 9), (9, 20), (20, 7), (7, 30)]]
    spec = "ij,jk,kl,lm->im"
    want = np.einsum_path(spec, *ops, optimize=("greedy", 100))
    assert einrow.einsum_path(spec, *ops, optimize=("greedy", 100))[0] == want[0]
    explicit = ["einsum_path", (2, 3), (0, 1), (0, 1)]
    assert einrow.einsum_path(spec, *ops, optimize=explicit)[0] == explicit


def test_einsum_along_paths_matches_numpy(rng):
    for spec, shapes in CASES:
        ops = [rng.uniform(-1, 1, size=s) for s in shapes]
        want = np.einsum(spec, *ops)
        for optimize in (False, True, "greedy", "optimal", "dp", "auto"):
            assert_same(einrow.einsum(spec, *ops, optimize=optimize), want)
        path = einrow.einsum_path(spec, *ops, optimize="optimal")[0]
        assert_same(einrow.einsum(spec, *ops, optimize=path), want)
        assert_same(einrow.einsum(spec, *ops, optimize=path), np.einsum(spec, *ops, optimize=path))


def test_extra_strategies_of_einrow():
    ops = [np.ones(s) for s in CASES[6][1]]
    for name in ("dp", "auto"):
        path, text = einrow.einsum_path(CASES[6][0], *ops, optimize=name)
        assert path[0] == "einsum_path" and len(path) == 5
        assert "Optimized FLOP count" in text
