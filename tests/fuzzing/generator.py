"""Random, well-typed, terminating programs inside sourcediff's documented subset.

``generate(seed)`` returns a :class:`Program`: the source of a module with a
function ``f(x0, x1, a, m, n)`` (two floats, a float vector of length 4, a 3x3
float matrix, an int) and the helpers it calls, plus the tags of the
constructs it used. Values stay bounded (sin/tanh squashing, divisions by
``1 + e*e``, at most a few loop iterations), so that finite differences are a
trustworthy reference.

Constructs: arithmetic and ``math`` functions, if/elif/else, early return,
for loops with any step, data-dependent while loops, break/continue, element,
slice and whole-array in-place writes, NumPy reductions and products whose
operands are overwritten later, rebinding ``w = m @ w`` in loops, swaps,
tuples, self-assignments, helpers returning tuples or writing into an array
they are passed, writes into arguments; repeated element reads around a helper that
writes the array, equal array expressions one of which is written afterwards, int and
float32 arrays passed to helpers, periodic stencils by ``np.roll`` rebound in a loop, rows
of a loop-invariant array in a per-sample loop, pairwise element increments, a hidden layer
written in a loop and read in a deeper nest, and straight-line scalar time loops (RK2/RK4
steps); these with ``gaps=True`` only, from a stream of their own. With ``extras=True``, the
constructs of ``extras.py`` (``pass``, max/min of many, inverse hyperbolics, ``np.fmod``,
``fmax``/``fmin``, a ``functools.wraps`` helper, defaults left out), from a third stream.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .extras import EXTRA_HELPERS, extra_construct

HELPERS = """
EDGE = np.array([0, 2, 2, 1])  # a module-level index array with a repeated index


def pair(u, v):
    return u * v + math.sin(u), u - 0.5 * v


def scale_first(arr, s):
    arr[0] = arr[0] * s
    return np.sum(arr)


def same(u):
    return u
"""

UNARY = [
    "math.sin({})",
    "math.cos({})",
    "math.tanh({})",
    "math.atan({})",
    "math.exp(0.5 * math.sin({}))",
    "math.log(1.0 + {0} * {0})",
    "math.sqrt(1.0 + {0} * {0})",
    "1.0 / (1.0 + {0} * {0})",
    "math.lgamma(2.0 + {0} * {0})",
]
REDUCTIONS = [
    ("np.sum({a})", "sum"),
    ("np.dot({a}, {b})", "dot"),
    ("{a} @ {b}", "matmul"),
    ("np.prod(np.tanh({a}) + 1.5)", "prod"),
    ("np.max({a})", "max"),
    ("np.min({a})", "min"),
    ("np.mean({a})", "mean"),
    ("np.linalg.norm({a})", "norm"),
    ("np.sum(np.outer({a}, {b}))", "outer"),
    ("np.sum(m @ {a})", "matvec"),
    ("np.var({a}) + np.std({b})", "var_std"),
    ("np.sum(np.square(np.flip({a})) * {b})", "square_flip"),
    ("np.sum(np.linalg.solve(m + 4.0 * np.eye(4), {a}))", "solve"),
    ("np.linalg.det(m + 2.0 * np.eye(4, dtype=np.float64))", "det_eye_dtype"),
    ("np.sum({a}[:, None] * m * {b}[None, :])", "new_axis"),
    ("np.sum(np.array([{a}[0], {b}[1] * 2.0, 0.5]) ** 2)", "array_literal"),
    ("np.sum(m[:, 1].copy() * {a})", "method_on_expression"),
    ("np.sum(np.concatenate(({a}, {b}[:2])) ** 2)", "concatenate"),
    ("np.sum(np.stack(({a}, {b}), axis=1) * m[:, :2])", "stack"),
    ("np.sum(np.diff({a}) ** 2) + np.trace(m) * {b}[0]", "diff_trace"),
    ("np.sum(np.max(m, axis=0) * {a}) + np.sum({b}[{b} > 0.0])", "max_axis_mask"),
    ("np.sum(np.linalg.cholesky(m @ m.T + 2.0 * np.eye(4)) * np.outer({a}, {b}))", "cholesky"),
    ("np.sum(np.diag(m) * {a}) + np.sum(np.diag({b}) @ m)", "diag"),
    ("np.linalg.slogdet(m + 3.0 * np.diag({a}))[1] * np.linalg.slogdet(m)[0]", "slogdet"),
    ("np.sum(np.cov(m * {a}) * m) + np.cov({b})", "cov"),
    ("np.sum(np.roll({a}, 1) * {b}) + np.sum(np.roll(m, -3) * m)", "roll"),
    ("np.sum({a}[np.argsort({b})] * np.arange(4)) + {a}[np.argmax({b})]", "argmax"),
    ("np.sum(np.sort({a} * 1.5)[1:] * {b}[:3])", "sort"),
    ("np.sum(np.std(m * {a}, axis=1)) + np.sum(np.var(m, axis=0, ddof=1) * {b})", "std_axis"),
    ("np.sum(np.linalg.norm(m + {a}, axis=1) * {b}) + np.sum(np.prod(m, axis=0))", "norm_axis"),
    ("np.sum(m / np.sum(np.exp(m * {a}), axis=1, keepdims=True))", "keepdims"),
    ("np.sum(np.cumprod({a} + 0.5) * {b}) + np.sum(np.triu(m, 1) @ {a})", "cumprod_triu"),
    ("np.sum(m.flatten() * np.full_like(m.flatten(), {b}[1])) + np.sum(np.tril(m) @ {a})", "flat"),
    ("np.sum(np.radians({a}) * np.exp2({b})) + np.sum(np.round({a}, 1) * {b})", "angles"),
    ("np.einsum('ij,j->', m, {a} * {b}) + np.einsum('i,i', {a}, {b})", "einsum"),
    ("np.sum(np.einsum('ij,kj->ik', m, m) * np.outer({a}, {b}))", "einsum_loops"),
    ("np.sum(np.roll(m, 1, axis=1) * m) + np.sum(np.append({a}, {b}[0] * 2.0) ** 2)", "roll_axis"),
    ("np.sum(np.append(m, m * {a}, axis=0)[2:6] * m)", "append_axis"),
    ("np.sum(np.interp({a} * 2.0, np.linspace(-2.0, 2.0, 4) * (1.1 + 0.1 * x0), {b}))", "interp"),
    ("np.sum(np.stack((m, m * {a})) @ m) + np.sum(m @ np.stack((m, m.T)) * {b})", "stacked_matmul"),
    ("np.sum(np.max(np.stack((m, m * {a})), axis=2) * m[:2])", "rank3_max"),
    ("np.sum(np.prod(np.stack((m, m + {b})), axis=0) * m)", "rank3_prod"),
    ("np.sum(np.std(np.stack((m, m * {b})), axis=1, keepdims=True) * m)", "rank3_std"),
    ("np.sum(np.cumsum(m * {a}, axis=1) * m) + np.sum(np.cumprod(m + 0.5, axis=0) * {b})", "scan"),
    (
        "np.sum(np.roll(np.stack((m, m * {a})), -1, axis=-2) * m) + np.sum(m.cumsum(-1))",
        "roll_back",
    ),
    ("np.sum(np.std(np.stack((m, m * {a})), axis=(0, 2), keepdims=True) * m)", "tuple_axes"),
    ("np.sum({a} * {b}, axis=0) * np.max({b}, axis=0) + np.max(m, axis=(-1, -2))", "vector_axis"),
    ("np.sum(np.min(m, axis=-2) * np.prod(m + 0.5, -2)) + np.sum(np.std(m, axis=-1))", "neg_axis"),
    (
        "np.sum({a}[EDGE] * {b}) + np.sum(m[EDGE, 1:] ** 2) + np.sum({b}[np.array([0, 3, 0])])",
        "const_index",
    ),
    (
        "np.sum((m * {a}).T[1] * {b}) * EDGE.shape[0] + np.sum(np.roll(m * {b}, 1, 0)[0])",
        "expr_attr",
    ),
    ("np.sum(np.clip({a}, 0.1, None) ** 2) + np.sum(np.diff({b}, 2) ** 2)", "clip_open"),
    ("np.sum(np.logaddexp({a}, {b}) + np.cbrt({a} * {a} + 1.0) / (2.0 + {b}))", "logaddexp"),
]
# Integer index arrays with repeated indices: gathers accumulate, scatters' last write wins.
INDEX_ARRAYS = ["np.arange(4) // 2", "3 - np.arange(4)", "(np.arange(4) * 2) % 3"]

# Helpers of the constructs drawn from ``_Writer.gap_rng``: added to a program's module only
# when it calls them (float32 is mixed only with float64 arrays' elements, which NumPy and
# Numba both promote to float64).
GAP_HELPERS = {
    "turn": """def turn(v, axis, s):
    sq = np.sum(axis * axis)
    if sq > 0.25:
        n = math.sqrt(sq)
        u = axis / n
        c = math.cos(n * s)
        return v * c + np.cross(u, v) * math.sin(n * s) + u * (np.dot(u, v) * (1.0 - c))
    return v + np.cross(axis, v) * s""",
    "W32": "W32 = np.array([0.5, -0.25, 1.5, 0.75], dtype=np.float32)  # a float32 constant",
    "bump_at": """def bump_at(arr, i, s):
    arr[i] = arr[i] * 0.5 + s
    return arr[i] * arr[i]""",
    "weigh_int": """def weigh_int(u, idx):
    s = 0.0
    for k in range(idx.shape[0]):
        s += u[idx[k]] * (k + 1) + idx[k] * 0.25
    return s""",
    "mix_int": """def mix_int(u, k):
    return np.sum(u * k) * 0.25 + np.sum(np.sin(u[k]))""",
    "scatter_at": """def scatter_at(u, idx, s):
    for k in range(idx.shape[0]):
        u[idx[k]] += 0.5 * s""",
    "weigh32": """def weigh32(u, w):
    s = 0.0
    for k in range(u.shape[0]):
        s += u[k] * w[k]
    return s + np.sum(u * w)""",
    "dot32": """def dot32(w, u, c):
    return np.sum(w * u) * c + w[0] * u[1]""",
    "pick32": """def pick32(u, w, idx):
    s = 0.0
    for k in range(idx.shape[0]):
        s += u[idx[k]] * w[idx[k]]
    return s""",
    "smooth": """def smooth(v, c):
    out = np.empty(v.shape[0])
    for k in range(v.shape[0]):
        out[k] = c * math.sin(v[k]) + 0.5 * v[k] * v[k]
    return out""",
    "rates_into": """def rates_into(v, c, out):
    for k in range(v.shape[0]):
        out[k] = out[k] * 0.5 + c * math.sin(v[k]) * v[(k + 1) % v.shape[0]]
    for k in range(1, v.shape[0]):
        out[k] += 0.25 * out[k - 1]""",
    "TUP": "TUP = (0.5, -0.25, 2, 0.125)  # a module-level tuple of numbers",
    "PAIRS": "PAIRS = ((0, 1), (2, 3), (1, 1))  # a module-level table of index pairs",
    "scaled": """def scaled_by(k):
    def scaled(v, p=2):
        return k * v**p

    return scaled


THREE, HALF = scaled_by(3.0), scaled_by(0.5)  # two closures of one def
SAME_AS_THREE = THREE  # an alias, called with other options""",
    "recenter": """def recenter(v, c):
    v -= c * np.mean(v)
    v *= 0.9""",
    "shaped": """def shaped(v, c, kind="sin", weights=None):
    if v.shape[0] == 0:
        raise ValueError(f"no values to shape with {kind}")
    if weights is None:
        weights = np.ones(v.shape[0])
    if kind == "sin":
        y = np.sin(c * v)
    elif kind in ("tanh", "cube"):
        y = np.tanh(v) * c if kind == "tanh" else v * v * v * c
    else:
        raise ValueError("unknown kind " + kind)
    return np.sum(weights * y)""",
    "energy": """def energy(v, w, c, n):
    s = 0.0
    for k in range(min(n, v.shape[0] - 1)):
        d = v[k + 1] - v[k]
        if d > 0.0:
            s += c * d * d
        s += w[k] * math.cos(v[k])
    return s""",
}


@dataclass
class Program:
    """A generated module's source, its function's name, and the constructs it used."""

    seed: int
    source: str
    tags: set[str] = field(default_factory=set)


