"""The IR dialects ttlang defines (xDSL), and the registry the tools load them from.

Each entry maps a dialect name to the module defining it and the attribute holding
its `Dialect` object.
Registration is lazy so that tools start fast and layers import only what they use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from xdsl.ir import Dialect

# dialect name -> (module, attribute holding the Dialect)
_DIALECTS: dict[str, tuple[str, str]] = {
    "ttcore": ("ttlang.dialects.ttcore", "TTCore"),
    "d2m": ("ttlang.dialects.d2m", "D2M"),
    "ttkernel": ("ttlang.dialects.ttkernel", "TTKernel"),
    # the emitc ops xDSL 0.74 lacks, in the `emitc` namespace beside xDSL's own
    "emitc_ext": ("ttlang.dialects.emitc_ext", "EmitCExt"),
}


def dialect_factories() -> dict[str, Callable[[], Dialect]]:
    """Factories for every ttlang dialect, keyed by dialect name."""

    def factory(module: str, attribute: str) -> Callable[[], Dialect]:
        return lambda: getattr(importlib.import_module(module), attribute)

    return {name: factory(m, a) for name, (m, a) in _DIALECTS.items()}
