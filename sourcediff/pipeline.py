"""The ordered stages, top to bottom: :data:`STAGES`.

Each stage is a function of plain ASTs and small dataclasses; reverse and
forward mode share every stage but the transform. Setting
``SOURCEDIFF_DUMP=normalize,reverse`` (any stage name) prints a stage's output
to stderr; ``SOURCEDIFF_TIMING=1`` prints each stage's seconds, Numba's
compile (or on-disk cache load) and first run included. An unexpected failure
inside a stage is re-raised as a SourceDiffError that names the stage and the
user's function, so it never surfaces as a bare crash.
"""

from __future__ import annotations

import ast
import contextlib
import os
import sys
import time
from dataclasses import dataclass, field

from . import compile as compile_stage
from . import outline, rules, runtime
from .analysis.activity import active_variables
from .analysis.aliases import check_aliasing
from .analysis.known_calls import mark_known_calls
from .analysis.liveness import binding_counts
from .analysis.recompute import (
    choose_recomputed,
    element_reads,
    once_bound_floats,
    restorable_reads,
    steady_values,
)
from .analysis.recording import analyze_recording, reverse_reads
from .analysis.shapes import shape_variant_arrays
from .analysis.static_shapes import fixed_lengths, static_shapes
from .analysis.types import TypeTable, check_shape_indices, infer_types
from .astnodes import clone, walk
from .codegen import (
    constant_text,
    function_source,
    module_source,
    with_local_array_constants,
)
from .errors import SourceDiffError
from .headers import header_text, origin_line, output_count
from .ir import outermost_loops
from .normalize import NormalizedFunction, externals, normalize
from .normalize.extremes import read_extremes_at_index
from .normalize.indices import complete_indices
from .normalize.inplace import resolve_inplace_updates
from .normalize.known_tests import fold_known_tests, fold_ranks
from .normalize.masks import lower_masks
from .normalize.paired_indices import lower_paired_indices
from .normalize.rows import hoist_invariant_rows
from .normalize.scalarize import scalarize
from .normalize.small_arrays import split_small_arrays
from .normalize.tuple_displays import refuse_tuple_reads
from .normalize.typed_calls import (
    array_abs_as_numpy,
    every_abs_as_numpy,
    literal_buffers_as_empty,
)
from .normalize.views import copy_written_views
from .outlined import (
    import_required,
    prepare_outlined,
    required_modules,
    result_shape_of,
    shape_only_params,
)
from .parse import ParsedFunction, parse_function
from .plan import AutoPlan, cheaper_to_rerun, has_time_loop, make_plan
from .raises import RaisedByTheFunction
from .sources import literal_defaults
from .transform import optimize as optimizer
from .transform.counting import has_loops
from .transform.fold import propagate_copies
from .transform.forward import build_tangent
from .transform.reverse import AdjointSpec, build_adjoint
from .transform.signature import written_params
from .vector_math import with_vector_math
from .view_writes import writes_through_typed_views

STAGES = (
    "parse",  # the function and its call tree (parse.py, fence.py)
    "outline",  # reverse mode: helpers called from several places kept as calls (outline.py)
    "normalize",  # three-address form, helpers inlined, exits made explicit (normalize/)
    "types",  # Numba's type inference, then rewrites needing types (normalize/scalarize.py)
    "activity",  # which variables carry derivatives (analysis/activity.py)
    "plan",  # per outermost loop: store, recompute or checkpoint(k) (plan.py)
    "recording",  # what the reverse sweep reads, what must be recorded (analysis/recording.py)
    "reverse",  # or "forward": the derivative functions (transform/)
    "optimize",  # fold temporaries, propagate copies, drop dead stores (transform/optimize.py)
    "codegen",  # one module of Python source, written to the cache (codegen.py, compile.py)
    "compile",  # Numba's compile, or its on-disk cache, on the first call (compile.py)
)

