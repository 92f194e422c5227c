"""Specialization: one user function, its argument types, its derivatives, built once each.

A :class:`Specializer` binds arguments (applying defaults), derives the Numba
type signature, plans policy "auto" for the arguments' sizes, builds (or finds
in the cache) the generated module and loads the compiled derivative. Every
public transformation in ``api`` goes through one.
"""

from __future__ import annotations

import functools
import inspect
import re
import time

import numba
import numpy as np

from . import pipeline, verify
from .argument_layout import ArgumentLayout
from .errors import ArgumentError, SourceDiffError
from .located_errors import division_error, library_error
from .normalize.small_lengths import MAX_LENGTH
from .options import PLACEHOLDER, is_option_value, option_value
from .plan import AutoPlan, snapshots_within
from .policy import check_policy, memory_budget
from .sources import remember_sources


def normalize_argnums(argnums) -> tuple[tuple[int, ...], bool]:
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        return (argnums,), True
    if not isinstance(argnums, (tuple, list)):
        raise ArgumentError(f"argnums must be an int or a tuple of ints, got {argnums!r}")
    argnums = tuple(argnums)
    if not argnums or not all(isinstance(a, int) for a in argnums):
        raise ArgumentError(f"argnums must be an int or a non-empty tuple of ints, got {argnums!r}")
    return argnums, False


def unpickle_with_sources(cls, records, args):
    """Rebuild a pickled sourcediff function: its sources first, then ``cls(*args)``.

    ``records`` are the sender's ``SourceRecord``s of the function and its helpers: a
    function pickled by value (cloudpickle, for ``__main__``) has lost its file name.
    """
    remember_sources(records)
    return cls(*args)


