"""Cold first-call seconds of each array kernel, split by pipeline stage.

Each kernel runs in a fresh process with an empty cache and ``SOURCEDIFF_TIMING=1``;
the stage lines it prints are summed per stage. ``compile`` is Numba compiling the
generated functions on their first call (the primal, then the derivative).

    python benchmarks/bench_first_call.py [--policy store]
"""

import argparse
import collections
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
STAGES = ("parse", "normalize", "types", "activity", "plan", "recording", "reverse", "codegen")
SIZES = {"heat": (64, 100), "wave": (64, 100), "nbody": (8, 50), "mlp_loss": (32, 8, 16, 4)}

RUN = """
import sys, time
sys.path.insert(0, {here!r})
import numpy as np
import sourcediff as sd
import kernels_arrays, handwritten_arrays
args = getattr(kernels_arrays, {name!r} + "_args")(*{size!r}) if {name!r} != "mlp_loss" else \\
    kernels_arrays.mlp_args(*{size!r})
start = time.perf_counter()
sd.grad(getattr(kernels_arrays, {name!r}), argnums=handwritten_arrays.ARGNUMS[{name!r}],
        policy={policy!r})(*args)
print("total", time.perf_counter() - start, file=sys.stderr)
"""


def first_call(name: str, policy: str) -> dict:
    """Seconds per stage of one cold ``sd.grad`` first call, in a fresh process."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, SOURCEDIFF_TIMING="1", SOURCEDIFF_CACHE_DIR=cache)
        code = RUN.format(here=str(HERE), name=name, size=SIZES[name], policy=policy)
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
    options = parser.parse_args()
    columns = STAGES + ("compile", "total")
    print(f"{'kernel':10}" + "".join(f"{c:>10}" for c in columns))
    for name in SIZES:
        seconds = first_call(name, options.policy)
        print(f"{name:10}" + "".join(f"{seconds[c]:>10.2f}" for c in columns), flush=True)


if __name__ == "__main__":
    main()
