"""The FlashAttention tests load examples/flash_attention.py (the kernel under test) and
run it on the emulator whatever TTLANG_TARGET says."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "flash_attention.py"


@pytest.fixture(scope="session")
def fa():
    """The example module, loaded once: its kernels and compilations are cached in it."""
    spec = importlib.util.spec_from_file_location("flash_attention_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True)
def _emulator_target(monkeypatch):
    monkeypatch.setenv("TTLANG_TARGET", "emulator")
