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

A parameter unpacked whole (``w, b = p``) is a tuple of parameters, flattened the same
way with the positions as keys; it may also be read as ``p[0]``, measured with ``len(p)``,
and passed on to a helper that unpacks it, or given one as a tuple written out. The
caller passes a tuple, a list or an array of that length, and gets its gradient back in
the same form (an array for an array, as JAX does for a tuple pytree):

>>> node = ast.parse('def f(p, x):\\n    w, b = p\\n    return w * x + b * len(p)').body[0]
>>> layout = dict_parameters(node, "model.py")
>>> layout
{'p': ((0, 'p_0'), (1, 'p_1'))}
>>> print(ast.unparse(flatten(node, layout)))
def f(p_0, p_1, x):
    w, b = (p_0, p_1)
    return w * x + b * 2
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .astnodes import clone
from .errors import UnsupportedSyntaxError

# parameter -> ((key, flat name), ...): string keys for a dict, positions for a tuple
Layout = dict[str, tuple[tuple[str | int, str], ...]]
# (helper name, parameter position) -> the keys that helper reads there, or None
HelperKeys = Callable[[str, int], "tuple[str, ...] | None"]


def _no_helpers(name: str, position: int) -> None:
    return None


def dict_parameters(node: ast.FunctionDef, filename: str, helper_keys=_no_helpers) -> Layout:
    """The parameters of ``node`` read as ``p["key"]`` or passed on to a helper that reads
    its parameter so, with the keys in order of first use; any other use of such a
    parameter, or a helper's dict parameter given anything else, is refused with the line."""
    params = [a.arg for a in node.args.args]
    keyed: dict[str, list] = {name: [] for name in params}
    for name, length in _unpacked_lengths(node, params, filename).items():
        keyed[name] = list(range(length))
    for sub in sorted(_keyed_uses(node, helper_keys), key=_position):
        name, keys = _used_keys(sub, helper_keys)
        if name in keyed:
            _check_same_kind(sub, name, keyed[name], keys, filename)
            keyed[name].extend(key for key in keys if key not in keyed[name])
    keyed = {name: keys for name, keys in keyed.items() if keys}
    _check_only_keyed_reads(node, keyed, filename, helper_keys)
    taken = {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name)} | set(params)
    layout: Layout = {}
    for name, keys in keyed.items():
        layout[name] = tuple((key, _flat_name(name, key, taken)) for key in keys)
    return layout


def _unpacked_lengths(node: ast.FunctionDef, params: list[str], filename: str) -> dict:
    """The parameters unpacked whole (``w, b = p``), by the number of names."""
    lengths: dict[str, int] = {}
    for stmt in ast.walk(node):
        if not (isinstance(stmt, ast.Assign) and _unpacks_a_name(stmt)):
            continue
        name, count = stmt.value.id, len(stmt.targets[0].elts)
        if name in params and lengths.setdefault(name, count) != count:
            _refuse(stmt, f"'{name}' is unpacked into {lengths[name]} and {count} names", filename)
    return lengths


def _unpacks_a_name(stmt: ast.Assign) -> bool:
    """``a, b = p``: names unpacking a name."""
    (target,) = stmt.targets if len(stmt.targets) == 1 else (None,)
    return (
        isinstance(target, ast.Tuple)
        and all(isinstance(e, ast.Name) for e in target.elts)
        and isinstance(stmt.value, ast.Name)
    )


def _check_same_kind(use: ast.AST, name: str, known: list, keys, filename: str) -> None:
    """A parameter is a dict (string keys) or a tuple (positions), not both, and a tuple
    has one length wherever it is used."""
    if not known:
        return
    kinds = {type(k) for k in known} | {type(k) for k in keys}
    tuple_lengths = isinstance(known[0], int) and len(known) != len(keys)
    if len(kinds) > 1 or tuple_lengths:
        _refuse(use, f"'{name}' is used as tuples or dicts of different forms", filename)


