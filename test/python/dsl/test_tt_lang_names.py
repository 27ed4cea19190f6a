"""tt-lang's import surface: the names its D2M-era programs import from
`ttlang.d2m_api`, `ttlang.operators` and `ttlang` (tt-lang's __all__ lists, Dec 2025)
are ours, one object per name whichever module it comes from."""

from __future__ import annotations

import ttlang
import ttlang.d2m_api
import ttlang.operators

D2M_API = [
    "pykernel_gen", "kernel", "Program", "compute", "datamovement", "TensorBlock",
    "CircularBuffer", "MemTx", "Semaphore", "dma", "TensorAccessor",
]
OPERATORS = ["bcast", "exp", "maximum", "recip", "reduce_max", "reduce_sum", "rsqrt", "sqrt", "transpose"]


def test_star_import_of_d2m_api_brings_the_api_and_the_operators():
    namespace: dict = {}
    exec("from ttlang.d2m_api import *", namespace)
    missing = [name for name in [*D2M_API, *OPERATORS, "core_index"] if name not in namespace]
    assert not missing


def test_each_name_is_one_object():
    for name in OPERATORS:
        assert getattr(ttlang.operators, name) is getattr(ttlang, name) is getattr(ttlang.d2m_api, name)
    for name in ("pykernel_gen", "Program", "compute", "datamovement", "CircularBuffer", "dma"):
        assert getattr(ttlang.d2m_api, name) is getattr(ttlang, name)
