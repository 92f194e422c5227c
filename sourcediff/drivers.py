"""Drivers that call generated derivatives many times: Jacobians and Hessians."""

from __future__ import annotations

import ast
import contextlib
import inspect
import os
import re
from pathlib import Path

import numba
import numpy as np

from . import batch, pipeline
from .dispatch import Specializer, c_ordered, copies, tangent_function
from .errors import ArgumentError, SourceDiffError, UnsupportedCallError
from .progress import Progress


def seed_like(seed, output):
    """A cotangent converted to the type of the output it goes with."""
    if isinstance(output, np.ndarray):
        seed = np.asarray(seed, dtype=output.dtype)
        if seed.shape != output.shape:
            raise ArgumentError(
                f"a cotangent of shape {seed.shape} for an output of {output.shape}"
            )
        return seed
    return _float(seed, "a cotangent", "output")


def _float(value, what: str, of: str) -> float:
    """``value`` as the float a float ``of`` needs, or an ArgumentError saying why not."""
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ArgumentError(f"{what} for a float {of} must be a number, got {value!r}") from None


def tangent_like(tangent, primal):
    if isinstance(primal, np.ndarray):
        tangent = np.asarray(tangent, dtype=primal.dtype)
        if tangent.shape != primal.shape:
            raise ArgumentError(
                f"a tangent of shape {tangent.shape} for an input of {primal.shape}"
            )
        return tangent
    return _float(tangent, "a tangent", "input")


def jacobian_blocks(transformed: Specializer, args: tuple, outputs: tuple, forward: bool):
    """Per output, the Jacobian blocks with respect to each of ``argnums``: every direction
    swept in one compiled call (:mod:`sourcediff.batch`) when the values are float64, else
    one call per direction."""
    argnums = transformed.argnums
    if not batch.batchable(args, argnums, outputs):
        if forward:
            return jacobian_by_tangents(transformed, args, outputs)
        return [jacobian_of_output(transformed, args, outputs, k) for k in range(len(outputs))]
    if forward:
        _, derivative = tangent_function(transformed, args)
        sweep = batch.forward_jacobian
    else:
        _, derivative = transformed.adjoint(args)
        sweep = batch.reverse_jacobian
    try:
        return sweep(derivative, c_ordered(args), argnums, outputs, transformed.jit)
    except numba.core.errors.NumbaError as exc:
        raise transformed.internal_error(exc) from exc


def jacobian_by_tangents(transformed: Specializer, args: tuple, outputs: tuple):
    """Jacobians of every output with respect to each of ``argnums``, one tangent pass
    per input element."""
    _, tangent_fn = tangent_function(transformed, args)
    per_output = []
    blocks = [[jacobian_block(o, args[a]) for a in transformed.argnums] for o in outputs]
    total = sum(int(np.prod(np.shape(args[k]))) for k in transformed.argnums)
    label = f"Jacobian of {transformed.parsed.name}, forward passes"
    with Progress(label, total) as progress:
        done = 0
        for which, k in enumerate(transformed.argnums):
            for index in np.ndindex(*np.shape(args[k])):
                dots = unit_tangents(args, transformed.argnums, which, index)
                _, tangent = tangent_fn(*copies(args), *dots)
                tangents = tangent if isinstance(tangent, tuple) else (tangent,)
                for o, t in enumerate(tangents):
                    target = blocks[o][which]
                    column = (slice(None),) * (target.ndim - len(index)) + index
                    target[column] = t
                done += 1
                progress.update(done)
    for row in blocks:
        per_output.append(tuple(b if b.ndim else float(b) for b in row))
    return per_output


def jacobian_of_output(transformed: Specializer, args: tuple, outputs: tuple, k: int):
    """Jacobians of output ``k`` with respect to each of ``argnums``."""
    out = outputs[k]
    shape = np.shape(out)
    blocks = [jacobian_block(out, args[a]) for a in transformed.argnums]
    label = f"Jacobian of {transformed.parsed.name}, reverse passes of output {k}"
    with Progress(label, int(np.prod(shape))) as progress:
        for done, index in enumerate(np.ndindex(*shape), 1):
            _jacobian_row(transformed, args, outputs, k, index, blocks)
            progress.update(done)
    return tuple(b if b.ndim else float(b) for b in blocks)


