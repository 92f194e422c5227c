"""How many bytes a derivative will record, computed before running it (``sd.tape_size``).

The counting function is the adjoint's forward sweep with every record
replaced by a byte count: pushes onto a tape add the element size, arrays kept
in lists add their ``nbytes``, allocations and capacity checks disappear, and
nothing is written back into the caller's arrays. For loops whose iterations
are re-run (recompute, checkpoint) the record of the single iteration being
reversed is counted once, as the largest over all iterations. Running it costs
about one evaluation of the function.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field


@dataclass
class RecordInfo:
    """What the forward sweep records into: tapes (element size) and lists (multiplier)."""

    arrays: dict[str, str] = field(default_factory=dict)  # tape name -> bytes per push
    lists: dict[str, str] = field(default_factory=dict)  # list name -> copies per append
    tops: set[str] = field(default_factory=set)  # stack pointers of the tapes
    rerun_bodies: dict[int, list[ast.stmt]] = field(default_factory=dict)
    skipped: set[int] = field(default_factory=set)  # statements to drop (write-backs)
    # revolve schedules, counted at the end: (trip count variable, snapshots) per loop
    schedules: list[tuple[str, str]] = field(default_factory=list)


def _parse(source: str) -> ast.stmt:
    return ast.parse(source).body[0]


class _Counter:
    def __init__(self, info: RecordInfo):
        self.info = info

    def block(self, stmts: list[ast.stmt], total: str) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in stmts:
            out += self.stmt(stmt, total)
        return out

    def stmt(self, stmt: ast.stmt, total: str) -> list[ast.stmt]:
        if id(stmt) in self.info.skipped:
            return []
        if isinstance(stmt, ast.Assign):
            return self.assign(stmt, total)
        if isinstance(stmt, ast.Expr):
            return self.append(stmt, total)
        if isinstance(stmt, ast.AugAssign):
            return self.aug_assign(stmt, total)
        if isinstance(stmt, ast.If):
            listed = self._list_in_test(stmt.test)
            if listed:  # "take a snapshot": set a slot or append to the list
                value = stmt.orelse[0].value.args[0]
                return [self._count_array(listed, value, total)]
            if self._is_capacity_check(stmt):
                return []
            new = copy.copy(stmt)
            new.body = self.block(stmt.body, total) or [ast.Pass()]
            new.orelse = self.block(stmt.orelse, total)
            return [new]
        if isinstance(stmt, (ast.For, ast.While)):
            new = copy.copy(stmt)
            rerun = self.info.rerun_bodies.get(id(stmt))
            if rerun is None:
                new.body = self.block(stmt.body, total) or [ast.Pass()]
                return [new]
            pushes = [s for s in stmt.body if self._is_record(s)]
            new.body = self.block(pushes, total) + [_parse("iteration_bytes = 0")]
            new.body += self.block(rerun, "iteration_bytes")
            new.body.append(_parse("peak_bytes = max(peak_bytes, iteration_bytes)"))
            return [new]
        return [copy.deepcopy(stmt)]

    def _is_record(self, stmt: ast.stmt) -> bool:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Subscript):
            return _name_of(stmt.targets[0].value) in self.info.arrays
        return isinstance(stmt, ast.Expr) and self._appended_list(stmt) is not None

    def assign(self, stmt: ast.Assign, total: str) -> list[ast.stmt]:
        target = stmt.targets[0]
        if isinstance(target, ast.Subscript) and _name_of(target.value) in self.info.arrays:
            return [_parse(f"{total} += {self.info.arrays[_name_of(target.value)]}")]
        if isinstance(target, ast.Name) and (
            target.id in self.info.arrays or target.id in self.info.lists
        ):
            return []  # allocating a record
        if isinstance(target, ast.Name) and target.id in self.info.tops:
            return []
        return [copy.deepcopy(stmt)]

    def aug_assign(self, stmt: ast.AugAssign, total: str) -> list[ast.stmt]:
        if isinstance(stmt.target, ast.Name) and stmt.target.id in self.info.tops:
            return []
        return [copy.deepcopy(stmt)]

    def append(self, stmt: ast.Expr, total: str) -> list[ast.stmt]:
        listed = self._appended_list(stmt)
        if listed is None:
            return [copy.deepcopy(stmt)]
        return [self._count_array(listed, stmt.value.args[0], total)]

    def _count_array(self, listed: str, value: ast.expr, total: str) -> ast.stmt:
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
            value = value.func.value  # x.copy() takes x.nbytes
        copies = self.info.lists[listed]
        return _parse(f"{total} += {copies} * {ast.unparse(value)}.nbytes")

    def _appended_list(self, stmt: ast.Expr) -> str | None:
        call = stmt.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
            name = _name_of(call.func.value)
            if call.func.attr == "append" and name in self.info.lists:
                return name
        return None

    def _list_in_test(self, test: ast.expr) -> str | None:
        for node in ast.walk(test):
            if isinstance(node, ast.Call) and _name_of(node.func) == "len" and node.args:
                name = _name_of(node.args[0])
                if name in self.info.lists:
                    return name
        return None

    def _is_capacity_check(self, stmt: ast.If) -> bool:
        return all(
            isinstance(s, ast.Assign) and _name_of(s.targets[0]) in self.info.arrays
            for s in stmt.body
        )


def _name_of(node: ast.AST) -> str:
    return node.id if isinstance(node, ast.Name) else ""


def counting_function(name: str, params: list[str], forward: list[ast.stmt], info: RecordInfo):
    """A function of the primal's parameters returning the bytes the adjoint records."""
    body = [_parse("recorded_bytes = 0"), _parse("peak_bytes = 0")]
    # A checkpointed loop inside a branch sets its trip count only when the branch runs;
    # its schedule (counted at the end) is then empty: revolve_actions(0, k) has no bytes.
    body += [_parse(f"{count} = 0") for count, _ in info.schedules]
    body += _Counter(info).block(forward, "recorded_bytes")
    body += [
        _parse(f"recorded_bytes += revolve_actions({count}, {snapshots}).nbytes")
        for count, snapshots in info.schedules
    ]
    body.append(_parse("return recorded_bytes + peak_bytes"))
    arguments = ast.arguments([], [ast.arg(p) for p in params], None, [], [], None, [])
    return ast.FunctionDef(name, arguments, body, [])
