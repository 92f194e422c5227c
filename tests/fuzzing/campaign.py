"""Run generated programs through sourcediff and classify what happens.

    python -m tests.fuzzing.campaign --programs 10000 --seed 0 --no-jit
    python -m tests.fuzzing.campaign --programs 500 --seed 0 --jit --out /tmp/fuzz
    python -m tests.fuzzing.campaign --programs 200 --seed 0 --no-jit --gaps
    python -m tests.fuzzing.campaign --programs 200 --seed 0 --no-jit --extras

For each program and policy: the gradient with respect to every float
argument (``x0, x1, a, m``) is compared with a reference independent of
sourcediff (``reference.py``): the complex step of the program's source run with
complex-safe stand-ins for ``math``, ``numpy`` and the builtins
(``complex_step.py``), cross-checked by Richardson central differences of the
original function (programs whose reference is unstable, at a kink or a branch
flip, not complex-safe, or where the two disagree, are skipped and counted), the
value with the function's own, and the state of the arrays the function writes
into with the original's; and once per program, forward mode (``sd.jvp`` along a random
direction, row "jvp") against the reference gradient's inner product with it.
In ``--no-jit`` mode the verifier (``SOURCEDIFF_VERIFY=1``) is on. Outcomes:
ok, wrong, stale (the verifier found a primal value read in the reverse sweep that
differs from the forward sweep's, even if the gradient agrees), nan, refused (a
``SourceDiffError``: fine), crash (anything else), unstable (reference). Failing
programs are written to ``--out``.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

from .generator import generate
from .reference import reference_gradient

ARGNUMS = (0, 1, 2, 3)


def policies():
    """The four policies, as sourcediff spells them."""
    import sourcediff as sd

    return ["store", "recompute", sd.Checkpoint(snapshots=2), "auto"]


LAYOUTS = ("C", "F", "strided")


def arguments(seed: int) -> tuple:
    """The arguments a program is run at: bounded, deterministic per seed; the arrays in
    C order, Fortran order or as strided views, as callers pass them (a stream of its
    own picks the layout, so a seed's values do not depend on it)."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1.0, 1.0, 4)
    m = rng.uniform(-0.6, 0.6, (4, 4))
    x0, x1, k = float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1)), int(rng.integers(2, 4))
    layout = LAYOUTS[np.random.default_rng([seed, 7]).integers(len(LAYOUTS))]
    return (x0, x1, laid_out(a, layout), laid_out(m, layout), k)


def laid_out(array: np.ndarray, layout: str) -> np.ndarray:
    """A copy of ``array`` in ``layout``: C order, Fortran order, or a strided view (every
    other element along the last axis of a buffer whose other elements are NaN, so a
    read outside the view shows)."""
    if layout == "F":
        return np.array(array, order="F", copy=True)
    if layout == "strided":
        buffer = np.full(array.shape[:-1] + (2 * array.shape[-1],), np.nan)
        view = buffer[..., ::2]
        view[...] = array
        return view
    return np.array(array, order="C", copy=True)


def layout_of(array: np.ndarray) -> str:
    """The layout of ``array``, as :func:`laid_out` names it."""
    if array.flags.c_contiguous:
        return "C"
    return "F" if array.flags.f_contiguous else "strided"


def load(source: str, folder: Path, seed: int):
    """Import a program from a real file (sourcediff reads the function's source)."""
    path = folder / f"fuzz_{seed}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


def _copied(args):
    """The arguments with every array copied in its own layout."""
    return tuple(laid_out(a, layout_of(a)) if isinstance(a, np.ndarray) else a for a in args)


def close(actual, expected, rtol=1e-5, atol=1e-6) -> bool:
    """Whether two gradients (floats or arrays) agree to tolerance."""
    return all(
        np.allclose(np.asarray(x, dtype=float), np.asarray(y, dtype=float), rtol=rtol, atol=atol)
        for x, y in zip(actual, expected)
    )


