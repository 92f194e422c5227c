"""Refusals: every unsupported construct is a SourceDiffError naming file, line and construct.

Each function in refusal_cases.py uses exactly one unsupported construct, on the line marked
``# <- refused``. The error must name ``refusal_cases.py``, that line, and the construct, must
be raised before anything is written, imported or compiled, and ``sd.adjoint_source`` must
refuse the same way. The second half checks argument errors (``sd.ArgumentError``).
"""

import inspect
from dataclasses import dataclass

import numpy as np
import pytest
import refusal_cases as rc

import sourcediff as sd
from sourcediff import compile as compile_stage
from sourcediff import pipeline

MARKER = "# <- refused"
FILE = "refusal_cases.py"


@dataclass
class Refusal:
    id: str
    func: object
    args: tuple
    keyword: str
    marker_in: object = None  # the function holding the marker, if not func itself
    bug: str = ""  # non-empty: a known sourcediff bug, the test is a strict xfail


def marker_line(func) -> int:
    """The absolute line number in refusal_cases.py of the one marked line of ``func``."""
    lines, first = inspect.getsourcelines(func)
    found = [first + k for k, line in enumerate(lines) if MARKER in line]
    assert len(found) == 1, f"{func.__name__} should have exactly one '{MARKER}' line: {found}"
    return found[0]


