"""The public transformations: grad, value_and_grad, vjp, jacobian, jvp, hessian, jit,
adjoint_source, tangent_source, tape_size.

Each wraps a user function in a :class:`~sourcediff.dispatch.Specializer`, which
builds (or finds in the cache) the generated module for each argument type
signature and calls the compiled derivative, like Numba's dispatch.
"""

from __future__ import annotations

import functools
import inspect

import numpy as np

from . import interop, pipeline
from .argument_layout import ArgumentLayout
from .dispatch import (
    Specializer,
    as_output,
    as_python,
    copies,
    differentiable,
    outputs_of,
    shaped_like,
    tangent_function,
    unpickle_with_sources,
    written_positions,
)
from .drivers import (
    SecondOrder,
    jacobian_blocks,
    seed_like,
    tangent_like,
)
from .errors import ArgumentError, ModeRefusedError, TypeInferenceError, UnsupportedValueError
from .examples import example_args, signature_args
from .outlined import outlined_text
from .policy import check_policy


class _ValueAndGrad(Specializer):
    with_value = True
    stub = None  # built on first use from njit code
    sourcediff_derivative = "sd.grad"  # no source of its own: never differentiated again

    def __call__(self, *args, **kwargs):
        given = self.bind_given(args, kwargs)
        args = self.layout.expand(given)
        built, adjoint = self.adjoint(args)
        if built.outputs != 1 or built.result_kind != "float":
            raise ArgumentError(
                f"grad needs '{self.parsed.name}' to return one float, but it returns "
                f"{'a tuple' if built.outputs > 1 else _with_article(built.result_kind)}; use "
                "sd.vjp or sd.jacobian for other results",
                self.parsed.filename,
                self.parsed.node.lineno,
            )
        value, grads = self.call(built, adjoint, args + (1.0,))
        grads = self.regroup([shaped_like(g, args[k]) for g, k in zip(grads, self.argnums)], given)
        grad = grads[0] if self.single else grads
        return (as_python(value), grad) if self.with_value else grad

    def numba_stub(self):
        """What njit code calls in place of this object (see :mod:`sourcediff.interop`)."""
        if self.stub is None:
            self.refuse_dicts("calling from @numba.njit code")
            self.refuse_options("calling from @numba.njit code")
            self.stub = interop.gradient_stub(self, self.with_value)
        return self.stub


def _with_article(kind: str) -> str:
    return ("an " if kind[:1] in "aeiou" else "a ") + kind


class _Grad(_ValueAndGrad):
    with_value = False


def grad(func=None, argnums=0, *, policy="auto", jit=True, fastmath=False):
    """The gradient of scalar function ``func`` with respect to argument(s) ``argnums``.

    Usable as ``sd.grad(f)``, ``sd.grad(f, argnums=(0, 1))`` or as a bare
    decorator. The result has the type of the input (a float for a float) or
    is a tuple for a tuple ``argnums``. ``fastmath=True`` lets Numba reassociate
    floating point (vectorized sums: faster, not bit for bit the same); every
    function below takes it too.
    """
    options = dict(policy=policy, jit=jit, fastmath=fastmath)
    if func is None:
        return functools.partial(grad, argnums=argnums, **options)
    return _Grad(func, argnums, policy, jit, fastmath)


def value_and_grad(func=None, argnums=0, *, policy="auto", jit=True, fastmath=False):
    """Like :func:`grad` but returns ``(value, gradient)``."""
    options = dict(policy=policy, jit=jit, fastmath=fastmath)
    if func is None:
        return functools.partial(value_and_grad, argnums=argnums, **options)
    return _ValueAndGrad(func, argnums, policy, jit, fastmath)


