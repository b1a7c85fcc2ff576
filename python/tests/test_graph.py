"""The framework API: a transformer block declared with Graph, solved, each step's plan
compiled and run forward on numpy arrays, checked against the same block in numpy; shapes,
plans, infer and parse; errors with their provenance."""

import json

import numpy as np
import pytest

import einrow
from conftest import REPO

BATCH, SEQ, WIDTH, HEADS, HEAD_DIM, HIDDEN = 2, 6, 8, 2, 4, 16


class Block:
    """The graph, and per step: result, operands, accumulation, combine, activation."""

    def __init__(self):
        self.g = einrow.Graph()
        self.steps = []

    def add(self, t, args, combine, act=None):
        self.steps.append((t, args, combine, act))
        return t


def transformer_block():
    b = Block()
    g = b.g
    x = g.input("x", batch=(BATCH, SEQ), output=(WIDTH,))
    inv_width = g.input("1/width", ())
    gamma = g.parameter("gamma", output=(...,))
    beta = g.parameter("beta", output=(...,))
    s = b.add(g.permute("...|d => ...|", x), [x], "first")
    mean = b.add(g.pointwise(s, inv_width), [s, inv_width], "*")
    centred = b.add(g.einsum("...|d; ...| => ...|d", x, mean), [x, mean], "-")
    scaled = b.add(g.pointwise(centred, gamma), [centred, gamma], "*")
    normed = b.add(g.pointwise(scaled, beta, name="normed"), [scaled, beta], "+")
    wq, wk, wv = (g.parameter(n, input=(...,), output=(HEADS, HEAD_DIM)) for n in ("wq", "wk", "wv"))
    wo = g.parameter("wo", input=(...,), output=(...,))
    q = b.add(g.compose(wq, normed), [wq, normed], "*")
    k = b.add(g.compose(wk, normed), [wk, normed], "*")
    v = b.add(g.compose(wv, normed), [wv, normed], "*")
    scores = b.add(g.einsum("...,s|h,k; ...,t|h,k => ...,s,t|h", q, k, name="scores"), [q, k], "*")
    e = b.add(g.pointwise(scores), [scores], "first", np.exp)
    total = b.add(g.permute("...,s,t|h => ...,s|h", e), [e], "first")
    p = b.add(g.einsum("...,s,t|h; ...,s|h => ...,s,t|h", e, total), [e, total], "/")
    mixed = b.add(g.einsum("...,s,t|h; ...,t|h,k => ...,s|h,k", p, v), [p, v], "*")
    attn = b.add(g.einsum("...|h,k; h,k->d => ...|d", mixed, wo), [mixed, wo], "*")
    x1 = b.add(g.pointwise(x, attn), [x, attn], "+")
    w1 = g.parameter("w1", input=(...,), output=(HIDDEN,))
    b1 = g.parameter("b1", output=(...,))
    w2 = g.parameter("w2", input=(...,), output=(...,))
    b2 = g.parameter("b2", output=(...,))
    h = b.add(g.compose(w1, x1), [w1, x1], "*")
    h = b.add(g.pointwise(h, b1), [h, b1], "+")
    h = b.add(g.pointwise(h), [h], "first", lambda a: np.maximum(a, 0))
    y = b.add(g.compose(w2, h), [w2, h], "*")
    y = b.add(g.pointwise(y, b2), [y, b2], "+")
    out = b.add(g.pointwise(x1, y, name="out"), [x1, y], "+")
    b.leaves = dict(x=x, inv_width=inv_width, gamma=gamma, beta=beta, wq=wq, wk=wk, wv=wv,
                    wo=wo, w1=w1, b1=b1, w2=w2, b2=b2)
    b.out, b.scores = out, scores
    return b


def test_shapes_are_inferred():
    b = transformer_block()
    b.g.solve()
    L, g = b.leaves, b.g
    assert g.shape(L["x"]) == (BATCH, SEQ, WIDTH)
    assert L["wq"].shape == (HEADS, HEAD_DIM, WIDTH)  # memory order: output, then input
    assert g.sizes(L["wq"]) == {"batch": (), "input": (WIDTH,), "output": (HEADS, HEAD_DIM)}
    assert g.shape(L["wo"]) == (WIDTH, HEADS, HEAD_DIM)
    assert g.shape(L["w1"]) == (HIDDEN, WIDTH)
    assert g.shape(L["w2"]) == (WIDTH, HIDDEN)
    assert g.shape(L["b1"]) == (HIDDEN,)
    assert g.shape(b.scores) == (BATCH, SEQ, SEQ, HEADS)
    assert g.shape_string(b.scores) == f"{BATCH},{SEQ},{SEQ}|{HEADS}"
    assert g.shape(b.out) == (BATCH, SEQ, WIDTH)
    assert b.out.name == "out"
    names = [t.name for t in g.tensors()]
    assert names[:2] == ["x", "1/width"] and "scores" in names
    assert g.warnings() == []


