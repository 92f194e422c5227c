"""The on-disk cache: a second process neither transforms nor compiles; edits invalidate."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np

SCRIPT = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, sys.argv[1])
    import model
    import sourcediff as sd
    from sourcediff import pipeline

    g = sd.grad(model.f, argnums=(0, 1))
    value = g(1.5, 3.0, 20)
    dispatchers = [d for d in pipeline._COMPILED.values() if hasattr(d, "stats")]
    print(json.dumps({
        "grad": value,
        "transforms": pipeline.STATS["transforms"],
        "cache_hits": sum(sum(d.stats.cache_hits.values()) for d in dispatchers),
        "cache_misses": sum(sum(d.stats.cache_misses.values()) for d in dispatchers),
    }))
    """
)

MODEL = textwrap.dedent(
    """
    import math

    def helper(x, y):
        return x * y + math.cos(y)

    def f(x, y, n):
        s = 0.0
        for i in range(n):
            if s < 3.0:
                s += math.sin(x * i) * y
            else:
                s = s * 0.5 + helper(x, y)
        return s
    """
)


def _run(folder, cache) -> dict:
    env = dict(os.environ, SOURCEDIFF_CACHE_DIR=str(cache))
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(folder)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_second_process_neither_transforms_nor_compiles(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    cache = tmp_path / "cache"
    first = _run(tmp_path, cache)
    assert first["transforms"] == 1 and first["cache_misses"] == 1
    second = _run(tmp_path, cache)
    assert second["transforms"] == 0, "the second process transformed again"
    assert second["cache_misses"] == 0 and second["cache_hits"] == 1, "it compiled again"
    assert second["grad"] == first["grad"]


def test_editing_a_helper_invalidates_the_entry(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    cache = tmp_path / "cache"
    before = _run(tmp_path, cache)
    (tmp_path / "model.py").write_text(MODEL.replace("x * y + math.cos(y)", "x * y + 2.0 * y"))
    after = _run(tmp_path, cache)
    assert after["transforms"] == 1, "a changed helper must be transformed again"
    assert after["grad"] != before["grad"]


OUTLINED = textwrap.dedent(
    """
    import math

    def wave(x, y, n):
        s = 0.0
        for k in range(n):
            s += math.sin(x * k) * y
        return s

    def f(x, y, n):
        return wave(x, y, n) * wave(y, x, n)
    """
)


def test_a_caller_of_an_outlined_helper_loads_from_the_cache(tmp_path):
    """Its compiled code refers to the helper's generated modules, imported before it is
    loaded (``pipeline.import_required``); the helper's own derivative is not rebuilt."""
    (tmp_path / "model.py").write_text(OUTLINED)
    cache = tmp_path / "cache"
    first = _run(tmp_path, cache)
    assert first["transforms"] == 3  # the caller, the helper's primal and its derivative
    second = _run(tmp_path, cache)
    assert second["transforms"] == 0, "the second process transformed again"
    assert second["cache_misses"] == 0 and second["cache_hits"] == 1, "it compiled again"
    assert second["grad"] == first["grad"]


def _taped_and_broadcast(x, b, n):
    """A while loop (its tape grows through ``reserve``) and a broadcast operand (its
    adjoint goes through ``sum_to``): generated code calling compiled helpers."""
    s = 0.0
    k = 0
    while k < n:
        s = s + np.sum(np.sin(x * b)) * s + 0.5
        k += 1
    return s


def test_generated_code_calling_helpers_can_be_cached():
    # At NUMBA_OPT=0 (this suite's default) a helper called as a dispatcher is a dynamic
    # global in its caller, which Numba then refuses to cache: every process compiled
    # every derivative again (sourcediff/jitting.py). The caller's machine code must
    # hold none, at every optimization level.
    import sourcediff as sd
    from sourcediff import pipeline

    x, b = np.array([0.3, -0.7, 1.1]), np.array([0.9])
    grad_x, grad_b = sd.grad(_taped_and_broadcast, argnums=(0, 1))(x, b, 3)
    # Closed form: s1 = 0.5, s2 = (1 + S) s1 + 0.5, s3 = (1 + S) s2 + 0.5 with
    # S = sum(sin(x b)), so s3 = 0.5 (1 + S)^2 + 0.5 (1 + S) + 0.5, ds3/dS = S + 1.5.
    S = np.sum(np.sin(x * b))
    np.testing.assert_allclose(grad_x, (S + 1.5) * np.cos(x * b) * b, rtol=1e-12)
    np.testing.assert_allclose(grad_b, [(S + 1.5) * np.sum(np.cos(x * b) * x)], rtol=1e-12)
    compiled = [
        d
        for d in pipeline._COMPILED.values()
        if getattr(d, "py_func", None) is not None and "_taped_and_broadcast" in d.__name__
    ]
    assert compiled
    for dispatcher in compiled:
        for result in dispatcher.overloads.values():
            assert not result.library.has_dynamic_globals, dispatcher.__name__
