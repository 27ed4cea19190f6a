"""ttlang: a tile DSL compiler for Tenstorrent Tensix cores.

The public API is the DSL (docs/dsl.md): `@pykernel_gen` kernels whose `@compute()`
and `@datamovement()` threads talk through CircularBuffers. `ttlang.d2m_api` and
`ttlang.operators` offer the same objects under tt-lang's module names.
"""

from ttlang.dsl.api import (
    CircularBuffer,
    Program,
    Semaphore,
    TensorAccessor,
    bcast,
    block_index,
    compute,
    core_index,
    datamovement,
    dma,
    exp,
    fill,
    fill_causal_mask,
    full,
    grid_size,
    maximum,
    neg,
    recip,
    reduce_max,
    reduce_sum,
    rsqrt,
    sqrt,
    transpose,
    tril,
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
    "bcast",
    "block_index",
    "compute",
    "core_index",
    "datamovement",
    "dma",
    "exp",
    "fill",
    "fill_causal_mask",
    "full",
    "grid_size",
    "kernel",
    "maximum",
    "neg",
    "pykernel_gen",
    "recip",
    "reduce_max",
    "reduce_sum",
    "rsqrt",
    "sqrt",
    "transpose",
    "tril",
    "where",
    "zeros",
]
