"""Stage "optimize": generated functions as an expert would write them, bit for bit the same.

Fourteen passes run over each generated function (primal, derivative and record
count; not the verifier's shadow) until none changes anything:

1. ``assign_first_contributions`` (zeros.py): ``s_bar += g`` becomes
   ``s_bar = g`` where ``s_bar`` certainly holds ``0.0``;
2. ``forward_array_adjoints`` (forwarding.py): an array temporary's adjoint
   buffer that receives one contribution and passes it on is skipped:
   ``add_into(A_bar[1:, :], e)`` instead of three passes over the buffer;
3. ``bind_first_contributions`` (first_arrays.py): ``add_into(t_bar, e)``
   becomes ``t_bar = e`` where the buffer is certainly zero and ``e`` a new
   array of its shape (the derivative only: it needs the static shapes);
4. ``hoist_loop_invariants`` (hoist.py): ``h = 0.5 * dt`` in a loop's body moves
   before the loop;
5. ``share_common_subexpressions`` (cse.py): ``b = e`` after ``a = e``
   becomes ``b = a`` while ``e``'s inputs are unchanged;
6. ``drop_repeated_reads`` (repeats.py): a second ``t = x[j, 1] - x[i, 1]`` goes while
   neither the names nor the memory it reads changed (the derivative only: it needs
   the arrays' ranks);
7. ``sink_zeroings`` (sink_zeroings.py): ``r_bar = 0.0`` after the copies that hand
   ``r_bar`` on moves down to its next mention, so that the copies fold;
8. ``fold_temporaries`` (fold.py): values read once go back into the
   expression that reads them; copies are propagated; ``b = a`` after
   ``a = b`` is dropped; ``x = e1`` (or ``x += e1``) followed by ``x += e2`` becomes
   ``x = e1 + e2`` (``x = x + e1 + e2``);
9. ``merge_element_updates`` (updates.py): ``A[i] += e1; ...; A[i] -= e2`` becomes
   ``A[i] = A[i] + e1 - e2`` where nothing in between touches that element;
10. ``drop_dead_stores`` (cleanup.py): ``name = pure`` that nothing reads;
11. ``tidy_reversed_ranges`` (simplify.py): the reverse of a loop whose bounds are
    recomputed runs ``range(b - 1, a - 1, -1)``;
12. ``absorb_negations`` (negations.py): ``a + c * -b`` becomes ``a - c * b``;
13. ``pass_through_increments`` (passthrough.py): the reverse of ``a[i] += e`` no
    longer zeroes ``a_bar[i]`` to add the same value back (the derivative only: it
    needs the arrays' ranks);
14. ``count_by_multiplying`` (counting.py, the counting function only): a loop that
    adds the same bytes every iteration becomes one multiplication, and
    ``merge_constant_counts`` joins ``b += 8; b += 8`` into ``b += 16``.

A pass that found nothing is not run again until another pass changes the function.

Then, once, on the derivative, ``swap_first_contributions`` (first_arrays.py):
``add_into(a_bar, b_bar); b_bar.fill(0.0)`` with ``a_bar`` certainly zero becomes the
swap ``a_bar, b_bar = (b_bar, a_bar)`` (after the fixed point: a swap binds the two
names again, which the passes above do not expect of a private buffer). Last,
``drop_implied_zeroings`` removes the zeroing of an adjoint whose every element the
reverse of a fused loop nest zeroed already (kept until then, so the analyses see it),
``drop_dead_zeroings`` (dead_zeroings.py) the zeroing of an element read for the last time
(and, in an outlined helper's vjp, ``read_seed_in_place`` reads the seed instead of a copy),
``drop_final_zeroings`` the zeroings of a private adjoint buffer that nothing mentions
after them (the derivative only: it needs the arrays' ranks),
``run_independent_loops_forward`` (forward_loops.py) runs a reverse loop whose iterations
share nothing in the forward order (the derivative only: it needs the arrays' ranks),
``merge_stack_moves`` (stack_moves.py) moves a tape's pointer once per run of
pushes or pops instead of once per value, ``rotate_window_elements`` (rotate.py) keeps
the sliding window of a stencil's adjoint in numbers instead of memory (the derivative
only: it needs the arrays' ranks), and ``share_rule_calls`` (rule_calls.py) calls
a user rule's or an outlined helper's vjp once for all of a statement's arguments.

None of them reorders floating-point operations, so every result is what the
unoptimized code computes. Before and after, on a reverse sweep's copy chain::

    >>> fn = ast.parse('''
    ... def f_vjp(x, f_bar):
    ...     s_bar = 0.0
    ...     t1 = x * x
    ...     t2 = math.sin(t1)
    ...     t2_bar = f_bar
    ...     s_bar += t2_bar
    ...     t1_bar = math.cos(t1) * s_bar
    ...     x_bar = 2.0 * x * t1_bar
    ...     return (t2, (x_bar,))
    ... ''').body[0]
    >>> print(ast.unparse(optimize(fn)))
    def f_vjp(x, f_bar):
        t1 = x * x
        return (math.sin(t1), (2.0 * x * (math.cos(t1) * f_bar),))

``SOURCEDIFF_OPTIMIZE=0`` turns the stage off (to compare, or to read the
unoptimized three-address form).
"""

from __future__ import annotations

import ast
import os

