#!/usr/bin/env bash
# The kernel-against-numpy-and-torch sweep on a many-core machine that has no cargo and no
# network, from prebuilt binaries. Runs from the repository root in about 6 minutes (8 at
# most: every stage has its own time limit) and writes everything under $OUT:
#
#   machine.txt        CPU model, core count, SIMD flags, numpy's runtime (its BLAS kernel),
#                      torch's version and threads, the binaries' checksums
#   kernel.txt/.json   benches/compare_numpy.py: every case at 1 and all threads, einrow
#                      against numpy (optimize=True and False) and torch, plus the GEMM micro
#   scale.txt/.json    the CLI scale benchmark (`einrow infer` / `einrow check`, 100k and 1M
#                      steps)
#   progress.log       each measurement as it is taken (what there is when a stage times out)
#
# Prepare the binaries where cargo is (both dispatch their SIMD kernels at run time, so a
# build for plain x86-64 runs the AVX-512 GEMM kernels where the processor has them):
#
#   cargo build --release --example bench_einsum --bin einrow
#   mkdir -p bins && cp target/release/examples/bench_einsum target/release/einrow bins/
#   strip bins/bench_einsum bins/einrow          # about 13 MB together
#
# then, on the machine:
#
#   OUT=/some/folder bash benches/device_sweep.sh bins
#
# Environment: PYTHON (default /opt/torch/.venv/bin/python3, a Python with numpy and torch),
# THREADS (default `1,<every CPU>`), REPEAT (default 3: each case measured three times,
# interleaved, best kept), MIN_TIME (default 0.5 s per measurement), SCALE (default
# 100000,1000000 steps). A quick check of the script itself, anywhere:
#   OUT=/tmp/sweep PYTHON=python3 THREADS=1 REPEAT=1 MIN_TIME=0.02 SCALE=10000 \
#       bash benches/device_sweep.sh bins
set -u -o pipefail

BIN=${1:?usage: OUT=DIR bash benches/device_sweep.sh BIN_DIR}
OUT=${OUT:?set OUT to the folder the results go to}
PYTHON=${PYTHON:-/opt/torch/.venv/bin/python3}
THREADS=${THREADS:-1,$(nproc)}
REPEAT=${REPEAT:-3}
MIN_TIME=${MIN_TIME:-0.5}
SCALE=${SCALE:-100000,1000000}
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$(cd "$BIN" && pwd) || exit 2
mkdir -p "$OUT"

PYTHON=$(command -v "$PYTHON") || { echo "no Python at ${PYTHON}" >&2; exit 2; }
for exe in "$BIN/bench_einsum" "$BIN/einrow" "$PYTHON"; do
    [ -x "$exe" ] || { echo "missing or not executable: $exe" >&2; exit 2; }
done
"$BIN/bench_einsum" --list >/dev/null || { echo "bench_einsum does not run here" >&2; exit 2; }

{
    echo "date: $(date -u +%FT%TZ)"
    echo "cpus (nproc): $(nproc)"
    grep -m1 'model name' /proc/cpuinfo
    echo "avx512 flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx512|amx)' | tr '\n' ' ')"
    echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE-<unset>} OPENBLAS_L2_SIZE=${OPENBLAS_L2_SIZE-<unset>}" \
        "(compare_numpy.py removes both for the peers)"
    sha256sum "$BIN/bench_einsum" "$BIN/einrow"
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE timeout 60 "$PYTHON" - <<'PY'
import numpy
print("numpy", numpy.__version__)
numpy.show_runtime()
try:
    import torch
    print("torch", torch.__version__, "threads", torch.get_num_threads())
    print(torch.__config__.show())
except Exception as e:  # noqa: BLE001
    print("torch absent:", e)
PY
} >"$OUT/machine.txt" 2>&1

export PYTHONUNBUFFERED=1
status=0

# Kernel cases and the GEMM micro; the scale benchmark separately, so that a slow stage
# leaves the other's results.
timeout 320 "$PYTHON" "$HERE/compare_numpy.py" --no-build --bin-dir "$BIN" \
    --threads "$THREADS" --repeat "$REPEAT" --min-time "$MIN_TIME" --scale none \
    --json "$OUT/kernel.json" >"$OUT/kernel.txt" 2>>"$OUT/progress.log" || status=$?
echo "kernel stage: exit $status" >>"$OUT/progress.log"

timeout 150 "$PYTHON" "$HERE/compare_numpy.py" --no-build --bin-dir "$BIN" \
    --threads 1 --case none --no-micro --no-torch \
    --scale "$SCALE" --scale-repeat 2 --scale-timeout 50 \
    --json "$OUT/scale.json" >"$OUT/scale.txt" 2>>"$OUT/progress.log" || status=$?
echo "scale stage: exit $status" >>"$OUT/progress.log"

cat "$OUT/kernel.txt" "$OUT/scale.txt"
exit "$status"
