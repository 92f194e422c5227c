"""Options given to helpers in calls (stage "parse"; see ``sourcediff.options``).

A helper with options (``def step(u, method="euler")``, ``np.trapezoid(y, x=None)``
written in ``library.py``) is bound to what its calls give: a string or None written
in the call, its default, or a number or an array (:data:`options.NUMBER`). Calls
giving different choices (``np.trapz(y, dx=0.1)`` and ``np.trapz(y, t)``) call one
binding each, under a name of its own (:func:`split_by_choice`); the strings and
None left in the calls become :data:`options.PLACEHOLDER` (:func:`pass_helper_options`).
"""

from __future__ import annotations

import ast
import types

from . import fence
from .astnodes import walk
from .options import NUMBER, PLACEHOLDER, is_option_value
from .sources import unwrap


def call_options(parsed, name: str, helper) -> dict:
    """The choice every call of ``name`` in ``parsed`` gives ``helper``'s options (after
    :func:`split_by_choice`, one per name)."""
    choices = {repr(c): c for c in (_choice(call, helper) for call in _calls(parsed, name))}
    assert len(choices) <= 1, f"'{name}' called with several choices: {list(choices)}"
    return next(iter(choices.values()), {})


def split_by_choice(parsed, scope: dict, local: set[str], signature_of) -> list[str]:
    """Rename the calls of a helper with options that give another choice than its first
    call (``name_2``, ...), the new name standing for the same function in ``scope``; the
    new names. ``signature_of(function)`` parses a function for its option parameters."""
    created = []
    for name in sorted({c.func.id for c in _calls(parsed, None)} - local):
        helper = _helper_signature(scope.get(name), signature_of)
        if helper is None or not helper.option_params:
            continue
        choices: dict[str, list[ast.Call]] = {}
        for call in _calls(parsed, name):
            choices.setdefault(repr(_choice(call, helper)), []).append(call)
        for calls in list(choices.values())[1:]:
            new = _unused(f"{name}_", scope, local)
            scope[new] = scope[name]
            for call in calls:
                call.func.id = new
            created.append(new)
    return created


def pass_helper_options(parsed) -> None:
    """Every string or None given to a call goes to an option of a helper, bound into the
    helper: the call passes :data:`PLACEHOLDER` instead. Any other is refused."""
    allowed = fence.helper_option_arguments(parsed.node)
    for call in _calls(parsed, None):
        resolved = parsed.names.get(call.func.id)
        helper = resolved.helper if resolved is not None and resolved.kind == "helper" else None
        params = [a.arg for a in helper.node.args.args] if helper else []
        options = set(helper.option_params) if helper else set()
        given = [(params[k] if k < len(params) else None, a) for k, a in enumerate(call.args)]
        given += [(k.arg, k.value) for k in call.keywords]
        for param, value in given:
            if id(value) in allowed and param not in options:
                raise fence.refuse_string_argument(parsed, call, value)
        call.args = [_placeholder_for(a, allowed) for a in call.args]
        for keyword in call.keywords:
            keyword.value = _placeholder_for(keyword.value, allowed)


def _calls(parsed, name: str | None) -> list[ast.Call]:
    """The calls of ``name`` (of any plain name for None) in ``parsed``."""
    return [
        n
        for n in walk(parsed.node)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and (name is None or n.func.id == name)
    ]


def _choice(call: ast.Call, helper) -> dict:
    """What ``call`` gives ``helper``'s options: a string or None (written or by default)
    or :data:`NUMBER`."""
    params = [a.arg for a in helper.node.args.args]
    given = dict(zip(params, call.args)) | {k.arg: k.value for k in call.keywords}
    values = {}
    for option in helper.option_params:
        value = given.get(option)
        if value is None and option in helper.defaults:
            value = ast.Constant(helper.defaults[option])
        constant = isinstance(value, ast.Constant) and is_option_value(value.value)
        values[option] = value.value if constant else NUMBER  # a number or an array
    return values


def _helper_signature(value, signature_of):
    """``value`` parsed for its signature when it is a plain Python function, else None."""
    try:
        value = unwrap(value) if value is not None else None
    except Exception:  # noqa: BLE001 - refused with its line when the call is resolved
        return None
    if not isinstance(value, types.FunctionType):
        return None
    try:
        return signature_of(value)
    except Exception:  # noqa: BLE001 - likewise
        return None


def _unused(stem: str, scope: dict, local: set[str]) -> str:
    k = 2
    while f"{stem}{k}" in scope or f"{stem}{k}" in local:
        k += 1
    return f"{stem}{k}"


def _placeholder_for(value: ast.expr, options: set[int]) -> ast.expr:
    if id(value) not in options:
        return value
    return ast.copy_location(ast.Constant(PLACEHOLDER), value)