CASES = [
    # Generators, exceptions, context managers.
    Refusal("yield", rc.uses_yield, (1.0,), "yield"),
    Refusal("yield-from", rc.uses_yield_from, (1.0, 3), "yield from"),
    Refusal("try-except", rc.uses_try_except, (1.5,), "try"),
    Refusal("try-finally", rc.uses_bare_try, (1.5,), "try"),
    Refusal("with", rc.uses_with, (1.5,), "with"),
    # Definitions inside the function.
    Refusal("lambda-as-argument", rc.uses_lambda_as_argument, (1.5,), "lambda"),
    Refusal("zip-outside-a-loop", rc.zips_outside_a_loop, (np.ones(2), np.ones(2)), "zip"),
    Refusal("enumerate-into-one-name", rc.enumerates_into_one_name, (np.ones(2),), "enumerate"),
    Refusal("write-into-appended-list", rc.writes_into_appended_list, (np.ones(2),), "append"),
    Refusal("generator-in-while-test", rc.generator_in_while_test, (np.ones(2),), "generator"),
    Refusal("einsum-ellipsis", rc.einsum_with_ellipsis, (np.ones((2, 2)), np.ones(2)), "..."),
    Refusal("norm-order-three", rc.norm_of_order_three, (np.ones(2),), "Euclidean"),
    Refusal("roll-tuple-axes", rc.rolls_along_a_tuple_of_axes, (np.ones((2, 2)),), "tuple of axes"),
    Refusal(
        "tuple-axis-variable", rc.reduces_over_a_variable_tuple_axis, (np.ones((2, 2)), 1), "tuple"
    ),
    Refusal(
        "tuple-axis-mixed-signs", rc.reduces_over_axes_of_mixed_signs, (np.ones((2, 2)),), ">= 0"
    ),
    Refusal(
        "diff-variable-n", rc.differences_a_variable_number_of_times, (np.ones(4), 2), "np.diff"
    ),
    Refusal(
        "diff-variable-axis", rc.differences_along_a_variable_axis, (np.ones((2, 3)), 0), "axis"
    ),
    Refusal(
        "diff-prepend", rc.differences_with_a_keyword_numpy_lacks, (np.ones((2, 3)),), "np.diff"
    ),
    Refusal("builtin-sorted", rc.sorts_an_array_with_the_builtin, (np.ones(3),), "np.sort"),
    Refusal("nested-def-as-value", rc.uses_nested_function_as_value, (1.5,), "called by name"),
    Refusal("def-inside-loop", rc.uses_def_inside_loop, (1.5,), "defined inside a block"),
    Refusal("recursive-nested-def", rc.uses_recursive_nested_def, (1.5,), "recursive"),
    Refusal("class", rc.uses_class, (1.5,), "class"),
    # Scopes.
    Refusal("global-write", rc.uses_global_write, (1.5,), "global"),
    Refusal("nonlocal", rc.uses_nonlocal, (1.5,), "nonlocal"),
    # Recursion.
    Refusal("recursion-direct", rc.recursive_power, (1.5, 3), "recursive"),
    Refusal("recursion-mutual", rc.mutual_entry, (1.5, 3), "recursive", marker_in=rc._pong),
    # Signatures.
    Refusal("star-args", rc.uses_star_args, (1.5, 2.0), "*args"),
    Refusal("star-kwargs", rc.uses_star_kwargs, (1.5,), "**kwargs"),
    Refusal("keyword-only", rc.uses_keyword_only, (1.5,), "keyword-only"),
    # Calls without a derivative rule or Python source.
    Refusal("call-math-nextafter", rc.calls_math_nextafter, (1.5,), "math.nextafter"),
    Refusal("call-sorted", rc.calls_sorted, (1.5, 2.5), "sorted"),
    Refusal(
        "string-option",
        rc.convolves_with_a_mode,
        (np.ones(4), np.ones(2)),
        "'np.convolve' is called with the string 'same'",
    ),
    Refusal("call-np-sinc", rc.calls_np_sinc, (1.5,), "np.sinc"),
    Refusal("call-c-function", rc.calls_c_function, (1.5,), "c_mul"),
    # Containers and comprehensions.
    Refusal("list-literal", rc.uses_list_literal, (1.5, 2.5), "list"),
    Refusal("dict-literal", rc.uses_dict_literal, (1.5, 2.5), "dict"),
    Refusal("list-comprehension", rc.uses_list_comprehension, (1.5,), "list comprehension"),
    Refusal("generator-expression", rc.uses_generator_expression, (1.5,), "generator expression"),
    # Loops.
    Refusal("loop-variable-assigned", rc.assigns_loop_variable, (1.5, 3), "loop variable"),
    # Expressions and statements.
    Refusal("walrus", rc.uses_walrus, (1.5,), "walrus"),
    Refusal("f-string", rc.uses_fstring, (1.5,), "f-string"),
    Refusal("string-constant", rc.uses_string_constant, (1.5,), "'fast'"),
    Refusal("attribute-assignment", rc.assigns_attribute, (1.5, 2.5), "attribute"),
    Refusal("import", rc.imports_inside, (1.5,), "import"),
    Refusal("import-alias", rc.imports_alias_inside, (1.5,), "import"),
    Refusal("raise-own-exception", rc.raises_own_exception, (1.5,), "builtin exception"),
    Refusal("raise-from", rc.raises_from, (1.5,), "'from'"),
    Refusal("del", rc.uses_del, (1.5,), "del"),
    Refusal("match", rc.uses_match, (1.5, 1), "match"),
    Refusal("missing-return", rc.can_finish_without_return, (1.5,), "without returning"),
    Refusal("return-only-in-loop", rc.returns_only_inside_loop, (1.5, 3), "without returning"),
    Refusal("unknown-global", rc.uses_unknown_global, (1.5,), "UNDEFINED_SCALE"),
    Refusal("empty-loop-variable", rc.reads_variable_of_empty_loop, (1.5, 3), "only 'pass'"),
]


def _param(case: Refusal, with_bug_mark: bool):
    marks = ()
    if with_bug_mark and case.bug:
        marks = (pytest.mark.xfail(strict=True, raises=AssertionError, reason=case.bug),)
    return pytest.param(case, id=case.id, marks=marks)


MESSAGE_PARAMS = [_param(c, True) for c in CASES]
PLAIN_PARAMS = [_param(c, False) for c in CASES]


def test_every_case_has_one_marked_line():
    """Each function in refusal_cases.py (except helpers and the control) is used once here."""
    used = {c.func for c in CASES}
    defined = {
        value
        for name, value in vars(rc).items()
        if inspect.isfunction(value)
        and value.__module__ == rc.__name__
        and not name.startswith("_")
        and name != "uses_supported_constant"
    }
    assert used == defined
    assert len(used) == len(CASES)
    for case in CASES:
        marker_line(case.marker_in or case.func)


