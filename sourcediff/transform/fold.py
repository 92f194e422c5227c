"""Fold temporaries back into the expressions that use them, and propagate copies.

Three-address code gives every subexpression a name; once the derivative is
built, most of those names are read exactly once. Folding puts such a value
back where it is read, so the forward sweep reads like the user's line and
Numba fuses array expressions without allocating a temporary each:

    >>> text = '''
    ... def f(x, y):
    ...     t1 = x - y
    ...     t2 = np.exp(t1)
    ...     z = t2 * x
    ...     return z
    ... '''
    >>> fn = ast.parse(text).body[0]
    >>> fold_temporaries(fn)
    True
    >>> print(ast.unparse(fn))
    def f(x, y):
        return np.exp(x - y) * x

A number bound and then updated, ``x = e1`` and later ``x -= e2``, is bound once,
``x = e1 - e2``, where it was updated (``updates.py``).

A copy ``a = b`` is replaced by ``b`` wherever ``a`` is read while ``b`` keeps
its value, and ``b = a`` right after ``a = b`` is dropped:

    >>> fn = ast.parse('''
    ... def g(s_bar):
    ...     t_bar = s_bar
    ...     s_bar = t_bar
    ...     u_bar = 2.0 * t_bar
    ...     w_bar = t_bar * u_bar
    ...     return w_bar
    ... ''').body[0]
    >>> fold_temporaries(fn)
    True
    >>> print(ast.unparse(fn))
    def g(s_bar):
        return s_bar * (2.0 * s_bar)

Everything moved is pure and nothing it reads changes between where it was
computed and where it is now computed, so results are bit for bit the same.
"""

from __future__ import annotations

import ast
from collections import Counter

from ..astnodes import clone, walk
from ..codegen import Comment
from .cleanup import live_after_statements
from .effects import (
    INNER_SCOPES,
    NodeFacts,
    blocks_and_holders,
    cannot_fail,
    has_effects,
    impure_calls,
    is_pure,
    names_changed,
    names_read,
    names_written,
)
from .updates import merge_into_update

_SIMPLE = (ast.Assign, ast.AugAssign, ast.Expr, ast.Return)


class _Counts:
    """How often each name is bound and read in one function."""

    def __init__(self, function: ast.FunctionDef):
        self.binds: Counter = Counter(a.arg for a in function.args.args)
        self.reads: Counter = Counter()
        for node in walk(function):
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Load):
                    self.reads[node.id] += 1
                else:
                    self.binds[node.id] += 1
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                self.reads[node.target.id] += 1


def fold_temporaries(function: ast.FunctionDef, numbers: frozenset = frozenset()) -> bool:
    """Fold single-use values and propagate copies in ``function``, in place, until
    nothing changes; whether anything did. ``numbers``: names known to hold a number at
    every binding; arithmetic on them alone, which can raise nothing, also moves past
    stores into memory (``g = -t_bar; A_bar[i] += e; B_bar[i] += g``).

    >>> fn = ast.parse('''
    ... def f_vjp(t_bar, e, i, A_bar, B_bar):
    ...     g = -t_bar
    ...     A_bar[i] += e
    ...     B_bar[i] += g
    ... ''').body[0]
    >>> fold_temporaries(fn, frozenset({"t_bar", "e", "g"}))
    True
    >>> print(ast.unparse(fn.body[1]))
    B_bar[i] += -t_bar
    """

    def rewrite(stmts, index, counts, liveness, summaries) -> bool:
        return _rewrite_at(stmts, index, counts, liveness, summaries, numbers)

    changed = False
    summaries = _Summaries()  # kept over the rounds: most statements never change
    while _one_round(function, summaries, rewrite):
        changed = True
    return changed


