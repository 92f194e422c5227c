"""Shrink a failing generated program to a minimal one that fails the same way.

    python -m tests.fuzzing.shrink SEED [--policy store] [--jit] [--file FAILURE.py]

``--file`` shrinks a failure a campaign wrote (``--out``) instead of regenerating
``SEED``'s program, which a later generator may no longer produce.

Greedy: drop one statement of ``f`` at a time (a compound statement with its
body, or just its ``else``), keep the drop when the program still parses, its
reference is still stable and sourcediff still fails with the same outcome;
repeat until no drop helps. The result is printed, ready to become a
regression case.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
import tempfile
from pathlib import Path

from .campaign import ARGNUMS, arguments, check, load, policies
from .generator import generate
from .reference import reference_gradient


def outcome(source, seed, policy, jit: bool, folder: Path, attempt: int, wanted="") -> str:
    """What sourcediff does on ``source`` (a failure class, or 'ok'/'unusable'). The
    finite-difference reference is only computed when a wrong number is ``wanted``."""
    try:
        ast.parse(source)
        f = load(source, folder, seed * 1000 + attempt)
        args = arguments(seed)
        f(*[a.copy() if hasattr(a, "copy") else a for a in args])
        reference, stable = None, True
        if wanted in ("", "wrong", "nan"):
            reference, stable = reference_gradient(f, args, ARGNUMS)
    except Exception:  # noqa: BLE001 - a broken candidate is simply not kept
        return "unusable"
    if not stable:
        return "unusable"
    return check(f, args, policy, jit, reference)[0]


def _function_statements(tree: ast.Module):
    function = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "f")
    inner = [s for s in ast.walk(function) if isinstance(s, ast.stmt) and s is not function]
    return function, inner


def candidates(source: str):
    """Sources with one statement of ``f`` removed (an emptied block gets ``pass``)."""
    for index in range(len(_function_statements(ast.parse(source))[1])):
        tree = ast.parse(source)
        function, statements = _function_statements(tree)
        target = statements[index]
        if isinstance(target, ast.Return) and target in function.body:
            continue
        for parent in ast.walk(function):
            for field in ("body", "orelse"):
                block = getattr(parent, field, None)
                if isinstance(block, list) and target in block:
                    block.remove(target)
                    if not block and field == "body":
                        block.append(ast.Pass())
        yield ast.unparse(tree) + "\n"


def shrink(source: str, seed: int, policy, jit: bool) -> str:
    """The smallest variant of ``source`` that fails like it (see module docstring)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        sys.path.insert(0, tmp)
        failure = outcome(source, seed, policy, jit, folder, 0)
        attempt, improved = 1, True
        while improved:
            improved = False
            for candidate in candidates(source):
                attempt += 1
                found = outcome(candidate, seed, policy, jit, folder, attempt, failure)
                if found == failure:
                    source, improved = candidate, True
                    break
        sys.path.remove(tmp)
    return source


def main(argv=None) -> int:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(prog="python -m tests.fuzzing.shrink")
    parser.add_argument("seed", type=int)
    parser.add_argument("--policy", default="store")
    parser.add_argument("--jit", action=argparse.BooleanOptionalAction, default=False)
    parser.add_argument("--file", type=Path, default=None)
    options = parser.parse_args(argv)
    if not options.jit:
        os.environ["SOURCEDIFF_VERIFY"] = "1"
    policy = next(p for p in policies() if str(p) == options.policy)
    source = options.file.read_text() if options.file else generate(options.seed).source
    print(shrink(source, options.seed, policy, options.jit))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
