"""Stage 2, normalize: the user's call tree as one function in three-address form.

Refusals already happened when each function was parsed (``sourcediff.fence``).
The passes, in order, each in its own module:

- ``view_arguments``: a view passed to a helper that writes into it is copied in and
  written back;
- ``exits``: lower early ``return``, ``break`` and ``continue`` to flags;
- ``flatten``: three-address form, canonical call names;
- ``inline``: splice the (already normalized) helpers into their callers;
- ``tuple_displays``: the tuples a helper was given become their elements;
- ``versions``: name each straight-line redefinition separately;
- ``loops``: give every loop a trip counter for the reverse sweep.

Once types are known (the ``types`` stage), rewrites that need them run here too:
``inplace`` (``x += e`` in place for arrays, rebound for numbers), ``indices``,
``views`` and ``scalarize`` (elementwise runs fused into loops over scalars).

The result is still ordinary Python that computes the same values as the
user's function; it is also the primal that ``sd.jit`` compiles.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..astnodes import clone
from ..codegen import constant_text
from ..errors import SourceDiffError
from ..naming import Namer
from ..parse import ParsedFunction
from .arrays import iterate_rows
from .exits import lower_exits
from .flatten import Flattener
from .inline import inline_calls
from .iteration import expand_enumerate_zip
from .loops import add_trip_counters, separate_loop_variables
from .tuple_displays import resolve_tuple_displays
from .tuples import split_tuple_variables
from .versions import version_straight_line
from .view_arguments import copy_views_written_by_helpers

RESERVED = {"math", "np", "numpy", "range", "len", "abs", "min", "max", "float", "int", "bool"}


@dataclass
class NormalizedFunction:
    """The normalized primal and what later stages need to know about its names."""

    name: str
    filename: str
    node: ast.FunctionDef
    params: list[str]
    defaults: dict[str, object]
    constants: dict[str, object]
    temps: set[str]
    namer: Namer
    counters: dict = field(default_factory=dict)
    externals: dict = field(default_factory=dict)  # functions with user rules, by name


def normalize(parsed: ParsedFunction) -> NormalizedFunction:
    """Normalize ``parsed`` and every helper it calls into one function."""
    constants = _constants(parsed)
    bodies: dict[str, tuple[ast.FunctionDef, set[str]]] = {}
    node, temps, namer = _normalize_one(parsed, bodies, set(constants), parsed)
    version_straight_line(node, namer)
    counters: dict = {}
    node.body = add_trip_counters(node.body, namer, counters)
    separate_loop_variables(node, namer, counters)
    params = [a.arg for a in node.args.args]
    return NormalizedFunction(
        parsed.name,
        parsed.filename,
        node,
        params,
        parsed.defaults,
        constants,
        temps,
        namer,
        counters,
        externals(parsed),
    )


def externals(parsed: ParsedFunction) -> dict[str, object]:
    """The Numba-callable functions of the user rules the call tree uses, by name."""
    found: dict[str, object] = {}
    for custom in parsed.customs().values():
        found |= custom.externals()
    return found


def _normalize_one(fn: ParsedFunction, bodies: dict, constant_names: set[str], top):
    for resolved in fn.names.values():
        if resolved.kind == "helper" and resolved.helper.name not in bodies:
            helper = resolved.helper
            helper_node, helper_temps, _ = _normalize_one(helper, bodies, constant_names, top)
            bodies[resolved.helper.name] = (helper_node, helper_temps)
    node = clone(fn.node)
    expand_enumerate_zip(node, Namer.for_tree(node, RESERVED | constant_names | set(bodies)))
    node = split_tuple_variables(fn, node)
    namer = Namer.for_tree(node, RESERVED | constant_names | set(bodies))
    iterate_rows(node, namer)
    copy_views_written_by_helpers(fn, node, namer)
    node = lower_exits(fn, node, namer, helper=fn is not top)
    flattener = Flattener(fn, node, namer)
    body = flattener.block(node.body)
    temps = flattener.temps
    node.body = inline_calls(body, fn, bodies, namer, temps)
    resolve_tuple_displays(node, namer, temps)
    return node, temps, namer


def _constants(parsed: ParsedFunction) -> dict[str, object]:
    constants: dict[str, object] = {}
    for fn in parsed.call_tree():
        for name, resolved in fn.names.items():
            if resolved.kind != "constant":
                continue
            if name in constants and constant_text(constants[name]) != constant_text(
                resolved.value
            ):
                raise SourceDiffError(
                    f"the constant '{name}' has different values in different modules of the "
                    "call tree; rename one of them",
                    fn.filename,
                    fn.node.lineno,
                )
            constants[name] = resolved.value
    return constants
