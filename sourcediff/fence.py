"""Refusals first: reject every construct outside the differentiable subset.

Runs on each function's AST as soon as it is parsed, before its names are
resolved or anything is rewritten, so every error points at the user's own
line and construct and says what to write instead. Nothing that passes the
fence may later be silently mistranslated.
"""

from __future__ import annotations

import ast

from .errors import UnsupportedSyntaxError
from .normalize import arrays
from .normalize.arrays import reversed_range
from .normalize.iteration import SUGAR, is_sugar, target_fits
from .raises import is_exception_name, raise_messages

# Construct -> (what it is called, what to do instead).
REFUSED = {
    ast.Yield: ("'yield'", "return a value instead"),
    ast.YieldFrom: ("'yield from'", "return a value instead"),
    ast.Await: ("'await'", "differentiate a synchronous function"),
    ast.Try: ("'try'", "check conditions with 'if' instead"),
    ast.With: ("'with'", "move the context manager outside the function"),
    ast.AsyncWith: ("'async with'", "move it outside the function"),
    ast.AsyncFor: ("'async for'", "use a plain 'for' over range()"),
    ast.Lambda: (
        "a 'lambda' other than 'name = lambda ...' in the function's top-level body",
        "assign it to a name there, or define a helper with 'def'",
    ),
    ast.ClassDef: ("a class definition", "define classes outside the function"),
    ast.FunctionDef: (
        "a function defined inside a block or inside a nested function",
        "define it in the function's top-level body or at module level",
    ),
    ast.AsyncFunctionDef: ("a nested async function", "define helpers at module level"),
    ast.Global: ("'global'", "pass the value as an argument and return the result"),
    ast.Nonlocal: ("'nonlocal'", "pass the value as an argument and return the result"),
    ast.Import: ("'import'", "import at module level"),
    ast.ImportFrom: ("'import'", "import at module level"),
    ast.Delete: ("'del'", "let the variable go out of use"),
    ast.ListComp: ("a list comprehension", "write a for loop over range()"),
    ast.SetComp: ("a set comprehension", "write a for loop over range()"),
    ast.DictComp: ("a dict comprehension", "write a for loop over range()"),
    ast.GeneratorExp: ("a generator expression", "write a for loop over range()"),
    ast.List: ("a list", "use a tuple or a NumPy array"),
    ast.Dict: ("a dict", "pass numbers as separate arguments"),
    ast.Set: ("a set", "pass numbers as separate arguments"),
    ast.Starred: ("'*' unpacking", "name each value"),
    ast.JoinedStr: ("an f-string", "compute numbers only"),
    ast.NamedExpr: ("':=' (walrus)", "assign on a line of its own"),
    ast.Match: ("'match'", "use if/elif/else"),
}


class _Site:
    """Where errors point: the user's file."""

    def __init__(self, filename: str, node: ast.FunctionDef):
        self.filename = filename
        self.node = node

    def error(self, node: ast.AST, reason: str) -> UnsupportedSyntaxError:
        line, col = getattr(node, "lineno", 0), getattr(node, "col_offset", 0)
        return UnsupportedSyntaxError(reason, self.filename, line, col)


def check(node: ast.FunctionDef, filename: str) -> None:
    """Raise UnsupportedSyntaxError at the first construct outside the subset.

    Refused constructs are looked for first, over the whole function, so a
    ``yield`` inside an expression statement is reported as a ``yield``.
    """
    fn = _Site(filename, node)
    _check_signature(fn)
    _check_sugar_placement(fn)
    literal_lists = arrays.literal_lists(node)  # np.array([a, b]) is an array, not a list
    literal_lists |= arrays.small_array_lists(node)  # so is c = [1.0, x], only indexed
    for sub in ast.walk(node):
        refused = REFUSED.get(type(sub))
        if refused and sub is not node and id(sub) not in literal_lists:
            what, instead = refused
            raise fn.error(
                sub, f"{what} is not supported inside a differentiated function; {instead}"
            )
    new_axes = {
        id(part)
        for sub in ast.walk(node)
        if isinstance(sub, ast.Subscript)
        for part in (sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice])
        if arrays.is_new_axis(part)
    }
    for sub in ast.walk(node):
        if isinstance(sub, ast.Subscript) and isinstance(sub.slice, ast.Constant):
            if isinstance(sub.slice.value, str):
                raise fn.error(
                    sub,
                    f"indexing with a string ({ast.unparse(sub)}: a dict of parameters?) is not "
                    "supported; pass the arrays and numbers as separate arguments",
                )
    allowed = new_axes | _option_strings(node) | helper_option_arguments(node)
    allowed |= raise_messages(node)
    _check_string_arguments(fn, node, allowed)
    for sub in ast.walk(node):
        if sub is not node and id(sub) not in allowed:
            _check_node(fn, sub)


