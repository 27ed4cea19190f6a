"""The kernel function's `ttcore.compute_config` attribute, read as a `ComputeConfig`.

The frontend writes the attribute (docs/pipeline.md); the passes that need DST
capacity and the program builder read it here.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, StringAttr
from xdsl.ir import Attribute, Operation

from ttlang.target.program import ComputeConfig

COMPUTE_CONFIG_ATTR = "ttcore.compute_config"


def _flag(value: Attribute) -> bool:
    if isinstance(value, IntegerAttr):  # `true` parses as an i1 IntegerAttr (BoolAttr)
        return bool(value.value.data)
    raise ValueError(f"expected a boolean, got {value}")


def compute_config_of(op: Operation) -> ComputeConfig:
    """The compute configuration of the function enclosing `op` (or `op` itself); the
    defaults of `ComputeConfig` where the attribute or one of its entries is missing."""
    func: Operation | None = op
    while func is not None and COMPUTE_CONFIG_ATTR not in func.attributes:
        func = func.parent_op()
    if func is None:
        return ComputeConfig()
    attr = func.attributes[COMPUTE_CONFIG_ATTR]
    assert isinstance(attr, DictionaryAttr)
    entries = attr.data
    config = ComputeConfig()
    fidelity = entries.get("math_fidelity")
    flags = {
        name: _flag(entries[name])
        for name in ("fp32_dest_acc_en", "math_approx_mode", "dst_full_sync_en")
        if name in entries
    }
    return ComputeConfig(
        math_fidelity=fidelity.data if isinstance(fidelity, StringAttr) else config.math_fidelity,
        **flags,
    )



