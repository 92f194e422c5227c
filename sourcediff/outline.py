"""Outline the helpers a function calls from several places (reverse mode, before "normalize").

Inlining (``normalize/inline.py``) copies a helper's body into every call: a
right-hand side called four times per Runge-Kutta step is differentiated,
optimized and compiled four times, and the derivative grows with every call. A
helper reached from two or more call sites (a call inside a helper counts once
per call of that helper) that returns one value and writes into none of its
arguments is kept as a call instead, and the derivative treats it like a
``sd.custom_vjp`` function: its rule row (:meth:`OutlinedHelper.rule`) sends the
result's adjoint ``g`` through the helper's own generated vjp, built once per
argument types and compiled once into the caller::

    k1 = rhs(u, d)                          # forward sweep: the compiled helper
    ...
    t9 = rhs_vjp(u, d, k1_bar)              # reverse sweep: (u_bar part, d_bar part)
    add_into(u_bar, t9[0])

This is Tapenade's joint mode: the helper's vjp reruns its own forward sweep
from the arguments the caller kept (the rule reads them, so the to-be-recorded
analysis keeps them), and records nothing across the call. Helpers too small
to pay for a call (:data:`SMALL`, :data:`FEW`) stay inlined, and ``SOURCEDIFF_OUTLINE=0``
inlines every helper.
"""

from __future__ import annotations

import ast
import dataclasses
import os
from collections import Counter
from typing import TYPE_CHECKING

from . import library, runtime
from .astnodes import clone, walk
from .custom_writes import argument_write, returns_view
from .outline_writes import functional_helper, numpy_resolves, write_back_calls, written_parameter
from .rule import Rule

if TYPE_CHECKING:  # parse imports normalize, which the pipeline imports after this
    from .parse import ParsedFunction

#: Statements and operations (its own helpers' included) below which a helper without
#: loops is inlined.
SMALL, FEW = 6, 16
#: Calls from which a helper that writes into its buffer is outlined. Outlined, N-body's
#: force helper (two calls a step) compiled in 7.4 s against 4.7 s inlined, and its vjp,
#: which reruns the pair loop, took 651 µs a gradient against 418 µs (2026-12-07): with
#: two calls, inlining pays; from three on (Runge-Kutta stages) the copies add up.
WRITE_BACK_CALLS = 3


def enabled() -> bool:
    """Whether helpers called from several places are outlined (``SOURCEDIFF_OUTLINE=0``:
    every helper is inlined)."""
    return os.environ.get("SOURCEDIFF_OUTLINE", "1") != "0"


def outlined(parsed: ParsedFunction) -> ParsedFunction:
    """``parsed``, or a copy of its call tree in which each helper worth outlining
    resolves to an :class:`OutlinedHelper` (a function with a rule) instead."""
    if not enabled():
        return parsed
    counts, sites = _call_counts(parsed)
    names = Counter(fn.name for fn in parsed.call_tree())
    taken = set(names) | set(parsed.customs())
    given_tuples = {key for key, _ in _tuple_parameters(sites)}
    chosen = {
        key: entry[0]
        for key, entry in sites.items()
        if counts[key] >= 2
        and names[entry[0].name] == 1  # two helpers of one name (two modules) are inlined
        and key not in given_tuples  # inlined, each element is a variable (tuple_displays)
        and _worth_outlining(entry, taken, parsed.name)
        and (counts[key] >= WRITE_BACK_CALLS or _written(entry) is None)
    }
    if not chosen:
        return parsed
    written = {key: _written(sites[key]) for key in chosen}
    outlined = {key: _outlined_helper(helper, written[key]) for key, helper in chosen.items()}
    return _rewired(parsed, outlined, {k: w for k, w in written.items() if w is not None})


def outlined_names(parsed: ParsedFunction) -> list[str]:
    """The helpers ``parsed``'s call tree calls as outlined helpers."""
    from .outlined import OutlinedHelper

    return [name for name, c in parsed.customs().items() if isinstance(c, OutlinedHelper)]


