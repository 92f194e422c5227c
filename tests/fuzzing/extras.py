"""Constructs drawn from a stream of their own (``generate(seed, extras=True)``).

``pass`` in branches and loops, builtin ``max``/``min`` of more than two numbers, the
inverse hyperbolic functions (``math`` and NumPy), ``np.fmod``/``fmax``/``fmin``, a helper
wrapped by a ``functools.wraps`` decorator, a helper called with some of its defaults
left out or given by keyword, ``for``/``while`` loops with ``else``, and masks combined
with ``&``, ``|``, ``^``, ``~``, views passed to a helper that writes into them, and
masks of the matrix's own shape (read, and set to a number in a copy or in place),
``np.diff`` with ``n=`` and ``axis=``, and rows of the matrix written in place through a
name (``row = m[k]; row *= s``, ``for row in m: row += v``),
``np.linalg.matrix_power``, ``np.median``/``np.quantile``/``np.percentile`` (beside them
``np.amax``/``np.amin``, and ``np.linalg.norm`` of orders 1 and inf), ``scipy.special``
functions (``expit``, ``logsumexp``, ``softmax``, ``gammaln``...) and
``np.linalg.eigvalsh``/``eigh`` of a symmetric matrix. Each adds to a float the program
already has, so the rest of the program is the one the seed gives without them, and every
seed without ``extras`` keeps its program.

Drawn from a later stream of their own, after about a third of those (so that every
program above keeps its constructs): a helper with a guard clause whose two paths bind
different temporaries, called in a loop (what ``normalize/exits._guards_as_else`` turns into
if/else), and several constant-index components of one row updated one after another in a
loop over rows (what the optimizer merges, ``transform/updates.merge_element_updates``).
And from a stream of their own again, tuples given to helpers (``tuples_to_helpers``).
"""

from __future__ import annotations

# Helpers of these constructs: added to a program's module only when it calls them.
EXTRA_HELPERS = {
    "twice_sin": """def doubled(fn):
    @functools.wraps(fn)
    def wrapper(u):
        return 2.0 * fn(u)

    return wrapper


@doubled
def twice_sin(u):
    return math.sin(u)""",
    "damped": """def damped(u, rate=0.5, floor=-1.0):
    return max(u * rate, floor) + 0.1 * u""",
    "pick_of": """def pick_of(t, k):
    return t[k]""",
    "weighted_parts": """def weighted_parts(t):
    s = 0.0
    for i in range(len(t)):
        s += (i + 1.0) * np.sum(t[i] * t[i])
    return s""",
    "each_part": """def each_part(t, w):
    s = 0.0
    for e in t:
        s += np.sum(np.sin(e)) * w
    return s""",
    "early_or_late": """def early_or_late(u, w):
    if u < 0.1:
        t = u * w
        return t + 1.0
    s = math.exp(-u * u) * w
    r = s - 0.5 * u
    return r * r""",
}


def extra_construct(writer, depth: int) -> None:
    """One construct of this module, drawn from ``writer.extra_rng``."""
    main, writer.rng = writer.rng, writer.extra_rng
    try:
        writer.extra_count += 1
        forms = [
            extremes_of_many,
            pass_statements,
            inverse_hyperbolics,
            remainders_and_extremes,
            wrapped_helper,
            defaulted_helper,
            loop_else,
            bit_masks,
            views_to_writing_helper,
            matrix_masks,
            differences_along_axes,
            rows_written_in_place,
            matrix_powers,
            special_functions,
            symmetric_eigen,
            order_statistics,
        ]
        writer.rng.choice(forms)(writer, depth)
        if writer.later_rng.random() < 0.35:
            writer.rng = writer.later_rng
            writer.rng.choice([guarded_helper_in_loop, row_component_updates])(writer, depth)
        if writer.tuple_rng.random() < 0.3:
            writer.rng = writer.tuple_rng
            tuples_to_helpers(writer, depth)
    finally:
        writer.rng = main


def guarded_helper_in_loop(writer, depth: int) -> None:
    """``early_or_late`` (a guard clause, each path with temporaries of its own) of every
    element of a vector, in a loop, its results added up."""
    vec, k = writer.rng.choice(writer.vectors), extra_name(writer, "g")
    writer.emit(depth, f"for {k} in range({vec}.shape[0]):")
    writer.emit(depth + 1, f"{writer.sum_target()} early_or_late({vec}[{k}], {writer.scalar(1)})")
    writer.extra_helpers.add("early_or_late")
    writer.tags.add("guarded_helper_in_loop")


