"""Three-address form: every operation binds a name, every operand is an atom.

An atom is a name or a number. After this pass a right-hand side is an atom,
``a op b``, ``-a``, ``not a``, ``a < b`` or ``f(a, b)`` where ``f`` is spelled
canonically (``math.sin`` however the user imported it). ``and``/``or``,
``a if c else b`` and chained comparisons become ``if`` statements (keeping
short-circuit semantics); ``x += e`` becomes ``x = x + e``; tuple assignment
copies through temporaries so swaps stay swaps; a ``while`` loop's condition
becomes a name recomputed at the end of each iteration::

    s += math.sin(x * i) * y     ->    t1 = x * i
                                       t2 = math.sin(t1)
                                       t3 = t2 * y
                                       s = s + t3

The user's names are kept; new temporaries are ``t1``, ``t2``, ...
"""

from __future__ import annotations

import ast

from ..fence import out_keyword
from ..naming import Namer
from ..parse import ParsedFunction
from .calls import CallFlattening
from .expressions import ExpressionFlattening
from .selects import is_index_select
from .unpacking import UnpackFlattening


def located(node: ast.AST, where: ast.AST, fn: ParsedFunction) -> ast.AST:
    """Give ``node`` the user's location of ``where``: its line and file (``origin``)."""
    ast.copy_location(node, where)
    node.origin = getattr(where, "origin", (fn.filename, getattr(where, "lineno", 0)))
    if hasattr(where, "written_as"):  # a fresh name for what the user wrote (messages)
        node.written_as = where.written_as
    return node