# Global mutable state, caches only: compiled functions by cache file and name,
_COMPILED: dict[tuple[str, str, bool], object] = {}
# and optimized normalized primals by tree and attached facts (bounded): the policies and
# modes of one function build the same primal.
_OPTIMIZED_PRIMALS: dict[tuple, ast.FunctionDef] = {}
_OPTIMIZED_LIMIT = 128
STATS = {"transforms": 0}


@dataclass(frozen=True)
class Request:
    """One derivative to build: which inputs, which policy, for which argument types."""

    argnums: tuple[int, ...]
    policy: object
    arg_types: tuple  # Numba types of every positional argument
    verify: bool = False  # verifier mode (sourcediff/verify.py): a shadow primal and checks
    fastmath: bool = False  # Numba may reassociate floating point (its own module and cache)
    #: Equality classes of the arguments' dimensions (``dispatch.dimension_classes``), or
    #: None: which elementwise statements provably share a shape, so fuse into one loop.
    dims: tuple | None = None
    #: An outlined helper's vjp (outlined.py): its caller reads the adjoints only, so the
    #: vjp returns them alone and the optimizer drops what only the value needed.
    gradient_only: bool = False


@dataclass
class Built:
    """A generated module on disk and the names of its functions."""

    path: str
    primal: str
    adjoint: str
    outputs: int
    result_kind: str
    record_bytes: str = ""
    shadow: str = ""  # verifier mode: the shadow primal that logs what the checks read
    time_loops: bool = False  # whether policy "auto" has loops it could checkpoint
    counting_loops: bool = True  # whether the counting function loops (else it runs in Python)
    externals: dict = field(default_factory=dict)  # functions with user rules, by name
    fastmath: bool = False  # compiled with Numba's fastmath
    written: tuple = ()  # the array parameters it writes into (the caller sees the writes)
    shape_of: int | None = None  # the parameter whose shape a returned array provably has
    shape_only: tuple = ()  # the parameters the vjp reads for their shape alone
    requires: tuple = ()  # the outlined helpers' modules its code calls (file names)


def _dump(stage: str, text: str) -> None:
    wanted = os.environ.get("SOURCEDIFF_DUMP", "")
    if stage in wanted.split(","):
        print(f"--- sourcediff {stage} ---\n{text}", file=sys.stderr)


def report_time(name: str, fn_name: str, seconds: float) -> None:
    """With ``SOURCEDIFF_TIMING=1``, one line per stage run: function, stage, seconds."""
    if os.environ.get("SOURCEDIFF_TIMING", "") not in ("", "0"):
        print(f"sourcediff timing: {fn_name}: {name} {seconds:.3f} s", file=sys.stderr)


@contextlib.contextmanager
def stage(name: str, fn_name: str):
    """Time stage ``name``, and wrap its unexpected errors so they name the stage and the
    user's function."""
    start = time.perf_counter()
    try:
        yield
    except SourceDiffError:
        raise
    except RaisedByTheFunction as raised:  # an option chose a branch that raises
        raise raised.exception from None
    except Exception as exc:
        raise SourceDiffError(
            f"internal error while differentiating '{fn_name}' (During: {name}): "
            f"{type(exc).__name__}: {exc}. Please report this with the function's source."
        ) from exc
    finally:
        report_time(name, fn_name, time.perf_counter() - start)


def parse(func, options: dict | None = None) -> ParsedFunction:
    """Stage 1: the function and its call tree (its options bound to ``options``, see
    ``sourcediff.options``)."""
    with stage("parse", getattr(func, "__name__", "?")):
        parsed = parse_function(func, options=options)
    _dump("parse", "\n\n".join(fn.source for fn in parsed.call_tree()))
    return parsed


def primal_name(parsed: ParsedFunction) -> str:
    """The primal's name in generated modules: the user's, unless a runtime helper that
    generated code calls has it (a user function named ``dot`` or ``norm``)."""
    return f"{parsed.name}_primal" if parsed.name in runtime.HELPERS else parsed.name


