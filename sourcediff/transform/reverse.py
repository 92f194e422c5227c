"""Stage 4, reverse transform: a forward sweep that records, a reverse sweep that accumulates.

One walk over the normalized function emits, for each statement, its forward
part and its reverse part; a block's reverse is its statements' reverses in
reverse order (as in Warp). For ``v = f(a, b)`` the forward part saves ``v``
first if the recording analysis says so, and the reverse part is::

    a_bar += <partial of f wrt a> * v_bar      # from the rule table
    b_bar += <partial of f wrt b> * v_bar
    v_bar = 0.0
    v = <saved value>                          # restore, if saved

Branches are replayed from their (restored) test; how a loop is reversed
(stored, recomputed or checkpointed) is loops.py's. A temporary with one
definition and one use in the same block gets its adjoint assigned
(``t1_bar = ...``) instead of accumulated, which keeps the code short and needs
no zeroing.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .. import ir
from ..analysis.liveness import entry_state
from ..analysis.recording import Recording, assigned_in_branches_only, unassigned_at_save
from ..analysis.replayed_bounds import replayed_prefix
from ..astnodes import walk
from ..codegen import Comment
from ..plan import Plan
from ..verify import Instrumentation
from . import signature
from .accumulate import accumulate_arrays
from .cleanup import drop_dead_adjoint_stores
from .effects import names_read
from .first_writes import assign_first_contributions
from .late_pushes import DeferredPushes, name_counts
from .loops import reverse_loop
from .records import counting_function, keeps_bytes, lower
from .repeats import drop_repeated_computations
from .simplify import simplify
from .statements import StatementAdjoints
from .tape import Tapes, is_region


@dataclass
class AdjointSpec:
    """What to differentiate: the names of the inputs, the adjoint function's name, the policy."""

    wrt: list[str]
    name: str
    plan: Plan
    counting_name: str = "record_bytes"
    shadow_name: str = ""  # verifier mode (sourcediff/verify.py): the shadow primal's name
    value: bool = True  # whether the vjp returns the value with the adjoints


@dataclass
class AdjointFunctions:
    """What the reverse stage builds: the vjp, the function counting the bytes it records,
    in verifier mode the shadow primal (else None), whether anything is recorded, and
    the shapes the optimizer may rely on."""

    vjp: ast.FunctionDef
    counting: ast.FunctionDef
    shadow: ast.FunctionDef | None
    records: bool
    shapes: dict  # the symbolic shapes of the vjp's names that have one
    ranks: dict  # the rank of every primal array and of its adjoint


