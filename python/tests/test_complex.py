"""complex64 and complex128 through einsum, einsum_path, contract_expression, compiled plans
and graphs, against numpy: the public suite and the upstream suites (torch, jax and
opt_einsum's einsum tests) rerun with complex operands, promotion with every real type, and
numpy's own einsum tests run on einrow (its complex sums among them)."""

import itertools
import json
import os
import pathlib
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import einrow
from conftest import REPO, conformance_cases, strided_like

CASES = [c for c in conformance_cases() if "error" not in c["expect"]]


def upstream_cases():
    """The einsum cases of the upstream suites (numpy's expectations), valid ones only."""
    cases = []
    for path in sorted((REPO / "tests" / "data" / "cases" / "upstream").glob("*.json")):
        for case in json.loads(path.read_text())["cases"]:
            if case.get("kind") == "einsum" and "error" not in case["expect"]:
                cases.append(dict(case, id=f"{path.stem}.{case['id']}"))
    return cases


UPSTREAM = upstream_cases()


def complex_operands(case, rng, dtype):
    return [(rng.uniform(-1, 1, size=s) + 1j * rng.uniform(-1, 1, size=s)).astype(dtype)
            for s in (tuple(s) for s in case["shapes"])]


def same(got, want, dtype):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    tol = 1e-4 if np.dtype(dtype) == np.complex64 else 1e-10
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("suite", ["conformance", "upstream"])
def test_suites_with_complex_operands(suite, dtype, rng):
    cases = CASES if suite == "conformance" else UPSTREAM
    for case in cases:
        ops = complex_operands(case, rng, dtype)
        want = np.einsum(case["spec"], *ops)
        same(einrow.einsum(case["spec"], *ops), want, dtype)
        same(einrow.einsum(case["spec"], *[strided_like(o) for o in ops]), want, dtype)
        if len(ops) >= 2:
            same(einrow.einsum(case["spec"], *ops, optimize="greedy"), want, dtype)
    assert len(cases) >= (150 if suite == "conformance" else 300)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_paths_and_expressions_on_complex_operands(dtype, rng):
    for case in [c for c in CASES if len(c["shapes"]) >= 3][:60]:
        ops = complex_operands(case, rng, dtype)
        want = np.einsum(case["spec"], *ops)
        path, report = einrow.einsum_path(case["spec"], *ops, optimize="optimal")
        same(einrow.einsum(case["spec"], *ops, optimize=path), want, dtype)
        expr = einrow.contract_expression(case["spec"], *[o.shape for o in ops])
        same(expr(*ops), want, dtype)
        constant = einrow.contract_expression(case["spec"], ops[0], *[o.shape for o in ops[1:]],
                                              constants=[0])
        same(constant(*ops[1:]), want, dtype)


REAL = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32,
        np.float64]


@pytest.mark.parametrize("ctype", [np.complex64, np.complex128])
@pytest.mark.parametrize("rtype", REAL)
def test_promotion_with_real_types_is_numpys(ctype, rtype, rng):
    z = (rng.uniform(-1, 1, (3, 4)) + 1j * rng.uniform(-1, 1, (3, 4))).astype(ctype)
    r = (rng.uniform(0, 3, (4, 5))).astype(rtype)
    for spec, ops in [("ij,jk->ik", (z, r)), ("jk,ij->ki", (r, z)), ("ij,jk", (z, r))]:
        want = np.einsum(spec, *ops)
        got = einrow.einsum(spec, *ops)
        assert got.dtype == want.dtype, (rtype, ctype)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    # Into a complex `out`, from real operands, and with `dtype`.
    out_want, out_got = np.zeros((3, 5), ctype), np.zeros((3, 5), ctype)
    np.einsum("ij,jk->ik", z.real.astype(rtype), r, out=out_want, casting="unsafe")
    einrow.einsum("ij,jk->ik", z.real.astype(rtype), r, out=out_got, casting="unsafe")
    np.testing.assert_allclose(out_got, out_want, rtol=1e-4, atol=1e-5)
    want = np.einsum("ij,jk->ik", z, r, dtype=np.complex128)
    np.testing.assert_allclose(einrow.einsum("ij,jk->ik", z, r, dtype=np.complex128), want,
                               rtol=1e-6)


