#!/usr/bin/env python3
"""Side-by-side einsum timings: einrow against numpy (and torch CPU when it imports), in one run.

For every case of benches/cases.rs and every thread count of the sweep, the script times
numpy.einsum (optimize=False and optimize=True) and torch.einsum in a worker process pinned to
that thread count, then runs examples/bench_einsum for the same case and threads right after,
so all of them see the same machine load (cases outer, thread counts inner: interleaved). It
also times a GEMM microbenchmark (numpy's and torch's `@` and einrow's kernel on n x n f32
products) and the scale benchmark through the CLI (`einrow infer` on a generated transformer
program, and `einrow check` on the same program as an `infer` case: wall time, the child's CPU
time and peak memory), then prints the ratios against the targets:

  one thread    GEMM-shaped cases <= 1.0 x numpy optimize=True; GEMM micro >= 90% of numpy's @;
                matmul8 and the small batched outer product <= 1.0 x numpy optimize=False;
                the transposed copy <= 0.8 x numpy; every other case <= 1.0 x the faster of
                numpy's two paths
  more threads  every case <= 1.0 x the faster of numpy's two paths, and <= 1.0 x torch
  scale         100k steps <= 1 s, 1M steps <= 10 s, time(1M) / time(100k) <= 11

numpy runs without OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE (some machines set them; they make
OpenBLAS pick a slower kernel or blocking), and the report names the kernel numpy's OpenBLAS
runs. Threads are pinned with OPENBLAS/OMP/MKL_NUM_THREADS (and torch.set_num_threads) in the
worker, and --threads + RAYON_NUM_THREADS for einrow. Timings are the best of repeated runs.

Usage:
  python3 benches/compare_numpy.py                       # builds, threads 1 and all cores
  python3 benches/compare_numpy.py --threads 1,2 --json out.json
  python3 benches/compare_numpy.py --no-build --bin-dir DIR --threads 1,16 --json out.json
        (DIR holds prebuilt release binaries `bench_einsum` and `einrow`: no cargo needed;
        benches/device_sweep.sh runs the whole sweep that way)
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Variables that change which kernel or blocking OpenBLAS uses: removed for every peer.
BLAS_OVERRIDES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS")

# name, spec, shapes, dtype, copy, gemm-shaped  (must match benches/cases.rs)
CASES = [
    ("matmul512_f32", "ij,jk->ik", [(512, 512), (512, 512)], "float32", False, True),
    ("matmul512_f64", "ij,jk->ik", [(512, 512), (512, 512)], "float64", False, True),
    ("bmm64x128_f64", "bij,bjk->bik", [(64, 128, 128), (64, 128, 128)], "float64", False, True),
    ("tensordot100_f64", "ijk,jkl->il", [(100, 100, 100), (100, 100, 100)], "float64", False, True),
    ("chain5_n10_f64", "pi,qj,ijkl,rk,sl->pqrs",
     [(10, 10), (10, 10), (10, 10, 10, 10), (10, 10), (10, 10)], "float64", False, False),
    ("sum3000x4000_f64", "ij->", [(3000, 4000)], "float64", False, False),
    ("transpose4000_f64", "ij->ji", [(4000, 4000)], "float64", False, False),
    ("transpose4000_copy_f64", "ij->ji", [(4000, 4000)], "float64", True, False),
    ("hadamard1000_f64", "ij,ij->ij", [(1000, 1000), (1000, 1000)], "float64", False, False),
    ("trace1000_f64", "ii->", [(1000, 1000)], "float64", False, False),
    ("matmul8_f64", "ij,jk->ik", [(8, 8), (8, 8)], "float64", False, False),
    ("outer_batch_small_f64", "bi,bj->bij", [(4, 16), (4, 16)], "float64", False, False),
]
# Cases whose one-thread target is numpy's optimize=False path (its C loop, no planning).
NOOPT_TARGET = ("matmul8_f64", "outer_batch_small_f64")
COPY_TARGET = {"transpose4000_copy_f64": 0.8}
MICRO_SIZES = (512, 1024)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", default="1,all",
                   help="comma-separated thread counts, `all` = every CPU (default 1,all)")
    p.add_argument("--min-time", type=float, default=0.5, help="seconds spent timing each measurement")
    p.add_argument("--case", action="append", default=[], help="only these cases (repeatable)")
    p.add_argument("--repeat", type=int, default=1,
                   help="measure every case this many times (interleaved) and keep each best")
    p.add_argument("--no-build", action="store_true", help="do not run cargo build first")
    p.add_argument("--bin-dir", help="folder holding prebuilt `bench_einsum` and `einrow` "
                   "(default: target/release/examples and target/release)")
    p.add_argument("--scale", default="100000,1000000",
                   help="steps of the CLI scale benchmark, comma-separated (`none` skips it)")
    p.add_argument("--scale-repeat", type=int, default=2, help="runs per scale size (best kept)")
    p.add_argument("--scale-timeout", type=float, default=300, help="seconds before a scale run is abandoned")
    p.add_argument("--no-torch", action="store_true", help="leave out the torch column")
    p.add_argument("--no-micro", action="store_true", help="leave out the GEMM microbenchmark")
    p.add_argument("--json", help="also write the results to this file")
    p.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    return p.parse_args()


def thread_list(text):
    out = []
    for part in text.split(","):
        n = os.cpu_count() if part.strip() == "all" else int(part)
        if n >= 1 and n not in out:
            out.append(n)
    return out


def peer_env(threads):
    env = {k: v for k, v in os.environ.items() if k not in BLAS_OVERRIDES}
    for var in THREAD_VARS:
        env[var] = str(threads)
    return env


# ---------------------------------------------------------------- worker (numpy and torch)

def operands(np, shapes, dtype):
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


def blas_kernel(np):
    """Which OpenBLAS kernel numpy runs (threadpoolctl when installed, else OpenBLAS itself)."""
    try:
        from threadpoolctl import threadpool_info
        for lib in threadpool_info():
            if lib.get("user_api") == "blas":
                return f"{lib.get('internal_api')} {lib.get('version')} {lib.get('architecture')}"
    except ImportError:
        pass
    import ctypes
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if "openblas" in line.lower()}
    for path in sorted(p for p in paths if p.startswith("/") and ".so" in p):
        lib = ctypes.CDLL(path)
        for sym in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename",
                    "openblas_get_corename64_", "openblas_get_corename"):
            fn = getattr(lib, sym, None)
            if fn is not None:
                fn.restype = ctypes.c_char_p
                return f"openblas {fn().decode()} ({os.path.basename(path)})"
    return "unknown (no threadpoolctl, no OpenBLAS symbol found)"


def worker(threads, no_torch):
    """Serves timing requests (one JSON line in, one out) with numpy and torch pinned to `threads`."""
    import numpy as np
    torch = None
    if not no_torch:
        try:
            import torch
            torch.set_num_threads(threads)
        except Exception:  # noqa: BLE001 (any import failure leaves the column out)
            torch = None
    for line in sys.stdin:
        req = json.loads(line)
        if req["cmd"] == "info":
            reply = dict(numpy=np.__version__, blas=blas_kernel(np),
                         torch=None if torch is None else torch.__version__,
                         torch_threads=None if torch is None else torch.get_num_threads())
        elif req["cmd"] == "case":
            reply = time_case(np, torch, req["name"], req["min_time"])
        else:
            reply = time_micro(np, torch, req["n"], req["min_time"])
        print(json.dumps(reply), flush=True)


def time_case(np, torch, name, min_time):
    _, spec, shapes, dtype, copy, _ = next(c for c in CASES if c[0] == name)
    ops = operands(np, shapes, getattr(np, dtype))
    post = (lambda r: r.copy()) if copy else (lambda r: r)
    reply = dict(numpy_opt_s=best_time(lambda: post(np.einsum(spec, *ops, optimize=True)), min_time),
                 numpy_noopt_s=best_time(lambda: post(np.einsum(spec, *ops, optimize=False)), min_time),
                 torch_s=None)
    if torch is not None:
        tops = [torch.from_numpy(o) for o in ops]
        tpost = (lambda r: r.contiguous()) if copy else (lambda r: r)
        reply["torch_s"] = best_time(lambda: tpost(torch.einsum(spec, *tops)), min_time)
    return reply


def time_micro(np, torch, n, min_time):
    a = operands(np, [(n, n)], np.float32)[0]
    b = a.T.copy()
    reply = dict(numpy_s=best_time(lambda: a @ b, min_time), torch_s=None)
    if torch is not None:
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        reply["torch_s"] = best_time(lambda: ta @ tb, min_time)
    return reply


class Worker:
    def __init__(self, threads, no_torch):
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", str(threads)]
        if no_torch:
            cmd.append("--no-torch")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, env=peer_env(threads))

    def ask(self, **req):
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            sys.exit(f"a numpy worker died (request {req})")
        return json.loads(line)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


# ---------------------------------------------------------------- einrow

def binaries(args):
    if args.bin_dir:
        d = os.path.abspath(args.bin_dir)
        return os.path.join(d, "bench_einsum"), os.path.join(d, "einrow")
    rel = os.path.join(ROOT, "target", "release")
    return os.path.join(rel, "examples", "bench_einsum"), os.path.join(rel, "einrow")


def einrow_bench(bench, threads, min_time, extra):
    out = subprocess.run([bench, "--threads", str(threads), "--min-time", str(min_time)] + extra,
                         check=True, capture_output=True, text=True, env=peer_env(threads)).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


# ---------------------------------------------------------------- scale benchmark (CLI)

def transformer_program(ops, seq=16, vocab=1000, d=64, heads=4, head_dim=16, hidden=256):
    """The transformer of benches/support/transformer.rs as (declarations, steps) for >= ops steps."""
    decls = [("tokens", f"...,{seq}|{vocab}", False), ("embed", f"...->{d}", True), ("pos", f"{seq}|{d}", True)]
    steps = [("compose", "e", ["embed", "tokens"], None), ("pointwise", "x_0", ["e", "pos"], None)]
    fresh = iter(range(1 << 62))

    def name(stem):
        return f"{stem}_{next(fresh)}"

    def param(stem, shape):
        n = name(stem)
        decls.append((n, shape, True))
        return n

    def op(kind, args, spec=None):
        out = name("t")
        steps.append((kind, out, args, spec))
        return out

    def norm(x):
        gamma, beta = param("gamma", "..."), param("beta", "...")
        mean = op("permute", [x], "...|d => ...|")
        centred = op("einsum", [x, mean], "...|d; ...| => ...|d")
        return op("pointwise", [op("pointwise", [centred, gamma]), beta])

    def attention(x):
        wq, wk, wv = (param(w, f"...->{heads},{head_dim}") for w in ("wq", "wk", "wv"))
        wo = param("wo", "...->...")
        q, k, v = op("compose", [wq, x]), op("compose", [wk, x]), op("compose", [wv, x])
        e = op("pointwise_un", [op("einsum", [q, k], "...,s|h,k; ...,t|h,k => ...,s,t|h")])
        total = op("permute", [e], "...,s,t|h => ...,s|h")
        p = op("einsum", [e, total], "...,s,t|h; ...,s|h => ...,s,t|h")
        mixed = op("einsum", [p, v], "...,s,t|h; ...,t|h,k => ...,s|h,k")
        return op("einsum", [mixed, wo], "...|h,k; h,k->d => ...|d")

    def mlp(x):
        w1, b1 = param("w1", f"...->{hidden}"), param("b1", "...")
        w2, b2 = param("w2", "...->..."), param("b2", "...")
        h = op("pointwise_un", [op("pointwise", [op("compose", [w1, x]), b1])])
        return op("pointwise", [op("compose", [w2, h]), b2])

    x = "x_0"
    while len(steps) + 1 < ops:
        a = op("pointwise", [x, attention(norm(x))])
        x = op("pointwise", [a, mlp(norm(a))])
    decls.append(("unembed", f"...->{vocab}", True))
    steps.append(("compose", "logits", ["unembed", x], None))
    return decls, steps


def program_text(decls, steps):
    lines = [f"{'param' if p else 'tensor'} {n}: {s}" for n, s, p in decls]
    for kind, out, args, spec in steps:
        quoted = f' "{spec}"' if spec else ""
        lines.append(f"{out} = {kind}{quoted} {' '.join(args)}")
    return "\n".join(lines) + "\n"


def case_json(decls, steps, logits_shape):
    case = dict(id="transformer", kind="infer",
                tensors=[dict(name=n, shape=s, param=p) for n, s, p in decls],
                steps=[dict(op=k, out=o, args=a, **({"spec": s} if s else {})) for k, o, a, s in steps],
                expect=dict(shapes=dict(logits=logits_shape)))
    return json.dumps(dict(suite="scale", about="generated transformer program", cases=[case]))


def timed(cmd, timeout):
    """Runs cmd; returns (seconds, CPU seconds of the child (user + system), peak resident MiB
    of the child, stdout, exit status or `None` when it ran past `timeout` seconds and was
    killed)."""
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timed_out = not timer.is_alive()
            timer.cancel()
        dt = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        rc = None if timed_out else proc.returncode
        cpu = usage.ru_utime + usage.ru_stime
        return dt, cpu, usage.ru_maxrss / 1024, out.read().decode(errors="replace"), rc


def scale_bench(einrow_bin, sizes, repeat, timeout):
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            decls, steps = transformer_program(n)
            text_path, case_path = os.path.join(tmp, f"t{n}.ein"), os.path.join(tmp, f"t{n}.json")
            with open(text_path, "w") as f:
                f.write(program_text(decls, steps))
            row = dict(steps=len(steps), infer_s=None, check_s=None, infer_cpu_s=None, check_cpu_s=None,
                       infer_mib=None, check_mib=None)
            logits = []
            for _ in range(repeat):
                dt, cpu, mib, out, rc = timed([einrow_bin, "infer", text_path], timeout)
                if rc != 0:
                    row["infer_error"] = "timed out" if rc is None else f"exit {rc}"
                    break
                row["infer_s"] = min(row["infer_s"] or dt, dt)
                row["infer_cpu_s"] = min(row["infer_cpu_s"] or cpu, cpu)
                row["infer_mib"] = max(row["infer_mib"] or 0, mib)
                logits = [ln.split(": ", 1)[1] for ln in out.splitlines() if ln.startswith("logits: ")]
            if row["infer_s"] is not None and logits:
                with open(case_path, "w") as f:
                    f.write(case_json(decls, steps, logits[-1]))
                for _ in range(repeat):
                    dt, cpu, mib, out, rc = timed([einrow_bin, "check", case_path], timeout)
                    if rc != 0 or "1 passed, 0 failed" not in out:
                        row["check_error"] = f"exit {rc}: {out.strip()[-200:]}"
                        break
                    row["check_s"] = min(row["check_s"] or dt, dt)
                    row["check_cpu_s"] = min(row["check_cpu_s"] or cpu, cpu)
                    row["check_mib"] = max(row["check_mib"] or 0, mib)
            print(f"  scale {row['steps']} steps: infer {fmt(row['infer_s'])}, check {fmt(row['check_s'])}",
                  file=sys.stderr)
            rows.append(row)
    return rows


# ---------------------------------------------------------------- report

def fmt(t):
    if t is None:
        return "-"
    for unit, f in (("s", 1), ("ms", 1e3), ("us", 1e6)):
        if t * f >= 1:
            return f"{t * f:.3g} {unit}"
    return f"{t * 1e9:.3g} ns"


def ratio(a, b):
    return None if a is None or b is None else a / b


def rfmt(r, width=7):
    return f"{'-':>{width}}" if r is None else f"{r:{width}.3f}"


def verdict(r, threads):
    """The target of one case row and whether it is met."""
    name, ein = r["case"], r["einrow_s"]
    fastest = min(r["numpy_opt_s"], r["numpy_noopt_s"])
    checks = []
    if threads == 1:
        if r["gemm"]:
            checks.append(("<=1.0 opt", ein <= r["numpy_opt_s"]))
        elif name in NOOPT_TARGET:
            checks.append(("<=1.0 no-opt", ein <= r["numpy_noopt_s"]))
        else:
            limit = COPY_TARGET.get(name, 1.0)
            checks.append((f"<={limit} numpy", ein <= limit * fastest))
    else:
        checks.append(("<=1.0 numpy", ein <= fastest))
        if r["torch_s"] is not None:
            checks.append(("<=1.0 torch", ein <= r["torch_s"]))
    target = ", ".join(c for c, _ in checks)
    return target, all(ok for _, ok in checks)


def report(res):
    print(f"machine: {res['cpus']} CPUs; load average before {res['load'][0][0]:.2f}, after {res['load'][1][0]:.2f}")
    for t, info in res["peers"].items():
        print(f"threads={t}: numpy {info['numpy']} ({info['blas']}), torch {info['torch'] or 'absent'}")
    removed = res["blas_overrides_removed"]
    print(f"BLAS overrides removed for the peers: {', '.join(removed) if removed else 'none were set'}")
    for t in res["threads"]:
        rows = [r for r in res["cases"] if r["threads"] == t]
        print(f"\nthreads={t}")
        print(f"{'case':24} {'einrow':>9} {'np opt':>9} {'np noopt':>9} {'torch':>9} "
              f"{'/opt':>7} {'/noopt':>7} {'/torch':>7}  target")
        for r in rows:
            target, ok = verdict(r, t)
            print(f"{r['case']:24} {fmt(r['einrow_s']):>9} {fmt(r['numpy_opt_s']):>9} "
                  f"{fmt(r['numpy_noopt_s']):>9} {fmt(r['torch_s']):>9} "
                  f"{rfmt(ratio(r['einrow_s'], r['numpy_opt_s']))} {rfmt(ratio(r['einrow_s'], r['numpy_noopt_s']))} "
                  f"{rfmt(ratio(r['einrow_s'], r['torch_s']))}  {target} {'ok' if ok else 'MISSED'}")
        for m in (m for m in res["micro"] if m["threads"] == t):
            share = m["einrow_gflops"] / m["numpy_gflops"]
            torch = "" if m["torch_gflops"] is None else f", torch @ {m['torch_gflops']:.1f}"
            target = f" (target >= 90%) {'ok' if share >= 0.9 else 'MISSED'}" if t == 1 else ""
            print(f"GEMM micro {m['n']}^2 f32: einrow kernel {m['einrow_gflops']:.1f} GFLOP/s, numpy @ "
                  f"{m['numpy_gflops']:.1f}{torch}: {100 * share:.0f}% of numpy{target}")
    if res["scale"]:
        print("\nscale (CLI, generated transformer program; wall time, and the child's CPU time)")
        print(f"{'steps':>9} {'infer':>9} {'cpu':>9} {'MiB':>6} {'check':>9} {'cpu':>9} {'MiB':>6}")
        for s in res["scale"]:
            print(f"{s['steps']:>9} {fmt(s['infer_s']):>9} {fmt(s['infer_cpu_s']):>9} {s['infer_mib'] or 0:6.0f} "
                  f"{fmt(s['check_s']):>9} {fmt(s['check_cpu_s']):>9} {s['check_mib'] or 0:6.0f} "
                  f"{s.get('infer_error', '')} {s.get('check_error', '')}")
        small = [s for s in res["scale"] if s["steps"] < 200_000]
        big = [s for s in res["scale"] if s["steps"] >= 1_000_000]
        if small and big:
            for what in ("infer", "check"):
                r = ratio(big[0][f"{what}_s"], small[0][f"{what}_s"])
                rc = ratio(big[0][f"{what}_cpu_s"], small[0][f"{what}_cpu_s"])
                print(f"{what}: time({big[0]['steps']}) / time({small[0]['steps']}) = {rfmt(r, 0)} "
                      f"(CPU time {rfmt(rc, 0)}; target <= 11)")


def main():
    args = parse_args()
    if args.worker is not None:
        return worker(args.worker, args.no_torch)
    threads = thread_list(args.threads)
    bench, einrow_bin = binaries(args)
    if not args.no_build and not args.bin_dir:
        subprocess.run(["cargo", "build", "--release", "--example", "bench_einsum", "--bin", "einrow"],
                       cwd=ROOT, check=True)
    workers = {t: Worker(t, args.no_torch) for t in threads}
    res = dict(cpus=os.cpu_count(), threads=threads, min_time=args.min_time,
               blas_overrides_removed=[v for v in BLAS_OVERRIDES if v in os.environ],
               peers={t: w.ask(cmd="info") for t, w in workers.items()},
               load=[os.getloadavg()], cases=[], micro=[], scale=[])
    for name, _, _, _, _, gemm in CASES:
        if args.case and name not in args.case:
            continue
        for t in threads:
            res["cases"].append(dict(case=name, gemm=gemm, threads=t, einrow_s=float("inf"),
                                     numpy_opt_s=float("inf"), numpy_noopt_s=float("inf"), torch_s=None))
        for _ in range(args.repeat):
            for t in threads:
                row = next(r for r in res["cases"] if r["case"] == name and r["threads"] == t)
                peer = workers[t].ask(cmd="case", name=name, min_time=args.min_time)
                ein = einrow_bench(bench, t, args.min_time, ["--case", name])[0]["best_s"]
                row["einrow_s"] = min(row["einrow_s"], ein)
                row["numpy_opt_s"] = min(row["numpy_opt_s"], peer["numpy_opt_s"])
                row["numpy_noopt_s"] = min(row["numpy_noopt_s"], peer["numpy_noopt_s"])
                if peer["torch_s"] is not None:
                    row["torch_s"] = min(row["torch_s"] or peer["torch_s"], peer["torch_s"])
                print(f"  {name} threads={t}: einrow {fmt(ein)}, numpy opt {fmt(peer['numpy_opt_s'])}, "
                      f"no-opt {fmt(peer['numpy_noopt_s'])}, torch {fmt(peer['torch_s'])}", file=sys.stderr)
    for n in () if args.no_micro else MICRO_SIZES:
        flop = 2.0 * n ** 3
        for t in threads:
            best = dict(numpy_s=float("inf"), torch_s=None, einrow_s=float("inf"))
            for _ in range(args.repeat):
                peer = workers[t].ask(cmd="micro", n=n, min_time=args.min_time)
                ein = einrow_bench(bench, t, args.min_time, ["--gemm-micro", str(n)])[0]["best_s"]
                best["numpy_s"] = min(best["numpy_s"], peer["numpy_s"])
                best["einrow_s"] = min(best["einrow_s"], ein)
                if peer["torch_s"] is not None:
                    best["torch_s"] = min(best["torch_s"] or peer["torch_s"], peer["torch_s"])
            res["micro"].append(dict(n=n, threads=t, numpy_gflops=flop / best["numpy_s"] / 1e9,
                                     einrow_gflops=flop / best["einrow_s"] / 1e9,
                                     torch_gflops=None if best["torch_s"] is None else flop / best["torch_s"] / 1e9))
    for w in workers.values():
        w.close()
    sizes = [] if args.scale == "none" else [int(s) for s in args.scale.split(",")]
    if sizes:
        res["scale"] = scale_bench(einrow_bin, sizes, args.scale_repeat, args.scale_timeout)
    res["load"].append(os.getloadavg())
    report(res)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
