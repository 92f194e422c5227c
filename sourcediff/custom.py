"""Custom derivatives, shaped like JAX's: ``sd.custom_vjp`` and ``sd.custom_jvp``.

A user gives the derivative of their own function; every function that calls
it, directly or through helpers, in loops or not, uses the rule instead of
differentiating the function's body::

    @sd.custom_vjp
    def safe_norm(x):
        return math.sqrt(x[0] * x[0] + x[1] * x[1])

    def safe_norm_fwd(x):
        y = math.sqrt(x[0] * x[0] + x[1] * x[1])
        return y, (x, y)                 # value, residuals for bwd

    def safe_norm_bwd(res, g):
        x, y = res
        scale = g / y if y > 0.0 else 0.0
        return (x * scale,)              # one cotangent per argument

    safe_norm.defvjp(safe_norm_fwd, safe_norm_bwd)

A rule becomes a row of the rule table for the duration of one build
(:func:`sourcediff.rules.custom_rules`), so the emitter and the analyses read
it like any other row. Its adjoint for argument ``k`` is
``bwd(fwd(args)[1], g)[k]``: the residuals are recomputed in the reverse sweep
from the arguments, which the to-be-recorded analysis keeps, so the rule is
right under every policy. A ``custom_jvp`` rule gives forward mode
``rule(primals, tangents)[1]`` (one argument's tangent at a time, the others
zero: the rule is linear in the tangents), and reverse mode for float
arguments (a unit tangent); an array argument of a ``custom_jvp``-only function
is refused in reverse mode, as is forward mode through a ``custom_vjp``-only one.

The functions are plain numeric Python that Numba compiles
(``numba.extending.register_jitable``); functions they call must be
``@numba.njit``. Their source is part of the cache key.
"""

from __future__ import annotations

import dis
import functools
import inspect
import types

from numba.extending import register_jitable

from .custom_writes import refuse_argument_writes
from .errors import ArgumentError
from .rules import Rule


class _Custom:
    """A user function with a derivative rule attached."""

    kind = ""

    def __init__(self, func):
        if not inspect.isfunction(func):
            raise ArgumentError(f"sd.{self.kind} needs a Python function, got {func!r}")
        self.func = func
        self.params = tuple(inspect.signature(func).parameters)
        self.jitable: dict[str, object] = {}
        functools.update_wrapper(self, func)

    def __call__(self, *args):
        return self.func(*args)

    def rule_functions(self) -> dict[str, object]:
        """The functions the generated code calls, by the name it calls them."""
        raise NotImplementedError

    def externals(self) -> dict[str, object]:
        """The rule's functions made callable from Numba-compiled code (once). The
        function itself comes first: a rule that calls it (``return cube(x), (x,)``, JAX's
        idiom) reaches the compiled function, not this object."""
        if not self.jitable:
            self.jitable = {self.__name__: register_jitable(_calling_compiled(self.func))}
            for name, function in self.rule_functions().items():
                self.jitable[name] = register_jitable(_calling_compiled(function))
        return self.jitable

    def sources(self) -> list[str]:
        """The source of the function and its rule, for the cache key."""
        functions = [self.func, *self.rule_functions().values()]
        return [inspect.getsource(f) for f in functions]

    def refuse_writes(self) -> None:
        """Refuse the function or a rule function that writes into its arguments: the
        generated code calls them as opaque functions (see ``custom_writes``)."""
        refuse_argument_writes(self.func, f"the sd.{self.kind} function")
        for function in self.rule_functions().values():
            refuse_argument_writes(function, f"the sd.{self.kind} rule of '{self.__name__}',")

    def _missing(self, what: str) -> ArgumentError:
        return ArgumentError(
            f"'{self.__name__}' is a sd.{self.kind} function without its rule; call "
            f"{self.__name__}.{what} before differentiating a function that calls it"
        )


