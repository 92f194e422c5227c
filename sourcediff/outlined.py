"""An outlined helper (``outline.py``) as generated code calls it: its compiled primal,
and ``name_vjp(args..., g)``, the tuple of its arguments' adjoint contributions.

``name_vjp`` is built on first use for the argument types it is called with:
from Numba-compiled code through an ``@overload`` (Numba gives the types; the
helper's vjp is compiled into the caller, as its primal is, so that the caller
can be cached), from Python (``jit=False``) through the plain function
(``numba.typeof`` of the values). Either way the helper's own derivative is a
generated module like any other (``pipeline.build_adjoint_module``), with respect
to its float arguments,
under policy "auto"'s store plan; an integer argument's entry is ``0.0``. The
caller's build builds it once beforehand (:meth:`OutlinedHelper.prepare`), so
that a helper sourcediff cannot differentiate is refused at its line then, not
inside Numba's compile.
"""

from __future__ import annotations

import ast
import os
from typing import TYPE_CHECKING

import numba
from numba.core import types as nbtypes
from numba.extending import overload, register_jitable

from . import compile as compile_stage
from .errors import UnsupportedSyntaxError
from .outline import rule_for
from .rule import Rule
from .transform.signature import fresh_call

if TYPE_CHECKING:
    from .parse import ParsedFunction


class OutlinedHelper:
    """A helper called through its compiled primal and generated vjp (see module
    docstring); it answers the questions the pipeline asks a ``sd.custom_vjp``."""

    kind = "outlined helper"

    def __init__(self, helper: ParsedFunction):
        self.helper = helper
        self.__name__ = helper.name
        self.func = None  # no user function object: its module arrays are its own module's
        self.count = len(helper.node.args.args)
        self.jitable: dict[str, object] = {}
        self.compiled: dict[str, object] = {}  # the vjps by module path, made jitable once
        self.builds: dict[tuple, object] = {}  # the vjps' modules by argument types
        self.fresh_result = returns_fresh(helper.node)

    def rule(self) -> Rule:
        """The table row (``outline.rule_for``)."""
        return rule_for(self.__name__, self.count)

    def rule_functions(self) -> dict[str, object]:
        return {}

    def sources(self) -> list[str]:
        """The helper's call tree, for the caller's cache key."""
        return [f"{fn.filename}:{fn.name}\n{fn.source}" for fn in self.helper.call_tree()]

    def externals(self) -> dict[str, object]:
        """The helper's primal and its vjp, callable from compiled code and from Python."""
        if not self.jitable:
            self.jitable = {self.__name__: self._primal(), f"{self.__name__}_vjp": self._vjp()}
        return self.jitable

    def prepare(self, arg_types: tuple):
        """Build (or find) the helper's derivative for ``arg_types`` now, so that a refusal
        is raised as the SourceDiffError it is; its ``pipeline.Built``."""
        return self._built(arg_types)[0]

    def _primal(self):
        from . import pipeline

        built = pipeline.build_primal_module(self.helper)
        return register_jitable(getattr(pipeline.load_module(built), built.primal))

    def _built(self, arg_types: tuple):
        """The helper's derivative module for ``arg_types`` (None when no argument is a
        float: every entry is then 0.0) and the positions it differentiates."""
        from . import pipeline
        from .plan import AutoPlan

        argnums = tuple(k for k, t in enumerate(arg_types) if _is_float(t))
        if not argnums:
            return None, argnums
        # Each call site and each compile of a caller asks again: looked up once per types,
        # cache folder and stage switches (each gives another module) in this process.
        switches = (pipeline.optimizer.enabled(), pipeline.scalarizing())
        key = (tuple(map(str, arg_types)), str(compile_stage.cache_dir()), switches)
        if key not in self.builds or not os.path.exists(self.builds[key].path):
            request = pipeline.Request(argnums, AutoPlan(0), tuple(arg_types), gradient_only=True)
            self.builds[key] = pipeline.build_adjoint_module(self.helper, request)
        return self.builds[key], argnums

    def _loaded(self, arg_types: tuple, jit: bool):
        """The helper's vjp for ``arg_types``, compiled or not, and its positions."""
        from . import pipeline

        built, argnums = self._built(arg_types)
        if built is None:
            return None, argnums
        if not jit:
            return pipeline.load(built, built.adjoint, jit=False), argnums
        # Compiled into each caller (as the primal is), not called as a dispatcher of its
        # own: a caller calling a dispatcher made at run time cannot be cached at NUMBA_OPT=0.
        if built.path not in self.compiled:
            module = pipeline.load_module(built)
            self.compiled[built.path] = register_jitable(getattr(module, built.adjoint))
        return self.compiled[built.path], argnums

    def _vjp(self):
        """``name_vjp``: a plain function with a Numba overload."""
        params = ", ".join(f"a{k}" for k in range(self.count))
        text = f"def {self.__name__}_vjp({params}, g):\n    return call(({params},), g)\n"
        namespace = {"call": self._call_from_python}
        exec(text, namespace)
        stub = namespace[f"{self.__name__}_vjp"]
        typer_text = f"def typer({params}, g):\n    return implement(({params},))\n"
        typer_namespace = {"implement": self._implementation}
        exec(typer_text, typer_namespace)
        overload(stub)(typer_namespace["typer"])
        return stub

    def _call_from_python(self, args: tuple, g):
        arg_types = tuple(nbtypes.unliteral(numba.typeof(a)) for a in args)
        vjp, argnums = self._loaded(arg_types, jit=False)
        bars = vjp(*args, g) if argnums else ()
        return tuple(bars[argnums.index(k)] if k in argnums else 0.0 for k in range(self.count))

    def _implementation(self, arg_types: tuple):
        """The compiled body for these Numba types: the vjp's contributions, one per
        argument."""
        arg_types = tuple(nbtypes.unliteral(t) for t in arg_types)
        vjp, argnums = self._loaded(arg_types, jit=True)
        params = ", ".join(f"a{k}" for k in range(self.count))
        entries = [
            f"bars[{argnums.index(k)}]" if k in argnums else "0.0" for k in range(self.count)
        ]
        body = f"bars = vjp({params}, g)\n    " if argnums else ""
        text = f"def implementation({params}, g):\n    {body}return ({', '.join(entries)},)\n"
        namespace = {"vjp": vjp}
        exec(text, namespace)
        return namespace["implementation"]


