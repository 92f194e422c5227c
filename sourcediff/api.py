"""The public transformations: grad, value_and_grad, vjp, jacobian, jvp, jit, adjoint_source.

Each wraps a user function. On a call it binds the arguments (applying
defaults), derives the argument type signature, builds (or finds in the
cache) the generated module for that signature, and calls the compiled
derivative. Specializations are kept per signature, like Numba's dispatch.
"""

from __future__ import annotations

import functools
import inspect

import numba
import numpy as np

from . import pipeline
from .errors import ArgumentError, TypeInferenceError
from .policy import budget_for, check_policy


def _normalize_argnums(argnums) -> tuple[tuple[int, ...], bool]:
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        return (argnums,), True
    if not isinstance(argnums, (tuple, list)):
        raise ArgumentError(f"argnums must be an int or a tuple of ints, got {argnums!r}")
    argnums = tuple(argnums)
    if not argnums or not all(isinstance(a, int) for a in argnums):
        raise ArgumentError(f"argnums must be an int or a non-empty tuple of ints, got {argnums!r}")
    return argnums, False


class _Transformed:
    """Common machinery: argument binding, type signatures, per-signature builds."""

    def __init__(self, func, argnums=0, policy="auto", jit=True):
        self.func = func
        self.argnums, self.single = _normalize_argnums(argnums)
        self.policy = check_policy(policy)
        self.jit = jit
        self.parsed = pipeline.parse(func)
        self.params = [a.arg for a in self.parsed.node.args.args]
        for k in self.argnums:
            if not -len(self.params) <= k < len(self.params):
                raise ArgumentError(
                    f"argnums {k} is out of range for '{self.parsed.name}' with "
                    f"{len(self.params)} parameters",
                    self.parsed.filename,
                    self.parsed.node.lineno,
                )
        self.argnums = tuple(k % len(self.params) for k in self.argnums)
        self.signature = inspect.signature(func)
        self.specializations: dict[tuple, tuple] = {}
        functools.update_wrapper(self, func)

    def bind(self, args, kwargs) -> tuple:
        """Positional arguments with defaults applied."""
        if not kwargs and len(args) == len(self.params):
            return tuple(args)
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return tuple(bound.arguments[p] for p in self.params)

    def arg_types(self, args: tuple) -> tuple:
        """Numba types of the arguments; anything but numbers and numeric arrays is refused."""
        types = []
        for name, value in zip(self.params, args):
            numba_type = _numeric_type(value)
            if numba_type is None:
                raise ArgumentError(
                    f"argument '{name}' of type {type(value).__name__} is not supported; pass "
                    "floats, ints, bools or NumPy arrays of numbers",
                    self.parsed.filename,
                    self.parsed.node.lineno,
                )
            types.append(numba_type)
        return tuple(types)

    def check_differentiable(self, args: tuple) -> None:
        for k in self.argnums:
            value = args[k]
            if isinstance(value, (bool, np.bool_)) or isinstance(value, (int, np.integer)):
                raise ArgumentError(
                    f"cannot differentiate with respect to '{self.params[k]}' (argnums {k}): it is "
                    f"{type(value).__name__} {value!r}; integer and bool arguments are never "
                    f"differentiated. Pass a float (e.g. {float(value)!r}) or drop it from argnums",
                    self.parsed.filename,
                    self.parsed.node.lineno,
                )
            if isinstance(value, np.ndarray) and value.dtype.kind == "f":
                continue
            if not isinstance(value, (float, np.floating)):
                raise ArgumentError(
                    f"cannot differentiate with respect to '{self.params[k]}': "
                    f"{type(value).__name__} is not a float",
                    self.parsed.filename,
                    self.parsed.node.lineno,
                )

    def adjoint(self, args: tuple):
        """The generated module and compiled adjoint for these arguments' types."""
        key = tuple((type(a), getattr(a, "dtype", None), getattr(a, "ndim", None)) for a in args)
        found = self.specializations.get(key)
        if found is None:
            self.check_differentiable(args)
            request = pipeline.Request(
                self.argnums, self.policy, self.arg_types(args), budget_for(self.policy)
            )
            built = pipeline.build_adjoint_module(self.parsed, request)
            found = (built, pipeline.load(built, built.adjoint, self.jit))
            self.specializations[key] = found
        return found

    def run_vjp(self, args: tuple, seeds: tuple):
        built, adjoint = self.adjoint(args)
        value, grads = adjoint(*args, *seeds)
        return built, value, tuple(_as_python(g) for g in grads)


