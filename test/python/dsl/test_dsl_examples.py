"""The examples run end to end on the emulator and match torch (each `main` asserts it)."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize("name", ["eltwise_add", "fused_chain", "matmul", "softmax", "multicast"])
def test_example_matches_torch(name, capsys):
    importlib.import_module(f"examples.{name}").main()
    assert "matches torch" in capsys.readouterr().out
