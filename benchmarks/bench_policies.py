"""Benchmark the store-or-recompute policies of sourcediff's reverse mode on a long heat run.

Run from the repository root::

    python benchmarks/bench_policies.py --quick                  # 500 cells x 2000 steps only
    python benchmarks/bench_policies.py                          # every configuration
    python benchmarks/bench_policies.py --sizes memory 300x5000  # named or NxSTEPS configurations
    python benchmarks/bench_policies.py --policies store auto    # some policies only

For every configuration and every policy (``"store"``, ``"recompute"``,
``sd.Checkpoint(snapshots=20)``, ``"auto"``) one fresh Python process builds
``sd.grad(heat, argnums=(0, 1), policy=P)`` and ``sd.jit(heat)`` for the kernel in
:mod:`kernels_policies`, warms both up on a tiny input (n=16, 3 steps) so that
compilation is not timed, takes the peak resident set size (``ru_maxrss``) as its
baseline, then times ONE primal call and ONE gradient call at the real size and
records how much each raised the peak RSS. One process per measurement keeps the
peaks of the policies apart. The processes share an on-disk ``SOURCEDIFF_CACHE_DIR``,
so later ones load the compiled code instead of compiling it again.

Each process prints one JSON line and saves its gradients to ``.npy`` files; this
process prints the table and checks that every policy's gradient agrees with
``"store"``'s. A failing policy (an exception, or a process that dies) gets its
error printed in its row and the run goes on.
"""

