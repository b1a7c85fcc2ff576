"""Every public object pickles and deep-copies, and the JSON forms round-trip: graphs (as the
calls that built them), tensors and handles (by position in their graph), schemes,
instances, compiled graphs and training steps (as the call that made them), plans and
executables (as the plan's JSON), expressions (with their constants) and errors. Each copy
is checked by what it computes, and a compiled graph is sent to another process."""

import concurrent.futures
import copy
import json
import multiprocessing
import pickle

import numpy as np
import pytest

import einrow


def round_trips(obj):
    """A pickled copy (every protocol), a deep copy and a shallow copy of `obj`."""
    copies = [pickle.loads(pickle.dumps(obj, protocol=p)) for p in range(2, pickle.HIGHEST_PROTOCOL + 1)]
    return copies + [copy.deepcopy(obj), copy.copy(obj)]


def full_graph():
    """A graph using every recorded call: declarations (tuples, shape strings, `...`,
    row variables), every step kind, captured handles, constraints, a solve."""
    g = einrow.Graph()
    batch = g.row_var("batch")
    x = g.input("x", batch=(batch, 6), output=(8,))
    w1 = g.parameter("w1", input=(...,), output=(16,))
    h = g.compose(w1, x, name="h")
    r = g.pointwise(h)
    s, (o, rows) = g.capture("...|i => ...|i", r, names=["i", "batch"], name="s")
    g.set_dim(o, 16)
    p = g.permute("...|i => ...|i", s)
    t = g.transpose(p)
    v = g.input("v", "3,1!")
    n = g.numpy("ij->ji", v, name="n")
    c = g.concat("a; b => a^b", g.input("ca", (2,)), g.input("cb", (3,)))
    e = g.einsum("...|i; ...|i => ...|", p, p, name="e")
    xi = g.row_of(w1, "input")
    g.set_equal(xi, xi)
    g.set_row_size(batch, 12)
    return g, dict(batch=batch, x=x, w1=w1, h=h, r=r, s=s, o=o, rows=rows, p=p, t=t, n=n, c=c,
                   e=e, xi=xi)


def test_a_graph_is_rebuilt_by_its_calls():
    g, named = full_graph()
    g.solve()
    for g2 in round_trips(g) + [einrow.Graph.from_json(g.to_json())]:
        assert g2 is not g
        assert g2.to_json() == g.to_json()
        assert [t.name for t in g2.tensors()] == [t.name for t in g.tensors()]
        for t, t2 in zip(g.tensors(), g2.tensors()):
            assert g2.shape(t2) == g.shape(t)
            assert g2.shape_string(t2) == g.shape_string(t)
        assert g2.warnings() == g.warnings()


def test_tensors_and_handles_travel_with_their_graph():
    g, named = full_graph()
    g.solve()
    objs = (g, named["x"], named["batch"], named["o"], named["e"])
    for g2, x2, batch2, o2, e2 in round_trips(objs):
        assert x2 == g2.tensors()[named["x"].index] and x2.name == "x"
        assert isinstance(batch2, einrow.RowVar) and batch2.name == "batch"
        assert batch2.dims == named["batch"].dims
        assert isinstance(o2, einrow.Dim) and o2.size == 16
        assert g2.shape(e2) == g.shape(named["e"])
        if g2 is not g:  # copy.copy of a tuple is the tuple itself
            # The copies belong to the copied graph, not to the original.
            with pytest.raises(einrow.UnknownNameError):
                g.shape(x2)
    # A tensor alone brings its graph along.
    x2 = pickle.loads(pickle.dumps(named["x"]))
    assert x2.shape == named["x"].shape


def test_a_graph_mid_construction_continues_where_it_was():
    g = einrow.Graph()
    a = g.input("a", (2, 3))
    g2, a2 = pickle.loads(pickle.dumps((g, a)))
    b2 = g2.input("b", (3, 4))
    c2 = g2.einsum("ij;jk=>ik", a2, b2)
    g2.solve()
    assert g2.shape(c2) == (2, 4)
    assert g.tensors() == [a]


def test_schemes_instances_and_compiled_graphs(rng):
    g = einrow.Graph()
    batch = g.row_var("batch")
    x = g.input("x", batch=(batch, 6), output=(8,))
    w1 = g.parameter("w1", input=(...,), output=(16,))
    h = g.compose(w1, x)
    r = g.pointwise(h)
    w2 = g.parameter("w2", input=(...,), output=(8,))
    y = g.compose(w2, r, name="y")
    scheme = g.solve_scheme(batch)
    inst = scheme.instantiate({batch: (3, 2)})
    program = inst.compile(compute={r: ("+", "first")})
    buffers = {t: rng.random(inst.shape(t)).astype(np.float32) for t in (x, w1, w2)}
    program.run(buffers)
    want = buffers[y].copy()
    # Copied together, the scheme's copy derives from the graph's copy.
    g2, s2 = copy.deepcopy([g, scheme])
    assert all(t in g2.tensors() for t in s2.steps)
    for s2 in round_trips(scheme):
        assert s2.shape_string(s2.steps[-1]) == scheme.shape_string(y)
        assert [v.name for v in s2.vars] == ["batch"]
    for i2 in round_trips(inst):
        assert i2.shape(i2.steps[-1]) == inst.shape(y)
    for p2 in round_trips(program):
        assert [t.name for t in p2.steps] == [t.name for t in program.steps]
        # The copy's graph has the same tensors at the same positions.
        bufs = [None] * program.tensor_count
        for t in (x, w1, w2):
            bufs[t.index] = buffers[t]
        p2.run(bufs)
        np.testing.assert_allclose(bufs[y.index], want)


