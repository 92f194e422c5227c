"""Array idioms of NumPy code, lowered to forms the rule table already differentiates.

Called by the flattener (``flatten.py``) for the expressions it meets, and before
it for loops over rows::

    y = np.array([a, b * 2.0])   ->   t1 = np.empty((2,)); t1[0] = a; t2 = b * 2.0; t1[1] = t2
    d = x[:, None] - x[None, :]  ->   t1 = np.expand_dims(x, 1); t2 = np.expand_dims(x, 0); ...
    c = A[:, j].copy()           ->   t1 = A[:, j]; c = np.copy(t1)
    for row in A: ...            ->   for k in range(A.shape[0]): row = A[k]; ...

An element write of each entry keeps the literal's derivative in the element
rules; a new axis is ``np.expand_dims``, whose adjoint reshapes back.
"""

from __future__ import annotations

import ast

from ..astnodes import clone
from .iteration import is_sugar
from .rearrange import constant_int


def is_array_literal_call(node: ast.AST) -> bool:
    """``np.array([...])`` or ``np.asarray([...])`` with a list (or nested lists)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("array", "asarray")
        and len(node.args) == 1
        and isinstance(node.args[0], (ast.List, ast.Tuple))
    )


def literal_lists(node: ast.AST) -> set[int]:
    """The ids of the lists inside array literals of ``node`` (the fence lets them pass)."""
    found: set[int] = set()
    for sub in ast.walk(node):
        if is_array_literal_call(sub):
            found |= {id(n) for n in ast.walk(sub.args[0]) if isinstance(n, ast.List)}
    return found


JOINS = ("stack", "concatenate", "hstack", "vstack")


def joined_lists_as_tuples(node: ast.AST) -> None:
    """``np.stack([a, b])`` is ``np.stack((a, b))``: the list of a join, made a tuple in place.

    >>> tree = ast.parse("np.concatenate([a, 2.0 * a], axis=0)")
    >>> joined_lists_as_tuples(tree); print(ast.unparse(tree))
    np.concatenate((a, 2.0 * a), axis=0)
    """
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.args:
            if call.func.attr in JOINS and isinstance(call.args[0], ast.List):
                listed = call.args[0]
                call.args[0] = ast.copy_location(ast.Tuple(listed.elts, ast.Load()), listed)


def small_array_lists(node: ast.FunctionDef) -> set[int]:
    """The ids of list literals that are small float arrays: ``c = [1.0, 0.5, x]`` where ``c``
    is only indexed with single elements (``c[i]``, ``c[i] = v``), passed to ``len`` or
    iterated over. Indexing, writing and iterating mean the same for both; the flattener
    builds each as an array literal. Any other use (``c.append``, ``c + d``, ``c[1:]``, a
    call) leaves it a list, which the fence refuses.

        >>> tree = ast.parse("def f(x):\\n c = [0.5, x]\\n d = [0.5]\\n return c[1] + d * 2")
        >>> [ast.unparse(n) for n in ast.walk(tree) if id(n) in small_array_lists(tree.body[0])]
        ['[0.5, x]']
    """
    lists: dict[str, list[ast.List]] = {}
    other_bindings: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Assign) and isinstance(sub.value, ast.List):
            targets = [t.id for t in sub.targets if isinstance(t, ast.Name)]
            if len(targets) == len(sub.targets) == 1 and _flat_float_list(sub.value):
                lists.setdefault(targets[0], []).append(sub.value)
                continue
        other_bindings |= _bound_names(sub)
    good_uses = _uses_as_small_array(node)
    found = {
        id(sub.iter)
        for sub in ast.walk(node)
        if isinstance(sub, ast.For) and isinstance(sub.iter, ast.List)
        if _flat_float_list(sub.iter)
    }
    found |= _joined_pieces(node)
    for name, literals in lists.items():
        uses = [n for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == name]
        loads = [n for n in uses if isinstance(n.ctx, ast.Load)]
        if name not in other_bindings and all(id(n) in good_uses for n in loads):
            found |= {id(literal) for literal in literals}
    return found


#: NumPy functions joining arrays: a list of numbers among their pieces is a small array
#: (``np.concatenate(([a], x))``, ``np.append(x, [a, b])``), as NumPy reads it.
JOINING = frozenset({"concatenate", "hstack", "vstack", "stack", "append", "column_stack"})


def _joined_pieces(node: ast.AST) -> set[int]:
    """Ids of flat lists of numbers in the tuple or list of pieces a joining NumPy function
    is given, or passed to ``np.append`` (whose arguments are the pieces themselves)."""
    found = set()
    for call in ast.walk(node):
        func = call.func if isinstance(call, ast.Call) else None
        if not (isinstance(func, ast.Attribute) and func.attr in JOINING):
            continue
        for arg in call.args:
            pieces = arg.elts if isinstance(arg, (ast.Tuple, ast.List)) else []
            if func.attr == "append":
                pieces = [arg]
            found |= {id(p) for p in pieces if isinstance(p, ast.List) and _flat_float_list(p)}
    return found


def _flat_float_list(literal: ast.List) -> bool:
    """Non-empty, no nested lists or ``*``, not all int constants (an index table)."""
    elts = literal.elts
    if not elts or any(isinstance(e, (ast.List, ast.Tuple, ast.Starred)) for e in elts):
        return False
    return not all(isinstance(e, ast.Constant) and type(e.value) is int for e in elts)


def _bound_names(sub: ast.AST) -> set[str]:
    """Names ``sub`` binds as a whole (not element writes)."""
    if isinstance(sub, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For)):
        targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)} - {
            n.value.id
            for t in targets
            for n in ast.walk(t)
            if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)
        }
    return set()


def _uses_as_small_array(node: ast.AST) -> set[int]:
    """Ids of names used as ``name[i]`` (no slice), ``len(name)``, ``for v in name`` or in
    ``zip``/``enumerate`` there."""
    good: set[int] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name):
            parts = sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]
            if len(parts) == 1 and not isinstance(parts[0], ast.Slice):
                good.add(id(sub.value))
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "len":
            good |= {id(a) for a in sub.args if isinstance(a, ast.Name)}
        elif isinstance(sub, ast.For) and isinstance(sub.iter, ast.Name):
            good.add(id(sub.iter))
        elif isinstance(sub, ast.For) and is_sugar(sub.iter):  # zip(c, x): c[k] each step
            nested = [a for a in sub.iter.args if is_sugar(a)]
            args = sub.iter.args + [a for call in nested for a in call.args]
            good |= {id(a) for a in args if isinstance(a, ast.Name)}
    return good


def _shape(literal: ast.expr) -> tuple[int, ...]:
    """The shape of a rectangular nested list literal, () for an entry."""
    if not isinstance(literal, (ast.List, ast.Tuple)):
        return ()
    inner = {_shape(e) for e in literal.elts}
    if len(inner) > 1:
        raise ValueError("rows of different lengths")
    return (len(literal.elts),) + (inner.pop() if inner else ())


def _entries(literal: ast.expr, prefix: tuple[int, ...] = ()):
    if not isinstance(literal, (ast.List, ast.Tuple)):
        yield prefix, literal
        return
    for k, elt in enumerate(literal.elts):
        yield from _entries(elt, prefix + (k,))


def array_literal(flat, literal: ast.expr, call: ast.Call, dtype=None) -> ast.expr:
    """``np.array([...])``: a fresh array, then one element write per entry; of integers
    when every entry is an integer written out (as NumPy makes it: an index array), of
    ``dtype`` when given, else of floats."""
    try:
        shape = _shape(literal)
    except ValueError:
        raise flat.fn.error(call, "an array literal needs rows of one length") from None
    name = flat.new_temp()
    dims = ast.Tuple([ast.Constant(n) for n in shape], ast.Load())
    entries = list(_entries(literal))
    if dtype is None and all(constant_int(entry) is not None for _, entry in entries):
        dtype = ast.Attribute(ast.Name("np", ast.Load()), "int64", ast.Load())
    if dtype is None and len(shape) == 1 and entries:  # np.array([x, y]): numbers or rows
        entries[0] = (entries[0][0], flat.atom(entries[0][1]))
        first = entries[0][1]
        buffer = ast.Call(ast.Name("literal_buffer", ast.Load()), [dims.elts[0], first], [])
    else:
        buffer = ast.Call(_np("empty"), [dims] + ([dtype] if dtype is not None else []), [])
    flat.assign(name, buffer)
    for index, entry in entries:
        value = flat.atom(entry)
        parts = [ast.Constant(k) for k in index]
        slot = parts[0] if len(parts) == 1 else ast.Tuple(parts, ast.Load())
        fill = ast.Assign([ast.Subscript(ast.Name(name, ast.Load()), slot, ast.Store())], value)
        fill.fills_fresh = True  # over what np.empty left, which nothing reads: never saved
        flat.emit(fill)
    return ast.Name(name, ast.Load())


def is_new_axis(part: ast.expr) -> bool:
    """``None`` or ``np.newaxis`` in an index."""
    if isinstance(part, ast.Constant) and part.value is None:
        return True
    return isinstance(part, ast.Attribute) and part.attr == "newaxis"


def _parts(index: ast.expr) -> list[ast.expr]:
    return list(index.elts) if isinstance(index, ast.Tuple) else [index]


def has_new_axis(subscript: ast.Subscript) -> bool:
    """Whether ``subscript`` adds an axis."""
    return any(is_new_axis(p) for p in _parts(subscript.slice))


def new_axes(flat, subscript: ast.Subscript) -> ast.expr:
    """``x[:, None]``: ``np.expand_dims`` at each new axis (other parts must be ``:``)."""
    parts = _parts(subscript.slice)
    full = lambda p: isinstance(p, ast.Slice) and not (p.lower or p.upper or p.step)  # noqa: E731
    if not all(is_new_axis(p) or full(p) for p in parts):
        raise flat.fn.error(
            subscript, "a new axis (None) combines only with ':' here; index in a separate step"
        )
    value = flat.atom(subscript.value)
    for axis, part in enumerate(parts):
        if is_new_axis(part):
            expanded = ast.Call(_np("expand_dims"), [value, ast.Constant(axis)], [])
            value = flat.atom(expanded)
    return value


def method_on_expression(flat, call: ast.Call, methods: dict[str, str]):
    """``A[:, j].copy()``: the receiver into a temporary, then the method's function;
    None when ``call`` is not a known method called on an expression."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in methods:
        return None
    if isinstance(func.value, ast.Name):
        return None  # a module function or a method of a name: the flattener's own cases
    receiver = flat.atom(func.value)
    args = list(call.args)
    if func.attr == "reshape" and len(args) > 1:
        args = [ast.Tuple(args, ast.Load())]
    return flat.library_call(methods[func.attr], [receiver, *args], call.keywords, call)


