"""The kernel function's `ttcore.compute_config` attribute, read as a `ComputeConfig`.

The frontend writes the attribute (docs/pipeline.md); the passes that need DST
capacity (`dst_capacity_of`, with the module's `ttcore.device`) and the program builder
read it here.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, StringAttr
from xdsl.ir import Attribute, Operation

from ttlang.dialects.ttcore import device_of
from ttlang.runtime.program import ComputeConfig

COMPUTE_CONFIG_ATTR = "ttcore.compute_config"
_FLAGS = ("fp32_dest_acc_en", "math_approx_mode", "dst_full_sync_en")


def config_from_attr(attr: Attribute) -> ComputeConfig:
    """The configuration a `ttcore.compute_config` dictionary spells; missing entries
    take `ComputeConfig`'s defaults."""
    if not isinstance(attr, DictionaryAttr):
        raise ValueError(f"{COMPUTE_CONFIG_ATTR} must be a dictionary, got {attr}")
    entries = attr.data
    overrides: dict[str, object] = {}
    fidelity = entries.get("math_fidelity")
    if isinstance(fidelity, StringAttr):
        overrides["math_fidelity"] = fidelity.data
    for name in _FLAGS:
        value = entries.get(name)
        if isinstance(value, IntegerAttr):  # `true`/`false` parse as i1 integers
            overrides[name] = bool(value.value.data)
    return ComputeConfig(**overrides)


def compute_config_of(op: Operation) -> ComputeConfig:
    """The compute configuration of the function enclosing `op` (or `op` itself)."""
    holder: Operation | None = op
    while holder is not None and COMPUTE_CONFIG_ATTR not in holder.attributes:
        holder = holder.parent_op()
    if holder is None:
        return ComputeConfig()
    return config_from_attr(holder.attributes[COMPUTE_CONFIG_ATTR])


def dst_capacity_of(op: Operation) -> int:
    """DST tiles one sync section may use in the function enclosing `op`: its compute
    configuration on its module's device."""
    config = compute_config_of(op)
    return device_of(op).dst_capacity_tiles(config.fp32_dest_acc_en, config.dst_full_sync_en)