def test_complex_errors_are_numpys():
    z = np.ones((2, 2), np.complex128)
    for kw in [dict(out=np.zeros((2, 2))), dict(dtype=np.float64)]:
        with pytest.raises(TypeError):
            np.einsum("ij,jk->ik", z, z, **kw)
        with pytest.raises(TypeError):
            einrow.einsum("ij,jk->ik", z, z, **kw)
    # Unsafe casting keeps the real part, as numpy (which warns).
    with pytest.warns(np.exceptions.ComplexWarning):
        want = np.einsum("ij,jk->ik", z + 1j, z, dtype=np.float64, casting="unsafe")
    with pytest.warns(np.exceptions.ComplexWarning):
        got = einrow.einsum("ij,jk->ik", z + 1j, z, dtype=np.float64, casting="unsafe")
    np.testing.assert_array_equal(got, want)


def outcome_and_warnings(fn, *args, **kwargs):
    """The result of a call (or the class it raised) and the classes of the warnings it
    gave."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            got = fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - the class itself is compared
            got = e
    return got, sorted({w.category.__name__ for w in seen})


CAST_TYPES = [np.bool_, np.int16, np.int32, np.float32, np.float64, np.complex64,
              np.complex128]


@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind", "unsafe"])
def test_casting_with_complex_types_is_numpys(casting):
    """Every pair of operand types among real and complex ones, with `dtype` and `out` of
    either kind: numpy's error class, or numpy's result type, values and warnings (complex
    to real is unsafe: refused under every other rule, the real part with a ComplexWarning
    under `unsafe`)."""
    values = np.array([0.5 + 1j, 1.5 - 2j, 2.75 + 0.25j, -1.25, 3.0 - 1j])
    compared = 0
    for ta, tb in itertools.product(CAST_TYPES, repeat=2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            a, b = values.astype(ta), values[::-1].astype(tb)
        for dtype in [None, np.float64, np.complex64, np.complex128]:
            for out_type in [None, np.float32, np.complex64, np.complex128]:
                kw = {"casting": casting, "dtype": dtype}
                outs = [None if out_type is None else np.zeros(5, out_type) for _ in range(2)]
                want, want_warns = outcome_and_warnings(np.einsum, "i,i->i", a, b,
                                                        out=outs[0], **kw)
                got, got_warns = outcome_and_warnings(einrow.einsum, "i,i->i", a, b,
                                                      out=outs[1], **kw)
                case = (ta.__name__, tb.__name__, dtype, out_type, casting)
                if isinstance(want, Exception):
                    assert isinstance(got, Exception), (case, want, got)
                    for cls in (TypeError, ValueError):
                        assert isinstance(got, cls) == isinstance(want, cls), (case, want, got)
                    continue
                assert not isinstance(got, Exception), (case, got)
                assert got.dtype == want.dtype, case
                assert got_warns == want_warns, case
                np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=str(case))
                compared += 1
    assert compared > 0


def test_issue_example_and_views():
    got = einrow.einsum("ij,jk->ik", np.eye(2) + 1j, np.eye(2))
    np.testing.assert_array_equal(got, np.einsum("ij,jk->ik", np.eye(2) + 1j, np.eye(2)))
    z = np.arange(6).reshape(2, 3) * (1 + 2j)
    v = einrow.einsum("ij->ji", z)
    assert np.shares_memory(v, z) and v.dtype == np.complex128
    assert einrow.einsum("ii", np.diag([1j, 2])) == 2 + 1j


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_compiled_plans_and_graphs(dtype, rng):
    g = einrow.Graph()
    x, w = g.input("x", (4, 3)), g.input("w", (3, 2))
    y = g.numpy("ij,jk->ik", x, w, name="y")
    s = g.einsum("ik;ik=>i", y, y, name="s")
    g.solve()
    a = (rng.random((4, 3)) + 1j * rng.random((4, 3))).astype(dtype)
    b = (rng.random((3, 2)) + 1j * rng.random((3, 2))).astype(dtype)
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    np.testing.assert_allclose(g.plan(y).compile().run(a, b), a @ b, rtol=tol)
    buffers = {x: a, w: b}
    g.compile().run(buffers)
    assert buffers[s].dtype == dtype
    np.testing.assert_allclose(buffers[s], np.sum((a @ b) ** 2, axis=1), rtol=tol)
    # numpy's order for a maximum: the real parts, then the imaginary ones.
    m = g.plan(y, accum="max").compile().run(a, b)
    want = np.max(a[:, :, None] * b[None], axis=1)
    # (numpy's own products may differ in the last bit: its SIMD loops fuse multiply-adds.)
    np.testing.assert_allclose(m, want, rtol=tol)
    # Types the kernel does not mix are refused, as before.
    with pytest.raises(einrow.DTypeError):
        g.plan(y).compile().run(a, b.real.copy())


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_scheme_programs(dtype, rng):
    g = einrow.Graph()
    batch = g.row_var("batch")
    x = g.input("x", batch=(batch,), output=(3,))
    w = g.parameter("w", input=(...,), output=(2,))
    y = g.compose(w, x)
    program = g.solve_scheme(batch).instantiate({batch: 4}).compile()
    xs = (rng.random((4, 3)) + 1j * rng.random((4, 3))).astype(dtype)
    ws = (rng.random((2, 3)) + 1j * rng.random((2, 3))).astype(dtype)
    buffers = {x: xs, w: ws}
    program.run(buffers)
    assert buffers[y].dtype == dtype
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    np.testing.assert_allclose(buffers[y], np.einsum("bi,oi->bo", xs, ws), rtol=tol)


def test_gradients_and_training_refuse_complex():
    z = np.ones((2, 2), np.complex128)
    with pytest.raises(TypeError, match="real float"):
        einrow.einsum_vjp("ij->i", z, cotangent=np.ones(2, np.complex128))
    g = einrow.Graph()
    x = g.input("x", batch=(2,), output=(2,))
    w = g.parameter("w", input=(2,), output=(2,))
    loss = g.einsum("...|o; ...|o => ", g.compose(w, x), g.compose(w, x))
    g.solve()
    with pytest.raises(einrow.DTypeError, match="real floats"):
        g.training(loss, [w]).run({x: z, w: z})


# numpy's own einsum tests, run with numpy.einsum and numpy.einsum_path replaced by einrow's.
# What einrow does not do, by design: arithmetic on Python objects, longdouble types, and
# numpy's optimize path writing a float result into an integer `out` (it assigns unsafely
# after a matmul where its unoptimized einsum refuses).
NUMPY_FAILURES = {
    "TestEinsum::test_einsum_object_errors",
    "TestEinsum::test_einsum_sums_object",
    "TestEinsum::test_object_loop",
    "TestEinsum::test_einsum_sums_longdouble",
    "TestEinsum::test_einsum_sums_clongdouble",
    "TestEinsum::test_different_paths[g]",
    "TestEinsum::test_different_paths[G]",
    "TestEinsum::test_einsum_0d_out",
}


def test_numpys_einsum_tests_on_einrow(tmp_path):
    tests = pathlib.Path(np.__file__).parent / "_core" / "tests" / "test_einsum.py"
    if not tests.exists():
        pytest.skip("numpy's tests are not installed")
    (tmp_path / "einrow_as_numpy.py").write_text(
        "import numpy, einrow\n"
        "def pytest_configure(config):\n"
        "    numpy.einsum = einrow.einsum\n"
        "    numpy.einsum_path = einrow.einsum_path\n"
    )
    path = os.pathsep.join([str(tmp_path), str(pathlib.Path(einrow.__file__).parents[1])])
    env = dict(os.environ, PYTHONPATH=path)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rf", "-p", "einrow_as_numpy", "-p",
         "no:cacheprovider", str(tests)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200,
    )
    failed = set(re.findall(r"^FAILED \S*?test_einsum\.py::(\S+)", result.stdout, re.M))
    assert failed == NUMPY_FAILURES, result.stdout[-3000:]
    passed = int(re.search(r"(\d+) passed", result.stdout).group(1))
    assert passed >= 70, result.stdout[-500:]
    for complex_test in ("test_einsum_sums_cfloat64", "test_einsum_sums_cfloat128",
                         "test_complex"):
        assert not any(complex_test in f for f in failed)