def propagate_copies(function: ast.FunctionDef, names: set[str]) -> bool:
    """Propagate the copies ``name = source`` into ``names`` only, folding nothing, in
    place until nothing changes; whether anything did. Run before the derivative is
    built, on the scalarized primal (``t26 = w_1`` from ``np.cross`` of a split
    3-vector): a copy the forward sweep makes is a value the reverse sweep records.

    >>> fn = ast.parse('''
    ... def f(w_1, x_2):
    ...     t26 = w_1
    ...     t27 = x_2
    ...     c = t26 * t27
    ...     return c
    ... ''').body[0]
    >>> propagate_copies(fn, {"t26", "t27"})
    True
    >>> print(ast.unparse(fn))
    def f(w_1, x_2):
        c = w_1 * x_2
        return c
    """

    def copy_into_names(stmts, index, counts, liveness, summaries) -> bool:
        stmt = stmts[index]
        if not (_is_copy(stmt) and stmt.targets[0].id in names):
            return False
        return _rewrite_copy(stmts, index, counts, liveness, summaries)

    changed = False
    summaries = _Summaries()
    while _one_round(function, summaries, copy_into_names):
        changed = True
    return changed


def _one_round(function: ast.FunctionDef, summaries, rewrite=None) -> bool:
    """One sweep over every block; every rewrite keeps the counts exact."""
    rewrite = rewrite or _rewrite_at
    counts = _Counts(function)
    liveness = _Liveness(function)
    changed = False
    for stmts, holders in blocks_and_holders(function):
        index = 0
        while index < len(stmts):
            if rewrite(stmts, index, counts, liveness, summaries):
                summaries.forget(holders, inside=False)  # a statement they hold changed
                changed = True
            else:
                index += 1
    return changed


class _Summaries:
    """What each statement reads, binds and changes, computed once per statement until a
    rewrite changes it or anything it holds (scanning a block asks again about the same
    loops, and every round about the same statements)."""

    def __init__(self):
        self.facts = NodeFacts()

    def forget(self, stmts: list[ast.stmt], inside: bool = True) -> None:
        """Drop the summaries of ``stmts`` and (``inside``) of the statements they hold."""
        for stmt in stmts:
            for node in walk(stmt) if inside else [stmt]:
                if isinstance(node, ast.stmt):
                    self.facts[node] = None

    def of(self, stmt: ast.stmt) -> tuple[set, set, set, bool]:
        """``(names read, names written, names changed, has effects)`` of ``stmt``."""
        summary = self.facts.get(stmt)
        if summary is None:
            summary = (names_read(stmt), names_written(stmt), names_changed(stmt))
            summary += (has_effects(stmt),)
            self.facts[stmt] = summary
        return summary


class _Liveness:
    """Names live after each statement, computed once per round and on demand for a
    statement made since; a copy propagated adds reads of its source (``renamed``),
    folding only moves reads up to their use."""

    def __init__(self, function: ast.FunctionDef):
        self.function = function
        self.after = None
        self.sources: dict[str, set[str]] = {}  # copies propagated since the analysis

    def live_after(self, stmt: ast.stmt) -> frozenset:
        # A statement the analysis has not seen (made since) gets a fresh analysis.
        if self.after is None or stmt not in self.after:
            self.after = live_after_statements(self.function)
            self.sources = {}
        live = self.after.get(stmt)
        if live is None:
            return frozenset(self.everything())
        return self._with_sources(live) if self.sources else live

    def everything(self) -> set[str]:
        return {n.id for n in walk(self.function) if isinstance(n, ast.Name)}

    def renamed(self, name: str, source: str) -> None:
        """After the reads of ``name`` became reads of ``source`` (a copy propagated):
        ``source`` is live wherever ``name`` was. An over-approximation, which can only
        hold a fold back, instead of a new analysis of the whole function per copy; kept
        aside and added when a statement's live names are asked for."""
        if self.after is not None:
            self.sources.setdefault(name, set()).add(source)

    def _with_sources(self, live: frozenset) -> frozenset:
        added, pending = set(), [n for n in live if n in self.sources]
        while pending:
            for source in self.sources[pending.pop()]:
                if source not in live and source not in added:
                    added.add(source)
                    pending += [source] if source in self.sources else []
        return live | added if added else live


def _is_copy(stmt: ast.stmt) -> bool:
    """Whether ``stmt`` is ``name = other_name``."""
    return (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and isinstance(stmt.value, ast.Name)
    )


