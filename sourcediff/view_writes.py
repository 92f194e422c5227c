r"""Views written in place, rewritten at parse time into writes through their array.

``row = A[i]`` is a view: ``row *= s`` or ``row[k] = v`` changes ``A``. The pipeline
treats each name as a value of its own, so it refuses such writes (``analysis/aliases``)
unless the name is spelled as what it views. When the view's array and index names are
not rebound after it in the same block, every later use of the name is the view's
expression, and the binding goes. A loop over the rows of an array written through,
``for row in M: row[0] = ...``, runs over their indices the same way. Without types a
name can be a number: ``v = x[i]; v *= 2`` rebinds ``v`` when ``x`` is a vector, so
``name op= v`` counts as a write into the view only for a view with a slice
(``A[1:-1]``, ``A[i, :]``), and an element write only for a view by integers (``row[0]
= v`` after ``row = A[i]`` is ``A[i, 0] = v``). ``row = A[i]; row *= s`` waits for the
types (:func:`writes_through_typed_views`, in the types stage), and ``for row in M: row
+= b`` binds ``row = M[row_index]`` first, for it.

>>> f = ast.parse('''
... def f(A, s, b):
...     row = A[1, :]
...     row *= s
...     t = row[2] + 1.0
...     for r in A:
...         r[1:] += b
...     return A
... ''').body[0]
>>> views_written_through(f)
>>> print(ast.unparse(f))
def f(A, s, b):
    A[1, :] *= s
    t = A[1, :][2] + 1.0
    for r_index in range(A.shape[0]):
        A[r_index][1:] += b
    return A
"""

from __future__ import annotations

import ast

from .astnodes import clone, names_read, names_written, walk
from .naming import Namer
from .transform.effects import statement_lists


def views_written_through(node: ast.FunctionDef) -> None:
    """Rewrite, in place, the views written in place of the module docstring in ``node``."""
    namer = Namer.for_tree(node)
    for block in statement_lists(node):
        _rewrite_block(block, namer)
    ast.fix_missing_locations(node)


def _rewrite_block(block: list[ast.stmt], namer: Namer) -> None:
    k = 0
    while k < len(block):
        stmt = block[k]
        view = _view_binding(stmt)
        if view is not None and _through_view(view[0], view[1], block[k + 1 :]):
            _spell_as(view[0], view[1], block[k + 1 :])
            del block[k]
            continue
        if isinstance(stmt, ast.For):
            _loop_over_rows(stmt, namer)
        k += 1


def _view_binding(stmt: ast.stmt):
    """``(name, view)`` for ``name = A[index]`` with a plain index, else None."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return None
    target, value = stmt.targets[0], stmt.value
    if isinstance(target, ast.Name) and _is_plain_view(value):
        return target.id, value
    return None


def _is_plain_view(value: ast.expr) -> bool:
    """``A[i]``, ``A[1:-1]``, ``A[i, :]``: a name indexed by names, constants and slices."""
    if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)):
        return False
    atoms = [p for part in _parts(value) for p in _atoms(part)]
    return all(a is None or isinstance(a, (ast.Name, ast.Constant)) for a in atoms)


def _parts(view: ast.Subscript) -> list[ast.expr]:
    return view.slice.elts if isinstance(view.slice, ast.Tuple) else [view.slice]


def _atoms(part: ast.expr) -> list:
    if isinstance(part, ast.Slice):
        return [_atom(part.lower), _atom(part.upper), _atom(part.step)]
    return [_atom(part)]


def _atom(node):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return node.operand if isinstance(node.operand, ast.Constant) else node
    return node


def _through_view(name: str, view: ast.Subscript, rest: list[ast.stmt]) -> bool:
    """Whether ``rest`` writes into ``name`` in place and leaves the view's names bound."""
    fixed = {name} | {n.id for n in ast.walk(view) if isinstance(n, ast.Name)}
    sliced = any(isinstance(p, ast.Slice) for p in _parts(view))  # an array, not a number
    # Spelled as the view, an element write chains the view's index and its own: merged
    # when both are integers (``A[1][0]`` is ``A[1, 0]``), refused after a slice.
    by_element = _writes_into(name, rest, False)
    whole = _writes_into(name, rest, True) and not by_element
    return (whole if sliced else by_element and not _augmented(name, rest)) and not (
        fixed & _rebound(rest)
    )