def jacobian_block(output, argument) -> np.ndarray:
    """Zeros for d ``output`` / d ``argument``: of shape ``output.shape + argument.shape``
    and, as in JAX, of their common float dtype (float32 for float32 in and out)."""
    dtype = np.result_type(np.asarray(output).dtype, np.asarray(argument).dtype)
    if not np.issubdtype(dtype, np.floating):
        dtype = np.float64
    return np.zeros(np.shape(output) + np.shape(argument), dtype)


def _jacobian_row(transformed, args, outputs, k, index, blocks):
    """One reverse pass: the gradients of ``outputs[k][index]`` into ``blocks[:][index]``."""
    seeds = []
    for j, other in enumerate(outputs):
        seed = np.zeros_like(other) if isinstance(other, np.ndarray) else 0.0
        if j == k:
            if isinstance(seed, np.ndarray):
                seed[index] = 1.0
            else:
                seed = 1.0
        seeds.append(seed)
    _, _, grads = transformed.run_vjp(copies(args), tuple(seeds))
    for block, g in zip(blocks, grads):
        block[index] = g


def unit_tangents(args, argnums, which, index):
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


def _refuse_custom_rules(parsed) -> None:
    """A Hessian differentiates the tangent code, which calls a custom rule's own
    function; the rule gives no derivative of itself, so it is refused, not guessed."""
    customs = sorted(parsed.customs())
    if customs:
        raise UnsupportedCallError(
            f"sd.hessian and sd.hvp differentiate the derivative of '{parsed.name}', which "
            f"calls '{customs[0]}' with a user derivative rule; second derivatives through "
            "sd.custom_vjp and sd.custom_jvp rules are not supported; take them of a "
            "version of the function that calls no rule",
            parsed.filename,
            parsed.node.lineno,
        )


class SecondOrder:
    """Hessian-vector products by reverse over forward.

    The tangent function sourcediff generates for ``f``, ``(x, x_dot) -> (f(x),
    f'(x) x_dot)``, is itself plain Python in the accepted subset; its gradient
    with respect to ``x`` at fixed ``x_dot = v`` is ``H v``. One product costs
    one reverse sweep of the tangent function (a few gradients), so a Hessian
    of n inputs costs about n gradients.
    """

    def __init__(self, first: Specializer):
        _refuse_custom_rules(first.parsed)
        self.first = first
        self.second: dict[tuple, Specializer] = {}
        self.tangent = None  # the generated tangent function last differentiated

    def specializer(self, args: tuple) -> Specializer:
        """The reverse-mode specializer of the tangent function for these argument types."""
        built, _ = tangent_function(self.first, args)
        if built.outputs != 1 or built.result_kind != "float":
            raise ArgumentError(
                f"a Hessian needs '{self.first.parsed.name}' to return one float",
                self.first.parsed.filename,
                self.first.parsed.node.lineno,
            )
        key = (built.path, built.adjoint)
        self.tangent = getattr(pipeline.load_module(built), built.adjoint)  # for refusals
        if key not in self.second:
            tangent = self.tangent
            first = self.first
            self.second[key] = Specializer(
                tangent, first.argnums, first.policy, first.jit, first.fastmath
            )
        return self.second[key]

    def product(self, args: tuple, vectors: tuple) -> tuple:
        """``H v`` for each of ``argnums``: ``vectors`` holds one tangent per argnum."""
        with self.located_at_user():
            second = self.specializer(args)
            plain = copies(self.first.with_placeholders(args))  # options are in the code
            _, _, grads = second.run_vjp(plain + tuple(vectors), (0.0, 1.0))
        return grads

    @contextlib.contextmanager
    def located_at_user(self):
        """A refusal met while differentiating the generated tangent function (or a runtime
        function it calls) is reported at the user's function, saying where it arose."""
        parsed = self.first.parsed
        try:
            yield
        except SourceDiffError as exc:
            if exc.filename == parsed.filename:
                raise
            where = f"{exc.filename.rsplit('/', 1)[-1]}:{exc.lineno}"
            reason = f"{where}: {exc.reason}"
            helper = _enclosing_function(exc.filename, exc.lineno)
            if helper:  # a runtime function of sourcediff's, not the user's code
                reason = f"sourcediff's '{helper}', which has no derivative rule ({reason})"
            files = [fn.filename for fn in parsed.call_tree()]
            filename, lineno = user_line(self.tangent, exc, files) or (
                parsed.filename,
                parsed.node.lineno,
            )
            raise UnsupportedCallError(
                f"second derivatives (sd.hessian, sd.hvp) of '{parsed.name}' are not "
                f"available: differentiating its tangent again stops at {reason}",
                filename,
                lineno,
            ) from exc

    def hessian(self, args: tuple) -> list[list]:
        """The blocks ``H[a][b]`` (shape ``x_a.shape + x_b.shape``), one product per input,
        all in one compiled call when the inputs are float64."""
        argnums = self.first.argnums
        if batch.batchable(args, argnums, ()):
            with self.located_at_user():
                second = self.specializer(args)
                plain = self.first.with_placeholders(args)  # options are in the code
                _, derivative = second.adjoint(
                    copies(plain) + tuple(unit_tangents(args, argnums, -1, ()))
                )
            try:
                return batch.hessian(derivative, c_ordered(plain), argnums, self.first.jit)
            except numba.core.errors.NumbaError as exc:
                raise self.first.internal_error(exc) from exc
        shapes = [np.shape(args[k]) for k in argnums]
        blocks = [[jacobian_block(args[a], args[b]) for b in argnums] for a in argnums]
        for b, shape_b in enumerate(shapes):
            for j in np.ndindex(*shape_b):
                columns = self.product(args, tuple(unit_tangents(args, argnums, b, j)))
                for a, column in enumerate(columns):
                    block = blocks[a][b]
                    block[(Ellipsis,) + j] = column
        return [[blk if blk.ndim else float(blk) for blk in row] for row in blocks]


