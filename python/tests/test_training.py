"""Gradients: `einsum_vjp` against finite differences of numpy's einsum on the public suite's
cases, and a graph's compiled training step against finite differences of its loss."""

import numpy as np
import pytest

import einrow
from conftest import conformance_cases


def numeric_vjp(spec, operands, cotangent, k):
    """The gradient of sum(cotangent * einsum) with respect to operand k, by central
    differences (exact: einsum is linear in each operand)."""
    grad = np.zeros_like(operands[k])
    for idx in np.ndindex(operands[k].shape):
        up = [o.copy() for o in operands]
        down = [o.copy() for o in operands]
        up[k][idx] += 0.5
        down[k][idx] -= 0.5
        grad[idx] = np.sum(cotangent * (np.einsum(spec, *up) - np.einsum(spec, *down)))
    return grad


def test_einsum_vjp_matches_numpys_finite_differences_on_the_suite():
    rng = np.random.default_rng(0)
    checked = 0
    for case in conformance_cases():
        if "error" in case["expect"] or sum(int(np.prod(s)) for s in case["shapes"]) > 200:
            continue
        ops = [rng.integers(-3, 4, size=s).astype(np.float64) for s in case["shapes"]]
        result = np.einsum(case["spec"], *ops)
        ct = rng.integers(-3, 4, size=np.shape(result)).astype(np.float64)
        grads = einrow.einsum_vjp(case["spec"], *ops, cotangent=ct)
        assert len(grads) == len(ops)
        for k, g in enumerate(grads):
            assert g.shape == ops[k].shape and g.dtype == np.float64
            np.testing.assert_allclose(g, numeric_vjp(case["spec"], ops, ct, k), atol=1e-9, err_msg=case["id"])
        checked += 1
    assert checked >= 150


def test_einsum_vjp_keeps_types_and_refuses_what_has_no_gradient():
    a = np.ones((2, 3), np.float32)
    g = einrow.einsum_vjp("ij->j", a, cotangent=np.array([1.0, 2.0, 3.0], np.float32))
    assert g[0].dtype == np.float32 and (g[0] == [[1, 2, 3], [1, 2, 3]]).all()
    with pytest.raises(TypeError):
        einrow.einsum_vjp("i->", np.arange(3), cotangent=np.array(1.0))
    with pytest.raises(einrow.ShapeError):
        einrow.einsum_vjp("ij->i", a, cotangent=np.ones(3, np.float32))


def mlp(batch=4):
    g = einrow.Graph()
    x = g.input("x", batch=(batch,), output=(3,))
    w = g.parameter("w", input=(3,), output=(2,))
    b = g.parameter("b", output=(2,))
    h = g.compose(w, x)
    y = g.pointwise(h, b)
    loss = g.einsum("...|o; ...|o => ", y, y)
    return g, x, w, b, y, loss


def trained_mlp(seed):
    """The MLP's training step, its tensors `(x, w, b, y)` and random values of its leaves."""
    g, x, w, b, y, loss = mlp()
    g.solve()
    train = g.training(loss, [w, b])
    rng = np.random.default_rng(seed)
    values = {x: rng.normal(size=(4, 3)), w: rng.normal(size=(2, 3)), b: rng.normal(size=(2,))}
    return train, (x, w, b, y), values


def relu_hooks(log):
    """ReLU and its derivative as hooks, each logging `(tensor, the array it changes)`."""
    def relu(t, result):
        log.append((t, result))
        np.maximum(result, 0, out=result)

    def relu_grad(t, result, grad):
        log.append((t, grad))
        grad *= result > 0

    return relu, relu_grad


def assert_relu_mlp(values, leaves, value, grads):
    """The loss and gradients of the MLP with a ReLU on `y`, computed in numpy."""
    x, w, b = leaves
    xs, ws, bs = values[x], values[w], values[b]
    ys = np.maximum(xs @ ws.T + bs, 0)
    np.testing.assert_allclose(value, [np.sum(ys * ys)])
    np.testing.assert_allclose(grads[0], (2 * ys * (ys > 0)).T @ xs)
    np.testing.assert_allclose(grads[1], (2 * ys * (ys > 0)).sum(axis=0))


def test_a_graphs_training_step_matches_finite_differences():
    train, (x, w, b, y), values = trained_mlp(1)
    value, grads = train.run(values)
    xs, ws, bs = values[x], values[w], values[b]
    ys = xs @ ws.T + bs
    np.testing.assert_allclose(value, [np.sum(ys * ys)])
    np.testing.assert_allclose(grads[0], 2 * ys.T @ xs)
    np.testing.assert_allclose(grads[1], 2 * ys.sum(axis=0))
    assert train.arena_len <= train.unplanned_len