def _numeric_type(value):
    """The Numba type of a number or numeric array, else None."""
    from numba.core import types

    try:
        numba_type = numba.typeof(value)
    except ValueError:
        return None
    if isinstance(numba_type, (types.Float, types.Integer, types.Boolean)):
        return numba_type
    if isinstance(numba_type, types.Array) and isinstance(
        numba_type.dtype, (types.Float, types.Integer, types.Boolean)
    ):
        return numba_type
    return None


def _as_python(value):
    return float(value) if isinstance(value, (float, np.floating)) else value


class _ValueAndGrad(_Transformed):
    with_value = True

    def __call__(self, *args, **kwargs):
        args = self.bind(args, kwargs)
        built, adjoint = self.adjoint(args)
        if built.outputs != 1 or built.result_kind != "float":
            raise ArgumentError(
                f"grad needs '{self.parsed.name}' to return one float, but it returns "
                f"{'a tuple' if built.outputs > 1 else 'a ' + built.result_kind}; use sd.vjp or "
                "sd.jacobian for other results",
                self.parsed.filename,
                self.parsed.node.lineno,
            )
        value, grads = adjoint(*args, 1.0)
        grads = tuple(_as_python(g) for g in grads)
        grad = grads[0] if self.single else grads
        return (_as_python(value), grad) if self.with_value else grad


class _Grad(_ValueAndGrad):
    with_value = False


def grad(func=None, argnums=0, *, policy="auto", jit=True):
    """The gradient of scalar function ``func`` with respect to argument(s) ``argnums``.

    Usable as ``sd.grad(f)``, ``sd.grad(f, argnums=(0, 1))`` or as a bare
    decorator. The result has the type of the input (a float for a float) or
    is a tuple for a tuple ``argnums``.
    """
    if func is None:
        return functools.partial(grad, argnums=argnums, policy=policy, jit=jit)
    return _Grad(func, argnums, policy, jit)


def value_and_grad(func=None, argnums=0, *, policy="auto", jit=True):
    """Like :func:`grad` but returns ``(value, gradient)``."""
    if func is None:
        return functools.partial(value_and_grad, argnums=argnums, policy=policy, jit=jit)
    return _ValueAndGrad(func, argnums, policy, jit)


def _differentiable(value) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "f"
    return isinstance(value, (float, np.floating))


def _seed_like(seed, output):
    """A cotangent converted to the type of the output it goes with."""
    if isinstance(output, np.ndarray):
        seed = np.asarray(seed, dtype=output.dtype)
        if seed.shape != output.shape:
            raise ArgumentError(
                f"a cotangent of shape {seed.shape} for an output of {output.shape}"
            )
        return seed
    return float(seed)


def _outputs_of(value) -> tuple:
    return value if isinstance(value, tuple) else (value,)


def vjp(func, *primals, policy="auto", jit=True):
    """``(out, pullback)``: ``pullback(cotangent)`` gives one cotangent per primal.

    Integer and bool primals are not differentiated; their entry is ``None``.
    For a function returning a tuple, the cotangent is a tuple of the same length;
    for an array result, an array of its shape.
    """
    float_positions = tuple(k for k, v in enumerate(primals) if _differentiable(v))
    transformed = _Transformed(func, float_positions or (0,), policy, jit)
    args = transformed.bind(primals, {})
    entry = _copies(args)  # the pullback differentiates at the values on entry
    value = _primal(func, args, jit)  # and the caller's arrays end as the function leaves them
    if not float_positions:
        return value, lambda cotangent: tuple(None for _ in primals)
    outputs = _outputs_of(value)

    def pullback(cotangent):
        if isinstance(value, tuple) and not isinstance(cotangent, (tuple, list)):
            raise ArgumentError(f"the cotangent must have {len(outputs)} components (a tuple)")
        seeds = tuple(cotangent) if isinstance(value, tuple) else (cotangent,)
        if len(seeds) != len(outputs):
            raise ArgumentError(f"the cotangent must have {len(outputs)} components")
        seeds = tuple(_seed_like(s, o) for s, o in zip(seeds, outputs))
        _, _, grads = transformed.run_vjp(_copies(entry), seeds)
        result = [None] * len(primals)
        for k, g in zip(float_positions, grads):
            result[k] = g
        return tuple(result)

    return _output(value), pullback


def _copies(args: tuple) -> tuple:
    """The arguments with every array copied (functions may write into their arrays)."""
    return tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)


def _output(value):
    if isinstance(value, tuple):
        return tuple(_as_python(v) for v in value)
    return _as_python(value)


