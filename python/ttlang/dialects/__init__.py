"""The IR dialects ttlang defines (xDSL), and the registry the tools load them from.

Each entry maps a dialect name to the module defining it and the attribute holding
its `Dialect` object.
Registration is lazy so that tools start fast and layers import only what they use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.ir import Dialect

# dialect name -> (module, attribute holding the Dialect)
_DIALECTS: dict[str, tuple[str, str]] = {
    "ttcore": ("ttlang.dialects.ttcore", "TTCore"),
    "d2m": ("ttlang.dialects.d2m", "D2M"),
    "ttkernel": ("ttlang.dialects.ttkernel", "TTKernel"),
    # xDSL's emitc plus the ops it lacks; replaces xDSL's emitc (see register_dialects)
    "emitc": ("ttlang.dialects.emitc_ext", "EmitCExt"),
}


def dialect_factories() -> dict[str, Callable[[], Dialect]]:
    """Factories for every ttlang dialect, keyed by dialect name."""

    def factory(module: str, attribute: str) -> Callable[[], Dialect]:
        return lambda: getattr(importlib.import_module(module), attribute)

    return {name: factory(m, a) for name, (m, a) in _DIALECTS.items()}


def register_dialects(ctx: Context) -> None:
    """Registers xDSL's dialects and ttlang's in `ctx`; where both define a dialect
    (emitc), ttlang's extended one takes the place of xDSL's."""
    factories = get_all_dialects() | dialect_factories()
    for name, factory in factories.items():
        ctx.register_dialect(name, factory)