def _is_float(numba_type) -> bool:
    if isinstance(numba_type, nbtypes.Array):
        return isinstance(numba_type.dtype, nbtypes.Float)
    return isinstance(numba_type, nbtypes.Float)


def prepare_outlined(node, types, customs: dict) -> None:
    """Build the derivative of each outlined helper ``node`` calls with a float result
    and a float argument, for the argument types of each call (``types``, the caller's
    table), before anything compiles; mark each call with the argument whose shape its
    result has (``call.shape_of``) and the helper's generated module
    (``call.helper_module``, see :func:`required_modules`)."""
    for stmt in ast.walk(node):
        call = stmt.value if isinstance(stmt, ast.Assign) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
            continue
        helper = customs.get(call.func.id)
        if not isinstance(helper, OutlinedHelper) or not _float_result(stmt, types):
            continue
        arg_types = tuple(_argument_type(a, types) for a in call.args)
        if any(_holds_floats(a, types) for a in call.args):
            raise UnsupportedSyntaxError(  # its elements would get no adjoint
                f"'{helper.__name__}' is called here with a tuple passed on from another "
                "helper: pass the tuple's elements as separate arguments",
                *getattr(stmt, "origin", ("", getattr(stmt, "lineno", 0))),
            )
        if any(map(_is_float, arg_types)):
            built = helper.prepare(arg_types)
            call.shape_of = built.shape_of  # read by the shape analyses
            call.shape_only = built.shape_only  # read by adjoint_terms.py
            call.fresh_result = helper.fresh_result  # read by analysis/sharing.py
            call.helper_module = os.path.basename(built.path)


