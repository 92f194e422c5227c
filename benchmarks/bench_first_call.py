"""Cold first-call seconds of each benchmark kernel (run.py's), split by pipeline stage.

Each kernel runs in a fresh process with empty caches (sourcediff's and Numba's) and
``SOURCEDIFF_TIMING=1``; the stage lines it prints are summed per stage. ``compile``
is Numba compiling the generated functions on their first call (for policy "auto",
the counting function it plans from, then the derivative).

Beside it, ``numba`` is the baseline the issue's target is written against, measured the
same way: a fresh process with an empty Numba cache compiling and running the kernel's
``numba.njit`` primal and then the expert's hand adjoint; ``target`` is 1.5 times that
(and at most 3 s), ``ratio`` sourcediff's total over the baseline.

With ``--warm-helpers`` Numba's cache of sourcediff's runtime helpers (matrix products,
``sum_to``, ``add_into``: cached functions, compiled once per machine) is filled by a
first run of the kernel, and the measured run has an empty sourcediff cache: the first
call of a new function on a machine where sourcediff has run before.

    python benchmarks/bench_first_call.py [--policy store] [--only heat nbody] [--warm-helpers]
"""

import argparse
import collections
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
STAGES = ("parse", "normalize", "types", "activity", "plan", "recording", "reverse")
STAGES += ("optimize", "codegen")
KERNELS = ("heat", "wave", "nbody", "mlp_loss", "lorenz", "jacobi_2d", "mlp3", "gmm", "gray_scott")
KERNELS += ("rk4_rd",)

RUN = """
import sys, time
sys.path.insert(0, {here!r})
sys.argv.append("--warm")  # the caches are the ones this process was given
import run  # sets one thread before Numba loads
import sourcediff as sd
kernel = next(k for k in run.kernels(1.0) if k.name == {name!r})
start = time.perf_counter()
sd.grad(kernel.func, argnums=kernel.argnums, policy={policy!r})(*kernel.args)
print("total", time.perf_counter() - start, file=sys.stderr)
"""

BASELINE = """
import sys, time
sys.path.insert(0, {here!r})
sys.argv.append("--warm")
import run
kernel = next(k for k in run.kernels(1.0) if k.name == {name!r})
start = time.perf_counter()
kernel.hand_primal(*kernel.args)
kernel.hand_grad(*kernel.args)
print("total", time.perf_counter() - start, file=sys.stderr)
"""


def first_call(name: str, policy: str, warm_helpers: bool) -> dict:
    """Seconds per stage of one cold ``sd.grad`` first call, in a fresh process."""
    with tempfile.TemporaryDirectory() as cache:
        numba_cache = os.path.join(cache, "numba")
        if warm_helpers:
            run_once(name, policy, os.path.join(cache, "warm-up"), numba_cache)
        done = run_once(name, policy, os.path.join(cache, "sourcediff"), numba_cache)
    seconds = collections.Counter()
    for line in done.stderr.splitlines():
        if line.startswith("sourcediff timing:"):
            _, stage, value, _ = line.rsplit(" ", 3)
            seconds[stage] += float(value)
        elif line.startswith("total"):
            seconds["total"] = float(line.split()[1])
    if "total" not in seconds:
        raise RuntimeError(done.stderr[-2000:])
    return seconds


def run_once(name: str, policy: str, cache: str, numba_cache: str, template: str = RUN):
    """One process computing the kernel's gradient with the given caches."""
    env = dict(os.environ, SOURCEDIFF_TIMING="1", SOURCEDIFF_CACHE_DIR=cache)
    env["NUMBA_CACHE_DIR"] = numba_cache
    code = template.format(here=str(HERE), name=name, policy=policy)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)


def baseline(name: str) -> float:
    """Seconds for a fresh process to compile and run the Numba primal and hand adjoint."""
    with tempfile.TemporaryDirectory() as cache:
        done = run_once(name, "", cache, cache, BASELINE)
    lines = [line for line in done.stderr.splitlines() if line.startswith("total")]
    if not lines:
        raise RuntimeError(done.stderr[-2000:])
    return float(lines[-1].split()[1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--policy", default="auto")
    parser.add_argument("--only", nargs="*", default=KERNELS)
    parser.add_argument("--warm-helpers", action="store_true")
    options = parser.parse_args()
    columns = STAGES + ("compile", "total", "numba", "target", "ratio")
    print(f"{'kernel':10}" + "".join(f"{c:>10}" for c in columns))
    for name in options.only:
        seconds = first_call(name, options.policy, options.warm_helpers)
        seconds["numba"] = baseline(name)
        seconds["target"] = min(3.0, 1.5 * seconds["numba"])
        seconds["ratio"] = seconds["total"] / seconds["numba"]
        print(f"{name:10}" + "".join(f"{seconds[c]:>10.2f}" for c in columns), flush=True)


if __name__ == "__main__":
    main()