def tuples_to_helpers(writer, depth: int) -> None:
    """Tuples of vectors or numbers written out, joined with ``+``, repeated with ``*`` or
    kept in a name, given to a helper that indexes them with a constant or its loop
    variable or loops over them (or looped over in place): what ``normalize/tuple_displays``
    resolves into the tuples' elements."""
    rng, k = writer.rng, extra_name(writer, "t")
    vec, other, s = rng.choice(writer.vectors), rng.choice(writer.vectors), writer.scalar(1)
    pair = rng.choice(
        [f"({vec} * {s}, {other})", f"({vec} * {s},) + ({other},)", f"({other},) * 2"]
    )
    if rng.random() < 0.4:
        writer.emit(depth, f"{k} = {pair}")
        pair = rng.choice([k, f"{k} + ({vec},)", f"{k}[::-1]"])
    form = rng.randrange(5)
    if form == 0:
        term = f"np.sum(pick_of({pair}, {rng.choice([0, 1, -1])}) * {vec})"
    elif form == 1:
        term = f"0.1 * weighted_parts({pair})"
    elif form == 2:
        term = f"each_part({pair}, {writer.scalar(1)})"
    elif form == 3:
        term = f"pick_of(({s} * {writer.scalar(1)}, {writer.scalar(1)}), {rng.randrange(2)})"
    else:
        e = extra_name(writer, "e")
        writer.emit(depth, f"for {e} in {pair}:")
        writer.emit(depth + 1, f"{writer.sum_target()} np.sum({e} * {e}) * 0.1")
        writer.tags.add("tuples_to_helpers")
        return
    name = ("pick_of", "weighted_parts", "each_part", "pick_of")[form]
    writer.extra_helpers.add(name)
    writer.emit(depth, f"{writer.sum_target()} {term}")
    writer.tags.add("tuples_to_helpers")


def row_component_updates(writer, depth: int) -> None:
    """Two to four constant columns of each row of the matrix updated one after another
    (``m[r, 2] += ...; m[r, 0] -= ...; m[r, 2] *= ...``), then the matrix read."""
    row, s = extra_name(writer, "r"), writer.scalar(1)
    writer.emit(depth, f"for {row} in range(m.shape[0]):")
    for _ in range(writer.rng.randint(2, 4)):
        column, update = writer.rng.randrange(4), writer.rng.choice(["+=", "-=", "*="])
        value = f"0.9 + 0.1 * {s}" if update == "*=" else f"0.2 * {s} * m[{row}, {3 - column}]"
        writer.emit(depth + 1, f"m[{row}, {column}] {update} {value}")
    writer.emit(depth, f"{writer.sum_target()} np.sum(m * m)")
    writer.tags.add("row_component_updates")


def extremes_of_many(writer, depth: int) -> None:
    """``x = x + 0.1 * max(a, b, c)`` (or ``min``) of three or four scalars."""
    count = writer.rng.choice([3, 4])
    operands = ", ".join(writer.scalar(1) for _ in range(count))
    extreme = writer.rng.choice(["max", "min"])
    writer.emit(depth, f"{writer.sum_target()} {extreme}({operands})")
    writer.tags.add("extremes_of_many")


def pass_statements(writer, depth: int) -> None:
    """``pass`` as a whole branch, beside a statement, or as a loop's body."""
    form = writer.rng.randrange(3)
    test = f"{writer.scalar(1)} < {writer.scalar(1)}"
    if form == 0:
        writer.emit(depth, f"if {test}:")
        writer.emit(depth + 1, "pass")
        writer.emit(depth, "else:")
        writer.emit(depth + 1, f"{writer.sum_target()} {writer.scalar(1)}")
    elif form == 1:
        writer.emit(depth, f"if {test}:")
        writer.emit(depth + 1, f"{writer.sum_target()} {writer.scalar(1)}")
        writer.emit(depth + 1, "pass")
    else:
        writer.emit(depth, f"for {extra_name(writer, 'k')} in range(n):")
        writer.emit(depth + 1, "pass")
    writer.tags.add("pass_statements")