def numpy_block(v):
    x = v["x"]
    mean = x.sum(-1) * v["inv_width"]
    normed = (x - mean[..., None]) * v["gamma"] + v["beta"]
    q, k, val = (np.einsum("hkd,bsd->bshk", v[w], normed) for w in ("wq", "wk", "wv"))
    e = np.exp(np.einsum("bshk,bthk->bsth", q, k))
    p = e / e.sum(axis=2)[:, :, None, :]
    mixed = np.einsum("bsth,bthk->bshk", p, val)
    x1 = x + np.einsum("bshk,dhk->bsd", mixed, v["wo"])
    h = np.maximum(np.einsum("ed,bsd->bse", v["w1"], x1) + v["b1"], 0)
    return x1 + np.einsum("de,bse->bsd", v["w2"], h) + v["b2"]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_compiled_plans_run_the_block_forward(dtype, rng):
    b = transformer_block()
    b.g.solve()
    values = {}
    for name, t in b.leaves.items():
        values[t] = rng.uniform(-0.5, 0.5, size=t.shape).astype(dtype)
    values[b.leaves["inv_width"]] = np.asarray(1.0 / WIDTH, dtype)
    for t, args, combine, act in b.steps:
        exe = b.g.plan(t, combine=combine).compile()
        assert exe.result_shape == t.shape
        r = exe.run(*(values[a] for a in args))
        values[t] = act(r) if act else r
    want = numpy_block({n: values[t] for n, t in b.leaves.items()})
    got = values[b.out]
    assert got.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=1e-4 if dtype == np.float32 else 1e-10, atol=1e-5)


def test_plan_text_and_json():
    g = einrow.Graph()
    a = g.input("a", (2, 3))
    c = g.input("c", (3, 4))
    r = g.einsum("ij;jk=>ik", a, c)
    g.solve()
    plan = g.plan(r)
    assert plan.result_shape == (2, 4)
    assert plan.operand_shapes == [(2, 3), (3, 4)]
    assert "for i in 0..2, k in 0..4, j in 0..3" in str(plan) or "j in 0..3" in str(plan)
    doc = json.loads(plan.to_json())
    assert doc["op"] == "einsum" and doc["result_dims"] == [2, 4]
    assert plan.to_dict() == doc
    exe = plan.compile()
    x, y = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(exe.run(x, y), x @ y)
    out = np.zeros((4, 2)).T  # a strided output
    assert exe.run(x.T.copy().T, y[:, ::-1][:, ::-1], out=out) is out
    np.testing.assert_allclose(out, x @ y)
    with pytest.raises(einrow.ShapeError) as info:
        exe.run(x, y.T)
    assert info.value.code == "elems"
    with pytest.raises(einrow.ShapeError):
        exe.run(x)
    with pytest.raises(TypeError):
        exe.run(x, y.astype(np.float32))
    with pytest.raises(TypeError):
        exe.run(x.astype(np.complex128), y.astype(np.complex64))
    int32s = exe.run(x.astype(np.int32), y.astype(np.int32))
    assert int32s.dtype == np.int32 and (int32s == (x @ y).astype(np.int32)).all()
    ints = exe.run(x.astype(np.int64), y.astype(np.int64))
    assert ints.dtype == np.int64 and (ints == (x @ y).astype(np.int64)).all()
    with pytest.raises(einrow.ShapeError):
        exe.run(x, y, out=np.zeros((2, 5)))
    max_plan = g.plan(r, accum="max", combine="+").compile()
    np.testing.assert_allclose(max_plan.run(x, y), (x[:, :, None] + y[None]).max(axis=1))