def test_control_function_is_accepted():
    """The module itself is fine: a function without refused constructs differentiates."""
    assert sd.grad(rc.uses_supported_constant, jit=False)(2.0) == pytest.approx(2 * rc.SCALE * 2)


@pytest.mark.parametrize("case", MESSAGE_PARAMS)
def test_refusal_names_file_line_and_construct(case):
    line = marker_line(case.marker_in or case.func)
    with pytest.raises(sd.SourceDiffError) as info:
        sd.grad(case.func)(*case.args)
    message = str(info.value)
    # The first line is 'file.py:LINE: reason'; later lines quote the user's source, which
    # would trivially contain the keyword, so only the first line is searched.
    head = message.splitlines()[0]
    assert f"{FILE}:{line}:" in head, f"expected {FILE}:{line}: in the message:\n{message}"
    assert case.keyword in head, f"expected {case.keyword!r} in the message:\n{message}"


@pytest.mark.parametrize("case", PLAIN_PARAMS)
def test_refusal_happens_before_anything_is_compiled(case, monkeypatch):
    calls = []

    def forbidden(name):
        def record(*args, **kwargs):
            calls.append(name)
            raise AssertionError(f"{name} was called for a refused function")

        return record

    for module, name in [
        (compile_stage, "write_module"),
        (compile_stage, "import_module"),
        (compile_stage, "compiled"),
        (pipeline, "infer_types"),
    ]:
        monkeypatch.setattr(module, name, forbidden(f"{module.__name__}.{name}"))
    transforms = pipeline.STATS["transforms"]
    compiled = dict(pipeline._COMPILED)
    with pytest.raises(sd.SourceDiffError):
        sd.grad(case.func)(*case.args)
    assert calls == []
    assert pipeline.STATS["transforms"] == transforms
    assert pipeline._COMPILED == compiled


@pytest.mark.parametrize("case", PLAIN_PARAMS)
def test_adjoint_source_refuses_with_the_same_error(case):
    with pytest.raises(sd.SourceDiffError) as from_grad:
        sd.grad(case.func, jit=False)(*case.args)
    with pytest.raises(sd.SourceDiffError) as from_source:
        sd.adjoint_source(case.func)
    assert type(from_source.value) is type(from_grad.value)
    assert str(from_source.value) == str(from_grad.value)


def test_refusals_are_specific_subclasses():
    """Syntax refusals and call refusals are told apart by class, both SourceDiffErrors."""
    with pytest.raises(sd.UnsupportedSyntaxError):
        sd.grad(rc.uses_del)(1.5)
    with pytest.raises(sd.UnsupportedCallError):
        sd.grad(rc.calls_math_nextafter)(1.5)
    assert issubclass(sd.UnsupportedSyntaxError, sd.SourceDiffError)
    assert issubclass(sd.UnsupportedCallError, sd.SourceDiffError)


def test_refusal_is_raised_again_on_every_call():
    """A refused specialization is not cached as if it had been built."""
    for _ in range(2):
        with pytest.raises(sd.UnsupportedSyntaxError, match="del"):
            sd.grad(rc.uses_del, jit=False)(1.5)


# ---------------------------------------------------------------------------
# Argument errors
# ---------------------------------------------------------------------------


def scaled_sum(x, n):
    s = 0.0
    for i in range(n):
        s += x * i
    return s


def flagged(x, flag):
    if flag:
        return 2.0 * x
    return x


def product(x, y):
    return x * y


def pair(x, y):
    return x * y, x + y


def test_argument_error_is_a_sourcediff_error():
    assert issubclass(sd.ArgumentError, sd.SourceDiffError)


def test_argnums_at_an_int_argument():
    with pytest.raises(sd.ArgumentError) as info:
        sd.grad(scaled_sum, argnums=1, jit=False)(1.5, 3)
    message = str(info.value)
    assert "'n'" in message and "int" in message


