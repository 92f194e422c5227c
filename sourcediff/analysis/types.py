"""Types of every variable, learned from Numba's own type inference.

The normalized primal is handed to Numba's type inference for the actual
argument types, so the types we differentiate with are exactly those of the
code that runs: int vs float, array rank and dtype. Versions that Numba's SSA
splits a variable into (``s``, ``s.1``) are merged; a variable that is a float
in any version is a float. Inference failing is a clear error, never a guess.
"""

from __future__ import annotations

import ast
import copy
import math
import re
from dataclasses import dataclass, field

import numba
import numpy as np
from numba.core.targetconfig import ConfigStack

from .. import codegen, runtime
from ..astnodes import walk
from ..codegen import function_source
from ..errors import TypeInferenceError
from ..normalize import NormalizedFunction
from .typing_stubs import stand_ins, with_stand_ins


@dataclass(frozen=True)
class VarType:
    """What a variable holds: ``kind`` is float, int, bool, array, tuple or other."""

    kind: str
    dtype: str = ""
    ndim: int = 0
    layout: str = "C"

    @property
    def is_float(self) -> bool:
        """Whether values of this type can carry a derivative."""
        return self.kind == "float" or (self.kind == "array" and self.dtype.startswith("float"))


@dataclass
class TypeTable:
    """Per-variable types of one normalized function for one argument signature."""

    variables: dict[str, VarType]
    result: VarType
    #: Arrays whose shape may change between loop iterations (:mod:`.shapes`); every
    #: other array keeps one shape, so its adjoint, allocated once, has that shape too.
    reshaped: frozenset[str] = frozenset()
    #: Symbolic shapes of the arrays whose shape is provably the same at every binding
    #: (:mod:`.static_shapes`).
    shapes: dict = field(default_factory=dict)

    def __getitem__(self, name: str) -> VarType:
        return self.variables.get(name, VarType("other"))

    def same_shape(self, first: str, second: str) -> bool:
        """Whether arrays ``first`` and ``second`` provably always have the same shape."""
        known = self.shapes.get(first)
        return known is not None and known == self.shapes.get(second)


#: Inferred tables by normalized source, argument types, constants and rule functions: the
#: policies, modes and "auto"'s plans of one function share one inference (a cache, the
#: pipeline's only other state; bounded, and entries are copied out).
_INFERRED: dict[tuple, TypeTable] = {}
_INFERRED_LIMIT = 256


def infer_types(nf: NormalizedFunction, arg_types: tuple) -> TypeTable:
    """Run Numba's type inference on the normalized primal for ``arg_types`` (or take the
    table of an identical earlier request)."""
    # NumPy reductions typed by stand-ins, so that typing compiles none of them.
    source, origins = function_source(with_stand_ins(nf.node), comments=False)
    constants = tuple((k, codegen.constant_text(v)) for k, v in sorted(nf.constants.items()))
    externals = tuple(sorted((k, id(v)) for k, v in nf.externals.items()))
    key = (source, tuple(map(str, arg_types)), constants, externals)
    if key not in _INFERRED:
        if len(_INFERRED) >= _INFERRED_LIMIT:
            _INFERRED.clear()
        _INFERRED[key] = _inferred(nf, arg_types, source, origins)
    return copy.deepcopy(_INFERRED[key])


_RAISE = re.compile(r"^(\s*)raise \w+\(.*\)$", re.MULTILINE)


def _inferred(nf: NormalizedFunction, arg_types: tuple, source: str, origins) -> TypeTable:
    from numba.core import registry, typed_passes
    from numba.core.compiler import run_frontend

    # abs typed as np.abs: the same for numbers, and defined for arrays (normalize.typed_calls)
    namespace = {"math": math, "np": np, "abs": np.abs, **nf.constants, **stand_ins()}
    # The helpers it calls (normalization brings in some): looking up the others would
    # make the ufuncs of ``vector_math``, a second's work the primal does not need.
    names = {n.id for n in walk(nf.node) if isinstance(n, ast.Name)}
    namespace |= {name: getattr(runtime, name) for name in runtime.HELPERS if name in names}
    namespace |= nf.externals
    filename = f"<sourcediff normalized {nf.name}>"
    # Input checks bind nothing; Numba types `raise` only after rewrites this skips.
    source = _RAISE.sub(r"\1pass", source)
    exec(compile(source, filename, "exec"), namespace)
    func = namespace[nf.node.name]  # the primal may be renamed (pipeline.primal_name)
    typing = registry.cpu_target.typing_context
    target = registry.cpu_target.target_context
    target.refresh()
    typing.refresh()
    try:
        with ConfigStack().enter(compile_flags()):
            result = typed_passes.type_inference_stage(
                typing, target, run_frontend(func), tuple(arg_types), None
            )
    except Exception as exc:  # Numba raises many error types; all mean the same to the user
        raise _located_error(exc, nf, origins) from None
    variables: dict[str, VarType] = {}
    for raw_name, numba_type in result.typemap.items():
        if raw_name.startswith(("$", "arg.")):
            continue
        name = raw_name.split(".", 1)[0]
        variables[name] = _merge(variables.get(name), to_var_type(numba_type))
    for name, value in nf.constants.items():  # module-level arrays, e.g. index arrays
        if isinstance(value, np.ndarray) and name not in variables:
            variables[name] = to_var_type(numba.typeof(value))
    return TypeTable(variables, to_var_type(result.return_type))