class ReverseBuilder(StatementAdjoints):
    """Builds the adjoint function of one normalized function."""

    def __init__(self, nf, types, active, rec: Recording, recomputed, plan: Plan):
        self.plan = plan
        self.rerun = False  # inside a loop whose iterations are re-run (recompute, checkpoint)
        self.extra_prologue: list[ast.stmt] = []
        self.recomputed = recomputed
        self.nf = nf
        self.types = types
        self.active = active
        self.rec = rec
        self.namer = nf.namer
        self.tapes = Tapes(self.namer, types, nf.counters, nf.params)
        self.tapes.unassigned = unassigned_at_save(nf.node, rec)
        self.tapes.unassigned |= assigned_in_branches_only(nf.node, rec, types)
        self.bars: dict[str, str] = {}
        arrays = {n for n in active if types[n].kind == "array"}
        self.assigned_adjoints = _single_use_temps(nf.node.body, nf.temps, active - arrays)
        self.loops: list[ast.stmt] = []
        #: Per stored loop being built, its iteration-local values (late_pushes.py).
        self.deferred: list[DeferredPushes] = []
        self.name_counts = name_counts(nf.node.body)
        self.verifier: Instrumentation | None = None
        # Views written through: a copy of one would not write into its array.
        self.written_through = signature.written_arrays(nf.node)

    def bar(self, name: str) -> str:
        """The adjoint's name of primal variable ``name``: ``x`` -> ``x_bar``."""
        if name not in self.bars:
            self.bars[name] = self.namer.fresh(f"{name}_bar")
        return self.bars[name]

    # -- blocks and statements --------------------------------------------

    def block(self, stmts: list[ast.stmt]) -> tuple[list[ast.stmt], list[ast.stmt]]:
        fwd, rev = [], []
        for stmt in stmts:
            f, r = self.stmt(stmt)
            fwd += f
            rev = r + rev
        if rev:  # inner-loop bounds are recomputed first, not restored from a record
            rev = replayed_prefix(stmts, self.rec.replayed) + rev
        return fwd, rev

    def stmt(self, stmt: ast.stmt) -> tuple[list[ast.stmt], list[ast.stmt]]:
        if isinstance(stmt, ast.Assign):
            return self.assign(stmt)
        if isinstance(stmt, ast.If):
            return self.if_stmt(stmt)
        if isinstance(stmt, (ast.For, ast.While)):
            return reverse_loop(self, stmt)
        if isinstance(stmt, (ast.Break, ast.Raise)):  # a raise ends the call: no reverse
            return [stmt], []
        raise AssertionError(f"unexpected statement in normalized code: {ast.dump(stmt)}")

    def assign(self, stmt: ast.Assign) -> tuple[list[ast.stmt], list[ast.stmt]]:
        if ir.is_self_copy(stmt):
            return [stmt], []
        if ir.is_permutation(stmt):
            return [stmt], [ir.located(s, stmt) for s in self.unpermute(stmt)]
        target = ir.target_name(stmt)
        if target in self.active and not ir.is_element_write(stmt):  # never s = s + x: wrong
            assert target not in names_read(stmt.value), f"reads its target: {ast.dump(stmt)}"
        save, restore = [], []
        if self.rec.saves_at(stmt):
            element = stmt.targets[0] if ir.is_element_write(stmt) else None
            save, restore = self.tapes.save(target, self.loops, element)
            if element is None and self.deferred and self.deferred[-1].take(target, save, restore):
                save, restore = [], []  # pushed at the end of the iteration, popped first
        rev = self.adjoint(stmt) if target in self.active else []
        rev = [ir.located(s, stmt) for s in rev + restore]
        return save + [self.forward_form(stmt)], rev

    def forward_form(self, stmt: ast.Assign) -> ast.Assign:
        """The statement as the forward sweep runs it: a slice the reverse sweep reads
        later is copied, so later writes into the array cannot change it (unless the slice
        is itself written into: that writes into the array, which a copy would not)."""
        value = stmt.value
        target = stmt.targets[0]
        if (
            isinstance(target, ast.Name)
            and ir.is_element_read(value)
            and is_region(value)
            and target.id in self.rec.reads
            and target.id not in self.written_through
        ):
            copied = ast.Call(ast.Attribute(value, "copy", ast.Load()), [], [])
            return ir.located(ast.Assign([target], copied), stmt)
        return stmt

    def if_stmt(self, stmt: ast.If) -> tuple[list[ast.stmt], list[ast.stmt]]:
        body_f, body_r = self.block(stmt.body)
        else_f, else_r = self.block(stmt.orelse)
        fwd = ir.located(ast.If(stmt.test, body_f or [ast.Pass()], else_f), stmt)
        if not self.rec.works(stmt) or not (body_r or else_r):
            return [fwd], []
        if not body_r:
            rev = ast.If(simplify(ast.UnaryOp(ast.Not(), stmt.test)), else_r, [])
        else:
            rev = ast.If(stmt.test, body_r, else_r)
        return [fwd], self.branch_check(stmt) + [ir.located(rev, stmt)]

    def branch_check(self, stmt: ast.If) -> list[ast.stmt]:
        """Verifier mode: the replayed branch decision must be the forward sweep's."""
        if self.verifier is None or not isinstance(stmt.test, ast.Name):
            return []
        return self.verifier.check(stmt, {stmt.test.id})

    def state_names(self, loop: ast.For) -> list[str]:
        """The variables an iteration of ``loop`` starts from, restored before it re-runs."""
        return entry_state(self.nf, loop, self.rec.live_at_entry.get(id(loop), set()))

    # -- the whole function -------------------------------------------------

    def build(self, spec: AdjointSpec, outputs: int) -> ast.FunctionDef:
        body = self.nf.node.body
        ret = body[-1]
        fwd, rev = self.block(body[:-1])
        self.tapes.finish_pushes(fwd)
        seeds = signature.seed_names(self.namer, self.nf.name, outputs)
        value = self.namer.fresh("value")
        atoms = ret.value.elts if isinstance(ret.value, ast.Tuple) else [ret.value]
        copies, write_back = signature.private_copies(self.nf, self.types)
        prologue = self.tapes.prologue() + self.extra_prologue
        prologue += signature.array_dummies(self.nf, self.types, self.active, self.tapes.loop_saved)
        forward = copies + prologue + fwd + write_back
        counting = counting_function(spec.counting_name, self.nf.params, forward)
        out = [Comment("forward sweep")] + lower(forward)
        out.append(ir.statement(f"{value} = {ast.unparse(ret.value)}"))
        out.append(Comment("reverse sweep"))
        out += self.adjoint_inits(spec.wrt)
        for atom, seed in zip(atoms, seeds):
            if isinstance(atom, ast.Name) and atom.id in self.active:
                out.append(self.accumulate(atom.id, ir.load(seed)))
        out += drop_repeated_computations(lower(rev))
        grads = [self.bars.get(w) if w in self.active else self.zero(w) for w in spec.wrt]
        returned = f"{value}, ({', '.join(grads)},)" if spec.value else f"({', '.join(grads)},)"
        out.append(ir.statement(f"return {returned}"))
        args = [ast.arg(p) for p in self.nf.params + seeds]
        fn = ast.FunctionDef(spec.name, ast.arguments([], args, None, [], [], None, []), out, [])
        drop_dead_adjoint_stores(fn, set(self.bars.values()))
        fn.body = assign_first_contributions(fn.body, set(self.bars.values()))
        arrays = {bar for name, bar in self.bars.items() if self.types[name].kind == "array"}
        fn.body = accumulate_arrays(fn.body, arrays, lambda name: self.types[name].kind)
        shadow = None
        if self.verifier is not None:
            shadow = self.verifier.shadow(self.nf.node, spec.shadow_name)
        shapes = self.known_shapes(atoms, seeds)
        ranks = {n: t.ndim for n, t in self.types.variables.items() if t.kind == "array"}
        ranks |= {bar: ranks[name] for name, bar in self.bars.items() if name in ranks}
        return AdjointFunctions(fn, counting, shadow, keeps_bytes(forward), shapes, ranks)

    def known_shapes(self, atoms: list[ast.expr], seeds: list[str]) -> dict:
        """Symbolic shapes (analysis/static_shapes.py) of the adjoint function's names
        that have one: primal names, their adjoints, the seeds of returned names."""
        # Only float64 arrays: binding an adjoint to a new array must keep its dtype.
        shapes = {
            name: shape
            for name, shape in self.types.shapes.items()
            if shape == () or self.types[name].dtype == "float64"
        }
        shapes |= {bar: shapes[name] for name, bar in self.bars.items() if name in shapes}
        for atom, seed in zip(atoms, seeds):
            if isinstance(atom, ast.Name) and atom.id in shapes:
                shapes[seed] = shapes[atom.id]
        return shapes

    def adjoint_inits(self, wrt: list[str]) -> list[ast.stmt]:
        names = sorted(self.active - self.assigned_adjoints, key=_order(self.nf.params, wrt))
        return [ir.statement(f"{self.bar(n)} = {self.zero(n)}") for n in names]

    def zero(self, name: str) -> str:
        """A zero of the type of ``name``'s adjoint."""
        return f"np.zeros_like({name})" if self.types[name].kind == "array" else "0.0"