def inverse_hyperbolics(writer, depth: int) -> None:
    """``asinh``, ``acosh`` and ``atanh`` of scalars (``math``) or of a vector (NumPy),
    their arguments kept inside the domains."""
    s, vec = writer.scalar(1), writer.rng.choice(writer.vectors)
    if writer.rng.random() < 0.5:
        terms = [
            f"math.asinh({s})",
            f"math.acosh(1.5 + {s} * {s})",
            f"math.atanh(0.5 * math.tanh({s}))",
        ]
    else:
        terms = [
            f"np.sum(np.arcsinh({vec}) * {vec})",
            f"np.sum(np.arccosh(1.5 + {vec} * {vec}))",
            f"np.sum(np.arctanh(0.5 * np.tanh({vec})))",
        ]
    _add_some(writer, depth, terms, "inverse_hyperbolics")


def remainders_and_extremes(writer, depth: int) -> None:
    """``np.fmod`` of a scalar or a vector, and ``np.fmax``/``np.fmin`` of two vectors."""
    s, vec = writer.scalar(1), writer.rng.choice(writer.vectors)
    other = writer.rng.choice(writer.vectors)
    terms = [
        f"np.fmod({s} * 1.3, 0.7)",
        f"np.sum(np.fmod({vec} * 1.3, 0.9) * {other})",
        f"np.sum(np.fmax({vec}, np.sin({other})) + np.fmin({vec}, 0.2))",
    ]
    _add_some(writer, depth, terms, "remainders_and_extremes")


def _add_some(writer, depth: int, terms: list[str], tag: str) -> None:
    """``x = x + 0.1 * (...)`` of one to three of ``terms``."""
    chosen = writer.rng.sample(terms, writer.rng.randint(1, 3))
    writer.emit(depth, f"{writer.sum_target()} ({' + '.join(chosen)})")
    writer.tags.add(tag)


def wrapped_helper(writer, depth: int) -> None:
    """A helper whose decorator wraps it with ``functools.wraps``: what runs is the wrapper."""
    writer.emit(depth, f"{writer.sum_target()} twice_sin({writer.scalar(1)})")
    writer.extra_helpers.add("twice_sin")
    writer.tags.add("wrapped_helper")


def defaulted_helper(writer, depth: int) -> None:
    """``damped(u)``, ``damped(u, 0.25)``, ``damped(u, floor=-0.5)`` or all arguments."""
    s = writer.scalar(1)
    call = writer.rng.choice(
        [
            f"damped({s})",
            f"damped({s}, 0.25)",
            f"damped({s}, floor=-0.5)",
            f"damped({s}, 0.3, -0.2)",
        ]
    )
    writer.emit(depth, f"{writer.sum_target()} {call}")
    writer.extra_helpers.add("damped")
    writer.tags.add("defaulted_helper")


def loop_else(writer, depth: int) -> None:
    """``for``/``while`` with ``else``, the loop breaking on a condition (skipping it) or not."""
    counter = extra_name(writer, "k")
    if writer.rng.random() < 0.5:
        writer.emit(depth, f"for {counter} in range(n):")
    else:
        writer.emit(depth, f"{counter} = 0")
        writer.emit(depth, f"while {counter} < n:")
        writer.emit(depth + 1, f"{counter} += 1")
    writer.emit(depth + 1, f"{writer.sum_target()} {writer.scalar(1)}")
    writer.emit(depth + 1, f"if {writer.scalar(1)} < {writer.scalar(1)}:")
    writer.emit(depth + 2, "break")
    writer.emit(depth, "else:")
    writer.emit(depth + 1, f"{writer.sum_target()} {writer.scalar(1)}")
    writer.tags.add("loop_else")


def bit_masks(writer, depth: int) -> None:
    """Masks combined with ``&``, ``|``, ``^``, ``~``: in ``np.where``, as a boolean index,
    or in a scalar test."""
    vec, s = writer.rng.choice(writer.vectors), writer.scalar(1)
    mask = f"({vec} > -0.4) {writer.rng.choice(['&', '|', '^'])} ({vec} < {s})"
    if writer.rng.random() < 0.4:
        mask = f"~({mask})"
    form = writer.rng.randrange(3)
    if form == 0:
        writer.emit(depth, f"{writer.sum_target()} np.sum(np.where({mask}, {vec} * {s}, 0.0))")
    elif form == 1:
        writer.emit(depth, f"{writer.sum_target()} np.sum({vec}[{mask}] ** 2)")
    else:
        writer.emit(depth, f"if ({s} > 0.1) & ({writer.scalar(1)} < 0.5):")
        writer.emit(depth + 1, f"{writer.sum_target()} {writer.scalar(1)}")
    writer.tags.add("bit_masks")


