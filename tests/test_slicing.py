"""The counting function's slice (transform/slicing.py) keeps everything its result reads."""

import ast
import textwrap

import numpy as np
import pytest

from sourcediff.transform.slicing import slice_to_result


def _sliced(source: str):
    original = ast.parse(textwrap.dedent(source)).body[0]
    sliced = slice_to_result(ast.parse(textwrap.dedent(source)).body[0])
    return original, sliced


def _run(fn: ast.FunctionDef, *args):
    namespace = {"np": np}
    module = ast.fix_missing_locations(ast.Module(body=[fn], type_ignores=[]))
    exec(compile(module, "<sliced>", "exec"), namespace)
    return namespace[fn.name](*[np.array(a, copy=True) for a in args])


CASES = {
    "contents read by a branch": """
        def f(x, n):
            recorded_bytes = 0
            u = np.copy(x)
            for i in range(n):
                u[0] = u[0] - 1.0
                if u[0] > 0.0:
                    recorded_bytes += 8
            return recorded_bytes
        """,
    "a store through a view": """
        def f(x, n):
            recorded_bytes = 0
            u = np.copy(x)
            w = u[1:]
            for i in range(n):
                w[0] = w[0] - 1.0
                if u[1] > 0.0:
                    recorded_bytes += 8
            return recorded_bytes
        """,
    "swapped buffers": """
        def f(x, n):
            recorded_bytes = 0
            u = np.copy(x)
            v = np.zeros_like(x)
            for i in range(n):
                v[1] = u[1] - 1.0
                u, v = v, u
                while u[1] > 0.0 and recorded_bytes < 800:
                    recorded_bytes += 8
                    u[1] = u[1] - 0.5
            return recorded_bytes
        """,
    "an array that comes back out of a list": """
        def f(x, n):
            recorded_bytes = 0
            kept = [np.zeros(1)]
            u = np.copy(x)
            kept.append(u)
            for i in range(n):
                u[1] = u[1] - 1.0
                if kept[-1][1] > 0.0:
                    recorded_bytes += 8
            return recorded_bytes
        """,
    "a trip count read from an array": """
        def f(x, n):
            recorded_bytes = 0
            counts = np.zeros(3, np.int64)
            counts[2] = n + 2
            for i in range(counts[2]):
                recorded_bytes += 8
                if i > 3:
                    break
            return recorded_bytes
        """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_slice_counts_what_the_whole_function_counts(name):
    original, sliced = _sliced(CASES[name])
    for x, n in [([3.0, 2.5, 1.0], 4), ([0.5, 7.0, 1.0], 9), ([-1.0, -2.0, 0.0], 1)]:
        assert _run(sliced, x, n) == _run(original, x, n)


def test_stores_that_nothing_counted_reads_are_dropped():
    _, sliced = _sliced(
        """
        def f(x, steps):
            recorded_bytes = 0
            u = np.copy(x)
            v = np.zeros_like(x)
            for _ in range(steps):
                for i in range(1, u.shape[0] - 1):
                    v[i] = u[i - 1] + u[i + 1]
                    recorded_bytes += 8
                u, v = v, u
            return recorded_bytes
        """
    )
    text = ast.unparse(sliced)
    assert "v[i] =" not in text
    assert "u, v = (v, u)" in text  # u's shape after the swap is v's
    assert "range(1, u.shape[0] - 1)" in text
    assert _run(sliced, [1.0, 2.0, 3.0, 4.0], 3) == 3 * 2 * 8


def test_a_helper_that_may_change_its_argument_stays():
    _, sliced = _sliced(
        """
        def f(x, n):
            recorded_bytes = 0
            ignored = user_helper(x)
            return recorded_bytes + x.shape[0]
        """
    )
    assert "user_helper(x)" in ast.unparse(sliced)
