#!/usr/bin/env python3
"""Side-by-side path planning times: einrow vs opt_einsum, in the same run.

For every case of tests/data/paths/opt_einsum.json with the given operand count (default 10),
times opt_einsum.contract_path(..., shapes=True, optimize=OPT) (the whole planning call, as
einrow's einsum_path: parse, sizes, path, report) and opt_einsum's path function alone, then
runs examples/bench_paths for the same cases right after, so both see the same machine load.
With --repeat N the measurements alternate N times and each keeps its best median.
Prints per case: both times, the ratio einrow / opt_einsum, and both FLOP counts.

Usage: python3 benches/paths_opt_einsum.py [--operands N] [--optimize auto] [--repeat N]
       [--min-time S] [--no-build]
"""

import argparse
import json
import os
import subprocess
import time

import opt_einsum as oe

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "examples", "bench_paths")


def median_time(f, min_time):
    f()
    times = []
    start = time.perf_counter()
    while len(times) < 10 or time.perf_counter() - start < min_time:
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2]


def time_opt_einsum(case, optimize, min_time):
    eq, shapes = case["subscripts"], [tuple(s) for s in case["shapes"]]
    whole = median_time(lambda: oe.contract_path(eq, *shapes, shapes=True, optimize=optimize), min_time)
    ins, out = eq.split("->")
    inputs = [frozenset(t) for t in ins.split(",")]
    sizes = {c: d for t, s in zip(ins.split(","), shapes) for c, d in zip(t, s)}
    fn = oe.paths.get_path_fn(optimize)
    alone = median_time(lambda: fn(inputs, frozenset(out), sizes, None), min_time)
    _, info = oe.contract_path(eq, *shapes, shapes=True, optimize=optimize)
    return whole, alone, int(info.opt_cost)


def time_einrow(operands, optimize, min_time):
    out = subprocess.run(
        [BIN, "--operands", str(operands), "--optimize", optimize, "--min-time", str(min_time)],
        check=True, capture_output=True, text=True,
    ).stdout
    return {r["case"]: r for r in map(json.loads, out.splitlines())}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--operands", type=int, default=10)
    p.add_argument("--optimize", default="auto")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--min-time", type=float, default=0.2)
    p.add_argument("--no-build", action="store_true")
    args = p.parse_args()
    if not args.no_build:
        subprocess.run(["cargo", "build", "--release", "--example", "bench_paths"], cwd=ROOT, check=True)
    with open(os.path.join(ROOT, "tests", "data", "paths", "opt_einsum.json")) as f:
        cases = [c for c in json.load(f)["cases"] if len(c["shapes"]) == args.operands]
    best = {}
    for _ in range(args.repeat):
        theirs = {c["name"]: time_opt_einsum(c, args.optimize, args.min_time) for c in cases}
        ours = time_einrow(args.operands, args.optimize, args.min_time)
        for c in cases:
            name = c["name"]
            whole, alone, flops = theirs[name]
            mine = ours[name]["median_s"]
            old = best.get(name)
            best[name] = (
                min(whole, old[0]) if old else whole,
                min(alone, old[1]) if old else alone,
                min(mine, old[2]) if old else mine,
                flops,
                ours[name]["opt_flops"],
                ours[name]["strategy"],
            )
    print(f"{'case':48} {'opt_einsum':>11} {'oe path fn':>11} {'einrow':>9} {'ratio':>6} {'ratio fn':>8}  flops oe / einrow (einrow's planner)")
    ratios = []
    for name, (whole, alone, mine, flops, our_flops, strategy) in best.items():
        ratios.append((mine / whole, mine / alone))
        print(f"{name:48} {whole * 1e6:9.1f}us {alone * 1e6:9.1f}us {mine * 1e6:7.1f}us {mine / whole:6.3f} {mine / alone:8.3f}  {flops} / {our_flops} ({strategy})")
    worst = max(r[0] for r in ratios), max(r[1] for r in ratios)
    print(f"worst ratio einrow / opt_einsum contract_path: {worst[0]:.3f}; / path function alone: {worst[1]:.3f}")


if __name__ == "__main__":
    main()
