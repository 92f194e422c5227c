"""To-be-recorded analysis: which overwrites must save the old value.

The reverse sweep walks the program backwards and *restores* each saved
variable at the point where the forward sweep overwrote it, so that every
value it reads is the one the forward sweep had at that point. A variable
needs saving at an assignment only if the reverse sweep reads it (a partial
derivative uses it, a branch is replayed from it, a loop is replayed from its
trip count) at some earlier point from which this assignment is reachable
without passing another assignment of it. This is a forward data-flow
analysis over the structured program; with it, straight-line code records
nothing and a loop records per iteration only what it overwrites and needs.

The analysis also marks the compound statements whose reverse is non-empty
(``has_work``), so the reverse sweep omits branches and loops with nothing to do.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .. import ir
from ..adjoint_terms import adjoint_reads
from ..astnodes import names_written, walk
from ..errors import SourceDiffError
from . import liveness
from .dataflow import Dataflow
from .recompute import names_read
from .replayed_bounds import ARITHMETIC, bound_names, replay_operands, replayed_bounds
from .sharing import alias_classes


@dataclass
class Recording:
    """Typed side table of the analysis, keyed by statement identity."""

    saves: set[int] = field(default_factory=set)  # Assign nodes that save the old value
    has_work: set[int] = field(default_factory=set)  # If/For/While nodes with reverse work
    reads: set[str] = field(default_factory=set)  # names the reverse sweep reads
    # Arrays whose shape may change between iterations: saved at every rebinding, and their
    # adjoint reallocated from the restored array (see analysis/shapes.py).
    reshaped: set[str] = field(default_factory=set)
    # Names the reverse sweep of earlier code reads, live at each loop's entry: a loop
    # re-run in the reverse sweep must give them back their entry values afterwards.
    live_at_entry: dict[int, set[str]] = field(default_factory=dict)
    # Inner-loop bounds the reverse sweep recomputes from the enclosing loops' variables
    # instead of saving them (analysis/replayed_bounds.py), by statement identity.
    replayed: dict[int, ast.Assign] = field(default_factory=dict)

    def saves_at(self, stmt: ast.stmt) -> bool:
        """Whether ``stmt`` saves the value it overwrites."""
        return id(stmt) in self.saves

    def works(self, stmt: ast.stmt) -> bool:
        """Whether the reverse of compound statement ``stmt`` does anything."""
        return id(stmt) in self.has_work


def shape_of(name: str) -> str:
    """The pseudo-name, in live sets, of a read of ``name``'s shape alone."""
    return f"{name}.shape"


def reverse_reads(stmt: ast.Assign, active: set[str], types) -> set[str]:
    """Every primal name the adjoint of ``stmt`` reads, for its value or its shape."""
    return adjoint_reads(stmt, active, types).names()


def live_reads(stmt: ast.Assign, active: set[str], types, recomputed: dict) -> set[str]:
    """What the adjoint of ``stmt`` reads, as live-set entries: value reads by name,
    shape-only reads as :func:`shape_of` pseudo-names. A recomputed temporary is
    replaced by what recomputing it reads."""
    reads = adjoint_reads(stmt, active, types)
    values = reads.values | {n for n in reads.shapes if n in recomputed}
    shapes = {shape_of(n) for n in reads.shapes if n not in recomputed}
    return expand_recomputed(values, recomputed) | shapes


def expand_recomputed(names: set[str], recomputed: dict) -> set[str]:
    """``names`` with each recomputed temporary replaced by what recomputing it reads."""
    out: set[str] = set()
    stack = list(names)
    while stack:
        name = stack.pop()
        if name in recomputed:
            stack += sorted(names_read(recomputed[name].value))
        else:
            out.add(name)
    return out


def loop_reads(loop: ast.stmt, counters: dict) -> set[str]:
    """Names the reverse of ``loop`` reads at the loop's exit: counter, start, step."""
    if isinstance(loop, ast.For):
        return set(bound_names(loop, counters[loop].name))
    return {counters[loop].name}