def _enclosing_function(filename: str, lineno: int) -> str:
    """The name of the function of sourcediff's own ``filename`` holding line ``lineno``,
    or '' (another file, or no such function)."""
    if not filename.startswith(os.path.dirname(__file__)):
        return ""
    try:
        tree = ast.parse(Path(filename).read_text())
    except (OSError, SyntaxError):
        return ""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.lineno <= lineno <= node.end_lineno:
            return node.name
    return ""


ORIGIN = re.compile(r"\s*# (?P<file>[^\s:]+):(?P<line>\d+): ")


def user_line(tangent, exc: SourceDiffError, files: list[str]) -> tuple[str, int] | None:
    """The user's file and line of the statement whose generated tangent code calls, directly
    or through runtime functions, the function where ``exc`` arose (from the origin comments
    of the generated source: ``# model.py:14: ...``); None if not found."""
    if tangent is None:
        return None
    try:
        lines, first = inspect.getsourcelines(tangent)
    except (OSError, TypeError):
        return None
    generated = inspect.getsourcefile(tangent)
    if exc.filename == generated:
        at = exc.lineno
    else:
        callee = _first_call_towards(tangent, exc.filename, exc.lineno)
        if callee is None:
            return None
        at = next(
            (
                first + k
                for k, text in enumerate(lines)
                if not text.lstrip().startswith("#") and re.search(rf"\b{callee}\(", text)
            ),
            None,
        )
        if at is None:
            return None
    for text in reversed(lines[: at - first + 1]):
        found = ORIGIN.match(text)
        if found:
            name = found["file"]
            path = next((f for f in files if f.rsplit("/", 1)[-1] == name), None)
            return (path, int(found["line"])) if path else None
    return None


def _first_call_towards(func, filename: str, lineno: int, depth: int = 6) -> str | None:
    """The global name ``func`` calls through which a chain of Python functions reaches the
    function of ``filename`` whose lines hold ``lineno``."""
    seen: set[int] = set()

    def reaches(fn, depth: int) -> bool:
        fn = getattr(fn, "py_func", fn)
        if not inspect.isfunction(fn) or id(fn) in seen or depth < 0:
            return False
        seen.add(id(fn))
        try:
            lines, start = inspect.getsourcelines(fn)
            if inspect.getsourcefile(fn) == filename and start <= lineno < start + len(lines):
                return True
        except (OSError, TypeError):
            return False
        return any(reaches(fn.__globals__.get(n), depth - 1) for n in _called_names(fn))

    for name in _called_names(func):
        if reaches(func.__globals__.get(name), depth):
            return name
    return None


def _called_names(fn) -> list[str]:
    names: list[str] = []
    codes = [fn.__code__]
    while codes:
        code = codes.pop()
        names += [n for n in code.co_names if n not in names]
        codes += [c for c in code.co_consts if inspect.iscode(c)]
    return names
