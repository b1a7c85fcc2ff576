"""The module's surface: every public name documented and covered by the type stubs."""

import ast
import pathlib

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
