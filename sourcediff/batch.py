"""Jacobians in one compiled call: every direction is swept inside Numba.

A Jacobian of ``n`` inputs and ``m`` outputs takes ``n`` tangent passes
(forward) or ``m`` reverse sweeps. Calling the generated derivative ``n``
times from Python costs a dispatch and a few array conversions per call,
which dominates for small functions; here one generated driver loops over the
unit directions (or unit cotangents) inside compiled code and fills the
Jacobian's columns (rows) in place. With ``jit=False`` the same driver runs
as Python.

The driver is generated per argument kinds, ``argnums`` and output kinds::

    def forward_sweep(a0, a1, rows0):
        jac0 = np.zeros((rows0, a0.size))
        direction = np.zeros(a0.size)
        for j in range(a0.size):
            direction[j] = 1.0
            value, dot = derivative(a0.copy(), a1, direction.reshape(a0.shape))
            direction[j] = 0.0
            jac0[:, j] = np.ravel(dot)
        return (jac0,)
"""

from __future__ import annotations

import math

import numpy as np

_DRIVERS: dict[tuple, object] = {}  # the cache: (derivative, kinds, ...) -> driver


def _size(arg: str, kind: str) -> str:
    return f"{arg}.size" if kind == "array" else "1"


def _call(args: list[str], kinds: list[str], extra: list[str]) -> str:
    """The derivative called on private copies of the array arguments."""
    passed = [f"{a}.copy()" if k == "array" else a for a, k in zip(args, kinds)]
    return f"derivative({', '.join(passed + extra)})"


def _directions(args, kinds, argnums, which: str, unit: str) -> list[str]:
    """Tangents for each argnum: the unit direction ``unit`` at ``which``, zeros elsewhere."""
    dots = []
    for k in argnums:
        if k != which:
            dots.append(f"np.zeros({args[k]}.shape)" if kinds[k] == "array" else "0.0")
        else:
            dots.append(unit)
    return dots


def forward_source(kinds: list[str], argnums: tuple, outputs: list[str]) -> str:
    """A driver filling ``jac_o[:, column]`` with the tangent of output ``o`` along each
    unit direction of the inputs ``argnums``."""
    args = [f"a{k}" for k in range(len(kinds))]
    rows = [f"rows{o}" for o in range(len(outputs))]
    total = " + ".join(_size(args[k], kinds[k]) for k in argnums)
    lines = [f"def forward_sweep({', '.join(args + rows)}):"]
    lines += [f"    jac{o} = np.zeros(({rows[o]}, {total}))" for o in range(len(outputs))]
    lines.append("    column = 0")
    for k in argnums:
        if kinds[k] == "array":
            unit = f"direction.reshape({args[k]}.shape)"
            lines += [
                f"    direction = np.zeros({args[k]}.size)",
                f"    for j in range({args[k]}.size):",
            ]
            lines.append("        direction[j] = 1.0")
            body_indent = "        "
        else:
            unit, body_indent = "1.0", "    "
        dots = _directions(args, kinds, argnums, k, unit)
        lines.append(f"{body_indent}value, dot = {_call(args, kinds, dots)}")
        if kinds[k] == "array":
            lines.append("        direction[j] = 0.0")
        for o, out_kind in enumerate(outputs):
            dot = "dot" if len(outputs) == 1 else f"dot[{o}]"
            if out_kind == "array":
                lines.append(f"{body_indent}jac{o}[:, column] = np.ravel({dot})")
            else:
                lines.append(f"{body_indent}jac{o}[0, column] = {dot}")
        lines.append(f"{body_indent}column += 1")
    lines.append(f"    return ({''.join(f'jac{o}, ' for o in range(len(outputs)))})")
    return "\n".join(lines) + "\n"


def reverse_source(kinds: list[str], argnums: tuple, outputs: list[str]) -> str:
    """A driver filling row ``i`` of ``jac_o_k`` with the gradient of element ``i`` of
    output ``o`` with respect to input ``k``."""
    args = [f"a{k}" for k in range(len(kinds))]
    shapes = [f"like{o}" for o in range(len(outputs))]
    lines = [f"def reverse_sweep({', '.join(args + shapes)}):"]
    names = []
    for o, out_kind in enumerate(outputs):
        rows = _size(shapes[o], out_kind)
        for k in argnums:
            name = f"jac{o}_{k}"
            names.append(name)
            lines.append(f"    {name} = np.zeros(({rows}, {_size(args[k], kinds[k])}))")
        if out_kind == "array":
            lines += [f"    seed = np.zeros({shapes[o]}.size)", f"    for i in range({rows}):"]
            lines.append("        seed[i] = 1.0")
            unit = f"seed.reshape({shapes[o]}.shape)"
        else:
            lines.append("    for i in range(1):")
            unit = "1.0"
        seeds = [
            unit if p == o else (f"np.zeros({shapes[p]}.shape)" if kind == "array" else "0.0")
            for p, kind in enumerate(outputs)
        ]
        lines.append(f"        value, grads = {_call(args, kinds, seeds)}")
        if out_kind == "array":
            lines.append("        seed[i] = 0.0")
        for position, k in enumerate(argnums):
            grad = f"np.ravel(grads[{position}])" if kinds[k] == "array" else f"grads[{position}]"
            lines.append(f"        jac{o}_{k}[i, :] = {grad}")
    lines.append(f"    return ({''.join(n + ', ' for n in names)})")
    return "\n".join(lines) + "\n"


