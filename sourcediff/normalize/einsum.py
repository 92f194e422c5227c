r"""``np.einsum`` (which Numba lacks), rewritten by the flattener: the products and
transposes it spells are calls the table has, any other contraction nested loops.

A contraction of one or two operands that is a matrix or vector product, an outer
product, a transpose, a trace or a sum is that call (``'ij,jk->ik'`` is ``dot``,
``'ij->ji'`` is ``np.transpose``); anything else (three operands, batches, repeated
letters) becomes the loops its subscripts say, accumulating into a fresh array, which
the reverse and forward transformations then differentiate like user loops. Ellipses
(``...``) are refused with the line.

>>> product_form("ik,kj->ij"), product_form("i,i"), product_form("ijk,ik->ij")
(('dot', (0, 1)), ('dot', (0, 1)), None)
>>> print(loop_source(["ijk", "ik"], "ij", ["A", "x"], "out", {}))
out = np.zeros((A.shape[0], A.shape[1],))
for i in range(A.shape[0]):
    for j in range(A.shape[1]):
        for k in range(A.shape[2]):
            out[i, j] += A[i, j, k] * x[i, k]
"""

from __future__ import annotations

import ast

# Contractions that are calls the table has: (inputs, output) -> (function, operand order).
_PRODUCTS = {
    (("ij", "jk"), "ik"): ("dot", (0, 1)),
    (("ij", "j"), "i"): ("dot", (0, 1)),
    (("i", "ij"), "j"): ("dot", (0, 1)),
    (("i", "i"), ""): ("dot", (0, 1)),
    (("jk", "ij"), "ik"): ("dot", (1, 0)),
    (("i", "j"), "ij"): ("np.outer", (0, 1)),
    (("ij",), "ji"): ("np.transpose", (0,)),
    (("ii",), ""): ("np.trace", (0,)),
    (("ii",), "i"): ("np.diag", (0,)),
    (("ij",), ""): ("np.sum", (0,)),
    (("i",), ""): ("np.sum", (0,)),
}


def parse_subscripts(subscripts: str) -> tuple[list[str], str]:
    """``'ij,jk->ik'`` as ``(['ij', 'jk'], 'ik')``; without ``->``, NumPy's implicit
    output: the letters that appear once, in alphabetical order."""
    spec = subscripts.replace(" ", "")
    if "." in spec:
        raise ValueError("ellipses ('...') in np.einsum are not supported; name each axis")
    inputs_part, arrow, output = spec.partition("->")
    inputs = inputs_part.split(",")
    letters = "".join(inputs)
    if not arrow:
        output = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    if not all(term.isalpha() for term in inputs) or not (output.isalpha() or output == ""):
        raise ValueError(f"np.einsum subscripts {subscripts!r}: use letters, ',' and '->'")
    if set(output) - set(letters) or len(set(output)) != len(output):
        raise ValueError(f"np.einsum subscripts {subscripts!r}: output letters once each")
    return inputs, output


def product_form(subscripts: str):
    """``(function, operand order)`` when the contraction is a call the table has."""
    inputs, output = parse_subscripts(subscripts)
    rename = {}
    for letter in "".join(inputs) + output:  # letters renamed in order of appearance
        rename.setdefault(letter, "ijk"[len(rename)] if len(rename) < 3 else "?")
    canonical = tuple("".join(rename[c] for c in term) for term in inputs)
    return _PRODUCTS.get((canonical, "".join(rename[c] for c in output)))


def axis_sizes(inputs, operands) -> dict[str, str]:
    """Each letter's length, as the first operand that has it spells it."""
    sizes = {}
    for term, operand in zip(inputs, operands):
        for axis, letter in enumerate(term):
            sizes.setdefault(letter, f"{operand}.shape[{axis}]")
    return sizes


def loop_source(inputs, output, operands, result, names, sizes=None) -> str:
    """The loops computing the contraction into ``result`` (``names``: loop variable per
    letter, default the letter itself; ``sizes``: each letter's length, by default as
    ``axis_sizes`` spells it)."""
    sizes = sizes or axis_sizes(inputs, operands)
    summed = [c for c in dict.fromkeys("".join(inputs)) if c not in output]
    index = {c: names.get(c, c) for c in sizes}
    factors = " * ".join(
        f"{operand}[{', '.join(index[c] for c in term)}]" for term, operand in zip(inputs, operands)
    )
    if output:
        shape = ", ".join(sizes[c] for c in output)
        lines = [f"{result} = np.zeros(({shape},))"]
        target = f"{result}[{', '.join(index[c] for c in output)}]"
    else:
        lines, target = [f"{result} = 0.0"], result
    for depth, letter in enumerate(list(output) + summed):
        lines.append("    " * depth + f"for {index[letter]} in range({sizes[letter]}):")
    lines.append("    " * (len(output) + len(summed)) + f"{target} += {factors}")
    return "\n".join(lines)


def flatten_einsum(flat, call_args, call_keywords, expr: ast.Call) -> ast.expr:
    """The flattener's form of ``np.einsum(subscripts, *operands)``: a call or loops."""
    from .calls import path_ast

    if any(k.arg != "optimize" for k in call_keywords):  # optimize= only picks an order
        raise flat.fn.error(expr, "np.einsum takes the subscripts and the operands only")
    spec = call_args[0] if call_args else None
    if not (isinstance(spec, ast.Constant) and isinstance(spec.value, str)):
        raise flat.fn.error(expr, "np.einsum needs its subscripts as a string written out")
    try:
        inputs, output = parse_subscripts(spec.value)
    except ValueError as error:
        raise flat.fn.error(expr, str(error)) from None
    operands = [flat.atom(a) for a in call_args[1:]]
    if len(operands) != len(inputs) or not all(isinstance(a, ast.Name) for a in operands):
        raise flat.fn.error(expr, f"np.einsum {spec.value!r} needs {len(inputs)} array operand(s)")
    form = product_form(spec.value)
    if form is not None:
        function, order = form
        return ast.Call(path_ast(function), [operands[k] for k in order], [])
    return _contraction_loops(flat, inputs, output, [a.id for a in operands], expr)


def _contraction_loops(flat, inputs, output, operands, expr) -> ast.expr:
    from .calls import path_ast

    result = flat.namer.fresh("contracted")  # a local array the loops write into
    names = {c: flat.namer.fresh(c) for c in dict.fromkeys("".join(inputs))}
    flat.locals |= {result, *names.values(), *operands}  # operands may be temporaries
    sizes = {}  # computed once, before the loops: their trip counts are then invariant
    for letter, size in axis_sizes(inputs, operands).items():
        sizes[letter] = ast.unparse(flat.atom(ast.parse(size, mode="eval").body))
    source = loop_source(inputs, output, operands, result, names, sizes)
    first, *loops = ast.parse(source).body
    if output:  # a zero array (np.zeros whatever numpy is called in the user's module)
        shape = [flat.atom(e) for e in first.value.args[0].elts]
        zeros = ast.Call(path_ast("np.zeros"), [ast.Tuple(shape, ast.Load())], [])
        flat.assign(result, zeros)
    else:
        flat.assign(result, ast.Constant(0.0))
    for loop in loops:
        for node in ast.walk(loop):
            ast.copy_location(node, expr)
            if isinstance(node, ast.For):
                node.over_rows = True  # a range the rewrite wrote, like arrays.iterate_rows
        flat.stmt(loop)
    return ast.Name(result, ast.Load())
