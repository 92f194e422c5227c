"""One name per distinct helper across a call tree (stage "parse").

Later stages know a helper by its name: ``normalize`` keeps one normalized body per
name, ``ParsedFunction.call_tree`` one function per file and name. Two helpers that are
different functions under one ``def`` name would then share a body and compute the
wrong thing without a word: an alias bound to other options (``h2 = h``; ``h(a,
axis=1) + h2(a)``), two closures of one ``def`` (``k`` differs), or two modules'
``step``. Each distinct helper (by its source once options are bound, and the values of
the constants it reads) keeps a name of its own: the first the ``def``'s, the others
``step_2``, ``step_3``; so does a constant read under one name with two values. The
same function reached from two callers stays one helper, so outlining (``outline.py``)
still sees it called from several places.
"""

from __future__ import annotations

import ast

from .codegen import constant_text


def name_helpers_apart(parsed) -> None:
    """Rename, in place, helpers of ``parsed``'s call tree that share a name with a
    different helper (``parsed`` is a ``ParsedFunction``)."""
    helpers = _all_helpers(parsed)
    taken = {fn.name for fn in helpers} | {parsed.name}
    first_text: dict[str, str] = {}
    renamed: dict[tuple[str, str], str] = {}
    for fn in helpers:
        text = _identity(fn)
        if first_text.setdefault(fn.name, text) == text:
            continue
        if (fn.name, text) not in renamed:
            renamed[(fn.name, text)] = _unused(fn.name, taken)
            taken.add(renamed[(fn.name, text)])
        fn.name = fn.node.name = renamed[(fn.name, text)]
    _name_constants_apart([parsed] + helpers, taken)


def _name_constants_apart(functions: list, taken: set[str]) -> None:
    """Give a constant a name of its own where another function of the tree reads the
    same name with another value (``k`` of two closures, two modules' ``DT``), or binds
    it as a local (a caller's ``k``, or a counter a rewrite named ``k``): inlined into
    that caller, the helper would read the local instead, a silently wrong value."""
    values: dict[str, str] = {}
    taken = taken | {n.id for fn in functions for n in ast.walk(fn.node) if isinstance(n, ast.Name)}
    bound = set().union(*(_bound_names(fn.node) for fn in functions))
    moved: dict[tuple[str, str], str] = {}  # (name, value) -> its own name, the same in all
    for fn in functions:
        for name, resolved in list(fn.names.items()):
            if resolved.kind != "constant":
                continue
            text = constant_text(resolved.value)
            if values.setdefault(name, text) == text and name not in bound:
                continue
            if (name, text) not in moved:
                moved[(name, text)] = _unused(name, taken)
                taken.add(moved[(name, text)])
            new = moved[(name, text)]
            values[new] = text
            fn.names[new] = fn.names.pop(name)
            for node in ast.walk(fn.node):
                if isinstance(node, ast.Name) and node.id == name:
                    node.id = new


def _bound_names(node: ast.FunctionDef) -> set[str]:
    """The names ``node`` binds: its parameters and every name it assigns."""
    names = {a.arg for a in node.args.args + node.args.kwonlyargs}
    names |= {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    return names


def _identity(fn) -> str:
    """What makes two helpers the same: their source with options bound, and the values
    of the constants they read (two closures of one ``def`` differ in these)."""
    constants = sorted(
        (name, constant_text(r.value)) for name, r in fn.names.items() if r.kind == "constant"
    )
    return f"{ast.dump(fn.node)} {constants}"


def _all_helpers(parsed) -> list:
    """Every helper object reachable from ``parsed``, each once, callers first."""
    seen: dict[int, object] = {}
    stack = [r.helper for r in parsed.names.values() if r.kind == "helper"]
    while stack:
        fn = stack.pop(0)
        if id(fn) in seen:
            continue
        seen[id(fn)] = fn
        stack.extend(r.helper for r in fn.names.values() if r.kind == "helper")
    return list(seen.values())


def _unused(stem: str, taken: set[str]) -> str:
    k = 2
    while f"{stem}_{k}" in taken:
        k += 1
    return f"{stem}_{k}"