def test_hooks_apply_an_activation_and_its_derivative():
    train, (x, w, b, y), values = trained_mlp(2)

    def forward(t, result):
        if t == y:
            np.maximum(result, 0, out=result)

    def backward(t, result, grad):
        if t == y:
            grad *= result > 0

    value, grads = train.run(values, forward=forward, backward=backward)
    assert_relu_mlp(values, (x, w, b), value, grads)
    with pytest.raises(ZeroDivisionError):
        train.run(values, forward=lambda t, r: 1 / 0)


def test_hooks_as_mappings_call_only_their_steps():
    train, (x, w, b, y), values = trained_mlp(3)
    seen = []
    relu, relu_grad = relu_hooks(seen)
    value, grads = train.run(values, forward={y: relu}, backward={y: relu_grad})
    assert [t for t, _ in seen] == [y, y]
    assert_relu_mlp(values, (x, w, b), value, grads)
    with pytest.raises(TypeError, match="a function or a mapping"):
        train.run(values, forward=3)
    with pytest.raises(ZeroDivisionError):
        train.run(values, backward={y: lambda t, r, g: 1 / 0})
    with pytest.raises(TypeError, match="keys are tensors"):
        train.run(values, forward={"y": relu})
    other = mlp()[4]
    with pytest.raises(ValueError, match="another graph"):
        train.run(values, forward={other: relu})


def test_hook_arrays_are_reused_between_runs_and_results_stay_right():
    train, (x, w, b, y), values = trained_mlp(4)
    kept = []
    relu, _ = relu_hooks(kept)
    first = train.run(values, forward={y: relu})
    second = train.run(values, forward={y: relu})
    assert kept[0][1] is kept[1][1]
    np.testing.assert_allclose(first[0], second[0])
    for g1, g2 in zip(first[1], second[1]):
        np.testing.assert_allclose(g1, g2)
    # A hook that reshapes its array in place gets a fresh one next time.

    def flatten(t, result):
        result.shape = (result.size,)

    train.run(values, forward={y: flatten})
    third = train.run(values, forward={y: relu})
    np.testing.assert_allclose(third[0], first[0])


NATIVE = {
    "relu": (lambda z: np.maximum(z, 0), lambda z: (z > 0) * 1.0),
    "elu": (lambda z: np.where(z > 0, z, np.expm1(z)), lambda z: np.where(z > 0, 1.0, np.exp(z))),
    "sigmoid": (lambda z: 1 / (1 + np.exp(-z)), lambda z: np.exp(-z) / (1 + np.exp(-z)) ** 2),
    "tanh": (np.tanh, lambda z: 1 - np.tanh(z) ** 2),
    "softplus": (lambda z: np.log1p(np.exp(z)), lambda z: 1 / (1 + np.exp(-z))),
}


@pytest.mark.parametrize("name", sorted(NATIVE))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_native_activations_match_numpy(name, dtype):
    train, (x, w, b, y), values = trained_mlp(5)
    values = {t: v.astype(dtype) for t, v in values.items()}
    value, grads = train.run(values, activations={y: name})
    f, df = NATIVE[name]
    xs, ws, bs = (values[t].astype(np.float64) for t in (x, w, b))
    z = xs @ ws.T + bs
    gz = 2 * f(z) * df(z)
    tol = 1e-9 if dtype == np.float64 else 1e-4
    assert value.dtype == dtype and grads[0].dtype == dtype
    np.testing.assert_allclose(value, [np.sum(f(z) ** 2)], rtol=tol)
    np.testing.assert_allclose(grads[0], gz.T @ xs, rtol=tol, atol=tol)
    np.testing.assert_allclose(grads[1], gz.sum(axis=0), rtol=tol, atol=tol)


def test_native_activations_refuse_what_they_cannot_apply():
    train, (x, w, b, y), values = trained_mlp(6)
    with pytest.raises(ValueError, match="no activation `gelu`: one of relu, elu"):
        train.run(values, activations={y: "gelu"})
    with pytest.raises(TypeError, match="maps tensors to activation names"):
        train.run(values, activations={y: np.tanh})
    with pytest.raises(einrow.UnknownNameError, match="is a leaf"):
        train.run(values, activations={x: "relu"})
    relu, relu_grad = relu_hooks([])
    with pytest.raises(ValueError, match="both an activation and a hook"):
        train.run(values, activations={y: "relu"}, backward={y: relu_grad})
    # A function hook is not called for the step with an activation.
    seen = []
    value, grads = train.run(values, activations={y: "relu"}, forward=lambda t, r: seen.append(t))
    assert y not in seen
    assert_relu_mlp(values, (x, w, b), value, grads)
