"""Command line: ``python -m sourcediff show FILE:FUNC [--mode reverse|forward] [--wrt x,y]``.

Prints the generated derivative of a function in a Python file as readable
source. Derivatives are specialized to argument types; ``--args`` gives example
arguments as a Python expression (``--args "np.ones(8), 0.1, 5"``), ``--signature``
a Numba signature (``--signature "float64[:], float64, int64"``); otherwise they
are guessed from how the function uses its parameters.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import re
import sys
from pathlib import Path

import numpy as np

from .api import adjoint_source, tangent_source
from .errors import SourceDiffError
from .policy import Checkpoint


def _load_function(spec: str):
    path, _, name = spec.rpartition(":")
    if not path or not name:
        raise SystemExit(f"expected FILE:FUNC, got {spec!r}")
    file = Path(path)
    if not file.exists():
        raise SystemExit(f"no such file: {path}")
    sys.path.insert(0, str(file.resolve().parent))
    module_spec = importlib.util.spec_from_file_location(file.stem, file)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[file.stem] = module
    module_spec.loader.exec_module(module)
    if not hasattr(module, name):
        raise SystemExit(f"{path} defines no function {name!r}")
    return getattr(module, name)


def _argnums(func, wrt: str | None):
    if not wrt:
        return 0
    params = list(inspect.signature(func).parameters)
    names = [w.strip() for w in wrt.split(",") if w.strip()]
    missing = [n for n in names if n not in params]
    if missing:
        raise SystemExit(f"{func.__name__} has no parameter {', '.join(missing)}")
    nums = tuple(params.index(n) for n in names)
    return nums[0] if len(nums) == 1 else nums


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m sourcediff``."""
    parser = argparse.ArgumentParser(prog="python -m sourcediff")
    commands = parser.add_subparsers(dest="command", required=True)
    show = commands.add_parser("show", help="print the generated derivative of FILE:FUNC")
    show.add_argument("target", help="path/to/file.py:function")
    show.add_argument("--mode", choices=["reverse", "forward"], default="reverse")
    show.add_argument("--wrt", help="comma-separated parameter names (default: the first)")
    show.add_argument(
        "--policy", default="auto", help="store, recompute, auto or Checkpoint(snapshots=k)"
    )
    show.add_argument("--args", help="example arguments, a Python expression")
    show.add_argument("--signature", help='argument types, e.g. "float64[:], float64, int64"')
    options = parser.parse_args(argv)
    func = _load_function(options.target)
    args = _example_arguments(options.args) if options.args else None
    try:
        argnums = _argnums(func, options.wrt)
        types = {"args": args, "signature": options.signature}
        if options.mode == "forward":
            text = tangent_source(func, argnums, **types)
        else:
            text = adjoint_source(func, argnums, _policy(options.policy), **types)
    except SourceDiffError as exc:
        print(str(exc).splitlines()[0], file=sys.stderr)  # file:line: reason, on one line
        return 1
    print(_highlighted(text) if sys.stdout.isatty() else text)
    return 0


def _example_arguments(expression: str) -> tuple:
    """The arguments ``--args`` spells, as a tuple."""
    try:
        value = eval(expression, {"np": np, "numpy": np})  # noqa: S307 (the user's own)
    except Exception as exc:  # a typo in the user's expression: say so, no traceback
        raise SystemExit(f"--args {expression!r} is not a Python expression: {exc}") from None
    return value if isinstance(value, tuple) else (value,)


def _policy(spelled: str):
    """``store``, ``recompute``, ``auto``, or ``Checkpoint(snapshots=k)`` (``sd.`` optional)."""
    found = re.fullmatch(r"(?:sd\.)?Checkpoint\(\s*(?:snapshots\s*=\s*)?(\d+)\s*\)", spelled)
    return Checkpoint(snapshots=int(found.group(1))) if found else spelled


def _highlighted(source: str) -> str:
    """``source`` with terminal colours when pygments is installed, else as it is."""
    try:
        from pygments import highlight
        from pygments.formatters import TerminalFormatter
        from pygments.lexers import PythonLexer
    except ImportError:
        return source
    return highlight(source, PythonLexer(), TerminalFormatter()).rstrip("\n")


if __name__ == "__main__":
    raise SystemExit(main())