def test_row_variables_are_shared():
    g = einrow.Graph()
    batch = g.row_var("batch")
    x = g.input("x", batch=(batch,), output=(8,))
    m = g.input("mask", batch=batch, output=(8,))
    y = g.pointwise(x, m)
    g.set_row_size(batch, 4)
    g.solve()
    assert batch.dims == (4,)
    assert g.shape(m) == (4, 8)
    assert y.shape == (4, 8)


def test_shape_strings_and_unknown_declarations():
    g = einrow.Graph()
    x = g.input("x", "32|784")
    w = g.parameter("w", "...->128")
    b = g.parameter("b")
    h = g.pointwise(g.compose(w, x), b)
    g.solve()
    assert g.shape(w) == (128, 784)
    # Nothing declared: the parameter takes the batch too, which einrow warns of.
    assert g.shape(b) == (32, 128)
    assert h.shape == (32, 128)
    assert any("`b`" in w for w in g.warnings())


def test_graph_errors_carry_provenance():
    g = einrow.Graph()
    a = g.input("a", (2, 3))
    c = g.input("c", (4, 5))
    with pytest.raises(einrow.MismatchError) as info:
        g.einsum("ij;jk=>ik", a, c, name="r")
    e = info.value
    assert e.code == "mismatch" and e.source == "ij;jk=>ik"
    assert e.spans == [(0, 2), (3, 5)]
    assert "c" in e.tensors and e.step is not None
    assert "  | ij;jk=>ik" in str(e)
    other = einrow.Graph().input("z", (2,))
    with pytest.raises(einrow.UnknownNameError):
        g.pointwise(a, other)
    with pytest.raises(einrow.BadValueError):
        g.plan(a)
    with pytest.raises(TypeError):
        g.pointwise(a, "c")
    with pytest.raises(TypeError):
        g.input("bad", batch=("x",))
    with pytest.raises(einrow.BadValueError):
        g.input("neg", (2, -1))
    with pytest.raises(einrow.BadValueError):
        g.input("huge", (2**63,))
    with pytest.raises(TypeError):
        g.input("both", (2,), batch=(3,))
    with pytest.raises(einrow.SpecSyntaxError):
        g.input("text", "2|3->->4")
    with pytest.raises(einrow.SpecSyntaxError):
        g.permute("ij->->k=>i", a)


def test_unresolved_parameters_fail_to_solve():
    g = einrow.Graph()
    x = g.input("x", (3,))
    w = g.parameter("w", input=(...,), output=(...,))
    g.compose(w, x)
    with pytest.raises(einrow.UnresolvedError) as info:
        g.solve()
    assert info.value.code == "unresolved"
    with pytest.raises(einrow.ShapeError):
        w.shape


def test_infer_programs():
    shapes = einrow.infer((REPO / "examples" / "programs" / "mlp.ein").read_text())
    assert shapes["w1"] == (128, 784)
    assert shapes["w2"] == (10, 128)
    assert shapes["y"] == (10,)
    shapes = einrow.infer("tensor x: 5|3\nparam w: ...->2\ny = compose w x\n")
    assert shapes == {"x": (5, 3), "w": (2, 3), "y": (5, 2)}
    with pytest.raises(einrow.MismatchError) as info:
        einrow.infer('tensor a: 2,3\ntensor b: 4,5\nc = einsum "ij;jk=>ik" a b\n')
    assert info.value.line == 3 and str(info.value).startswith("line 3: ")
    with pytest.raises(einrow.SpecSyntaxError) as info:
        einrow.infer("tensor a: 2\nthis is not a statement\n")
    assert info.value.line == 2
    with pytest.raises(einrow.ArityError):
        einrow.infer("tensor a: 2\nb = pointwise3 a a\n")
    with pytest.raises(einrow.UnknownNameError) as info:
        einrow.infer("tensor a: 2\nb = pointwise a nothing\n")
    assert info.value.code == "name" and info.value.line == 2


def test_parse_specs():
    assert einrow.parse("b|i->o") == {
        "rows": {"batch": ["b"], "input": ["i"], "output": ["o"]},
        "multichar": False,
    }
    e = einrow.parse("...|i->o => ...|o->i")
    assert e["lhs"] == {"batch": ["..batch.."], "input": ["o"], "output": ["i"]}
    assert len(e["rhs"]) == 1
    assert einrow.parse("ij;jk=>ik")["rhs"][1] == {"output": ["j", "k"]}
    with pytest.raises(einrow.SpecSyntaxError) as info:
        einrow.parse("b|i->->o")
    assert info.value.span == (5, 7)
