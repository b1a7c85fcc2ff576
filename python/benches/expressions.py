"""Per-call cost of einrow.contract_expression beside opt_einsum.contract_expression, side by
side in one process.

    python python/benches/expressions.py

Both expressions are built once, outside the timing; each row then alternates calls of the two
over several rounds and keeps each one's best round (microseconds per call), so both see the
same machine load. Everything runs on one thread (OPENBLAS_NUM_THREADS=1 for numpy's BLAS,
which opt_einsum's numpy backend calls through tensordot and matmul; set_num_threads(1) for
einrow). OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are removed from the environment (some
machines set them; they slow numpy's BLAS), and `numpy.show_runtime()` is printed first: it
names the kernel numpy's BLAS runs. Each row checks that the two results agree.
"""

import os

for override in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
    os.environ.pop(override, None)

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import timeit  # noqa: E402

import numpy as np  # noqa: E402
import opt_einsum  # noqa: E402

import einrow  # noqa: E402


def best_of(f, number):
    return min(timeit.repeat(f, number=number, repeat=1)) / number * 1e6


def row(name, spec, arrays, number, rounds=7, constants=None):
    """Builds both expressions for `spec` on the shapes of `arrays` (the arrays themselves at
    the positions in `constants`) and times calls on the other arrays."""
    constants = constants or []
    shapes = [a if i in constants else a.shape for i, a in enumerate(arrays)]
    args = [a for i, a in enumerate(arrays) if i not in constants]
    ours = einrow.contract_expression(spec, *shapes, constants=constants)
    theirs = opt_einsum.contract_expression(spec, *shapes, constants=constants)
    got, want = ours(*args), theirs(*args)
    tol = 1e-4 if want.dtype in (np.float32, np.complex64) else 1e-10
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    assert got.dtype == want.dtype
    a_best, b_best = float("inf"), float("inf")
    for _ in range(rounds):
        a_best = min(a_best, best_of(lambda: ours(*args), number))
        b_best = min(b_best, best_of(lambda: theirs(*args), number))
    print(f"{name:<50} {a_best:>10.2f} {b_best:>12.2f} {a_best / b_best:>7.2f}")


def complex_random(rng, shape):
    return rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)


def main():
    einrow.set_num_threads(1)
    np.show_runtime()
    print(f"opt_einsum {opt_einsum.__version__}, numpy {np.__version__}")
    rng = np.random.default_rng(1)
    print(f"{'expression':<50} {'einrow us':>10} {'opt_einsum us':>12} {'ratio':>7}")
    x, y = rng.random((8, 8)), rng.random((8, 8))
    row("ij,jk->ik 8x8 f64", "ij,jk->ik", [x, y], 20000)
    b1, b2 = rng.random((64, 128, 128)), rng.random((64, 128, 128))
    row("bij,bjk->bik 64x128x128 f64", "bij,bjk->bik", [b1, b2], 20)
    chain = "pi,qj,ijkl,rk,sl->pqrs"
    ops = [rng.random((10, 10)) for _ in range(2)] + [rng.random((10,) * 4)]
    ops += [rng.random((10, 10)) for _ in range(2)]
    row(f"{chain} n=10 f64", chain, ops, 500)
    mats = [rng.random((64, 64)) for _ in range(5)]
    row("ab,bc,cd,de,ef->af 64^2 f64", "ab,bc,cd,de,ef->af", mats, 300)
    row("ab,bc,cd,de,ef->af 64^2 f64, constants 0 and 1", "ab,bc,cd,de,ef->af", mats, 300,
        constants=[0, 1])
    zs = [complex_random(rng, (10, 10)) for _ in range(2)] + [complex_random(rng, (10,) * 4)]
    zs += [complex_random(rng, (10, 10)) for _ in range(2)]
    row(f"{chain} n=10 c128", chain, zs, 500)
    zx, zy = complex_random(rng, (8, 8)), complex_random(rng, (8, 8))
    row("ij,jk->ik 8x8 c128", "ij,jk->ik", [zx, zy], 20000)


if __name__ == "__main__":
    main()