def views_to_writing_helper(writer, depth: int) -> None:
    """A row, column or slice passed to ``scale_first``, which writes into it (or a gather
    by an index array, a copy the write never reaches the array through): as a statement,
    or its value used."""
    vec, s = writer.rng.choice(writer.vectors), writer.scalar(1)
    view = writer.rng.choice(
        [f"m[{writer.rng.randrange(4)}]", f"m[:, {writer.rng.randrange(4)}]", f"{vec}[1:]"]
        + [f"{vec}[::2]", "m[1:, 2]", f"{vec}[EDGE]"]  # the last a copy: not written back
    )
    if writer.rng.random() < 0.5:
        writer.emit(depth, f"scale_first({view}, {s})")
    else:
        writer.emit(depth, f"{writer.sum_target()} scale_first({view}, {s})")
    writer.tags.add("views_to_writing_helper")


def extra_name(writer, stem: str) -> str:
    """A name of this stream's own (``ek_3``), apart from the program's and the gaps'."""
    return f"e{stem}_{writer.extra_count}"


def matrix_masks(writer, depth: int) -> None:
    """A mask of the matrix's own shape: the selected elements read (in C order), or set
    to a number in a new array (a copy, or a buffer filled by ``a.fill``) or in the
    argument itself."""
    s = writer.scalar(1)
    mask = writer.rng.choice([f"m > {s}", f"(m > -0.3) & (m < {s})", "m < 0.0"])
    form = writer.rng.randrange(3)
    if form == 0:
        writer.emit(depth, f"{writer.sum_target()} np.sum(m[{mask}] ** 2) * {s}")
    elif form == 1:
        scaled = writer.fresh("mm")
        if mask == "m < 0.0":  # a buffer filled with a number (a.fill), the same draws
            writer.emit(depth, f"{scaled} = np.empty_like(m)")
            writer.emit(depth, f"{scaled}.fill({s})")
            writer.emit(depth, f"{scaled}[m < 0.1] = {writer.scalar(1)}")
        else:
            writer.emit(depth, f"{scaled} = m * {s}")
            writer.emit(depth, f"{scaled}[{scaled} < 0.1] = {writer.scalar(1)}")
        writer.emit(depth, f"{writer.sum_target()} np.sum({scaled} * m)")
    else:
        writer.emit(depth, f"m[{mask}] = 0.5 * {s}")
        writer.emit(depth, f"{writer.sum_target()} np.sum(m * m)")
    writer.tags.add("matrix_masks")


def differences_along_axes(writer, depth: int) -> None:
    """``np.diff`` of the matrix or a vector with ``n=`` or ``axis=`` given by keyword."""
    vec, s = writer.rng.choice(writer.vectors), writer.scalar(1)
    call = writer.rng.choice(
        ["np.diff(m, axis=0)", "np.diff(m, n=2)", "np.diff(m, 2, axis=1)", "np.diff(m, axis=-2)"]
        + [f"np.diff({vec}, n=2)", f"np.diff({vec} * {s}, axis=0)"]
    )
    writer.emit(depth, f"{writer.sum_target()} np.sum({call} ** 2) * {s}")
    writer.tags.add("differences_along_axes")


def rows_written_in_place(writer, depth: int) -> None:
    """A row or rows of the matrix bound to a name and changed in place through it (``row
    = m[1]; row *= s``; ``m[EDGE]``, a gather, is a copy the write leaves ``m`` out of), or
    every row in a loop (``for row in m: row += 0.5 * a``), the row read after the write;
    then the matrix read."""
    vec, s = writer.rng.choice(writer.vectors), writer.scalar(1)
    row = extra_name(writer, "row")
    update = writer.rng.choice(["*=", "+=", "-="])
    if writer.rng.random() < 0.5:
        view = writer.rng.choice(["m[0]", "m[1]", "m[3]", "m[1:3]", "m[EDGE]"])  # EDGE: a copy
        writer.emit(depth, f"{row} = {view}")
        writer.emit(depth, f"{row} {update} {s}")
        writer.emit(depth, f"{writer.sum_target()} np.sum({row} * {vec})")
    else:
        writer.emit(depth, f"for {row} in m:")
        writer.emit(depth + 1, f"{row} {update} 0.5 * np.sin({vec})")
        writer.emit(depth + 1, f"{writer.sum_target()} {row}[0] * {s}")
    writer.emit(depth, f"{writer.sum_target()} np.sum(m * m)")
    writer.tags.add("rows_written_in_place")


