"""Errors a launch can end with; each carries a message meant for the user."""


class RuntimeLaunchError(Exception):
    """A program could not be run to completion on its target."""


class ToolchainError(RuntimeLaunchError):
    """The host toolchain the emulator needs (g++) is missing or broken."""


class KernelCompileError(RuntimeLaunchError):
    """A kernel source did not compile against the kernel API headers."""


class EmulatorError(RuntimeLaunchError):
    """The emulated run failed: API misuse, deadlock, crash or timeout of a kernel."""


class HardwareUnavailableError(RuntimeLaunchError):
    """The hardware target was selected but no ttnn / Tenstorrent device is present."""
