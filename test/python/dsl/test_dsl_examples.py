"""The examples run end to end on the emulator and match torch (each `main` asserts it)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.mark.parametrize("name", ["eltwise_add", "fused_chain", "matmul", "softmax"])
def test_example_matches_torch(name, capsys):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main()
    assert "matches torch" in capsys.readouterr().out
