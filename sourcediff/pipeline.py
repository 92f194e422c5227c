"""The ordered stages, top to bottom: parse, normalize, analyze, transform, codegen, compile.

Each stage is a function of plain ASTs and small dataclasses. Setting
``SOURCEDIFF_DUMP=normalize,reverse`` (any of parse, normalize, types,
activity, reverse, codegen) prints a stage's output to stderr. An unexpected
failure inside a stage is re-raised as a SourceDiffError that names the stage
and the user's function, so it never surfaces as a bare crash.
"""

from __future__ import annotations

import ast
import contextlib
import os
import sys
from dataclasses import dataclass

from . import compile as compile_stage
from .analysis.activity import active_variables, output_names
from .analysis.aliases import check_aliasing
from .analysis.inplace import resolve_inplace_updates
from .analysis.recompute import choose_recomputed
from .analysis.recording import analyze_recording, reverse_reads, time_loop
from .analysis.types import TypeTable, infer_types
from .codegen import function_source, module_source
from .errors import SourceDiffError
from .normalize import NormalizedFunction, normalize
from .parse import ParsedFunction, parse_function
from .policy import loop_mode, recomputes_temporaries
from .transform.forward import build_tangent
from .transform.reverse import AdjointSpec, build_adjoint

# The one piece of global mutable state: compiled functions by cache file and name.
_COMPILED: dict[tuple[str, str, bool], object] = {}
STATS = {"transforms": 0}


@dataclass(frozen=True)
class Request:
    """One derivative to build: which inputs, which policy, for which argument types."""

    argnums: tuple[int, ...]
    policy: object
    arg_types: tuple  # Numba types of every positional argument
    memory_budget: int = 0  # policy "auto": bytes of record above which loops are checkpointed


@dataclass
class Built:
    """A generated module on disk and the names of its functions."""

    path: str
    primal: str
    adjoint: str
    outputs: int
    result_kind: str
    record_bytes: str = ""


def _dump(stage: str, text: str) -> None:
    wanted = os.environ.get("SOURCEDIFF_DUMP", "")
    if stage in wanted.split(","):
        print(f"--- sourcediff {stage} ---\n{text}", file=sys.stderr)


@contextlib.contextmanager
def stage(name: str, fn_name: str):
    """Wrap unexpected errors of stage ``name`` so they name the stage and function."""
    try:
        yield
    except SourceDiffError:
        raise
    except Exception as exc:
        raise SourceDiffError(
            f"internal error while differentiating '{fn_name}' (During: {name}): "
            f"{type(exc).__name__}: {exc}. Please report this with the function's source."
        ) from exc


def parse(func) -> ParsedFunction:
    """Stage 1: the function and its call tree."""
    with stage("parse", getattr(func, "__name__", "?")):
        parsed = parse_function(func)
    _dump("parse", "\n\n".join(fn.source for fn in parsed.call_tree()))
    return parsed


def normalized(parsed: ParsedFunction) -> NormalizedFunction:
    """Stage 2: three-address form with helpers inlined."""
    with stage("normalize", parsed.name):
        nf = normalize(parsed)
    _dump("normalize", function_source(nf.node)[0])
    return nf


def source_key(parsed: ParsedFunction, *extra: str) -> str:
    """The cache key of a derivative of ``parsed``: its whole call tree plus ``extra``."""
    parts = []
    for fn in sorted(parsed.call_tree(), key=lambda f: (f.filename, f.name)):
        constants = sorted((k, repr(r.value)) for k, r in fn.names.items() if r.kind == "constant")
        parts += [
            fn.filename,
            fn.name,
            fn.source,
            repr(constants),
            repr(sorted(fn.defaults.items())),
        ]
    return compile_stage.cache_key(parts + list(extra))


def build_adjoint_module(parsed: ParsedFunction, request: Request) -> Built:
    """Stages 2-5 for a reverse-mode derivative, or just a cache lookup if it exists."""
    key = source_key(parsed, "reverse", repr(request))
    path = compile_stage.module_path(parsed.name, key)
    names = (parsed.name, f"{parsed.name}_vjp", f"{parsed.name}_record_bytes")
    if path.exists():
        meta = _read_meta(path)
        return Built(str(path), names[0], names[1], meta["outputs"], meta["result"], names[2])
    nf = normalized(parsed)
    wrt = [nf.params[k] for k in request.argnums]
    with stage("types", parsed.name):
        types = infer_types(nf, request.arg_types)
    _dump("types", "\n".join(f"{k}: {v}" for k, v in sorted(types.variables.items())))
    resolve_inplace_updates(nf.node, types)
    check_aliasing(nf.node, types, nf.filename)
    primal_text = function_source(nf.node)[0]
    with stage("activity", parsed.name):
        active = active_variables(nf.node, types, wrt)
        recomputed = {}
        if recomputes_temporaries(request.policy):
            recomputed = choose_recomputed(nf.node, nf.temps, active, reverse_reads)
        arrays = {n for n, t in types.variables.items() if t.kind == "array"}
        rerun = loop_mode(request.policy) != "store"
        if request.policy == "auto" and request.memory_budget:
            rerun = lambda loop: time_loop(loop, types)  # noqa: E731
        recording = analyze_recording(
            nf.node, active, nf.counters, nf.filename, recomputed, arrays, rerun
        )
    _dump(
        "activity",
        f"active: {sorted(active)}\nreverse reads: {sorted(recording.reads)}\n"
        f"recomputed: {sorted(recomputed)}",
    )
    outputs = _output_count(nf.node)
    with stage("reverse", parsed.name):
        spec = AdjointSpec(wrt, names[1], request.policy, request.memory_budget, names[2])
        adjoint, counting = build_adjoint(nf, types, active, recording, recomputed, spec, outputs)
    adjoint_text = function_source(adjoint)[0]
    counting_text = function_source(counting, comments=False)[0]
    _dump("reverse", adjoint_text)
    header = _header(parsed, request, wrt, types, outputs)
    text = module_source(header, nf.constants, [primal_text, adjoint_text, counting_text])
    _dump("codegen", text)
    compile_stage.write_module(path, text)
    STATS["transforms"] += 1
    return Built(str(path), names[0], names[1], outputs, types.result.kind, names[2])


