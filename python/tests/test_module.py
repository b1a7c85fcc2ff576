"""The module's surface: every public name documented and covered by the type stubs."""

import ast
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import einrow


def test_module_surface():
    assert isinstance(einrow.__version__, str)
    for name in ("einsum", "einsum_path", "Graph", "infer", "parse", "ShapeError", "Plan",
                 "Executable", "Tensor", "RowVar", "set_num_threads", "Dim", "Scheme",
                 "Instance", "CompiledGraph", "DTypeError"):
        assert name in einrow.__all__
        assert getattr(einrow, name).__doc__


def test_type_stubs_cover_the_module():
    stub = pathlib.Path(einrow.__file__).with_suffix(".pyi")
    tree = ast.parse(stub.read_text())
    declared = {
        getattr(node, "name", None) or getattr(getattr(node, "target", None), "id", None)
        for node in tree.body
    }
    public = {n for n in einrow.__all__}
    assert public - declared == set(), "names without stubs"
    assert {n for n in declared if n and not n.startswith("_")} - public == set()


def test_framework_classes_document_every_member():
    for cls in (einrow.Graph, einrow.Scheme, einrow.Instance, einrow.CompiledGraph,
                einrow.Executable, einrow.Plan, einrow.RowVar, einrow.Dim, einrow.Tensor):
        assert cls.__doc__, cls
        for name, member in vars(cls).items():
            if not name.startswith("_"):
                assert member.__doc__, f"{cls.__name__}.{name}"


def _mypy(*args, cwd):
    """mypy run on the einrow that the tests import."""
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(einrow.__file__).parents[1]))
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_stubtest_is_clean(tmp_path):
    pytest.importorskip("mypy")
    result = _mypy("mypy.stubtest", "einrow", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_optimize_and_order_are_typed_as_their_literals(tmp_path):
    pytest.importorskip("mypy")
    (tmp_path / "use.py").write_text(textwrap.dedent("""
        import numpy as np
        import einrow
        a = np.ones((2, 2))
        einrow.einsum("ij->i", a, optimize="greedy")
        einrow.einsum("ij->i", a, optimize=("optimal", 1e6))
        einrow.einsum("ij->i", a, optimize=["einsum_path", (0,)])
        einrow.einsum("ij->i", a, order="F", casting="same_kind")
        einrow.einsum("ij->i", a, optimize="fast")  # line 9
        einrow.einsum("ij->i", a, order="Q")  # line 10
        einrow.einsum("ij->i", a, casting="never")  # line 11
    """))
    result = _mypy("mypy", "use.py", cwd=tmp_path)
    flagged = sorted({int(line.split(":")[1]) for line in result.stdout.splitlines()
                      if line.startswith("use.py:") and ": error:" in line})
    assert flagged == [9, 10, 11], result.stdout
