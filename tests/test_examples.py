"""Every script in examples/ runs and prints what a scientist would look at; the fits
recover what they should."""

import pickle
import runpy
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SCRIPTS = sorted(p.name for p in EXAMPLES.glob("*.py"))


@pytest.fixture(autouse=True)
def _examples_importable(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    monkeypatch.chdir(tmp_path)  # a PNG, if matplotlib is installed, lands here


@pytest.mark.parametrize("script", SCRIPTS)
def test_example_runs(script, capsys, monkeypatch):
    if script == "ensemble_dask.py":
        pytest.importorskip("dask.distributed")
    monkeypatch.setattr(sys, "argv", [script])
    runpy.run_path(str(EXAMPLES / script), run_name="__main__")
    assert capsys.readouterr().out.strip()


def test_inverse_heat_recovers_the_profile():
    import inverse_heat

    _, truth, result = inverse_heat.solve()
    assert result.success and np.max(np.abs(result.x - truth)) < 0.05


def test_lotka_volterra_fit_recovers_the_parameters():
    import lotka_volterra_fit

    truth, result = lotka_volterra_fit.fit()
    np.testing.assert_allclose(result.x, truth, rtol=0.02)


def test_gmm_fit_finds_the_centers():
    import gmm_fit

    centers, result, k, d = gmm_fit.fit()
    means = result.x[k : k + k * d].reshape(k, d)
    order = np.argsort(means[:, 0])
    np.testing.assert_allclose(means[order], centers[np.argsort(centers[:, 0])], atol=0.3)


def test_transformed_functions_pickle():
    """A pickled sd.value_and_grad or sd.jit is the function and its options; unpickled,
    it rebuilds (from the on-disk cache) and gives the same numbers."""
    import ensemble_dask

    import sourcediff as sd

    u0 = np.sin(np.linspace(0.0, np.pi, 16))
    for transformed in (
        sd.value_and_grad(ensemble_dask.heat_energy),
        sd.jit(ensemble_dask.heat_energy),
    ):
        clone = pickle.loads(pickle.dumps(transformed))
        expected, got = transformed(u0, 0.2, 20), clone(u0, 0.2, 20)
        flat = lambda r: np.hstack([np.ravel(x) for x in (r if isinstance(r, tuple) else (r,))])  # noqa: E731
        np.testing.assert_allclose(flat(got), flat(expected), rtol=1e-15, atol=0)


def test_pickled_by_value_without_a_source_file():
    """cloudpickle (Dask, for ``__main__``) pickles a function by value and replaces its
    file name; the sources travel with the pickle, helpers included."""
    cloudpickle = pytest.importorskip("cloudpickle")
    import ensemble_dask

    import sourcediff as sd

    u0 = np.sin(np.linspace(0.0, np.pi, 16))
    cloudpickle.register_pickle_by_value(ensemble_dask)
    try:
        for transformed in (sd.grad(ensemble_dask.heat_energy), sd.jit(ensemble_dask.heat_energy)):
            payload = cloudpickle.dumps(transformed)
            clone = pickle.loads(payload)
            assert clone.func.__code__.co_filename != ensemble_dask.__file__
            np.testing.assert_array_equal(clone(u0, 0.2, 20), transformed(u0, 0.2, 20))
    finally:
        cloudpickle.unregister_pickle_by_value(ensemble_dask)


def test_dask_ensemble_equals_the_local_sum():
    distributed = pytest.importorskip("dask.distributed")
    import ensemble_dask

    import sourcediff as sd

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as cluster:
        with distributed.Client(cluster) as client:
            value, grad = ensemble_dask.ensemble(client, problems=40, tasks=4, n=16, steps=20)
    u0 = np.sin(np.linspace(0.0, np.pi, 16))
    local = sd.value_and_grad(ensemble_dask.heat_energy)
    expected = [local(u0, alpha, 20) for alpha in np.linspace(0.05, 0.45, 40)]
    np.testing.assert_allclose(value, sum(e[0] for e in expected), rtol=1e-12)
    np.testing.assert_allclose(grad, sum(e[1] for e in expected), rtol=1e-12)


def teardown_module():
    for name in ("inverse_heat", "lotka_volterra_fit", "gmm_fit", "ensemble_dask"):
        sys.modules.pop(name, None)
