"""Where a user function's source comes from, and what stands for the function.

``read_source`` reads the lines of the code that runs (a ``functools.wraps`` wrapper's
own, not the function it wraps), or those a pickled function brought along
(``remember_sources``). ``unwrap`` looks through a Numba dispatcher or ``sd.jit`` to the
Python function and refuses a derivative sourcediff made; ``calling`` writes the one-line
caller through which a function with a custom rule is differentiated. The generated
``def`` lines write the literal defaults ``literal_defaults`` picks.
"""

from __future__ import annotations

import inspect
import types
from dataclasses import dataclass

from .errors import SourceDiffError, UnsupportedCallError

CONSTANT_TYPES = (bool, int, float)


@dataclass(frozen=True)
class SourceRecord:
    """Where a function's source was read from: enough to read it again without the file.

    A function pickled by value (cloudpickle, as Dask does for ``__main__``) arrives with
    its code's file name replaced; the record travels with a pickled sourcediff function
    so that the receiving process parses exactly the source the sender parsed.
    """

    code_key: tuple
    filename: str
    lines: tuple[str, ...]
    first_line: int


#: Sources received with unpickled functions, by code key (see ``remember_sources``).
_REMEMBERED_SOURCES: dict[tuple, SourceRecord] = {}


def code_key(func) -> tuple:
    code = func.__code__
    return (code.co_name, code.co_firstlineno, code.co_code)


def remember_sources(records) -> None:
    """Make the sources of unpickled functions readable by ``parse_function``."""
    for record in records:
        _REMEMBERED_SOURCES[record.code_key] = record


def read_source(func) -> SourceRecord:
    """The source lines of ``func``, from its file or from a remembered record."""
    # The code object, not the function: inspect follows a decorator's ``__wrapped__``
    # to the function it wraps, whose code is not what runs.
    filename = inspect.getsourcefile(func.__code__) or func.__code__.co_filename
    try:
        lines, first_line = inspect.getsourcelines(func.__code__)
    except (OSError, TypeError) as exc:
        remembered = _REMEMBERED_SOURCES.get(code_key(func))
        if remembered is not None:
            return remembered
        raise SourceDiffError(
            f"cannot read the source of '{func.__name__}' ({exc}); define it in a .py file",
            filename,
        ) from None
    return SourceRecord(code_key(func), filename, tuple(lines), first_line)


def unwrap(func):
    """The plain Python function behind a Numba dispatcher or ``sd.jit``. Other wrappers
    (``functools.wraps`` decorators) are what they are: their own code runs, so their own
    source is differentiated. A derivative sourcediff made (``sd.grad(f)``) has no source
    of its own: it is refused, not mistaken for ``f``."""
    made_by = getattr(func, "sourcediff_derivative", None)
    if made_by is not None:
        code = getattr(getattr(func, "__wrapped__", None), "__code__", None)
        where = (code.co_filename, code.co_firstlineno) if code is not None else ()
        raise UnsupportedCallError(
            f"'{getattr(func, '__name__', func)}' is a derivative made by {made_by}, which "
            "sourcediff cannot differentiate or compile again; for second derivatives use "
            "sd.hessian or sd.hvp",
            *where,
        )
    for attr in ("py_func", "sourcediff_primal"):
        inner = getattr(func, attr, None)
        if inner is not None and inner is not func:
            return unwrap(inner)
    return func


def calling(custom) -> types.FunctionType:
    """A plain function calling the function with a custom rule: what ``sd.grad`` of that
    function differentiates, so that its rule applies there too (as ``jax.grad`` of a
    ``jax.custom_vjp`` function does)."""
    signature = parameter_list(list(custom.params), function_defaults(custom.func))
    name, filename = f"{custom.__name__}_call", f"<sourcediff: {custom.__name__}>"
    call = ", ".join(custom.params)
    source = f"def {name}({signature}):\n    return {custom.__name__}({call})\n"
    namespace = {custom.__name__: custom}
    exec(compile(source, filename, "exec"), namespace)
    func = namespace[name]
    lines = tuple(source.splitlines(keepends=True))
    remember_sources([SourceRecord(code_key(func), filename, lines, 1)])
    return func


def literal_defaults(params: list[str], defaults: dict[str, object]) -> dict[str, object]:
    """``defaults`` when each is a number or a bool and they are the trailing ``params``
    (what generated source can write after ``=``), else none."""
    if any(type(d) not in CONSTANT_TYPES for d in defaults.values()):
        return {}
    if params[len(params) - len(defaults) :] != [p for p in params if p in defaults]:
        return {}  # dicts of parameters were expanded
    return {p: defaults[p] for p in params if p in defaults}


def parameter_list(params: list[str], defaults: dict[str, object]) -> str:
    """``x, c=2.0``: a generated def's parameters, with their :func:`literal_defaults`."""
    literal = literal_defaults(params, defaults)
    return ", ".join(f"{p}={literal[p]!r}" if p in literal else p for p in params)


def function_defaults(func) -> dict[str, object]:
    sig = inspect.signature(func)
    return {
        p.name: p.default
        for p in sig.parameters.values()
        if p.default is not inspect.Parameter.empty
    }