def normalized(parsed: ParsedFunction) -> NormalizedFunction:
    """Stage 2: three-address form with helpers inlined."""
    with stage("normalize", parsed.name):
        nf = normalize(parsed)
        nf.node.name = primal_name(parsed)
    _dump("normalize", function_source(nf.node)[0])
    return nf


def source_key(parsed: ParsedFunction, *extra: str) -> str:
    """The cache key of a derivative of ``parsed``: its whole call tree plus ``extra``."""
    parts = []
    for fn in sorted(parsed.call_tree(), key=lambda f: (f.filename, f.name)):
        constants = sorted(
            (k, constant_text(r.value)) for k, r in fn.names.items() if r.kind == "constant"
        )
        parts += [
            fn.filename,
            fn.name,
            str(fn.node.lineno),  # generated comments and errors name the user's lines
            fn.source,
            repr(constants),
            repr(sorted(fn.defaults.items())),
            repr(fn.options),
        ]
    for _, custom in sorted(parsed.customs().items()):
        parts += custom.sources()
    parts.append(f"optimize={optimizer.enabled()} scalarize={scalarizing()}")
    return compile_stage.cache_key(parts + list(extra))


def build_adjoint_module(parsed: ParsedFunction, request: Request) -> Built:
    """Stages 2-5 for a reverse-mode derivative, or just a cache lookup if it exists;
    helpers called from several places are outlined first (outline.py)."""
    with stage("outline", parsed.name):
        parsed = outline.outlined(parsed)
    _dump("outline", "\n".join(sorted(outline.outlined_names(parsed))))
    with _custom_rules(parsed):
        return _with_externals(_build_adjoint_module(parsed, request), parsed)


def build_tangent_module(parsed: ParsedFunction, request: Request) -> Built:
    """Stages 2-5 for a forward-mode derivative (``jvp``, ``tangent_source``, ``hessian``)."""
    with _custom_rules(parsed):
        return _with_externals(_build_tangent_module(parsed, request), parsed)


def build_primal_module(parsed: ParsedFunction, fastmath: bool = False) -> Built:
    """Stages 2 and 5 for the primal alone (``sd.jit``)."""
    with _custom_rules(parsed):
        return _with_externals(_build_primal_module(parsed, fastmath), parsed)


def _custom_rules(parsed: ParsedFunction):
    """The user's derivative rules (sd.custom_vjp, custom_jvp) as table rows for one build."""
    return rules.custom_rules({name: c.rule() for name, c in parsed.customs().items()})


def _with_externals(built: Built, parsed: ParsedFunction) -> Built:
    built.externals = externals(parsed)
    return built


def _build_adjoint_module(parsed: ParsedFunction, request: Request) -> Built:
    """Stages 2-5 for a reverse-mode derivative, or just a cache lookup if it exists."""
    key = source_key(parsed, "reverse", repr(request))
    path = compile_stage.module_path(parsed.name, key)
    names = (primal_name(parsed), f"{parsed.name}_vjp", f"{parsed.name}_record_bytes")
    shadow = f"{parsed.name}_shadow" if request.verify else ""
    meta = compile_stage.cached_meta(path)
    if meta is None:
        meta = _write_adjoint_module(parsed, request, path, names, shadow)
    import_required(meta)
    outputs, kind, loops = meta["outputs"], meta["result"], meta["time_loops"]
    fastmath, written = request.fastmath, tuple(meta["written"])
    built = Built(str(path), *names[:2], outputs, kind, names[2], shadow, loops)
    built.fastmath, built.written = fastmath, written
    built.counting_loops = meta.get("counting_loops", True)
    built.shape_of, built.requires = meta.get("shape_of"), tuple(meta.get("requires", ()))
    built.shape_only = tuple(meta.get("shape_only", ()))
    return built


