"""Each pipeline stage on its own: parse, normalize, types, activity, recording, codegen."""

import ast
import inspect
import math

import corpus_scalar
import numba
import numpy as np
import pytest
from reference import assert_close

from sourcediff import ir, runtime
from sourcediff.analysis.activity import active_variables
from sourcediff.analysis.recording import analyze_recording
from sourcediff.analysis.types import infer_types
from sourcediff.codegen import function_source
from sourcediff.normalize import normalize
from sourcediff.parse import parse_function

SCALE = 2.5


def straight_line(x, y):
    a = x * y
    b = math.sin(a) + x
    a = a * b
    return a + y


def accumulate(x, n):
    s = 0.0
    for i in range(n):
        s += x * i
    return s


def product(x, n):
    p = 1.0
    for _ in range(n):
        p = p * x
    return p


def compared_only(x, y):
    k = 0
    if x * 2.0 > y:
        k = 3
    return y * k


def uses_aliases(x):
    from_alias = m.sin(x) + sin(x)  # noqa: F821 - names bound below, resolved at call time
    return from_alias * SCALE


import math as m  # noqa: E402
from math import sin  # noqa: E402


def _normalized(func):
    return normalize(parse_function(func))


def test_parse_gives_absolute_lines_and_resolves_names():
    parsed = parse_function(uses_aliases)
    first = uses_aliases.__code__.co_firstlineno
    assert parsed.node.lineno == first
    assert parsed.node.body[0].lineno == first + 1
    assert parsed.names["m"].kind == "module" and parsed.names["m"].path == "math"
    assert parsed.names["sin"].path == "math.sin"
    assert parsed.names["SCALE"].kind == "constant" and parsed.names["SCALE"].value == 2.5


def test_normalize_canonicalizes_library_calls():
    source = function_source(_normalized(uses_aliases).node)[0]
    assert source.count("math.sin(x)") == 2


def _is_atom(node):
    return isinstance(node, (ast.Name, ast.Constant))


def _three_address(node: ast.FunctionDef, counters) -> bool:
    counter_names = {c.name for c in counters.values()}
    for stmt in ast.walk(node):
        if ir.is_permutation(stmt) or ir.is_element_write(stmt):
            continue
        if isinstance(stmt, ast.Assign) and "inplace_update" in ast.unparse(stmt.value):
            continue  # x += e keeps x: in place for arrays (resolved once types are known)
        if isinstance(stmt, ast.Assign) and stmt.targets[0].id not in counter_names:
            value = stmt.value
            operands = {
                ast.BinOp: lambda v: [v.left, v.right],
                ast.UnaryOp: lambda v: [v.operand],
                ast.Compare: lambda v: [v.left, *v.comparators],
                ast.Call: lambda v: v.args,
            }.get(type(value), lambda v: [v])(value)
            if not all(_is_atom(o) or isinstance(o, ast.Call) for o in operands):
                return False
            targets = {n.id for n in ast.walk(stmt.targets[0]) if isinstance(n, ast.Name)}
            if not isinstance(value, ast.Name) and targets & {
                n.id for n in ast.walk(value) if isinstance(n, ast.Name)
            }:
                return False
    return True


@pytest.mark.parametrize("case", corpus_scalar.CASES, ids=[c.name for c in corpus_scalar.CASES])
def test_normalized_code_is_three_address_and_computes_the_same(case):
    """Differential test: the normalized primal, run by CPython, equals the user's function."""
    nf = _normalized(case.func)
    assert _three_address(nf.node, nf.counters)
    assert not any(isinstance(n, ast.Continue) for n in ast.walk(nf.node))
    returns = [n for n in ast.walk(nf.node) if isinstance(n, ast.Return)]
    assert returns == [nf.node.body[-1]]
    namespace = {"math": math, "np": np, **nf.constants}
    namespace |= {name: getattr(runtime, name) for name in runtime.HELPERS}
    exec(function_source(nf.node)[0], namespace)
    signature = inspect.signature(case.func)
    for point in case.points:
        bound = signature.bind(*point)
        bound.apply_defaults()
        actual = namespace[nf.name](*bound.args)
        assert_close(actual, case.func(*point), 1e-15, 0.0, case.name)


def test_types_come_from_numba():
    nf = _normalized(compared_only)
    types = infer_types(nf, (numba.float64, numba.float64))
    assert types["k"].kind == "int"
    assert types["x"].kind == "float"
    assert types.result.kind == "float"


def test_activity_excludes_ints_and_values_only_compared():
    nf = _normalized(compared_only)
    types = infer_types(nf, (numba.float64, numba.float64))
    active = active_variables(nf.node, types, ["x", "y"])
    assert "y" in active
    assert "x" not in active  # x only reaches the output through a comparison
    assert "k" not in active


def _recording(func, arg_types, wrt):
    nf = _normalized(func)
    types = infer_types(nf, arg_types)
    active = active_variables(nf.node, types, wrt)
    return nf, analyze_recording(nf.node, active, nf.counters, nf.filename, types)


def test_straight_line_code_records_nothing():
    _, rec = _recording(straight_line, (numba.float64, numba.float64), ["x", "y"])
    assert rec.saves == set()


def test_a_sum_in_a_loop_records_nothing():
    _, rec = _recording(accumulate, (numba.float64, numba.int64), ["x"])
    assert rec.saves == set()


def test_a_product_in_a_loop_records_only_the_running_product():
    nf, rec = _recording(product, (numba.float64, numba.int64), ["x"])
    saved = [
        s.targets[0].id
        for s in ast.walk(nf.node)
        if isinstance(s, ast.Assign) and id(s) in rec.saves
    ]
    assert saved == ["p"]


def test_codegen_is_deterministic_and_carries_origin_comments():
    first = function_source(_normalized(accumulate).node)[0]
    second = function_source(_normalized(accumulate).node)[0]
    assert first == second
    line = accumulate.__code__.co_firstlineno + 3
    assert f"# test_stages.py:{line}: s += x * i" in first


def test_type_inference_is_shared_by_identical_requests_and_copied_out():
    """Builds of one function for one signature (policies, modes) share one inference;
    each gets its own table, so a stage that fills in shapes cannot reach the next."""
    signature = (numba.float64, numba.float64)
    first = infer_types(_normalized(compared_only), signature)
    first.shapes["sentinel"] = ("n",)
    second = infer_types(_normalized(compared_only), signature)
    assert second is not first and "sentinel" not in second.shapes
    assert second.variables == first.variables and second.result == first.result
    other = infer_types(_normalized(compared_only), (numba.float32, numba.float64))
    assert other.variables["x"].dtype == "float32" != first.variables["x"].dtype
