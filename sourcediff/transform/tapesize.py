"""How many bytes a derivative will record, computed before running it (``sd.tape_size``).

The counting function is the adjoint's forward sweep with every record
lowered to its byte count instead of its NumPy statements (``records.py``):
pushes add their element size, arrays kept in lists their ``nbytes``;
allocations, stack pointers and write-backs into the caller's arrays
disappear. For loops whose iterations are re-run (recompute, checkpoint) the
record of the single iteration being reversed is counted once, as the largest
over all iterations. Running it costs about one evaluation of the function.

>>> from sourcediff.transform.records import Advance, Push
>>> loop = ast.parse("for i in range(n):\\n    s = s * x").body[0]
>>> loop.body[:0] = [Push("s_tape", "s_top", "s", "8"), Advance("s_top", 1)]
>>> print(ast.unparse(counting_function("f_record_bytes", ["x", "n"], [loop])))
def f_record_bytes(x, n):
    recorded_bytes = 0
    peak_bytes = 0
    for i in range(n):
        recorded_bytes += 8
        s = s * x
    return recorded_bytes + peak_bytes
"""

from __future__ import annotations

import ast

from .records import count_bytes


def counting_function(name: str, params: list[str], forward: list[ast.stmt]) -> ast.FunctionDef:
    """A function of the primal's parameters returning the bytes the adjoint records."""
    body = ast.parse("recorded_bytes = 0\npeak_bytes = 0").body
    body += count_bytes(forward, "recorded_bytes")
    body += ast.parse("return recorded_bytes + peak_bytes").body
    arguments = ast.arguments([], [ast.arg(p) for p in params], None, [], [], None, [])
    return ast.fix_missing_locations(ast.FunctionDef(name, arguments, body, []))


def adds_bytes(counting: ast.FunctionDef) -> bool:
    """Whether the (optimized) counting function ever adds to what is recorded."""
    return any(
        isinstance(node, ast.AugAssign)
        and isinstance(node.target, ast.Name)
        and node.target.id in ("recorded_bytes", "iteration_bytes")
        for node in ast.walk(counting)
    )