def _write_adjoint_module(parsed, request: Request, path, names: tuple, shadow: str) -> dict:
    """Stages 2-5: the derivative built, optimized and written to ``path``; its metadata."""
    nf = normalized(parsed)
    wrt = [nf.params[k] for k in request.argnums]
    types = typed(nf, parsed, request)
    primal = optimized_primal(nf.node, parsed)
    active, plan, recomputed, recording = analyses(nf, parsed, request, types, wrt)
    outputs = output_count(nf.node)
    with stage("reverse", parsed.name):
        spec = AdjointSpec(wrt, names[1], plan, names[2], shadow, not request.gradient_only)
        built = build_adjoint(nf, types, active, recording, recomputed, spec, outputs)
    _dump("reverse", _function_text(built.vjp, nf))
    vjp = optimized(built.vjp, parsed, built.shapes, built.ranks, request.gradient_only)
    functions = [primal, vjp]
    counting = optimized(built.counting, parsed) if built.counting is not None else None
    # The verifier's shadow primal is an instrument, run once per check: not optimized.
    functions += [f for f in (counting, built.shadow) if f is not None]
    texts = [_function_text(f, nf, types) for f in functions]
    _dump("optimize", texts[1])
    # Nothing to checkpoint when nothing is recorded: "auto" then needs no count.
    time_loops = has_time_loop(nf.node, types) and built.records
    meta = {"outputs": outputs, "result": types.result.kind, "time_loops": time_loops}
    meta["written"] = written_params(nf.params, nf.node, types)
    meta["counting_loops"] = counting is not None and has_loops(counting)
    meta["shape_of"] = result_shape_of(nf.node, types, nf.params)
    meta["shape_only"] = shape_only_params(vjp, nf.params)
    meta["requires"] = required_modules(nf.node)
    with stage("codegen", parsed.name):
        text = module_source(header_text(parsed, request, wrt), nf.constants, texts)
        compile_stage.write_module(path, text, meta)
    _dump("codegen", text)
    STATS["transforms"] += 1
    return meta


def typed(nf: NormalizedFunction, parsed: ParsedFunction, request: Request) -> TypeTable:
    """Stage 3: types of every variable, then the rewrites and refusals that need them."""
    with stage("types", parsed.name):
        fold_known_tests(nf.node)  # a branch a constant test never takes binds nothing
        types = infer_types(nf, request.arg_types)
        if fold_ranks(nf.node, types.variables):  # if x.ndim == 1: ... for several ranks
            types = infer_types(nf, request.arg_types)
        lowered = lower_masks(nf.node, types, nf.namer, nf.filename)  # reads change rank
        lowered |= lower_paired_indices(nf.node, types, nf.namer)
        if lowered:
            types = infer_types(nf, request.arg_types)
        check_shape_indices(nf, types)
    array_abs_as_numpy(nf.node, types)
    literal_buffers_as_empty(nf.node, types)
    prepare_outlined(nf.node, types, parsed.customs())
    _dump("types", "\n".join(f"{k}: {v}" for k, v in sorted(types.variables.items())))
    resolve_inplace_updates(nf.node, types)
    writes_through_typed_views(nf.node, types)  # row = B[i]; row *= s writes B
    complete_indices(nf.node, types)
    check_aliasing(nf.node, types, nf.filename)
    refuse_tuple_reads(nf.node, types)
    copy_written_views(nf.node, types, nf.namer)
    read_extremes_at_index(nf.node, types, nf.namer)
    hoist_invariant_rows(nf.node, types, nf.namer, request.dims)
    parts = split_small_arrays(nf.node, types, nf.namer, request.dims)
    elements = {name for names in parts.values() for name in names}
    # The elements of a temporary are temporaries: "store" recomputes element reads.
    nf.temps |= {name for array in parts if array in nf.temps for name in parts[array]}
    if scalarizing():
        _shape_analyses(nf, types, request.dims)
        scalarize(nf, types, request.dims, types.shapes)
        _dump("scalarize", function_source(nf.node)[0])
    propagate_copies(nf.node, _number_temporaries(nf, types) | elements)
    _shape_analyses(nf, types, request.dims)
    mark_known_calls(nf.node, types)  # numbers an adjoint's partial may read again
    return types


