"""Operands of a type einrow computes in another (int8 in int64, float16 in float32) are
converted piece by piece: numpy's values, without a converted copy of any operand or result
whole."""

import subprocess
import sys
import textwrap

import numpy as np

import einrow


def test_a_broadcast_int8_view_is_read_once_not_materialised():
    x = np.broadcast_to(np.array([3], np.int8), (10**9,))
    r = einrow.einsum("i->", x)
    # numpy's int8 sum wraps: 3 * 10^9 modulo 256.
    assert r.dtype == np.int8 and r == np.int8((3 * 10**9) % 256)
    y = np.broadcast_to(np.arange(4, dtype=np.uint8)[:, None], (4, 10**8))
    np.testing.assert_array_equal(einrow.einsum("ij->i", y), np.einsum("ij->i", y[:, :10**8]))


def test_int8_operands_larger_than_a_piece_give_numpys_values():
    rng = np.random.default_rng(3)
    a = rng.integers(-128, 128, size=(2500, 2000), dtype=np.int8)
    b = rng.integers(-128, 128, size=(2000, 3), dtype=np.int8)
    np.testing.assert_array_equal(einrow.einsum("ij,jk->ik", a, b), np.einsum("ij,jk->ik", a, b))
    v = rng.integers(0, 256, size=6_000_000, dtype=np.uint8)
    assert einrow.einsum("i,i->", v, v) == np.einsum("i,i->", v, v)
    w = np.zeros((3, 5_000_000), np.int16)
    w[:, ::7] = 300
    out = np.full(3, 9, np.int64)
    einrow.einsum("ij->i", w, out=out)
    np.testing.assert_array_equal(out, np.einsum("ij->i", w.astype(np.int64)))


def test_float16_operands_larger_than_a_piece_are_computed_in_float32():
    x = np.full(5_000_000, 2.0**-10, np.float16)
    exact = 5_000_000 * 2.0**-10  # 4882.8125, exact in float32
    r = einrow.einsum("i->", x)
    assert r.dtype == np.float16 and r == np.float16(exact)
    r32 = einrow.einsum("i->", x, dtype=np.float32)
    assert r32.dtype == np.float32 and r32 == np.float32(exact)


def test_converting_a_large_operand_keeps_memory_to_a_piece():
    # In a fresh process: the peak resident memory grows by about the operand (60 MB) and a
    # piece (32 MB), not by an int64 copy of the operand (480 MB).
    code = textwrap.dedent(
        """
        import resource, numpy as np, einrow
        x = np.ones(60_000_000, np.int8)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        assert einrow.einsum("i->", x) == np.int8((60_000_000 + 128) % 256 - 128)
        grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        print(grew)
        """
    )
    grew_kb = int(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout)
    assert grew_kb < 200_000, f"peak memory grew by {grew_kb} KB"