def check(f, args, policy, jit: bool, reference, dict_variant=True) -> tuple[str, str]:
    """``(outcome, detail)`` of one program under one policy (and, with ``dict_variant``,
    of its dict-of-parameters variant, when the program has one)."""
    import sourcediff as sd
    from sourcediff.verify import VerificationError

    given = _copied(args)
    try:
        value, grads = sd.value_and_grad(f, argnums=ARGNUMS, policy=policy, jit=jit)(*given)
    except VerificationError as exc:
        return "stale", str(exc).splitlines()[0]
    except sd.SourceDiffError as exc:
        return "refused", str(exc).splitlines()[0]
    except Exception as exc:  # noqa: BLE001 - anything else is a crash to report
        return "crash", f"{type(exc).__name__}: {exc}"[:300] + "\n" + traceback.format_exc()[-800:]
    plain = _copied(args)
    expected_value = f(*plain)
    if any(not np.all(np.isfinite(g)) for g in grads):
        return "nan", f"{grads}"
    if not np.isclose(value, expected_value, rtol=1e-9, atol=1e-12):
        return "wrong", f"value {value} != {expected_value}"
    if not jit:  # the primal module (sd.jit's, sd.vjp's value) is optimized on its own
        try:
            primal_value, _ = sd.vjp(f, *_copied(args), policy=policy, jit=False)
        except Exception as exc:  # noqa: BLE001 - anything else is a crash to report
            return "crash", f"primal: {type(exc).__name__}: {exc}"[:300]
        if not np.isclose(primal_value, expected_value, rtol=1e-9, atol=1e-12):
            return "wrong", f"primal value {primal_value} != {expected_value}"
    for mine, theirs in zip(given, plain):
        if isinstance(mine, np.ndarray) and not np.allclose(mine, theirs, rtol=1e-9, atol=1e-12):
            return "wrong", "the caller's arrays end in another state than with the function"
    if reference is not None and not close(grads, reference):
        return "wrong", f"gradient {grads} != reference {reference}"
    for name in ("f_dict", "f_tuple") if dict_variant else ():
        if name in f.__globals__:
            outcome = _check_variant(f.__globals__[name], args, policy, jit, reference)
            if outcome[0] != "ok":
                return outcome
    return "ok", ""


def check_tangent(f, args, jit: bool, reference, seed: int) -> tuple[str, str]:
    """``(outcome, detail)`` of forward mode: ``sd.jvp`` along a direction drawn from
    ``seed`` against the reference gradient's inner product with it."""
    import sourcediff as sd

    rng = np.random.default_rng([seed, 11])
    directions = [_direction(rng, a) if k in ARGNUMS else 0 for k, a in enumerate(args)]
    try:
        _, tangent = sd.jvp(f, _copied(args), tuple(directions), jit=jit)
    except sd.SourceDiffError as exc:
        return "refused", str(exc).splitlines()[0]
    except Exception as exc:  # noqa: BLE001 - anything else is a crash to report
        return "crash", f"{type(exc).__name__}: {exc}"[:300] + "\n" + traceback.format_exc()[-800:]
    if not np.isfinite(tangent):
        return "nan", f"{tangent}"
    if reference is None:
        return "ok", ""
    terms = [np.asarray(g) * directions[k] for k, g in zip(ARGNUMS, reference)]
    expected = sum(float(np.sum(t)) for t in terms)
    scale = sum(float(np.sum(np.abs(t))) for t in terms)
    if abs(tangent - expected) > 1e-6 + 1e-5 * max(abs(expected), scale):
        return "wrong", f"jvp {tangent} != reference gradient . direction {expected}"
    return "ok", ""


def _direction(rng, arg):
    """A random tangent of ``arg``'s shape (a float for a number)."""
    return rng.uniform(-1.0, 1.0, np.shape(arg)) if np.ndim(arg) else float(rng.uniform(-1, 1))


def _check_variant(variant, args, policy, jit: bool, reference) -> tuple[str, str]:
    """The program's dict-of-parameters (``f_dict``) or tuple-of-parameters (``f_tuple``)
    variant: its gradient, gathered by key or position, against the reference."""
    import sourcediff as sd

    x0, x1, *rest = _copied(args)
    kind = variant.__name__[2:]
    given = {"x0": x0, "x1": x1, "label": "fuzz"} if kind == "dict" else (x0, x1)
    try:
        transformed = sd.grad(variant, argnums=(0, 1, 2), policy=policy, jit=jit)
        gathered, da, dm = transformed(given, *rest)
    except sd.SourceDiffError as exc:
        return "refused", f"{kind} variant: " + str(exc).splitlines()[0]
    except Exception as exc:  # noqa: BLE001 - anything else is a crash to report
        return "crash", f"{kind} variant: {type(exc).__name__}: {exc}"[:300]
    first, second = (gathered["x0"], gathered["x1"]) if kind == "dict" else gathered
    grads = (first, second, da, dm)
    if reference is not None and not close(grads, reference):
        return "wrong", f"{kind} variant: gradient {grads} != reference {reference}"
    return "ok", ""