def _shape_analyses(nf: NormalizedFunction, types, dims) -> None:
    """The symbolic shapes of arrays that keep one at every binding, and which other
    arrays may change shape between loop iterations (again after scalarize, which adds
    arrays): a shape known symbolically is the same in every iteration. An array bound
    more than once without one static shape may change shape anywhere (``v = np.ones(n +
    2)`` after a loop that swaps ``v`` with ``u``): its adjoint is reallocated as well."""
    types.shapes = static_shapes(nf.node, types, nf.params, dims)
    counts = binding_counts(nf.node)
    rebound = {n for n, t in types.variables.items() if t.kind == "array" and counts.get(n, 0) > 1}
    variant = shape_variant_arrays(nf.node, types) | rebound
    types.reshaped = frozenset(variant - set(types.shapes))


def _number_temporaries(nf: NormalizedFunction, types) -> set[str]:
    """The temporaries holding a number. Copies into them (``t26 = w_1``) and into the
    elements of split arrays (``Xcam_2 = result_2``) are propagated before the
    derivative is built, so that neither sweep keeps or records one number under two
    names. Copies into the user's own variables stay."""
    return {t for t in nf.temps if t in types.variables and types[t].kind != "array"}


def scalarizing() -> bool:
    """Whether elementwise runs are fused into loops (``SOURCEDIFF_SCALARIZE=0``: not)."""
    return os.environ.get("SOURCEDIFF_SCALARIZE", "1") != "0"


def analyses(nf: NormalizedFunction, parsed: ParsedFunction, request: Request, types, wrt):
    """Stage 4: activity, the plan, recomputed temporaries and the to-be-recorded analysis."""
    with stage("activity", parsed.name):
        active = active_variables(nf.node, types, wrt)
    with stage("plan", parsed.name):
        plan = make_plan(nf.node, request.policy, types)
    auto = isinstance(request.policy, AutoPlan)
    with stage("recording", parsed.name):
        recomputed, recording = _recorded(nf, types, active, plan)
        rerun = cheaper_to_rerun(nf, types, recording) if auto else []
        if rerun:
            plan = plan.rerunning(rerun)
            recomputed, recording = _recorded(nf, types, active, plan)
    _dump(
        "activity",
        f"active: {sorted(active)}\nreverse reads: {sorted(recording.reads)}\n"
        f"recomputed: {sorted(recomputed)}",
    )
    loops = outermost_loops(nf.node.body)
    _dump("plan", "\n".join(f"line {loop.lineno}: {plan.mode(loop)}" for loop in loops))
    return active, plan, recomputed, recording


def _recorded(nf: NormalizedFunction, types, active: set[str], plan):
    """The temporaries recomputed in the reverse sweep, and what is recorded, under ``plan``."""
    # Index arithmetic (i - 1, n - 1), elements of arrays nothing changes afterwards and
    # values the same at every evaluation (0.5 * dt) are recomputed under every policy:
    # storing them would only cost memory; "store" keeps every other value the reverse
    # sweep needs.
    temps = nf.temps
    arrays = {name for name, kind in types.variables.items() if kind.kind == "array"}
    if not plan.recompute_temporaries:
        reads = element_reads(nf.node, temps, arrays)
        reads |= steady_values(nf.node, temps, reads, arrays)
        temps = {t for t in temps if types[t].kind == "int" or t in reads}
    reads_of = lambda stmt, act: reverse_reads(stmt, act, types)  # noqa: E731
    fixed = fixed_lengths(nf.node, types)
    restorable = restorable_reads(nf.node, temps, types) if plan.recompute_temporaries else {}
    user = once_bound_floats(nf.node, types) if plan.recompute_temporaries else frozenset()
    recomputed = choose_recomputed(
        nf.node, temps, active, reads_of, arrays, fixed, restorable, user - temps
    )
    recording = analyze_recording(
        nf.node, active, nf.counters, nf.filename, types, recomputed, plan.reruns, fixed
    )
    return recomputed, recording


