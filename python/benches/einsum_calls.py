"""Per-call cost of einrow.einsum beside numpy.einsum, side by side in one process.

    python python/benches/einsum_calls.py

Both run on one thread (OPENBLAS_NUM_THREADS=1 for numpy's BLAS, set_num_threads(1) for
einrow). Each row alternates the two calls over several rounds and keeps each one's best
round (microseconds per call), so both see the same machine load. numpy runs without
OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE (some machines set them; they slow numpy's BLAS), and
`numpy.show_runtime()` is printed first: it names the kernel numpy's BLAS runs.
"""

import os

for override in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
    os.environ.pop(override, None)

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import timeit  # noqa: E402

import numpy as np  # noqa: E402

import einrow  # noqa: E402


def best_of(f, number, rounds):
    return min(timeit.repeat(f, number=number, repeat=rounds)) / number * 1e6


def row(name, ours, theirs, label, number, rounds=7):
    ours(), theirs()  # warm: plans made, pages touched
    a_best, b_best = float("inf"), float("inf")
    for _ in range(rounds):
        a_best = min(a_best, best_of(ours, number, 1))
        b_best = min(b_best, best_of(theirs, number, 1))
    print(f"{name:<44} {a_best:>10.2f} {b_best:>10.2f} {a_best / b_best:>7.2f}  {label}")


def main():
    einrow.set_num_threads(1)
    np.show_runtime()
    rng = np.random.default_rng(1)
    print(f"{'einsum':<44} {'einrow us':>10} {'numpy us':>10} {'ratio':>7}  numpy call")
    x, y = rng.random((8, 8)), rng.random((8, 8))
    row("ij,jk->ik 8x8 f64", lambda: einrow.einsum("ij,jk->ik", x, y),
        lambda: np.einsum("ij,jk->ik", x, y), "optimize=False", 20000)
    o = np.empty((8, 8))
    row("ij,jk->ik 8x8 f64, out=", lambda: einrow.einsum("ij,jk->ik", x, y, out=o),
        lambda: np.einsum("ij,jk->ik", x, y, out=o), "optimize=False", 20000)
    row("ij,jk->ik 8x8 f64, transposed operands", lambda: einrow.einsum("ij,jk->ik", x.T, y.T),
        lambda: np.einsum("ij,jk->ik", x.T, y.T), "optimize=False", 20000)
    v = rng.random(8)
    row("i,i-> 8 f64", lambda: einrow.einsum("i,i->", v, v),
        lambda: np.einsum("i,i->", v, v), "optimize=False", 20000)
    b = rng.random((4, 8, 8))
    row("bij,bjk->bik 4x8x8 f64", lambda: einrow.einsum("bij,bjk->bik", b, b),
        lambda: np.einsum("bij,bjk->bik", b, b), "optimize=False", 10000)
    t = rng.random((16, 16))
    row("ii->i 16x16 (a view)", lambda: einrow.einsum("ii->i", t),
        lambda: np.einsum("ii->i", t), "optimize=False", 20000)
    m = rng.random((64, 64))
    row("ij,jk,kl->il 64^2 f64", lambda: einrow.einsum("ij,jk,kl->il", m, m, m),
        lambda: np.einsum("ij,jk,kl->il", m, m, m, optimize=True), "optimize=True", 300)
    p, q, r = rng.random((1000, 1000)), rng.random((1000, 1000)), np.empty((1000, 1000))
    row("ij,ij->ij 1000^2 f64, out=", lambda: einrow.einsum("ij,ij->ij", p, q, out=r),
        lambda: np.multiply(p, q, out=r), "np.multiply(out=)", 20)
    row("ij,ij->ij 1000^2 f64", lambda: einrow.einsum("ij,ij->ij", p, q),
        lambda: np.multiply(p, q), "np.multiply", 20)
    a32 = rng.random((512, 512), dtype=np.float32)
    b32 = rng.random((512, 512), dtype=np.float32)
    row("ij,jk->ik 512^2 f32", lambda: einrow.einsum("ij,jk->ik", a32, b32),
        lambda: np.einsum("ij,jk->ik", a32, b32, optimize=True), "optimize=True (BLAS)", 5)
    row("ij,jk->ik 512^2 f32, first operand transposed",
        lambda: einrow.einsum("ij,jk->ik", a32.T, b32),
        lambda: np.einsum("ij,jk->ik", a32.T, b32, optimize=True), "optimize=True (BLAS)", 5)


if __name__ == "__main__":
    main()