def _order(params: list[str], wrt: list[str]):
    def key(name: str):
        return (0, wrt.index(name), "") if name in wrt else (1, 0, name)

    return key


def _single_use_temps(body: list[ast.stmt], temps: set[str], active: set[str]) -> set[str]:
    """Active temporaries defined once and read once, both in the same block."""
    defs: dict[str, list[int]] = {}
    uses: dict[str, list[int]] = {}

    def visit(block: list[ast.stmt]) -> None:
        for stmt in block:
            if ir.is_permutation(stmt) or ir.is_element_write(stmt):
                for n in walk(stmt):
                    if isinstance(n, ast.Name):
                        uses.setdefault(n.id, []).append(-1)
            elif isinstance(stmt, ast.Assign):
                defs.setdefault(stmt.targets[0].id, []).append(id(block))
                for n in walk(stmt.value):
                    if isinstance(n, ast.Name):
                        uses.setdefault(n.id, []).append(id(block))
            else:
                for n in walk(getattr(stmt, "test", None) or ast.Pass()):
                    if isinstance(n, ast.Name):
                        uses.setdefault(n.id, []).append(-1)
                for field_name in ("body", "orelse"):
                    visit(getattr(stmt, field_name, []))
            if isinstance(stmt, ast.Return):
                for n in walk(stmt):
                    if isinstance(n, ast.Name):
                        uses.setdefault(n.id, []).append(-1)

    visit(body)
    return {t for t in temps & active if len(defs.get(t, [])) == 1 and uses.get(t, []) == defs[t]}


def build_adjoint(
    nf, types, active, recording, recomputed, spec: AdjointSpec, outputs: int
) -> AdjointFunctions:
    """The adjoint (vector-Jacobian product) function of ``nf``, the function counting
    the bytes it records and, in verifier mode, the shadow primal, as ASTs."""
    builder = ReverseBuilder(nf, types, active, recording, recomputed, spec.plan)
    if spec.shadow_name:
        builder.verifier = Instrumentation()
    return builder.build(spec, outputs)