def optimized(
    function: ast.FunctionDef, parsed: ParsedFunction, shapes=None, ranks=None, sliced=False
) -> ast.FunctionDef:
    """Stage "optimize": an optimized copy of one generated function (``shapes``: the
    static shapes of its names, ``ranks`` its arrays' ranks, for the derivative;
    ``sliced``: only its result is used, see ``Request.gradient_only``)."""
    with stage("optimize", parsed.name):
        counting = function.name == f"{parsed.name}_record_bytes"  # its arrays are scratch
        return optimizer.optimize(function, counting, shapes, ranks, sliced)


def optimized_primal(function: ast.FunctionDef, parsed: ParsedFunction) -> ast.FunctionDef:
    """:func:`optimized` for the normalized primal, which every policy and mode of a
    function shares: the same tree, with the same facts attached, is optimized once."""
    key = (ast.dump(function), _attached(function), optimizer.enabled())
    if key not in _OPTIMIZED_PRIMALS:
        if len(_OPTIMIZED_PRIMALS) >= _OPTIMIZED_LIMIT:
            _OPTIMIZED_PRIMALS.clear()
        _OPTIMIZED_PRIMALS[key] = optimized(function, parsed)
    return clone(_OPTIMIZED_PRIMALS[key])


def _attached(tree: ast.AST) -> tuple:
    """What the stages attached to the nodes of ``tree`` (``origin``...), in walk order."""
    return tuple(
        tuple(
            sorted(
                (key, repr(value))
                for key, value in vars(node).items()
                if key not in node._fields and key not in node._attributes
            )
        )
        for node in walk(tree)
    )


def _function_text(function: ast.FunctionDef, nf: NormalizedFunction, types=None) -> str:
    """The source of a generated function; given its variables' ``types``, with
    ``np.exp`` and ``np.tanh`` of arrays vectorized (``vector_math``: reverse mode only,
    as the tangent modules are themselves differentiated for Hessians)."""
    function = with_local_array_constants(function, nf.constants)
    if types is not None:
        dtypes = {name: t.dtype for name, t in types.variables.items()}
        ranks = {
            name: t.ndim if t.kind == "array" else 0
            for name, t in types.variables.items()
            if t.kind in ("array", "float", "int", "bool")
        }
        function = with_vector_math(function, dtypes, ranks)
    return function_source(function, comments=not function.name.endswith("_record_bytes"))[0]


def _build_tangent_module(parsed: ParsedFunction, request: Request) -> Built:
    """Stages 2-5 for a forward-mode derivative (``jvp``, ``tangent_source``, ``hessian``)."""
    key = source_key(parsed, "forward", repr(request))
    path = compile_stage.module_path(f"{parsed.name}_tangent", key)
    names = (primal_name(parsed), f"{parsed.name}_jvp")
    meta = compile_stage.cached_meta(path)
    if meta is None:
        meta = _write_tangent_module(parsed, request, path, names)
    outputs, kind, written = meta["outputs"], meta["result"], tuple(meta["written"])
    return Built(str(path), *names, outputs, kind, fastmath=request.fastmath, written=written)


def _write_tangent_module(parsed, request: Request, path, names: tuple) -> dict:
    """Stages 2-5 of a forward-mode derivative, written to ``path``; its metadata."""
    nf = normalized(parsed)
    wrt = [nf.params[k] for k in request.argnums]
    types = typed(nf, parsed, request)
    primal_text = _function_text(optimized(nf.node, parsed), nf)
    outputs = output_count(nf.node)
    with stage("forward", parsed.name):
        tangent = build_tangent(nf, types, wrt, names[1])
    _dump("forward", function_source(tangent)[0])
    tangent_text = _function_text(optimized(tangent, parsed), nf)
    _dump("optimize", tangent_text)
    signature = ", ".join(f"{p}: {t}" for p, t in zip(nf.params, request.arg_types))
    header = (
        f"{origin_line(parsed)}\n\nForward mode (tangents) with respect to {', '.join(wrt)}.\n"
        f"Argument types: {signature}."
    )
    meta = {"outputs": outputs, "result": types.result.kind}
    meta["written"] = written_params(nf.params, nf.node, types)
    with stage("codegen", parsed.name):
        text = module_source(header, nf.constants, [primal_text, tangent_text])
        compile_stage.write_module(path, text, meta)
    _dump("codegen", text)
    STATS["transforms"] += 1
    return meta