class _Writer:
    def __init__(self, rng: random.Random):
        self.rng = rng
        self.lines: list[str] = []
        self.tags: set[str] = set()
        self.floats = ["x0", "x1"]
        self.vectors = ["a"]
        self.counter = 0
        self.loop_depth = 0
        self.fusion_rng = random.Random(f"fusion {rng.getstate()[1][:4]}")
        self.fusion_count = 0
        self.cycle_rng = random.Random(f"cycle {rng.getstate()[1][:4]}")
        self.shape_rng = random.Random(f"shape {rng.getstate()[1][:4]}")
        # Inner loops bounded by the outer loop's variable draw from a stream of their own,
        # so that adding them left every other program of a seed as it was.
        self.bound_rng = random.Random(f"bounds {rng.getstate()[1][:4]}")
        # The constructs of :meth:`gap_construct` too, with names and helpers of their own,
        # and only when asked for (``generate(seed, gaps=True)``): seeds keep their programs.
        self.gaps = False
        self.gap_rng = random.Random(f"gaps {rng.getstate()[1][:4]}")
        self.gap_count = 0
        self.gap_helpers: set[str] = set()
        # And those of extras.py (``generate(seed, extras=True)``), from a third stream.
        self.extras = False
        self.extra_rng = random.Random(f"extras {rng.getstate()[1][:4]}")
        self.later_rng = random.Random(f"later extras {rng.getstate()[1][:4]}")
        self.tuple_rng = random.Random(f"tuple extras {rng.getstate()[1][:4]}")
        self.extra_count = 0
        self.extra_helpers: set[str] = set()
        # Helpers called from several places (outlined by sourcediff), with gaps=True only.
        self.outline_rng = random.Random(f"outline {rng.getstate()[1][:4]}")
        # Of those, helpers writing into a buffer the caller owns: a stream of their own,
        # so that programs drawn before they existed keep their other helpers.
        self.into_rng = random.Random(f"into {rng.getstate()[1][:4]}")
        # Double buffers (recompute and checkpoint leave arrays written in full out of
        # their records): a stream of its own, so that other constructs keep their programs.
        self.buffer_rng = random.Random(f"buffers {rng.getstate()[1][:4]}")
        # Conditional expressions (periodic neighbours, selected indices, value tests).
        self.select_rng = random.Random(f"selects {rng.getstate()[1][:4]}")
        # Everyday spellings: for over a reversed slice or reversed(range), a loop
        # variable also read outside its loop, a helper updating its argument in place.
        self.everyday_rng = random.Random(f"everyday {rng.getstate()[1][:4]}")
        # Options: strings and None that select code, in f (a defaulted parameter) and in
        # a helper (given in the call).
        self.option_rng = random.Random(f"options {rng.getstate()[1][:4]}")
        # Rows of m as small vectors (split into numbers by sourcediff).
        self.small_rng = random.Random(f"small {rng.getstate()[1][:4]}")
        # Rotations: cos and sin of one angle bound to names, read again by the adjoints.
        self.rotation_rng = random.Random(f"angle pairs {rng.getstate()[1][:4]}")
        # Loop invariants: products a loop computes alike every step, next to arrays made
        # every step and written, or read from an array the loop writes.
        self.invariant_rng = random.Random(f"steady values {rng.getstate()[1][:4]}")
        # 1-D masks of a vector: set to a number, scaled in place, set from the selection.
        self.mask_rng = random.Random(f"selected elements {rng.getstate()[1][:4]}")
        # Results whose adjoint reads them (tanh, exp), written in place and then their
        # name rebound, once or in a loop.
        self.rebound_rng = random.Random(f"rebound results {rng.getstate()[1][:4]}")
        self.spelling_rng = random.Random(f"builtin spellings {rng.getstate()[1][:4]}")

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def scalar(self, depth: int = 0) -> str:
        r = self.rng.random()
        if depth > 1 or r < 0.3:
            if self.rng.random() < 0.2:
                # Parenthesized: `-1.0 ** 2` is -1.0 in Python, and `1.0 + c ** 2` must stay >= 1.
                return f"({round(self.rng.uniform(-2.0, 2.0), 2)!r})"
            return self.rng.choice(self.floats)
        if r < 0.55:
            return self.rng.choice(UNARY).format(self.scalar(depth + 1))
        if r < 0.75:
            op = self.rng.choice(["+", "-", "*"])
            return f"({self.scalar(depth + 1)} {op} {self.scalar(depth + 1)})"
        if r < 0.9:
            vec = self.rng.choice(self.vectors)
            self.tags.add("element_read")
            return f"{vec}[{self.rng.randrange(4)}]"
        return f"{self.scalar(depth + 1)} / (1.0 + {self.scalar(depth + 1)} ** 2)"

    def vector(self) -> str:
        vec = self.rng.choice(self.vectors)
        r = self.rng.random()
        if r < 0.3:
            return f"np.sin({vec})"
        if r < 0.6:
            return f"{vec} * {self.scalar(1)}"
        if r < 0.8:
            return f"np.tanh({vec} + {self.rng.choice(self.vectors)})"
        if r < 0.9:
            self.tags.add("gather")
            return f"{vec}[{self.rng.choice(INDEX_ARRAYS)}] * 1.5"
        return f"m @ {vec}"

    # -- statements -----------------------------------------------------------

    def block(self, depth: int, count: int) -> None:
        for _ in range(count):
            self.statement(depth)
            if self.fusion_rng.random() < 0.15:
                self.elementwise_run(depth)
            if self.loop_depth == 0 and self.cycle_rng.random() < 0.05:
                self.sub_cycled_loop(depth)
            if self.shape_rng.random() < 0.06:
                self.broadcast_mix(depth)
            if self.gaps and self.gap_rng.random() < 0.08:
                self.gap_construct(depth)
            if self.gaps and self.outline_rng.random() < 0.04:
                self.helpers_called_twice(depth)
            if self.gaps and self.buffer_rng.random() < 0.03 and not self.loop_depth:
                self.double_buffer(depth)
            if self.gaps and self.select_rng.random() < 0.03:
                self.conditional_reads(depth)
            if self.gaps and self.everyday_rng.random() < 0.03:
                self.everyday_forms(depth)
            if self.gaps and self.option_rng.random() < 0.03:
                self.options_forms(depth)
            if self.gaps and self.small_rng.random() < 0.04:
                self.small_vectors(depth)
            if self.gaps and self.rotation_rng.random() < 0.04:
                self.rotations(depth)
            if self.gaps and self.invariant_rng.random() < 0.04:
                self.loop_invariants(depth)
            if self.gaps and self.mask_rng.random() < 0.015:
                self.vector_masks(depth)
            if self.gaps and self.rebound_rng.random() < 0.015:
                self.rebound_results(depth)
            if self.gaps and self.spelling_rng.random() < 0.02:
                self.builtin_spellings(depth)
            if self.extras and self.extra_rng.random() < 0.12:
                extra_construct(self, depth)

    def statement(self, depth: int) -> None:
        choices = [
            (self.assign_scalar, 5),
            (self.augment, 3),
            (self.reduction, 3),
            (self.vector_assign, 2),
            (self.array_write, 3),
            (self.branch, 2 if depth < 3 else 0),
            (self.for_loop, 2 if self.loop_depth < 2 else 0),
            (self.while_loop, 1 if self.loop_depth < 1 else 0),
            (self.helper_call, 1),
            (self.swap_or_tuple, 1),
            (self.self_assign, 1),
            (self.matrix_write, 2),
            (self.tuple_pack, 1),
            (self.rows_loop, 1 if self.loop_depth < 2 else 0),
            (self.loop_exit, 2 if self.loop_depth else 0),
            (self.tensor_statement, 1),
            (self.unpack_or_out, 1),
            (self.small_list, 1),
            (self.fresh_buffer_loop, 1 if self.loop_depth < 1 else 0),
            (self.comprehension, 1),
        ]
        functions, weights = zip(*choices)
        self.rng.choices(functions, weights)[0](depth)

    def fresh_buffer_loop(self, depth: int) -> None:
        """A time loop writing a fresh buffer each step, then rebinding the state to it
        (``u = w``: the two share memory only until ``w`` is rebound)."""
        vec, step, i = self.rng.choice(self.vectors), self.fresh("k"), self.fresh("i")
        buffer = self.fresh("w")
        fresh = self.rng.choice(["np.empty(4)", f"{vec}.copy()", f"np.zeros_like({vec})"])
        self.tags.add("fresh_buffer")
        self.emit(depth, f"for {step} in range(n):")
        self.emit(depth + 1, f"{buffer} = {fresh}")
        self.emit(depth + 1, f"{buffer}[0] = {vec}[0] * {self.scalar(1)}")
        self.emit(depth + 1, f"for {i} in range(1, 4):")
        coupling = f"{vec}[{i}] + 0.3 * math.tanh({vec}[{i} - 1] - {vec}[{i}])"
        self.emit(depth + 2, f"{buffer}[{i}] = {coupling}")
        self.emit(depth + 1, f"{vec} = {buffer}")

    def assign_scalar(self, depth: int) -> None:
        reuse = self.rng.random() < 0.4 and depth > 1
        name = self.rng.choice(self.floats) if reuse else self.fresh("s")
        if reuse and len(self.floats) > 1 and self.rng.random() < 0.15:
            other = self.rng.choice([f for f in self.floats if f != name])
            self.emit(depth, f"{name} = {other} = {self.scalar()}")
            self.tags.add("chained_assignment")
        else:
            self.emit(depth, f"{name} = {self.scalar()}")
        if name not in self.floats and depth == 1:
            self.floats.append(name)
        elif name not in self.floats:
            # Defined under a branch or loop: define it first at the top level.
            self.lines.insert(self.top_insert, f"    {name} = 0.0")
            self.top_insert += 1
            self.floats.append(name)

    def augment(self, depth: int) -> None:
        name = self.rng.choice(self.floats)
        op = self.rng.choice(["+=", "-=", "*="])
        value = f"math.cos({self.scalar(1)})" if op == "*=" else self.scalar(1)
        self.emit(depth, f"{name} {op} {value}")
        self.tags.add("augmented")

    def reduction(self, depth: int) -> None:
        template, tag = self.rng.choice(REDUCTIONS)
        a, b = self.rng.choice(self.vectors), self.rng.choice(self.vectors)
        name = self.rng.choice(self.floats[2:] or ["x0"])
        if name in ("x0", "x1") or self.rng.random() < 0.5:
            name = self.fresh("r")
            self.lines.insert(self.top_insert, f"    {name} = 0.0")
            self.top_insert += 1
            self.floats.append(name)
        self.emit(depth, f"{name} = {template.format(a=a, b=b)}")
        self.tags.add(f"reduce_{tag}")

    def vector_assign(self, depth: int) -> None:
        if self.rng.random() < 0.4 and len(self.vectors) > 1:
            name = self.rng.choice(self.vectors[1:])
        else:
            name = self.fresh("v")
            self.lines.insert(self.top_insert, f"    {name} = a.copy()")
            self.top_insert += 1
            self.vectors.append(name)
        value = self.vector()
        self.tags.add("matvec_rebind" if value.startswith("m @") else "vector_rebind")
        self.emit(depth, f"{name} = {value}")

    def array_write(self, depth: int) -> None:
        vec = self.rng.choice(self.vectors)
        r = self.rng.random()
        if r < 0.35:
            loop_index = [f"{self.loop_var} % 4"] if self.loop_var else []
            index = self.rng.choice(["0", "1", "3", "-1"] + loop_index)
            self.emit(depth, f"{vec}[{index}] = {self.scalar(1)}")
            self.tags.add("element_write")
        elif r < 0.6:
            target = self.rng.choice(["1:", ":-1", "1:3", ":2"])
            source = {"1:": ":-1", ":-1": "1:", "1:3": "2:", ":2": "2:"}[target]
            op = self.rng.choice(["=", "+=", "-="])
            self.emit(depth, f"{vec}[{target}] {op} 0.5 * {vec}[{source}]")
            self.tags.add("slice_write")
        elif r < 0.7:
            self.emit(depth, f"{vec} *= {self.rng.choice(['0.9', '1.1', '-0.5'])}")
            self.tags.add("whole_array_inplace")
        elif r < 0.8:
            index = self.rng.choice(INDEX_ARRAYS)
            self.emit(depth, f"{vec}[{index}] += 0.5 * np.sin({self.rng.choice(self.vectors)})")
            self.tags.add("scatter")
        else:
            self.emit(depth, f"{vec} += np.sin({self.rng.choice(self.vectors)})")
            self.tags.add("whole_array_inplace")

    def elementwise_run(self, depth: int) -> None:
        """Consecutive elementwise statements over slices and rows, which scalarization fuses
        into one loop: a stencil stored into another array, a sum of a fused expression, a
        row difference, or an update of a slice from an overlapping slice of itself.

        Drawn from a random stream of its own, with names of its own, that adds to a float
        the program already has: every other statement of the program is what the same
        seed generated before this construct existed (campaign regressions stay valid)."""
        main, self.rng = self.rng, self.fusion_rng
        try:
            self._elementwise_run(depth)
        finally:
            self.rng = main

    def sub_cycled_loop(self, depth: int) -> None:
        """A value set in a loop's body and updated again in an inner loop whose trip count
        varies (a while loop on the value, or ``range`` of the outer index): both push onto
        one growable record, more than its first 16 slots. Drawn from a stream of its own,
        like :meth:`elementwise_run`, so that older seeds keep their programs."""
        rng, z, k = self.cycle_rng, self.fresh("z"), self.fresh("k")
        target = rng.choice(self.floats)
        seed = f"{rng.choice(self.floats)} * {rng.choice(self.floats)}"
        self.emit(depth, f"for {k} in range(n + 2):")
        self.emit(depth + 1, f"{z} = 0.5 * math.tanh({seed} + 0.3 * {k})")
        if rng.random() < 0.5:
            self.emit(depth + 1, f"while {z} < 3.0:")
            self.emit(depth + 2, f"{z} = {z} + 0.3 + 0.05 * math.sin({z} * {target})")
            self.tags.add("sub_cycled_while")
        else:
            self.emit(depth + 1, f"for _ in range(6 + 2 * {k}):")
            self.emit(depth + 2, f"{z} = math.sin({z}) + 0.1 * {z} * {target}")
            self.tags.add("sub_cycled_for")
        self.emit(depth + 1, f"{target} = {target} + 0.1 * math.sin({z})")

    def broadcast_mix(self, depth: int) -> None:
        """Numbers times constructed arrays, vectors broadcast against ``m``, outer
        products: the operands' shapes differ, so each adjoint is summed back to its
        operand's shape (a float's, a vector's), or provably need not be. Drawn from a
        stream of its own, like :meth:`elementwise_run`."""
        main, self.rng = self.rng, self.shape_rng
        try:
            name, vec = self.fresh("c"), self.rng.choice(self.vectors)
            forms = [
                f"m + {self.scalar(1)} * np.eye(4)",
                f"np.maximum(m, {self.scalar(1)} * np.identity(4))",
                f"{vec} + {self.scalar(1)} * np.ones(4)",
                f"m * {vec} + {vec}",
                f"np.outer({vec}, np.sin({vec})) * {self.scalar(1)} + m",
                f"np.tanh(m - {vec}) * np.full(4, {self.scalar(1)})",
            ]
            self.emit(depth, f"{name} = {self.rng.choice(forms)}")
            self.emit(depth, f"{self.sum_target()} np.sum({name} * {name})")
            self.tags.add("broadcast_mix")
        finally:
            self.rng = main

    def gap_construct(self, depth: int) -> None:
        """Repeated element reads around a helper writing the array, equal array
        expressions one of which is written afterwards, int and float32 arrays passed to
        helpers, np.roll stencils, invariant rows, pairwise increments, a hidden layer or a
        scalar time loop. Drawn from a stream of its own, like :meth:`elementwise_run`, with
        names ``g*_N`` of its own, adding to floats the program already has."""
        main, self.rng = self.rng, self.gap_rng
        try:
            self.gap_count += 1
            forms = [
                self.repeated_read_around_helper,
                self.equal_array_exprs_one_written,
                self.typed_arrays_in_helpers,
                self.roll_stencil_loop,
                self.invariant_rows_loop,
                self.pairwise_increments,
                self.hidden_layer_loop,
                self.scalar_time_loop,
            ]
            self.rng.choice(forms)(depth)
        finally:
            self.rng = main

    def roll_stencil_loop(self, depth: int) -> None:
        """A periodic stencil by ``np.roll``, rebound every step (``u = u + c * (np.roll(u,
        1, 0) - 2.0 * u + ...)``), on a copy of ``m`` or of a vector; sometimes a second
        array coupled to it, a shift by the loop variable, or a roll of an expression."""
        matrix = self.rng.random() < 0.6
        base = "m" if matrix else self.rng.choice(self.vectors)
        u, w, k = self.gap_name("u"), self.gap_name("w"), self.gap_name("k")
        self.emit(depth, f"{u} = {base} * {self.scalar(1)}")
        coupled = self.rng.random() < 0.4
        if coupled:
            self.emit(depth, f"{w} = np.tanh({base})")
        self.emit(depth, f"for {k} in range({self.rng.randint(1, 3)}):")
        axes = ["0", "1", "-1", "axis=0", "axis=-2"] if matrix else ["0", "axis=0", "-1"]
        rolls = [
            f"np.roll({u}, {self.rng.choice([1, -1, 2])}, {self.rng.choice(axes)})"
            for _ in range(2)
        ]
        if self.rng.random() < 0.3:  # a shift that changes every step
            rolls[1] = f"np.roll({u}, {k}, {self.rng.choice(axes)})"
        if self.rng.random() < 0.2:  # a roll of an expression (not fused)
            rolls[0] = f"np.roll({u} * {u}, 1, {self.rng.choice(axes)})"
        if matrix and self.rng.random() < 0.3:  # an axis that changes every step
            rolls[0] = f"np.roll({u}, 1, {k} % 2)"
        react = f" - 0.1 * {u} * {w} * {w}" if coupled else ""
        step = f"{u} + 0.1 * ({rolls[0]} - 2.0 * {u} + {rolls[1]}) * {self.scalar(1)}{react}"
        total = f"np.sum({u} * {u})" + (f" + np.sum({w})" if coupled else "")
        self.roll_step(depth + 1, u, step)
        if coupled:
            self.emit(depth + 1, f"{w} = {w} + 0.05 * np.roll({w}, 1, 0) * {u}")
        if self.rng.random() < 0.3:  # the state's maximum taken out (np.argmax, a vector)
            self.emit(depth + 1, f"{u} = {u} - 0.1 * np.max({u})")
        self.emit(depth, f"{self.sum_target()} ({total})")
        self.tags.add("roll_stencil_loop")

    def invariant_rows_loop(self, depth: int) -> None:
        """A per-sample loop around a per-row loop whose rows of an array are transformed
        elementwise (``np.exp(-0.3 * v[c])``, computed once for every row when nothing in
        the sample loop changes ``v``); sometimes the array or a scalar of the chain
        changes in the sample loop (nothing may be computed ahead), or a chain value is
        read after the loops."""
        v, s, i, c = (self.gap_name(stem) for stem in ("v", "s", "i", "c"))
        e, z = self.gap_name("e"), self.gap_name("z")
        matrix = self.rng.random() < 0.6
        base = "m" if matrix else self.rng.choice(self.vectors)
        self.emit(depth, f"{v} = {base} * {self.scalar(1)}")
        self.emit(depth, f"{s} = {self.scalar(1)}")
        change = self.rng.choice(["none", "none", "scalar", "write", "helper", "rebind"])
        self.emit(depth, f"for {i} in range({self.rng.randint(1, 3)}):")
        if change == "scalar":
            self.emit(depth + 1, f"{s} = {s} * 0.9 + 0.1")
        self.emit(depth + 1, f"for {c} in range(4):")
        chain = self.rng.choice(
            [f"np.exp(-0.3 * {v}[{c}])", f"np.tanh({v}[{c}] * {s}) + 1.0", f"-{v}[{c}] / 3.0"]
        )
        self.emit(depth + 2, f"{e} = {chain}")
        other = f"{base}[({i} + {c}) % 4]"
        self.emit(depth + 2, f"{z} = ({other} - {v}[{c}] * 0.5) * {e}")
        self.emit(depth + 2, f"{self.sum_target()} np.sum({z} * {z})")
        if change == "write":
            self.emit(depth + 1, f"{v}[{i} % 4] = {v}[{i} % 4] * 0.5 + {s}")
        elif change == "helper":  # a call that writes into the array
            self.emit(depth + 1, f"scale_first({v}, 0.9)")
        elif change == "rebind":
            self.emit(depth + 1, f"{v} = {v} * 0.5 + {s}")
        if self.rng.random() < 0.4:  # the last row's value, read after the loops
            self.emit(depth, f"{self.sum_target()} np.sum({e} * {s})")
        self.tags.add("invariant_rows_loop")

    def pairwise_increments(self, depth: int) -> None:
        """Pairwise interactions accumulated element by element (``f[i] += w``,
        ``f[j] -= w``, as in N-body forces) into a vector or a matrix column; sometimes the
        accumulated array is read between two increments, or one element is incremented
        twice in a row."""
        f, i, j = self.gap_name("f"), self.gap_name("i"), self.gap_name("j")
        d, w, t = self.gap_name("d"), self.gap_name("w"), self.gap_name("t")
        vec = self.rng.choice(self.vectors)
        matrix = self.rng.random() < 0.4
        self.emit(depth, f"{f} = np.zeros((4, 2))" if matrix else f"{f} = np.zeros(4)")
        self.emit(depth, f"{t} = 0.0")
        at_i, at_j = (f"{i}, 1", f"{j}, 1") if matrix else (i, j)
        self.emit(depth, f"for {i} in range(4):")
        self.emit(depth + 1, f"for {j} in range({i} + 1, 4):")
        self.emit(depth + 2, f"{d} = {vec}[{j}] - {vec}[{i}]")
        self.emit(depth + 2, f"{w} = {d} / (1.0 + {d} * {d}) * {self.scalar(1)}")
        self.emit(depth + 2, f"{f}[{at_i}] += {w} * {d}")
        form = self.rng.choice(["plain", "plain", "read_between", "twice"])
        if form == "read_between":  # the reverse may not skip the element's zeroing here
            self.emit(depth + 2, f"{t} = {t} + {f}[{at_j}] * {w}")
        self.emit(depth + 2, f"{f}[{at_j}] -= {w}")
        if form == "twice":
            self.emit(depth + 2, f"{f}[{at_j}] += 0.5 * {w} * {w}")
        self.emit(depth, f"{self.sum_target()} (np.sum({f} * {f}) + {t})")
        self.tags.add("pairwise_increments")

    def hidden_layer_loop(self, depth: int) -> None:
        """An MLP's hidden layer: ``h[k]`` written element by element in a per-sample loop
        and read inline in a deeper output/unit nest (``acc += m[o, k] * h[k]``), once per
        unit, output and sample; sometimes ``h`` is also written as deep as its reads (under
        an ``if``), between two deeper reads, by a helper writing into it, by a region
        write, through another name bound to it, or read after the loops."""
        h, s, k, o = (self.gap_name(stem) for stem in ("h", "s", "k", "o"))
        acc, g = self.gap_name("acc"), self.gap_name("g")
        vec = self.rng.choice(self.vectors)
        self.emit(depth, f"{h} = {self.rng.choice(['np.zeros(4)', f'{vec} * 0.5'])}")
        self.emit(depth, f"{acc} = 0.0")
        variant = self.rng.choice(
            ["plain", "plain", "deep_write", "write_between", "helper", "region", "alias"]
        )
        if variant == "alias":  # the array bound to another name, written through it
            self.emit(depth, f"{g} = {h}")
            if self.rng.random() < 0.7:  # and used by that name only (else: refused)
                h, variant = g, "alias_only"
        self.emit(depth, f"for {s} in range({self.rng.choice(['1', '2', '3', 'n'])}):")
        self.emit(depth + 1, f"for {k} in range(4):")
        hidden = [
            f"math.tanh({vec}[{k}] * {self.scalar(1)} + 0.1 * {s})",
            f"math.tanh(m[{k}, {self.rng.randrange(4)}] + {vec}[{k}] * {s})",
            f"0.5 * {h}[{k}] + math.sin({vec}[{k}] * {self.scalar(1)})",  # h[k] itself
            f"{vec}[{k}] / (1.0 + {h}[{k}] * {h}[{k}]) + 0.2 * {k}",
        ]
        self.emit(depth + 2, f"{h}[{k}] = {self.rng.choice(hidden)}")
        if variant == "region":
            region = self.rng.choice([f"{h}[:] = np.tanh({h})", f"{h}[1:3] = {h}[1:3] * 0.5"])
            self.emit(depth + 1, region)
        elif variant == "helper" and self.rng.random() < 0.5:  # a call that writes into h
            self.emit(depth + 1, f"{acc} += 0.1 * scale_first({h}, 0.9)")
            variant = "helper_outer"
        elif variant in ("alias", "alias_only"):
            index = self.rng.randrange(4)
            self.emit(depth + 1, f"{g}[{index}] = {g}[{index}] * 0.5 + 0.1 * {s}")
        j = k if self.rng.random() < 0.5 else self.gap_name("j")  # the unit loop's variable
        self.emit(depth + 1, f"for {o} in range({self.rng.choice(['2', '3', '4', 'n'])}):")
        if variant == "helper":  # the call as deep as the output loop
            self.emit(depth + 2, f"scale_first({h}, math.cos({self.scalar(1)}))")
        self.emit(depth + 2, f"for {j} in range(4):")
        reads = [
            f"m[{o}, {j}] * {h}[{j}]",
            f"{h}[{j}] * {h}[{j}] * {vec}[{o}]",
            f"math.tanh({h}[{j}] + m[{j}, {o}]) * {h}[{j}]",
            f"({h}[{j}] - {vec}[{j}]) * m[{j}, {o}]",
        ]
        self.emit(depth + 3, f"{acc} += 0.25 * {self.rng.choice(reads)}")
        if variant == "deep_write":  # a write as deep as the reads
            self.emit(depth + 3, f"if {h}[{j}] > {self.rng.choice(['0.3', '0.0', '-0.2'])}:")
            self.emit(depth + 4, f"{h}[{j}] = {h}[{j}] * 0.75")
        elif variant == "write_between":  # a write between two reads
            self.emit(depth + 3, f"{h}[{j}] = math.tanh({h}[{j}] + 0.1 * m[{o}, {j}])")
            self.emit(depth + 3, f"{acc} += 0.25 * {h}[{j}] * {vec}[{o}]")
        self.emit(depth, f"{self.sum_target()} {acc}")
        if self.rng.random() < 0.3:  # the layer read after the loops
            self.emit(
                depth, f"{self.sum_target()} (np.sum({h} * {h}) + {h}[{self.rng.randrange(4)}])"
            )
            self.tags.add("hidden_layer_read_after")
        if variant != "plain":
            self.tags.add(f"hidden_layer_{variant}")
        self.tags.add("hidden_layer_loop")

    def scalar_time_loop(self, depth: int) -> None:
        """A time loop (its variable indexes nothing) of straight-line scalar arithmetic, an
        RK2 or RK4 step of a small ODE: stage temporaries (``a1 = c * (y - x)``) and two or
        three loop-carried floats (``x = x + dt * 0.5 * (a1 + a2)``), coefficients from
        the program's floats and array elements at constant indices; sometimes an ``if``,
        ``abs``/``min``/``max``, a ``math.sin`` call, an int counter, a tuple swap, the loop
        variable in arithmetic, or a stage value read after the loop."""
        count = self.rng.choice([2, 3])
        state = [self.gap_name(stem) for stem in ("x", "y", "z")[:count]]
        k, dt, cnt = self.gap_name("k"), self.gap_name("dt"), self.gap_name("n")
        vec = self.rng.choice(self.vectors)
        features = {
            f
            for f in ("if", "minmax", "call", "counter", "swap", "time", "after")
            if self.rng.random() < 0.2
        }
        for name in state:
            self.emit(depth, f"{name} = math.tanh({self.scalar(1)})")
        coefficients = [self.gap_name(f"cf{i}") for i in range(count)]
        for name in coefficients:
            self.emit(depth, f"{name} = 0.5 + 0.5 * math.tanh({self.rng.choice(self.floats)})")
        self.emit(
            depth, f"{dt} = {self.rng.choice(['0.05', '0.1', f'0.05 * (1.0 + {coefficients[0]})'])}"
        )
        if "counter" in features:
            self.emit(depth, f"{cnt} = 0")
        rk4 = self.rng.random() < 0.4
        stages = 4 if rk4 else 2
        temps = [
            [self.gap_name(f"{chr(97 + i)}{st + 1}") for i in range(count)] for st in range(stages)
        ]
        if "after" in features:
            self.emit(depth, f"{temps[0][0]} = 0.0")
        self.emit(depth, f"for {k} in range({self.rng.choice(['n', 'n + 1', '3'])}):")
        body = depth + 1
        # The right-hand side, component by component, of state names (a template each).
        templates = []
        for i in range(count):
            mine, nxt, other = (f"{{{j % count}}}" for j in (i, i + 1, i + 2))  # slots
            c = coefficients[i]
            element = f"{vec}[{self.rng.randrange(4)}]"
            forms = [
                f"{c} * ({nxt} - {mine})",
                f"{nxt} * ({c} - {other}) - 0.5 * {mine}",
                f"{mine} * {nxt} - {c} * {other}",
                f"-{c} * {mine} + 0.5 * {element}",
                f"{element} * {nxt} - {c} * {mine}",
            ]
            if "minmax" in features and i == 0:
                forms = [f"min(max({nxt} - {mine}, -1.0), 1.0) * {c}", f"{c} * abs({nxt}) - {mine}"]
            if "call" in features and i == count - 1:
                forms = [f"math.sin({nxt}) * {c} - {mine}"]
            if "time" in features and i == 0:
                forms = [f"{c} * ({nxt} - {mine}) + 0.05 * {k} * {mine}"]
            templates.append(self.rng.choice(forms))
        points = [state]
        for st in range(stages):
            for i in range(count):
                self.emit(body, f"{temps[st][i]} = {templates[i].format(*points[st])}")
            if "if" in features and st == 0:
                self.emit(body, f"if {temps[0][0]} > {state[0]}:")
                self.emit(body + 1, f"{temps[0][0]} = 0.5 * {temps[0][0]}")
                if self.rng.random() < 0.5:
                    self.emit(body, "else:")
                    self.emit(body + 1, f"{temps[0][-1]} = {temps[0][-1]} + 0.1 * {state[0]}")
            if st + 1 < stages:  # the next stage's point
                half = "1.0" if (rk4 and st == 2) or not rk4 else "0.5"
                point = [self.gap_name(f"p{st + 1}{i}") for i in range(count)]
                for i in range(count):
                    self.emit(body, f"{point[i]} = {state[i]} + {half} * {dt} * {temps[st][i]}")
                points.append(point)
        for i in range(count):
            if rk4:
                t = [temps[st][i] for st in range(4)]
                step = f"({t[0]} + 2.0 * {t[1]} + 2.0 * {t[2]} + {t[3]}) / 6.0"
            else:
                step = f"0.5 * ({temps[0][i]} + {temps[1][i]})"
            if "counter" in features and i == 0:
                step = f"{step} * (1.0 + 0.1 * {cnt})"
            self.emit(body, f"{state[i]} = {state[i]} + {dt} * {step}")
        if "counter" in features:
            self.emit(body, f"{cnt} += 1")
        if "swap" in features:
            self.emit(body, f"{state[0]}, {state[1]} = {state[1]}, {state[0]}")
        self.emit(depth, f"{self.sum_target()} ({' + '.join(state)})")
        if "after" in features:  # a stage value of the last step, read after the loop
            self.emit(depth, f"{self.sum_target()} {temps[0][0]} * {state[-1]}")
        self.tags.update(f"scalar_time_{feature}" for feature in features)
        self.tags.add("scalar_time_rk4" if rk4 else "scalar_time_rk2")
        self.tags.add("scalar_time_loop")

    def roll_step(self, depth: int, u: str, step: str) -> None:
        """``u = step``, or through a name of its own (``un = step; u = un``), or with the
        old array kept by another name and written through it after the step."""
        form = self.rng.choice(["direct", "named", "alias"])
        if form == "named":
            self.emit(depth, f"{u}n = {step}")
            self.emit(depth, f"{u} = {u}n")
            return
        if form == "alias":  # the old state, written through its other name afterwards
            self.emit(depth, f"{u}z = {u}")
        self.emit(depth, f"{u} = {step}")
        if form == "alias":
            self.emit(depth, f"{u}z[0] = {u}z[0] * 0.5 + {u}[0]")
            self.emit(depth, f"{u} = {u} + 0.1 * {u}z")

    def helpers_called_twice(self, depth: int) -> None:
        """Helpers with loops called from two places (sourcediff outlines them: the
        derivative calls their own generated vjp): an array-returning one as two stages of
        a step (in a loop or not), or a float-returning one on views and with an int."""
        main, self.rng = self.rng, self.outline_rng
        try:
            self.gap_count += 1
            vec, other = self.rng.choice(self.vectors), self.rng.choice(self.vectors)
            if self.rng.random() < 0.6:
                self.gap_helpers.add("smooth")
                v, k1, k2 = self.gap_name("v"), self.gap_name("k"), self.gap_name("q")
                self.emit(depth, f"{v} = {vec} * 0.5")
                loop = self.rng.random() < 0.5 and self.loop_depth < 2
                if loop:
                    self.emit(depth, f"for {self.gap_name('s')} in range(2):")
                inner = depth + loop
                self.emit(inner, f"{k1} = smooth({v}, {self.scalar(1)})")
                self.emit(inner, f"{k2} = smooth({v} + 0.25 * {k1}, {self.scalar(1)})")
                self.emit(inner, f"{v} = {v} + 0.1 * ({k1} + {k2})")
                if self.rng.random() < 0.3:
                    self.emit(inner, f"{k2}[{self.rng.randrange(4)}] = {self.scalar(1)}")
                self.emit(depth, f"{self.sum_target()} np.sum({v} * {other})")
            else:
                self.gap_helpers.add("energy")
                first = self.rng.choice([vec, f"{vec}[1:]", f"np.sin({vec})"])
                count = self.rng.choice(["n", "2", "3"])
                call = f"energy({first}, {other}, {self.scalar(1)}, {count})"
                second = f"energy({other}, {vec}, {self.scalar(1)}, 3)"
                self.emit(depth, f"{self.sum_target()} ({call} - 0.5 * {second})")
            self.tags.add("helpers_called_twice")
        finally:
            self.rng = main
        if self.into_rng.random() < 0.6:
            self.helper_writing_a_buffer(depth)

    def helper_writing_a_buffer(self, depth: int) -> None:
        """``rates_into(v, c, buf)``, which reads and writes ``buf``, called from three places
        on a buffer the program owns (outlined: the call writes the helper's new array
        back), in a loop or not, with the buffer read in between."""
        main, self.rng = self.rng, self.into_rng
        try:
            self.gap_helpers.add("rates_into")
            vec, buf = self.rng.choice(self.vectors), self.gap_name("w")
            start = self.rng.choice(["np.zeros_like", "np.empty_like", "np.copy"])
            self.emit(depth, f"{buf} = {start}({vec})")
            if start == "np.empty_like":  # read before written: give it values
                j = self.gap_name("j")
                self.emit(depth, f"for {j} in range({buf}.shape[0]):")
                self.emit(depth + 1, f"{buf}[{j}] = 0.5")
            self.emit(depth, f"rates_into({vec}, {self.scalar(1)}, {buf})")
            loop = self.rng.random() < 0.5 and self.loop_depth < 2
            if loop:
                self.emit(depth, f"for {self.gap_name('r')} in range(2):")
            self.emit(depth + loop, f"rates_into(np.sin({vec}), {self.scalar(1)}, {buf})")
            self.emit(depth + loop, f"{self.sum_target()} {buf}[1] * {buf}[2]")
            self.emit(depth, f"rates_into({vec} * 0.5, {self.scalar(1)}, {buf})")
            self.emit(depth, f"{self.sum_target()} np.sum({buf} * {vec})")
            self.tags.add("helper_writing_a_buffer")
        finally:
            self.rng = main

    def double_buffer(self, depth: int) -> None:
        """A time loop over two buffers swapped every step. The spare one is written in
        full before the swap reads it (ends and interior, one slice, or a slice and an
        end), or only in its interior, so that its ends carry values between steps."""
        main, self.rng = self.rng, self.buffer_rng
        try:
            self.gap_count += 1
            vec, state, spare = (
                self.rng.choice(self.vectors),
                self.gap_name("u"),
                self.gap_name("b"),
            )
            step, i, last = self.gap_name("k"), self.gap_name("i"), self.gap_name("m")
            self.emit(depth, f"{state} = {vec}.copy()")
            start = self.rng.choice(["np.empty_like", "np.zeros_like", "np.sin"])
            body, form = depth + 1, self.rng.choice(["ends", "slice", "shifted", "interior"])
            if form == "interior" and start == "np.empty_like":
                start = "np.zeros_like"  # its ends are read, never written (seed 42007)
            self.emit(depth, f"{spare} = {start}({vec})")
            self.emit(depth, f"{last} = {state}.shape[0] - 1")
            self.emit(depth, f"for {step} in range(n):")
            coupling = f"{state}[{i}] + 0.2 * math.sin({state}[{i} - 1] - {state}[{i} + 1])"
            if form in ("ends", "interior"):
                if form == "ends":
                    self.emit(body, f"{spare}[0] = {state}[0] * {self.scalar(1)}")
                    self.emit(body, f"{spare}[{last}] = {state}[{last}]")
                self.emit(body, f"for {i} in range(1, {last}):")
                self.emit(body + 1, f"{spare}[{i}] = {coupling} * {self.scalar(1)}")
            elif form == "slice":
                self.emit(body, f"{spare}[:] = np.tanh({state}) * {self.scalar(1)}")
            else:
                self.emit(body, f"{spare}[1:] = {state}[:-1] * {self.scalar(1)}")
                self.emit(body, f"{spare}[0] = {state}[{last}]")
            self.emit(body, f"{state}, {spare} = {spare}, {state}")
            self.emit(depth, f"{self.sum_target()} np.sum({state} * {spare})")
            self.tags.add("double_buffer" if form != "interior" else "partial_buffer")
        finally:
            self.rng = main

    def conditional_reads(self, depth: int) -> None:
        """A loop over a vector reading neighbours by conditional expressions: periodic
        (one read at a selected index), zero-padded or from another array (branches), an
        index chosen inside the brackets, and a value test (a leaky ramp)."""
        main, self.rng = self.rng, self.select_rng
        try:
            self.gap_count += 1
            vec, other = self.rng.choice(self.vectors), self.rng.choice(self.vectors)
            i, acc, left, right = (self.gap_name(s) for s in ("i", "c", "l", "r"))
            self.emit(depth, f"{acc} = 0.0")
            self.emit(depth, f"for {i} in range({vec}.shape[0]):")
            last = f"{vec}.shape[0] - 1"
            lefts = [
                f"{vec}[{i} - 1] if {i} > 0 else {vec}[{last}]",
                f"{vec}[{i} - 1] if {i} > 0 else 0.25",
                f"{vec}[{i} - 1] if {i} >= 1 else {other}[{i}]",
            ]
            rights = [
                f"{vec}[{i} + 1] if {i} < {last} else {vec}[0]",
                f"{vec}[({i} + 1) if {i} < {last} else 0]",
                f"{vec}[{i} + 1] if {i} + 1 < {vec}.shape[0] else {vec}[{i}]",
            ]
            self.emit(depth + 1, f"{left} = {self.rng.choice(lefts)}")
            self.emit(depth + 1, f"{right} = {self.rng.choice(rights)}")
            ramp = f"{left} * {right} if {left} > {right} else 0.3 * {left} - {right}"
            self.emit(depth + 1, f"{acc} = {acc} + ({ramp}) * {self.scalar(1)}")
            if self.rng.random() < 0.5:
                self.emit(depth + 1, f"{vec}[{i}] = {vec}[{i}] + 0.1 * {right}")
                self.tags.add("conditional_reads_written")
            self.emit(depth, f"{self.sum_target()} {acc}")
            self.tags.add("conditional_reads")
        finally:
            self.rng = main

    def everyday_forms(self, depth: int) -> None:
        """Horner's rule over ``v[::-1]``, a discounted sum over ``reversed(range(...))`` (then
        the builtin ``abs`` of an array),
        a loop variable read after its loop and reused by the next, or a helper updating
        its array argument in place (``v -= c * np.mean(v)``)."""
        main, self.rng = self.rng, self.everyday_rng
        try:
            self.gap_count += 1
            vec, acc, c = self.rng.choice(self.vectors), self.gap_name("h"), self.gap_name("c")
            forms = ["horner", "reversed", "reuse", "helper", "spellings"]
            i, form = self.gap_name("i"), self.rng.choice(forms)
            self.emit(depth, f"{acc} = 0.0")
            if form == "horner":
                self.emit(depth, f"for {c} in {vec}[::-1]:")
                self.emit(depth + 1, f"{acc} = {acc} * {self.scalar(1)} + math.sin({c})")
            elif form == "reversed":
                self.emit(depth, f"for {i} in reversed(range(1, {vec}.shape[0])):")
                self.emit(depth + 1, f"{acc} = {vec}[{i}] + 0.5 * {acc} * {vec}[{i} - 1]")
                self.emit(depth, f"{acc} = {acc} + 0.25 * np.sum(abs({vec} - {acc}))")
            elif form == "reuse":
                self.emit(depth, f"for {i} in range(3):")
                self.emit(depth + 1, f"{vec}[{i}] = {vec}[{i}] + 0.2 * {vec}[{i} + 1]")
                self.emit(depth, f"{acc} = {vec}[{i}] * {self.scalar(1)}")
                self.emit(depth, f"for {i} in range(2, -1, -1):")
                self.emit(depth + 1, f"{acc} = {acc} + {vec}[{i}] * {vec}[{i} + 1]")
            elif form == "spellings":
                self.everyday_spellings(depth, vec, acc, c)
            else:
                self.gap_helpers.add("recenter")
                copy = self.gap_name("w")
                self.emit(depth, f"{copy} = {vec} * 1.5")
                self.emit(depth, f"recenter({copy}, {self.scalar(1)})")
                self.emit(depth, f"{acc} = np.sum({copy} * {vec})")
            self.emit(depth, f"{self.sum_target()} {acc}")
            self.tags.add(f"everyday_{form}")
        finally:
            self.rng = main

    def options_forms(self, depth: int) -> None:
        """A helper called with a string and None or an array for its options, and f's own
        option ``mode`` (a defaulted parameter) choosing between branches, the last of
        which raises."""
        main, self.rng = self.rng, self.option_rng
        try:
            self.gap_count += 1
            self.gap_helpers.add("shaped")
            vec, acc = self.rng.choice(self.vectors), self.gap_name("h")
            self.emit(depth, f'assert {vec}.shape[0] >= 2, f"{vec} has {{{vec}.shape[0]}} values"')
            self.emit(depth, f"if abs({self.scalar(1)}) > 1e12:")
            self.emit(depth + 1, 'raise OverflowError("out of range")')
            kind = self.rng.choice(["sin", "tanh", "cube"])
            weights = self.rng.choice(["None", self.rng.choice(self.vectors)])
            self.emit(depth, f'{acc} = shaped({vec}, {self.scalar(1)}, "{kind}", {weights})')
            if "mode=" not in self.lines[0]:
                mode = self.rng.choice(["fast", "exact", "slow"])
                self.lines[0] = self.lines[0].replace("):", f', mode="{mode}"):')
            self.emit(depth, 'if mode == "fast":')
            self.emit(depth + 1, f"{acc} = {acc} * {self.scalar(1)}")
            self.emit(depth, 'elif mode in ("exact", "slow"):')
            self.emit(depth + 1, f"{acc} = {acc} + math.sin({acc})")
            self.emit(depth, "else:")
            self.emit(depth + 1, "raise ValueError(mode)")
            self.library_calls(depth, vec, acc)
            self.emit(depth, f"{self.sum_target()} {acc}")
            self.tags.add(f"options_{kind}_{'none' if weights == 'None' else 'array'}")
        finally:
            self.rng = main

    def small_vectors(self, depth: int) -> None:
        """Rows of ``m`` as small vectors: constant slices of a row (a negative start too),
        ``np.cross`` and ``np.dot`` of 3-vectors, a helper rotating a vector that returns
        early on one branch, the last element by a negative index, ``len`` of a vector, and
        sometimes a row written into a matrix; sourcediff splits such arrays into numbers
        (``normalize/small_arrays.py``)."""
        main, self.rng = self.rng, self.small_rng
        try:
            self.gap_count += 1
            i, p, q, r = (self.gap_name(stem) for stem in ("i", "p", "q", "r"))
            acc = self.gap_name("s")
            self.emit(depth, f"{acc} = 0.0")
            self.emit(depth, f"for {i} in range(m.shape[0]):")
            self.emit(depth + 1, f"{p} = m[{i}]")
            self.emit(depth + 1, f"{q} = {p}[0:3] * {self.scalar(1)} - {p}[1:4]")
            form = self.rng.choice(["cross", "turn", "both"])
            if form == "turn":
                self.emit(depth + 1, f"{r} = {q} * {p}[-1]")
            else:
                self.emit(depth + 1, f"{r} = np.cross({q}, {p}[:3]) + {p}[-3:] * 0.5")
            if form != "cross":
                self.gap_helpers.add("turn")
                self.emit(depth + 1, f"{r} = turn({r}, {q}, {self.scalar(1)})")
            k = self.rng.randrange(4)
            self.emit(
                depth + 1,
                f"{acc} += np.dot({r}, {q}) * 0.1 + np.sum({r} * {r}) / len({r})"
                f" + {r}[-1] * {p}[{k}]",
            )
            if self.rng.random() < 0.5:  # rows of a local array, read and written
                rows = self.gap_name("f")
                self.lines.insert(self.top_insert, f"    {rows} = np.zeros((m.shape[0], 3))")
                self.top_insert += 1
                self.emit(depth + 1, f"{rows}[{i}] += {r} * 0.5")
                self.emit(depth + 1, f"{rows}[-1 - {i}] -= {q} * {rows}[{i}][0]")
                self.emit(depth, f"{acc} += np.sum({rows} * {rows}) * 0.1")
                self.tags.add("small_vectors_rows")
            self.emit(depth, f"{self.sum_target()} {acc} * 0.1")
            self.tags.add(f"small_vectors_{form}")
        finally:
            self.rng = main

    def rotations(self, depth: int) -> None:
        """A plane rotation by an angle from the program's numbers: ``c = math.cos(th)``
        and ``s = math.sin(th)`` (either first; or ``np.cos``/``np.sin`` of floats), once
        or in a loop that turns the angle every step; sometimes the angle is bound again
        in a branch between the two calls, so that the first no longer holds the value the
        second's partial needs (``analysis/known_calls.py``)."""
        main, self.rng = self.rng, self.rotation_rng
        try:
            self.gap_count += 1
            th, c, s, x, y, k = (self.gap_name(n) for n in ("th", "c", "s", "x", "y", "k"))
            module = self.rng.choice(["math", "math", "np"])
            looped, stale, sin_first = (self.rng.random() < p for p in (0.6, 0.3, 0.3))
            self.emit(depth, f"{th} = {self.scalar(1)}")
            self.emit(depth, f"{x} = {self.scalar(1)}")
            self.emit(depth, f"{y} = {self.rng.choice(self.vectors)}[{self.rng.randrange(4)}]")
            body = depth + 1 if looped else depth
            if looped:
                self.emit(depth, f"{c} = 0.0")  # read after the loop, which may not run
                self.emit(depth, f"for {k} in range({self.rng.choice(['n', '3'])}):")
            calls = [f"{c} = {module}.cos({th})", f"{s} = {module}.sin({th})"]
            self.emit(body, calls[sin_first])
            if stale:
                self.emit(body, f"if {calls[sin_first][: len(c)]} > 0.3:")
                self.emit(body + 1, f"{th} = {th} * 0.5 + 0.1 * {x}")
            self.emit(body, calls[not sin_first])
            self.emit(body, f"{x}, {y} = {c} * {x} - {s} * {y}, {s} * {x} + {c} * {y}")
            if looped:
                self.emit(body, f"{th} = {th} * 0.9 + 0.2 * {y}")
            self.emit(depth, f"{self.sum_target()} ({x} + 0.5 * {y} * {c})")
            features = {"loop": looped, "stale": stale, "sin_first": sin_first}
            self.tags.update(f"rotation_{f}" for f, drawn in features.items() if drawn)
            self.tags.update({"rotation", f"rotation_{module}"})
        finally:
            self.rng = main

    def loop_invariants(self, depth: int) -> None:
        """A loop computing ``h = 0.5 * g`` and an array ``w = v * g`` alike every step
        (moved before the loop by transform/hoist.py), where ``w`` is sometimes written
        in place afterwards (a new array every step: it must stay), a product reads an
        array the loop writes, or ``h`` is read after a loop that may not run."""
        main, self.rng = self.rng, self.invariant_rng
        try:
            self.gap_count += 1
            g, h, w, x, k, p, q = (self.gap_name(n) for n in ("g", "h", "w", "x", "k", "p", "q"))
            vec = self.rng.choice(self.vectors)
            written, changing, after = (self.rng.random() < p for p in (0.5, 0.4, 0.4))
            self.emit(depth, f"{g} = {self.scalar(1)}")
            self.emit(depth, f"{x} = {vec}[{self.rng.randrange(4)}]")
            self.emit(depth, f"{h} = 1.0")
            if changing:
                self.emit(depth, f"{p} = {vec}.copy()")
            self.emit(depth, f"for {k} in range({self.rng.choice(['n', '3', '0'])}):")
            body = depth + 1
            self.emit(body, f"{h} = 0.5 * {g}")
            self.emit(body, f"{w} = {vec} * {g}")
            j = self.rng.randrange(4)
            if written:  # moved before the loop, the writes would pile up
                self.emit(body, f"{w}[{j}] = {w}[{j}] + 0.3 * {x}")
            if changing:
                self.emit(body, f"{q} = {p} * {h}")
                self.emit(body, f"{p}[0] = {p}[0] * 0.9 + 0.1 * math.sin({x})")
                self.emit(body, f"{x} = {x} * 0.8 + {h} * {w}[{j}] + 0.1 * {q}[0]")
            else:
                self.emit(body, f"{x} = {x} * 0.8 + {h} * {w}[{j}]")
            self.emit(
                depth,
                f"{self.sum_target()} ({x} + {h} * {g})" if after else f"{self.sum_target()} {x}",
            )
            features = {"written": written, "changing": changing, "after": after}
            self.tags.update(f"invariant_{f}" for f, drawn in features.items() if drawn)
            self.tags.add("loop_invariant")
        finally:
            self.rng = main

    def vector_masks(self, depth: int) -> None:
        """A mask of a vector's copy: the selection set to a number the derivative follows
        (its adjoint is the selection's summed), scaled in place, or set from itself, once
        or in a loop (where the selection changes with the values)."""
        main, self.rng = self.rng, self.mask_rng
        try:
            self.gap_count += 1
            vec, w, k = self.rng.choice(self.vectors), self.gap_name("w"), self.gap_name("k")
            limit, looped = round(self.rng.uniform(-0.5, 0.5), 2), self.rng.random() < 0.5
            self.emit(depth, f"{w} = {vec} * {self.scalar(1)}")
            body = depth
            if looped:
                self.emit(depth, f"for {k} in range({self.rng.choice(['n', '2'])}):")
                body = depth + 1
            form, selected = self.rng.randrange(3), f"{w}[{w} > {limit}]"
            value = self.scalar(1)
            forms = (f"{selected} = {value}", f"{w}[{w} < {limit}] *= {value}")
            self.emit(body, (*forms, f"{selected} = {selected} * {value} + 0.1")[form])
            if looped:
                self.emit(body, f"{w} = {w} * 0.9 + 0.05 * {vec}")
            self.emit(depth, f"{self.sum_target()} np.sum({w} * {w})")
            self.tags.add(f"vector_mask_{['set', 'scaled', 'from_itself'][form]}")
        finally:
            self.rng = main

    def rebound_results(self, depth: int) -> None:
        """``w = np.tanh(...)`` (an adjoint that reads its result), an element, a slice or
        every element of ``w`` changed in place, then ``w`` bound to a new array, straight
        or each step of a loop: the reverse sweep must restore the elements in the array
        ``w`` named when they were written, under every policy."""
        main, self.rng = self.rng, self.rebound_rng
        try:
            self.gap_count += 1
            vec, w, k, q = self.rng.choice(self.vectors), *map(self.gap_name, ("w", "k", "q"))
            first = self.rng.choice(["np.tanh({})", "np.exp(0.5 * {})", "{} / np.sum({})"])
            then = self.rng.choice(["np.tanh({})", "{} * 1.5", "{} / (1.0 + np.sum({} * {}))"])
            form, looped = self.rng.randrange(3), self.rng.random() < 0.5
            writes = (
                [f"{w}[{self.rng.randrange(4)}] += {self.scalar(1)}"],
                [f"{w}[1:] *= {self.scalar(1)}"],
                [f"for {q} in range({w}.shape[0]):", f"    {w}[{q}] += 0.1 * {self.scalar(1)}"],
            )[form]
            self.emit(depth, f"{w} = {vec} * {self.scalar(1)}")
            body = depth
            if looped:
                self.emit(depth, f"for {k} in range({self.rng.choice(['n', '2'])}):")
                body = depth + 1
            self.emit(body, f"{w} = {first.format(w, w)}")
            for line in writes:
                indent = line.startswith("    ")
                self.emit(body + indent, line.strip())
            self.emit(body, f"{w} = {then.format(w, w, w)}")
            self.emit(depth, f"{self.sum_target()} np.sum({w} * {vec})")
            self.tags.add(f"rebound_{['element', 'slice', 'all'][form]}")
        finally:
            self.rng = main

    def builtin_spellings(self, depth: int) -> None:
        """The builtin ``max``/``min`` of an array and of a tuple, ``math.hypot`` of three
        numbers, ``np.any``/``.all()`` deciding a branch, ``np.count_nonzero`` and
        ``np.searchsorted`` scaling a value, ``np.eye`` with an offset, nested ``for _ in``
        loops, a minimum from ``float('inf')`` over ``reversed(v)``, or a root, logarithm or
        fractional power masked where its argument is exactly 0 (strong zero), or a matrix
        read through two integer arrays at once (``m[r, r[::-1]]``), or two closures of one
        ``def`` and an alias of one called with other options, or index pairs unpacked from
        the rows of an integer array (``for (i, j), w in zip(pairs, v)``, ``i, j = pairs[1]``),
        or ``pow``, ``math.fsum``, ``.item()``, ``np.heaviside``, ``np.add.at``, ``.sort()``,
        ``np.triu_indices``, or views written in place (``inner = w[1:-1]; inner *= c``,
        ``for p in m: p[0] += ...``)."""
        main, self.rng = self.rng, self.spelling_rng
        try:
            self.gap_count += 1
            vec, acc = self.rng.choice(self.vectors), self.gap_name("b")
            forms = ["extremes", "truth", "counts", "eye", "repeats", "reversed"]
            forms += ["masked", "pairs", "closures", "rows", "spelled", "views"]
            form = self.rng.choice(forms)
            value = self.scalar(1)
            if form == "extremes":
                other = f"max({vec} * {value}) + min(({vec}[0], {value}, {vec}[2] * 0.5))"
                self.emit(depth, f"{acc} = {other} + math.hypot({vec}[1], {value}, 0.5)")
            elif form == "truth":
                self.emit(depth, f"{acc} = {value}")
                test = self.rng.choice([f"np.any({vec} > 0.3)", f"({vec} < 0.8).all()"])
                self.emit(depth, f"if {test}:")
                self.emit(depth + 1, f"{acc} = {acc} * np.sum(np.sin({vec}))")
            elif form == "counts":
                count = f"np.count_nonzero({vec} > 0.0)"
                slot = f"np.searchsorted(np.array([-0.5, 0.0, 0.5]), {vec}[1])"
                self.emit(depth, f"{acc} = {value} * {count} + {vec}[0] * {slot}")
            elif form == "eye":
                shifted = f"np.eye({vec}.shape[0], k={self.rng.choice([1, -1])})"
                self.emit(depth, f"{acc} = np.sum(({shifted} @ {vec}) * {vec}) * {value}")
            elif form == "reversed":
                v = self.gap_name("v")
                self.emit(depth, f"{acc} = float('inf')")
                self.emit(depth, f"for {v} in reversed({vec}):")
                self.emit(depth + 1, f"{acc} = min({acc}, {v} * {value})")
            elif form == "masked":
                d = self.gap_name("d")
                quotient = f"{d} / np.sqrt({d})"  # 0 / 0 at d[0]: both partials unbounded
                unbounded = self.rng.choice(
                    [f"np.sqrt({d})", f"np.log({d})", f"{d} ** 0.75", quotient]
                )
                self.emit(depth, f"{d} = ({vec} - {vec}[0]) ** 2  # {d}[0] is exactly 0")
                self.emit(depth, f"{acc} = np.sum(np.where({d} > 0, {unbounded}, 0.0)) * {value}")
            elif form == "rows":
                self.gap_helpers.add("PAIRS")
                i, j, w = self.gap_name("i"), self.gap_name("j"), self.gap_name("w")
                self.emit(depth, f"{acc} = {value}")
                self.emit(depth, f"for ({i}, {j}), {w} in zip(PAIRS, {vec}):")
                self.emit(depth + 1, f"{acc} = {acc} * 0.5 + {w} * {vec}[{i}] * {vec}[{j}]")
                self.emit(depth, f"for {i}, {j} in PAIRS:")
                self.emit(depth + 1, f"{acc} = {acc} + np.sin({vec}[{i}] - {vec}[{j}])")
                self.emit(depth, f"{i}, {j} = PAIRS[1]")
                self.emit(depth, f"{acc} = {acc} + {vec}[{i}] * {vec}[{j}]")
            elif form == "spelled":
                out, y = self.gap_name("out"), self.gap_name("y")
                self.emit(depth, f"{out} = np.zeros(3)")
                self.emit(depth, f"np.add.at({out}, np.array([0, 2, 2, 1]), {vec} * {value})")
                self.emit(depth, f"{y} = {vec} * np.heaviside({vec} - 0.1, 0.5)")
                self.emit(depth, f"{y}.sort()")
                k = self.gap_name("k")
                terms = f"pow({y}[1], 2) + math.fsum([{out}[{k}] ** 2 for {k} in range(3)])"
                self.emit(depth, f"{acc} = {terms} + ({vec}[2:3] * {y}[0]).item()")
                upper = f"np.outer({vec}, {vec})[np.triu_indices({vec}.shape[0], 1)]"
                self.emit(depth, f"{acc} = {acc} + np.sum({upper})")
            elif form == "views":
                w, inner, m, p = (self.gap_name(n) for n in ("w", "inner", "m", "p"))
                self.emit(depth, f"{w} = {vec} * 1.0")
                self.emit(depth, f"{inner} = {w}[1:-1]")
                self.emit(depth, f"{inner} *= {value}")
                self.emit(depth, f"{m} = np.outer({vec}, {w})")
                self.emit(depth, f"for {p} in {m}:")
                self.emit(depth + 1, f"{p}[0] += 0.5 * {p}[1]")
                self.emit(depth, f"{acc} = np.sum({w} * {vec}) + np.sum({m} ** 2)")
            elif form == "closures":
                self.gap_helpers.add("scaled")
                both = f"np.sum(THREE({vec}) + HALF({vec}, 3))"
                self.emit(depth, f"{acc} = {both} * {value} + np.sum(SAME_AS_THREE({vec}, 1))")
            elif form == "pairs":
                m, r = self.gap_name("m"), self.gap_name("r")
                cols = self.rng.choice([f"{r}[::-1]", f"-1 - {r} % 2"])  # repeats, negatives
                self.emit(depth, f"{m} = np.outer({vec}, np.cos({vec}))")
                self.emit(depth, f"{r} = np.arange({vec}.shape[0])")
                self.emit(depth, f"{acc} = np.sum({m}[{r}, {cols}] * {value})")
            else:
                self.emit(depth, f"{acc} = {value}")
                self.emit(depth, "for _ in range(2):")
                self.emit(depth + 1, "for _ in range(2):")
                self.emit(depth + 2, f"{acc} = math.tanh({acc}) + 0.1 * {vec}[1]")
            self.emit(depth, f"{self.sum_target()} {acc}")
            self.tags.add(f"builtin_{form}")
        finally:
            self.rng = main

    def library_calls(self, depth: int, vec: str, acc: str) -> None:
        """NumPy functions sourcediff writes in the subset (``library.py``), one of them
        called with two choices of its options (``x=None`` and an array), a matrix
        built from a list of arrays, ``np.where(c)`` indices and a positional norm order."""
        gx, gy = self.gap_name("X"), self.gap_name("Y")
        calls = [
            f"np.trapezoid({vec} * {vec}, dx=0.5) + np.trapezoid(np.sin({vec}), {vec} * 2.0)",
            f"np.median({vec}) + np.polyval({vec}, {self.scalar(1)})",
            f"np.sum(np.tile({vec}, 2) * np.repeat({vec}, 2))"
            f" + np.sum(np.cross({vec}[:3], {vec}[1:]))",
            f"np.sum({gx} * {gy}) + np.float64({vec}[0])",
            f"np.sum(np.array([{vec}, np.sin({vec}) * 2.0]) @ {vec})",  # rows of arrays
            f"np.sum({vec}[np.where({vec} > 0.0)[0]] ** 2)"
            f" + np.linalg.norm(np.outer({vec}, {vec}), 'fro')",
        ]
        self.emit(depth, f"{gx}, {gy} = np.meshgrid({vec}, {vec}[:3] * {self.scalar(1)})")
        self.emit(depth, f"{acc} = {acc} + 0.1 * ({self.rng.choice(calls)})")
        self.tags.add("library")

    def everyday_spellings(self, depth: int, vec: str, acc: str, c: str) -> None:
        """``math.log(x, base)``, a module-level tuple iterated and indexed, ``m[i][j] = v``,
        the methods ``clip``/``trace``/``transpose``, the builtin ``sum`` of a vector and
        of a matrix, a list of numbers joined to an array, and offset diagonals."""
        self.gap_helpers.add("TUP")
        m = self.gap_name("m")
        self.emit(depth, f"{m} = np.outer({vec}, {vec}.clip(-0.5, 0.5))")
        self.emit(depth, f"{m}[1][2] = {self.scalar(1)}")
        self.emit(depth, f"for {c} in TUP:")
        self.emit(depth + 1, f"{acc} = {acc} * 0.5 + {c} * {vec}[1] * TUP[0]")
        joined = f"np.concatenate(([{acc}], {vec}))"
        self.emit(depth, f"{acc} = {acc} + math.log(1.0 + {vec}[0] * {vec}[0], 10) + sum({joined})")
        self.emit(depth, f"{acc} = {acc} + {m}.trace() + sum(sum({m}.transpose())) * 0.1")
        offset = f"np.sum(np.diag({vec}[1:], 1) * {m}) + np.sum(np.diag({m}, k=-1))"
        self.emit(depth, f"{acc} = {acc} + 0.1 * ({offset})")

    def gap_name(self, stem: str) -> str:
        return f"g{stem}_{self.gap_count}"

    def repeated_read_around_helper(self, depth: int) -> None:
        """``t = a[1] * a[1] + a[1]``, a helper writing ``a``, then ``a[1] * a[1]`` again."""
        vec, i, j = self.rng.choice(self.vectors), self.rng.randrange(4), self.rng.randrange(4)
        t, h, r = self.gap_name("t"), self.gap_name("h"), self.gap_name("r")
        self.emit(depth, f"{t} = {vec}[{i}] * {vec}[{i}] + {vec}[{self.rng.choice([i, j])}]")
        calls = [f"scale_first({vec}, math.tanh({t}))", f"scale_first({vec}, 0.9)"]
        calls.append(f"bump_at({vec}, {self.rng.choice([i, j, 0])}, 0.5 * math.tanh({t}))")
        if self.loop_depth == 0:  # an element of the written array as the factor
            calls.append(f"scale_first({vec}, {vec}[{i}])")
        call = self.rng.choice(calls)
        if "bump_at" in call:
            self.gap_helpers.add("bump_at")
        used = self.rng.random() < 0.5
        self.emit(depth, f"{h} = {call}" if used else call)
        self.emit(depth, f"{r} = {vec}[{i}] * {vec}[{i}] - {vec}[{j}] * {vec}[{i}]")
        self.emit(depth, f"{self.sum_target()} ({t} + {r}{f' + {h}' if used else ''})")
        self.tags.add("repeated_read_around_helper")

    def equal_array_exprs_one_written(self, depth: int) -> None:
        """``p = a * 2.0``, ``q = a * 2.0`` (or ``p, q = a * 2.0, a * 2.0``), one of the two
        written in place afterwards, both read in the result."""
        if self.rng.random() < 0.25:
            self._equal_matrix_exprs(depth)
            return
        vec, other = self.rng.choice(self.vectors), self.rng.choice(self.vectors)
        exprs = [f"{vec} * 2.0", f"np.sin({vec})", f"{vec} * {self.scalar(1)}", f"m @ {vec}"]
        exprs += [f"np.tanh({vec} + {other})", f"{vec}[{self.rng.choice(INDEX_ARRAYS)}] * 1.5"]
        expr = self.rng.choice(exprs)
        p, q = self.gap_name("p"), self.gap_name("q")
        self.emit_equal_pair(depth, p, q, expr)
        w, o = (p, q) if self.rng.random() < 0.7 else (q, p)
        k, h = self.rng.randrange(4), self.gap_name("h")
        writes = [
            f"{w}[{k}] = {self.scalar(1)}",
            f"{w}[1:] += {o}[:3]",
            f"{w}[:2] = {o}[2:] * 0.5",
            f"{w} *= 0.5",
            f"{w}[{self.rng.choice(INDEX_ARRAYS)}] += 0.5 * {o}",
            f"np.multiply({o}, 0.5, out={w})",
            f"{h} = scale_first({w}, 0.75)",
        ]
        write = self.rng.choice(writes)
        self.emit(depth, write)
        extra = f" + {h}" if write.startswith(h) else ""
        k1, k2 = self.rng.randrange(4), self.rng.randrange(4)
        total = f"np.sum({p} * {q}) + {q}[{k1}] - {p}[{k2}]{extra}"
        self.emit(depth, f"{self.sum_target()} ({total})")
        self.tags.add("equal_array_exprs_one_written")

    def emit_equal_pair(self, depth: int, p: str, q: str, expr: str) -> None:
        """``p = expr`` and ``q = expr``, as two statements or one tuple assignment."""
        if self.rng.random() < 0.3:
            self.emit(depth, f"{p}, {q} = {expr}, {expr}")
            self.tags.add("equal_array_exprs_tuple")
        else:
            self.emit(depth, f"{p} = {expr}")
            self.emit(depth, f"{q} = {expr}")

    def _equal_matrix_exprs(self, depth: int) -> None:
        """Two equal matrix expressions, one written in place afterwards."""
        vec = self.rng.choice(self.vectors)
        expr = self.rng.choice(["m * 0.5", "m @ m", "np.tanh(m)", f"m * {vec}"])
        p, q = self.gap_name("P"), self.gap_name("Q")
        self.emit_equal_pair(depth, p, q, expr)
        w, o = (p, q) if self.rng.random() < 0.7 else (q, p)
        row = self.rng.randrange(4)
        writes = [
            f"{w}[{row}, :] = np.sin({vec})",
            f"{w}[:, 0] += {o}[:, {row}]",
            f"{w}[1:, :] -= 0.5 * {o}[:-1, :]",
            f"{w}[{row}, {self.rng.randrange(4)}] = {self.scalar(1)}",
        ]
        self.emit(depth, self.rng.choice(writes))
        total = f"np.sum({p} * {q}) + {q}[0, {row}] - {p}[{row}, 1]"
        self.emit(depth, f"{self.sum_target()} ({total})")
        self.tags.add("equal_array_exprs_one_written")

    def typed_arrays_in_helpers(self, depth: int) -> None:
        """Int arrays (``np.arange(4)``, index arrays, ``EDGE``, a local one written) and a
        float32 constant (or a local float32 array) passed to helpers that read them."""
        vec = self.rng.choice(self.vectors)
        index = self.rng.choice(["np.arange(4)", "EDGE"] + INDEX_ARRAYS)
        form = self.rng.choice(["weigh_int", "mix_int", "scatter_at", "weigh32", "dot32", "pick32"])
        self.gap_helpers.add(form)
        if form in ("mix_int", "pick32") and self.rng.random() < 0.5:
            local = self.gap_name("i")  # a local int array, written before the call
            fresh = "np.arange(4)" if index == "EDGE" else index  # EDGE is read-only
            self.emit(depth, f"{local} = {fresh}")
            self.emit(depth, f"{local}[{self.rng.randrange(4)}] = {self.rng.randrange(4)}")
            index = local
        w32 = "W32"
        if form in ("weigh32", "dot32", "pick32"):
            self.gap_helpers.add("W32")
            if self.rng.random() < 0.3:  # a local float32 array
                w32 = self.gap_name("w")
                self.emit(depth, f"{w32} = np.zeros(4, dtype=np.float32) + W32")
                self.emit(depth, f"{w32}[{self.rng.randrange(4)}] = 0.125")
        calls = {
            "weigh_int": f"weigh_int({vec}, {index})",
            "mix_int": f"mix_int({vec}, {index})",
            "weigh32": f"weigh32({vec}, {w32})",
            "dot32": f"dot32({w32}, {vec}, {self.scalar(1)})",
            "pick32": f"pick32({vec}, {w32}, {index})",
        }
        if form == "scatter_at":
            self.emit(depth, f"scatter_at({vec}, {index}, {self.scalar(1)})")
            calls[form] = f"np.sum({vec} * {vec})"
        self.emit(depth, f"{self.sum_target()} {calls[form]}")
        self.tags.add("typed_arrays_in_helpers")
        self.tags.add("float32_helper" if "32" in form else "int_array_helper")

    def _elementwise_run(self, depth: int) -> None:
        if self.rng.random() < 0.3:
            self._matrix_run(depth)
            return
        vec, other = self.rng.choice(self.vectors), self.rng.choice(self.vectors)
        self.fusion_count += 1
        name = f"e_{self.fusion_count}"
        r = self.rng.random()
        if r < 0.3 and vec != other:
            self.emit(depth, f"{vec}[1:-1] = 0.5 * ({other}[:-2] + {other}[2:]) * {self.scalar(1)}")
            self.tags.add("fused_stencil_store")
        elif r < 0.55:
            self.emit(depth, f"{name} = {vec}[1:] - {other}[:-1] * {self.scalar(1)}")
            self.emit(depth, f"{self.sum_target()} np.sum(np.exp(-{name} * {name}) + {name})")
            self.tags.add("fused_sum")
        elif r < 0.8:
            row, col = self.rng.randrange(4), self.rng.randrange(4)
            self.emit(depth, f"{name} = (m[{row}, :] - {vec}) * np.tanh(m[:, {col}])")
            self.emit(depth, f"{self.sum_target()} (np.sum({name} * {name}) + {name}[0])")
            self.tags.add("fused_rows")
        else:
            self.emit(depth, f"{vec}[1:] = {vec}[:-1] * 0.5 + np.sin({other}[1:])")
            self.tags.add("overlapping_slice_update")

    def _matrix_run(self, depth: int) -> None:
        """2-D fused runs: products of shifted blocks of ``m``, summed, or a five-point
        stencil of ``m`` stored into the interior of a copy."""
        self.fusion_count += 1
        name = f"e_{self.fusion_count}"
        if self.rng.random() < 0.5:
            self.emit(depth, f"{name} = m[1:, 1:] * m[:-1, :-1] * {self.scalar(1)}")
            self.emit(depth, f"{self.sum_target()} np.sum(np.tanh({name}) + {name})")
            self.tags.add("fused_blocks")
        else:
            self.emit(depth, f"{name} = m.copy()")
            stencil = "0.25 * (m[:-2, 1:-1] + m[2:, 1:-1] + m[1:-1, :-2] + m[1:-1, 2:])"
            self.emit(depth, f"{name}[1:-1, 1:-1] = {stencil} * {self.scalar(1)}")
            self.emit(depth, f"{self.sum_target()} np.sum({name} * {name})")
            self.tags.add("fused_matrix_stencil")

    def sum_target(self) -> str:
        """``x = x + 0.1 * `` for a float ``x`` of the program (completed by the caller)."""
        target = self.rng.choice(self.floats)
        return f"{target} = {target} + 0.1 *"

    def branch(self, depth: int) -> None:
        self.emit(depth, f"if {self.scalar(1)} < {self.scalar(1)}:")
        self.block(depth + 1, self.rng.randint(1, 2))
        if self.rng.random() < 0.3:
            self.emit(depth + 1, f"return {self.result()}")
            self.tags.add("early_return")
        if self.rng.random() < 0.3:
            self.emit(depth, f"elif {self.scalar(1)} > 0.2:")
            self.block(depth + 1, 1)
            self.tags.add("elif")
        if self.rng.random() < 0.6:
            self.emit(depth, "else:")
            self.block(depth + 1, self.rng.randint(1, 2))
        self.tags.add("if")

    def for_loop(self, depth: int) -> None:
        header = self.rng.choice(
            ["range(n)", "range(4)", "range(1, 4)", "range(3, -1, -1)", "range(0, 4, 2)"]
        )
        triangular = self.loop_var is not None and self.bound_rng.random() < 0.5
        if triangular:  # bounds from the outer variable: recomputed in the reverse sweep
            outer = self.loop_var
            header = self.bound_rng.choice(
                [f"range({outer} + 1, n)", f"range({outer} % 4)", f"range(1, {outer} % 3 + 2)"]
            )
            self.tags.add("triangular_for")
        self.loop_depth += 1
        variable = "i" if self.loop_depth == 1 else "j"
        outer, self.loop_var = self.loop_var, variable
        self.emit(depth, f"for {variable} in {header}:")
        self.block(depth + 1, self.rng.randint(1, 3))
        self.loop_depth -= 1
        self.loop_var = outer
        self.tags.add("for_negative_step" if "-1)" in header else "for")

    def while_loop(self, depth: int) -> None:
        counter = self.fresh("k")
        self.emit(depth, f"{counter} = 0")
        guard = self.rng.choice(self.floats)
        self.emit(depth, f"while {counter} < n and {guard} < 5.0:")
        self.loop_depth += 1
        self.emit(depth + 1, f"{counter} += 1")  # first, so that a continue cannot skip it
        self.block(depth + 1, self.rng.randint(1, 2))
        self.loop_depth -= 1
        self.tags.add("while")

    def loop_exit(self, depth: int) -> None:
        word = self.rng.choice(["break", "continue"])
        self.emit(depth, f"if {self.scalar(1)} > 0.5:")
        self.emit(depth + 1, word)
        self.tags.add(word)

    def helper_call(self, depth: int) -> None:
        r = self.rng.random()
        u, v = self.fresh("h"), self.fresh("h")
        if r < 0.5:
            for name in (u, v):
                self.lines.insert(self.top_insert, f"    {name} = 0.0")
                self.top_insert += 1
            self.emit(depth, f"{u}, {v} = pair({self.scalar(1)}, {self.scalar(1)})")
            self.floats += [u, v]
            self.tags.add("helper_tuple")
        elif r < 0.8:
            self.lines.insert(self.top_insert, f"    {u} = 0.0")
            self.top_insert += 1
            self.emit(depth, f"{u} = scale_first({self.rng.choice(self.vectors)}, 0.9)")
            self.floats.append(u)
            self.tags.add("helper_writes_array")
        elif r < 0.9:
            self.nested_call(depth, u)
        else:
            name = self.rng.choice(self.floats)
            self.emit(depth, f"{name} = same({name})")
            self.tags.add("helper_identity")

    def small_list(self, depth: int) -> None:
        """A list of floats used as a small array: indexed, written, iterated over."""
        name, total = self.fresh("lst"), self.fresh("s")
        self.lines.insert(self.top_insert, f"    {name} = [x0, 0.5 * x1, 1.25]")
        self.lines.insert(self.top_insert + 1, f"    {total} = 0.0")
        self.top_insert += 2
        k = self.rng.randrange(3)
        self.emit(depth, f"{name}[{k}] = {self.scalar(1)}")
        if self.rng.random() < 0.5:
            item = self.fresh("e")
            self.emit(depth, f"for {item} in {name}:")
            self.emit(depth + 1, f"{total} += {item} * {self.scalar(2)}")
        else:
            self.emit(depth, f"{total} = {name}[{self.rng.randrange(3)}] * {self.scalar(1)}")
        self.floats.append(total)
        self.tags.add("small_list")

    def nested_call(self, depth: int, name: str) -> None:
        """A nested ``def`` or named lambda reading the function's variables (``x0``, ``x1``
        and ``a`` may be rebound or written before the call: closures read late)."""
        helper = self.fresh("local")
        if self.rng.random() < 0.5:
            definition = [f"    {helper} = lambda u, c=0.5: u * x1 + c * math.sin(a[0] * u)"]
            self.tags.add("nested_lambda")
        else:
            definition = [
                f"    def {helper}(u, c=0.5):",
                "        w = u * x0 + c",
                "        return w * math.cos(x1) + np.sum(a * u)",
            ]
            self.tags.add("nested_def")
        for line in definition:
            self.lines.insert(self.top_insert, line)
            self.top_insert += 1
        self.lines.insert(self.top_insert, f"    {name} = 0.0")
        self.top_insert += 1
        self.emit(depth, f"{name} = {helper}({self.scalar(1)})")
        self.floats.append(name)

    def swap_or_tuple(self, depth: int) -> None:
        if len(self.vectors) > 1 and self.rng.random() < 0.5:
            p, q = self.rng.sample(self.vectors, 2)
            self.emit(depth, f"{p}, {q} = {q}, {p}")
            self.tags.add("swap")
        else:
            p, q = self.rng.sample(self.floats, 2)
            self.emit(depth, f"{p}, {q} = {q}, {p}")
            self.tags.add("tuple_swap")

    def matrix_write(self, depth: int) -> None:
        vec = self.rng.choice(self.vectors)
        row = f"{self.loop_var} % 4" if self.loop_var else str(self.rng.randrange(4))
        forms = [
            (f"m[{row}, {self.rng.randrange(4)}] = {self.scalar(1)}", "matrix_element_write"),
            (f"m[1:3, :] *= {self.rng.choice(['0.5', '1.2'])}", "matrix_slice_write"),
            (f"m[:, {self.rng.randrange(4)}] = np.tanh({vec})", "matrix_column_write"),
            (f"m[{row}] = np.sin({vec})", "matrix_row_write"),
            ("m = m * 0.9", "matrix_rebind"),
            (f"m[{self.rng.choice(INDEX_ARRAYS)}] *= 0.9", "matrix_row_scatter"),
            (f"m += 0.1 * np.outer({vec}, {vec})", "matrix_inplace"),
            (f"{self.reduced_vector()} = np.sum(m, axis={self.rng.randrange(2)})", "axis_sum"),
        ]
        line, tag = self.rng.choice(forms)
        self.emit(depth, line)
        self.tags.add(tag)

    def reduced_vector(self) -> str:
        name = self.fresh("v")
        self.lines.insert(self.top_insert, f"    {name} = a.copy()")
        self.top_insert += 1
        self.vectors.append(name)
        return name

    def tuple_pack(self, depth: int) -> None:
        p, q = self.rng.sample(self.floats, 2)
        packed = self.fresh("p")
        self.emit(depth, f"{packed} = ({self.scalar(1)}, {q})")
        self.emit(depth, f"{p}, {q} = {packed}")
        self.tags.add("tuple_pack")

    def comprehension(self, depth: int) -> None:
        """A generator expression reduced by sum/max/min, or a list comprehension used as
        an array (indexed, iterated over, passed to NumPy)."""
        name, vec, j = self.fresh("c"), self.rng.choice(self.vectors), self.fresh("j")
        self.lines.insert(self.top_insert, f"    {name} = 0.0")
        self.top_insert += 1
        form = self.rng.choice(["sum", "max", "min", "nested", "list", "append"])
        if form == "sum":
            value = f"sum({vec}[{j}] * {self.scalar(2)} for {j} in range(4) if {vec}[{j}] > -0.5)"
        elif form in ("max", "min"):
            value = f"{form}({vec}[{j}] * x0 + {j} for {j} in range(n))"
        elif form == "nested":
            i = self.fresh("i")
            value = f"sum(m[{i}, {j}] * {vec}[{j}] for {i} in range(4) for {j} in range({i}))"
        elif form == "append":  # a list built with append, read as it grows
            items, j = self.fresh("items"), self.fresh("j")
            self.lines.insert(self.top_insert, f"    {items} = [x1]")
            self.top_insert += 1
            self.emit(depth, f"for {j} in range(n + 1):")
            self.emit(depth + 1, f"{items}.append({items}[-1] * {self.scalar(2)} + {vec}[{j}])")
            value = f"np.sum(np.array({items}) ** 2) + {items}[len({items}) - 2] + sum({items})"
        else:
            items, e = self.fresh("items"), self.fresh("e")
            self.emit(depth, f"{items} = [math.sin({e}) * {self.scalar(2)} for {e} in {vec}]")
            value = f"np.sum(np.array({items}) * {vec}) + {items}[1] * len({items}) + sum({items})"
        self.emit(depth, f"{name} = {value}")
        self.floats.append(name)
        self.tags.add(f"comprehension_{form}")

    def rows_loop(self, depth: int) -> None:
        name = self.fresh("r")
        self.lines.insert(self.top_insert, f"    {name} = 0.0")
        self.top_insert += 1
        self.floats.append(name)
        row, vec = self.fresh("row"), self.rng.choice(self.vectors)
        form = self.rng.choice(["rows", "enumerate", "zip", "enumerate_zip"])
        if form == "rows":
            self.emit(depth, f"for {row} in m:")
            self.emit(depth + 1, f"{name} += np.sum({row} * {vec}) * 0.1")
        elif form == "enumerate":
            index, value = self.fresh("i"), self.fresh("e")
            self.emit(depth, f"for {index}, {value} in enumerate({vec} * 0.5):")
            self.emit(depth + 1, f"{name} += {value} * math.sin({value} + {index})")
        elif form == "zip":
            value = self.fresh("e")
            self.emit(depth, f"for {row}, {value} in zip(m, {vec}):")
            self.emit(depth + 1, f"{name} += np.sum({row} * {row}) * {value} * 0.1")
        else:
            index, value = self.fresh("i"), self.fresh("e")
            self.emit(depth, f"for {index}, ({row}, {value}) in enumerate(zip(m, {vec})):")
            self.emit(depth + 1, f"{name} += {row}[{index}] * {value}")
        self.tags.add("for_rows" if form == "rows" else form)

    def self_assign(self, depth: int) -> None:
        name = self.rng.choice(self.floats + self.vectors)
        self.emit(depth, f"{name} = {name}")
        self.tags.add("self_assign")

    def tensor(self) -> str:
        """A local rank-3 array (2, 4, 4), stacked from ``m`` and ``a``'s outer product."""
        if self.tensor_name is None:
            self.tensor_name = "t3d"
            self.lines.insert(self.top_insert, "    t3d = np.stack((m, np.outer(a, a)), axis=0)")
            self.top_insert += 1
        return self.tensor_name

    def tensor_statement(self, depth: int) -> None:
        """Writes into, slice updates of and reductions over a rank-3 array."""
        t, vec = self.tensor(), self.rng.choice(self.vectors)
        forms = [
            (f"{t}[{self.rng.randrange(2)}] = m * {self.scalar(1)}", "rank3_slab_write"),
            (f"{t}[:, 1:3, :] += 0.5 * {t}[:, :2, :]", "rank3_slice_update"),
            (f"{t}[1, :, {self.rng.randrange(4)}] = np.sin({vec})", "rank3_fibre_write"),
            (
                f"{self.rng.choice(self.floats)} += np.sum({t}[:, 1:, :2] * {t}[:, :-1, 1:3])",
                "rank3_reduce",
            ),
            (f"{vec} = np.sum({t}, axis={self.rng.randrange(1, 3)})[0] * 0.5", "rank3_axis_sum"),
        ]
        line, tag = self.rng.choice(forms)
        self.emit(depth, line)
        self.tags.add(tag)

    def unpack_or_out(self, depth: int) -> None:
        """Unpacking into elements, and NumPy's ``out=`` keyword."""
        vec, other = self.rng.choice(self.vectors), self.rng.choice(self.vectors)
        i, j = self.rng.sample(range(4), 2)
        forms = [
            (f"{vec}[{i}], {vec}[{j}] = {self.scalar(1)}, {vec}[{i}]", "unpack_elements"),
            (
                f"{vec}[{i}], {self.rng.choice(self.floats)} = {self.scalar(1)}, {other}[{j}]",
                "unpack_mixed",
            ),
            (f"np.multiply({other}, {self.scalar(2)}, out={vec})", "out_keyword"),
            (f"np.add({vec}, np.sin({other}), out={vec})", "out_keyword"),
        ]
        line, tag = self.rng.choice(forms)
        self.emit(depth, line)
        self.tags.add(tag)

    def result(self) -> str:
        floats = " + ".join(self.rng.sample(self.floats, min(3, len(self.floats))))
        vec = self.rng.choice(self.vectors)
        matrix = " + 0.1 * np.sum(m * m)" if self.rng.random() < 0.5 else ""
        if self.tensor_name is not None:
            matrix += f" + 0.05 * np.sum({self.tensor_name} ** 2)"
        return f"{floats} + np.sum({vec} * {vec}){matrix}"