def _augmented(name: str, statements: list[ast.stmt]) -> bool:
    """Whether ``statements`` hold ``name op= v`` (a rebinding if ``name`` is a number)."""
    nodes = (n for top in statements for n in ast.walk(top))
    return any(
        isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == name
        for n in nodes
    )


def _rebound(statements: list[ast.stmt]) -> set[str]:
    """The names ``statements`` bind again; ``a op= v`` writes an array view in place."""
    in_place = {
        id(s.target) for top in statements for s in ast.walk(top) if isinstance(s, ast.AugAssign)
    }
    nodes = (n for top in statements for n in ast.walk(top))
    return {n.id for n in nodes if _binds(n) and id(n) not in in_place}


def _binds(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del))


def _writes_into(name: str, statements: list[ast.stmt], whole: bool) -> bool:
    """Whether ``statements`` write ``name`` in place: ``name[k] = v``, ``name[k] op= v``,
    and, when ``whole`` (the name is known to be an array), ``name op= v``."""
    for stmt in (s for top in statements for s in ast.walk(top)):
        if isinstance(stmt, ast.AugAssign):
            targets = (
                [stmt.target] if whole else [stmt.target] * isinstance(stmt.target, ast.Subscript)
            )
        elif isinstance(stmt, ast.Assign):
            targets = [t for t in stmt.targets if isinstance(t, ast.Subscript)]
        else:
            continue
        if any(_base_name(target) == name for target in targets):
            return True
    return False


