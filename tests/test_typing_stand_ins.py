"""The stand-ins type inference sees for NumPy's reductions (analysis/typing_stubs.py)
give NumPy's own result types, and the gradients through them are unchanged."""

import numpy as np
import pytest
from numba.core import registry, types

import sourcediff as sd
from sourcediff.analysis.typing_stubs import PREFIX, stand_ins

ARGUMENTS = [
    types.Array(types.float64, 1, "C"),
    types.Array(types.float32, 2, "C"),
    types.Array(types.int64, 1, "C"),
    types.Array(types.boolean, 1, "C"),
    types.float64,
]


@pytest.mark.parametrize("name", ["max", "min", "sum", "mean", "prod", "argmax", "argmin"])
def test_a_stand_in_gives_numpys_result_type(name):
    registry.cpu_target.target_context.refresh()  # NumPy's templates, as the types stage has
    context = registry.cpu_target.typing_context
    context.refresh()
    stand_in = stand_ins()[PREFIX + name]
    for argument in ARGUMENTS:
        expected = _result_type(context, getattr(np, name), argument)
        assert _result_type(context, stand_in, argument) == expected, (name, argument)


def _result_type(context, function, argument):
    """The type of ``function(argument)``, None if it has none, "refused" if typing it
    raises (as Numba's ``np.argmax`` of a number does)."""
    try:
        found = context.resolve_function_type(context.resolve_value_type(function), (argument,), {})
    except Exception:
        return "refused"
    return None if found is None else found.return_type


def _log_sum_exp(x, w):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m))) + np.mean(w * x) + np.argmax(w) * np.min(x)


@pytest.mark.parametrize("jit", [False, True], ids=["python", "compiled"])
def test_gradients_through_reductions_typed_by_stand_ins(jit):
    x = np.array([0.3, -1.2, 2.5, 0.7])
    w = np.array([1.0, 3.0, -2.0, 0.5])
    sd.check_grad(_log_sum_exp, x, w, argnums=(0, 1), jit=jit)