class _Analysis(Dataflow):
    """Forward: the names whose current values the reverse sweep of earlier code reads."""

    rewriting = False

    def __init__(self, node, active, counters, filename, recomputed, types, rerun_outermost, fixed):
        super().__init__()
        self.rerun_outermost = rerun_outermost
        self.depth = 0
        self.recomputed = recomputed
        self.types = types
        self.node = node
        self.active = active
        self.counters = counters
        self.filename = filename
        self.result = Recording(reshaped=types.reshaped & set(active))
        self.same_counts = invariant_trip_counts(node, counters)
        replayed = replayed_bounds(node, counters).items()
        self.result.replayed = {k: s for k, s in replayed if k not in self.same_counts}
        self.unsaved = self.same_counts | set(self.result.replayed) | _same_lengths(node, fixed)
        self.loop_targets = {s.target.id for s in walk(node) if isinstance(s, ast.For)}
        self.aliases = alias_classes(node, types)

    def sharing(self, name: str) -> set[str]:
        """``name`` and every name that may share its memory."""
        return self.aliases.get(name, set()) | {name}

    def run(self) -> Recording:
        while True:
            before = (len(self.result.saves), len(self.result.has_work))
            self.result.reads = set()
            self.block(self.node.body, frozenset())
            self._mark_work(self.node.body)
            if (len(self.result.saves), len(self.result.has_work)) == before:
                return self.result

    def simple(self, stmt: ast.stmt, live: frozenset) -> frozenset:
        return self.assign(stmt, live) if isinstance(stmt, ast.Assign) else live

    def branch(self, stmt: ast.If, live: frozenset) -> frozenset:
        out = super().branch(stmt, live)
        if self.result.works(stmt) and isinstance(stmt.test, ast.Name):
            out = out | {stmt.test.id}  # the reverse sweep takes the same branch
            self.result.reads.add(stmt.test.id)
        return out

    def assign(self, stmt: ast.Assign, live: frozenset) -> frozenset:
        if ir.is_self_copy(stmt):
            return live
        if ir.is_permutation(stmt):
            return _permute(ir.permutation_pairs(stmt), live)
        target = ir.target_name(stmt)
        element_write = ir.is_element_write(stmt)
        # An element write changes values, never the shape: a shape-only read needs no save.
        # It changes every name that may share the array's memory (``v = u``) too.
        overwritten = self.sharing(target) if element_write else {target, shape_of(target)}
        needed = live & overwritten or (target in self.result.reshaped and not element_write)
        if getattr(stmt, "fills_fresh", False):
            needed = False  # it overwrites what np.empty left, which nothing reads
        if needed and id(stmt) not in self.unsaved:
            self.result.saves.add(id(stmt))
            self.result.reads.add(target)
        reads = live_reads(stmt, self.active, self.types, self.recomputed)
        if id(stmt) in self.result.replayed:  # recomputed in the reverse sweep: from these
            reads |= replay_operands(stmt) - self.loop_targets  # reverse loops reset those
        if element_write and id(stmt) in self.result.saves:
            reads |= expand_recomputed(ir.index_names(stmt.targets[0]), self.recomputed)
            # The restore writes through the name: rebinding it later (``v = np.tanh(v)``)
            # must keep the array it names now, or the restore writes into the new one.
            reads |= {target}
        self.result.reads |= {_base(name) for name in reads}
        if element_write:
            return live | reads
        saved = id(stmt) in self.result.saves
        return (live - overwritten) | reads | self._pinned(stmt, target, saved)

    def _pinned(self, stmt: ast.Assign, target: str, saved: bool) -> set[str]:
        """An array saved as it is rebound is kept by reference, not copied: the other
        names that may hold that same array (``z`` after ``z = w``; not the new value's own
        names) must keep its contents, so a later write through them saves them first.
        Only arrays are written through: a tuple (``np.nonzero``'s) only through its arrays,
        which are in its class too, and no tape holds a tuple."""
        if not saved or self.types[target].kind != "array":
            return set()
        sharing = self.sharing(target) - {target} - names_read(stmt.value)
        return {name for name in sharing if self.types[name].kind == "array"}

    def loop(self, loop: ast.stmt, live: frozenset) -> frozenset:
        self.result.live_at_entry[id(loop)] = {_base(name) for name in live}
        target = loop.target.id if isinstance(loop, ast.For) else None
        if target is not None and target in live:
            raise SourceDiffError(
                f"the loop variable '{target}' is also used before this loop in a way the "
                "derivative needs; give the loop its own variable name",
                self.filename,
                loop.lineno,
            )
        rerun = self.depth == 0 and isinstance(loop, ast.For) and self.rerun_outermost(loop)
        self.depth += 1
        exit_live = super().loop(loop, live)
        self.depth -= 1
        if self.result.works(loop):
            reads = loop_reads(loop, self.counters)
            if rerun:
                # Its iterations are re-run in the reverse sweep: everything they read from
                # outside must still hold its value then.
                reads |= liveness.block(loop.body, set()) - {target}
            self.result.reads |= reads
            exit_live = exit_live | reads
        return exit_live

    def _mark_work(self, stmts: list[ast.stmt]) -> bool:
        any_work = False
        for stmt in stmts:
            work = False
            if ir.is_permutation(stmt):
                names = {n for pair in ir.permutation_pairs(stmt) for n in pair}
                work = bool(names & (self.active | self.result.reads))
                if work:
                    self.result.has_work.add(id(stmt))
            elif isinstance(stmt, ast.Assign):
                work = ir.target_name(stmt) in self.active or id(stmt) in self.result.saves
            elif isinstance(stmt, (ast.If, ast.For, ast.While)):
                inner = self._mark_work(stmt.body)
                inner = self._mark_work(getattr(stmt, "orelse", [])) or inner
                if inner:
                    self.result.has_work.add(id(stmt))
                work = inner
            any_work = any_work or work
        return any_work