def matrix_powers(writer, depth: int) -> None:
    """``np.linalg.matrix_power`` of the matrix, scaled so that its powers stay bounded,
    to an exponent from 0 to 5 (a constant or the program's int plus one)."""
    power = writer.rng.choice(["0", "1", "2", "3", "5", "n + 1"])
    scale = writer.rng.choice(["0.3", "0.2 * np.tanh(m)"])
    powered = f"np.linalg.matrix_power({scale} * m, {power})"
    writer.emit(depth, f"{writer.sum_target()} np.sum({powered})")
    writer.tags.add("matrix_powers")


def special_functions(writer, depth: int) -> None:
    """A ``scipy.special`` function of a vector or of the matrix (with ``axis=``), summed."""
    vec, s = writer.rng.choice(writer.vectors), writer.scalar(1)
    call = writer.rng.choice(
        [f"expit({vec} * {s})", f"log_expit({vec} - {s})", f"logsumexp({vec} * {s})"]
        + [f"softmax({vec} + {s})", f"log_softmax(m * {s}, axis=1)", "logsumexp(m, axis=0)"]
        + [f"gammaln(1.5 + {vec} * {vec})", f"erf({vec} * {s})", f"erfc({vec} - {s})"]
        + [f"xlogy(1.0 + {vec} * {vec}, 2.0 + m[0] * m[0])", f"logit(0.5 + 0.4 * np.tanh({vec}))"]
    )
    writer.emit(depth, f"{writer.sum_target()} np.sum(scipy.special.{call})")
    writer.extra_helpers.add("scipy.special")  # the module imports it
    writer.tags.add("special_functions")


def symmetric_eigen(writer, depth: int) -> None:
    """Eigenvalues of a symmetric matrix made from ``m``, or what of the eigenvectors does
    not depend on their signs (squared components)."""
    vec, s = writer.rng.choice(writer.vectors), writer.scalar(1)
    sym = writer.rng.choice(["m + m.T", f"m @ m.T + {s} * np.eye(4)"])
    if writer.rng.random() < 0.5:
        writer.emit(depth, f"{writer.sum_target()} np.sum(np.linalg.eigvalsh({sym}) * {vec})")
    else:
        vals, vecs = extra_name(writer, "vals"), extra_name(writer, "vecs")
        writer.emit(depth, f"{vals}, {vecs} = np.linalg.eigh({sym})")
        writer.emit(depth, f"{writer.sum_target()} np.sum({vals} * {vals}) * 0.1")
        writer.emit(depth, f"{writer.sum_target()} np.sum({vecs}[:, -1] ** 2 * {vec})")
    writer.tags.add("symmetric_eigen")


def order_statistics(writer, depth: int) -> None:
    """``np.median``, ``np.quantile`` or ``np.percentile`` of a vector (NumPy's linear
    method), ``np.amax``/``np.amin`` of the matrix along an axis, ``np.linalg.norm`` of
    order 1, inf or -inf of a vector or along an axis, or an extreme chosen by the rank
    (``... if v.ndim == 1 else ...``: the branch of the other rank is dropped)."""
    vec, s = writer.rng.choice(writer.vectors), writer.scalar(1)
    call = writer.rng.choice(
        [f"np.median({vec} * {s})", f"np.quantile({vec}, 0.3)", f"np.quantile({vec} + {s}, 1.0)"]
        + [f"np.percentile({vec} * {vec}, 65.0)", f"np.percentile(np.sin({vec}), 0.0)"]
        + ["np.sum(np.amax(m, axis=0))", f"np.sum(np.amin(m * {s}, axis=1))"]
        + [f"np.linalg.norm({vec}, 1) * {s}", f"np.linalg.norm({vec} - {s}, ord=np.inf)"]
        + ["np.sum(np.linalg.norm(m, ord=1, axis=0))", "np.sum(np.linalg.norm(m, -np.inf, axis=1))"]
        + [f"(np.sum(np.abs({vec})) if {vec}.ndim == 1 else np.max(np.sum(np.abs({vec}), axis=0)))"]
        + ["(np.max(np.max(m, axis=1)) if m.ndim == 2 else np.max(m))"]
    )
    writer.emit(depth, f"{writer.sum_target()} {call}")
    writer.tags.add("order_statistics")