def run_program(seed: int, folder: Path, jit: bool, selected, gaps=False, extras=False):
    """Outcomes of one program under each policy, with its tags and source."""
    program = generate(seed, gaps, extras)
    f = load(program.source, folder, seed)
    args = arguments(seed)
    try:
        reference, stable = reference_gradient(f, args, ARGNUMS, source=program.source)
    except Exception:  # noqa: BLE001 - the program itself fails here: no reference
        return program, {str(p): ("unstable", "the program raised") for p in selected}
    if not stable:
        return program, {str(p): ("unstable", "") for p in selected}
    outcomes = {str(p): check(f, args, p, jit, reference) for p in selected}
    outcomes["jvp"] = check_tangent(f, args, jit, reference, seed)
    return program, outcomes


def campaign(seeds, jit: bool, out, selected=None, verbose=True, gaps=False, extras=False) -> dict:
    """Run ``seeds``; returns counts by (policy, outcome) and the failures."""
    selected = selected or policies()
    counts: collections.Counter = collections.Counter()
    tags: collections.Counter = collections.Counter()
    refusals: collections.Counter = collections.Counter()
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        sys.path.insert(0, tmp)
        for seed in seeds:
            program, outcomes = run_program(seed, Path(tmp), jit, selected, gaps, extras)
            for policy, (outcome, detail) in outcomes.items():
                counts[policy, outcome] += 1
                if outcome == "refused":
                    refusals[detail.split(": ", 1)[-1][:90]] += 1
                if outcome in ("wrong", "nan", "crash", "stale"):
                    failures.append((seed, policy, outcome, detail, program))
                    tags.update(f"{outcome}:{t}" for t in program.tags)
                    if out is not None:
                        _write_failure(out, seed, policy, outcome, detail, program)
            if verbose and seed % 50 == 0:
                print(f"  ... program {seed}: {len(failures)} failures so far", flush=True)
        sys.path.remove(tmp)
    return {"counts": counts, "failures": failures, "tags": tags, "refusals": refusals}


def _write_failure(out: Path, seed, policy, outcome, detail, program) -> None:
    out.mkdir(parents=True, exist_ok=True)
    text = f"# seed {seed}, policy {policy}: {outcome}\n# tags: {sorted(program.tags)}\n"
    text += "".join(f"# {line}\n" for line in detail.splitlines()) + program.source
    (out / f"{outcome}_{seed}_{policy.replace('(', '_').replace(')', '')}.py").write_text(text)


def report(result: dict) -> str:
    """A table of outcomes per policy."""
    counts = result["counts"]
    outcomes = ["ok", "wrong", "stale", "nan", "refused", "crash", "unstable"]
    rows = [f"{'policy':28}" + "".join(f"{o:>10}" for o in outcomes)]
    for policy in sorted({p for p, _ in counts}):
        rows.append(f"{policy:28}" + "".join(f"{counts[policy, o]:>10}" for o in outcomes))
    return "\n".join(rows)


def main(argv=None) -> int:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(prog="python -m tests.fuzzing.campaign")
    parser.add_argument("--programs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jit", action=argparse.BooleanOptionalAction, default=False)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--gaps", action="store_true", help="generate(seed, gaps=True)")
    parser.add_argument("--extras", action="store_true", help="generate(seed, extras=True)")
    options = parser.parse_args(argv)
    if not options.jit:
        os.environ["SOURCEDIFF_VERIFY"] = "1"
    start = time.time()
    seeds = range(options.seed, options.seed + options.programs)
    result = campaign(seeds, options.jit, options.out, gaps=options.gaps, extras=options.extras)
    print(report(result))
    print(
        f"{options.programs} programs in {time.time() - start:.0f} s; "
        f"{len(result['failures'])} failures"
    )
    for message, count in result["refusals"].most_common(10):
        print(f"  refused {count}x: {message}")
    for seed, policy, outcome, detail, _ in result["failures"][:20]:
        print(f"  seed {seed} {policy} {outcome}: {detail.splitlines()[0][:150]}")
    return 1 if result["failures"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
