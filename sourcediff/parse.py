"""Stage 1, parse: from a live Python function to its AST, with everything it refers to.

``parse_function`` reads the function's source, gives every node its absolute
line number in the user's file, and resolves each free name once, here, so that
later stages never look at live Python objects: a name is a module (``math``,
``numpy``), a library function with a derivative rule (``math.sin``), a builtin
(``range``), a module-level constant, or a helper function of the user's, which
is parsed in turn. Anything else is refused with the user's file and line.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import math
import textwrap
import types
from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np

from . import appends, fence
from .appends import expand_appends
from .astnodes import walk
from .comprehensions import expand_comprehensions
from .custom import CustomJVP, CustomVJP
from .dict_params import Layout, dict_parameters, gives_helpers_parameters
from .dict_params import flatten as flatten_dict_parameters
from .errors import SourceDiffError, UnsupportedCallError, UnsupportedSyntaxError
from .helper_names import name_helpers_apart
from .library import (
    DEFINITIONS,
    definition_of,
    in_place_array_methods,
    library_calls_as_helpers,
    triangle_indices_unpacked,
)
from .library_norms import norm_orders_as_helpers
from .library_scipy import (
    SCIPY_DEFINITIONS,
    SCIPY_SPECIAL,
    scipy_calls_as_helpers,
    scipy_definition,
)
from .loop_else import lower_loop_else
from .loop_names import rename_repeated_loop_variables
from .naming import Namer
from .nested import lift_nested_functions
from .normalize.arrays import joined_lists_as_tuples, reversed_range
from .normalize.iteration import is_sugar
from .option_calls import call_options, pass_helper_options, split_by_choice
from .options import bind_options, option_parameters
from .raises import canonical_raises, is_exception_name, raise_if_it_always_raises
from .row_unpacking import unpack_rows
from .sources import (
    CONSTANT_TYPES,
    SourceRecord,
    calling,
    code_key,
    function_defaults,
    read_source,
    unwrap,
)
from .spellings import plain_spellings
from .view_writes import views_written_through

SUPPORTED_MODULES = {math: "math", np: "np", np.linalg: "np.linalg"}
SUPPORTED_BUILTINS = {"range", "len", "abs", "min", "max", "float", "int", "bool", "round"}
SUPPORTED_BUILTINS |= {"enumerate", "zip"}  # as what a for loop runs over


@dataclass(frozen=True)
class Resolved:
    """What a free name of the user's function stands for.

    ``kind`` is one of ``module``, ``function`` (a library function named by
    ``path``, e.g. ``math.sin``), ``builtin``, ``constant`` (``value``),
    ``custom`` (a function with a user rule, ``value``; see sourcediff.custom) or
    ``helper`` (``helper`` is its ParsedFunction).
    """

    kind: str
    path: str = ""
    value: object = None
    helper: ParsedFunction | None = None


@dataclass
class ParsedFunction:
    """A user function's AST with absolute line numbers and its resolved free names."""

    name: str
    filename: str
    source: str
    node: ast.FunctionDef
    defaults: dict[str, object]
    names: dict[str, Resolved] = field(default_factory=dict)
    record: SourceRecord | None = None
    dict_params: Layout = field(default_factory=dict)  # see sourcediff.dict_params
    option_params: tuple[str, ...] = ()  # see sourcediff.options
    options: tuple = ()  # (name, value) pairs the tree was bound with

    def call_tree(self) -> list[ParsedFunction]:
        """This function and every helper it reaches, each once, callers first."""
        seen: dict[str, ParsedFunction] = {}
        stack = [self]
        while stack:
            fn = stack.pop()
            key = f"{fn.filename}:{fn.name}"
            if key in seen:
                continue
            seen[key] = fn
            stack.extend(r.helper for r in fn.names.values() if r.kind == "helper")
        return list(seen.values())

    def source_records(self) -> tuple[SourceRecord, ...]:
        """The sources of this function and its helpers, to travel with a pickle."""
        return tuple(fn.record for fn in self.call_tree() if fn.record is not None)

    def module_arrays(self) -> dict[str, object]:
        """The module-level arrays the tree reads, by name: baked into the generated module
        as constants, so a call must not pass one as an array the function writes."""
        arrays = {
            name: resolved.value
            for fn in self.call_tree()
            for name, resolved in fn.names.items()
            if resolved.kind == "constant" and _is_constant_array(resolved.value)
        }
        for custom in self.customs().values():  # compiled by Numba: globals are constants
            for function in [custom.func, *custom.rule_functions().values()]:
                function = getattr(function, "py_func", function)
                scope = getattr(function, "__globals__", {})
                for name in getattr(getattr(function, "__code__", None), "co_names", ()):
                    if isinstance(scope.get(name), np.ndarray):
                        arrays[name] = scope[name]
        return arrays

    def customs(self) -> dict[str, object]:
        """The functions with user derivative rules (``sd.custom_vjp``...) the tree calls."""
        found: dict[str, object] = {}
        for fn in self.call_tree():
            for resolved in fn.names.values():
                if resolved.kind != "custom":
                    continue
                if found.get(resolved.path, resolved.value) is not resolved.value:
                    raise fn.error(
                        fn.node,
                        f"two different custom-rule functions are named '{resolved.path}'; "
                        "rename one of them",
                    )
                found[resolved.path] = resolved.value
        return found

    def error(self, node: ast.AST, reason: str, cls=UnsupportedSyntaxError) -> SourceDiffError:
        """An error of class ``cls`` located at ``node`` in this function's file."""
        return cls(
            reason, self.filename, getattr(node, "lineno", 0), getattr(node, "col_offset", 0)
        )


