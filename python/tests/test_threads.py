"""The GIL is released while a large einsum or compiled plan runs: another Python thread
keeps running meanwhile; results from several threads at once are right."""

import sys
import threading

import numpy as np
import pytest

import einrow


@pytest.fixture
def one_thread():
    before = einrow.get_num_threads()
    einrow.set_num_threads(1)
    yield
    einrow.set_num_threads(before)


def ticks_while(run):
    """Runs `run` on another thread and counts the main thread's loop turns taken while the
    worker is inside the call. With a switch interval far longer than the call, the main
    thread can only run while the worker has released the GIL: a call that holds it gives 0."""
    state = {"inside": False, "done": False, "ticks": 0}

    def worker():
        state["inside"] = True
        run()
        state["inside"] = False
        state["done"] = True

    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.5)
    try:
        t = threading.Thread(target=worker)
        t.start()
        while not state["done"]:
            if state["inside"]:
                state["ticks"] += 1
        t.join()
    finally:
        sys.setswitchinterval(interval)
    return state["ticks"]


def runs_beside(run):
    """Whether the main thread ran while `run` did, in one of a few tries: a call holding the
    GIL never lets it; a busy machine may not schedule it during one short call."""
    return any(ticks_while(run) > 0 for _ in range(5))


def test_large_einsum_releases_the_gil(one_thread, rng):
    a = rng.uniform(size=(500, 500))
    einrow.einsum("ij,jk->ik", a, a)  # planned once
    assert runs_beside(lambda: einrow.einsum("ij,jk->ik", a, a))


def test_large_compiled_plan_releases_the_gil(one_thread, rng):
    g = einrow.Graph()
    x, y = g.input("x", (500, 500)), g.input("y", (500, 500))
    exe = g.plan((g.einsum("ij;jk=>ik", x, y), g.solve())[0]).compile()
    a = rng.uniform(size=(500, 500))
    assert runs_beside(lambda: exe.run(a, a))


@pytest.mark.parametrize("dtype", [np.float64, np.int8])
def test_a_large_compiled_graph_releases_the_gil(one_thread, rng, dtype):
    g = einrow.Graph()
    batch = g.row_var("batch")
    x = g.input("x", batch=(batch,), output=(400,))
    w = g.parameter("w", input=(...,), output=(400,))
    y = g.compose(w, x)
    program = g.solve_scheme(batch).instantiate({batch: 400}).compile()
    buffers = {x: (rng.uniform(size=(400, 400)) * 4).astype(dtype),
               w: (rng.uniform(size=(400, 400)) * 4).astype(dtype)}
    assert runs_beside(lambda: program.run(buffers))
    assert buffers[y].dtype == dtype


def test_threads_share_plans_and_get_right_results(rng):
    mats = [rng.uniform(size=(64, 64)) for _ in range(4)]
    results = [None] * 4

    def work(i):
        for _ in range(20):
            results[i] = einrow.einsum("ij,jk->ik", mats[i], mats[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for m, r in zip(mats, results):
        np.testing.assert_allclose(r, m @ m, rtol=1e-12)


def test_thread_count_setting():
    before = einrow.get_num_threads()
    einrow.set_num_threads(3)
    assert einrow.get_num_threads() == 3
    with pytest.raises(einrow.BadValueError):
        einrow.set_num_threads(0)
    einrow.set_num_threads(None)
    assert einrow.get_num_threads() >= 1
    einrow.set_num_threads(before)
