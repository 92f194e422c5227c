"""Calling sourcediff's functions from the user's own ``@numba.njit`` code.

Numba types a global by ``typeof``; the objects ``sd.grad``, ``sd.value_and_grad``
and ``sd.jit`` return are typed as a stub function with the user function's
parameters, whose ``@overload`` specializes on Numba's argument types: it builds
(or finds in the cache) the adjoint for those types and returns a small
implementation that calls the compiled adjoint. So a gradient-descent loop
written in njit around ``sd.grad(loss)`` never returns to Python::

    df = sd.grad(loss, argnums=(0, 1))

    @numba.njit
    def descend(w, b, x, steps, lr):
        for _ in range(steps):
            gw, gb = df(w, b, x)
            w = w - lr * gw
            b = b - lr * gb
        return w, b

Inside njit code there are no argument values to plan from, so policy "auto"
stores (as it does whenever the record fits the memory budget).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np
from numba.core import types
from numba.core.registry import cpu_target
from numba.extending import overload, typeof_impl

from . import pipeline
from .errors import ArgumentError
from .jitting import helper
from .naming import Namer
from .plan import AutoPlan
from .sources import parameter_list


def register(cls) -> None:
    """Let instances of ``cls`` (with a ``numba_stub()`` method) be called from njit code."""

    @typeof_impl.register(cls)
    def _typeof(value, context):
        stub = value.numba_stub()
        if isinstance(stub, numba.core.dispatcher.Dispatcher):
            return numba.typeof(stub)
        typing = cpu_target.typing_context
        typing.refresh()  # the stub's overload was registered after the context was built
        return typing.resolve_value_type(stub)


def gradient_stub(specializer, with_value: bool):
    """A function with the user's parameters whose overload returns the gradient (and value)."""

    defaults = specializer.parsed.defaults  # njit code may leave number defaults out

    def specialize(*arg_types):
        arg_types = tuple(map(_type_of_given, arg_types))
        built, adjoint = _compiled_adjoint(specializer, tuple(map(_c_ordered, arg_types)))
        params = list(zip(specializer.params, arg_types))
        arrays = [p for p, t in params if isinstance(t, types.Array)]
        reordered = [p for p, t in params if _c_ordered(t) != t]
        read_only = {p for p, t in params if isinstance(t, types.Array) and not t.mutable}
        written_back = [p for p in built.written if p not in read_only]
        overlaps = [(p, q) for p in built.written for q in arrays if q != p]
        calling = Calling(reordered, written_back, overlaps)
        return _implementation(specializer, adjoint, with_value, calling, defaults)

    # Numba wants the stub, its typing function and the implementation to share the
    # parameters' names exactly, so all three are written out for this function.
    params = parameter_list(specializer.params, defaults)
    specialize_ = Namer(set(specializer.params)).fresh("specialize")
    namespace: dict = {specialize_: specialize}
    exec(  # noqa: S102
        f"def stub({params}):\n    raise NotImplementedError\n\n"
        f"def typing({params}):\n    return {specialize_}({', '.join(specializer.params)})\n",
        namespace,
    )
    overload(namespace["stub"], jit_options={"error_model": "numpy"})(namespace["typing"])
    # An njit function calling the stub: a dispatcher, which njit code can also receive as
    # an argument (an overloaded stub's type cannot be unboxed from Python).
    stub_ = Namer(set(specializer.params)).fresh("stub")
    called: dict = {stub_: namespace["stub"]}
    exec(  # noqa: S102
        f"def call({params}):\n    return {stub_}({', '.join(specializer.params)})\n", called
    )
    return numba.njit(called["call"])


def _compiled_adjoint(specializer, arg_types: tuple):
    for k in specializer.argnums:
        t = arg_types[k]
        if not (isinstance(t, types.Float) or _float_array(t)):
            raise ArgumentError(
                f"cannot differentiate '{specializer.params[k]}' of Numba type {t}: "
                "only floats and float arrays are differentiated",
                specializer.parsed.filename,
                specializer.parsed.node.lineno,
            )
    policy = AutoPlan(0) if specializer.policy == "auto" else specializer.policy
    request = pipeline.Request(specializer.argnums, policy, arg_types, False, specializer.fastmath)
    built = pipeline.build_adjoint_module(specializer.parsed, request)
    if built.outputs != 1 or built.result_kind != "float":
        raise ArgumentError(
            f"grad needs '{specializer.parsed.name}' to return one float",
            specializer.parsed.filename,
            specializer.parsed.node.lineno,
        )
    return built, pipeline.load(built, built.adjoint, True)