def _keyed_uses(node: ast.FunctionDef, helper_keys: HelperKeys) -> list[ast.AST]:
    """``p["key"]`` reads, and names passed where a helper reads a dict parameter."""
    uses: list[ast.AST] = [sub for sub in ast.walk(node) if _is_keyed_read(sub)]
    uses += [arg for _, _, arg in _dict_passes(node, helper_keys) if isinstance(arg, ast.Name)]
    return uses


def _used_keys(use: ast.AST, helper_keys: HelperKeys) -> tuple[str, tuple]:
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


def gives_helpers_parameters(node: ast.FunctionDef, helper_keys: HelperKeys) -> bool:
    """Whether ``node`` passes anything to a helper's dict or tuple parameter."""
    return any(True for _ in _dict_passes(node, helper_keys))


def flatten(node: ast.FunctionDef, layout: Layout, helper_keys=_no_helpers) -> ast.FunctionDef:
    """``node`` with each dict or tuple parameter replaced by its per-key parameters, also
    where it is passed on to a helper (which is flattened the same way); a tuple written
    out, or a local tuple, given to a helper's tuple parameter is passed element by element."""
    node = clone(node)
    args = []
    for arg in node.args.args:
        entries = layout.get(arg.arg, ())
        args.extend([ast.arg(flat) for _, flat in entries] if entries else [arg])
    node.args.args = args
    names = {name: dict(entries) for name, entries in layout.items()}
    # From the last position back, so that a splice leaves the positions before it.
    for call, position, arg in reversed(list(_dict_passes(node, helper_keys))):
        call.args[position : position + 1] = [
            ast.copy_location(part, arg) for part in _passed_parts(arg, names)
        ]
    return ast.fix_missing_locations(_KeyedReadsToNames(names).visit(node))


def _passed_parts(arg: ast.expr, names: dict) -> list[ast.expr]:
    """What a helper's dict or tuple parameter is given, one argument per key."""
    if isinstance(arg, ast.Tuple):
        return list(arg.elts)
    if arg.id in names:
        return [ast.Name(names[arg.id][key], ast.Load()) for key in arg.helper_keys]
    # A local tuple: its elements, which normalize's tuple splitting names.
    return [ast.Subscript(ast.Name(arg.id, ast.Load()), ast.Constant(k)) for k in arg.helper_keys]


class _KeyedReadsToNames(ast.NodeTransformer):
    def __init__(self, names: dict[str, dict]):
        self.names = names

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        key = _constant_key(node)
        if key is not None and node.value.id in self.names:
            entries = self.names[node.value.id]
            if isinstance(key, int) and key < 0:
                key += len(entries)
            return ast.copy_location(ast.Name(entries[key], ast.Load()), node)
        return self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> ast.Assign:
        if _unpacks_a_name(node) and node.value.id in self.names:
            flat = self.names[node.value.id].values()
            node.value = ast.Tuple([ast.Name(n, ast.Load()) for n in flat], ast.Load())
            return node
        return self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        if _length_of(node) in self.names:
            return ast.copy_location(ast.Constant(len(self.names[node.args[0].id])), node)
        return self.generic_visit(node)