def invariant_trip_counts(node: ast.FunctionDef, counters: dict) -> set[int]:
    r"""The trip-count assignments (``n_j = len(range(t3))`` before an inner ``for``) whose
    bounds no enclosing loop changes: each run assigns the same count, so overwriting it
    loses nothing and the reverse sweep reads the last one (no tape of counts). A bound
    assigned in the loop counts as unchanged when that is its only assignment, earlier in
    the same block, from values no enclosing loop changes (``t3 = m - 1``).

    >>> f = ast.parse("def f(n, m):\n    for i in range(n):\n        t3 = m - 1\n"
    ...               "        n_j = len(range(t3))\n"
    ...               "        for j in range(t3):\n            s = i * j").body[0]
    >>> from types import SimpleNamespace
    >>> inner = f.body[0].body[2]
    >>> [ast.unparse(s) for s in ast.walk(f) if id(s) in invariant_trip_counts(
    ...     f, {inner: SimpleNamespace(name="n_j", running=False)})]
    ['n_j = len(range(t3))']
    """
    found: set[int] = set()
    bindings = liveness.binding_counts(node)

    def visit(block: list[ast.stmt], changed: set[str] | None, outer: list) -> None:
        """``outer``: the statements before ``block`` in the blocks enclosing it, inside
        the outermost loop (a name bound once there keeps its value inside ``block``)."""
        for index, stmt in enumerate(block):
            counter = counters.get(stmt) if isinstance(stmt, ast.For) else None
            if changed is not None and counter is not None and not counter.running and index:
                before = block[index - 1]
                counted = isinstance(before, ast.Assign) and ir.target_name(before) == counter.name
                fixed = _Fixed(outer + block[: index - 1], changed, bindings)
                if counted and all(fixed.holds(name) for name in names_read(stmt.iter)):
                    found.add(id(before))
            inner = [] if changed is None else outer + block[:index]
            if isinstance(stmt, (ast.For, ast.While)):
                visit(stmt.body, (changed or set()) | liveness.modified([stmt]), inner)
            elif isinstance(stmt, ast.If):
                visit(stmt.body, changed, inner)
                visit(stmt.orelse, changed, inner)

    visit(node.body, None, [])
    return found


class _Fixed:
    """Whether a name holds the same value at the end of ``earlier`` in every iteration."""

    def __init__(self, earlier: list[ast.stmt], changed: set[str], bindings: dict[str, int]):
        self.earlier, self.changed, self.bindings = earlier, changed, bindings

    def holds(self, name: str, depth: int = 0) -> bool:
        if name not in self.changed:
            return True
        if self.bindings.get(name, 0) != 1 or depth > 8:
            return False
        for stmt in self.earlier:
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) else None
            if isinstance(target, ast.Name) and target.id == name and len(stmt.targets) == 1:
                arithmetic = all(isinstance(n, ARITHMETIC) for n in walk(stmt.value))
                arithmetic = arithmetic or ir.is_shape_query(stmt.value)  # a.shape[k]
                reads = names_read(stmt.value)
                return arithmetic and all(self.holds(r, depth + 1) for r in reads)
        return False


def _base(name: str) -> str:
    return name.split(".")[0]


def _permute(pairs: list[tuple[str, str]], live: set[str]) -> set[str]:
    """Live entries after ``targets = sources``: each target carries its source's liveness."""
    moved = {target for target, source in pairs if source in live}
    moved |= {shape_of(target) for target, source in pairs if shape_of(source) in live}
    return (live - {t for t, _ in pairs} - {shape_of(t) for t, _ in pairs}) | moved