def jacobian(func, argnums=0, mode="auto", *, policy="auto", jit=True):
    """The Jacobian of ``func`` with respect to ``argnums``.

    ``mode="reverse"`` takes one reverse sweep per output element,
    ``"forward"`` one tangent pass per input element, ``"auto"`` whichever
    needs fewer. The result for an output of shape ``S`` and an input of shape
    ``T`` has shape ``S + T`` (a float when both are scalars); a tuple result
    gives a tuple of Jacobians, a tuple ``argnums`` a tuple per output.
    """
    if mode not in ("auto", "forward", "reverse"):
        raise ArgumentError(f"mode must be 'auto', 'forward' or 'reverse', got {mode!r}")
    transformed = _Transformed(func, argnums, policy, jit)

    def jac(*args, **kwargs):
        args = transformed.bind(args, kwargs)
        transformed.check_differentiable(args)
        entry = _copies(args)
        value = _primal(func, args, jit)  # the caller's arrays end as the function leaves them
        args = entry
        outputs = _outputs_of(value)
        n_in = sum(int(np.size(args[k])) for k in transformed.argnums)
        n_out = sum(int(np.size(o)) for o in outputs)
        if mode == "forward" or (mode == "auto" and n_in < n_out):
            per_output = _jacobian_by_tangents(transformed, args, outputs)
        else:
            per_output = [
                _jacobian_of_output(transformed, args, outputs, k) for k in range(len(outputs))
            ]
        rows = [r[0] if transformed.single else r for r in per_output]
        return tuple(rows) if isinstance(value, tuple) else rows[0]

    return functools.wraps(func)(jac)


def _jacobian_by_tangents(transformed: _Transformed, args: tuple, outputs: tuple):
    """Jacobians of every output with respect to each of ``argnums``, one tangent pass
    per input element."""
    _, tangent_fn = _tangent_function(transformed, args)
    per_output = []
    blocks = [
        [np.zeros(np.shape(o) + np.shape(args[a])) for a in transformed.argnums] for o in outputs
    ]
    for which, k in enumerate(transformed.argnums):
        for index in np.ndindex(*np.shape(args[k])):
            dots = _unit(args, transformed.argnums, which, index)
            copies = tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)
            _, tangent = tangent_fn(*copies, *dots)
            tangents = tangent if isinstance(tangent, tuple) else (tangent,)
            for o, t in enumerate(tangents):
                target = blocks[o][which]
                column = (slice(None),) * (target.ndim - len(index)) + index
                target[column] = t
    for row in blocks:
        per_output.append(tuple(b if b.ndim else float(b) for b in row))
    return per_output


def _jacobian_of_output(transformed: _Transformed, args: tuple, outputs: tuple, k: int):
    """Jacobians of output ``k`` with respect to each of ``argnums``."""
    out = outputs[k]
    shape = np.shape(out)
    blocks = [np.zeros(shape + np.shape(args[a])) for a in transformed.argnums]
    for index in np.ndindex(*shape):
        seeds = []
        args_now = _copies(args)
        for j, other in enumerate(outputs):
            seed = np.zeros_like(other) if isinstance(other, np.ndarray) else 0.0
            if j == k:
                if isinstance(seed, np.ndarray):
                    seed[index] = 1.0
                else:
                    seed = 1.0
            seeds.append(seed)
        _, _, grads = transformed.run_vjp(args_now, tuple(seeds))
        for block, g in zip(blocks, grads):
            block[index] = g
    return tuple(b if b.ndim else float(b) for b in blocks)


def _tangent_function(transformed: _Transformed, args: tuple):
    """The compiled tangent (forward-mode) function of ``transformed`` for these types."""
    key = ("tangent",) + tuple(
        (type(a), getattr(a, "dtype", None), getattr(a, "ndim", None)) for a in args
    )
    found = transformed.specializations.get(key)
    if found is None:
        transformed.check_differentiable(args)
        request = pipeline.Request(transformed.argnums, "forward", transformed.arg_types(args))
        built = pipeline.build_tangent_module(transformed.parsed, request)
        found = (built, pipeline.load(built, built.adjoint, transformed.jit))
        transformed.specializations[key] = found
    return found


def _tangent_like(tangent, primal):
    if isinstance(primal, np.ndarray):
        tangent = np.asarray(tangent, dtype=primal.dtype)
        if tangent.shape != primal.shape:
            raise ArgumentError(
                f"a tangent of shape {tangent.shape} for an input of {primal.shape}"
            )
        return tangent
    return float(tangent)