def generate(seed: int, gaps: bool = False, extras: bool = False) -> Program:
    """The program of ``seed`` (deterministic); with ``gaps``, also the constructs of
    :meth:`_Writer.gap_construct`, and with ``extras`` those of ``extras.py``, inserted
    into the program ``seed`` has without them."""
    rng = random.Random(seed)
    writer = _Writer(rng)
    writer.gaps = gaps
    writer.extras = extras
    writer.loop_var = None
    writer.tensor_name = None
    writer.emit(0, "def f(x0, x1, a, m, n):")
    writer.top_insert = len(writer.lines)
    writer.block(1, rng.randint(3, 7))
    writer.emit(1, f"return {writer.result()}")
    helpers = HELPERS + "".join(
        f"\n\n{text}\n" for name, text in GAP_HELPERS.items() if name in writer.gap_helpers
    )
    helpers += "".join(
        f"\n\n{text}\n" for name, text in EXTRA_HELPERS.items() if name in writer.extra_helpers
    )
    imports = "import functools\n" if "twice_sin" in writer.extra_helpers else ""
    imports += "import math\n\nimport numpy as np\n"
    imports += "import scipy.special\n" if "scipy.special" in writer.extra_helpers else ""
    source = imports + "\n" + helpers + "\n\n"
    source += "\n".join(writer.lines)
    if rng.random() < 0.2:  # drawn last: the rest of the program is the same either way
        source += "\n" + DICT_VARIANT
        writer.tags.add("dict_params")
    if rng.random() < 0.2:  # drawn after the dict's: the programs before it are kept
        source += "\n" + TUPLE_VARIANT
        writer.tags.add("tuple_params")
    return Program(seed, source + "\n", writer.tags)


# The same function taking its floats as a dict of parameters (JAX style): the campaign
# compares its gradient, gathered by key, with the same reference.
DICT_VARIANT = """

def first_of(q):
    return q["x0"]


def f_dict(p, a, m, n):
    scale = p["x1"]
    return f(first_of(p), scale, a, m, n)"""


# The same function taking its floats as a tuple of parameters (unpacked, read by position
# and by len, given to a helper as a tuple written out and as a local tuple, which the
# helper passes on to another that unpacks it): the campaign compares its gradient, a
# tuple, with the same reference.
TUPLE_VARIANT = """

def head_of(q):
    u, _ = q
    return u


def first_of_pair(q):
    return head_of(q)


def f_tuple(p, a, m, n):
    x0, x1 = p
    pair = (x0, x1)
    first = 0.5 * (first_of_pair(pair) + head_of((x0, x1)))  # x0, exactly
    return f(first, p[-1] * (len(p) - 1), a, m, n)"""
