"""Activity: which variables carry a derivative from the inputs to the output.

A variable is *varied* if a differentiated input reaches it through
differentiable operations, *useful* if it reaches the output the same way,
and *active* if both and its type is a float. Only active variables get an
adjoint; everything else (ints, bools, branch tests, values only compared)
costs nothing in the reverse sweep. The analysis is flow-insensitive: a name
is active if it is active anywhere, which is conservative and always correct.
"""

from __future__ import annotations

import ast

from .. import ir, rules
from ..astnodes import walk
from .types import TypeTable


def dependencies(node: ast.FunctionDef) -> list[tuple[str, list[str]]]:
    """``(target, [operands with a nonzero partial])`` for every assignment."""
    edges = []
    for stmt in walk(node):
        if not isinstance(stmt, ast.Assign):
            continue
        if ir.is_permutation(stmt):
            edges += [(target, [source]) for target, source in ir.permutation_pairs(stmt)]
        elif ir.is_element_write(stmt):
            value = stmt.value
            edges.append((ir.target_name(stmt), [value.id] if isinstance(value, ast.Name) else []))
        else:
            edges.append((stmt.targets[0].id, differentiable_operands(stmt.value)))
    return edges


def differentiable_operands(value: ast.expr) -> list[str]:
    """Names in ``value`` through which a derivative can flow."""
    if isinstance(value, ast.Name):
        return [value.id]
    if ir.is_shape_query(value):
        return []
    if ir.is_element_read(value):
        return [value.value.id]
    rule = rules.lookup(rules.rule_name(value))
    if rule is None:
        return []
    names = []
    for arg, partial in zip(rules.operands(value), rule.partials):
        if partial is None:
            continue
        parts = arg.elts if isinstance(arg, ast.Tuple) else [arg]  # np.concatenate((a, b))
        names += [part.id for part in parts if isinstance(part, ast.Name)]
    return names


def output_names(node: ast.FunctionDef) -> list[str]:
    """The names the function returns (its final ``return``)."""
    value = node.body[-1].value
    atoms = value.elts if isinstance(value, ast.Tuple) else [value]
    return [a.id for a in atoms if isinstance(a, ast.Name)]


def active_variables(node: ast.FunctionDef, types: TypeTable, wrt: list[str]) -> set[str]:
    """Names that are varied by ``wrt``, useful to the output, and of float type."""
    edges = dependencies(node)
    floats = {name for name, t in types.variables.items() if t.is_float}
    varied = _closure(set(wrt) & floats, edges, floats, forward=True)
    useful = _closure(set(output_names(node)) & floats, edges, floats, forward=False)
    return varied & useful


def _closure(start: set[str], edges, floats: set[str], forward: bool) -> set[str]:
    reached = set(start)
    changed = True
    while changed:
        changed = False
        for target, operands in edges:
            if forward and target in floats and target not in reached:
                if any(o in reached for o in operands):
                    reached.add(target)
                    changed = True
            elif not forward and target in reached:
                for o in operands:
                    if o in floats and o not in reached:
                        reached.add(o)
                        changed = True
    return reached