def jvp(func, primals, tangents, *, policy="auto", jit=True):
    """``(out, tangent_out)``: the derivative of ``func`` at ``primals`` along ``tangents``.

    Forward mode by source transformation: one pass, tangents beside values.
    Tangents of integer and bool arguments are ignored.
    """
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise ArgumentError("primals and tangents must have the same length")
    check_policy(policy)
    positions = tuple(k for k, v in enumerate(primals) if _differentiable(v))
    transformed = _Transformed(func, positions or (0,), "auto", jit)
    args = transformed.bind(primals, {})
    if not positions:
        value = _primal(func, args, jit)
        zeros = tuple(
            np.zeros_like(v) if isinstance(v, np.ndarray) else 0.0 for v in _outputs_of(value)
        )
        return value, (zeros if isinstance(value, tuple) else zeros[0])
    _, tangent_fn = _tangent_function(transformed, args)
    dots = tuple(_tangent_like(tangents[k], args[k]) for k in positions)
    value, tangent = tangent_fn(*args, *dots)
    if isinstance(value, tuple):
        return _output(value), tuple(_as_python(t) for t in tangent)
    return _as_python(value), _as_python(tangent)


def tangent_source(func, argnums=0, *, args=None) -> str:
    """The generated forward-mode (tangent) module as readable Python source."""
    transformed = _Transformed(func, argnums, "auto", jit=False)
    args = transformed.bind(tuple(args), {}) if args is not None else _example_args(transformed)
    built, _ = _tangent_function(transformed, args)
    with open(built.path) as handle:
        return handle.read()


def hessian(func=None, argnums=0, *, jit=True):
    """The Hessian of scalar ``func`` with respect to ``argnums``, by forward over forward.

    The tangent function sourcediff generates is itself differentiated in
    forward mode; entry (i, j) is one pass with unit tangents e_i and e_j, so
    the cost is n*n evaluations for n inputs. For an int ``argnums`` the result
    has shape ``x.shape + x.shape`` (a float for a float ``x``); a tuple gives
    nested tuples of blocks.
    """
    if func is None:
        return functools.partial(hessian, argnums=argnums, jit=jit)
    first = _Transformed(func, argnums, "auto", jit)

    def hess(*args, **kwargs):
        args = first.bind(args, kwargs)
        built, _ = _tangent_function(first, args)
        if built.outputs != 1 or built.result_kind != "float":
            raise ArgumentError("hessian needs a function returning one float")
        module = pipeline.load_module(built)
        tangent_py = getattr(module, built.adjoint)
        second = _Transformed(tangent_py, first.argnums, "auto", jit)
        unit = [
            np.zeros_like(args[k]) if isinstance(args[k], np.ndarray) else 0.0
            for k in first.argnums
        ]
        extended = tuple(args) + tuple(unit)
        _, second_fn = _tangent_function(second, extended)
        blocks = [[None] * len(first.argnums) for _ in first.argnums]
        for a in range(len(first.argnums)):
            for b in range(len(first.argnums)):
                blocks[a][b] = _hessian_block(second_fn, args, first.argnums, a, b)
        if first.single:
            return blocks[0][0]
        return tuple(tuple(row) for row in blocks)

    return functools.wraps(func)(hess)


def _unit(args, argnums, which, index):
    dots = []
    for position, k in enumerate(argnums):
        dot = np.zeros_like(args[k], dtype=np.float64) if isinstance(args[k], np.ndarray) else 0.0
        if position == which:
            if isinstance(dot, np.ndarray):
                dot[index] = 1.0
            else:
                dot = 1.0
        dots.append(dot)
    return dots


def _hessian_block(second_fn, args, argnums, a, b):
    shape_a, shape_b = np.shape(args[argnums[a]]), np.shape(args[argnums[b]])
    block = np.zeros(shape_a + shape_b)
    for i in np.ndindex(*shape_a):
        first_dots = _unit(args, argnums, a, i)
        for j in np.ndindex(*shape_b):
            second_dots = _unit(args, argnums, b, j)
            copies = tuple(np.array(x, copy=True) if isinstance(x, np.ndarray) else x for x in args)
            _, (_, curvature) = second_fn(*copies, *first_dots, *second_dots)
            block[i + j] = curvature
    return block if block.ndim else float(block)


def _primal(func, args, jit):
    parsed = pipeline.parse(func)
    built = pipeline.build_primal_module(parsed)
    return pipeline.load(built, built.primal, jit)(*args)