from .. import rules
from ..astnodes import clone
from .cleanup import drop_dead_stores
from .counting import count_by_multiplying, merge_constant_counts
from .cse import share_common_subexpressions
from .dead_zeroings import drop_dead_zeroings, drop_final_zeroings, read_seed_in_place
from .effects import statement_lists
from .first_arrays import bind_first_contributions, swap_first_contributions
from .fold import fold_temporaries
from .forward_loops import run_independent_loops_forward
from .forwarding import forward_array_adjoints
from .hoist import hoist_loop_invariants
from .negations import absorb_negations
from .passthrough import pass_through_increments
from .repeats import drop_repeated_reads
from .rotate import rotate_window_elements
from .rule_calls import share_rule_calls
from .simplify import tidy_reversed_ranges
from .sink_zeroings import sink_zeroings
from .slicing import slice_to_result
from .stack_moves import merge_stack_moves
from .takeover import take_over_last_buffers
from .trip_counts import replay_invariant_ranges
from .updates import merge_element_updates
from .whole_regions import copy_by_loops, use_whole_arrays
from .zeros import assign_first_contributions

MAX_ROUNDS = 8  # each round is a fixed point of its own; two or three rounds suffice in practice


def enabled() -> bool:
    """Whether the stage runs (``SOURCEDIFF_OPTIMIZE`` is not ``0``)."""
    return os.environ.get("SOURCEDIFF_OPTIMIZE", "1") != "0"


def optimize(
    function: ast.FunctionDef,
    result_only: bool = False,
    shapes: dict | None = None,
    ranks: dict | None = None,
    sliced: bool = False,
) -> ast.FunctionDef:
    """An optimized copy of the generated ``function`` (see the module docstring); with
    ``result_only`` (the counting function, whose arrays are scratch) first sliced down to
    what its result depends on (slicing.py); with ``shapes`` (symbolic shapes of its
    names, analysis/static_shapes.py), array adjoints bound to their first contribution;
    with ``ranks`` (of its arrays), increments' adjoints left in place (passthrough.py);
    with ``sliced`` (a vjp returning the adjoints alone), first sliced to its result too."""
    # The builders reuse one node in several places (a statement recomputed in both
    # sweeps); the passes rewrite nodes in place and key facts by ``id``: the copy gives
    # each place its own node.
    function = clone(function)
    if not enabled():
        return function
    if result_only or sliced:
        slice_to_result(function)
    replay_invariant_ranges(function)
    if ranks is not None:
        use_whole_arrays(function, ranks)
    if ranks is not None and shapes is not None:
        copy_by_loops(function, ranks, shapes)
    _to_fixed_point(function, _passes(shapes, ranks, counting=result_only))
    if shapes is not None:
        swap_first_contributions(function, shapes)
    if shapes is not None and ranks is not None and take_over_last_buffers(function, shapes, ranks):
        _to_fixed_point(function, [fold_temporaries, drop_dead_stores])
    drop_implied_zeroings(function)
    if drop_dead_zeroings(function):
        if sliced:  # nothing writes the seed's copy now: read the seed itself
            read_seed_in_place(function)
        _to_fixed_point(function, [fold_temporaries, drop_dead_stores])
    if ranks is not None and drop_final_zeroings(function, ranks, _numbers(shapes)):
        _to_fixed_point(function, [fold_temporaries, drop_dead_stores])
    if ranks is not None:
        run_independent_loops_forward(function, ranks)
    merge_stack_moves(function)
    if ranks is not None:
        rotate_window_elements(function, ranks)
    share_rule_calls(function, rules.rule_functions())
    return function


def _passes(shapes: dict | None, ranks: dict | None, counting: bool) -> list:
    """Passes 1-14 in their order; those that need ``shapes`` or ``ranks`` only given
    them, the last only for the ``counting`` function."""
    passes = [assign_first_contributions, forward_array_adjoints]
    if shapes is not None:
        passes.append(lambda function: bind_first_contributions(function, shapes))
    passes += [hoist_loop_invariants, share_common_subexpressions]
    if ranks is not None:
        passes.append(lambda function: drop_repeated_reads(function, ranks))
    numbers = _numbers(shapes)
    passes += [sink_zeroings, lambda function: fold_temporaries(function, numbers)]
    passes += [lambda function: merge_element_updates(function, numbers)]
    passes += [drop_dead_stores, tidy_reversed_ranges, absorb_negations]
    if ranks is not None:
        passes.append(lambda function: pass_through_increments(function, ranks))
    if counting:
        passes += [count_by_multiplying, merge_constant_counts]
    return passes


def _numbers(shapes: dict | None) -> frozenset:
    """The names the symbolic ``shapes`` say hold a number (shape ``()``)."""
    return frozenset(n for n, shape in (shapes or {}).items() if shape == ())


def _to_fixed_point(function: ast.FunctionDef, passes: list) -> None:
    """Run ``passes`` in order, round after round, until a round changes nothing.

    A pass that found nothing to change is skipped until another pass changes the
    function: each pass reads only the function, so it would find nothing again. The
    last round, which only confirms the fixed point, then runs the passes that precede
    the last change, not all of them.
    """
    version = 0  # how many times a pass changed the function
    found_nothing_at: dict[int, int] = {}  # pass -> the version it last found nothing in
    for _ in range(MAX_ROUNDS):
        start = version
        for index, run in enumerate(passes):
            if found_nothing_at.get(index) == version:
                continue
            if run(function):
                version += 1
            else:
                found_nothing_at[index] = version
        if version == start:
            return


def drop_implied_zeroings(function: ast.FunctionDef) -> None:
    """Remove the zeroings the reverse sweep marked ``implied``: the adjoint of an array
    that a loop nest filled element by element, each element's adjoint zeroed already.

    >>> fn = ast.parse("def f(t_bar):\\n    t_bar[0] = 0.0\\n    t_bar.fill(0.0)").body[0]
    >>> fn.body[1].implied = True
    >>> drop_implied_zeroings(fn)
    >>> print(ast.unparse(fn))
    def f(t_bar):
        t_bar[0] = 0.0
    """
    for block in statement_lists(function):
        block[:] = [s for s in block if not getattr(s, "implied", False)] or [ast.Pass()]