def hessian_source(kinds: list[str], argnums: tuple) -> str:
    """A driver filling column ``j`` of ``hess_a_b`` with ``H e_j`` (``e_j`` a unit vector of
    input ``b``): the gradient of the tangent function's tangent output along ``e_j``."""
    args = [f"a{k}" for k in range(len(kinds))]
    lines = [f"def hessian_sweep({', '.join(args)}):"]
    names = []
    for a in argnums:
        for b in argnums:
            names.append(f"hess{a}_{b}")
            sizes = f"{_size(args[a], kinds[a])}, {_size(args[b], kinds[b])}"
            lines.append(f"    hess{a}_{b} = np.zeros(({sizes}))")
    for b in argnums:
        if kinds[b] == "array":
            lines.append(f"    direction = np.zeros({args[b]}.size)")
            lines += [f"    for j in range({args[b]}.size):", "        direction[j] = 1.0"]
            unit = f"direction.reshape({args[b]}.shape)"
        else:
            lines.append("    for j in range(1):")
            unit = "1.0"
        vectors = _directions(args, kinds, argnums, b, unit)
        lines.append(f"        value, grads = {_call(args, kinds, vectors + ['0.0', '1.0'])}")
        if kinds[b] == "array":
            lines.append("        direction[j] = 0.0")
        for position, a in enumerate(argnums):
            grad = f"np.ravel(grads[{position}])" if kinds[a] == "array" else f"grads[{position}]"
            lines.append(f"        hess{a}_{b}[:, j] = {grad}")
    lines.append(f"    return ({''.join(n + ', ' for n in names)})")
    return "\n".join(lines) + "\n"


def _kind(value) -> str:
    return "array" if isinstance(value, np.ndarray) else "scalar"


def driver(derivative, source: str, name: str, jit: bool):
    """The driver ``name`` defined by ``source``, calling ``derivative``; compiled once."""
    key = (id(derivative), source, jit)
    if key not in _DRIVERS:
        namespace = {"np": np, "math": math, "derivative": derivative}
        exec(compile(source, f"<sourcediff {name}>", "exec"), namespace)
        found = namespace[name]
        if jit:
            import numba

            found = numba.njit(cache=False)(found)
        _DRIVERS[key] = (derivative, found)  # keeps derivative alive: id() stays unique
    return _DRIVERS[key][1]


def batchable(args: tuple, argnums: tuple, outputs: tuple) -> bool:
    """Whether the compiled sweep applies: float64 arrays and floats throughout."""
    values = [args[k] for k in argnums] + list(outputs)
    return all(
        (isinstance(v, np.ndarray) and v.dtype == np.float64) or isinstance(v, (float, int))
        for v in values
    )


def forward_jacobian(derivative, args: tuple, argnums: tuple, outputs: tuple, jit: bool):
    """Per output, a tuple of blocks (shape ``out.shape + arg.shape``), one per argnum."""
    kinds = [_kind(a) for a in args]
    out_kinds = [_kind(o) for o in outputs]
    sweep = driver(derivative, forward_source(kinds, argnums, out_kinds), "forward_sweep", jit)
    filled = sweep(*args, *[int(np.size(o)) for o in outputs])
    per_output = []
    for out, jac in zip(outputs, filled):
        blocks, column = [], 0
        for k in argnums:
            width = int(np.size(args[k]))
            block = jac[:, column : column + width].reshape(np.shape(out) + np.shape(args[k]))
            blocks.append(block if block.ndim else float(block))
            column += width
        per_output.append(tuple(blocks))
    return per_output


def reverse_jacobian(derivative, args: tuple, argnums: tuple, outputs: tuple, jit: bool):
    """Per output, a tuple of blocks (shape ``out.shape + arg.shape``), one per argnum."""
    kinds = [_kind(a) for a in args]
    out_kinds = [_kind(o) for o in outputs]
    sweep = driver(derivative, reverse_source(kinds, argnums, out_kinds), "reverse_sweep", jit)
    likes = [np.zeros_like(o) if isinstance(o, np.ndarray) else 0.0 for o in outputs]
    filled = iter(sweep(*args, *likes))
    per_output = []
    for out in outputs:
        blocks = []
        for k in argnums:
            block = next(filled).reshape(np.shape(out) + np.shape(args[k]))
            blocks.append(block if block.ndim else float(block))
        per_output.append(tuple(blocks))
    return per_output


def hessian(derivative, args: tuple, argnums: tuple, jit: bool) -> list[list]:
    """The blocks ``H[a][b]`` (shape ``x_a.shape + x_b.shape``) from the reverse-mode
    derivative of the tangent function, one Hessian-vector product per input, in one call."""
    kinds = [_kind(a) for a in args]
    sweep = driver(derivative, hessian_source(kinds, argnums), "hessian_sweep", jit)
    filled = iter(sweep(*args))
    rows = []
    for a in argnums:
        row = []
        for b in argnums:
            block = next(filled).reshape(np.shape(args[a]) + np.shape(args[b]))
            row.append(block if block.ndim else float(block))
        rows.append(row)
    return rows