def _float_array(t) -> bool:
    return isinstance(t, types.Array) and isinstance(t.dtype, types.Float)


def _c_ordered(t):
    """Derivatives are built for C-ordered arrays (as :func:`dispatch.c_ordered` passes
    them): an array of another layout is copied on the way in."""
    return t.copy(layout="C") if isinstance(t, types.Array) and t.layout != "C" else t


@dataclass
class Calling:
    """How the stub passes arrays: ``reordered`` go in as C-ordered copies, the copies of
    ``written_back`` are written back into the caller's arrays afterwards, and each pair
    of ``overlaps`` (an array the function writes, another array) is refused if their
    memory overlaps."""

    reordered: list
    written_back: list
    overlaps: list


@helper
def memory_overlaps(a, b) -> bool:
    """Whether the bytes spanned by arrays ``a`` and ``b`` overlap (NumPy's
    ``may_share_memory``, which Numba lacks): a shared buffer, or interleaved views."""
    if a.size == 0 or b.size == 0:
        return False
    a_low, a_high = _span(a)
    b_low, b_high = _span(b)
    if not (a_low < b_high and b_low < a_high):
        return False
    # Interleaved views (two columns of one matrix): every element of each starts at its
    # first address plus a multiple of the strides' common divisor g, so the two are
    # apart when their bytes fall in disjoint places modulo g.
    g = _stride_divisor(a, _stride_divisor(b, 0))
    if g == 0:
        return True
    offset = (b.ctypes.data - a.ctypes.data) % g
    return not (offset >= a.itemsize and g - offset >= b.itemsize)


@helper
def _stride_divisor(a, g):
    for n, stride in zip(a.shape, a.strides):
        if n > 1:
            g = math.gcd(g, abs(stride))
    return g


@helper
def _span(a):
    low = high = a.ctypes.data
    for n, stride in zip(a.shape, a.strides):
        if stride > 0:
            high += stride * (n - 1)
        else:
            low += stride * (n - 1)
    return low, high + a.itemsize


def _type_of_given(t):
    """The Numba type of an argument as the typing function receives it: a type, an
    ``Omitted`` default, or the default value itself."""
    if isinstance(t, types.Omitted):
        return numba.typeof(t.value)
    return types.unliteral(t) if isinstance(t, types.Type) else numba.typeof(t)


def _implementation(specializer, adjoint, with_value: bool, calling: Calling, defaults):
    """``def impl(params): value, grads = adjoint(params, 1.0); return ...``, with the
    copies, write-backs and overlap checks of ``calling``. Its parameters are the user's
    (Numba matches them by name); every other name it uses is chosen apart from them."""
    fresh = Namer(set(specializer.params) | {"impl"}).fresh
    adjoint_, np_, overlaps_ = fresh("adjoint"), fresh("np"), fresh("memory_overlaps")
    value, grads = fresh("value"), fresh("grads")
    params = parameter_list(specializer.params, defaults)
    result_grads = f"{grads}[0]" if specializer.single else grads
    result = f"{value}, {result_grads}" if with_value else result_grads
    checks = "".join(
        f"    if {overlaps_}({p}, {q}):\n        raise ValueError("
        f"'{specializer.parsed.name} writes into {p}, which may share memory with {q}: "
        f"pass a copy')\n"
        for p, q in calling.overlaps
    )
    reordered = {p: fresh(f"{p}_c") for p in calling.reordered}
    copies = "".join(f"    {c} = {np_}.ascontiguousarray({p})\n" for p, c in reordered.items())
    passed = ", ".join(reordered.get(p, p) for p in specializer.params)
    backs = "".join(
        f"    {p}[...] = {reordered[p]}\n" for p in calling.written_back if p in reordered
    )
    source = (
        f"def impl({params}):\n{checks}{copies}    {value}, {grads} = {adjoint_}({passed}, 1.0)\n"
        f"{backs}    return {result}\n"
    )
    namespace = {adjoint_: adjoint, np_: np, overlaps_: memory_overlaps}
    exec(source, namespace)  # noqa: S102
    return namespace["impl"]
