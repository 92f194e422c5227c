"""Deterministic fresh names for generated code.

Names derive from the user's (``s`` -> ``s_bar``, ``s_tape``), and clashes are
resolved by numbering (``t1``, ``t2``, ``s_bar2``), never by random ids, so the
same input always gives the same bytes and golden files stay stable.
"""

from __future__ import annotations

import ast


class Namer:
    """Hands out names that clash neither with each other nor with the user's."""

    def __init__(self, taken: set[str] = frozenset()):
        self.taken: set[str] = set(taken)
        self._temp_counter = 0

    @classmethod
    def for_tree(cls, tree: ast.AST, extra: set[str] = frozenset()) -> Namer:
        """A namer that avoids every identifier appearing in ``tree``."""
        taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        taken |= {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
        return cls(taken | set(extra))

    def fresh(self, base: str) -> str:
        """``base`` if free, else ``base2``, ``base3``, ..."""
        name, k = base, 1
        while name in self.taken:
            k += 1
            name = f"{base}{k}"
        self.taken.add(name)
        return name

    def temp(self) -> str:
        """A short numbered temporary: ``t1``, ``t2``, ..."""
        while True:
            self._temp_counter += 1
            name = f"t{self._temp_counter}"
            if name not in self.taken:
                self.taken.add(name)
                return name
