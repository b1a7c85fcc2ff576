#!/usr/bin/env python3
"""Side-by-side einsum timings: einrow vs numpy, in the same run and with the same threads.

For every case of benches/cases.rs the script times numpy.einsum (optimize=False and
optimize=True) in this process, then runs examples/bench_einsum for the same case right
after, so both see the same machine load. It also times a GEMM microbenchmark (numpy's
`@` and einrow's kernel on an n x n f32 product) to get the reachable FLOP/s, and prints
the ratios against the targets:

  GEMM-shaped cases   einrow <= 0.9 x numpy optimize=True
  other cases         einrow <= 1.0 x optimize=True and <= 0.1 x optimize=False
  512^2 f32 GEMM      >= 70% of the microbenchmark FLOP/s

Usage: python3 benches/compare_numpy.py [--threads N] [--min-time S] [--case NAME ...]
       [--no-build] [--json FILE]
Threads are pinned with OPENBLAS/OMP/MKL_NUM_THREADS for numpy and --threads +
RAYON_NUM_THREADS for einrow. Timings are the best of repeated runs (robust to load).
"""

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "examples", "bench_einsum")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--min-time", type=float, default=0.5, help="seconds spent timing each measurement")
    p.add_argument("--case", action="append", default=[], help="only these cases (repeatable)")
    p.add_argument("--repeat", type=int, default=1,
                   help="measure every case this many times (numpy, einrow, numpy, ...) and keep each best")
    p.add_argument("--no-build", action="store_true", help="do not run cargo build first")
    p.add_argument("--json", help="also write the results to this file")
    return p.parse_args()


ARGS = parse_args()
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ[var] = str(ARGS.threads)

import numpy as np  # noqa: E402  (after the thread variables are set)

CASES = [
    # name, spec, shapes, dtype, copy, gemm-shaped  (must match benches/cases.rs)
    ("matmul512_f32", "ij,jk->ik", [(512, 512), (512, 512)], np.float32, False, True),
    ("matmul512_f64", "ij,jk->ik", [(512, 512), (512, 512)], np.float64, False, True),
    ("bmm64x128_f64", "bij,bjk->bik", [(64, 128, 128), (64, 128, 128)], np.float64, False, True),
    ("tensordot100_f64", "ijk,jkl->il", [(100, 100, 100), (100, 100, 100)], np.float64, False, True),
    ("chain5_n10_f64", "pi,qj,ijkl,rk,sl->pqrs",
     [(10, 10), (10, 10), (10, 10, 10, 10), (10, 10), (10, 10)], np.float64, False, False),
    ("sum3000x4000_f64", "ij->", [(3000, 4000)], np.float64, False, False),
    ("transpose4000_f64", "ij->ji", [(4000, 4000)], np.float64, False, False),
    ("transpose4000_copy_f64", "ij->ji", [(4000, 4000)], np.float64, True, False),
    ("hadamard1000_f64", "ij,ij->ij", [(1000, 1000), (1000, 1000)], np.float64, False, False),
    ("trace1000_f64", "ii->", [(1000, 1000)], np.float64, False, False),
    ("matmul8_f64", "ij,jk->ik", [(8, 8), (8, 8)], np.float64, False, False),
    ("outer_batch_small_f64", "bi,bj->bij", [(4, 16), (4, 16)], np.float64, False, False),
]


def operands(shapes, dtype):
    """The same values as benches/cases.rs: ((i*7919 + k*104729) % 1000)/500 - 1."""
    out = []
    for k, s in enumerate(shapes):
        n = int(np.prod(s))
        i = np.arange(n, dtype=np.int64)
        v = ((i * 7919 + k * 104729) % 1000) / 500.0 - 1.0
        out.append(v.astype(dtype).reshape(s))
    return out


def best_time(fn, min_time):
    """Best per-call time: calls batched so one batch lasts >= 1 ms, batches for min_time."""
    fn()
    number = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        dt = time.perf_counter() - t0
        if dt >= 1e-3 or number >= 1 << 20:
            break
        number *= 4
    best = dt / number
    start = time.perf_counter()
    runs = 1
    while time.perf_counter() - start < min_time or runs < 3:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
        runs += 1
    return best