def _build_primal_module(parsed: ParsedFunction, fastmath: bool = False) -> Built:
    """Stages 2 and 5 for the primal alone (``sd.jit``)."""
    key = source_key(parsed, "primal", *(["fastmath"] if fastmath else []))
    path = compile_stage.module_path(parsed.name, key)
    meta = compile_stage.cached_meta(path)
    if meta is None:
        nf = normalized(parsed)
        header = f"{origin_line(parsed)}\n\nThe normalized primal; do not edit."
        primal = optimized(nf.node, parsed)
        every_abs_as_numpy(primal)  # built without types: np.abs serves numbers and arrays
        # njit code calling sd.jit(f) may leave number defaults out, as Python code may
        defaults = literal_defaults(nf.params, parsed.defaults)
        primal.args.defaults = [ast.Constant(d) for d in defaults.values()]
        text = module_source(header, nf.constants, [_function_text(primal, nf)])
        meta = {"written": written_params(nf.params, nf.node)}
        compile_stage.write_module(path, text, meta)
        STATS["transforms"] += 1
    written = tuple(meta["written"])
    return Built(str(path), primal_name(parsed), "", 1, "", fastmath=fastmath, written=written)


def build_typed_primal_module(parsed: ParsedFunction, request: Request) -> Built:
    """Stages 2, 3 and 5 for the primal alone at the argument types of ``request``
    (``sd.jit`` called from Python): typed, its elementwise array statements fused into
    loops as in a derivative's forward sweep, then optimized."""
    with _custom_rules(parsed):
        return _build_typed_primal_module(parsed, request)


def _build_typed_primal_module(parsed: ParsedFunction, request: Request) -> Built:
    key = source_key(parsed, "typed primal", repr(request))
    path = compile_stage.module_path(parsed.name, key)
    meta = compile_stage.cached_meta(path)
    if meta is None:
        nf = normalized(parsed)
        types = typed(nf, parsed, request)
        primal = optimized_primal(nf.node, parsed)
        header = f"{origin_line(parsed)}\n\nThe normalized primal for {request.arg_types}."
        text = module_source(header, nf.constants, [_function_text(primal, nf, types)])
        meta = {"written": written_params(nf.params, nf.node, types)}
        with stage("codegen", parsed.name):
            compile_stage.write_module(path, text, meta)
        STATS["transforms"] += 1
    fastmath, written = request.fastmath, tuple(meta["written"])
    built = Built(str(path), primal_name(parsed), "", 1, "", fastmath=fastmath, written=written)
    return _with_externals(built, parsed)


def load_module(built: Built):
    """The generated module itself (its functions as plain Python)."""
    from pathlib import Path

    module = compile_stage.import_module(Path(built.path))
    for name, function in built.externals.items():
        setattr(module, name, function)  # functions with user rules, called by name
    return module


def module_text(built: Built) -> str:
    """The generated module's source, without its checksum line."""
    from pathlib import Path

    text = compile_stage.read_module(Path(built.path))
    if text is None:
        raise SourceDiffError(
            f"the generated module {built.path} is missing or damaged; call again"
        )
    return text


def load(built: Built, function_name: str, jit: bool):
    """Stage 6: the compiled (or, with ``jit=False``, plain Python) function."""
    key = (built.path, function_name, jit)
    if key not in _COMPILED:
        module = load_module(built)
        _COMPILED[key] = compile_stage.compiled(module, function_name, jit, built.fastmath)
    return _COMPILED[key]


__all__ = [
    "STAGES",
    "parse",
    "normalized",
    "build_adjoint_module",
    "build_tangent_module",
    "build_primal_module",
    "load",
]
