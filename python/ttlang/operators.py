"""tt-lang's `ttlang.operators`: the block operators as free functions.

    from ttlang.operators import exp, reduce_sum, bcast

    row_sums = reduce_sum(s, ones, dim=1)   # sums in column 0 of each tile
    p = exp(s) * recip(bcast(row_sums, dim=1))

Each function is the method of the same name (`exp(x)` is `x.exp()`), except
`reduce_sum`/`reduce_max`/`bcast`, which keep tt-lang's in-tile result layout
(docs/dsl.md, "Coming from tt-lang"). Like every DSL function they are compiled in
threads, never called as Python.
"""

from ttlang.dsl.api import (
    bcast,
    dma,
    exp,
    fill,
    full,
    maximum,
    neg,
    recip,
    reduce_max,
    reduce_sum,
    rsqrt,
    sqrt,
    transpose,
    where,
    zeros,
)

__all__ = [
    "bcast",
    "dma",
    "exp",
    "fill",
    "full",
    "maximum",
    "neg",
    "recip",
    "reduce_max",
    "reduce_sum",
    "rsqrt",
    "sqrt",
    "transpose",
    "where",
    "zeros",
]
