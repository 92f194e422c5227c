"""Dicts of parameters: ``loss(params, x)`` that reads ``params["w"]`` and ``params["b"]``.

A parameter of the differentiated function that is only ever read as ``p["key"]``
with constant string keys is a dict of parameters. At parse time it becomes one
parameter per key (``p_w``, ``p_b``), so the rest of the pipeline sees plain
arguments; :class:`ArgumentLayout` expands the caller's dict into them at each
call and gathers the gradients back into a dict with the same keys, as JAX does
for a dict pytree. Keys the function does not read are ignored (their gradient
is zero: the dict of gradients has only the keys read).

>>> node = ast.parse('def f(p, x):\\n    return p["w"] * x + p["b"]').body[0]
>>> layout = dict_parameters(node, "model.py")
>>> layout
{'p': (('w', 'p_w'), ('b', 'p_b'))}
>>> print(ast.unparse(flatten(node, layout)))
def f(p_w, p_b, x):
    return p_w * x + p_b
"""

from __future__ import annotations

import ast
from collections.abc import Callable

import numpy as np

from .astnodes import clone
from .errors import ArgumentError, UnsupportedSyntaxError

Layout = dict[str, tuple[tuple[str, str], ...]]  # parameter -> ((key, flat name), ...)
# (helper name, parameter position) -> the keys that helper reads there, or None
HelperKeys = Callable[[str, int], "tuple[str, ...] | None"]


def _no_helpers(name: str, position: int) -> None:
    return None


def dict_parameters(node: ast.FunctionDef, filename: str, helper_keys=_no_helpers) -> Layout:
    """The parameters of ``node`` read as ``p["key"]`` or passed on to a helper that reads
    its parameter so, with the keys in order of first use; any other use of such a
    parameter, or a helper's dict parameter given anything else, is refused with the line."""
    params = [a.arg for a in node.args.args]
    keyed: dict[str, list[str]] = {name: [] for name in params}
    for sub in sorted(_keyed_uses(node, helper_keys), key=_position):
        name, keys = _used_keys(sub, helper_keys)
        if name in keyed:
            keyed[name].extend(key for key in keys if key not in keyed[name])
    keyed = {name: keys for name, keys in keyed.items() if keys}
    _check_only_keyed_reads(node, keyed, filename, helper_keys)
    taken = {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name)} | set(params)
    layout: Layout = {}
    for name, keys in keyed.items():
        layout[name] = tuple((key, _flat_name(name, key, taken)) for key in keys)
    return layout


def _keyed_uses(node: ast.FunctionDef, helper_keys: HelperKeys) -> list[ast.AST]:
    """``p["key"]`` reads, and names passed where a helper reads a dict parameter."""
    uses: list[ast.AST] = [sub for sub in ast.walk(node) if _is_keyed_read(sub)]
    uses += [arg for _, _, arg in _dict_passes(node, helper_keys) if isinstance(arg, ast.Name)]
    return uses


def _used_keys(use: ast.AST, helper_keys: HelperKeys) -> tuple[str, tuple[str, ...]]:
    if isinstance(use, ast.Subscript):
        return use.value.id, (use.slice.value,)
    return use.id, use.helper_keys


def _dict_passes(node: ast.AST, helper_keys: HelperKeys):
    """``(call, position, argument)`` for each argument given to a helper's dict
    parameter; each argument carries the keys the helper reads (``.helper_keys``)."""
    for call in ast.walk(node):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
            continue
        for position, arg in enumerate(call.args):
            keys = helper_keys(call.func.id, position)
            if keys:
                arg.helper_keys = keys
                yield call, position, arg


def flatten(node: ast.FunctionDef, layout: Layout, helper_keys=_no_helpers) -> ast.FunctionDef:
    """``node`` with each dict parameter replaced by its per-key parameters, also where it
    is passed on to a helper (which is flattened the same way)."""
    node = clone(node)
    args = []
    for arg in node.args.args:
        entries = layout.get(arg.arg, ())
        args.extend([ast.arg(flat) for _, flat in entries] if entries else [arg])
    node.args.args = args
    names = {name: dict(entries) for name, entries in layout.items()}
    for call, position, arg in list(_dict_passes(node, helper_keys)):
        flat = [ast.Name(names[arg.id][key], ast.Load()) for key in arg.helper_keys]
        call.args[position : position + 1] = [ast.copy_location(n, arg) for n in flat]
    return ast.fix_missing_locations(_KeyedReadsToNames(names).visit(node))