def einrow(args):
    out = subprocess.run([BIN, "--threads", str(ARGS.threads), "--min-time", str(ARGS.min_time)] + args,
                         check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def fmt(t):
    if t is None:
        return "-"
    for unit, f in (("s", 1), ("ms", 1e3), ("us", 1e6)):
        if t * f >= 1:
            return f"{t * f:.3g} {unit}"
    return f"{t * 1e9:.3g} ns"


def main():
    if not ARGS.no_build:
        subprocess.run(["cargo", "build", "--release", "--example", "bench_einsum"], cwd=ROOT, check=True)
    load_before = os.getloadavg()
    rows = []
    for name, spec, shapes, dtype, copy, gemm in CASES:
        if ARGS.case and name not in ARGS.case:
            continue
        ops = operands(shapes, dtype)
        post = (lambda r: r.copy()) if copy else (lambda r: r)
        t_opt = t_noopt = t_ein = float("inf")
        for _ in range(ARGS.repeat):
            t_opt = min(t_opt, best_time(lambda: post(np.einsum(spec, *ops, optimize=True)), ARGS.min_time))
            t_noopt = min(t_noopt, best_time(lambda: post(np.einsum(spec, *ops, optimize=False)), ARGS.min_time))
            t_ein = min(t_ein, einrow(["--case", name])[0]["best_s"])
        rows.append(dict(case=name, gemm=gemm, einrow_s=t_ein, numpy_opt_s=t_opt, numpy_noopt_s=t_noopt))
        print(f"  {name}: einrow {fmt(t_ein)}, numpy opt {fmt(t_opt)}, no-opt {fmt(t_noopt)}", file=sys.stderr)
    micro = []
    for n in (512, 1024):
        a = operands([(n, n)], np.float32)[0]
        b = operands([(n, n)], np.float32)[0].T.copy()
        t_np = t_ein = float("inf")
        for _ in range(ARGS.repeat):
            t_np = min(t_np, best_time(lambda: a @ b, ARGS.min_time))
            t_ein = min(t_ein, einrow(["--gemm-micro", str(n)])[0]["best_s"])
        flop = 2.0 * n ** 3
        micro.append(dict(n=n, numpy_gflops=flop / t_np / 1e9, einrow_gflops=flop / t_ein / 1e9))
    load_after = os.getloadavg()
    report(rows, micro, load_before, load_after)
    if ARGS.json:
        with open(ARGS.json, "w") as f:
            json.dump(dict(threads=ARGS.threads, load=[load_before, load_after], cases=rows, micro=micro), f, indent=1)


def report(rows, micro, load_before, load_after):
    print(f"threads={ARGS.threads}  load average before {load_before[0]:.2f}/{load_before[1]:.2f}, "
          f"after {load_after[0]:.2f}/{load_after[1]:.2f} (1/5 min, {os.cpu_count()} CPUs)")
    print(f"{'case':24} {'einrow':>10} {'np opt':>10} {'np no-opt':>10} {'/opt':>7} {'/no-opt':>8}  target")
    for r in rows:
        ro, rn = r["einrow_s"] / r["numpy_opt_s"], r["einrow_s"] / r["numpy_noopt_s"]
        if r["gemm"]:
            ok, target = ro <= 0.9, "<=0.9 opt"
        else:
            ok, target = ro <= 1.0 and rn <= 0.1, "<=1.0 opt, <=0.1 no-opt"
        print(f"{r['case']:24} {fmt(r['einrow_s']):>10} {fmt(r['numpy_opt_s']):>10} {fmt(r['numpy_noopt_s']):>10} "
              f"{ro:7.3f} {rn:8.4f}  {target} {'ok' if ok else 'MISSED'}")
    peak = max(max(m["numpy_gflops"], m["einrow_gflops"]) for m in micro)
    for m in micro:
        print(f"GEMM micro {m['n']}^2 f32: numpy @ {m['numpy_gflops']:.1f} GFLOP/s, "
              f"einrow kernel {m['einrow_gflops']:.1f} GFLOP/s")
    mm = [r for r in rows if r["case"] == "matmul512_f32"]
    if mm:
        g = 2.0 * 512 ** 3 / mm[0]["einrow_s"] / 1e9
        print(f"matmul512_f32 einsum: {g:.1f} GFLOP/s = {100 * g / peak:.0f}% of reachable {peak:.1f} "
              f"GFLOP/s (target >= 70%) {'ok' if g >= 0.7 * peak else 'MISSED'}")


if __name__ == "__main__":
    main()