def compile_flags():
    """The flags Numba compiles a generated function with (compile.py's ``numba.njit``):
    what typing compiles of NumPy's implementations under them is what that compile
    links (Numba keys each implementation by the caller's flags), not compiled twice."""
    from numba.core import compiler

    dispatcher = numba.njit(cache=True, error_model="numpy")(_nothing)
    flags = compiler.Flags()
    dispatcher.targetdescr.options.parse_as_flags(flags, dispatcher.targetoptions)
    return dispatcher._compiler._customize_flags(flags)


def _nothing():
    return None


def to_var_type(numba_type) -> VarType:
    """Our VarType for a Numba type."""
    from numba.core import types

    if isinstance(numba_type, types.Literal):
        numba_type = numba_type.literal_type
    if isinstance(numba_type, types.Boolean):
        return VarType("bool", "bool")
    if isinstance(numba_type, types.Integer):
        return VarType("int", "int64")
    if isinstance(numba_type, types.Float):
        return VarType("float", str(numba_type))
    if isinstance(numba_type, types.Array):
        return VarType("array", str(numba_type.dtype), numba_type.ndim, numba_type.layout)
    if isinstance(numba_type, types.BaseTuple):  # dtype "float": it holds a float or float array
        held = [to_var_type(t) for t in numba_type]
        return VarType(
            "tuple", "float" if any(t.is_float or t.dtype == "float" for t in held) else ""
        )
    return VarType("other", str(numba_type))


def _merge(old: VarType | None, new: VarType) -> VarType:
    if old is None or old == new:
        return new
    if old.kind == new.kind == "tuple":  # holding a float in any of its bindings
        return VarType("tuple", "float" if "float" in (old.dtype, new.dtype) else "")
    if "float" in (old.kind, new.kind) and {old.kind, new.kind} <= {"float", "int", "bool"}:
        return old if old.kind == "float" else new
    return old if old.kind != "other" else new


def _located_error(exc: Exception, nf: NormalizedFunction, origins) -> TypeInferenceError:
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))  # Numba's terminal colours
    match = re.search(r"line (\d+)", text)
    filename, lineno = nf.filename, nf.node.lineno
    if match and int(match.group(1)) in origins:
        filename, lineno = origins[int(match.group(1))]
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    first = next((ln for ln in lines if not ln.startswith("Failed in")), type(exc).__name__)
    return TypeInferenceError(
        f"cannot infer the types in this function (Numba says: {first}); each variable must "
        "keep one kind (float, int, array of one rank) throughout, lists hold floats only, "
        "and the NumPy call must be one Numba supports with these arguments",
        filename,
        lineno,
    )


def check_shape_indices(nf: NormalizedFunction, types: TypeTable) -> None:
    """Refuse ``x.shape[k]`` beyond ``x``'s rank (``m, n = x.shape`` of a vector) at the
    user's line: Numba's typing lets it through, then fails compiling it.

    >>> nf = NormalizedFunction("f", "m.py", ast.parse("def f(x):\\n    n = x.shape[1]").body[0],
    ...                         ["x"], {}, {}, set(), None)
    >>> check_shape_indices(nf, TypeTable({"x": VarType("array", "float64", 1)}, VarType("int")))
    Traceback (most recent call last):
    sourcediff.errors.TypeInferenceError: m.py:2: 'x' has 1 axis here: x.shape[1] does not exist
    """
    for stmt in walk(nf.node):
        if not isinstance(stmt, ast.stmt) or isinstance(stmt, ast.FunctionDef):
            continue
        header = [getattr(stmt, "iter", None) or getattr(stmt, "test", None)]
        compound = isinstance(stmt, (ast.For, ast.While, ast.If))
        for node in header if compound else ast.iter_child_nodes(stmt):
            for sub in walk(node) if node is not None else ():
                _check_shape_index(sub, stmt, nf, types)


def _check_shape_index(sub: ast.AST, stmt: ast.stmt, nf, types: TypeTable) -> None:
    if not (isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Attribute)):
        return
    owner, index = sub.value.value, sub.slice
    if sub.value.attr != "shape" or not isinstance(owner, ast.Name):
        return
    known = types.variables.get(owner.id)
    if known is None or known.kind != "array" or not isinstance(index, ast.Constant):
        return
    if isinstance(index.value, int) and not -known.ndim <= index.value < known.ndim:
        filename, line = getattr(stmt, "origin", None) or (nf.filename, stmt.lineno)
        axes = f"{known.ndim} axis" if known.ndim == 1 else f"{known.ndim} axes"
        raise TypeInferenceError(
            f"'{owner.id}' has {axes} here: {owner.id}.shape[{index.value}] does not exist",
            filename,
            line,
        )
