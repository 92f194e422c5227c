"""Every script in examples/ runs and prints what a scientist would look at; the fits
recover what they should."""

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
def test_example_runs(script, capsys):
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


def teardown_module():
    for name in ("inverse_heat", "lotka_volterra_fit", "gmm_fit"):
        sys.modules.pop(name, None)
