"""The reverse of one assignment: its adjoint terms accumulated, then the result's adjoint
zeroed (a mixin of :class:`sourcediff.transform.reverse.ReverseBuilder`).

The terms come from :func:`sourcediff.adjoint_terms.adjoint_terms`, the one place that
says what an adjoint reads; temporaries chosen for recomputation are re-run first, and
an integer-array index becomes one contribution per index (``sourcediff.fancy``).
"""

from __future__ import annotations

import ast

from .. import fancy, ir
from ..adjoint_terms import adjoint_reads, adjoint_terms
from ..analysis.recompute import names_read
from ..astnodes import clone, walk
from .simplify import simplify


class StatementAdjoints:
    """Statement adjoints; the builder provides ``types``, ``active``, ``bar``, ``rec``,
    ``recomputed``, ``assigned_adjoints``, ``namer`` and ``verifier``."""

    def adjoint(self, stmt: ast.Assign) -> list[ast.stmt]:
        """The reverse of ``stmt``: its adjoint terms, accumulated, then the result's
        adjoint zeroed (``a_bar[i] = 0.0`` for an element write)."""
        terms = adjoint_terms(stmt, self.active, self.types, self.bar)
        index = [stmt.targets[0].slice] if ir.is_element_write(stmt) else []
        out = self.recomputation(terms, index)
        if self.verifier is not None:
            reads = adjoint_reads(stmt, self.active, self.types).values
            out += self.verifier.check(stmt, reads)
        for term in terms:
            if term.name in self.rec.reshaped:
                out.append(self.fit_shape(term.name))
            out.append(self.contribution(term))
        if ir.is_element_write(stmt):
            element = stmt.targets[0]
            zero = ast.Subscript(ir.load(self.bar(element.value.id)), element.slice, ast.Store())
            out.append(ast.Assign([zero], ast.Constant(0.0)))
        elif ir.target_name(stmt) not in self.assigned_adjoints:
            reset = self.reset(ir.target_name(stmt))
            # An allocation whose every element the next loop nest writes: the reverse of
            # each write zeroed its element already. The optimizer's analyses still see the
            # zeroing, and drop it last (optimize.drop_implied_zeroings).
            reset.implied = getattr(stmt, "filled_by_loop", False) and not terms
            out.append(reset)
        return out

    def contribution(self, term) -> ast.stmt:
        """``name_bar[index] += expr``; once per ``k`` for an integer-array index."""
        accumulate = self.accumulate(term.name, simplify(term.expr), term.index)
        if term.over is None:
            return accumulate
        body = [accumulate]
        if term.zero is not None:
            zero = ast.Subscript(term.zero.value, term.zero.slice, ast.Store())
            body.append(ast.Assign([zero], ast.Constant(0.0)))
        counter = self.namer.fresh("k")
        loop = fancy.counted_loop(counter, term.over, term.backwards, body)
        return fancy.rename_counter(loop, counter)

    def fit_shape(self, name: str) -> ast.stmt:
        """Give the adjoint of an array whose shape changes between iterations the shape of
        this iteration's array (it holds zeros whenever the shape changes)."""
        bar = self.bar(name)
        return ir.statement(f"if {bar}.shape != {name}.shape:\n    {bar} = np.zeros_like({name})")

    def reset(self, name: str) -> ast.stmt:
        """Zero the adjoint of ``name`` once its contributions are passed on."""
        if self.types[name].kind == "array":
            return ir.statement(f"{self.bar(name)}.fill(0.0)")
        return ir.statement(f"{self.bar(name)} = 0.0")

    def unpermute(self, stmt: ast.Assign) -> list[ast.stmt]:
        """Reverse of ``a, b = b, a``: the inverse permutation, of values and of adjoints."""
        if not self.rec.works(stmt):
            return []
        pairs = ir.permutation_pairs(stmt)
        out = [ir.statement(f"{', '.join(s for _, s in pairs)} = {', '.join(t for t, _ in pairs)}")]
        if all(t in self.active for t, _ in pairs):
            sources = ", ".join(self.bar(s) for _, s in pairs)
            out.append(ir.statement(f"{sources} = {', '.join(self.bar(t) for t, _ in pairs)}"))
        return out

    def recomputation(self, terms, extra: list[ast.expr]) -> list[ast.stmt]:
        """Re-run the definitions of recomputed temporaries the terms (and ``extra``) read."""
        order: list[str] = []

        def visit(name: str) -> None:
            if name in self.recomputed and name not in order:
                for operand in sorted(names_read(self.recomputed[name].value)):
                    visit(operand)
                order.append(name)

        parts = list(extra)
        for term in terms:
            parts += [term.expr] + ([term.index] if term.index is not None else [])
        for part in parts:
            for sub in walk(part):
                if isinstance(sub, ast.Name):
                    visit(sub.id)
        return [clone(self.recomputed[name]) for name in order]

    def accumulate(self, name: str, expr: ast.expr, index: ast.expr | None = None) -> ast.stmt:
        target = ast.Name(self.bar(name), ast.Store())
        if index is not None:
            target = ast.Subscript(ir.load(self.bar(name)), index, ast.Store())
        elif name in self.assigned_adjoints:
            return ast.Assign([target], expr)
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
            return ast.AugAssign(target, ast.Sub(), expr.operand)
        return ast.AugAssign(target, ast.Add(), expr)