def _rewrite_copy(stmts, index: int, counts: _Counts, liveness, summaries) -> bool:
    """Drop or propagate the copy ``stmts[index]``."""
    stmt = stmts[index]
    name, source = stmt.targets[0].id, stmt.value.id
    if source == name or _copies_back(stmts, index, summaries):
        del stmts[index]
        counts.binds[name] -= 1
        counts.reads[source] -= 1
        return True
    if counts.binds[name] == 1:
        propagated = _propagate_copy(stmts, index, name, source, counts, summaries)
        if not propagated and _twin(stmts, index, counts, liveness.function):
            propagated = _propagate_twin(stmts, index, counts, summaries, liveness.function)
    else:
        propagated = _propagate_copy_locally(stmts, index, counts, liveness, summaries)
    if propagated:
        liveness.renamed(name, source)
    return propagated


def _rewrite_at(stmts, index: int, counts: _Counts, liveness, summaries, numbers) -> bool:
    stmt = stmts[index]
    if _updated_number(stmt, numbers):  # x += e1; ...; x -= e2 is x = x + e1 - e2
        movable = cannot_fail(stmt.value) and names_read(stmt.value) <= numbers
        if not merge_into_update(stmts, index, stmt.target.id, summaries, movable):
            return False
        counts.binds[stmt.target.id] -= 1
        counts.reads[stmt.target.id] -= 1
        return True
    if not (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
    ):
        return False
    name = stmt.targets[0].id
    if isinstance(stmt.value, ast.Name):
        if _rewrite_copy(stmts, index, counts, liveness, summaries):
            return True
        if name not in numbers or not merge_into_update(stmts, index, name, summaries, True):
            return False
        counts.binds[name] -= 1
        counts.reads[name] -= 1
        return True
    if not is_pure(stmt.value):
        return False
    only_use = counts.binds[name] == 1 and counts.reads[name] == 1
    # A constant stays where it is named (``peak_bytes = 0``): moved far it reads worse.
    movable = not isinstance(stmt.value, ast.Constant) and cannot_fail(stmt.value)
    movable = movable and names_read(stmt.value) <= numbers
    merged = name in numbers and not isinstance(stmt.value, ast.Constant)
    merged = merged and merge_into_update(stmts, index, name, summaries, movable)
    if merged or _fold_single_use(
        stmts, index, name, summaries, None if only_use else liveness, movable
    ):
        counts.binds[name] -= 1
        counts.reads[name] -= 1
        return True
    return False


def _updated_number(stmt: ast.stmt, numbers: frozenset) -> bool:
    """Whether ``stmt`` is ``x op= e`` of a number ``x`` and a pure ``e``."""
    return (
        isinstance(stmt, ast.AugAssign)
        and isinstance(stmt.target, ast.Name)
        and stmt.target.id in numbers
        and is_pure(stmt.value)
    )


def _copies_back(stmts: list[ast.stmt], index: int, summaries) -> bool:
    """Whether ``stmts[index]`` is ``b = a`` right after ``a = b`` with ``b`` unchanged."""
    target, source = stmts[index].targets[0].id, stmts[index].value.id
    for earlier in reversed(stmts[:index]):
        if isinstance(earlier, Comment):
            continue
        if (
            isinstance(earlier, ast.Assign)
            and len(earlier.targets) == 1
            and isinstance(earlier.targets[0], ast.Name)
            and earlier.targets[0].id == source
            and isinstance(earlier.value, ast.Name)
            and earlier.value.id == target
        ):
            return True
        if {target, source} & summaries.of(earlier)[1]:
            return False
    return False


def _fold_single_use(stmts, index: int, name: str, summaries, liveness=None, movable=False) -> bool:
    """Move the value of ``name = value`` into the one statement that reads it: the only
    read of ``name`` in the function, or (given ``liveness``) the next statement that
    mentions ``name``, reading it once, after which this value is dead. A ``movable``
    value (numbers only, reading no memory, raising nothing) passes statements with
    effects that bind none of its names."""
    value = stmts[index].value
    reads = names_read(value)
    for later in stmts[index + 1 :]:
        read, written, changed, effects = summaries.of(later)
        if name in read:
            if not _evaluated_once_in(later, name):
                return False
            if liveness is not None and not _last_read_of_this_value(later, name, liveness):
                return False
            _Substitute(name, value).visit(later)
            summaries.forget([later])
            del stmts[index]
            return True
        if (effects and not movable) or reads & changed or name in written:
            return False
    return False