def returns_fresh(function: ast.FunctionDef) -> bool:
    """Whether every ``return`` of ``function`` gives a new array or a number: arithmetic,
    or a name that each of its bindings binds to arithmetic or to a new array
    (``out = np.empty(n)``). Its result then shares memory with nothing of the caller's.

    >>> returns_fresh(ast.parse("def f(u):\\n    out = np.empty(3)\\n    return out").body[0])
    True
    >>> returns_fresh(ast.parse("def f(u):\\n    out = u[1:]\\n    return out").body[0])
    False
    """
    returns = [n.value for n in ast.walk(function) if isinstance(n, ast.Return)]
    if not returns or any(value is None for value in returns):
        return False
    bindings: dict[str, list] = {}
    for node in ast.walk(function):
        if isinstance(node, (ast.For, ast.AugAssign, ast.AnnAssign, ast.With)):
            for name in ast.walk(getattr(node, "target", node)):
                if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                    bindings.setdefault(name.id, []).append(None)  # not a plain binding
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                value = node.value if isinstance(target, ast.Name) else None
                for name in ast.walk(target):
                    if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                        bindings.setdefault(name.id, []).append(value)
    params = {a.arg for a in function.args.args}

    def fresh(value) -> bool:
        return isinstance(value, (ast.BinOp, ast.UnaryOp)) or fresh_call(value)

    def fresh_name(value) -> bool:
        if not isinstance(value, ast.Name) or value.id in params:
            return False
        found = bindings.get(value.id, [])
        return bool(found) and all(v is not None and fresh(v) for v in found)

    return all(fresh(value) or fresh_name(value) for value in returns)


def _holds_floats(arg, types) -> bool:
    """Whether ``arg`` is a tuple holding a float or a float array."""
    if isinstance(arg, ast.Tuple):
        return any(_holds_floats(e, types) or _is_float(_argument_type(e, types)) for e in arg.elts)
    return (
        isinstance(arg, ast.Name)
        and types[arg.id].kind == "tuple"
        and types[arg.id].dtype == "float"
    )


def _float_result(stmt, types) -> bool:
    target = stmt.targets[0]
    return isinstance(target, ast.Name) and types[target.id].is_float


def required_modules(node) -> list[str]:
    """The file names of the outlined helpers' generated modules ``node`` calls: the
    caller's compiled code, loaded from Numba's cache, refers to their functions, which
    must be imported first (``pipeline.import_required``)."""
    return sorted({c.helper_module for c in ast.walk(node) if hasattr(c, "helper_module")})


def _argument_type(arg, types):
    """The Numba type of a call's argument (a name or a constant), or None."""
    if isinstance(arg, ast.Constant):
        return numba.typeof(arg.value) if isinstance(arg.value, (int, float)) else None
    if not isinstance(arg, ast.Name):
        return None
    known = types[arg.id]
    scalar = {"float": known.dtype or "float64", "int": "int64", "bool": "boolean"}
    if known.kind in scalar:
        return getattr(nbtypes, scalar[known.kind], None)
    if known.kind == "array":
        dtype = getattr(nbtypes, known.dtype, None)
        return None if dtype is None else nbtypes.Array(dtype, known.ndim, known.layout)
    return None