def iterate_rows(node: ast.FunctionDef, namer) -> None:
    """``for row in A:`` becomes a loop over ``range(A.shape[0])`` reading ``A[k]``, in place;
    ``for v in [a, b]`` or ``for c in coeffs[::-1]`` first names what it iterates over
    (evaluated once, as Python does); ``reversed(range(...))`` is a range backwards."""
    _name_iterated_lists(node, namer)
    for sub in ast.walk(node):
        if isinstance(sub, ast.For) and isinstance(sub.iter, ast.Name):
            array, counter = sub.iter.id, namer.fresh("k")
            loop = ast.parse(f"for {counter} in range({array}.shape[0]):\n    pass").body[0]
            row = ast.Assign([sub.target], ast.parse(f"{array}[{counter}]", mode="eval").body)
            for new in ast.walk(loop):
                ast.copy_location(new, sub)
            sub.iter, sub.target = loop.iter, loop.target
            sub.over_rows = True
            sub.body = [ast.copy_location(row, sub), *sub.body]
            ast.fix_missing_locations(sub)


def _name_iterated_lists(node: ast.AST, namer) -> None:
    for field in ("body", "orelse"):
        stmts = getattr(node, field, None)
        if not isinstance(stmts, list):
            continue
        out = []
        for stmt in stmts:
            _name_iterated_lists(stmt, namer)
            if isinstance(stmt, ast.For) and reversed_range(stmt.iter) is not None:
                stmt.iter = ast.copy_location(reversed_range(stmt.iter), stmt.iter)
                stmt.over_rows = True  # a range sourcediff wrote
            elif isinstance(stmt, ast.For) and not _iterable_as_is(stmt.iter):
                name = namer.fresh("items")
                out.append(
                    ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], stmt.iter), stmt)
                )
                stmt.iter = ast.copy_location(ast.Name(name, ast.Load()), stmt.iter)
            out.append(stmt)
        setattr(node, field, out)