class CustomVJP(_Custom):
    """A function with a user-given vector-Jacobian product (see module docstring)."""

    kind = "custom_vjp"

    def __init__(self, func):
        super().__init__(func)
        self.fwd = self.bwd = None

    def defvjp(self, fwd, bwd) -> CustomVJP:
        """Attach ``fwd(*args) -> (out, residuals)`` and ``bwd(residuals, g) -> cotangents``."""
        _refuse_lambdas(fwd, bwd)
        self.fwd, self.bwd = fwd, bwd
        self.jitable = {}
        return self

    def rule_functions(self) -> dict[str, object]:
        if self.fwd is None:
            raise self._missing("defvjp(fwd, bwd)")
        return {self.fwd.__name__: self.fwd, self.bwd.__name__: self.bwd}

    def rule(self) -> Rule:
        """The table row: adjoints from ``bwd``, residuals recomputed by ``fwd``."""
        self.refuse_writes()
        args = ", ".join(self.params)
        residuals = f"{self.fwd.__name__}({args})[1]"
        count = len(self.params)
        adjoints = tuple(f"{self.bwd.__name__}({residuals}, g)[{k}]" for k in range(count))
        return Rule(
            self.__name__,
            self.params,
            ("1",) * count,
            adjoints=adjoints,
            forward_refusal=f"'{self.__name__}' has only a custom_vjp rule: forward mode "
            "(jvp, jacobian(mode='forward'), hessian) needs a sd.custom_jvp rule",
        )


class CustomJVP(_Custom):
    """A function with a user-given Jacobian-vector product (see module docstring)."""

    kind = "custom_jvp"

    def __init__(self, func):
        super().__init__(func)
        self.jvp = None

    def defjvp(self, jvp) -> CustomJVP:
        """Attach ``jvp(primals, tangents) -> (out, tangent_out)``."""
        _refuse_lambdas(jvp)
        self.jvp = jvp
        self.jitable = {}
        return self

    def rule_functions(self) -> dict[str, object]:
        if self.jvp is None:
            raise self._missing("defjvp(rule)")
        return {self.jvp.__name__: self.jvp}

    def rule(self) -> Rule:
        """The table row: tangents from the rule, one argument's tangent at a time."""
        self.refuse_writes()
        primals = "".join(f"{p}, " for p in self.params)

        def along(k: int, direction: str) -> str:
            parts = [direction if j == k else f"0.0 * {p}" for j, p in enumerate(self.params)]
            return f"{self.jvp.__name__}(({primals}), ({''.join(x + ', ' for x in parts)}))[1]"

        return Rule(
            self.__name__,
            self.params,
            ("1",) * len(self.params),
            adjoints=tuple(f"{along(k, '1.0')} * g" for k in range(len(self.params))),
            tangents=tuple(along(k, "tangent") for k in range(len(self.params))),
            scalar_adjoints_only=f"'{self.__name__}' has only a custom_jvp rule, which reverse "
            "mode uses for float arguments only; give it a sd.custom_vjp rule for arrays",
            summed_over_result=True,
        )


def _calling_compiled(function):
    """``function`` itself, or a copy whose globals name, in place of each custom function
    it calls (an object Numba cannot call), that function's compiled form."""
    loaded = {i.argval for i in dis.get_instructions(function) if i.opname == "LOAD_GLOBAL"}
    customs = {
        name: value
        for name in loaded  # not co_names: it holds attributes too (np.linalg.solve)
        if isinstance(value := function.__globals__.get(name), _Custom)
    }
    if not customs:
        return function
    swapped = {name: custom.externals()[custom.__name__] for name, custom in customs.items()}
    copy = types.FunctionType(
        function.__code__,
        {**function.__globals__, **swapped},
        function.__name__,
        function.__defaults__,
        function.__closure__,
    )
    return functools.update_wrapper(copy, function)


def _refuse_lambdas(*rules) -> None:
    """Rules are called by name from the generated code: a lambda has none."""
    for rule in rules:
        if getattr(rule, "__name__", "") == "<lambda>":
            raise ArgumentError("a custom rule must be a function defined with def, not a lambda")


def custom_vjp(func) -> CustomVJP:
    """Decorate ``func`` so that its derivative comes from ``func.defvjp(fwd, bwd)``."""
    return CustomVJP(func)


def custom_jvp(func) -> CustomJVP:
    """Decorate ``func`` so that its derivative comes from ``func.defjvp(rule)``."""
    return CustomJVP(func)