def _constant_key(node: ast.AST) -> str | int | None:
    """``'w'`` for ``p['w']``, ``0`` for ``p[0]``, ``-1`` for ``p[-1]``; None otherwise."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
        return None
    index = node.slice
    negative = isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub)
    index = index.operand if negative else index
    if not isinstance(index, ast.Constant) or type(index.value) not in (str, int):
        return None
    if negative:
        return -index.value if type(index.value) is int else None
    return index.value


def _length_of(node: ast.AST) -> str | None:
    """``p`` for ``len(p)``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
        if len(node.args) == 1 and isinstance(node.args[0], ast.Name):
            return node.args[0].id
    return None


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
    """Refuse, with the line, any use of a dict or tuple parameter but those flattened."""
    allowed = {id(sub.value) for sub in ast.walk(node) if _allowed_read(sub, keyed)}
    allowed |= {id(stmt.value) for stmt in ast.walk(node) if _unpacks_tuple(stmt, keyed)}
    allowed |= {id(call.args[0]) for call in ast.walk(node) if _length_of(call) in keyed}
    for call, _, arg in _dict_passes(node, helper_keys):
        _check_passed(call, arg, keyed, node, filename)
        allowed.add(id(arg))
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id in keyed and id(sub) not in allowed:
            _refuse(sub, _only_reads(sub.id, keyed[sub.id]), filename)
        if _constant_key(sub) is not None and sub.value.id in keyed:
            if not isinstance(sub.ctx, ast.Load):
                kind = "tuple" if isinstance(keyed[sub.value.id][0], int) else "dict"
                _refuse(sub, f"writing into the {kind} of parameters '{sub.value.id}' is not "
                        "supported; copy the value into a local first", filename)  # fmt: skip
    for default in node.args.defaults:
        for sub in ast.walk(default):
            if isinstance(sub, ast.Name) and sub.id in keyed:
                _refuse(sub, "a dict or tuple of parameters cannot have a default", filename)


def _unpacks_tuple(stmt: ast.AST, keyed: dict) -> bool:
    """``a, b = p`` of a tuple parameter ``p`` (its length checked by the layout)."""
    if not (isinstance(stmt, ast.Assign) and _unpacks_a_name(stmt)):
        return False
    keys = keyed.get(stmt.value.id)
    return bool(keys) and isinstance(keys[0], int)


def _allowed_read(sub: ast.AST, keyed: dict) -> bool:
    """``p['w']`` of a dict parameter; ``p[0]`` or ``p[-1]`` of a tuple parameter, in range."""
    key = _constant_key(sub)
    if key is None or sub.value.id not in keyed:
        return False
    keys = keyed[sub.value.id]
    if isinstance(key, int) and isinstance(keys[0], int):
        return -len(keys) <= key < len(keys)
    return key in keys


def _only_reads(name: str, keys: list) -> str:
    if isinstance(keys[0], int):
        return (f"'{name}' is a tuple of parameters: unpack it ({', '.join(f'a{k}' for k in keys)}"
                f" = {name}), read {name}[0] ... {name}[{len(keys) - 1}] or pass it to a helper; "
                "iterating over it or rebinding it is not supported")  # fmt: skip
    return (f"'{name}' is a dict of parameters: read it only as {name}['key'] "
            "(passing it on, iterating over it or rebinding it is not supported)")  # fmt: skip


def _check_passed(call: ast.Call, arg: ast.expr, keyed: dict, node, filename: str) -> None:
    """A helper's dict parameter takes a dict parameter of the caller, as it is; its tuple
    parameter a tuple parameter, a tuple written out or a local tuple, of its length."""
    keys = arg.helper_keys
    known = keyed.get(arg.id) if isinstance(arg, ast.Name) else None
    if known and (isinstance(keys[0], str) or known == list(keys)):
        return  # the caller's dict (the helper reads some of its keys), or tuple
    if isinstance(keys[0], int):
        from .normalize.tuples import tuple_variables  # normalize imports this module

        if isinstance(arg, ast.Tuple) and len(arg.elts) == len(keys):
            return
        if isinstance(arg, ast.Name) and tuple_variables(node).get(arg.id) == len(keys):
            return
        _refuse(arg, f"'{call.func.id}' unpacks this argument into {len(keys)} values: pass "
                "it a tuple of that length", filename)  # fmt: skip
    _refuse(arg, f"'{call.func.id}' reads this argument as a dict of parameters: "
            "pass it a dict parameter of the function, as it is", filename)  # fmt: skip


def _refuse(node: ast.AST, reason: str, filename: str) -> None:
    raise UnsupportedSyntaxError(reason, filename, node.lineno, node.col_offset)


def _flat_name(name: str, key: str, taken: set[str]) -> str:
    stem = f"{name}_{key}" if isinstance(key, int) or key.isidentifier() else f"{name}_key"
    flat, number = stem, 1
    while flat in taken:
        number += 1
        flat = f"{stem}{number}"
    taken.add(flat)
    return flat
