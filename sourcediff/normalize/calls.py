"""Calls in the flattener: library functions checked against their rule-table rows,
helpers, methods, and the names generated code spells differently (``np.linalg.norm`` is
``norm``). A mixin of :class:`sourcediff.normalize.flatten.Flattener`."""

from __future__ import annotations

import ast
import copy

from .. import rules
from ..errors import UnsupportedCallError
from . import arrays, einsum, rearrange, reductions


class CallFlattening:
    """The call-related ``expr_*`` handlers and name resolution of the flattener."""

    def expr_Call(self, expr: ast.Call) -> ast.expr:
        on_expression = arrays.method_on_expression(self, expr, METHODS)
        if on_expression is not None:
            return on_expression
        method = _method_call(expr, self.locals | self._array_constants())
        if method is not None:
            path, call_args = method
            return self.library_call(path, call_args, expr.keywords, expr)
        helper = self._helper_name(expr.func)
        if helper:
            args = [self.call_argument(a) for a in expr.args]
            keywords = [ast.keyword(k.arg, self.atom(k.value)) for k in expr.keywords]
            return ast.Call(ast.Name(helper, ast.Load()), args, keywords)
        return self.library_call(self._library_path(expr.func), expr.args, expr.keywords, expr)

    def tuple_result_parts(self, value: ast.expr) -> list[ast.expr] | None:
        """``[f_0(a), f_1(a)]`` for a library call with a tuple result (``np.linalg.slogdet``):
        one call per element, each with its own rule; None for any other expression."""
        if not isinstance(value, ast.Call) or self._helper_name(value.func):
            return None
        parts = TUPLE_RESULTS.get(self._raw_library_path(value.func))
        if parts is None:
            return None
        if value.keywords or len(value.args) != 1:
            raise self.fn.error(value, "this function takes one positional argument here")
        argument = self.call_argument(value.args[0])
        return [ast.Call(ast.Name(part, ast.Load()), [argument], []) for part in parts]

    def library_call(self, path: str, call_args, call_keywords, expr: ast.Call) -> ast.expr:
        """``path(args)`` for a function in the rule table, checked against its row."""
        literal = call_args[0] if call_args else None
        if path in ("np.array", "np.asarray") and isinstance(literal, (ast.List, ast.Tuple)):
            dtype = [k.value for k in call_keywords if k.arg == "dtype"]
            if len(call_args) == 1 and len(dtype) == len(call_keywords) <= 1:
                dtype = self.dtype_argument(dtype[0], expr) if dtype else None
                return arrays.array_literal(self, literal, expr, dtype)
        if path in ("np.array", "np.asarray") and len(call_args) == 1 and not call_keywords:
            copied = self.atom(literal)  # np.array(x) copies x, np.asarray(x) is x itself
            return ast.Call(path_ast("np.copy"), [copied], []) if path == "np.array" else copied
        call_keywords = [k for k in call_keywords if not _is_default(k)]
        spelled = self.spelled_otherwise(path, call_args, call_keywords, expr)
        if spelled is not None:
            return spelled
        if path == "np.einsum":
            return einsum.flatten_einsum(self, call_args, call_keywords, expr)
        args = [self.call_argument(a) for a in call_args]
        for rewrite in (reductions.rewrite_reduction, rearrange.rewrite_rearrangement):
            rewritten = rewrite(self, path, args, call_keywords, expr)
            if rewritten is not None:
                return rewritten
        if path == "np.diag" and (len(args) == 2 or call_keywords):  # an offset diagonal
            offset = args[1:] + [self.call_argument(k.value) for k in call_keywords]
            if len(offset) != 1 or any(k.arg != "k" for k in call_keywords):
                raise self.fn.error(expr, "np.diag takes an array and an offset k")
            return ast.Call(ast.Name("diag_offset", ast.Load()), [args[0], offset[0]], [])
        if path in ("np.triu", "np.tril") and len(args) == 1 and not call_keywords:
            args.append(ast.Constant(0))  # k: the row's templates pass it on
        if path == "np.arange" and 1 <= len(args) < 3 and not call_keywords:
            # Always start, stop, step: each has its own derivative rule.
            args = ([ast.Constant(0)] if len(args) == 1 else []) + args
            args.append(ast.Constant(1))
        rule = rules.lookup(path)
        if rule is None:
            raise self.fn.error(
                expr,
                f"'{path or ast.unparse(expr.func)}' has no derivative rule and no Python "
                "source; compute it with supported functions",
                UnsupportedCallError,
            )
        keywords = []
        for kw in call_keywords:
            if kw.arg == "dtype" and "dtype" in rule.params[len(args) :]:
                keywords.append(ast.keyword("dtype", self.dtype_argument(kw.value, expr)))
                continue
            if kw.arg not in rule.params[len(args) :]:
                raise self.fn.error(
                    expr, f"keyword argument '{kw.arg}' to '{path}' is not supported"
                )
            keywords.append(ast.keyword(kw.arg, self.call_argument(kw.value)))
        if not rule.min_args <= len(args) + len(keywords) <= len(rule.params):
            raise self.fn.error(
                expr, f"'{path}' takes {len(rule.params)} argument(s) here, got {len(args)}"
            )
        return ast.Call(path_ast(path), args, keywords)

    def spelled_otherwise(self, path: str, call_args, call_keywords, expr: ast.Call):
        """``np.clip`` with a bound of None (``np.maximum``/``np.minimum``), ``np.diff(x,
        n)`` (``np.diff`` n times), ``max``/``min`` of more than two numbers or of one
        array (``np.max``), ``math.hypot`` of more than two numbers,
        ``math.log(x, base)`` and ``np.where(c)`` (``np.nonzero``), in rows the table has;
        None for any other call."""
        if path in ("max", "min") and len(call_args) == 1 and not call_keywords:
            (values,) = call_args
            if isinstance(values, (ast.Tuple, ast.List)) and len(values.elts) > 1:
                return self.library_call(path, values.elts, [], expr)  # max((a, b))
            if not isinstance(values, (ast.Tuple, ast.List, ast.Starred)):
                return self.library_call(f"np.{path}", call_args, [], expr)  # over an array
        if path in ("max", "min", "math.hypot") and len(call_args) > 2 and not call_keywords:
            # max(a, b, c) is max(max(a, b), c): the same first maximum on a tie;
            # hypot(a, b, c) is hypot(hypot(a, b), c), as exact as Python's
            inner = ast.copy_location(ast.Call(copy.deepcopy(expr.func), call_args[:-1], []), expr)
            return self.library_call(path, [inner, call_args[-1]], [], expr)
        if path == "np.clip" and len(call_args) == 3 and not call_keywords:
            x, low, high = call_args
            for bound, other, instead in ((high, low, "np.maximum"), (low, high, "np.minimum")):
                if isinstance(bound, ast.Constant) and bound.value is None:
                    return self.library_call(instead, [x, other], [], expr)
        if path == "np.where" and len(call_args) == 1 and not call_keywords:
            return self.library_call("np.nonzero", call_args, [], expr)  # NumPy's own spelling
        if path == "np.diff" and (len(call_args) == 2 or call_keywords):
            return self.differences(call_args, call_keywords, expr)
        if path == "math.log" and len(call_args) == 2 and not call_keywords:
            # math.log(x, base) is log(x) / log(base), as Python computes it
            x, base = (self.library_call("math.log", [a], [], expr) for a in call_args)
            return self.atom(ast.copy_location(ast.BinOp(x, ast.Div(), base), expr))
        return None

    def differences(self, call_args, call_keywords, expr: ast.Call) -> ast.expr:
        """``np.diff(x, n, axis=k)``: ``np.diff`` n times along the last axis, else the
        difference of two slices along axis ``k`` (Numba's np.diff has no axis)."""
        given = dict(zip(("a", "n", "axis"), call_args))
        given |= {k.arg: k.value for k in call_keywords}
        if set(given) - {"a", "n", "axis"} or "a" not in given:
            raise self.fn.error(expr, "np.diff takes an array, n and axis here")
        defaults = {"n": ast.Constant(1), "axis": ast.Constant(-1)}
        times, axis = (rearrange.constant_int(given.get(k, defaults[k])) for k in ("n", "axis"))
        if times is None or times < 1 or axis is None:
            raise self.fn.error(expr, "np.diff takes its n and axis as constants (n = 1, 2, ...)")
        value = self.atom(given["a"])  # once: the slices below read it twice
        for _ in range(times):
            if axis == -1:
                temp = self.new_temp()
                self.assign(temp, self.library_call("np.diff", [value], [], expr))
                value = ast.Name(temp, ast.Load())
            else:
                later, earlier = (_along(value, axis, part) for part in ((1, None), (None, -1)))
                value = self.atom(ast.copy_location(ast.BinOp(later, ast.Sub(), earlier), expr))
        return value

    def dtype_argument(self, value: ast.expr, call: ast.Call) -> ast.expr:
        """``dtype=``: a NumPy number type, ``float``/``int``/``bool``, or ``a.dtype``."""
        builtin = {"float": "np.float64", "int": "np.int64", "bool": "np.bool_"}
        if isinstance(value, ast.Name) and value.id in builtin and value.id not in self.locals:
            return path_ast(builtin[value.id])
        if isinstance(value, ast.Attribute) and self._module_alias(value.value):
            return self.expr_Attribute(value)  # np.float64 in place: a temporary holding it
            # would be a value of no number type, which a loop's record could not hold
        if isinstance(value, (ast.Attribute, ast.Name)):
            return self.atom(value)
        raise self.fn.error(call, f"dtype={ast.unparse(value)} is not supported; use np.float64")

    def call_argument(self, arg: ast.expr) -> ast.expr:
        """An atom, or a tuple of atoms (an array shape such as ``(n, m)``)."""
        if isinstance(arg, ast.Tuple):
            return ast.Tuple([self.atom(e) for e in arg.elts], ast.Load())
        return self.atom(arg)

    # -- control-flow expressions -------------------------------------------

    def _module_alias(self, node: ast.expr) -> str:
        if isinstance(node, ast.Name) and node.id not in self.locals:
            resolved = self.fn.names.get(node.id)
            if resolved is not None and resolved.kind == "module":
                return resolved.path
        return ""

    def _helper_name(self, func: ast.expr) -> str:
        if isinstance(func, ast.Name) and func.id not in self.locals:
            resolved = self.fn.names.get(func.id)
            if resolved is not None and resolved.kind == "helper":
                return func.id
        return ""

    def _array_constants(self) -> set[str]:
        """Module-level arrays the function reads (read-only; ``W.copy()`` copies one)."""
        return {
            name
            for name, resolved in self.fn.names.items()
            if resolved.kind == "constant" and hasattr(resolved.value, "shape")
        }

    def _library_path(self, func: ast.expr) -> str:
        path = self._raw_library_path(func)
        return RENAMED.get(path, path)

    def _raw_library_path(self, func: ast.expr) -> str:
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute):
            inner = self._raw_library_path(func.value)
            return f"{inner}.{func.attr}" if inner else ""
        if isinstance(func, ast.Attribute):
            module = self._module_alias(func.value)
            return f"{module}.{func.attr}" if module else ""
        if isinstance(func, ast.Name) and func.id not in self.locals:
            resolved = self.fn.names.get(func.id)
            if resolved is not None and resolved.kind in ("function", "builtin", "custom"):
                return resolved.path
        return ""


