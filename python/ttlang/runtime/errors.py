"""Errors a launch can end with; each carries a message meant for the user."""

import re


class RuntimeLaunchError(Exception):
    """A program could not be run to completion on its target."""


class ToolchainError(RuntimeLaunchError):
    """The host toolchain the emulator needs (g++) is missing or broken."""


class KernelCompileError(RuntimeLaunchError):
    """A kernel source did not compile against the kernel API headers."""


class EmulatorError(RuntimeLaunchError):
    """The emulated run failed: API misuse, deadlock, crash or timeout of a kernel.
    `filename` and `line` locate the kernel statement at fault when the compiler
    located the failed check (an accessor index past its tensor), else None."""

    def __init__(self, message: str, filename: str | None = None, line: int | None = None):
        super().__init__(message)
        self.filename = filename
        self.line = line


class HardwareUnavailableError(RuntimeLaunchError):
    """The hardware target was selected but no ttnn / Tenstorrent device is present."""


def name_cbs(message: str, names: dict[int, str]) -> str:
    """`message` with each "cb N" of the emulator's reports named by the kernel's CB
    parameter: "`k_cb` (cb 1)"."""

    def named(match: re.Match) -> str:
        index = int(match.group(1))
        name = names.get(index)
        return f"`{name}` (cb {index})" if name else match.group(0)

    return re.sub(r"\bcb (\d+)\b", named, message)
