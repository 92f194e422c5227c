"""The before/after examples in the docstrings of the passes run, and hold."""

import doctest
import importlib
import pkgutil

import pytest

import sourcediff

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(sourcediff.__path__, "sourcediff.")
    if not info.name.endswith("__main__")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