METHODS = {
    "copy": "np.copy",
    "sum": "np.sum",
    "mean": "np.mean",
    "max": "np.max",
    "min": "np.min",
    "prod": "np.prod",
    "ravel": "np.ravel",
    "cumsum": "np.cumsum",
    "cumprod": "np.cumprod",
    "var": "np.var",
    "std": "np.std",
    "argmax": "np.argmax",
    "argmin": "np.argmin",
    "any": "np.any",
    "all": "np.all",
    "round": "np.round",
    "flatten": "flattened_copy",
    "reshape": "np.reshape",
    "dot": "dot",
    "clip": "np.clip",
    "transpose": "np.transpose",
    "trace": "np.trace",
}
# Library functions that generated code spells differently: NumPy's versions of these
# need BLAS/LAPACK (SciPy) under Numba, ours are plain loops (sourcediff.runtime).
RENAMED = {"np.dot": "dot", "np.matmul": "matmul", "np.linalg.norm": "norm"}
RENAMED |= {f"np.linalg.{name}": f"linalg_{name}" for name in ("solve", "inv", "det", "cholesky")}
RENAMED["np.cov"] = "covariance"  # rows are variables; a float for a vector
RENAMED["np.linalg.eigvalsh"] = "linalg_eigvalsh"
# NumPy's other names of the same function.
RENAMED |= {"np.amax": "np.max", "np.amin": "np.min", "np.around": "np.round"}
# Library functions with a tuple result: one function per element, each a rule row.
TUPLE_RESULTS = {"np.linalg.slogdet": ("linalg_slogdet_sign", "linalg_slogdet_logabs")}
TUPLE_RESULTS["np.linalg.eigh"] = ("linalg_eigvalsh", "linalg_eigh_vectors")