def test_a_graph_changed_after_is_refused():
    g = einrow.Graph()
    batch = g.row_var("batch")
    x = g.input("x", batch=(batch,), output=(3,))
    w = g.parameter("w", input=(...,), output=(2,))
    g.compose(w, x)
    scheme = g.solve_scheme(batch)
    g.input("late", (2,))
    with pytest.raises(einrow.UnsupportedError, match="changed after this scheme"):
        pickle.dumps(scheme)
    # The graph itself, and what is made from it now, still pickle.
    pickle.dumps(g)
    pickle.dumps(g.solve_scheme(batch))


def test_training_steps(rng):
    g = einrow.Graph()
    x = g.input("x", batch=(4,), output=(3,))
    w = g.parameter("w", input=(3,), output=(2,))
    b = g.parameter("b", output=(2,))
    y = g.pointwise(g.compose(w, x), b)
    loss = g.einsum("...|o; ...|o => ", y, y)
    g.solve()
    train = g.training(loss, [w, b])
    values = {x: rng.normal(size=(4, 3)), w: rng.normal(size=(2, 3)), b: rng.normal(size=(2,))}
    value, grads = train.run(values)
    for t2 in round_trips(train):
        by_index = {t.index: t for t in t2.leaves}
        v2, g2 = t2.run({by_index[k.index]: v for k, v in values.items()})
        np.testing.assert_allclose(v2, value)
        for a, b_ in zip(g2, grads):
            np.testing.assert_allclose(a, b_)


def test_plans_and_executables(rng):
    g = einrow.Graph()
    a, b = g.input("a", (3, 4)), g.input("b", (4, 5))
    c = g.einsum("ij;jk=>ik", a, b)
    cat = g.concat("p; q => p^q", g.input("p", (2,)), g.input("q", (3,)))
    g.solve()
    for t, ops in [(c, [rng.random((3, 4)), rng.random((4, 5))]), (cat, [rng.random(2), rng.random(3)])]:
        plan = g.plan(t, accum="max")
        for p2 in round_trips(plan) + [einrow.Plan.from_json(plan.to_json())]:
            assert p2 == plan and hash(p2) == hash(plan)
            assert p2.to_json() == plan.to_json() and str(p2) == str(plan)
        exe = plan.compile()
        want = exe.run(*ops)
        for e2 in round_trips(exe) + [einrow.Executable.from_json(exe.to_json())]:
            np.testing.assert_array_equal(e2.run(*ops), want)
    compiled = g.compile()
    exe = compiled.executable(c)
    e2 = pickle.loads(pickle.dumps(exe))
    ops = [rng.random((3, 4)), rng.random((4, 5))]
    np.testing.assert_allclose(e2.run(*ops), ops[0] @ ops[1])


def test_malformed_json_is_a_coded_error():
    with pytest.raises(einrow.SpecSyntaxError, match="should be present"):
        einrow.Plan.from_json('{"op": "einsum"}')
    with pytest.raises(einrow.SpecSyntaxError, match="not JSON"):
        einrow.Plan.from_json("{")
    plan = json.loads(einrow.Graph.from_json('{"einrow_graph": 1, "calls": []}').to_json())
    assert plan == {"einrow_graph": 1, "calls": []}
    with pytest.raises(einrow.SpecSyntaxError, match="not a recorded call"):
        einrow.Graph.from_json('{"einrow_graph": 1, "calls": [{"call": "to_json", "args": []}]}')
    with pytest.raises(einrow.UnknownNameError):
        einrow.Graph.from_json(
            '{"einrow_graph": 1, "calls": [{"call": "transpose", "args": [{"tensor": 5}]}]}')
    # A plan whose fields do not fit together is refused when compiled, never run.
    g = einrow.Graph()
    c = g.einsum("ij;jk=>ik", g.input("a", (3, 4)), g.input("b", (4, 5)))
    g.solve()
    text = json.loads(g.plan(c).to_json())
    text["parts"][0]["result"][0] = {"iter": 9}
    with pytest.raises(einrow.ShapeError):
        einrow.Plan.from_json(json.dumps(text)).compile()


def test_errors_pickle_with_their_fields():
    with pytest.raises(einrow.ShapeError) as info:
        einrow.einsum("ij,jk", np.ones((2, 3)), np.ones((4, 4)))
    for e2 in round_trips(info.value):
        assert type(e2) is einrow.MismatchError
        assert (e2.code, e2.span, e2.spans, str(e2)) == (
            info.value.code, info.value.span, info.value.spans, str(info.value))
    g = einrow.Graph()
    t = g.pointwise(g.input("a", (2,)))
    g.solve()
    with pytest.raises(einrow.DTypeError) as info:
        g.plan(t).compile().run(np.array(["x", "y"]))
    assert pickle.loads(pickle.dumps(info.value)).code == "type"


def _run_in_worker(program, leaves, y_index):
    """What a worker process does with a pickled compiled graph: run it."""
    bufs = [None] * program.tensor_count
    for k, v in leaves.items():
        bufs[k] = v
    program.run(bufs)
    return bufs[y_index]


def test_a_compiled_graph_runs_in_another_process(rng):
    g = einrow.Graph()
    x = g.input("x", (4, 3))
    w = g.input("w", (3, 2))
    y = g.numpy("ij,jk->ik", x, w, name="y")
    g.solve()
    program = g.compile()
    leaves = {x.index: rng.random((4, 3)), w.index: rng.random((3, 2))}
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx) as pool:
        got = pool.submit(_run_in_worker, program, leaves, y.index).result(timeout=120)
    np.testing.assert_allclose(got, leaves[x.index] @ leaves[w.index])
