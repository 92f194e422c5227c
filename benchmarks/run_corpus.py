"""sourcediff against JAX on the NPBench/PolyBench-style corpus of the tests
(``tests/npbench_cases.py``), at the corpus's small sizes: per kernel, the first gradient
call of each tool, the median gradient times and their ratio (sd/JAX below 1: sourcediff
faster).

    python benchmarks/run_corpus.py [--only gemm lu] [--budget 0.3] [--warm]

The first call of ``sd.grad`` transforms and compiles with Numba (from empty on-disk caches
unless ``--warm`` is given); JAX's first call traces and compiles
``jax.jit(jax.grad(port))`` in float64, its integer arguments static. The JAX ports are in
``benchmarks/ports_corpus.py``. JAX's first gradients are compared with sourcediff's before
JAX is timed: beyond a relative difference of 1e-6 a warning goes under the table and that
kernel has no JAX times. Without JAX (or without a port for a kernel) the JAX columns show
"-". Each tool runs on one thread.
"""

import os
import sys
import tempfile

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
os.environ.setdefault(
    "XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
)
if "--warm" not in sys.argv:  # before Numba is imported: it reads NUMBA_CACHE_DIR once
    _cold = tempfile.mkdtemp(prefix="sourcediff-corpus-")
    os.environ["SOURCEDIFF_CACHE_DIR"] = os.path.join(_cold, "sourcediff")
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(_cold, "numba")

import argparse  # noqa: E402
import math  # noqa: E402
from dataclasses import replace  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

from npbench_cases import CASES  # noqa: E402
from run_tools import (  # noqa: E402
    Kernel,
    copied,
    measure_jax,
    measure_sourcediff,
    relative_difference,
)

AGREEMENT = 1e-6


class Disagreement(Exception):
    """JAX's gradient is not sourcediff's."""


def jax_ports():
    """``ports_corpus.PORTS``, or ``None`` with the reason when JAX cannot be imported."""
    try:
        import ports_corpus
    except ImportError as exc:
        return None, f"JAX not timed: {exc}"
    return ports_corpus.PORTS, None


def agreeing_with(reference):
    """A ``check`` for :func:`measure_jax`: raises unless the gradients match ``reference``."""

    def check(grads):
        difference = relative_difference(grads, reference)
        if not difference <= AGREEMENT:
            raise Disagreement(f"relative difference {difference:.1e} from sourcediff")

    return check


def _fmt(value, spec):
    return "-" if value is None else format(value, spec)


def _first_line(exc):
    return f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}"


def run_kernel(kernel, port, budget, notes):
    """``(sourcediff, jax)`` measurements of one kernel, ``None`` for a tool not measured."""
    pristine = copied(kernel.args)  # sourcediff updates arrays such as gemm's C in place
    try:
        sd_m = measure_sourcediff(kernel, budget)
    except Exception as exc:  # reported under the table; JAX still runs, unchecked
        notes.append(f"{kernel.name}: sourcediff failed: {_first_line(exc)}")
        sd_m = None
    if port is None:
        return sd_m, None
    check = agreeing_with(sd_m.grads) if sd_m else None
    try:
        return sd_m, measure_jax(replace(kernel, args=pristine), budget, port, check)
    except Disagreement as exc:
        notes.append(f"WARNING {kernel.name}: JAX gradient disagrees, not timed: {exc}")
    except Exception as exc:
        notes.append(f"{kernel.name}: JAX failed: {_first_line(exc)}")
    return sd_m, None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", help="kernels to run (default: all)")
    parser.add_argument("--budget", type=float, default=0.3, help="seconds of timing per call")
    parser.add_argument("--warm", action="store_true", help="keep the on-disk caches")
    options = parser.parse_args(argv)
    ports, reason = jax_ports()
    notes = [reason] if reason else []
    ratios = []
    print("| kernel | sd first grad s | sd grad µs | JAX first grad s | JAX grad µs | sd/JAX |")
    print("|---|---|---|---|---|---|")
    for func, args, argnums in CASES:
        if options.only and func.__name__ not in options.only:
            continue
        kernel = Kernel(func.__name__, func, args, argnums, None, None)
        port = ports.get(kernel.name) if ports else None
        if ports and port is None:
            notes.append(f"{kernel.name}: no JAX port")
        sd_m, jax_m = run_kernel(kernel, port, options.budget, notes)
        ratio = sd_m.grad / jax_m.grad if sd_m and jax_m else None
        ratios.append(ratio)
        print(
            f"| {kernel.name} | {_fmt(sd_m and sd_m.first_grad, '.2f')} "
            f"| {_fmt(sd_m and sd_m.grad, '.1f')} | {_fmt(jax_m and jax_m.first_grad, '.2f')} "
            f"| {_fmt(jax_m and jax_m.grad, '.1f')} | {_fmt(ratio, '.2f')} |",
            flush=True,
        )
    measured = [r for r in ratios if r]
    if measured:
        mean = math.exp(sum(map(math.log, measured)) / len(measured))
        print(f"| geometric mean | | | | | {mean:.2f} |")
    for line in notes:
        print(f"\n> {line}")


if __name__ == "__main__":
    main()