def build_tangent_module(parsed: ParsedFunction, request: Request) -> Built:
    """Stages 2-5 for a forward-mode derivative (``jvp``, ``tangent_source``, ``hessian``)."""
    key = source_key(parsed, "forward", repr(request))
    path = compile_stage.module_path(f"{parsed.name}_tangent", key)
    names = (parsed.name, f"{parsed.name}_jvp")
    if path.exists():
        meta = _read_meta(path)
        return Built(str(path), names[0], names[1], meta["outputs"], meta["result"])
    nf = normalized(parsed)
    wrt = [nf.params[k] for k in request.argnums]
    with stage("types", parsed.name):
        types = infer_types(nf, request.arg_types)
    resolve_inplace_updates(nf.node, types)
    check_aliasing(nf.node, types, nf.filename)
    primal_text = function_source(nf.node)[0]
    outputs = _output_count(nf.node)
    with stage("forward", parsed.name):
        tangent = build_tangent(nf, types, wrt, names[1])
    tangent_text = function_source(tangent)[0]
    _dump("forward", tangent_text)
    signature = ", ".join(f"{p}: {t}" for p, t in zip(nf.params, request.arg_types))
    header = (
        f"{_origin_line(parsed)}\n\nForward mode (tangents) with respect to {', '.join(wrt)}.\n"
        f"Argument types: {signature}.\n"
        f"sourcediff-meta: outputs={outputs} result={types.result.kind}"
    )
    text = module_source(header, nf.constants, [primal_text, tangent_text])
    compile_stage.write_module(path, text)
    STATS["transforms"] += 1
    return Built(str(path), names[0], names[1], outputs, types.result.kind)


def build_primal_module(parsed: ParsedFunction) -> Built:
    """Stages 2 and 5 for the primal alone (``sd.jit``)."""
    key = source_key(parsed, "primal")
    path = compile_stage.module_path(parsed.name, key)
    if not path.exists():
        nf = normalized(parsed)
        header = f"{_origin_line(parsed)}\n\nThe normalized primal; do not edit."
        text = module_source(header, nf.constants, [function_source(nf.node)[0]])
        compile_stage.write_module(path, text)
        STATS["transforms"] += 1
    return Built(str(path), parsed.name, "", 1, "")


def load_module(built: Built):
    """The generated module itself (its functions as plain Python)."""
    from pathlib import Path

    return compile_stage.import_module(Path(built.path))


def load(built: Built, function_name: str, jit: bool):
    """Stage 6: the compiled (or, with ``jit=False``, plain Python) function."""
    key = (built.path, function_name, jit)
    if key not in _COMPILED:
        from pathlib import Path

        module = compile_stage.import_module(Path(built.path))
        _COMPILED[key] = compile_stage.compiled(module, function_name, jit)
    return _COMPILED[key]


def _output_count(node: ast.FunctionDef) -> int:
    value = node.body[-1].value
    return len(value.elts) if isinstance(value, ast.Tuple) else 1


POLICY_TEXT = {
    "store": "values the reverse sweep needs are stored when the forward sweep overwrites them\n"
    "(cheap temporaries are recomputed unless the policy is 'store').",
    "recompute": "each outermost loop records only its iterations' entry states; the reverse\n"
    "sweep restores one and re-runs that iteration before reversing it.",
    "checkpoint": "each outermost loop is reversed by binomial checkpointing (revolve): at most\n"
    "the given number of iteration states are stored, iterations are re-run from them.",
}


def _policy_text(request: Request) -> str:
    text = POLICY_TEXT[loop_mode(request.policy)]
    if request.policy == "auto" and request.memory_budget:
        text += (
            "\nAn outermost loop that records arrays or inner loops is checkpointed instead\n"
            f"(revolve) when its record would exceed {request.memory_budget} bytes."
        )
    return text


def _origin_line(parsed: ParsedFunction) -> str:
    where = f"{os.path.basename(parsed.filename)}:{parsed.name}"
    return f"Generated by sourcediff {compile_stage.VERSION} from {where}."


def _header(parsed, request: Request, wrt, types: TypeTable, outputs: int) -> str:
    signature = ", ".join(
        f"{p}: {t}" for p, t in zip([a.arg for a in parsed.node.args.args], request.arg_types)
    )
    return (
        f"{_origin_line(parsed)}\n\n"
        f"Reverse mode with respect to {', '.join(wrt)}; policy {request.policy!r}:\n"
        f"{_policy_text(request)}\nArgument types: {signature}.\n"
        f"sourcediff-meta: outputs={outputs} result={types.result.kind}"
    )


def _read_meta(path) -> dict:
    with open(path) as handle:
        for line in handle:
            if line.startswith("sourcediff-meta:"):
                fields = dict(item.split("=") for item in line.split(":", 1)[1].split())
                return {"outputs": int(fields["outputs"]), "result": fields["result"]}
    raise SourceDiffError(f"the cached module {path} is damaged; delete it")


__all__ = [
    "parse",
    "normalized",
    "build_adjoint_module",
    "build_primal_module",
    "load",
    "output_names",
]
