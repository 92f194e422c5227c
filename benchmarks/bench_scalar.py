"""Benchmark sourcediff gradients of scalar loop kernels against hand-written Numba code.

Run from the repository root::

    python benchmarks/bench_scalar.py                 # n = 10000 and 100000
    python benchmarks/bench_scalar.py --sizes 10000   # a single size
    python benchmarks/bench_scalar.py --no-latency    # skip the fresh-process timings

For every kernel in :mod:`kernels_scalar` and every ``n`` it prints the best wall
time, after warm-up, of the compiled primal (``sd.jit``), of
``sd.grad(kernel, argnums=(0, 1))`` and of the hand-written gradient in
:mod:`handwritten_scalar`, plus a JAX column when ``import jax`` works. Then it
measures the first-call latency of ``sd.grad`` in a fresh process with an empty
``SOURCEDIFF_CACHE_DIR``, and again in a second process reusing that cache.

A failure inside sourcediff is printed under its row and does not stop the run.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import timeit
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for _path in (str(HERE), str(ROOT)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

import handwritten_scalar  # noqa: E402
import kernels_scalar  # noqa: E402

#: Kernel name -> the two float arguments the benchmark differentiates at.
BENCH_POINTS = {
    "series": (0.3, 1.2),
    "logistic_ode": (0.3, 0.1),
    "pendulum": (1.0, 0.5),
}

#: Kernel used for the first-call latency measurement.
LATENCY_KERNEL = "series"

#: Relative difference between sourcediff and the hand gradient above which a row is flagged.
AGREEMENT_RTOL = 1e-6

#: Program run in a fresh interpreter to time the first call of ``sd.grad``.
LATENCY_PROGRAM = """
import json, sys, time
t0 = time.perf_counter()
import sourcediff as sd
import kernels_scalar
t1 = time.perf_counter()
grad = sd.grad(kernels_scalar.{kernel}, argnums=(0, 1))
grad({a!r}, {b!r}, {n!r})
t2 = time.perf_counter()
print(json.dumps({{"import": t1 - t0, "first_call": t2 - t1}}))
"""


def error_text(exc):
    """One-line description of an exception: type, message and where it was raised.

    The location is given only when the innermost frame is outside this script
    (typically inside sourcediff).
    """
    frames = traceback.extract_tb(exc.__traceback__)
    where = ""
    if frames and Path(frames[-1].filename).resolve() != Path(__file__).resolve():
        where = f" ({Path(frames[-1].filename).name}:{frames[-1].lineno})"
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {message}{where}"


def best_time(fn, args, repeat=30, min_batch_seconds=2e-3):
    """Best per-call wall time of ``fn(*args)`` in seconds, after a warm-up call.

    Calls are timed in batches long enough (``min_batch_seconds``) for the timer
    resolution and call overhead not to matter; the fastest of ``repeat``
    batches is returned.
    """
    fn(*args)  # warm-up: compilation, cache loading, page faults
    start = time.perf_counter()
    fn(*args)
    single = max(time.perf_counter() - start, 1e-7)
    number = max(1, int(min_batch_seconds / single))
    timer = timeit.Timer(lambda: fn(*args))
    return min(timer.repeat(repeat=repeat, number=number)) / number


def relative_difference(got, want):
    """Largest componentwise relative difference between two gradient tuples."""
    return max(abs(g - w) / max(abs(w), 1e-300) for g, w in zip(got, want, strict=True))


def make_jax_grads():
    """JAX versions of the gradients, or ``None`` if JAX is not installed.

    Each returned callable takes ``(a, b, n)`` and blocks until the result is
    ready. The loops use ``lax.fori_loop`` with a static trip count (so they
    are reverse-differentiable) and the branch of ``series`` uses ``lax.cond``.
    """
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax import lax

    def series(x, y, n):
        def step(i, s):
            return lax.cond(
                s < 3.0,
                lambda s: s + jnp.sin(x * i) * y,
                lambda s: s * 0.5 + (x * y + jnp.cos(y)),
                s,
            )

        return lax.fori_loop(0, n, step, jnp.zeros_like(x))

    def logistic_ode(k, y0, n):
        y = lax.fori_loop(0, n, lambda i, y: y + 1e-3 * k * y * (1.0 - y), y0)
        return y * y

    def pendulum(theta0, omega0, n):
        dt, g, c = 1e-3, 9.81, 0.1

        def step(i, state):
            theta, omega = state
            omega = omega - dt * (g * jnp.sin(theta) + c * omega)
            return theta + dt * omega, omega

        theta, omega = lax.fori_loop(0, n, step, (theta0, omega0))
        return 0.5 * omega * omega + g * (1.0 - jnp.cos(theta))

    def wrap(f):
        compiled = jax.jit(jax.value_and_grad(f, argnums=(0, 1)), static_argnums=2)

        def run(a, b, n):
            return jax.block_until_ready(compiled(jnp.float64(a), jnp.float64(b), n))

        return run

    return {
        "series": wrap(series),
        "logistic_ode": wrap(logistic_ode),
        "pendulum": wrap(pendulum),
    }


def import_sourcediff():
    """Return ``(module, None)``, or ``(None, error text)`` if the import fails."""
    try:
        import sourcediff
    except Exception as exc:  # the library may be incomplete while it is written
        return None, error_text(exc)
    return sourcediff, None


def bench_kernel(sd, name, n, jax_grads):
    """Time one kernel at one size; return ``(row dict, list of error notes)``."""
    kernel = getattr(kernels_scalar, name)
    a, b = BENCH_POINTS[name]
    args = (a, b, n)
    notes = []
    row = {"kernel": name, "n": n}

    primal = None
    if sd is not None:
        try:
            primal = sd.jit(kernel)
            primal(*args)
        except Exception as exc:
            notes.append(f"sd.jit failed, timing numba.njit primal instead: {error_text(exc)}")
            primal = None
    row["primal_fallback"] = primal is None
    row["primal"] = best_time(primal or handwritten_scalar.PRIMALS[name], args)

    hand = handwritten_scalar.GRADS[name]
    row["hand"] = best_time(hand, args)
    hand_grad = hand(*args)[1:]

    row["sd"] = None
    if sd is not None:
        try:
            grad = sd.grad(kernel, argnums=(0, 1))
            row["rel_diff"] = relative_difference(grad(*args), hand_grad)
            row["sd"] = best_time(grad, args)
        except Exception as exc:
            notes.append(f"sd.grad failed: {error_text(exc)}")

    if jax_grads is not None:
        try:
            row["jax"] = best_time(jax_grads[name], args, repeat=10)
        except Exception as exc:
            notes.append(f"jax failed: {error_text(exc)}")
    return row, notes


def format_us(seconds, mark=""):
    """Format a time in seconds as microseconds, or ``-`` for a missing value."""
    return "-" if seconds is None else f"{seconds * 1e6:.1f}{mark}"


def format_ratio(num, den):
    """Format ``num / den`` as ``1.23x``, or ``-`` if either is missing."""
    return "-" if num is None or den is None else f"{num / den:.2f}x"


def print_table(rows_and_notes, with_jax):
    """Print the timing table, with each row's error notes under it."""
    header = [
        "kernel",
        "n",
        "primal µs",
        "sd grad µs",
        "hand grad µs",
        "sd/primal",
        "hand/primal",
        "sd/hand",
        "rel.diff",
    ]
    if with_jax:
        header += ["jax grad µs", "jax/hand"]
    lines = []
    for row, notes in rows_and_notes:
        rel_diff = row.get("rel_diff")
        if rel_diff is None:
            agreement = "-"
        else:
            agreement = f"{rel_diff:.0e}" + (" !!" if rel_diff > AGREEMENT_RTOL else "")
        cells = [
            row["kernel"],
            str(row["n"]),
            format_us(row["primal"], "*" if row["primal_fallback"] else ""),
            format_us(row["sd"]),
            format_us(row["hand"]),
            format_ratio(row["sd"], row["primal"]),
            format_ratio(row["hand"], row["primal"]),
            format_ratio(row["sd"], row["hand"]),
            agreement,
        ]
        if with_jax:
            cells += [format_us(row.get("jax")), format_ratio(row.get("jax"), row["hand"])]
        lines.append((cells, notes))

    widths = [len(h) for h in header]
    for cells, _ in lines:
        widths = [max(w, len(c)) for w, c in zip(widths, cells, strict=True)]

    def render(cells):
        first = cells[0].ljust(widths[0])
        rest = (c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True))
        return "  ".join([first, *rest])

    print(render(header))
    print("  ".join("-" * w for w in widths))
    for cells, notes in lines:
        print(render(cells))
        for note in notes:
            print(f"    ! {note}")
    if any(row["primal_fallback"] for row, _ in rows_and_notes):
        print("* primal timed with numba.njit of the hand-written primal (sd.jit unavailable)")
    if any((row.get("rel_diff") or 0.0) > AGREEMENT_RTOL for row, _ in rows_and_notes):
        print(f"!! sourcediff and hand gradients differ by more than {AGREEMENT_RTOL:g}")


