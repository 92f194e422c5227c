"""Cold first-call seconds of each benchmark kernel (run.py's), split by pipeline stage.

Each kernel runs in a fresh process with empty caches (sourcediff's and Numba's) and
``SOURCEDIFF_TIMING=1``; the stage lines it prints are summed per stage. ``compile``
is Numba compiling the generated functions on their first call (for policy "auto",
the counting function it plans from, then the derivative).

    python benchmarks/bench_first_call.py [--policy store] [--only heat nbody]
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
KERNELS = ("heat", "wave", "nbody", "mlp_loss", "lorenz", "jacobi_2d", "mlp3", "gmm")

RUN = """
import sys, time
sys.path.insert(0, {here!r})
import run  # sets one thread and empty caches before Numba loads
import sourcediff as sd
kernel = next(k for k in run.kernels(1.0) if k.name == {name!r})
start = time.perf_counter()
sd.grad(kernel.func, argnums=kernel.argnums, policy={policy!r})(*kernel.args)
print("total", time.perf_counter() - start, file=sys.stderr)
"""


def first_call(name: str, policy: str) -> dict:
    """Seconds per stage of one cold ``sd.grad`` first call, in a fresh process."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, SOURCEDIFF_TIMING="1", SOURCEDIFF_CACHE_DIR=cache)
        code = RUN.format(here=str(HERE), name=name, policy=policy)
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--policy", default="auto")
    parser.add_argument("--only", nargs="*", default=KERNELS)
    options = parser.parse_args()
    columns = STAGES + ("compile", "total")
    print(f"{'kernel':10}" + "".join(f"{c:>10}" for c in columns))
    for name in options.only:
        seconds = first_call(name, options.policy)
        print(f"{name:10}" + "".join(f"{seconds[c]:>10.2f}" for c in columns), flush=True)


if __name__ == "__main__":
    main()
