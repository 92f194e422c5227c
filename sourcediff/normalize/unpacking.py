"""Tuple assignments in three-address form (the unpacking part of the Flattener).

A permutation of names (``u, v = v, u``) stays one statement: its inverse is a
permutation too, so the reverse sweep records nothing. Other tuples are assigned element
by element, every value computed first and a target that is also a value copied::

    x, y = y, x + y     ->    t1 = x + y
                              t2 = y
                              x = t2
                              y = t1

A shape unpacks axis by axis; a helper's tuple result is one statement the inliner
expands.
"""

from __future__ import annotations

import ast


class UnpackFlattening:
    """Mixin of :class:`~sourcediff.normalize.flatten.Flattener`: tuple assignments."""

    def unpack(self, targets: list[str], value: ast.expr) -> None:
        """Emit ``a, b = value``: a permutation of names whole, a tuple element by element
        (through copies where a target is also a source), a shape by axis, a helper's
        result as one statement."""
        if isinstance(value, ast.Tuple) and _is_permutation(targets, value):
            # Kept whole: its inverse is a permutation too, so nothing is recorded.
            sources = ast.Tuple([ast.Name(e.id, ast.Load()) for e in value.elts], ast.Load())
            store = ast.Tuple([ast.Name(t, ast.Store()) for t in targets], ast.Store())
            self.emit(ast.Assign([store], sources))
            return
        if isinstance(value, ast.Tuple):
            if len(value.elts) != len(targets):
                raise self.fn.error(value, "cannot unpack: the counts of names and values differ")
            atoms = [self.atom(e) for e in value.elts]
            atoms = [self._copy_if_clobbered(a, targets) for a in atoms]
            for name, atom in zip(targets, atoms):
                if not (isinstance(atom, ast.Name) and atom.id == name):
                    self.assign(name, atom)
            return
        if isinstance(value, ast.Attribute) and value.attr == "shape":
            shape = self.expr_Attribute(value)
            for k, name in enumerate(targets):
                self.assign(name, ast.Subscript(shape, ast.Constant(k), ast.Load()))
            return
        parts = self.tuple_result_parts(value)
        if parts is not None:
            if len(parts) != len(targets):
                raise self.fn.error(value, "cannot unpack: the counts of names and values differ")
            for name, part in zip(targets, parts):
                self.assign(name, part)
            return
        if isinstance(value, ast.Call) and self._helper_name(value.func):
            call = self.simple(value)
            store = ast.Tuple([ast.Name(t, ast.Store()) for t in targets], ast.Store())
            self.emit(ast.Assign([store], call))
            return
        raise self.fn.error(value, "only a tuple or a helper's result can be unpacked here")

    def _copy_if_clobbered(self, atom: ast.expr, targets: list[str]) -> ast.expr:
        if isinstance(atom, ast.Name) and atom.id in targets:
            temp = self.new_temp()
            self.assign(temp, atom)
            return ast.Name(temp, ast.Load())
        return atom


def _is_permutation(targets: list[str], value: ast.Tuple) -> bool:
    sources = [e.id for e in value.elts if isinstance(e, ast.Name)]
    return (
        len(sources) == len(value.elts) == len(targets)
        and len(set(targets)) == len(targets)
        and sorted(sources) == sorted(targets)
        and sources != targets
    )
