"""Benchmark sourcediff gradients of array kernels against hand-written Numba code.

Run from the repository root::

    python benchmarks/bench_arrays.py                # every kernel at its benchmark sizes
    python benchmarks/bench_arrays.py --only heat    # some kernels only
    python benchmarks/bench_arrays.py --no-memory    # skip the peak-memory columns

For every kernel in :mod:`kernels_arrays` and every size in :data:`BENCH_CASES`
it prints the best wall time, after warm-up, of the compiled primal
(``sd.jit``) and of a plain ``numba.njit`` copy of it (no sourcediff wrapper), of
``sd.grad(kernel, argnums=...)`` and of the hand-written gradient in
:mod:`handwritten_arrays`, their ratios, how far the two gradients
agree, and the peak memory that one gradient call allocates. A last row gives
the geometric means of ``sd/primal`` and ``sd/hand``.

A failure inside sourcediff is printed under its row and does not stop the run.
"""

import argparse
import math
import sys
import time
import traceback
import tracemalloc
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for _path in (str(HERE), str(ROOT)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

import handwritten_arrays  # noqa: E402
import kernels_arrays  # noqa: E402
from bench_scalar import best_time, format_ratio, format_us, import_sourcediff  # noqa: E402

#: (kernel name, size label, argument tuple) for every benchmark row.
BENCH_CASES = [
    ("heat", "n=200 steps=500", kernels_arrays.heat_args(200, 500)),
    ("heat", "n=2000 steps=200", kernels_arrays.heat_args(2000, 200)),
    ("wave", "n=200 steps=500", kernels_arrays.wave_args(200, 500)),
    ("nbody", "N=16 steps=200", kernels_arrays.nbody_args(16, 200)),
    ("mlp_loss", "64x16-32-4", kernels_arrays.mlp_args(64, 16, 32, 4)),
]

#: Relative difference between sourcediff and the hand gradient above which a row is flagged.
AGREEMENT_RTOL = 1e-6

#: Lines of a sourcediff error message printed under its row.
ERROR_LINES = 4


def error_lines(exc):
    """The first lines of an exception's message, and where it was raised if not here."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = ""
    if frames and Path(frames[-1].filename).resolve() != Path(__file__).resolve():
        where = f" ({Path(frames[-1].filename).name}:{frames[-1].lineno})"
    lines = str(exc).strip().splitlines() or [""]
    out = [f"{type(exc).__name__}: {lines[0]}{where}"]
    out += ["  " + line for line in lines[1:ERROR_LINES]]
    if len(lines) > ERROR_LINES:
        out.append("  ...")
    return out


def relative_difference(got, want):
    """Largest norm-wise relative difference over a tuple of gradients.

    For each gradient: the largest componentwise difference over the largest
    component of ``want`` (componentwise relative differences mean nothing for
    components that are nearly zero).
    """
    worst = 0.0
    for g, w in zip(got, want, strict=True):
        g = np.asarray(g, dtype=float)
        w = np.asarray(w, dtype=float)
        if g.shape != w.shape:
            return math.inf
        scale = max(float(np.max(np.abs(w))), 1e-300)
        worst = max(worst, float(np.max(np.abs(g - w))) / scale)
    return worst


def peak_bytes(fn, args):
    """Peak bytes allocated during one call of ``fn(*args)`` (already warmed up).

    Measured with :mod:`tracemalloc`, which also sees the NumPy arrays that
    Numba-compiled code allocates; it includes the returned arrays.
    """
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        fn(*args)
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def bench_case(sd, name, label, args, with_memory):
    """Time one kernel at one size; return ``(row dict, list of error lines)``."""
    kernel = getattr(kernels_arrays, name)
    argnums = handwritten_arrays.ARGNUMS[name]
    notes = []
    row = {"kernel": name, "size": label}

    primal = None
    if sd is not None:
        try:
            primal = sd.jit(kernel)
            primal(*args)
        except Exception as exc:
            notes.append("sd.jit failed, timing numba.njit primal instead:")
            notes += ["  " + line for line in error_lines(exc)]
            primal = None
    row["primal_fallback"] = primal is None
    row["njit"] = best_time(handwritten_arrays.PRIMALS[name], args)
    row["primal"] = row["njit"] if primal is None else best_time(primal, args)

    hand = handwritten_arrays.GRADS[name]
    row["hand"] = best_time(hand, args)
    hand_grads = hand(*args)[1:]
    if with_memory:
        row["hand_mem"] = peak_bytes(hand, args)

    row["sd"] = None
    if sd is not None:
        stage = "sd.grad"
        try:
            start = time.perf_counter()
            grad = sd.grad(kernel, argnums=argnums)
            got = grad(*args)
            row["first_call"] = time.perf_counter() - start
            stage = "comparing sd.grad with the hand gradient"
            row["rel_diff"] = relative_difference(got, hand_grads)
            stage = "timing sd.grad"
            row["sd"] = best_time(grad, args)
            if with_memory:
                row["sd_mem"] = peak_bytes(grad, args)
        except Exception as exc:
            notes.append(f"{stage} failed:")
            notes += ["  " + line for line in error_lines(exc)]
    return row, notes


def format_kib(nbytes):
    """Format a byte count in KiB, or ``-`` for a missing value."""
    return "-" if nbytes is None else f"{nbytes / 1024:.0f}"


def geometric_mean(values):
    """Geometric mean of the values that are not ``None``, or ``None`` if there are none."""
    values = [v for v in values if v is not None]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def print_table(rows_and_notes, with_memory):
    """Print the timing table, with each row's error notes under it and a geomean row."""
    header = [
        "kernel",
        "size",
        "primal µs",
        "njit µs",
        "sd grad µs",
        "hand grad µs",
        "sd/primal",
        "hand/primal",
        "sd/hand",
        "rel.diff",
    ]
    if with_memory:
        header += ["sd KiB", "hand KiB"]
    lines = []
    for row, notes in rows_and_notes:
        rel_diff = row.get("rel_diff")
        if rel_diff is None:
            agreement = "-"
        else:
            agreement = f"{rel_diff:.0e}" + (" !!" if rel_diff > AGREEMENT_RTOL else "")
        cells = [
            row["kernel"],
            row["size"],
            format_us(row["primal"], "*" if row["primal_fallback"] else ""),
            format_us(row["njit"]),
            format_us(row["sd"]),
            format_us(row["hand"]),
            format_ratio(row["sd"], row["primal"]),
            format_ratio(row["hand"], row["primal"]),
            format_ratio(row["sd"], row["hand"]),
            agreement,
        ]
        if with_memory:
            cells += [format_kib(row.get("sd_mem")), format_kib(row.get("hand_mem"))]
        lines.append((cells, notes))

    rows = [row for row, _ in rows_and_notes]
    timed = [row for row in rows if row["sd"] is not None]
    gm_primal = geometric_mean([row["sd"] / row["primal"] for row in timed])
    gm_hand = geometric_mean([row["sd"] / row["hand"] for row in timed])
    gm_hand_primal = geometric_mean([row["hand"] / row["primal"] for row in rows])
    geo = ["geomean", f"{len(timed)}/{len(rows)} rows", "", "", "", ""]
    geo += [
        "-" if gm_primal is None else f"{gm_primal:.2f}x",
        "-" if gm_hand_primal is None else f"{gm_hand_primal:.2f}x",
        "-" if gm_hand is None else f"{gm_hand:.2f}x",
        "",
    ]
    if with_memory:
        geo += ["", ""]

    widths = [len(h) for h in header]
    for cells in [c for c, _ in lines] + [geo]:
        widths = [max(w, len(c)) for w, c in zip(widths, cells, strict=True)]

    def render(cells):
        left = [cells[0].ljust(widths[0]), cells[1].ljust(widths[1])]
        rest = (c.rjust(w) for c, w in zip(cells[2:], widths[2:], strict=True))
        return "  ".join([*left, *rest]).rstrip()

    print(render(header))
    print("  ".join("-" * w for w in widths))
    for cells, notes in lines:
        print(render(cells))
        for note in notes:
            print(f"    ! {note}")
    print("  ".join("-" * w for w in widths))
    print(render(geo))
    if any(row["primal_fallback"] for row in rows):
        print("* primal timed with numba.njit of the kernel (sd.jit unavailable)")
    if any((row.get("rel_diff") or 0.0) > AGREEMENT_RTOL for row in rows):
        print(f"!! sourcediff and hand gradients differ by more than {AGREEMENT_RTOL:g}")
    firsts = [row for row in rows if row.get("first_call") is not None]
    if firsts:
        print(
            "first call of sd.grad (transform + compile or cache load + one run): "
            + ", ".join(f"{r['kernel']} {r['first_call']:.2f} s" for r in firsts)
        )


def main(argv=None):
    """Parse the command line, run the benchmarks and print the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only", nargs="+", choices=kernels_arrays.KERNELS, help="benchmark only these kernels"
    )
    parser.add_argument("--no-memory", action="store_true", help="skip the peak-memory columns")
    options = parser.parse_args(argv)

    sd, import_error = import_sourcediff()
    if import_error:
        print(f"! import sourcediff failed: {import_error}")

    rows = [
        bench_case(sd, name, label, args, not options.no_memory)
        for name, label, args in BENCH_CASES
        if options.only is None or name in options.only
    ]
    print_table(rows, with_memory=not options.no_memory)


if __name__ == "__main__":
    main()