def _key(fn: ParsedFunction) -> str:
    return f"{fn.filename}:{fn.name}"


def _call_counts(root: ParsedFunction):
    """How many times each helper would be inlined (calls of its callers multiply), and
    each helper's ParsedFunction with its call sites and their callers' nodes, by key."""
    counts: Counter = Counter()
    sites: dict[str, tuple[ParsedFunction, list[ast.Call], list[ast.FunctionDef]]] = {}

    def visit(fn: ParsedFunction, times: int) -> None:
        for call, helper in _helper_calls(fn):
            key = _key(helper)
            counts[key] += times
            entry = sites.setdefault(key, (helper, [], []))
            entry[1].append(call)
            entry[2].append(fn.node)  # the caller, whose buffer a call may write
            visit(helper, times)

    visit(root, 1)
    return counts, sites


def _helper_calls(fn: ParsedFunction):
    """``(call, helper)`` for each call of a helper in ``fn``."""
    for node in walk(fn.node):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            resolved = fn.names.get(node.func.id)
            if resolved is not None and resolved.kind == "helper":
                yield node, resolved.helper


def _worth_outlining(entry, taken: set[str], root: str) -> bool:
    """Whether a helper can be called as an opaque function with a rule, and is big
    enough for that to pay."""
    helper, calls, _ = entry
    args = helper.node.args
    if helper.record is None or helper.dict_params:  # a lifted nested function; dicts
        return False
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
        return False
    count = len(args.args)
    if any(len(c.args) != count or c.keywords for c in calls):
        return False
    if any(isinstance(a, ast.Starred) for c in calls for a in c.args):
        return False
    if _vjp_name(helper.name) in taken or helper.name in _generated_names() | {root}:
        return False
    if helper.name in library.DEFINITIONS:  # NumPy's few lines: a small array's operations
        return False
    if _small(helper):
        return False
    return (_single_result(helper) and _pure(helper)) or _written(entry) is not None


def _tuple_parameters(sites) -> set[tuple[str, int]]:
    """``(helper key, position)`` of each parameter some call gives a tuple: written out,
    joined or kept in a name of the caller (``rhs((u, v))``, ``rhs(p + (w,))``, ``rhs(p)``),
    or a parameter of the caller that is given one itself."""
    from .normalize.tuples import tuple_size, tuple_variables

    key_of = {id(helper.node): key for key, (helper, _, _) in sites.items()}
    callers = {id(c): c for _, _, cs in sites.values() for c in cs}
    sizes_in = {caller: tuple_variables(node) for caller, node in callers.items()}
    given: set[tuple[str, int]] = set()
    while True:
        found = set()
        for key, (_, calls, callers_of) in sites.items():
            for call, caller in zip(calls, callers_of):
                params = [a.arg for a in caller.args.args]
                sizes = sizes_in[id(caller)]
                for position, arg in enumerate(call.args):
                    passed_on = isinstance(arg, ast.Name) and arg.id in params
                    if tuple_size(arg, sizes) is not None or (
                        passed_on and (key_of.get(id(caller)), params.index(arg.id)) in given
                    ):
                        found.add((key, position))
        if found <= given:
            return given
        given |= found


def _written(entry) -> tuple[str, int] | None:
    """The parameter a helper that returns nothing writes its result into, and its
    position, when its calls can write the result back (outline_writes.py); else None."""
    helper, calls, callers = entry
    if not numpy_resolves(helper):
        return None
    param = written_parameter(helper, calls, callers)
    if param is None:
        return None
    return param, [a.arg for a in helper.node.args.args].index(param)


def _generated_names() -> set[str]:
    return set(runtime.HELPERS) | {"value", "np", "math"}


