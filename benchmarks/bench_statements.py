"""Size of each generated gradient: statements of the vjp over statements of the user's code.

Counts statements (``ast.stmt`` nodes, comments and docstrings excluded) of the
user's function and the helpers it calls, of the generated ``*_vjp`` function
with the optimizer stage off (``SOURCEDIFF_OPTIMIZE=0``) and on, and of the
hand-written Numba adjoint in ``benchmarks/``. Issue 9 aims at a ratio of at
most 3 (geometric mean), none above 5.

    python benchmarks/bench_statements.py
"""

import ast
import inspect
import math
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("SOURCEDIFF_CACHE_DIR", tempfile.mkdtemp(prefix="sourcediff-stmts-"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import kernels  # noqa: E402

import sourcediff as sd  # noqa: E402


def statements(source: str, function_name: str | None = None) -> int:
    """Statements in ``source`` (in one function of it, when named), docstrings excluded."""
    tree = ast.parse(source)
    if function_name is not None:
        tree = next(
            n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function_name
        )
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not isinstance(node, ast.FunctionDef):
            docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            count += not docstring
    return count


def user_statements(func) -> int:
    """Statements of ``func`` and of the module-level functions it calls, once each."""
    func = getattr(func, "py_func", func)  # a Numba dispatcher's Python function
    module = sys.modules[func.__module__]
    seen, pending, total = set(), [func], 0
    while pending:
        fn = pending.pop()
        fn = getattr(fn, "py_func", fn)
        if fn.__name__ in seen:
            continue
        seen.add(fn.__name__)
        source = inspect.getsource(fn)
        total += statements(source)
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                callee = getattr(module, node.func.id, None)
                if inspect.isfunction(getattr(callee, "py_func", callee)):
                    pending.append(callee)
    return total


def vjp_statements(kernel, optimize: str) -> int:
    """Statements of the generated vjp and of the vjps of the helpers it calls (outlined
    helpers: ``adjoint_source`` shows them after the module)."""
    os.environ["SOURCEDIFF_OPTIMIZE"] = optimize
    text = sd.adjoint_source(kernel.func, argnums=kernel.argnums, args=kernel.args)
    names = [n.name for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)]
    return sum(statements(text, name) for name in names if name.endswith("_vjp"))


def main() -> None:
    print("| kernel | user | hand adjoint | vjp, optimizer off | vjp, optimizer on | ratio on |")
    print("|---|---|---|---|---|---|")
    ratios = []
    for kernel in kernels(0.01):
        user = user_statements(kernel.func)
        hand = user_statements(kernel.hand_grad)
        off, on = vjp_statements(kernel, "0"), vjp_statements(kernel, "1")
        ratios.append(on / user)
        print(f"| {kernel.name} | {user} | {hand} | {off} | {on} | {on / user:.1f} |")
    geomean = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"\ngeometric mean of vjp/user statements, optimizer on: {geomean:.2f}")


if __name__ == "__main__":
    main()