def parse_function(func, _active: tuple[str, ...] = (), options: dict | None = None):
    """Parse ``func`` and, recursively, the helpers it calls; refuse recursion.

    A function with option parameters (``sourcediff.options``) is checked and resolved
    only once ``options`` gives their values; without them it is parsed for its
    signature alone (the caller binds it per call: ``dispatch.Specializer.parsed_for``).
    """
    func = unwrap(func)
    if isinstance(func, (CustomVJP, CustomJVP)):
        func = calling(func)
    if not isinstance(func, types.FunctionType):
        raise SourceDiffError(f"{func!r} is not a Python function; sourcediff needs its source")
    record = read_source(func)
    filename, first_line = record.filename, record.first_line
    source = textwrap.dedent("".join(record.lines))
    name = func.__code__.co_name  # the def's own name (functools.wraps renames a wrapper)
    node = _function_node(ast.parse(source), name, filename, first_line)
    ast.increment_lineno(node, first_line - 1)
    node.decorator_list = []
    helper_keys = _HelperDictKeys(func, _active + (code_key(func),))
    layout = dict_parameters(node, filename, helper_keys)
    # Dicts and tuples of parameters: one parameter per key (sourcediff.dict_params).
    if layout or gives_helpers_parameters(node, helper_keys):
        node = flatten_dict_parameters(node, layout, helper_keys)
    joined_lists_as_tuples(node)
    plain_spellings(node)
    views_written_through(node)
    merge_chained_element_writes(node)
    namer = Namer.for_tree(node, set())
    unpack_rows(node, namer)
    expand_appends(node, namer, _numpy_name(func, appends.GROW), filename)
    expand_comprehensions(node, namer, _numpy_name(func), filename)
    builtin_sums_as_numpy(node, _numpy_name(func, "sum"))
    library_calls_as_helpers(node, _numpy_name(func))
    norm_orders_as_helpers(node, _numpy_name(func))
    in_place_array_methods(node, _numpy_name(func))
    triangle_indices_unpacked(node, namer)
    scipy_calls_as_helpers(node, func.__globals__)
    lower_loop_else(node, namer)
    rename_repeated_loop_variables(node, namer)
    canonical_raises(node, filename)
    lifted = lift_nested_functions(node, filename)
    option_names = tuple(sorted(option_parameters(node)))
    if options is not None:
        node = bind_options(node, options)
        raise_if_it_always_raises(node)
    defaults = function_defaults(func)
    parsed = ParsedFunction(name, filename, source, node, defaults, record=record)
    parsed.dict_params, parsed.option_params = layout, option_names
    parsed.options = tuple(sorted(options.items())) if options else ()
    if option_names and options is None:
        return parsed  # bound per call
    fence.check(node, filename)
    key = f"{filename}:{name}"
    nested = _nested_helpers(lifted, parsed)
    for inner in nested.values():
        inner.names = _resolve_free_names(func, inner, _active + (key,), nested)
    parsed.names = _resolve_free_names(func, parsed, _active + (key,), nested)
    pass_helper_options(parsed)
    if not _active:  # the whole call tree is parsed
        name_helpers_apart(parsed)
    return parsed


#: What rewrites call NumPy in a module that does not import it (a list grown by append).
NUMPY_ALIAS = "_sourcediff_numpy"


