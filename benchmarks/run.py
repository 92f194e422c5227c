"""sourcediff against a hand-written Numba adjoint, JAX, autograd and PyTorch, one command.

    python -m pip install -e '.[bench]'
    python benchmarks/run.py                  # every kernel, every tool found
    python benchmarks/run.py --only heat gmm --tools sourcediff jax --budget 0.2

For each kernel it computes every tool's gradient, checks them against the hand adjoint
(or JAX's where there is none) before timing anything, then prints per tool: the first
gradient call (transformation or tracing plus compilation, with empty caches), the
first primal call, the median primal and gradient times, gradient over primal, gradient
over the hand adjoint, peak memory of one gradient call and the largest relative
difference from the reference gradient. A tool that is not installed is skipped with a
message; a tool that fails gets its error under the table and the run goes on.

Every tool runs on one thread (BLAS, XLA and PyTorch are told so before they load).
Peak memory is measured with ``tracemalloc``, which sees NumPy's allocations (sourcediff,
the Numba adjoint and autograd) but not XLA's or PyTorch's allocators: those show "-".
Caches start empty (fresh ``SOURCEDIFF_CACHE_DIR`` and ``NUMBA_CACHE_DIR``) unless
``--warm`` is given.
"""

import os
import sys
import tempfile

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
for _variable in THREAD_VARIABLES:
    os.environ.setdefault(_variable, "1")
os.environ.setdefault(
    "XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
)
if "--warm" not in sys.argv:  # before Numba is imported: it reads NUMBA_CACHE_DIR once
    _cold = tempfile.mkdtemp(prefix="sourcediff-bench-")
    os.environ["SOURCEDIFF_CACHE_DIR"] = os.path.join(_cold, "sourcediff")
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(_cold, "numba")

import argparse  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run_tools import TOOLS, Kernel, relative_difference  # noqa: E402

AGREEMENT = 1e-6


def kernels(scale):
    """The benchmark kernels at their default sizes (``scale`` shrinks the loops)."""
    import handwritten_arrays as ha
    import handwritten_ba as hb
    import handwritten_more as hm
    import kernels_arrays as ka
    import kernels_ba as kb
    import kernels_more as km

    steps = max(1, int(500 * scale))
    sizes = {
        "heat": ka.heat_args(200, steps),
        "wave": ka.wave_args(200, steps),
        "nbody": ka.nbody_args(16, max(1, int(200 * scale))),
        "mlp_loss": ka.mlp_args(64, 16, 32, 4),
        "lorenz": km.lorenz_args(max(1, int(1000 * scale))),
        "jacobi_2d": km.jacobi_2d_args(100, max(1, int(50 * scale))),
        "mlp3": km.mlp3_args(128, 32, 64, 8),
        "gmm": km.gmm_args(1000, 8, 4),
        "gray_scott": km.gray_scott_args(64, max(1, int(50 * scale))),
        "rk4_rd": km.rk4_rd_args(128, max(1, int(100 * scale))),
        "ba": kb.ba_args(10, 200, 1000),
    }
    found = []
    for name, args in sizes.items():
        hand = next(m for m in (ha, hb, hm) if name in m.GRADS)
        module = next(m for m in (ka, kb, km) if hasattr(m, name))
        found.append(
            Kernel(
                name,
                getattr(module, name),
                args,
                hand.ARGNUMS[name],
                hand.PRIMALS[name],
                hand.GRADS[name],
            )
        )
    return found


def size_label(args):
    """Shapes of the array arguments and the integer ones, compactly."""
    parts = []
    for a in args:
        if isinstance(a, np.ndarray):
            parts.append("x".join(map(str, a.shape)))
        elif isinstance(a, int):
            parts.append(str(a))
    return " ".join(parts)


def _fmt(value, spec):
    return "-" if value is None else format(value, spec)


def print_kernel(kernel, rows, notes):
    """One Markdown table per kernel, a row per tool, errors underneath."""
    print(f"\n### {kernel.name} ({size_label(kernel.args)})\n")
    print(
        "| tool | first grad call s | first primal call s | primal µs | grad µs "
        "| grad/primal | grad/hand | peak KiB | rel.diff |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    hand = rows.get("numba-hand")
    for tool, m in rows.items():
        ratio = m.grad / m.primal if m.grad and m.primal else None
        vs_hand = m.grad / hand.grad if hand and hand.grad and m.grad else None
        flag = "" if m.diff is None or m.diff <= AGREEMENT else " !!"
        kib = None if m.peak is None else m.peak / 1024
        print(
            f"| {tool} | {_fmt(m.first_grad, '.2f')} | {_fmt(m.first_primal, '.2f')} "
            f"| {_fmt(m.primal, '.1f')} | {_fmt(m.grad, '.1f')} | {_fmt(ratio, '.2f')} "
            f"| {_fmt(vs_hand, '.2f')} | {_fmt(kib, '.0f')} | {_fmt(m.diff, '.1e')}{flag} |"
        )
    for line in notes:
        print(f"\n> {line}")


def geometric_mean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def print_summary(all_rows):
    """sourcediff's gradient time over each other tool's, per kernel and geometric mean."""
    others = [t for t in TOOLS if t != "sourcediff"]
    print("\n### sourcediff gradient time over each tool's (below 1 = sourcediff faster)\n")
    print("| kernel | " + " | ".join(others) + " |")
    print("|---|" + "---|" * len(others))
    ratios = {t: [] for t in others}
    for name, rows in all_rows.items():
        sd_row = rows.get("sourcediff")
        cells = []
        for tool in others:
            other = rows.get(tool)
            ok = sd_row and other and sd_row.grad and other.grad
            ratio = sd_row.grad / other.grad if ok else None
            ratios[tool].append(ratio)
            cells.append(_fmt(ratio, ".2f"))
        print(f"| {name} | " + " | ".join(cells) + " |")
    means = [_fmt(geometric_mean(ratios[t]), ".2f") for t in others]
    print("| geometric mean | " + " | ".join(means) + " |")


def run_kernel(kernel, tools, budget):
    """Every tool on one kernel: gradients compared first, then timed."""
    rows, notes = {}, []
    for tool in tools:
        print(f"  {kernel.name}: {tool}", file=sys.stderr, flush=True)
        try:
            rows[tool] = TOOLS[tool](kernel, budget)
        except ImportError as exc:
            notes.append(f"{tool} skipped: {exc}")
        except Exception as exc:  # a failing tool is reported, the others still run
            notes.append(f"{tool} failed: {type(exc).__name__}: {str(exc).splitlines()[0]}")
    reference = rows.get("numba-hand") or rows.get("jax")
    for m in rows.values():
        if reference is not None and m is not reference:
            m.diff = relative_difference(m.grads, reference.grads)
    return rows, notes


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", help="kernels to run (default: all)")
    parser.add_argument("--tools", nargs="*", default=list(TOOLS), choices=list(TOOLS))
    parser.add_argument("--budget", type=float, default=0.5, help="seconds of timing per call")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the step counts")
    parser.add_argument("--warm", action="store_true", help="keep the on-disk caches")
    options = parser.parse_args(argv)
    print(f"# {time.strftime('%Y-%m-%d')}, {platform.processor() or platform.machine()}, ")
    print(f"# Python {platform.python_version()}, {os.cpu_count()} cores, one thread per tool")
    all_rows = {}
    for kernel in kernels(options.scale):
        if options.only and kernel.name not in options.only:
            continue
        rows, notes = run_kernel(kernel, options.tools, options.budget)
        print_kernel(kernel, rows, notes)
        all_rows[kernel.name] = rows
    print_summary(all_rows)


if __name__ == "__main__":
    main()