def _last_read_of_this_value(use: ast.stmt, name: str, liveness) -> bool:
    if _reads_of(use, name) != 1:
        return False
    if name in names_written(use):
        return _reads_before_binding(use, name)
    return name not in liveness.live_after(use)


def _evaluated_once_in(stmt: ast.stmt, name: str) -> bool:
    """Whether ``stmt`` reads ``name`` once, where and when the statement starts, and
    before any of its own effects."""
    if isinstance(stmt, ast.For):
        where = stmt.iter
    elif isinstance(stmt, ast.If):
        where = stmt.test
    elif isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Expr, ast.Return)):
        where = stmt
    else:
        return False
    if name not in names_read(where) or _stored_through(stmt, name):
        return False
    calls = impure_calls(where)
    if not calls:
        return True
    # add_into(x_bar, name): the arguments are evaluated before the one call changes anything
    return (
        isinstance(stmt, ast.Expr)
        and len(calls) == 1
        and calls[0] is stmt.value
        and name in names_read(ast.Tuple(stmt.value.args, ast.Load()))
    )


def _stored_through(stmt: ast.stmt, name: str) -> bool:
    """Whether ``stmt`` stores into ``name[...]`` or ``name.attr``, or calls its methods."""
    for node in walk(stmt):
        if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.value, ast.Name):
            if node.value.id == name and not isinstance(node.ctx, ast.Load):
                return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if isinstance(node.func.value, ast.Name) and node.func.value.id == name:
                return True
    return False


def _propagate_copy(stmts, index: int, name: str, source: str, counts, summaries) -> bool:
    """Replace the reads of ``name`` (bound once, by ``name = source``) with ``source``
    when all of them follow in this block and ``source`` is not rebound before the last."""
    total, found, last = counts.reads[name], 0, index
    for position in range(index + 1, len(stmts)):
        if found == total:
            break
        stmt = stmts[position]
        reads = _reads_of(stmt, name)
        rebinds = source in names_written(stmt)
        if rebinds and (found + reads < total or not reads):
            return False  # ``source`` changes while ``name`` is still read
        if rebinds and not _reads_before_binding(stmt, name):
            return False  # a loop or branch, or a target, reads ``name`` after ``source`` changes
        found, last = found + reads, position
    if found != total or total == 0:
        return False
    for stmt in stmts[index + 1 : last + 1]:
        _Substitute(name, ast.Name(source, ast.Load())).visit(stmt)
    summaries.forget(stmts[index + 1 : last + 1])
    del stmts[index]
    counts.reads[source] += total - 1
    counts.reads[name] = 0
    counts.binds[name] -= 1
    return True


def _twin(stmts, index: int, counts: _Counts, function: ast.FunctionDef) -> bool:
    """Whether the copy ``name = source`` at ``stmts[index]`` makes ``name`` a second name
    of ``source`` wherever it holds a value: both bound once in the function (not
    parameters), the copy right after ``source``'s binding, so that nothing runs between
    the two bindings, and no inner scope (a lambda, a comprehension) that could bind
    either name anew."""
    name, source = stmts[index].targets[0].id, stmts[index].value.id
    if counts.binds[name] != 1 or counts.binds[source] != 1:
        return False
    earlier = [s for s in stmts[:index] if not isinstance(s, Comment)]
    binding = earlier[-1] if earlier else None
    adjacent = (
        isinstance(binding, ast.Assign)
        and len(binding.targets) == 1
        and isinstance(binding.targets[0], ast.Name)
        and binding.targets[0].id == source
    )
    args = function.args
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    return (
        adjacent
        and name not in params
        and not any(isinstance(node, INNER_SCOPES) for node in walk(function)[1:])
    )