def _base_name(target: ast.expr) -> str | None:
    while isinstance(target, ast.Subscript):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def _spell_as(name: str, view: ast.Subscript, statements: list[ast.stmt]) -> None:
    """Replace, in place, each use of ``name`` in ``statements`` by a copy of ``view``."""

    class Spell(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.expr:
            if node.id != name:
                return node
            spelled = clone(view)
            spelled.ctx = node.ctx
            return ast.copy_location(spelled, node)

    for stmt in statements:
        Spell().visit(stmt)


def _loop_over_rows(loop: ast.For, namer: Namer) -> None:
    """``for row in M`` whose body writes ``row`` in place: over ``range(M.shape[0])``."""
    if not (isinstance(loop.target, ast.Name) and isinstance(loop.iter, ast.Name)):
        return
    row, array = loop.target.id, loop.iter.id
    if loop.orelse or {row, array} & _rebound(loop.body):
        return
    by_element = _writes_into(row, loop.body, False)
    if not (by_element or _augmented(row, loop.body)):
        return
    index = namer.fresh(f"{row}_index")
    loop.target = ast.Name(index, ast.Store())
    rows = ast.parse(f"range({array}.shape[0])", mode="eval").body
    for part in walk(rows):  # a refusal of it names the loop's line, not the parse's
        ast.copy_location(part, loop.iter)
    loop.iter = rows
    view = ast.Subscript(ast.Name(array, ast.Load()), ast.Name(index, ast.Load()), ast.Load())
    if by_element:  # an array's row: spelled as what it views
        _spell_as(row, view, loop.body)
    else:  # ``row op= v``: a row written in place, or a number rebound (the types say)
        loop.body.insert(0, ast.copy_location(_binding(row, view), loop))


def writes_through_typed_views(node: ast.FunctionDef, types) -> None:
    """Rewrite, in place, writes into a name bound to a view of an array, now that the
    types say the name is an array: ``row = B[i]`` then ``row[...] = t`` (what ``row *= s``
    became) is ``B[i] = t``, and ``row[k] = v`` is ``B[i, k] = v`` when the view is by
    integers. The binding of ``row`` moves to just before what next reads it (or rebinds
    a name of its view), so that a row only written through is never taken.

    >>> f = ast.parse("def f(B, s):\\n    row = B[1]\\n    t = row * s\\n    row[...] = t\\n"
    ...               "    row[0] = s\\n    u = 2.0 * s\\n    return row").body[0]
    >>> class Arrays:
    ...     def __getitem__(self, name):
    ...         return types_module.VarType("array" if name in "B row t" else "float")
    >>> from .analysis import types as types_module
    >>> writes_through_typed_views(f, Arrays())
    >>> print(ast.unparse(f))
    def f(B, s):
        row = B[1]
        t = row * s
        B[1] = t
        B[1, 0] = s
        u = 2.0 * s
        row = B[1]
        return row
    """
    read = names_read(node)
    for block in statement_lists(node):
        inside = {n.id for s in block for n in walk(s) if isinstance(n, ast.Name)}
        _typed_block(block, types, read - inside)


def _typed_block(block: list[ast.stmt], types, read_elsewhere: set[str]) -> None:
    """:func:`writes_through_typed_views` in one statement list; ``read_elsewhere``: the
    names loaded outside it, whose view is bound again at its end."""
    views: dict[str, ast.Subscript] = {}  # name -> the view of an array it is bound to
    pending: set[str] = set()  # names whose binding waits for their next read
    loaded: set[str] = set()  # names loaded so far (a loop's next round reads them too)
    k = 0
    while k < len(block):
        stmt = block[k]
        through = _write_through(stmt, views)
        if through is not None:
            name = stmt.targets[0].value.id
            stmt.targets = [through]
        reads, bound = names_read(stmt), names_written(stmt)
        for due in sorted(n for n in pending if n in reads or _names_in(views[n]) & bound):
            block.insert(k, ast.copy_location(_binding(due, views[due]), stmt))
            pending.discard(due)
            k += 1
        loaded |= reads
        if through is not None:
            pending.add(name)
            k += 1
            continue
        views = {n: v for n, v in views.items() if not ({n} | _names_in(v)) & bound}
        pending &= set(views)
        binding = _view_binding(stmt)
        if binding is not None and _typed_view(*binding, types):
            views[binding[0]] = binding[1]
            if _written_through_later(binding[0], block[k + 1 :]):
                del block[k]  # bound again where it is read
                pending.add(binding[0])
                continue
        k += 1
    end = len(block) - isinstance(block[-1], (ast.Return, ast.Break, ast.Continue, ast.Raise))
    for name in sorted(pending & (read_elsewhere | loaded)):
        block.insert(end, ast.copy_location(_binding(name, views[name]), block[end - 1]))


def _written_through_later(name: str, statements: list[ast.stmt]) -> bool:
    """Whether one of ``statements`` (not nested) is ``name[index] = value``."""
    return any(
        isinstance(s, ast.Assign) and _base_name(s.targets[0]) == name
        for s in statements
        if len(getattr(s, "targets", ())) == 1 and isinstance(s.targets[0], ast.Subscript)
    )


def _typed_view(name: str, view: ast.Subscript, types) -> bool:
    """Whether ``name = view`` binds a view (not a copy): an array indexed by integers
    and slices alone (no index array, mask, ``None`` or ``...``)."""
    if types[name].kind != "array" or types[view.value.id].kind != "array":
        return False
    atoms = [a for part in _parts(view) for a in _atoms(part) if a is not None]
    names = [a for a in atoms if isinstance(a, ast.Name)]
    numbers = [a for a in atoms if isinstance(a, ast.Constant)]
    plain = all(type(a.value) is int for a in numbers) and len(names) + len(numbers) == len(atoms)
    return plain and all(types[a.id].kind == "int" for a in names)


def _write_through(stmt: ast.stmt, views: dict[str, ast.Subscript]) -> ast.Subscript | None:
    """The write into the viewed array that ``name[index] = v`` is, for a name in
    ``views``: the view itself for ``name[...]``, the indices joined when the view is by
    integers alone; else None."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return None
    target = stmt.targets[0]
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
        return None
    view = views.get(target.value.id)
    if view is None:
        return None
    if isinstance(target.slice, ast.Constant) and target.slice.value is Ellipsis:
        return ast.Subscript(clone(view.value), clone(view.slice), ast.Store())
    if any(isinstance(part, ast.Slice) for part in _parts(view)):
        return None  # a slice's own indices: not joined (the write stays refused)
    index = [clone(p) for p in _parts(view)] + [clone(p) for p in _parts(target)]
    return ast.Subscript(clone(view.value), ast.Tuple(index, ast.Load()), ast.Store())


def _binding(name: str, view: ast.Subscript) -> ast.Assign:
    return ast.Assign([ast.Name(name, ast.Store())], clone(view), lineno=0)


def _names_in(view: ast.Subscript) -> set[str]:
    return {n.id for n in walk(view) if isinstance(n, ast.Name)}
