"""ttlang: a tile DSL compiler for Tenstorrent Tensix cores.

The public API is the DSL (docs/dsl.md): `@pykernel_gen` kernels whose `@compute()`
and `@datamovement()` threads talk through CircularBuffers.
"""

from ttlang.dsl.api import (
    CircularBuffer,
    Program,
    Semaphore,
    TensorAccessor,
    compute,
    core_index,
    datamovement,
    dma,
    fill,
    full,
    grid_size,
    maximum,
    where,
    zeros,
)
from ttlang.dsl.frontend import TensorSpec
from ttlang.dsl.kernel import Kernel, kernel, pykernel_gen

__all__ = [
    "CircularBuffer",
    "Kernel",
    "Program",
    "Semaphore",
    "TensorAccessor",
    "TensorSpec",
    "compute",
    "core_index",
    "datamovement",
    "dma",
    "fill",
    "full",
    "grid_size",
    "kernel",
    "maximum",
    "pykernel_gen",
    "where",
    "zeros",
]