def vjp(func, *primals, policy="auto", jit=True, fastmath=False):
    """``(out, pullback)``: ``pullback(cotangent)`` gives one cotangent per primal.

    Integer and bool primals are not differentiated; their entry is ``None``.
    For a function returning a tuple, the cotangent is a tuple of the same length;
    for an array result, an array of its shape.
    """
    float_positions = tuple(k for k, v in enumerate(primals) if differentiable(v))
    transformed = Specializer(func, float_positions or (0,), policy, jit, fastmath)
    transformed.refuse_dicts("sd.vjp")
    args = transformed.bind(primals, {})
    entry = copies(args)  # the pullback differentiates at the values on entry
    value = transformed.primal(args)  # and the caller's arrays end as the function leaves them
    if not float_positions:
        return value, lambda cotangent: tuple(None for _ in primals)
    outputs = outputs_of(value)

    def pullback(cotangent):
        if isinstance(value, tuple) and not isinstance(cotangent, (tuple, list)):
            raise ArgumentError(f"the cotangent must have {len(outputs)} components (a tuple)")
        seeds = tuple(cotangent) if isinstance(value, tuple) else (cotangent,)
        if len(seeds) != len(outputs):
            raise ArgumentError(f"the cotangent must have {len(outputs)} components")
        seeds = tuple(seed_like(s, o) for s, o in zip(seeds, outputs))
        _, _, grads = transformed.run_vjp(copies(entry), seeds)
        result = [None] * len(primals)
        for k, g in zip(float_positions, grads):
            result[k] = shaped_like(g, entry[k])  # as grad gives it: a 0-d array stays one
        return tuple(result)

    return as_output(value), pullback


def jacobian(func, argnums=0, mode="auto", *, policy="auto", jit=True, fastmath=False):
    """The Jacobian of ``func`` with respect to ``argnums``.

    ``mode="reverse"`` takes one reverse sweep per output element,
    ``"forward"`` one tangent pass per input element, ``"auto"`` whichever
    needs fewer. The result for an output of shape ``S`` and an input of shape
    ``T`` has shape ``S + T`` (a float when both are scalars); a tuple result
    gives a tuple of Jacobians, a tuple ``argnums`` a tuple per output.
    """
    if mode not in ("auto", "forward", "reverse"):
        raise ArgumentError(f"mode must be 'auto', 'forward' or 'reverse', got {mode!r}")
    transformed = Specializer(func, argnums, policy, jit, fastmath)
    transformed.refuse_dicts("sd.jacobian")

    def jac(*args, **kwargs):
        args = transformed.bind(args, kwargs)
        transformed.check_differentiable(args)
        entry = copies(args)
        value = transformed.primal(args)  # the caller's arrays end as the function leaves them
        args = entry
        outputs = outputs_of(value)
        n_in = sum(int(np.size(args[k])) for k in transformed.argnums)
        n_out = sum(int(np.size(o)) for o in outputs)
        forward = mode == "forward" or (mode == "auto" and n_in < n_out)
        try:
            per_output = jacobian_blocks(transformed, args, outputs, forward)
        except ModeRefusedError:
            if mode != "auto":
                raise
            per_output = jacobian_blocks(transformed, args, outputs, not forward)  # a rule's mode
        rows = [r[0] if transformed.single else r for r in per_output]
        return tuple(rows) if isinstance(value, tuple) else rows[0]

    return _derivative(functools.wraps(func)(jac), "sd.jacobian")


def jvp(func, primals, tangents, *, policy="auto", jit=True, fastmath=False):
    """``(out, tangent_out)``: the derivative of ``func`` at ``primals`` along ``tangents``.

    Forward mode by source transformation: one pass, tangents beside values.
    Tangents of integer and bool arguments are ignored.
    """
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise ArgumentError("primals and tangents must have the same length")
    check_policy(policy)
    positions = tuple(k for k, v in enumerate(primals) if differentiable(v))
    transformed = Specializer(func, positions or (0,), "auto", jit, fastmath)
    transformed.refuse_dicts("sd.jvp")
    args = transformed.bind(primals, {})
    if not positions:
        value = transformed.primal(args)
        zeros = tuple(
            np.zeros_like(v) if isinstance(v, np.ndarray) else 0.0 for v in outputs_of(value)
        )
        return value, (zeros if isinstance(value, tuple) else zeros[0])
    built, tangent_fn = tangent_function(transformed, args)
    dots = tuple(tangent_like(tangents[k], args[k]) for k in positions)
    value, tangent = transformed.call(built, tangent_fn, args + dots)
    if isinstance(value, tuple):
        return as_output(value), tuple(as_python(t) for t in tangent)
    return as_python(value), as_python(tangent)


