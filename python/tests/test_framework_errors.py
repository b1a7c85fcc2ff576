"""Bad input to schemes, instances and compiled graphs: a handle or tensor of another graph,
sizes that do not fit the scheme, buffers of the wrong shape, count or element type. Each
raises einrow's coded error (or a TypeError for an argument of the wrong kind); nothing
crashes."""

import numpy as np
import pytest

import einrow


@pytest.fixture
def setup():
    g = einrow.Graph()
    batch = g.row_var("batch")
    x = g.input("x", batch=(batch,), output=(3,))
    w = g.parameter("w", input=(...,), output=(2,))
    y = g.compose(w, x)
    scheme = g.solve_scheme(batch)
    return g, batch, x, w, y, scheme


def test_handles_of_another_graph(setup):
    g, batch, x, w, y, scheme = setup
    other = einrow.Graph()
    foreign = other.row_var("batch")
    other.input("z", batch=(foreign,), output=(3,))
    with pytest.raises(einrow.LabelError) as info:
        g.solve_scheme(foreign)
    assert info.value.code == "label"
    with pytest.raises(einrow.LabelError):
        g.set_dim(foreign, 3)
    with pytest.raises(einrow.LabelError):
        scheme.instantiate({foreign: 3})
    with pytest.raises(einrow.LabelError):
        scheme.is_rank_fixed(foreign)
    inst = scheme.instantiate({batch: 2})
    with pytest.raises(einrow.LabelError):
        inst.dims(foreign)
    with pytest.raises(TypeError):
        g.solve_scheme(x)
    with pytest.raises(TypeError):
        g.set_dim("batch", 3)


def test_a_handle_an_instance_cannot_size(setup):
    g, batch, x, w, y, scheme = setup
    unrelated = g.row_var("unrelated")
    inst = scheme.instantiate([(2,)])
    with pytest.raises(einrow.UnsupportedError):
        inst.dims(unrelated)
    with pytest.raises(einrow.LabelError):
        scheme.min_size(unrelated)


def test_sizes_that_do_not_fit_the_scheme(setup):
    g, batch, x, w, y, scheme = setup
    with pytest.raises(einrow.ArityError):
        scheme.instantiate({})
    with pytest.raises(einrow.ArityError):
        scheme.instantiate([(2,), (3,)])
    with pytest.raises(einrow.BadValueError):
        scheme.instantiate({batch: -1})
    with pytest.raises(einrow.BadValueError):
        scheme.instantiate({batch: (2, -4)})
    with pytest.raises(einrow.BadValueError):
        scheme.instantiate({batch: 1 << 63})
    with pytest.raises(einrow.LabelError):
        scheme.instantiate({"nobody": 2})
    with pytest.raises(TypeError):
        scheme.instantiate({batch: "two"})
    with pytest.raises(TypeError):
        scheme.instantiate("batch")
    # A variable read axis by axis has exactly one axis, at least as long as the graph reads.
    h = einrow.Graph()
    b = h.row_var("b")
    z = h.input("z", batch=(b,), output=(3,))
    h.permute("4|i => i", z)
    fixed = h.solve_scheme(b)
    assert fixed.is_rank_fixed(b) and fixed.min_size(b) == 5
    with pytest.raises(einrow.RankError):
        fixed.instantiate({b: (5, 5)})
    with pytest.raises(einrow.BoundsError):
        fixed.instantiate({b: 4})


def test_tensors_of_another_graph_or_added_later(setup):
    g, batch, x, w, y, scheme = setup
    inst = scheme.instantiate({batch: 2})
    program = inst.compile()
    other = einrow.Graph()
    stranger = other.input("x", (3,))
    for call in (lambda t: scheme.shape_string(t), inst.shape, program.shape,
                 lambda t: program.run_step(t)):
        with pytest.raises(einrow.UnknownNameError):
            call(stranger)
    later = g.pointwise(y)
    with pytest.raises(einrow.UnknownNameError):
        inst.shape(later)
    with pytest.raises(einrow.BadValueError):
        inst.plan(x)  # a leaf: no step computed it
    with pytest.raises(einrow.BadValueError):
        program.run_step(w)
    with pytest.raises(einrow.BadValueError):
        inst.compile(compute={x: ("+", "*")})
    with pytest.raises(einrow.BadValueError):
        inst.compile(compute={y: ("sum", None)})
    with pytest.raises(TypeError):
        inst.compile(compute={y: 3})
    with pytest.raises(TypeError):
        inst.compile(compute=[("+", "*")])


def test_buffers_of_the_wrong_shape_count_or_type(setup):
    g, batch, x, w, y, scheme = setup
    program = scheme.instantiate({batch: 4}).compile()
    xs, ws = np.ones((4, 3), np.float32), np.ones((2, 3), np.float32)
    with pytest.raises(einrow.ElemsError) as info:
        program.run({x: np.ones((4, 4), np.float32), w: ws})
    assert info.value.code == "elems" and "`x`" in info.value.message
    with pytest.raises(einrow.ElemsError):
        program.run({x: xs, w: ws, y: np.ones((2, 4), np.float32)})
    with pytest.raises(einrow.ElemsError):
        program.run({x: xs})  # `w` is missing
    with pytest.raises(einrow.ArityError):
        program.run([xs, ws])
    with pytest.raises(einrow.DTypeError):
        program.run({x: xs, w: ws.astype(np.float64)})
    with pytest.raises(einrow.DTypeError):
        program.run({x: xs.astype(np.complex64), w: ws})
    with pytest.raises(TypeError):
        program.run({x: [[1, 2, 3]] * 4, w: ws})
    with pytest.raises(TypeError):
        program.run(3)
    with pytest.raises(einrow.ElemsError):
        program.run_step(y, ws, xs.T)
    with pytest.raises(einrow.ArityError):
        program.run_step(y, ws)
    with pytest.raises(einrow.ElemsError):
        program.run_step(y, ws, xs, out=np.zeros((2, 4), np.float32))
    frozen = np.zeros((4, 2), np.float32)
    frozen.flags.writeable = False
    with pytest.raises(einrow.BadValueError):
        program.run_step(y, ws, xs, out=frozen)
    # An error raised by `after` reaches the caller.
    def fail(t, out):
        raise RuntimeError("stop")
    with pytest.raises(RuntimeError):
        program.run({x: xs, w: ws}, after=fail)
    # A valid run after all of these.
    done = program.run({x: xs, w: ws})
    np.testing.assert_allclose(done[y], np.full((4, 2), 3.0))


def test_a_result_sharing_memory_with_an_operand(setup):
    g, batch, x, w, y, scheme = setup
    program = scheme.instantiate({batch: 2}).compile()
    buf = np.arange(6, dtype=np.float64).reshape(2, 3)
    ws = np.ones((2, 3))
    out = buf[:, :2]  # shares memory with `x`'s buffer
    want = buf @ ws.T
    program.run({x: buf, w: ws, y: out})
    np.testing.assert_allclose(out, want)
