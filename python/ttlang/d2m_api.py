"""tt-lang's `ttlang.d2m_api`: what `from ttlang.d2m_api import *` gave a D2M-era
kernel author, here the ttlang DSL under the same names.

    from ttlang.d2m_api import *

    @pykernel_gen(grid=(1, 1), block_factors=[(1, 1), (1, 1)])
    def negate(x, out): ...

tt-lang's compiler knew its operators by name, so its kernels call `exp(x)` or
`core_index(0)` without importing them; `*` here brings the operators of
`ttlang.operators` too. `TensorBlock` and `MemTx` are the types of a block and of
a transfer, for annotations only. docs/dsl.md, "Coming from tt-lang", lists what differs.
"""

from ttlang.dsl.api import (
    CircularBuffer,
    Program,
    Semaphore,
    TensorAccessor,
    compute,
    core_index,
    datamovement,
    grid_size,
)
from ttlang.dsl.kernel import Kernel, kernel, pykernel_gen
from ttlang.dsl.values import Block as TensorBlock
from ttlang.dsl.values import Transfer as MemTx
from ttlang.operators import *  # noqa: F403 (tt-lang's operators, see above)
from ttlang.operators import __all__ as _operator_names

__all__ = [
    "CircularBuffer",
    "Kernel",
    "MemTx",
    "Program",
    "Semaphore",
    "TensorAccessor",
    "TensorBlock",
    "compute",
    "core_index",
    "datamovement",
    "grid_size",
    "kernel",
    "pykernel_gen",
    *_operator_names,
]