def tangent_source(func, argnums=0, *, args=None, signature=None) -> str:
    """The generated forward-mode (tangent) module as readable Python source; types as
    for :func:`adjoint_source`."""
    transformed = Specializer(func, argnums, "auto", jit=False)
    transformed.refuse_dicts("sd.tangent_source")
    return _generated_source(
        transformed, args, signature, lambda a: tangent_function(transformed, a)
    )


def hessian(func=None, argnums=0, *, policy="auto", jit=True, fastmath=False):
    """The Hessian of scalar ``func`` with respect to ``argnums``, reverse over forward.

    Column j is the Hessian-vector product with the unit vector e_j (see
    :func:`hvp`), so the cost is about n gradients for n inputs. For an int
    ``argnums`` the result has shape ``x.shape + x.shape`` (a float for a float
    ``x``); a tuple gives nested tuples of blocks.
    """
    if func is None:
        options = dict(policy=policy, jit=jit, fastmath=fastmath)
        return functools.partial(hessian, argnums=argnums, **options)
    second = SecondOrder(Specializer(func, argnums, policy, jit, fastmath))
    second.first.refuse_dicts("sd.hessian and sd.hvp")

    def hess(*args, **kwargs):
        args = second.first.bind(args, kwargs)
        second.first.check_differentiable(args)
        second.first.refuse_shared_memory(args)
        blocks = second.hessian(args)
        if second.first.single:
            return blocks[0][0]
        return tuple(tuple(row) for row in blocks)

    return _derivative(functools.wraps(func)(hess), "sd.hessian")


def hvp(func=None, argnums=0, *, policy="auto", jit=True, fastmath=False):
    """``hvp(f)(*args, v)``: the Hessian of scalar ``func`` times ``v``, without forming it.

    ``v`` has the shape of the argument ``argnums`` (a tuple of such for a tuple
    ``argnums``, and so is the result). One reverse sweep of the generated
    tangent function: about the cost of a few gradients.
    """
    if func is None:
        return functools.partial(hvp, argnums=argnums, policy=policy, jit=jit, fastmath=fastmath)
    second = SecondOrder(Specializer(func, argnums, policy, jit, fastmath))
    second.first.refuse_dicts("sd.hessian and sd.hvp")

    def product(*args):
        if not args:
            raise ArgumentError("hvp(f) is called as hvp(f)(*args, v)")
        first = second.first
        args, vectors = first.bind(args[:-1], {}), args[-1]
        first.check_differentiable(args)
        first.refuse_shared_memory(args)
        vectors = (vectors,) if first.single else tuple(vectors)
        if len(vectors) != len(first.argnums):
            raise ArgumentError(f"v must hold one vector per argnum ({len(first.argnums)})")
        vectors = tuple(tangent_like(v, args[k]) for v, k in zip(vectors, first.argnums))
        result = second.product(args, vectors)
        return result[0] if first.single else result

    return _derivative(functools.wraps(func)(product), "sd.hvp")


def _derivative(wrapper, made_by: str):
    """``wrapper`` marked as a derivative that ``made_by`` made: sourcediff refuses to
    differentiate it (its ``__wrapped__`` is the primal, not what it computes)."""
    wrapper.sourcediff_derivative = made_by
    return wrapper