def _single_result(helper: ParsedFunction) -> bool:
    """Every ``return`` gives one value (a tuple would need one adjoint per element)."""
    returns = [n for n in walk(helper.node) if isinstance(n, ast.Return)]
    if not returns or any(r.value is None or isinstance(r.value, ast.Tuple) for r in returns):
        return False
    return not returns_view(helper.node)  # a view of an argument would alias it


def _pure(helper: ParsedFunction) -> bool:
    """Whether nothing in the helper's call tree writes into its own arguments (a write
    into an array the caller passed would be a side effect of an opaque call)."""
    return all(argument_write(fn.node) is None for fn in helper.call_tree())


def _small(helper: ParsedFunction) -> bool:
    """Without loops, fewer than :data:`SMALL` statements and :data:`FEW` operations (a
    line of broadcasting array code is as much work to differentiate and compile as a
    loop)."""
    nodes = [n for fn in helper.call_tree() for n in walk(fn.node)]
    if any(isinstance(n, (ast.For, ast.While)) for n in nodes):
        return False
    statements = [n for n in nodes if isinstance(n, ast.stmt) and not _docstring(n)]
    operations = [n for n in nodes if isinstance(n, (ast.BinOp, ast.UnaryOp, ast.Call))]
    operations += [n for n in nodes if isinstance(n, ast.Subscript)]
    defs = len(helper.call_tree())
    return len(statements) - defs < SMALL and len(operations) < FEW


def _docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)


def _rewired(fn: ParsedFunction, outlined: dict, written: dict) -> ParsedFunction:
    """A copy of ``fn`` whose calls of outlined helpers resolve to them, recursively, and
    whose calls of helpers that write into an argument (``written``, by key) write the
    helper's result back."""
    from .parse import Resolved

    names, writes = {}, {}
    for name, resolved in fn.names.items():
        if resolved.kind == "helper" and _key(resolved.helper) in outlined:
            key = _key(resolved.helper)
            value = outlined[key]
            resolved = Resolved("custom", value.__name__, value=value)
            if key in written:
                writes[name] = written[key]
        elif resolved.kind == "helper":
            rewired = _rewired(resolved.helper, outlined, written)
            resolved = dataclasses.replace(resolved, helper=rewired)
        names[name] = resolved
    if not writes:
        return dataclasses.replace(fn, names=names)
    node = clone(fn.node)
    write_back_calls(node, writes)
    return dataclasses.replace(fn, names=names, node=node)


def _vjp_name(name: str) -> str:
    return f"{name}_vjp"


#: Outlined helpers by the source of their call tree: the same object for every build,
#: so type inference's cache (keyed by the externals' identity) hits. Bounded.
_OUTLINED: dict[str, object] = {}
_OUTLINED_LIMIT = 256


def _outlined_helper(helper: ParsedFunction, written: tuple[str, int] | None):
    """The outlined helper for ``helper`` (rewritten to return the array it writes into,
    when ``written`` names that parameter)."""
    from .outlined import OutlinedHelper

    key = repr([(fn.filename, fn.name, fn.source) for fn in helper.call_tree()] + [written])
    if key not in _OUTLINED:
        if len(_OUTLINED) >= _OUTLINED_LIMIT:
            _OUTLINED.clear()
        if written is not None:
            helper = functional_helper(helper, written[0])
        _OUTLINED[key] = OutlinedHelper(helper)
    return _OUTLINED[key]


def rule_for(name: str, count: int) -> Rule:
    """The row of an outlined helper with ``count`` parameters: argument ``k``'s adjoint
    is entry ``k`` of its vjp's tuple (parameters named ``a0``... so that none is
    mistaken for the template's ``g`` or ``out``)."""
    params = tuple(f"a{k}" for k in range(count))
    call = f"{_vjp_name(name)}({', '.join(params)}, g)"
    return Rule(
        name,
        params,
        ("1",) * count,
        adjoints=tuple(f"{call}[{k}]" for k in range(count)),
    )