def _check_string_arguments(fn: _Site, node: ast.FunctionDef, allowed: set[int]) -> None:
    """A string given to a call (``print("step", i)``, ``mode="same"``) is refused naming
    the call, which is what the user has to change."""
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        given = [*call.args, *(k.value for k in call.keywords)]
        strings = [a for a in given if _is_string(a) and id(a) not in allowed]
        if not strings:
            continue
        called = ast.unparse(call.func)
        if called == "print":
            raise fn.error(
                call,
                "'print' is not supported inside a differentiated function; print "
                "the values it returns, or run it with jit=False under a debugger",
            )
        raise fn.error(
            strings[0],
            f"'{called}' is called with the string {strings[0].value!r}: string arguments "
            "(options such as mode=) are not supported; sourcediff differentiates numbers",
        )


def helper_option_arguments(node: ast.FunctionDef) -> set[int]:
    """The strings and None given to calls of a name (``step(u, "rk4")``): options of a
    helper (``sourcediff.options``), which parsing checks once the name is resolved."""
    return {
        id(given)
        for call in ast.walk(node)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
        if call.func.id != "print" and not is_exception_name(call.func.id)
        for given in [*call.args, *(k.value for k in call.keywords)]
        if _is_none(given) or _is_string(given)
    }


def refuse_string_argument(fn, call: ast.Call, given: ast.expr):
    """The refusal of a string or None given to a call that does not take it as an option."""
    called = ast.unparse(call.func)
    return fn.error(
        given,
        f"'{called}' is called with {given.value!r}: string and None arguments are "
        "supported only for a helper's options (a parameter it compares with strings or "
        "None); sourcediff differentiates numbers",
    )


def _option_strings(node: ast.FunctionDef) -> set[int]:
    """The constants that are options, not values: ``np.einsum``'s subscripts,
    ``np.linalg.norm``'s ``ord='fro'``, ``axis=None``/``ord=None`` (the defaults) and
    ``np.clip``'s open bound ``None`` (the flattener checks what they say)."""
    found = set()
    for call in ast.walk(node):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
            continue
        if call.func.attr == "einsum" and call.args and _is_string(call.args[0]):
            found.add(id(call.args[0]))
        if call.func.attr == "norm":
            found |= {id(k.value) for k in call.keywords if k.arg == "ord" and _is_string(k.value)}
            found |= {id(a) for a in call.args[1:2] if _is_string(a)}  # ord given positionally
        found |= {
            id(k.value) for k in call.keywords if k.arg in ("axis", "ord") and _is_none(k.value)
        }
        if call.func.attr == "clip" and len(call.args) == 3:  # an open bound
            found |= {id(a) for a in call.args[1:] if _is_none(a)}
    return found


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _is_string(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _check_signature(fn: _Site) -> None:
    args = fn.node.args
    if args.vararg or args.kwarg:
        raise fn.error(
            fn.node, "'*args'/'**kwargs' parameters are not supported; name each parameter"
        )
    if args.kwonlyargs or args.posonlyargs:
        raise fn.error(
            fn.node,
            "a keyword-only parameter without a default after parameters with defaults is "
            "not supported; give it a default, or make it a plain parameter",
        )


def _check_node(fn: _Site, node: ast.AST) -> None:
    if isinstance(node, ast.Constant) and node.value is Ellipsis:
        return
    if isinstance(node, ast.Constant) and node.value is None:
        raise fn.error(node, "None is supported only as a new axis, as in x[:, None]")
    if isinstance(node, ast.Constant) and not isinstance(node.value, (bool, int, float)):
        if not _is_docstring(fn, node):
            raise fn.error(node, f"constant {node.value!r} is not a number; use numbers only")
    if isinstance(node, ast.For):
        _check_for(fn, node)
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
        raise fn.error(node, "assigning to an attribute is not supported; use a local variable")
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            _check_target(fn, target)
    if isinstance(node, ast.AnnAssign):
        raise fn.error(node, "annotated assignment is not supported; drop the annotation")
    if isinstance(node, ast.Expr) and not _is_docstring(fn, node.value):
        if isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name):
            return  # maybe a helper that writes into arrays; flatten decides
        if isinstance(node.value, ast.Call) and out_keyword(node.value) is not None:
            return  # np.multiply(x, y, out=z): flatten writes z[...]
        if isinstance(node.value, ast.Call):
            called = ast.unparse(node.value.func)
            raise fn.error(
                node, f"calling '{called}' for its side effects is not supported; remove the call"
            )
        raise fn.error(node, "an expression statement has no effect here; assign its value")
    if isinstance(node, ast.Call):
        _check_call(fn, node)