def _propagate_twin(stmts, index: int, counts: _Counts, summaries, function) -> bool:
    """Read ``source`` wherever ``name`` is read, in the whole function, and drop the copy
    (a :func:`_twin`: ``t26 = t24`` after ``t24 = t23 - 2`` in a loop, both read after it).

    >>> fn = ast.parse('''
    ... def f(x, n, steps):
    ...     for s in range(steps):
    ...         t24 = n - 2
    ...         t26 = t24
    ...         x = x * t24 + t26
    ...     return x * t26
    ... ''').body[0]
    >>> fold_temporaries(fn)
    True
    >>> print(ast.unparse(fn.body[1]))
    return x * t24
    """
    name, source = stmts[index].targets[0].id, stmts[index].value.id
    del stmts[index]
    _Substitute(name, ast.Name(source, ast.Load())).visit(function)
    summaries.forget(function.body)
    counts.reads[source] += counts.reads[name] - 1
    counts.reads[name] = 0
    counts.binds[name] -= 1
    return True


def _propagate_copy_locally(stmts, index: int, counts, liveness, summaries) -> bool:
    """Replace the reads of ``name`` in the statements after ``name = source`` (``name``
    bound elsewhere too: ``t8 = t1`` in each sweep's loop) up to the last read of this
    value, when neither name is bound again before it (a loop or a branch that reads it
    binds neither) and no ``break`` or ``continue`` lies between; the copy then goes.

    >>> fn = ast.parse('''
    ... def f(x, dt, n):
    ...     for i in range(n):
    ...         t1 = 0.5 * dt
    ...         t8 = t1
    ...         x = x + t8 * x
    ...     t8 = x
    ...     return t8 * t1
    ... ''').body[0]
    >>> fold_temporaries(fn)
    True
    >>> print(ast.unparse(fn.body[0]))
    for i in range(n):
        t1 = 0.5 * dt
        x = x + t1 * x
    """
    copy = stmts[index]
    name, source = copy.targets[0].id, copy.value.id
    uses = []
    for later in stmts[index + 1 :]:
        read, written, _, _ = summaries.of(later)
        if _jumps_or_updates(later, {name, source}):
            return False  # a jump may reach a read of this value; ``name += name``
        if name in read:
            if isinstance(later, (ast.For, ast.While, ast.If)):
                if written & {name, source}:
                    return False  # a loop or branch that binds either: not followed here
            elif not isinstance(later, _SIMPLE) or not _reads_before_binding(later, name):
                return False
            uses.append(later)
            if name not in liveness.live_after(later):
                break  # the last read of this value
            if written & {name, source}:
                return False  # read again after it or its source changed
        elif written & {name, source}:
            return False
    else:
        return False  # read after this block (a later iteration, after the loop)
    replaced = sum(_reads_of(later, name) for later in uses)
    for later in uses:
        _Substitute(name, ast.Name(source, ast.Load())).visit(later)
    summaries.forget(uses)
    del stmts[index]
    counts.reads[source] += replaced - 1
    counts.reads[name] -= replaced
    counts.binds[name] -= 1
    return True


def _jumps_or_updates(stmt: ast.stmt, names: set[str]) -> bool:
    """Whether ``stmt`` holds a ``break`` or ``continue`` (another path to a later read),
    or is an augmented assignment to one of ``names`` (its target is read and written)."""
    if isinstance(stmt, ast.AugAssign):
        return isinstance(stmt.target, ast.Name) and stmt.target.id in names
    return any(isinstance(node, (ast.Break, ast.Continue)) for node in walk(stmt))


def _reads_before_binding(stmt: ast.stmt, name: str) -> bool:
    """Whether every read of ``name`` in ``stmt`` happens before ``stmt`` binds anything:
    in the value of an assignment (targets are bound after the value is computed)."""
    if isinstance(stmt, ast.AugAssign):
        return True
    if isinstance(stmt, ast.Assign):
        return not any(_reads_of(target, name) for target in stmt.targets)
    return False


def _reads_of(stmt: ast.AST, name: str) -> int:
    return sum(
        1
        for n in walk(stmt)
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
    )


class _Substitute(ast.NodeTransformer):
    """Replace every read of one name by a copy of an expression."""

    def __init__(self, name: str, value: ast.expr):
        self.name, self.value = name, value

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id == self.name and isinstance(node.ctx, ast.Load):
            return clone(self.value)
        return node