def _iterable_as_is(it: ast.expr) -> bool:
    """A name (its rows), ``range(...)``, or enumerate/zip (rewritten before this)."""
    call = isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
    return isinstance(it, ast.Name) or (call and it.func.id in ("range", "enumerate", "zip"))


def reversed_range(it: ast.expr) -> ast.expr | None:
    """``reversed(range(a, b, s))`` as ``range(a + (len(range(a, b, s)) - 1) * s, a - s,
    -s)``, when its arguments are index arithmetic (evaluated twice); else None.

    >>> print(ast.unparse(reversed_range(ast.parse("reversed(range(n))").body[0].value)))
    range(0 + (len(range(0, n, 1)) - 1) * 1, 0 - 1, -1)
    """
    from .selects import is_index_arithmetic

    call = isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and not it.keywords
    if not (call and it.func.id == "reversed" and len(it.args) == 1):
        return None
    inner = it.args[0]
    ranged = isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)
    if not (ranged and inner.func.id == "range" and 1 <= len(inner.args) <= 3):
        return None
    if inner.keywords or not all(is_index_arithmetic(_lengths_named(a)) for a in inner.args):
        return None
    args = [ast.unparse(a) for a in inner.args]
    start, stop, step = (["0", args[0], "1"] if len(args) == 1 else args + ["1"])[:3]
    count = f"len(range({start}, {stop}, {step}))"
    text = f"range({start} + ({count} - 1) * {step}, {start} - {step}, -{step})"
    return ast.parse(text, mode="eval").body


def _lengths_named(expr: ast.expr) -> ast.expr:
    """``expr`` with each ``a.shape[k]`` and ``len(a)`` replaced by a name (a length reads
    nothing else and cannot fail), to check what remains."""

    class Lengths(ast.NodeTransformer):
        def visit_Subscript(self, node):
            shape = isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
            return ast.Name("length", ast.Load()) if shape else node

        def visit_Call(self, node):
            length = isinstance(node.func, ast.Name) and node.func.id == "len"
            return ast.Name("length", ast.Load()) if length else node

    return Lengths().visit(clone(expr))


def _np(name: str) -> ast.expr:
    return ast.Attribute(ast.Name("np", ast.Load()), name, ast.Load())