def time_loop(loop: ast.stmt, types) -> bool:
    """Whether policy "auto" may checkpoint this outermost loop: a ``for`` loop whose
    variable indexes nothing (a time loop) and whose iterations record a growing
    amount (an inner loop, or arrays assigned)."""
    if not isinstance(loop, ast.For) or indexes_by_target(loop):
        return False
    body = ast.Module(body=loop.body, type_ignores=[])
    if any(isinstance(n, (ast.For, ast.While)) for n in walk(body)):
        return True
    assigned = {ir.target_name(s) for s in walk(body) if isinstance(s, ast.Assign)}
    return any(types[name].kind == "array" for name in assigned if name)


def indexes_by_target(loop: ast.For) -> bool:
    """Whether the variable of ``loop`` appears in an index in its body."""
    target = loop.target.id
    return any(
        isinstance(node, ast.Subscript)
        and any(isinstance(n, ast.Name) and n.id == target for n in walk(node.slice))
        for node in walk(ast.Module(body=loop.body, type_ignores=[]))
    )


def _same_lengths(node: ast.FunctionDef, fixed) -> set[int]:
    """Assignments of an integer that holds one axis length wherever it is assigned
    (``fixed``, see ``static_shapes.fixed_lengths``): what they overwrite is equal."""
    return {
        id(stmt)
        for stmt in walk(node)
        if isinstance(stmt, ast.Assign) and ir.target_name(stmt) in fixed
    }


def analyze_recording(
    node, active, counters, filename, types, recomputed=None, rerun_outermost=False, fixed=()
) -> Recording:
    """Run the to-be-recorded analysis on a normalized function (see module docstring).

    ``recomputed`` maps temporaries the reverse sweep recomputes to their
    definitions; their readers read the operands instead. With
    ``rerun_outermost`` the outermost ``for`` loops are reversed by re-running
    their iterations (recompute and checkpoint policies). ``fixed``: integers that hold
    the same length at every assignment, never saved.
    """
    if not callable(rerun_outermost):
        everything = bool(rerun_outermost)
        rerun_outermost = lambda loop: everything  # noqa: E731
    analysis = _Analysis(
        node, active, counters, filename, recomputed or {}, types, rerun_outermost, set(fixed)
    )
    return analysis.run()


def unassigned_at_save(node: ast.FunctionDef, recording: Recording) -> set[str]:
    """Variables that a save may read before anything assigned them (a ``return`` in a
    branch not taken assigns ``result`` there and again later): the forward sweep gives
    them a placeholder first, or saving would read an unbound name."""
    found: set[str] = set()
    _definitely_assigned(node.body, {a.arg for a in node.args.args}, recording, found)
    return found


def assigned_in_branches_only(node: ast.FunctionDef, recording: Recording, types) -> set[str]:
    """Numbers the reverse sweep reads that only some branches of an ``if`` assign (a loop
    bound in the branch's reverse): the forward sweep gives them a placeholder first, since
    Numba cannot type a variable some paths leave unbound where a loop reads it."""
    params = {a.arg for a in node.args.args}
    defined = _definitely_assigned(node.body, params, recording, set())
    in_branches = {
        name
        for branch in walk(node)
        if isinstance(branch, ast.If)
        for stmt in branch.body + branch.orelse
        for name in names_written(stmt)
    }
    numbers = ("int", "float", "bool")
    return {
        name
        for name in (recording.reads & in_branches) - defined
        if name in types.variables and types[name].kind in numbers
    }


def _definitely_assigned(stmts, defined: set[str], recording: Recording, found: set[str]):
    defined = set(defined)
    for stmt in stmts:
        if isinstance(stmt, ast.Assign):
            target = ir.target_name(stmt)
            if recording.saves_at(stmt) and target not in defined:
                found.add(target)
            defined |= {n.id for n in walk(stmt.targets[0]) if isinstance(n, ast.Name)}
        elif isinstance(stmt, ast.If):
            body = _definitely_assigned(stmt.body, defined, recording, found)
            orelse = _definitely_assigned(stmt.orelse, defined, recording, found)
            defined |= body & orelse
        elif isinstance(stmt, (ast.For, ast.While)):
            _definitely_assigned(stmt.body, defined, recording, found)  # may run no iteration
    return defined