def run_latency_process(cache_dir, n):
    """Run :data:`LATENCY_PROGRAM` in a fresh interpreter; return its timings in seconds.

    The result has ``import`` (importing sourcediff), ``first_call`` (``sd.grad``
    plus its first call: transformation, compilation or cache loading, one run)
    and ``process`` (the whole subprocess, interpreter start-up included).
    """
    a, b = BENCH_POINTS[LATENCY_KERNEL]
    program = LATENCY_PROGRAM.format(kernel=LATENCY_KERNEL, a=a, b=b, n=n)
    env = dict(os.environ)
    env["SOURCEDIFF_CACHE_DIR"] = str(cache_dir)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(HERE), str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    )
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", program], env=env, cwd=ROOT, capture_output=True, text=True
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["(no output)"]
        raise RuntimeError(f"subprocess exited with {proc.returncode}: {tail[0]}")
    timings = json.loads(proc.stdout.strip().splitlines()[-1])
    timings["process"] = elapsed
    return timings


def measure_latency(n):
    """Print first-call latency of ``sd.grad`` with a cold and then a warm on-disk cache."""
    print(
        f"\nFirst-call latency of sd.grad({LATENCY_KERNEL}, argnums=(0, 1)) at n={n}, "
        "each in a fresh process:"
    )
    with tempfile.TemporaryDirectory(prefix="sourcediff-bench-cache-") as cache_dir:
        for label in ("empty cache", "cached (2nd process)"):
            try:
                t = run_latency_process(cache_dir, n)
            except Exception as exc:
                print(f"  {label:22s} ! {error_text(exc)}")
                continue
            print(
                f"  {label:22s} first call {t['first_call'] * 1e3:8.1f} ms"
                f"   (import sourcediff {t['import'] * 1e3:.0f} ms,"
                f" whole process {t['process'] * 1e3:.0f} ms)"
            )


def main(argv=None):
    """Parse the command line, run the benchmarks and print the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[10000, 100000], help="loop lengths n"
    )
    parser.add_argument(
        "--no-latency", action="store_true", help="skip the fresh-process first-call timings"
    )
    options = parser.parse_args(argv)

    sd, import_error = import_sourcediff()
    if import_error:
        print(f"! import sourcediff failed: {import_error}")
    jax_grads = make_jax_grads()

    rows = [
        bench_kernel(sd, name, n, jax_grads)
        for n in options.sizes
        for name in kernels_scalar.KERNELS
    ]
    print_table(rows, with_jax=jax_grads is not None)

    if not options.no_latency:
        measure_latency(options.sizes[0])


if __name__ == "__main__":
    main()