def test_argnums_at_a_numpy_int_argument():
    import numpy as np

    with pytest.raises(sd.ArgumentError, match="'n'"):
        sd.grad(scaled_sum, argnums=(0, 1), jit=False)(1.5, np.int64(3))


def test_argnums_at_a_bool_argument():
    with pytest.raises(sd.ArgumentError) as info:
        sd.grad(flagged, argnums=1, jit=False)(1.5, True)
    message = str(info.value)
    assert "'flag'" in message and "bool" in message


def test_int_argument_not_in_argnums_is_fine():
    assert sd.grad(scaled_sum, jit=False)(1.5, 4) == pytest.approx(6.0)
    assert sd.grad(flagged, jit=False)(1.5, True) == pytest.approx(2.0)


@pytest.mark.parametrize("argnums", [2, -3, (0, 2), (5,)])
def test_argnums_out_of_range(argnums):
    with pytest.raises(sd.ArgumentError, match="out of range") as info:
        sd.grad(product, argnums=argnums, jit=False)(1.5, 2.5)
    assert "product" in str(info.value)


def test_argnums_empty_tuple():
    with pytest.raises(sd.ArgumentError, match="argnums"):
        sd.grad(product, argnums=())


def test_argnums_float_is_an_argument_error():
    with pytest.raises(sd.ArgumentError, match="argnums"):
        sd.grad(product, argnums=1.0)


def test_grad_of_a_tuple_result_points_to_vjp():
    with pytest.raises(sd.ArgumentError) as info:
        sd.grad(pair, jit=False)(1.5, 2.5)
    assert "vjp" in str(info.value)
    with pytest.raises(sd.ArgumentError, match="vjp"):
        sd.value_and_grad(pair, jit=False)(1.5, 2.5)


@pytest.mark.parametrize(
    "bad", ["abc", [1.0, 2.0], None, 1j], ids=["str", "list", "none", "complex"]
)
def test_unsupported_type_at_a_differentiated_argument(bad):
    with pytest.raises(sd.ArgumentError) as info:
        sd.grad(product, jit=False)(bad, 2.5)
    assert "'x'" in str(info.value)


def test_unsupported_type_dict_at_another_argument():
    with pytest.raises(sd.ArgumentError, match="'y'"):
        sd.grad(product, jit=False)(1.5, {"a": 1.0})


@pytest.mark.parametrize("bad", ["abc", [1.0, 2.0]], ids=["str", "list"])
def test_unsupported_type_at_another_argument(bad):
    with pytest.raises(sd.ArgumentError, match="'y'"):
        sd.grad(product, jit=False)(1.5, bad)


def test_unknown_policy():
    with pytest.raises(sd.ArgumentError, match="policy"):
        sd.grad(product, policy="sometimes")


def test_unknown_jacobian_mode():
    with pytest.raises(sd.ArgumentError, match="mode"):
        sd.jacobian(product, mode="sideways")


def test_vjp_cotangent_of_the_wrong_length():
    _, pullback = sd.vjp(pair, 1.5, 2.5, jit=False)
    with pytest.raises(sd.ArgumentError, match="2 components"):
        pullback((1.0, 0.0, 0.0))


def test_vjp_scalar_cotangent_for_a_tuple_result():
    _, pullback = sd.vjp(pair, 1.5, 2.5, jit=False)
    with pytest.raises(sd.ArgumentError, match="2 components"):
        pullback(1.0)


@pytest.mark.parametrize("jit", [False, True])
def test_a_list_grown_by_append_needs_no_numpy_import(jit):
    """The rewrite of ``xs.append`` calls NumPy, which this module does not import."""
    import math

    import no_numpy_cases

    v = 0.7
    expected = sum(k * math.cos(k * v) for k in range(1, 5))  # d/dv of sum(sin(k v))
    assert sd.grad(no_numpy_cases.cumulative, jit=jit)(v) == pytest.approx(expected, rel=1e-12)