def _method_call(expr: ast.Call, local_names: set[str]):
    """``('np.copy', [a])`` for ``a.copy()``; None if ``expr`` is not such a method call."""
    func = expr.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return None
    if func.value.id not in local_names or func.attr not in METHODS:
        return None
    receiver = ast.Name(func.value.id, ast.Load())
    args = list(expr.args)
    if func.attr == "reshape" and len(args) > 1:
        args = [ast.Tuple(args, ast.Load())]
    return METHODS[func.attr], [receiver, *args]


def _is_default(keyword: ast.keyword) -> bool:
    """``axis=None`` or ``ord=None``: the same as leaving the keyword out."""
    value = keyword.value
    return (
        keyword.arg in ("axis", "ord") and isinstance(value, ast.Constant) and value.value is None
    )


def path_ast(path: str) -> ast.expr:
    if "." in path:
        module, attr = path.split(".", 1)
        return ast.Attribute(ast.Name(module, ast.Load()), attr, ast.Load())
    return ast.Name(path, ast.Load())


def _along(array: ast.expr, axis: int, bounds: tuple) -> ast.Subscript:
    """``array[:, ..., lower:upper]`` with the slice at ``axis`` (from the end if negative)."""
    part = ast.Slice(*(None if b is None else ast.Constant(b) for b in bounds))
    if axis >= 0:
        parts = [ast.Slice() for _ in range(axis)] + [part]
    else:
        parts = [ast.Constant(Ellipsis), part] + [ast.Slice() for _ in range(-axis - 1)]
    return ast.Subscript(array, ast.Tuple(parts, ast.Load()), ast.Load())