def _check_for(fn: _Site, node: ast.For) -> None:
    it = node.iter
    is_range = (
        isinstance(it, ast.Call)
        and isinstance(it.func, ast.Name)
        and it.func.id == "range"
        and 1 <= len(it.args) <= 3
        and not it.keywords
    )
    over_list = isinstance(it, ast.List) and id(it) in arrays.small_array_lists(fn.node)
    if is_sugar(it) and target_fits(node.target, it):
        if it.func.id == "enumerate":  # its index becomes a range loop's variable
            _check_not_assigned_in(fn, node, node.target.elts[0].id)
        return  # rewritten by normalize.iteration into a range loop
    if is_sugar(it):
        raise fn.error(
            node.target,
            f"unpack what {it.func.id}(...) yields into names: 'for i, v in enumerate(x)', "
            "'for a, b in zip(x, y)'",
        )
    if not is_range and not over_list and not isinstance(it, ast.Name) and not _iterable(it):
        raise fn.error(
            node,
            "'for' loops must run over range(...), enumerate(...), zip(...), the rows of an "
            "array or a list of floats; index with an int",
        )
    if not isinstance(node.target, ast.Name):
        raise fn.error(node.target, "the loop variable must be a single name")
    _check_not_assigned_in(fn, node, node.target.id)


def _iterable(it: ast.expr) -> bool:
    """``reversed(range(...))``, an array expression, named before the loop (its rows):
    ``coeffs[::-1]``, ``np.flip(c)``, ``x * 2.0`` (normalize.arrays.iterate_rows), or a
    tuple written out (its elements: normalize.tuple_displays unrolls the loop)."""
    if reversed_range(it) is not None:
        return True
    if isinstance(it, ast.Call):
        return isinstance(it.func, ast.Attribute)  # np.flip(c), a.ravel(), not a builtin
    return isinstance(it, (ast.Subscript, ast.BinOp, ast.UnaryOp, ast.Attribute, ast.Tuple))


def _check_not_assigned_in(fn: _Site, node: ast.For, target: str) -> None:
    for sub in ast.walk(ast.Module(body=node.body, type_ignores=[])):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store) and sub.id == target:
            raise fn.error(
                sub, f"the loop variable '{target}' is assigned inside its loop; use another name"
            )


def _check_sugar_placement(fn: _Site) -> None:
    """enumerate and zip only as what a for loop runs over."""
    allowed = set()
    for loop in ast.walk(fn.node):
        if isinstance(loop, ast.For) and is_sugar(loop.iter):
            allowed |= {id(loop.iter)} | {id(arg) for arg in loop.iter.args}
    for sub in ast.walk(fn.node):
        if (
            is_sugar(sub)
            and id(sub) not in allowed
            or (isinstance(sub, ast.Name) and sub.id in SUGAR and not _called(fn.node, sub))
        ):
            raise fn.error(sub, "enumerate and zip are supported only in 'for ... in' loops")


def _called(root: ast.AST, name: ast.Name) -> bool:
    return any(isinstance(c, ast.Call) and c.func is name for c in ast.walk(root))


def out_keyword(call: ast.Call) -> ast.expr | None:
    """The ``out=`` argument of a NumPy call, if it has one."""
    return next((kw.value for kw in call.keywords if kw.arg == "out"), None)


def _check_target(fn: _Site, target: ast.AST) -> None:
    if isinstance(target, ast.Subscript):
        if not isinstance(target.value, ast.Name):
            raise fn.error(target, "only elements of a named array can be assigned: a[i] = v")
    elif isinstance(target, ast.Tuple):
        for elt in target.elts:
            if not isinstance(elt, (ast.Name, ast.Subscript)):
                raise fn.error(elt, "only names and elements can be unpacked into")
            _check_target(fn, elt)
    elif isinstance(target, ast.Attribute):
        raise fn.error(target, "assigning to an attribute is not supported; use a local variable")
    elif not isinstance(target, ast.Name):
        raise fn.error(target, "only assignments to names are supported here")


def _check_call(fn: _Site, node: ast.Call) -> None:
    if any(kw.arg is None for kw in node.keywords):
        raise fn.error(node, "'**' in a call is not supported; pass arguments by name")


def _is_docstring(fn: _Site, node: ast.AST) -> bool:
    body = fn.node.body
    first = body[0] if body else None
    return isinstance(first, ast.Expr) and (first is node or first.value is node)
