"""The Python examples in README.md run as written (they are part of the product)."""

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_blocks_run(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert len(blocks) >= 3
    # Real files, so that sourcediff can read the functions' source.
    script = tmp_path / "readme_examples.py"
    script.write_text("\n\n".join(blocks))
    monkeypatch.syspath_prepend(str(tmp_path))
    namespace = {"__name__": "readme_examples"}
    exec(compile(script.read_text(), str(script), "exec"), namespace)
    assert namespace["du0"].shape == namespace["u0"].shape
    assert isinstance(namespace["dalpha"], float)
