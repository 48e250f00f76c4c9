"""docs/python.md's examples, run in order in one namespace, as a reader would run them from
the repository root (here: a scratch folder whose data/ is the repository's)."""

import os
import re

import pytest

from conftest import HAVE_GMSH, SOURCE_DIR


def python_blocks(text):
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


@pytest.mark.skipif(not HAVE_GMSH, reason="the walkthrough's scattering run meshes a .geo file (needs Gmsh)")
def test_walkthrough(tmp_path, monkeypatch, capsys):
    pytest.importorskip("scipy")
    pytest.importorskip("matplotlib")
    blocks = python_blocks((SOURCE_DIR / "docs" / "python.md").read_text())
    assert len(blocks) >= 8
    (tmp_path / "data").symlink_to(SOURCE_DIR / "data")
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__walkthrough__"}
    for number, block in enumerate(blocks, 1):
        try:
            exec(compile(block, f"docs/python.md (python block {number})", "exec"), namespace)
        except Exception as e:  # name the block in the failure
            raise AssertionError(f"docs/python.md, python block {number} failed: {e!r}\n{block}") from e
    out = capsys.readouterr().out
    assert "a floating-point value was passed for an integer" in out
    assert "scattering width within" in out
    assert (tmp_path / "cylinder_width.png").stat().st_size > 10_000
