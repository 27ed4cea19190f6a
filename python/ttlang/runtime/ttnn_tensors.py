"""ttnn tensors as kernel arguments, as tt-lang's `ttnn_interop` kernels took them.

A kernel may be called with `ttnn.Tensor`s (tile or row-major layout, on a device, in
ttnn's bfloat16, float32 or bfloat8_b) in place of torch tensors:

    lhs = ttnn.from_torch(a, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device)
    ...
    add(lhs, rhs, out)            # the result is in `out`, on the device
    ttnn.to_torch(out)

A run reads each ttnn tensor to the host (`ttnn.to_torch`), runs on the selected
target, and writes every output back into its ttnn tensor (`ttnn.from_torch` in the
tensor's own dtype and layout, then `ttnn.copy_host_to_device_tensor`), so the device
tensor holds the result afterwards. The compiled kernel sees the tensor's shape and
device format: a bfloat8_b tensor is a bfp8_b buffer with no `dtypes` option needed.

ttnn is never imported here: a value is a ttnn tensor only when the caller has
imported ttnn (it made the tensor), so the compiler and the emulator never pay for it.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

ELEMENT_FORMATS = {"bfloat16": "bf16", "float32": "f32", "bfloat8_b": "bfp8_b"}
"""ttnn dtype names (attributes of the `ttnn` module) -> tile element format."""


def _ttnn():
    return sys.modules.get("ttnn")


def is_ttnn_tensor(value: Any) -> bool:
    """Whether `value` is a `ttnn.Tensor` (false whenever ttnn is not imported)."""
    ttnn = _ttnn()
    return ttnn is not None and isinstance(value, ttnn.Tensor)


def element_format(tensor: Any) -> str | None:
    """The tile element format of a ttnn tensor's dtype ("bf16", "f32", "bfp8_b"), or
    None for a dtype kernels do not take."""
    ttnn = _ttnn()
    for name, element in ELEMENT_FORMATS.items():
        if hasattr(ttnn, name) and tensor.dtype == getattr(ttnn, name):
            return element
    return None


def is_on_device(tensor: Any) -> bool:
    return bool(_ttnn().is_tensor_storage_on_device(tensor))


def to_host(tensor: Any) -> torch.Tensor:
    """The ttnn tensor's values as a torch tensor of its shape."""
    return _ttnn().to_torch(tensor).reshape(tuple(tensor.shape))


def write_back(tensor: Any, values: torch.Tensor) -> None:
    """Writes `values` into the ttnn device tensor `tensor`, in its dtype and layout."""
    ttnn = _ttnn()
    host = ttnn.from_torch(values.reshape(tuple(tensor.shape)), dtype=tensor.dtype, layout=tensor.layout)
    ttnn.copy_host_to_device_tensor(host, tensor)