class Flattener(CallFlattening, ExpressionFlattening, UnpackFlattening):
    """Rewrites one function's statements into three-address form."""

    def __init__(self, fn: ParsedFunction, node: ast.FunctionDef, namer: Namer):
        self.fn = fn
        self.namer = namer
        self.out: list[ast.stmt] = []
        self.where: ast.AST = fn.node
        self.temps: set[str] = set()
        # Within one statement, a repeated pure operation (``u[i] * u[i]``) gets one
        # temporary, so its adjoint is one term (``2.0 * (u[i] * g)``). Any statement
        # other than such a temporary's assignment may change what it read: it forgets.
        self.repeated: dict[str, str] = {}
        self.locals = {a.arg for a in node.args.args} | {
            n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }

    # -- statements ---------------------------------------------------------

    def block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        """The flattened form of a statement list."""
        saved, self.out = self.out, []
        saved_repeated, self.repeated = self.repeated, {}
        for stmt in stmts:
            saved_where = self.where
            if hasattr(stmt, "lineno"):
                self.where = stmt
            self.stmt(stmt)
            self.where = saved_where
        result, self.out = self.out, saved
        self.repeated = saved_repeated
        return result

    def emit(self, node: ast.stmt, keeps_repeated: bool = False) -> None:
        if not keeps_repeated:
            self.repeated.clear()
        self.out.append(located(node, self.where, self.fn))

    def assign(self, name: str, value: ast.expr) -> None:
        self.emit(ast.Assign([ast.Name(name, ast.Store())], value))

    def stmt(self, stmt: ast.stmt) -> None:
        self.repeated.clear()
        method = getattr(self, f"stmt_{type(stmt).__name__}", None)
        if method is None:
            raise self.fn.error(stmt, f"'{type(stmt).__name__}' statement is not supported here")
        method(stmt)

    def stmt_Pass(self, stmt: ast.Pass) -> None:
        pass

    def stmt_Raise(self, stmt: ast.Raise) -> None:
        """An input check (``sourcediff.raises``): kept as it is, a constant message."""
        self.emit(stmt)

    def stmt_Expr(self, stmt: ast.Expr) -> None:
        """A helper called for its effect on arrays; docstrings are dropped."""
        value = stmt.value
        if isinstance(value, ast.Constant):
            return
        if isinstance(value, ast.Call) and self._helper_name(value.func):
            self.emit(ast.Expr(self.simple(value)))
            return
        if isinstance(value, ast.Call) and out_keyword(value) is not None:
            self.write_out(value, stmt)
            return
        called = ast.unparse(value.func) if isinstance(value, ast.Call) else "this expression"
        raise self.fn.error(
            stmt, f"calling '{called}' for its side effects is not supported; remove the call"
        )

    def write_out(self, call: ast.Call, stmt: ast.stmt) -> None:
        """``np.multiply(x, y, out=z)`` is ``z[...] = np.multiply(x, y)``."""
        out = out_keyword(call)
        if not isinstance(out, ast.Name):
            raise self.fn.error(call, "out= must name an array; write 'z[...] = f(x)'")
        keywords = [kw for kw in call.keywords if kw.arg != "out"]
        value = ast.Call(call.func, call.args, keywords)
        target = ast.Subscript(ast.Name(out.id, ast.Load()), ast.Constant(...), ast.Store())
        self.stmt_Assign(ast.copy_location(ast.Assign([target], value), stmt))

    def stmt_Break(self, stmt: ast.Break) -> None:
        self.emit(ast.Break())

    def stmt_Assign(self, stmt: ast.Assign) -> None:
        if len(stmt.targets) > 1:
            # a = b = e: e evaluated once, then assigned to each target, left to right.
            value = self.atom(stmt.value)
            for target in stmt.targets:
                self.stmt_Assign(ast.copy_location(ast.Assign([target], value), stmt))
            return
        target = stmt.targets[0]
        if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
            self.unpack([e.id for e in target.elts], stmt.value)
        elif isinstance(target, ast.Tuple):
            # a[0], a[1] = u, v: every value first (into temporaries), then each target,
            # left to right, as Python does.
            temps = [self.new_temp() for _ in target.elts]
            self.unpack(temps, stmt.value)
            for elt, temp in zip(target.elts, temps):
                self.stmt_Assign(
                    ast.copy_location(ast.Assign([elt], ast.Name(temp, ast.Load())), stmt)
                )
        elif isinstance(target, ast.Subscript):
            element = self.element(target, ast.Store())
            self.emit(ast.Assign([element], self.atom(stmt.value)))
        else:
            self.assign_expr(target.id, stmt.value)

    def stmt_AugAssign(self, stmt: ast.AugAssign) -> None:
        if isinstance(stmt.target, ast.Subscript):
            element = self.element(stmt.target, ast.Store())
            old = self.new_temp()
            self.assign(old, ast.Subscript(element.value, element.slice, ast.Load()))
            new = self.atom(ast.BinOp(ast.Name(old, ast.Load()), stmt.op, stmt.value))
            self.emit(ast.Assign([element], new))
            return
        # x += e: in place for an array, a new value for a number; the types decide later.
        name = stmt.target.id
        update = self.atom(ast.BinOp(ast.Name(name, ast.Load()), stmt.op, stmt.value))
        current = ast.Name(name, ast.Load())
        self.assign(name, ast.Call(ast.Name("inplace_update", ast.Load()), [current, update], []))

    def element(self, subscript: ast.Subscript, ctx) -> ast.Subscript:
        """``a[i, j]`` with atom indices, on a local array name."""
        base = subscript.value
        if self._is_constant_array(base):
            if isinstance(ctx, ast.Store):
                raise self.fn.error(
                    subscript,
                    f"the module-level array '{base.id}' is read-only here; write into a copy",
                )
        elif isinstance(ctx, ast.Load) and not isinstance(base, ast.Name):
            base = self.atom(base)  # np.sum(t, axis=1)[0]: index a temporary holding it
        elif not self._is_local(base):
            raise self.fn.error(subscript, "only local arrays and arguments can be indexed")
        index = subscript.slice
        if isinstance(index, ast.Tuple):
            atoms = ast.Tuple([self.index_part(e) for e in index.elts], ast.Load())
        else:
            atoms = self.index_part(index)
        return ast.Subscript(ast.Name(base.id, ast.Load()), atoms, ctx)

    def _is_local(self, node: ast.expr) -> bool:
        """Whether ``node`` names a local variable or a temporary of the flattener."""
        return isinstance(node, ast.Name) and (node.id in self.locals or node.id in self.temps)

    def _is_constant_array(self, node: ast.expr) -> bool:
        if not isinstance(node, ast.Name) or node.id in self.locals:
            return False
        resolved = self.fn.names.get(node.id)
        return (
            resolved is not None
            and resolved.kind == "constant"
            and hasattr(resolved.value, "shape")
        )

    def index_part(self, part: ast.expr) -> ast.expr:
        """An index atom, or a slice whose bounds are atoms."""
        if isinstance(part, ast.Slice):
            bounds = [
                None if b is None else self.atom(b) for b in (part.lower, part.upper, part.step)
            ]
            return ast.Slice(*bounds)
        if is_index_select(part):  # one statement, recomputed as a whole (selects.py)
            temp = self.new_temp()
            self.emit(ast.Assign([ast.Name(temp, ast.Store())], part))
            return ast.Name(temp, ast.Load())
        return self.atom(part)

    def stmt_If(self, stmt: ast.If) -> None:
        test = self.atom(stmt.test)
        if isinstance(test, ast.Name) and test.id in _assigned_names(stmt.body + stmt.orelse):
            # The reverse sweep replays the branch from the test's value after the if.
            temp = self.new_temp()
            self.assign(temp, test)
            test = ast.Name(temp, ast.Load())
        body, orelse = self.block(stmt.body), self.block(stmt.orelse)
        if not body and orelse:  # ``if c: pass`` with an else: the else under ``not c``
            test, body, orelse = self.atom(ast.UnaryOp(ast.Not(), test)), orelse, []
        if body:  # an if of nothing but ``pass``: its test, evaluated above, is all it did
            self.emit(ast.If(test, body, orelse))

    def stmt_For(self, stmt: ast.For) -> None:
        resolved = self.fn.names.get("range")
        over_rows = getattr(stmt, "over_rows", False)  # arrays.iterate_rows wrote this range
        if not over_rows and (resolved is None or resolved.kind != "builtin"):
            raise self.fn.error(stmt, "'for' loops must run over the builtin range(...)")
        args = [self.atom(a) for a in stmt.iter.args]
        assigned = _assigned_names(stmt.body)
        bounds = [self._loop_invariant(a, assigned) for a in args]
        call = ast.Call(ast.Name("range", ast.Load()), bounds, [])
        body = self.block(stmt.body)
        if not body:
            self._drop_empty_loop(stmt)
            return
        self.emit(ast.For(ast.Name(stmt.target.id, ast.Store()), call, body, []))

    def _drop_empty_loop(self, stmt: ast.For) -> None:
        """A loop of nothing but ``pass`` does nothing, unless its variable is read later."""
        target = stmt.target.id
        loads = (n for n in ast.walk(self.fn.node) if isinstance(n, ast.Name))
        if any(n.id == target and isinstance(n.ctx, ast.Load) for n in loads):
            raise self.fn.error(
                stmt,
                f"a loop whose body is only 'pass' sets '{target}', which is read "
                "elsewhere; assign the value it should have instead",
            )

    def _loop_invariant(self, atom: ast.expr, assigned: set[str]) -> ast.expr:
        if isinstance(atom, ast.Name) and atom.id in assigned:
            copy = self.namer.fresh(f"{atom.id}_at_entry")
            self.assign(copy, atom)
            return ast.Name(copy, ast.Load())
        return atom

    def stmt_While(self, stmt: ast.While) -> None:
        running = self.namer.fresh("running")
        self.assign_expr(running, stmt.test)
        body = stmt.body
        exit_flag = _trailing_exit(body)
        inner = self.block(body[:-1] if exit_flag else body)
        if exit_flag:
            stop = [
                located(
                    ast.Assign([ast.Name(running, ast.Store())], ast.Constant(False)),
                    self.where,
                    self.fn,
                )
            ]
            saved, self.out = self.out, []
            self.assign_expr(running, stmt.test)
            recompute, self.out = self.out, saved
            inner.append(
                located(
                    ast.If(ast.Name(exit_flag, ast.Load()), stop, recompute), self.where, self.fn
                )
            )
        else:
            saved, self.out = self.out, inner
            self.assign_expr(running, stmt.test)
            self.out = saved
        self.emit(ast.While(ast.Name(running, ast.Load()), inner, []))

    def stmt_Return(self, stmt: ast.Return) -> None:
        value = stmt.value
        if value is None:
            self.emit(ast.Return(None))
        elif isinstance(value, ast.Tuple):
            self.emit(ast.Return(ast.Tuple([self.atom(e) for e in value.elts], ast.Load())))
        else:
            self.emit(ast.Return(self.atom(value)))

    # -- assignments ----------------------------------------------------------

    def assign_expr(self, target: str, value: ast.expr) -> None:
        """Emit ``target = value`` in three-address form; the operation never reads ``target``."""
        if isinstance(value, (ast.BoolOp, ast.IfExp)) or _is_chain(value):
            self.assign(target, self.atom(value))
            return
        simple = self.simple(value)
        reads_target = any(isinstance(n, ast.Name) and n.id == target for n in ast.walk(simple))
        if reads_target and not isinstance(simple, ast.Name):
            temp = self.new_temp()
            self.assign(temp, simple)
            simple = ast.Name(temp, ast.Load())
        self.assign(target, simple)

    def new_temp(self) -> str:
        name = self.namer.temp()
        self.temps.add(name)
        return name

    # -- expressions --------------------------------------------------------

    def atom(self, expr: ast.expr, operand: bool = False) -> ast.expr:
        """A name or number holding the value of ``expr``, emitting what computes it; an
        ``operand`` of arithmetic may share the temporary of an equal earlier operand."""
        if isinstance(expr, ast.BoolOp):
            return self.bool_op(expr)
        if isinstance(expr, ast.IfExp):
            return self.if_exp(expr)
        if _is_chain(expr):
            return self.chain(expr)
        simple = self.simple(expr)
        if isinstance(simple, (ast.Name, ast.Constant)):
            return simple
        pure = repeatable(simple)
        # Only operands share: a call argument or a bound value may be written into, and
        # an array expression is a new array each time it is evaluated.
        key = ast.dump(simple) if pure and operand else None
        if key in self.repeated:
            return ast.Name(self.repeated[key], ast.Load())
        temp = self.new_temp()
        self.emit(ast.Assign([ast.Name(temp, ast.Store())], simple), keeps_repeated=pure)
        if key is not None:
            self.repeated[key] = temp
        return ast.Name(temp, ast.Load())

    def simple(self, expr: ast.expr) -> ast.expr:
        """A one-operation right-hand side whose operands are atoms."""
        if isinstance(expr, (ast.BoolOp, ast.IfExp)) or _is_chain(expr):
            return self.atom(expr)
        method = getattr(self, f"expr_{type(expr).__name__}", None)
        if method is None:
            raise self.fn.error(expr, f"'{type(expr).__name__}' expression is not supported")
        return method(expr)


REPEATABLE = (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Subscript, ast.Tuple)
REPEATABLE += (ast.operator, ast.unaryop, ast.expr_context)


def repeatable(value: ast.expr) -> bool:
    """Arithmetic and element reads of atoms: the same value wherever it is repeated in a
    statement while no other statement runs (no calls, no slices: no views)."""
    return all(isinstance(n, REPEATABLE) for n in ast.walk(value))


def _is_chain(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Compare) and len(expr.ops) > 1


def _assigned_names(stmts: list[ast.stmt]) -> set[str]:
    return {
        n.id
        for s in stmts
        for n in ast.walk(s)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }


def _trailing_exit(body: list[ast.stmt]) -> str:
    """The flag of a canonical final ``if flag: break`` (see exits.py), else ''."""
    if body and isinstance(body[-1], ast.If) and isinstance(body[-1].body[0], ast.Break):
        return body[-1].test.id
    return ""