class _KeyedReadsToNames(ast.NodeTransformer):
    def __init__(self, names: dict[str, dict[str, str]]):
        self.names = names

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        if _is_keyed_read(node) and node.value.id in self.names:
            name = self.names[node.value.id][node.slice.value]
            return ast.copy_location(ast.Name(name, ast.Load()), node)
        return self.generic_visit(node)


def _position(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset


def _is_keyed_read(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, str)
    )


def _check_only_keyed_reads(node: ast.FunctionDef, keyed: dict, filename: str, helper_keys):
    allowed = {id(sub.value) for sub in ast.walk(node) if _is_keyed_read(sub)}
    for call, _, arg in _dict_passes(node, helper_keys):
        if not (isinstance(arg, ast.Name) and arg.id in keyed):
            _refuse(arg, f"'{call.func.id}' reads this argument as a dict of parameters: "
                    "pass it a dict parameter of the function, as it is", filename)  # fmt: skip
        allowed.add(id(arg))
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id in keyed and id(sub) not in allowed:
            _refuse(
                sub,
                f"'{sub.id}' is a dict of parameters: read it only as {sub.id}['key'] "
                "(passing it on, iterating over it or rebinding it is not supported)",
                filename,
            )
        if _is_keyed_read(sub) and sub.value.id in keyed and not isinstance(sub.ctx, ast.Load):
            _refuse(sub, f"writing into the dict of parameters '{sub.value.id}' is not "
                    "supported; copy the value into a local first", filename)  # fmt: skip
    for default in node.args.defaults:
        for sub in ast.walk(default):
            if isinstance(sub, ast.Name) and sub.id in keyed:
                _refuse(sub, "a dict of parameters cannot have a default", filename)


def _refuse(node: ast.AST, reason: str, filename: str) -> None:
    raise UnsupportedSyntaxError(reason, filename, node.lineno, node.col_offset)


def _flat_name(name: str, key: str, taken: set[str]) -> str:
    stem = f"{name}_{key}" if key.isidentifier() else f"{name}_key"
    flat, number = stem, 1
    while flat in taken:
        number += 1
        flat = f"{stem}{number}"
    taken.add(flat)
    return flat


class ArgumentLayout:
    """Between the caller's arguments (dicts included) and the flattened parameters."""

    def __init__(self, names: list[str], layout: Layout):
        self.names = names
        self.layout = layout
        self.trivial = not layout
        self.groups: list[tuple[int, ...]] = []
        position = 0
        for name in names:
            width = len(layout.get(name, ())) or 1
            self.groups.append(tuple(range(position, position + width)))
            position += width

    def flat_argnums(self, argnums: tuple[int, ...]) -> tuple[int, ...]:
        """The flattened positions of the caller's ``argnums``."""
        return tuple(flat for k in argnums for flat in self.groups[k])

    def expand(self, args: tuple) -> tuple:
        """The flattened arguments: each dict of parameters becomes its values by key."""
        if self.trivial:
            return args
        flat = []
        for name, value in zip(self.names, args):
            if name not in self.layout:
                flat.append(value)
                continue
            if not isinstance(value, dict):
                raise ArgumentError(
                    f"argument '{name}' is read as {name}['key']: pass a dict, not "
                    f"{type(value).__name__}"
                )
            missing = [key for key, _ in self.layout[name] if key not in value]
            if missing:
                raise ArgumentError(f"the dict '{name}' has no key {missing[0]!r}")
            flat.extend(value[key] for key, _ in self.layout[name])
        return tuple(flat)

    def regroup(self, argnums: tuple[int, ...], values: tuple, given: tuple) -> tuple:
        """Per caller argnum: its gradient, or for a dict of parameters a dict with the
        caller's keys in the caller's order (zero for a float or float array not read;
        other entries, a string or a config int, are left out)."""
        if self.trivial:
            return tuple(values)
        values = iter(values)
        grouped = []
        for k in argnums:
            entries = self.layout.get(self.names[k])
            if not entries:
                grouped.append(next(values))
                continue
            read = {key: next(values) for key, _ in entries}
            grouped.append({key: read[key] if key in read else _zero(value)
                            for key, value in given[k].items()
                            if key in read or _zero(value) is not None})  # fmt: skip
        return tuple(grouped)


def _zero(value):
    """The zero gradient of an unread float or float array; None for anything else."""
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return np.zeros_like(value)
    if isinstance(value, (float, np.floating)):
        return 0.0
    return None