import argparse
import gc
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for _path in (str(HERE), str(ROOT)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

import kernels_policies  # noqa: E402

#: Named configurations: name -> (cells, steps). The default run does all of them, in this order.
CONFIGS = {
    "big": (2000, 100_000),  # "store" records about 1.6 GB
    "memory": (4000, 4000),  # memory-bound: the record does not fit in cache
    "quick": (500, 2000),  # smoke test (--quick)
}

#: Policy names accepted by --policies, in report order; "checkpoint" is Checkpoint(snapshots=20).
POLICIES = ("store", "recompute", "checkpoint", "auto")

#: Snapshots of the "checkpoint" policy.
SNAPSHOTS = 20

#: Warm-up size (cells, steps): compiles everything for the argument types, cheaply.
WARMUP = (16, 3)

#: Relative difference from "store"'s gradient above which a row is flagged.
AGREEMENT_RTOL = 1e-12

#: Seconds a child may run before it is killed and its row reports a timeout.
DEFAULT_TIMEOUT = 3600

#: Persistent cache of generated and compiled code shared by the children (and by later runs).
DEFAULT_CACHE_DIR = Path(tempfile.gettempdir()) / "sourcediff-bench-policies-cache"


def error_text(exc):
    """One-line description of an exception: type, message and where it was raised."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = ""
    if frames and Path(frames[-1].filename).resolve() != Path(__file__).resolve():
        where = f" ({Path(frames[-1].filename).name}:{frames[-1].lineno})"
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {message}{where}"


def policy_label(name):
    """How a policy name is shown in the table."""
    return f"Checkpoint({SNAPSHOTS})" if name == "checkpoint" else name


def peak_rss_kib():
    """Peak resident set size of this process so far (``ru_maxrss``: KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def current_rss_kib():
    """Current resident set size in KiB, or None where /proc is not available."""
    try:
        with open("/proc/self/statm") as statm:
            pages = int(statm.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE") // 1024


# --------------------------------------------------------------------------- child


def run_child(n, steps, policy_name, out_dir):
    """Measure one policy at one size in this (fresh) process; return the JSON record.

    Exceptions are caught and reported in the record's ``error`` with the ``stage``
    that failed; what was measured before the failure is kept.
    """
    record = {"n": n, "steps": steps, "policy": policy_name}
    stage = "import"
    try:
        import sourcediff as sd

        stage = "build"
        policy = sd.Checkpoint(snapshots=SNAPSHOTS) if policy_name == "checkpoint" else policy_name
        heat = kernels_policies.heat
        g = sd.grad(heat, argnums=(0, 1), policy=policy)
        p = sd.jit(heat)

        stage = "warm-up"
        small = kernels_policies.heat_args(*WARMUP)
        start = time.perf_counter()
        p(*small)
        g(*small)
        record["warmup_s"] = time.perf_counter() - start

        args = kernels_policies.heat_args(n, steps)
        gc.collect()
        base = peak_rss_kib()
        record["base_peak_kib"] = base
        record["base_current_kib"] = current_rss_kib()

        stage = "primal"
        start = time.perf_counter()
        value = p(*args)
        record["primal_s"] = time.perf_counter() - start
        after_primal = peak_rss_kib()
        record["value"] = float(value)
        record["primal_extra_kib"] = after_primal - base

        stage = "gradient"
        start = time.perf_counter()
        grads = g(*args)
        record["grad_s"] = time.perf_counter() - start
        record["grad_extra_kib"] = peak_rss_kib() - after_primal

        stage = "saving the gradient"
        paths = []
        for k, component in enumerate(grads):
            path = Path(out_dir) / f"{n}x{steps}-{policy_name}-{k}.npy"
            np.save(path, np.asarray(component, dtype=float))
            paths.append(str(path))
        record["grad_files"] = paths

        stage = "tape_size"
        try:
            tape_size = sd.tape_size
        except AttributeError:
            record["tape_bytes"] = None
            record["tape_note"] = "n/a"
        else:
            try:
                record["tape_bytes"] = tape_size(heat, *args, argnums=(0, 1), policy=policy)
            except Exception as exc:
                record["tape_bytes"] = None
                record["tape_note"] = "error"
                record["tape_error"] = error_text(exc)
    except Exception as exc:
        record["error"] = f"{stage}: {error_text(exc)}"
    return record


# --------------------------------------------------------------------------- parent


def run_in_child(n, steps, policy_name, out_dir, cache_dir, timeout):
    """Run :func:`run_child` in a fresh interpreter; return its record (or one with ``error``)."""
    env = dict(os.environ)
    env["SOURCEDIFF_CACHE_DIR"] = str(cache_dir)
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        f"{n}x{steps}",
        policy_name,
        str(out_dir),
    ]
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return {"n": n, "steps": steps, "policy": policy_name, "error": f"timed out ({timeout} s)"}
    wall = time.perf_counter() - start
    for line in reversed(proc.stdout.strip().splitlines()):
        if line.startswith("{"):
            record = json.loads(line)
            record["process_s"] = wall
            return record
    tail = proc.stderr.strip().splitlines()[-1:] or ["(no output)"]
    signal = f" (signal {-proc.returncode})" if proc.returncode < 0 else ""
    return {
        "n": n,
        "steps": steps,
        "policy": policy_name,
        "error": f"child exited with code {proc.returncode}{signal}: {tail[0]}",
    }


def load_grads(record):
    """The gradients a child saved, as a tuple of arrays, or None."""
    paths = record.get("grad_files")
    if not paths:
        return None
    return tuple(np.load(path) for path in paths)


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
        scale = float(np.max(np.abs(w))) if w.size else 0.0
        diff = float(np.max(np.abs(g - w))) if w.size else 0.0
        worst = max(worst, diff / scale if scale > 0 else diff)
    return worst


def format_seconds(value):
    """Seconds with at least three significant digits (no exponent), or ``-``."""
    if value is None:
        return "-"
    decimals = 3 if value >= 0.1 else min(9, 2 - math.floor(math.log10(max(value, 1e-9))))
    return f"{value:.{decimals}f}"


def format_ratio(num, den):
    return "-" if num is None or den is None or den <= 0 else f"{num / den:.2f}x"


def format_mib(kib):
    return "-" if kib is None else f"{kib / 1024:.1f}"


def format_tape(record):
    if record.get("tape_bytes") is not None:
        return f"{record['tape_bytes'] / 2**20:.1f}"
    return record.get("tape_note", "-")


def print_table(results):
    """Print one row per (configuration, policy); errors under their rows."""
    header = [
        "config",
        "policy",
        "primal s",
        "grad s",
        "grad/primal",
        "grad/store-grad",
        "primal peak MiB",
        "extra peak MiB",
        "tape_size MiB",
        "rel.diff vs store",
    ]
    lines = []
    for record, store, rel_diff in results:
        if rel_diff is None:
            agreement = "-"
        else:
            agreement = f"{rel_diff:.1e}" + (" !!" if rel_diff > AGREEMENT_RTOL else "")
        cells = [
            f"{record['n']}x{record['steps']}",
            policy_label(record["policy"]),
            format_seconds(record.get("primal_s")),
            format_seconds(record.get("grad_s")),
            format_ratio(record.get("grad_s"), record.get("primal_s")),
            format_ratio(record.get("grad_s"), (store or {}).get("grad_s")),
            format_mib(record.get("primal_extra_kib")),
            format_mib(record.get("grad_extra_kib")),
            format_tape(record),
            agreement,
        ]
        notes = []
        if "error" in record:
            notes.append(record["error"])
        if "tape_error" in record:
            notes.append(f"tape_size: {record['tape_error']}")
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
    previous = None
    for cells, notes in lines:
        if previous is not None and cells[0] != previous:
            print()
        previous = cells[0]
        print(render(cells))
        for note in notes:
            print(f"    ! {note}")


def parse_size(text):
    """A configuration name from :data:`CONFIGS` or ``CELLSxSTEPS`` -> (cells, steps)."""
    if text in CONFIGS:
        return CONFIGS[text]
    try:
        cells, steps = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected one of {', '.join(CONFIGS)} or CELLSxSTEPS, got {text!r}"
        ) from None
    if cells < 3 or steps < 0:
        raise argparse.ArgumentTypeError(f"need at least 3 cells and 0 steps, got {text!r}")
    return cells, steps


def main(argv=None):
    """Parse the command line, run one child per (configuration, policy), print the table."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        n, steps = parse_size(argv[1])
        print(json.dumps(run_child(n, steps, argv[2], argv[3])), flush=True)
        return 0

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        type=parse_size,
        nargs="+",
        help=f"configurations: {', '.join(f'{k} ({c}x{s})' for k, (c, s) in CONFIGS.items())}"
        " or CELLSxSTEPS; default: all named ones",
    )
    parser.add_argument(
        "--quick", action="store_true", help=f"only the quick configuration {CONFIGS['quick']}"
    )
    parser.add_argument(
        "--policies", nargs="+", choices=POLICIES, default=list(POLICIES), help="policies to run"
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=DEFAULT_CACHE_DIR,
        help=f"SOURCEDIFF_CACHE_DIR of the children (default {DEFAULT_CACHE_DIR})",
    )
    parser.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds allowed per child"
    )
    options = parser.parse_args(argv)
    if options.quick and options.sizes:
        parser.error("--quick and --sizes are exclusive")
    sizes = [CONFIGS["quick"]] if options.quick else options.sizes or list(CONFIGS.values())
    policies = [p for p in POLICIES if p in options.policies]
    options.cache_dir.mkdir(parents=True, exist_ok=True)

    print(
        f"sd.grad(heat, argnums=(0, 1), policy=P) vs sd.jit(heat); one fresh process per row; "
        f"one timed call each after warm-up at n={WARMUP[0]}, steps={WARMUP[1]}"
    )
    print(f"SOURCEDIFF_CACHE_DIR={options.cache_dir}\n")

    results = []
    overall = None
    with tempfile.TemporaryDirectory(prefix="sourcediff-bench-policies-") as out_dir:
        for n, steps in sizes:
            records = []
            for policy_name in policies:
                print(f"  running {n}x{steps} {policy_label(policy_name)} ...", flush=True)
                records.append(
                    run_in_child(n, steps, policy_name, out_dir, options.cache_dir, options.timeout)
                )
            store = next((r for r in records if r["policy"] == "store"), None)
            store_grads = load_grads(store) if store else None
            for record in records:
                grads = load_grads(record)
                rel_diff = None
                if grads is not None and store_grads is not None:
                    rel_diff = relative_difference(grads, store_grads)
                    if record is not store:
                        overall = rel_diff if overall is None else max(overall, rel_diff)
                results.append((record, store, rel_diff))
    print()
    print_table(results)

    print()
    for record, _, _ in results:
        if "base_peak_kib" in record:
            current = record.get("base_current_kib")
            gap = "" if current is None else f", current RSS {format_mib(current)} MiB"
            print(
                f"  {record['n']}x{record['steps']} {policy_label(record['policy']):15s} "
                f"baseline peak {format_mib(record['base_peak_kib'])} MiB{gap}, "
                f"warm-up {record.get('warmup_s', 0.0):.1f} s, "
                f"whole process {record.get('process_s', 0.0):.1f} s"
            )
    print("  (ru_maxrss only grows: an allocation that stays below the baseline peak is not seen)")
    print()
    if overall is None:
        print("max relative difference from 'store': - (no gradients to compare)")
    else:
        flag = "  !! above" if overall > AGREEMENT_RTOL else "  (tolerance"
        print(
            f"max relative difference from 'store' over all policies and configurations: "
            f"{overall:.2e}{flag} {AGREEMENT_RTOL:g}" + ("" if overall > AGREEMENT_RTOL else ")")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