class _Jit:
    """The normalized primal compiled with Numba (helpers inlined)."""

    def __init__(self, func):
        self.func = func
        self.parsed = pipeline.parse(func)
        self.signature = inspect.signature(func)
        self.arity = len(self.parsed.node.args.args)
        self._compiled = None
        functools.update_wrapper(self, func)

    def __call__(self, *args, **kwargs):
        if self._compiled is None:
            built = pipeline.build_primal_module(self.parsed)
            self._compiled = pipeline.load(built, built.primal, True)
        if kwargs or len(args) != self.arity:
            bound = self.signature.bind(*args, **kwargs)
            bound.apply_defaults()
            args = bound.args
        return self._compiled(*args)


def jit(func):
    """``func`` compiled with Numba in nopython mode, helpers and all."""
    return _Jit(func)


def adjoint_source(func, argnums=0, policy="auto", *, args=None) -> str:
    """The generated reverse-mode module as readable Python source.

    Derivatives are specialized to argument types; without ``args`` every
    parameter without a default is taken to be a float (and defaults keep
    their own type). Pass example ``args`` to see another specialization.
    """
    transformed = _Transformed(func, argnums, policy, jit=False)
    guessed = args is None
    if guessed:
        args = _example_args(transformed)
    args = transformed.bind(tuple(args), {})
    request = pipeline.Request(
        transformed.argnums, policy, transformed.arg_types(args), budget_for(policy)
    )
    try:
        built = pipeline.build_adjoint_module(transformed.parsed, request)
    except TypeInferenceError as exc:
        if not guessed:
            raise
        raise TypeInferenceError(
            f"{exc.reason}. Without args= the argument types were guessed from how the "
            "function uses them; pass example arguments, e.g. sd.adjoint_source(f, args=(x, n))",
            exc.filename,
            exc.lineno,
        ) from None
    with open(built.path) as handle:
        return handle.read()


def tape_size(func, *args, argnums=0, policy="auto", jit=True) -> int:
    """The bytes ``policy``'s reverse sweep will record for these arguments.

    Computed before running the derivative, by a generated function that runs
    the forward computation and counts what would be recorded (about the cost
    of one call of ``func``). Counts tapes, kept arrays, iteration states and
    snapshots; not the adjoint arrays, which are the size of the variables.
    """
    transformed = _Transformed(func, argnums, policy, jit)
    bound = transformed.bind(args, {})
    built, _ = transformed.adjoint(bound)
    counting = pipeline.load(built, built.record_bytes, jit)
    copies = tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in bound)
    return int(counting(*copies))


def _example_args(transformed: _Transformed) -> tuple:
    """Plausible arguments for showing a derivative when the user gives none.

    Defaults keep their value; a parameter that is indexed (``x[i, j]``) or asked
    for its shape becomes a float array of that rank; one used as a ``range``
    bound or as an index becomes the int 4; everything else is a float.
    """
    defaults = transformed.parsed.defaults
    uses = _parameter_uses(transformed.parsed.node)
    example = []
    for param in transformed.params:
        if param in defaults:
            example.append(defaults[param])
        elif uses.get(param, ("float",))[0] == "array":
            example.append(
                np.linspace(0.1, 0.9, 4 ** uses[param][1]).reshape((4,) * uses[param][1])
            )
        elif uses.get(param, ("float",))[0] == "int":
            example.append(4)
        else:
            example.append(0.5)
    return tuple(example)


def _parameter_uses(node) -> dict:
    import ast

    uses: dict = {}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name):
            index = sub.slice
            rank = len(index.elts) if isinstance(index, ast.Tuple) else 1
            uses[sub.value.id] = ("array", max(rank, uses.get(sub.value.id, ("", 0))[1]))
        elif isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name):
            if sub.value.id not in uses and sub.value.id not in ("np", "numpy", "math"):
                uses[sub.value.id] = ("array", 1)  # x.shape, x.copy(), x.T, ...
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name):
            if sub.func.id == "range":
                for arg in sub.args:
                    for name in ast.walk(arg):
                        if isinstance(name, ast.Name) and name.id not in uses:
                            uses[name.id] = ("int", 0)
            if sub.func.id == "len" and sub.args and isinstance(sub.args[0], ast.Name):
                uses.setdefault(sub.args[0].id, ("array", 1))
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute):
            if sub.func.attr.endswith("_like") and sub.args and isinstance(sub.args[0], ast.Name):
                uses.setdefault(sub.args[0].id, ("array", 1))
    return uses