class Specializer:
    """Common machinery: argument binding, type signatures, per-signature builds."""

    def __init__(self, func, argnums=0, policy="auto", jit=True, fastmath=False):
        self.func = func
        self.options = (argnums, policy, jit, fastmath)
        self.fastmath = bool(fastmath)
        self.argnums, self.single = normalize_argnums(argnums)
        self.policy = check_policy(policy)
        self.jit = jit
        self.parsed = pipeline.parse(func)
        self.params = [a.arg for a in self.parsed.node.args.args]  # dicts flattened
        self.signature = inspect.signature(func)
        self.layout = ArgumentLayout(list(self.signature.parameters), self.parsed.dict_params)
        count = len(self.layout.names)
        for k in self.argnums:
            if not -count <= k < count:
                raise self.argument_error(
                    f"argnums {k} is out of range for '{self.parsed.name}' with {count} parameters"
                )
        self.user_argnums = tuple(k % count for k in self.argnums)
        self.argnums = self.layout.flat_argnums(self.user_argnums)
        self.specializations: dict[tuple, tuple] = {}
        self.plans: dict[tuple, AutoPlan] = {}  # policy "auto": plan by argument sizes
        self.by_call_key: dict[tuple, tuple] = {}  # exact argument kinds -> adjoint, see adjoint
        self.options = [k for k, p in enumerate(self.params) if p in self.parsed.option_params]
        self.bound: dict[tuple, object] = {}  # option values -> the function bound to them
        self.compiled_primal = None
        self.written_by_path: dict[str, list[int]] = {}  # see written_positions
        functools.update_wrapper(self, func)

    def __reduce__(self):
        """Pickle as the function and options: a process that unpickles it (a Dask worker)
        rebuilds from the source, and from the on-disk cache when it is shared."""
        records = self.parsed.source_records()
        return unpickle_with_sources, (type(self), records, (self.func, *self.options))

    def bind(self, args, kwargs) -> tuple:
        """Positional arguments with defaults applied, dicts of parameters expanded."""
        return self.layout.expand(self.bind_given(args, kwargs))

    def bind_given(self, args, kwargs) -> tuple:
        """The caller's arguments in the order of the parameters, defaults applied."""
        if kwargs or len(args) != len(self.layout.names):
            bound = self.signature.bind(*args, **kwargs)
            bound.apply_defaults()
            args = tuple(bound.arguments[p] for p in self.layout.names)
        return tuple(args)

    def regroup(self, grads: tuple, given: tuple) -> tuple:
        """One gradient per argnum the caller gave: a dict for a dict of parameters."""
        return self.layout.regroup(self.user_argnums, grads, given)

    def refuse_dicts(self, what: str) -> None:
        """A clear error where dicts of parameters are not supported (yet)."""
        if not self.layout.trivial:
            raise self.argument_error(
                f"{what} does not take dicts or tuples of parameters yet (only grad, "
                "value_and_grad, jit, adjoint_source with args=, tape_size); pass the arrays "
                "as arguments"
            )

    def refuse_options(self, what: str) -> None:
        """A clear error where options (strings or None chosen per call) cannot be bound."""
        if self.options:
            names = ", ".join(f"'{self.params[k]}'" for k in self.options)
            raise self.argument_error(
                f"{what} cannot choose the options {names} (compared with strings or None) "
                "per call; wrap the function in one that fixes them"
            )

    def arg_types(self, args: tuple) -> tuple:
        """Numba types of the arguments; anything but numbers and numeric arrays is refused."""
        types = []
        for name, value in zip(self.params, self.with_placeholders(args)):
            numba_type = _numeric_type(value)
            if numba_type is None:
                raise self.argument_error(
                    f"argument '{name}' of type {type(value).__name__} is not supported; pass "
                    "floats, ints, bools or NumPy arrays of numbers"
                )
            if isinstance(value, np.ndarray):
                numba_type = numba_type.copy(layout="C")  # calls pass C order: c_ordered
            types.append(numba_type)
        return tuple(types)

    def parsed_for(self, args: tuple):
        """The parsed function with its options (``sourcediff.options``) bound to the
        values in ``args``: parsed once per choice."""
        if not self.options:
            return self.parsed
        values = {self.params[k]: option_value(args[k]) for k in self.options}
        key = tuple(sorted(values.items(), key=repr))
        if key not in self.bound:
            self.bound[key] = pipeline.parse(self.func, values)
        return self.bound[key]

    def with_placeholders(self, args: tuple) -> tuple:
        """``args`` with each option's string or None replaced by what generated code takes
        in its place (it was written into the code)."""
        if not self.options:
            return args
        return tuple(
            PLACEHOLDER if k in self.options and is_option_value(a) else a
            for k, a in enumerate(args)
        )

    def check_differentiable(self, args: tuple) -> None:
        for k in self.argnums:
            value = args[k]
            if is_option_value(value):
                raise self.argument_error(
                    f"cannot differentiate with respect to '{self.params[k]}': it is "
                    f"{value!r}, an option that selects code, not a number"
                )
            if isinstance(value, (bool, np.bool_)) or isinstance(value, (int, np.integer)):
                raise self.argument_error(
                    f"cannot differentiate with respect to '{self.params[k]}' (argnums {k}): it is "
                    f"{type(value).__name__} {value!r}; integer and bool arguments are never "
                    f"differentiated. Pass a float (e.g. {float(value)!r}) or drop it from argnums"
                )
            if isinstance(value, np.ndarray) and value.dtype.kind == "f":
                continue
            if isinstance(value, (tuple, list)):
                raise self.argument_error(
                    f"cannot differentiate with respect to '{self.params[k]}', a "
                    f"{type(value).__name__}: unpack it in the function (a, b = "
                    f"{self.params[k]}) to make it a tuple of parameters, or pass an array"
                )
            if not isinstance(value, (float, np.floating)):
                raise self.argument_error(
                    f"cannot differentiate with respect to '{self.params[k]}': "
                    f"{type(value).__name__} is not a float"
                )

    def adjoint(self, args: tuple):
        """The generated module and compiled adjoint for these arguments' types (and, under
        policy "auto", for the plan their sizes call for).

        Arguments of the same types, shapes and integer values find it with one dict
        lookup: a gradient called in a loop over small problems pays microseconds here."""
        call_key = _call_key(args)
        found = self.by_call_key.get(call_key)
        if found is None:
            found = self.adjoint_for_plan(args)
            if len(self.by_call_key) >= _CALL_KEYS_KEPT:  # a loop over many sizes or steps
                self.by_call_key.clear()
            self.by_call_key[call_key] = found
        return found

    def adjoint_for_plan(self, args: tuple):
        """The specialization for these arguments' types, dimension classes and plan."""
        policy = self.planned_policy(args)
        dims = dimension_classes(args)
        key = (_type_key(args), dims, policy)
        if key not in self.specializations:
            self.specializations[key] = self.specialize(args, policy, dims)
        return self.specializations[key]

    def specialize(self, args: tuple, policy, dims=None):
        """Build (or find in the cache) and load the adjoint for ``args`` under ``policy``."""
        self.check_differentiable(args)
        verified = verify.enabled(self.jit)
        types = self.arg_types(args)
        dims = dimension_classes(args) if dims is None else dims
        request = pipeline.Request(self.argnums, policy, types, verified, self.fastmath, dims)
        built = pipeline.build_adjoint_module(self.parsed_for(args), request)
        adjoint = pipeline.load(built, built.adjoint, self.jit)
        if verified:
            shadow = pipeline.load(built, built.shadow, False)
            adjoint = functools.partial(verify.run_verified, shadow, adjoint, len(self.params))
        return built, adjoint

    def planned_policy(self, args: tuple):
        """The policy to build with: "auto" becomes the plan for these arguments' sizes."""
        if self.policy != "auto":
            return self.policy
        sizes = _size_key(args)
        if sizes not in self.plans:
            self.plans[sizes] = self.plan_auto(args)
        return self.plans[sizes]

    def plan_auto(self, args: tuple) -> AutoPlan:
        """Store, unless the exact record of these arguments exceeds the memory budget:
        then checkpoint the time loops with as many snapshots as fit half the budget."""
        stored, _ = self.specialize(args, AutoPlan(0))
        budget = memory_budget()
        if not stored.time_loops or self.record_bytes(stored, args) <= budget:
            return AutoPlan(0)
        four, eight = (
            self.record_bytes(self.specialize(args, AutoPlan(k))[0], args) for k in (4, 8)
        )
        return AutoPlan(snapshots_within(budget, max(1, (eight - four) // 4)))

    def call(self, built, function, args: tuple):
        """Run ``function`` of the generated module ``built`` (refused arguments that share
        memory with an array it writes); Numba failing to compile it is our error, not
        the user's, and is reported as such, naming the user's function."""
        written = self.written_positions(built)
        if written:
            self.refuse_shared_memory(args, written)
        first = getattr(function, "overloads", None) == {}  # a Dispatcher not compiled yet
        start = time.perf_counter()
        ordered = c_ordered(self.with_placeholders(args))
        try:
            result = function(*ordered)
        except numba.core.errors.NumbaError as exc:
            raise self.internal_error(exc) from exc
        except ZeroDivisionError as exc:  # plain Python (jit=False); compiled code gives inf
            raise division_error(exc, built.path, self.parsed) from exc
        except ValueError as exc:  # a library definition refusing its arguments' values
            located = library_error(exc, self.parsed)
            if located is None:
                raise
            raise located from exc
        write_back(args, ordered, written)
        if first:  # Numba compiled (or loaded from its disk cache) on this call
            pipeline.report_time("compile", self.parsed.name, time.perf_counter() - start)
        return result

    def written_positions(self, built=None, args: tuple = ()) -> list[int]:
        """The positions of the array parameters the function writes into, as the module
        ``built`` (by default the primal's) finds them."""
        built = built or self.primal_module(args)[0]
        found = self.written_by_path.get(built.path)
        if found is None:  # asked on every call: a gradient in a loop pays one lookup
            found = self.written_by_path[built.path] = written_positions(self.params, built)
        return found

    @functools.cached_property
    def module_arrays(self) -> dict:
        """The module-level arrays baked into the generated code (at the first call, when
        the custom rules it reads are defined)."""
        return self.parsed.module_arrays()

    def refuse_shared_memory(self, args: tuple, written=None) -> None:
        """An argument sharing memory with an array the function writes (at ``written``,
        by default as the primal finds them) would see the writes: the plain function
        reads the new values where a derivative's private copies do not. Refused."""
        for k in self.written_positions(args=args) if written is None else written:
            for j, other in enumerate(args):
                if j != k and isinstance(other, np.ndarray) and np.shares_memory(args[k], other):
                    raise shared_memory_error(self.parsed, self.params[k], self.argument_name(j))
            refuse_baked_arrays(self.parsed, self.params[k], args[k], self.module_arrays)

    def argument_error(self, message: str) -> ArgumentError:
        """A refusal of the arguments, located at the user's function."""
        return argument_error(self.parsed, message)

    def argument_name(self, position: int) -> str:
        """A parameter's name, or the cotangent or tangent that follows the parameters."""
        if position < len(self.params):
            return f"'{self.params[position]}'"
        return f"the cotangent or tangent argument {position - len(self.params)}"

    def internal_error(self, exc: Exception) -> SourceDiffError:
        """Numba failing on generated code, reported as ours, naming the user's function."""
        return SourceDiffError(
            f"internal error while differentiating '{self.parsed.name}' (During: compile): "
            f"Numba could not compile the generated derivative: {_brief(exc)}. "
            "Please report this with the function's source; jit=False runs it as Python",
            self.parsed.filename,
            self.parsed.node.lineno,
        )

    def primal_module(self, args: tuple = ()) -> tuple:
        """The primal's generated module and its function (compiled unless ``jit=False``),
        for the options in ``args``."""
        parsed = self.parsed_for(args) if args else self.parsed
        if self.compiled_primal is None or self.compiled_primal[0] is not parsed:
            built = pipeline.build_primal_module(parsed, self.fastmath)
            self.compiled_primal = parsed, (built, pipeline.load(built, built.primal, self.jit))
        return self.compiled_primal[1]

    def typed_primal(self, args: tuple) -> tuple:
        """The primal's module and function typed for ``args`` (elementwise statements fused
        into loops), compiled; the untyped primal where typing refuses what Numba compiles."""
        call_key = ("typed primal", *_call_key(args))
        if call_key in self.by_call_key:
            return self.by_call_key[call_key]
        key = ("typed primal", _type_key(args), dimension_classes(args))
        if len(self.by_call_key) >= _CALL_KEYS_KEPT:
            self.by_call_key.clear()
        self.by_call_key[call_key] = self.typed_primal_for_types(key, args)
        return self.by_call_key[call_key]

    def typed_primal_for_types(self, key: tuple, args: tuple) -> tuple:
        """:meth:`typed_primal` for the types and dimension classes in ``key``."""
        if key not in self.specializations:
            try:
                types = self.arg_types(args)
                dims = dimension_classes(args)
                request = pipeline.Request((), "store", types, False, self.fastmath, dims)
                built = pipeline.build_typed_primal_module(self.parsed_for(args), request)
                found = built, pipeline.load(built, built.primal, self.jit)
            except SourceDiffError:
                found = self.primal_module(args)
            self.specializations[key] = found
        return self.specializations[key]

    def primal(self, args: tuple):
        """The function itself at ``args``, before its derivatives are taken there."""
        return self.call(*self.primal_module(args), args)

    def record_bytes(self, built, args: tuple) -> int:
        """What the derivative in ``built`` records for ``args`` (its counting function;
        without loops, it runs in Python: a few operations, not worth a compile)."""
        counting = pipeline.load(built, built.record_bytes, self.jit and built.counting_loops)
        return int(self.call(built, counting, copies(args)))

    def run_vjp(self, args: tuple, seeds: tuple):
        built, adjoint = self.adjoint(args)
        value, grads = self.call(built, adjoint, args + tuple(seeds))
        return built, value, tuple(as_python(g) for g in grads)


def _brief(exc: Exception) -> str:
    """Numba's message on one line, without its terminal colours."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))
    return " ".join(text.split())[:400]


_CALL_KEYS_KEPT = 256


def _call_key(args: tuple) -> tuple:
    """Everything a specialization and its plan depend on, cheap to compute: per argument
    its type, and an array's dtype and shape or an integer's value (a float's value never
    matters).

    >>> _call_key((np.zeros((2, 3)), 4, 0.5))[1:]
    ((<class 'int'>, 4), <class 'float'>)
    """
    key = []
    for a in args:  # a loop, not a generator: this runs on every call
        kind = type(a)
        if kind is float:
            key.append(kind)
        elif isinstance(a, np.ndarray):
            key.append((kind, a.dtype, a.shape))
        elif isinstance(a, (int, np.integer, str)):
            key.append((kind, a))
        else:
            key.append(kind)
    return tuple(key)


def _type_key(args: tuple) -> tuple:
    """Per argument its type and an array's dtype and rank; a string's value (an option)."""
    return tuple(
        a if isinstance(a, str) else (type(a), getattr(a, "dtype", None), getattr(a, "ndim", None))
        for a in args
    )


def dimension_classes(args: tuple) -> tuple:
    """Which of the array arguments' dimensions are equal: per argument, None or one label
    per axis, equal labels for equal lengths (``(2, 3)`` and ``(3,)`` give
    ``((0, ("len", 3)), (("len", 3),))``). The derivative is specialized on it, as JAX's on
    shapes, so that elementwise statements over provably equal shapes fuse into one loop.
    A length of at most ``small_lengths.MAX_LENGTH`` that is the last axis of an argument
    of two axes or more (3 coordinates, 11 camera parameters) is labelled by its value:
    rows of such an array are split into numbers (``normalize/small_arrays.py``)."""
    small = {
        a.shape[-1]
        for a in args
        if isinstance(a, np.ndarray) and a.ndim >= 2 and 0 < a.shape[-1] <= MAX_LENGTH
    }
    labels: dict[int, object] = {n: ("len", n) for n in small}
    classes = []
    for a in args:
        if isinstance(a, np.ndarray):
            classes.append(tuple(labels.setdefault(n, len(labels)) for n in a.shape))
        else:
            classes.append(None)
    return tuple(classes)


def _size_key(args: tuple) -> tuple:
    """What a record's size depends on: array shapes, integer values, argument types."""
    key = []
    for a in args:
        if isinstance(a, np.ndarray):
            key.append((a.dtype.str, a.shape))
        elif isinstance(a, (int, np.integer, bool, np.bool_)):
            key.append((type(a).__name__, int(a)))
        else:
            key.append(a if isinstance(a, str) else type(a).__name__)  # an option's value
    return tuple(key)


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


def as_python(value):
    return float(value) if isinstance(value, (float, np.floating)) else value


def shaped_like(gradient, argument):
    """``gradient`` as API.md promises it: an ndarray of ``argument``'s shape and dtype
    for an ndarray (a 0-d array's adjoint is computed as a number), an ``np.float32`` for
    one, else as_python.

    >>> shaped_like(1.5, np.array(0.5))
    array(1.5)
    """
    if gradient.__class__ is float and argument.__class__ is float:
        return gradient  # the common case first: this runs per argument on every call
    if isinstance(argument, np.ndarray):
        if not (isinstance(gradient, np.ndarray) and gradient.shape == argument.shape):
            return np.asarray(gradient, dtype=argument.dtype).reshape(argument.shape)
        return gradient
    if isinstance(argument, np.floating) and not isinstance(argument, float):
        return type(argument)(gradient)  # np.float32 in, np.float32 out (np.float64 is a float)
    return as_python(gradient)


def differentiable(value) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "f"
    return isinstance(value, (float, np.floating))


def outputs_of(value) -> tuple:
    return value if isinstance(value, tuple) else (value,)


def copies(args: tuple) -> tuple:
    """The arguments with every array copied, in C order (functions may write into their
    arrays; derivatives are specialized to C-ordered arrays, see :func:`c_ordered`)."""
    return tuple(
        np.array(a, copy=True, order="C") if isinstance(a, np.ndarray) else a for a in args
    )


def c_ordered(args: tuple) -> tuple:
    """The arguments with every array that is not C-contiguous copied into C order.

    Derivatives are generated and compiled for C-ordered arrays only: a Fortran-ordered
    argument bound to a name that later holds a new array (``u = u0`` then
    ``u = np.tanh(u) * c``) has Numba's layout 'A', and Numba cannot allocate the result
    of an array expression of that layout. One copy on entry avoids it, and one
    specialization serves every layout.

    >>> f = np.asfortranarray(np.eye(2))
    >>> [a.flags.c_contiguous for a in c_ordered((f, 1.0)) if isinstance(a, np.ndarray)]
    [True]
    """
    for a in args:
        if isinstance(a, np.ndarray) and not a.flags.c_contiguous:
            break
    else:  # the common case, on every call: nothing to copy
        return args
    return tuple(
        np.ascontiguousarray(a) if isinstance(a, np.ndarray) and not a.flags.c_contiguous else a
        for a in args
    )


def refuse_baked_arrays(parsed, param: str, value, arrays: dict) -> None:
    """Refuse ``value``, passed as ``param`` which the function writes, when it shares
    memory with one of the module-level ``arrays``: those are baked into the generated
    module, whose copy would not see the writes."""
    for name, array in arrays.items():
        if isinstance(value, np.ndarray) and np.shares_memory(value, array):
            raise shared_memory_error(parsed, param, f"the module-level array '{name}'")


def shared_memory_error(parsed, param: str, other: str) -> ArgumentError:
    """The refusal of the written argument ``param``, sharing memory with ``other``."""
    return argument_error(
        parsed,
        f"'{param}' shares memory with {other}, and '{parsed.name}' writes into "
        f"'{param}': pass a copy (np.copy) so the derivative sees what the function reads",
    )


def argument_error(parsed, message: str) -> ArgumentError:
    """A refusal of the arguments, located at the user's function ``parsed``."""
    return ArgumentError(message, parsed.filename, parsed.node.lineno)


def written_positions(params: list[str], built) -> list[int]:
    """The positions among ``params`` of the arrays the module ``built`` writes into."""
    return [k for k, p in enumerate(params) if p in built.written]


def write_back(given: tuple, ordered: tuple, written) -> None:
    """What the function left in the C-ordered copies of the arguments at the positions
    ``written`` (those it writes into), written into the caller's arrays: the caller sees
    what the function would leave there."""
    for k in written:
        if ordered[k] is not given[k] and given[k].flags.writeable:
            given[k][...] = ordered[k]


def as_output(value):
    if isinstance(value, tuple):
        return tuple(as_python(v) for v in value)
    return as_python(value)


def tangent_function(transformed: Specializer, args: tuple):
    """The compiled tangent (forward-mode) function of ``transformed`` for these types."""
    dims = dimension_classes(args)
    key = ("tangent", dims, _type_key(args))
    found = transformed.specializations.get(key)
    if found is None:
        transformed.check_differentiable(args)
        types = transformed.arg_types(args)
        fastmath = transformed.fastmath
        request = pipeline.Request(transformed.argnums, "forward", types, False, fastmath, dims)
        built = pipeline.build_tangent_module(transformed.parsed_for(args), request)
        found = (built, pipeline.load(built, built.adjoint, transformed.jit))
        transformed.specializations[key] = found
    return found