def _numpy_name(func, needed: str = "") -> str | None:
    """What ``func``'s module calls numpy (``np`` if it may; :data:`NUMPY_ALIAS` if it does
    not import it), None if it defines ``needed``, a runtime function a rewrite would call."""
    if needed and needed in func.__globals__:
        return None
    names = [name for name, value in func.__globals__.items() if value is np]
    return "np" if "np" in names else (names[0] if names else NUMPY_ALIAS)


class _HelperDictKeys:
    """The keys a helper of ``func`` reads from its dict parameter at a position (None
    where it has none): what a caller passing its own dict on must flatten it into."""

    def __init__(self, func, active: tuple):
        self.scope = dict(func.__globals__)
        self.scope.update(inspect.getclosurevars(func).nonlocals)
        self.active = active
        self.layouts: dict[str, tuple[list[str], dict] | None] = {}

    def __call__(self, name: str, position: int) -> tuple[str, ...] | None:
        if name not in self.layouts:
            self.layouts[name] = self._layout(self.scope.get(name))
        found = self.layouts[name]
        if found is None or position >= len(found[0]):
            return None
        entries = found[1].get(found[0][position])
        return tuple(key for key, _ in entries) if entries else None

    def _layout(self, value):
        try:
            value = unwrap(value) if value is not None else None
        except UnsupportedCallError:
            return None  # refused with its line when the call is resolved
        if not isinstance(value, types.FunctionType) or code_key(value) in self.active:
            return None
        try:
            record = read_source(value)
            module = ast.parse(textwrap.dedent("".join(record.lines)))
            name = value.__code__.co_name
            node = _function_node(module, name, record.filename, record.first_line)
        except (SourceDiffError, SyntaxError):
            return None  # refused with its line when the helper itself is parsed
        ast.increment_lineno(node, record.first_line - 1)
        inner = _HelperDictKeys(value, self.active + (code_key(value),))
        return [a.arg for a in node.args.args], dict_parameters(node, record.filename, inner)


def _nested_helpers(lifted: dict, outer: ParsedFunction) -> dict[str, ParsedFunction]:
    """The lifted nested functions of ``outer`` as helpers, by the name ``outer`` calls."""
    helpers = {}
    for local, inner in lifted.items():
        fence.check(inner.node, outer.filename)
        helpers[local] = ParsedFunction(
            inner.name, outer.filename, outer.source, inner.node, inner.defaults
        )
    return helpers


def _function_node(module: ast.Module, name: str, filename: str, first_line: int):
    for stmt in module.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
            _as_plain_parameters(stmt.args)
            return stmt
    raise UnsupportedSyntaxError(
        f"'{name}' is not defined by a 'def' statement; write it as a def", filename, first_line
    )


def _as_plain_parameters(args: ast.arguments) -> None:
    """Positional-only and keyword-only parameters as plain ones, in the signature's
    order, where plain ones can say the same (callers bind by name: ``inspect``); the
    fence refuses the others (a keyword-only parameter without a default after one with)."""
    kw_defaults = args.kw_defaults
    defaulted = [d is not None for d in kw_defaults]
    if defaulted != sorted(defaulted) or (args.defaults and not all(defaulted)):
        return  # a parameter without a default would follow one with a default
    args.args = args.posonlyargs + args.args + args.kwonlyargs
    args.defaults = args.defaults + [d for d in kw_defaults if d is not None]
    args.posonlyargs, args.kwonlyargs, args.kw_defaults = [], [], []


def _signature(func) -> SimpleNamespace:
    """``func``'s parameters, defaults and option parameters, from its source alone."""
    record = read_source(func)
    source = textwrap.dedent("".join(record.lines))
    node = _function_node(ast.parse(source), func.__code__.co_name, record.filename, 1)
    options = tuple(sorted(option_parameters(node)))
    return SimpleNamespace(node=node, option_params=options, defaults=function_defaults(func))


def _local_names(node: ast.FunctionDef) -> set[str]:
    names = {a.arg for a in node.args.args + node.args.posonlyargs + node.args.kwonlyargs}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            names.add(sub.id)
    return names


