"""The hardware target: a Tenstorrent device through ttnn.

Launching on hardware needs the ttnn Python package and a device; where either is
missing (as on any machine without a Tenstorrent card) the launch fails with one
clear message instead of an import traceback.
"""

from __future__ import annotations

import importlib.util

import torch

from ttlang.runtime.errors import HardwareUnavailableError
from ttlang.target.program import Program


def is_available() -> bool:
    """Whether ttnn is importable (a device may still be absent)."""
    return importlib.util.find_spec("ttnn") is not None


def run(program: Program, tensors: dict[str, torch.Tensor], timeout_s: float | None = None):
    if not is_available():
        raise HardwareUnavailableError(
            "the hardware target needs ttnn and a Tenstorrent device, and ttnn is not installed; "
            "run on the emulator instead (unset TTLANG_TARGET or set it to 'emulator')"
        )
    raise HardwareUnavailableError(
        "ttnn is installed, but launching ttlang programs through ttnn is not implemented yet; "
        "run on the emulator (TTLANG_TARGET=emulator)"
    )