class _Jit:
    """The normalized primal compiled with Numba (helpers inlined). Called from Python it
    is typed for the arguments (``Specializer.typed_primal``: compiled once per argument
    types and choice of options); njit code calls one untyped dispatcher."""

    def __init__(self, func, fastmath=False):
        self.func = func
        self.fastmath = bool(fastmath)
        self.parsed = pipeline.parse(func)
        self.signature = inspect.signature(func)
        self.layout = ArgumentLayout(list(self.signature.parameters), self.parsed.dict_params)
        self._untyped = None  # (dispatcher, written baked arrays), for njit callers
        has_params = bool(self.parsed.node.args.args)
        self._typed = Specializer(func, 0, "store", True, fastmath) if has_params else None
        functools.update_wrapper(self, func)
        self.sourcediff_primal = func  # what sourcediff parses when a function calls this

    def __reduce__(self):
        """Pickle as the function: the unpickling process compiles (or loads) its own."""
        records = self.parsed.source_records()
        return unpickle_with_sources, (_Jit, records, (self.func, self.fastmath))

    def numba_stub(self):
        """What njit code calls: the compiled untyped primal's own dispatcher."""
        if self.parsed.option_params:
            raise ArgumentError(
                f"'{self.parsed.name}' has options (parameters compared with strings or "
                "None), chosen per call from Python; njit code cannot call it. Wrap it in a "
                "function that fixes the options",
                self.parsed.filename,
                self.parsed.node.lineno,
            )
        return self._untyped_primal()[0]

    def _untyped_primal(self) -> tuple:
        """The untyped dispatcher, and the module arrays baked in at the positions it writes."""
        if self._untyped is None:
            built = pipeline.build_primal_module(self.parsed, self.fastmath)
            compiled = pipeline.load(built, built.primal, True)
            # Written arguments must not share memory with the module arrays baked in.
            arrays = self.parsed.module_arrays()
            params = [a.arg for a in self.parsed.node.args.args]
            written = written_positions(params, built) if arrays else []
            self._untyped = compiled, tuple((k, params[k], arrays) for k in written)
        return self._untyped

    def __call__(self, *args, **kwargs):
        if kwargs or len(args) != len(self.layout.names):
            bound = self.signature.bind(*args, **kwargs)
            bound.apply_defaults()
            args = tuple(bound.arguments.values())  # keyword-only parameters included
        args = self.layout.expand(tuple(args))
        if self._typed is not None:  # typed for these arguments: array statements fused
            return self._typed.call(*self._typed.typed_primal(args), args)
        return self._untyped_primal()[0]()  # no parameters: nothing to type


def jit(func=None, *, fastmath=False):
    """``func`` compiled with Numba in nopython mode, helpers and all (``@sd.jit`` or
    ``@sd.jit(fastmath=True)``)."""
    if func is None:
        return functools.partial(jit, fastmath=fastmath)
    return _Jit(func, fastmath)


interop.register(_ValueAndGrad)
interop.register(_Jit)


def adjoint_source(func, argnums=0, policy="auto", *, args=None, signature=None) -> str:
    """The generated reverse-mode module as readable Python source.

    Derivatives are specialized to argument types: give example ``args``, or a
    Numba ``signature`` string (``"float64[:], float64, int64"``); with neither,
    the types are guessed from how the function uses its parameters.
    """
    transformed = Specializer(func, argnums, policy, jit=False)
    return _generated_source(transformed, args, signature, transformed.adjoint)


def _generated_source(transformed: Specializer, args, signature, build) -> str:
    """The text of the module ``build(args)`` generates, for given, signed or guessed types."""
    guessed = args is None and signature is None
    if args is not None and signature is not None:
        raise ArgumentError("give args= or signature=, not both: each says the argument types")
    if args is None:
        transformed.refuse_dicts("without args=, the generated source")
    if signature is not None:
        args = signature_args(signature, transformed)
    elif guessed:
        args = example_args(transformed)
    args = transformed.bind(tuple(args), {})
    try:
        built, _ = build(args)
    except (TypeInferenceError, UnsupportedValueError) as exc:
        if not guessed:
            raise
        raise TypeInferenceError(
            f"{exc.reason}. Without args= the argument types were guessed from how the "
            "function uses them; pass example arguments (args=(x, n)) or a Numba signature "
            '(signature="float64[:], int64")',
            exc.filename,
            exc.lineno,
        ) from None
    text, helpers = pipeline.module_text(built), outlined_text(built.requires)
    return f"{text}\n\n{helpers}\n" if helpers else text


def tape_size(func, *args, argnums=0, policy="auto", jit=True) -> int:
    """The bytes ``policy``'s reverse sweep will record for these arguments.

    Computed before running the derivative, by a generated function that runs
    the forward computation and counts what would be recorded (about the cost
    of one call of ``func``). Counts tapes, kept arrays, iteration states and
    snapshots; not the adjoint arrays, which are the size of the variables.
    """
    transformed = Specializer(func, argnums, policy, jit)
    bound = transformed.bind(args, {})
    built, _ = transformed.adjoint(bound)
    return transformed.record_bytes(built, bound)