def _resolve_free_names(func, parsed: ParsedFunction, active: tuple[str, ...], nested: dict):
    """What each free name of ``parsed`` stands for, in ``func``'s globals and closure;
    ``nested`` holds the lifted nested functions of ``func``."""
    scope = DEFINITIONS | SCIPY_DEFINITIONS  # NumPy and SciPy written in the subset
    scope.update(func.__globals__)
    closure = inspect.getclosurevars(func).nonlocals
    scope.update(closure)
    local = _local_names(parsed.node)
    resolved: dict[str, Resolved] = {}
    arguments = parsed.node.args
    # Defaults were evaluated where the function was defined (``c=k``, k of an enclosing
    # function): their values are known, their names need not be.
    defaults = {
        id(n) for d in arguments.defaults + arguments.kw_defaults for n in walk(d or ast.Pass())
    }
    # ``for t in reversed(range(...))`` becomes a range (normalize.arrays.reversed_range).
    backwards = [s.iter for s in ast.walk(parsed.node) if isinstance(s, ast.For)]
    backwards = [it for it in backwards if reversed_range(it) is not None]
    defaults |= {id(it.func) for it in backwards}
    if backwards:
        resolved.update({name: Resolved("builtin", name) for name in ("range", "len")})
    split = split_by_choice(parsed, scope, local, _signature)
    for sub in ast.walk(parsed.node):
        if not (isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load)) or id(sub) in defaults:
            continue
        if sub.id in local or sub.id in resolved:
            continue
        if sub.id in nested:
            resolved[sub.id] = Resolved("helper", sub.id, helper=nested[sub.id])
            continue
        resolved[sub.id] = _resolve(sub, scope, parsed, active)
    for name in split:  # a helper bound to another choice of options: a name of its own
        helper = resolved[name].helper
        helper.name = helper.node.name = name
    if any(isinstance(s, ast.For) and is_sugar(s.iter) for s in ast.walk(parsed.node)):
        for name in ("range", "len", "min"):  # what normalize.iteration writes
            resolved.setdefault(name, Resolved("builtin", name))
    return resolved


# What to write instead of a builtin the subset lacks.
BUILTIN_HINTS = {
    "sum": "; use np.sum(x) for an array (sum of a generator or of a list works)",
    "map": "; write a loop or a comprehension",
    "sorted": "; use np.sort",
    "round": "; use np.round",
}


def _resolve(node: ast.Name, scope: dict, parsed: ParsedFunction, active) -> Resolved:
    name = node.id
    if name not in scope:
        if name == appends.GROW:  # written by sourcediff.appends
            return Resolved("function", name)
        if name == NUMPY_ALIAS:  # written by a rewrite in a module that imports no numpy
            return Resolved("module", "np")
        if name in SUPPORTED_BUILTINS or is_exception_name(name):  # raise ValueError(...)
            return Resolved("builtin", name)
        if hasattr(builtins, name):
            raise parsed.error(
                node,
                f"the builtin '{name}' is not supported in a differentiated function"
                + BUILTIN_HINTS.get(name, ""),
                UnsupportedCallError,
            )
        raise parsed.error(node, f"name '{name}' is not defined", UnsupportedSyntaxError)
    value = scope[name]
    if isinstance(value, types.ModuleType):
        if value in SUPPORTED_MODULES:
            return Resolved("module", SUPPORTED_MODULES[value])
        written = ""
        if value.__name__.startswith("scipy"):
            written = f" (of scipy.special, sourcediff writes {', '.join(sorted(SCIPY_SPECIAL))})"
        raise parsed.error(
            node,
            f"module '{value.__name__}' is not supported; use math or numpy{written}",
            UnsupportedCallError,
        )
    if isinstance(value, CONSTANT_TYPES) or _is_constant_array(value):
        return Resolved("constant", value=value)
    if _is_float_tuple(value):  # COEFFS = (0.5, -0.25): indexed and iterated like an array
        return Resolved("constant", value=np.array(value, dtype=np.float64))
    if _is_number_table(value):  # EDGES = ((0, 1), (1, 2)): rows, as a 2-D array
        return Resolved("constant", value=np.array(value))
    if isinstance(value, (CustomVJP, CustomJVP)):
        return Resolved("custom", value.__name__, value=value)
    library_path = _library_path(value)
    if library_path and definition_of(library_path) is not None:  # from numpy import trapz
        return _resolve_helper(node, definition_of(library_path), parsed, active)
    if scipy_definition(value) is not None:  # from scipy.special import expit
        return _resolve_helper(node, scipy_definition(value), parsed, active)
    if library_path:
        return Resolved("function", library_path)
    return _resolve_helper(node, value, parsed, active)


def _library_path(value) -> str:
    """``math.sin`` for the object math.sin (imported under any name), ``dot`` for a runtime
    function with a row of its own (what generated tangent functions call), else ''."""
    name = getattr(value, "__name__", None)
    for module, alias in SUPPORTED_MODULES.items():
        if name and getattr(module, name, None) is value:
            return f"{alias}.{name}"
    from . import rules, runtime  # generated code's helpers: their rows, not their source

    # vars(): the lazily made ufuncs of vector_math are not looked up (made) for this.
    if name in runtime.HELPERS and vars(runtime).get(name) is value and rules.lookup(name):
        return name
    return ""