def shape_only_params(vjp: ast.FunctionDef, params: list[str]) -> list[int]:
    """Positions of the parameters whose values the generated ``vjp`` never reads: each
    use is a shape (``p.shape``, ``np.zeros_like(p)``, ``np.empty_like(p)``) or a copy
    ``w = np.copy(p)`` used only so. A helper that fills the buffer it is given
    (``outline_writes.py``) reads its old contents for their shape alone, and the caller
    then need not record them.

    >>> fn = ast.parse("def f_vjp(x, out, g):\\n    w = np.copy(out)\\n"
    ...                "    w_bar = np.zeros_like(w)\\n    return (x * g, w_bar)").body[0]
    >>> shape_only_params(fn, ["x", "out"])
    [1]
    """
    uses: dict[str, list] = {}
    parents = {id(c): p for p in ast.walk(vjp) for c in ast.iter_child_nodes(p)}
    for node in ast.walk(vjp):
        if isinstance(node, ast.Name):
            uses.setdefault(node.id, []).append((node, parents.get(id(node))))

    def shape_only(name: str, copies: bool) -> bool:
        stores = [n for n, _ in uses.get(name, []) if not isinstance(n.ctx, ast.Load)]
        if len(stores) != (0 if copies else 1):  # a parameter never rebound; a copy bound once
            return False
        for node, parent in uses.get(name, []):
            if not isinstance(node.ctx, ast.Load):
                continue
            if isinstance(parent, ast.Attribute) and parent.attr == "shape":
                continue
            call = parent if isinstance(parent, ast.Call) and node in parent.args else None
            path = ast.unparse(call.func) if call is not None else ""
            if path in ("np.zeros_like", "np.empty_like") and len(call.args) == 1:
                continue
            if copies and path == "np.copy" and _copied_into_shape_only(call, parents, shape_only):
                continue
            return False
        return True

    return [k for k, p in enumerate(params) if p in uses and shape_only(p, True)]


def _copied_into_shape_only(call: ast.Call, parents: dict, shape_only) -> bool:
    """Whether ``call`` is the value of ``w = np.copy(p)`` with ``w`` bound once and read
    for its shape alone."""
    stmt = parents.get(id(call))
    if not (isinstance(stmt, ast.Assign) and stmt.value is call and len(stmt.targets) == 1):
        return False
    target = stmt.targets[0]
    return isinstance(target, ast.Name) and shape_only(target.id, False)


def result_shape_of(node, types, params: list[str]) -> int | None:
    """The position of the parameter whose shape the returned array provably has (an
    outlined helper's call then has that argument's shape for its caller), or None."""
    last = node.body[-1] if node.body else None
    if not (isinstance(last, ast.Return) and isinstance(last.value, ast.Name)):
        return None
    shape = types.shapes.get(last.value.id)
    if types.result.kind != "array" or not shape:
        return None
    return next((k for k, p in enumerate(params) if types.shapes.get(p) == shape), None)


def import_required(meta: dict) -> None:
    """Import the outlined helpers' modules a derivative's compiled code refers to (and
    theirs), so that Numba's cache can load it; one that is gone is rebuilt on compile."""
    for name in meta.get("requires", ()):
        path = compile_stage.cache_dir() / name
        required = compile_stage.cached_meta(path)
        if required is not None:
            compile_stage.import_module(path)
            import_required(required)


def outlined_text(requires: tuple) -> str:
    """The derivatives of the outlined helpers in the modules ``requires`` names (and those
    they call), as they read in their own generated modules, for ``sd.adjoint_source``."""
    parts = []
    for name in requires:
        path = compile_stage.cache_dir() / name
        text, meta = compile_stage.read_module(path), compile_stage.cached_meta(path)
        if text is None or meta is None:
            continue
        tree = ast.parse(text)
        vjp = next(
            f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name.endswith("_vjp")
        )
        helper = vjp.name.removesuffix("_vjp")
        lines = text.splitlines()[vjp.lineno - 1 : vjp.end_lineno]
        parts.append(
            f"# The outlined helper '{helper}', from its own generated module: the calls above "
            f"of {vjp.name}(args..., g)\n# give this function's adjoints, one entry per "
            "argument (0.0 for an integer one).\n\n" + "\n".join(lines)
        )
        parts.append(outlined_text(tuple(meta.get("requires", ()))))
    return "\n\n\n".join(p for p in parts if p)
