"""What memory a call is given (analysis/sharing.passed_memory): the names its arguments
may be views of, never fewer (review of c7a2f24), and no names inside arithmetic."""

import ast

import pytest

from sourcediff.analysis.sharing import alias_classes, passed_memory


def _call(source: str) -> ast.Call:
    return ast.parse(source).body[0].value


@pytest.mark.parametrize(
    "source,names",
    [
        ("reserve(tape, top + 6 * len(range(i, n)))", {"tape"}),
        ("add_into(x_bar[1:, :], e)", {"x_bar", "e"}),
        ("pick((a,) + (b,), 0)", {"a", "b"}),  # a tuple joined keeps both arrays
        ("pick([a] * 2)", {"a"}),
        ("pick(a or b)", {"a", "b"}),  # one of them comes back
        ("h(np.exp(a, out=b))", {"b"}),  # the result is b itself
        ("np.asarray(a[1:]).reshape(2, -1)", {"a"}),
        ("lst.append(a)", {"lst", "a"}),
        ("f(*parts, key=w)", {"parts", "w"}),
    ],
)
def test_a_call_is_given_the_memory_of_its_arguments_views(source, names):
    assert passed_memory(_call(source)) == names


def test_a_tape_reserve_joins_no_loop_bound_to_the_tape():
    fn = ast.parse(
        "def f(x, n):\n"
        "    tape = np.empty(4)\n"
        "    for i in range(n):\n"
        "        tape = reserve(tape, 2 * len(range(i, n)))\n"
        "        v = x[1:]\n"
    ).body[0]
    classes = alias_classes(fn)
    assert "n" not in classes.get("tape", set())
    assert classes["v"] == {"v", "x"}