def builtin_sums_as_numpy(node: ast.AST, numpy_name: str | None) -> None:
    """The builtin ``sum(x)`` of an array (what is left once comprehensions and lists are
    rewritten) as ``np.sum(x, axis=0)``, in place: Python adds the rows, so for a matrix it
    is the sum along axis 0, for a vector the number (None: the module defines ``sum``).

    >>> tree = ast.parse("s = sum(x) + sum(v for v in x)")
    >>> builtin_sums_as_numpy(tree, "np")
    >>> print(ast.unparse(tree))
    s = np.sum(x, axis=0) + sum((v for v in x))
    """
    if numpy_name is None:
        return
    for call in ast.walk(node):
        named = isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
        if not (named and call.func.id == "sum" and len(call.args) == 1 and not call.keywords):
            continue
        if isinstance(call.args[0], (ast.GeneratorExp, ast.ListComp, ast.List, ast.Tuple)):
            continue
        call.func = ast.Attribute(ast.Name(numpy_name, ast.Load()), "sum", ast.Load())
        call.keywords = [ast.keyword("axis", ast.Constant(0))]


def merge_chained_element_writes(node: ast.AST) -> None:
    """``C[i][j] = v`` (and ``+=``) as ``C[i, j] = v``, in place: the same element of a
    NumPy array when neither index is a slice or a tuple.

    >>> tree = ast.parse("C[i][j + 1] = v\\nC[i][j] += 2.0\\nC[i][1:] = v")
    >>> merge_chained_element_writes(tree)
    >>> print(ast.unparse(tree))
    C[i, j + 1] = v
    C[i, j] += 2.0
    C[i][1:] = v
    """
    for stmt in ast.walk(node):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else []
        targets = [stmt.target] if isinstance(stmt, ast.AugAssign) else targets
        for target in targets:
            inner = target.value if isinstance(target, ast.Subscript) else None
            if not (isinstance(inner, ast.Subscript) and isinstance(inner.value, ast.Name)):
                continue
            parts = (inner.slice, target.slice)
            if any(isinstance(p, (ast.Slice, ast.Tuple)) for p in parts):
                continue
            target.value = inner.value
            target.slice = ast.Tuple(list(parts), ast.Load())


def _is_float_tuple(value) -> bool:
    """A module-level tuple of numbers, one a float (ints alone would index as a tuple)."""
    numbers = isinstance(value, tuple) and value and all(type(v) in (int, float) for v in value)
    return bool(numbers) and any(type(v) is float for v in value)


def _is_number_table(value) -> bool:
    """A module-level tuple of equally long tuples of numbers (a table of index pairs)."""
    if not (isinstance(value, tuple) and value and all(isinstance(r, tuple) for r in value)):
        return False
    numbers = all(type(v) in (int, float) for r in value for v in r)
    return numbers and len({len(r) for r in value}) == 1 and len(value[0]) > 0


def _is_constant_array(value) -> bool:
    """A module-level numeric array: read as a constant (Numba freezes it), never
    differentiated; its bytes are part of the cache key."""
    return isinstance(value, np.ndarray) and value.dtype.kind in "biuf"


def _resolve_helper(node, value, parsed: ParsedFunction, active) -> Resolved:
    try:
        inner = unwrap(value)
    except UnsupportedCallError as exc:
        raise parsed.error(node, exc.reason, UnsupportedCallError) from None
    if isinstance(value, np.ndarray):
        raise parsed.error(
            node,
            f"the module-level array '{node.id}' ({value.dtype}) cannot be used inside a "
            "differentiated function; pass it as an argument",
            UnsupportedCallError,
        )
    if not isinstance(inner, types.FunctionType):
        raise parsed.error(
            node,
            f"'{node.id}' ({type(value).__name__}) has neither a derivative rule nor Python "
            "source; pass it as an argument or write it as a Python function",
            UnsupportedCallError,
        )
    key = f"{inspect.getsourcefile(inner.__code__)}:{inner.__code__.co_name}"
    if key in active:
        raise parsed.error(
            node,
            f"recursive call to '{node.id}' is not supported; rewrite it as a loop",
            UnsupportedSyntaxError,
        )
    helper = parse_function(inner, active)
    if helper.option_params:  # bound to what its calls give (one choice: split_by_choice)
        helper = parse_function(inner, active, call_options(parsed, node.id, helper))
    return Resolved("helper", node.id, helper=helper)
