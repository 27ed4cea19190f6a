"""The objects a kernel author uses (re-exported from `ttlang`).

A `@pykernel_gen` function runs once per compilation, in plain Python, with a
`KernelTensor` standing for each tensor argument. It builds `TensorAccessor`s,
defines its threads with `@compute()` / `@datamovement()` and returns
`Program(threads...)(tensors...)`. The threads themselves are never run as Python:
the frontend compiles their source. Inside a thread, `CircularBuffer` and
`Semaphore` parameters, blocks, `dma`, `core_index`, ... are compiled to IR; the
functions below only exist to be named there, and say so if called anywhere else.
`CircularBuffer(shape)` in the kernel function declares a kernel-local CB.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FunctionType
from typing import Literal

from ttlang.dsl.diagnostics import DSLError

ThreadKind = Literal["compute", "datamovement"]


@dataclass(frozen=True)
class KernelTensor:
    """A tensor argument of a kernel while the kernel function is traced: its name,
    position, logical shape (elements) and tile element format."""

    name: str
    index: int
    shape: tuple[int, ...]
    data_type: str  # "bf16", "f32" or "bfp8_b" (the device format)
    is_output: bool

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def tile_shape(self) -> tuple[int, ...]:
        """The shape in tiles: batch dims kept, the last two divided by 32."""
        *batch, rows, cols = self.shape
        return (*batch, rows // 32, cols // 32)


class TensorAccessor:
    """Tile-indexed view of a kernel tensor in DRAM, for `dma` in data-movement threads:
    `acc[i, j]` is the block whose first tile is (i, j); slices select a range of tiles
    (`acc[bh, i*4:(i+1)*4, :]`). The block's shape is the CB block's shape."""

    def __init__(self, tensor: KernelTensor):
        if not isinstance(tensor, KernelTensor):
            raise DSLError(
                f"TensorAccessor takes one of the kernel's tensor arguments, but got "
                f"{type(tensor).__name__}",
                "create accessors in the kernel function from its parameters: "
                "`lhs_acc = TensorAccessor(lhs)`",
            )
        self.tensor = tensor

    def __repr__(self) -> str:
        return f"TensorAccessor({self.tensor.name})"


class CircularBuffer:
    """A circular buffer of blocks in L1, shared by a core's threads.

    As a thread parameter (`x_cb: CircularBuffer`): the CB of one kernel tensor, one per
    tensor, in order. Created in the kernel function, `CircularBuffer(shape,
    dtype="bfloat16", buffer_factor=2)` is a kernel-local CB, backed by no tensor: its
    block is `shape` (elements, as `zeros(shape)`: (rows, cols) multiples of 32, leading
    dims counting blocks), `dtype` its tiles' format ("bfloat16" or "float32", or the
    torch dtype), `buffer_factor` the blocks it holds. Threads use it by its name in
    the kernel function, as they use accessors; one thread fills it, another (or the
    same) consumes it.

    In a thread: `cb.wait()` returns the front block (consumer) and `cb.pop()` frees it;
    `cb.reserve()` returns a free block (producer) and `cb.push()` publishes it.
    `with cb.wait() as blk:` pops on exit; `with cb.reserve() as blk:` pushes on exit.
    """

    def __init__(self, shape, dtype="bfloat16", buffer_factor: int = 2):
        if _declared is None:
            raise DSLError(
                "CircularBuffer(shape) declares a kernel-local CB, so it is created in a "
                "@pykernel_gen kernel function",
                "create it in the kernel function and use it by name in the threads",
            )
        self.shape = shape
        self.dtype = dtype
        self.buffer_factor = buffer_factor
        # Where it is created, for the frontend's errors, and the calls leading there
        # (the kernel function's line names it: `mask_cb = CircularBuffer(...)`).
        frame, self.calls = sys._getframe(1), []
        self.filename, self.line = frame.f_code.co_filename, frame.f_lineno
        while frame is not None:
            self.calls.append((frame.f_code, frame.f_lineno))
            frame = frame.f_back
        _declared.append(self)

    def __repr__(self) -> str:
        return f"CircularBuffer({self.shape!r}, dtype={self.dtype!r}, buffer_factor={self.buffer_factor!r})"


_declared: list[CircularBuffer] | None = None
"""The kernel-local CBs of the kernel function being traced (None: none is)."""


@contextmanager
def declaring_circular_buffers() -> Iterator[list[CircularBuffer]]:
    """Collects the kernel-local CBs created while the kernel function runs."""
    global _declared
    outer, _declared = _declared, []
    try:
        yield _declared
    finally:
        _declared = outer


class Semaphore:
    """A thread parameter after the CircularBuffers: the k-th Semaphore parameter of every
    thread is the same semaphore. In a thread: `sem.set(v, core=(r, c), mcast=(h, w))`,
    `sem.inc(v, core=(r, c))`, `sem.wait(v, reset=r)`."""


@dataclass(frozen=True)
class Thread:
    """A `@compute()` or `@datamovement()` function; compiled from its source."""

    kind: ThreadKind
    function: FunctionType
    verbose: bool = False  # print the thread's IR when it is compiled

    @property
    def name(self) -> str:
        return self.function.__name__

    def __call__(self, *args, **kwargs):
        raise DSLError(
            f"thread {self.name} cannot be called; pass it to Program(...)",
            "return Program(compute_thread, reader, writer)(*tensors) from the kernel",
        )


def _thread_decorator(kind: ThreadKind, verbose: bool):
    def decorate(function: FunctionType) -> Thread:
        if not isinstance(function, FunctionType):
            raise DSLError(f"@{kind}() decorates a function, not {type(function).__name__}")
        return Thread(kind, function, verbose)

    return decorate


def compute(verbose: bool = False):
    """Marks a thread that computes on blocks (runs on the core's math RISC-Vs);
    `verbose=True` prints its stage-1 IR when the kernel compiles (tt-lang's knob)."""
    return _thread_decorator("compute", verbose)


def datamovement(verbose: bool = False):
    """Marks a thread that moves blocks between DRAM and L1 (one NoC RISC-V each);
    `verbose` as for `compute`."""
    return _thread_decorator("datamovement", verbose)


class Program:
    """The threads of a kernel; calling it with the kernel's tensors binds them:
    `return Program(compute_thread, reader, writer)(lhs, rhs, out)`."""

    def __init__(self, *threads: Thread, tensors: tuple[KernelTensor, ...] = ()):
        for thread in threads:
            if not isinstance(thread, Thread):
                raise DSLError(
                    f"Program takes threads, but got {type(thread).__name__}",
                    "decorate each thread function with @compute() or @datamovement()",
                )
        self.threads = threads
        self.tensors = tensors

    def __call__(self, *tensors: KernelTensor) -> Program:
        return Program(*self.threads, tensors=tensors)


def _outside_thread(name: str) -> DSLError:
    return DSLError(
        f"{name}() can only be used inside a @compute() or @datamovement() thread",
        "call it in a thread function; the kernel function itself runs as plain Python",
    )


def dma(src, dst, core=None, mcast=None):
    """Starts a transfer from `src` to `dst` (an accessor block and a CB block, either
    way round; or two CB blocks with `core=(row, col)` and `mcast=(rows, cols)` to
    multicast to a rectangle of cores). Returns a transfer; `.wait()` blocks until done."""
    raise _outside_thread("dma")


def fill_causal_mask(block, row, col):
    """Fills `block` (from cb.reserve(), bf16) with the additive causal mask of its place
    in a score matrix, computed from indices: element (r, c) is 0 where key `col + c` <=
    query `row + r` and -inf past it. `row` and `col` are element offsets (multiples of
    32). For a @datamovement() thread."""
    raise _outside_thread("fill_causal_mask")


def core_index(dim: int):
    """This core's coordinate in the grid: dim 0 is its row, dim 1 its column."""
    raise _outside_thread("core_index")


def block_index(dim: int, n):
    """The block index along loop dim `dim` of the kernel's iteration space
    (`indexing_maps`) of this core's `n`th block along it, as the compiler deals blocks
    to cores (`deal`; docs/dsl.md, "Implicit operands")."""
    raise _outside_thread("block_index")


def grid_size(dim: int):
    """The number of cores of the grid along `dim` (0: rows, 1: columns)."""
    raise _outside_thread("grid_size")


def fill(value: float, shape: tuple[int, ...]):
    """A block of `shape` (elements; tile-aligned) with every element `value`."""
    raise _outside_thread("fill")


def full(shape: tuple[int, ...], value: float):
    """NumPy's spelling of `fill(value, shape)`."""
    raise _outside_thread("full")


def zeros(shape: tuple[int, ...]):
    """`fill(0.0, shape)`."""
    raise _outside_thread("zeros")


def maximum(lhs, rhs):
    """Elementwise max of two blocks (or a block and a number), with broadcasting."""
    raise _outside_thread("maximum")


def _block_function(name: str, doc: str):
    """The free-function spelling of the block method `name` (tt-lang's `exp(x)` for
    our `x.exp()`); the frontend compiles a call to it as the method."""

    def function(block):
        raise _outside_thread(name)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


exp = _block_function("exp", "Elementwise e**x of a block: `exp(x)` is `x.exp()`.")
sqrt = _block_function("sqrt", "Elementwise square root: `sqrt(x)` is `x.sqrt()`.")
rsqrt = _block_function("rsqrt", "Elementwise 1/sqrt(x): `rsqrt(x)` is `x.rsqrt()`.")
recip = _block_function("recip", "Elementwise 1/x: `recip(x)` is `x.recip()`.")
neg = _block_function("neg", "Elementwise -x: `neg(x)` is `x.neg()`.")
transpose = _block_function(
    "transpose", "Swaps the last two axes of a block: `transpose(x)` is `x.transpose()`."
)

BLOCK_FUNCTIONS = (exp, sqrt, rsqrt, recip, neg, transpose)
"""The free functions that are block methods under another spelling."""


def reduce_sum(block, scaler, dim: int = 1):
    """tt-lang's sum reduction of `block * scaler[0, 0]` within each tile: `dim=1` sums
    each row (the sums land in column 0 of the tile, like `block.rowsum()`), `dim=0`
    each column (row 0). The result has the block's shape: every tile of a row (dim=1)
    or column (dim=0) of tiles holds the reduction of the whole block row or column;
    `bcast(r, dim)` spreads it over the tile."""
    raise _outside_thread("reduce_sum")


def reduce_max(block, scaler, dim: int = 1):
    """Like `reduce_sum`, with the maximum of `block * scaler[0, 0]`."""
    raise _outside_thread("reduce_max")


def bcast(block, dim: int = 1):
    """tt-lang's in-tile broadcast: `dim=1` copies column 0 of every tile to all its
    columns, `dim=0` row 0 to all its rows (what a reduce_sum/reduce_max result needs)."""
    raise _outside_thread("bcast")


def tril(block, diagonal: int = 0, value: float = 0.0):
    """torch.tril of a block, over its last two dims: element (r, c) of `block` where
    c <= r + `diagonal`, else `value` (torch's 0 by default; -inf before a softmax).
    `diagonal` (elements) is a compile-time multiple of 32, `value` a compile-time
    number. For a @compute() thread; bf16 blocks."""
    raise _outside_thread("tril")


def where(condition, if_true, if_false):
    """Elementwise `if_true` where `condition` is nonzero, else `if_false` (blocks or
    numbers, with broadcasting)."""
    raise _outside_thread("where")
