"""sourcediff on the NPBench/PolyBench-style corpus of the tests (``tests/npbench_cases.py``):
per kernel, the first gradient call with empty caches, the primal and gradient medians and
their ratio, at the corpus's small sizes.

    python benchmarks/run_corpus.py [--only gemm lu] [--budget 0.3]

The kernels write in place and loop over elements, so they have no JAX port here;
``benchmarks/run.py`` compares tools on its own kernels.
"""

import os
import sys
import tempfile

if "--warm" not in sys.argv:  # before Numba is imported: it reads NUMBA_CACHE_DIR once
    _cold = tempfile.mkdtemp(prefix="sourcediff-corpus-")
    os.environ["SOURCEDIFF_CACHE_DIR"] = os.path.join(_cold, "sourcediff")
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(_cold, "numba")

import argparse  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

from npbench_cases import CASES  # noqa: E402
from run_tools import Kernel, measure_sourcediff  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", help="kernels to run (default: all)")
    parser.add_argument("--budget", type=float, default=0.3, help="seconds of timing per call")
    parser.add_argument("--warm", action="store_true", help="keep the on-disk caches")
    options = parser.parse_args(argv)
    print("| kernel | first grad call s | primal µs | grad µs | grad/primal |")
    print("|---|---|---|---|---|")
    for func, args, argnums in CASES:
        if options.only and func.__name__ not in options.only:
            continue
        kernel = Kernel(func.__name__, func, args, argnums, None, None)
        m = measure_sourcediff(kernel, options.budget)
        print(
            f"| {kernel.name} | {m.first_grad:.2f} | {m.primal:.1f} | {m.grad:.1f} "
            f"| {m.grad / m.primal:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
