"""The frontend: a `@pykernel_gen` kernel's Python source -> stage-1 IR.

The kernel function runs once as plain Python with a `KernelTensor` per tensor
argument; it returns `Program(threads...)(tensors...)`. Each thread's source (AST) is
then compiled into one region of a `d2m.generic`:

    func.func @add(%lhs: memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>,
                   %rhs: ..., %out: ...) attributes {ttcore.compute_config = {...}} {
      d2m.generic <{grid = #ttcore.grid<1x1>, block_factors = [1, 1],
                    threads = [#d2m.thread<compute>, #d2m.thread<datamovement>, ...]}>
          ins(%lhs, %rhs : ...) outs(%out : ...) ({
      ^bb0(%lhs_cb: !d2m.cb<...>, %rhs_cb: !d2m.cb<...>, %out_cb: !d2m.cb<...>):
        %l = d2m.wait %lhs_cb : ... -> tensor<1x1x!ttcore.tile<32x32, bf16>>
        ...
        %sum = linalg.generic ... { d2m.tile_add ... }
        d2m.store %o, %sum : ...
        d2m.pop %lhs_cb : ...
      }, { ... reader ... }, { ... writer ... })
      func.return
    }

Compile-time values (Python ints, floats, bools, accessors, helpers) are folded as
Python; run-time values (blocks, indices, transfers) become IR. `for ... in range`
becomes `scf.for` with loop-carried values as iter_args; `if` on a compile-time value
picks its branch, on a run-time comparison becomes `scf.if`.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import operator
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from types import FunctionType
from typing import Any, NoReturn

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    DictionaryAttr,
    FileLineColLoc,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Block as IRBlock
from xdsl.ir import Operation, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from ttlang.device import load_device
from ttlang.dialects import d2m
from ttlang.dialects.ttcore import (
    DEVICE_ATTR,
    DataType,
    DeviceAttr,
    GridAttr,
    IteratorType,
    IteratorTypeAttr,
    MemorySpace,
    MemorySpaceAttr,
    TileType,
)
from ttlang.dsl import api, operators
from ttlang.dsl.diagnostics import (
    CompilerBug,
    DSLError,
    KernelError,
    ParsedFunction,
    SourceLocation,
    parse_function,
)
from ttlang.dsl.options import KernelOptions
from ttlang.dsl.values import (
    TILE,
    AccessorBlock,
    Acquisition,
    Block,
    CBHandle,
    Condition,
    Index,
    SemaphoreHandle,
    Transfer,
    logical_shape,
    tile_shape,
)

RUNTIME_VALUES = (Block, Index, Condition, Transfer, CBHandle, SemaphoreHandle, AccessorBlock)

# torch dtype (or its short name) -> tile element format
DATA_TYPES = {
    "torch.bfloat16": "bf16", "torch.float32": "f32", "bf16": "bf16", "f32": "f32", "bfp8_b": "bfp8_b",
}  # fmt: skip
# ttnn dtype names a kernel's `dtypes` option takes -> tile element format
DEVICE_DTYPES = {"bfloat16": "bf16", "float32": "f32", "bfloat8_b": "bfp8_b"}

MAX_INLINE_DEPTH = 32


@dataclass(frozen=True)
class TensorSpec:
    """A tensor described by shape and data type alone ("bf16", "f32" or "bfp8_b"), for
    compiling without allocating (lit tests, `TTLANG_COMPILE_ONLY`)."""

    shape: tuple[int, ...]
    dtype: str = "bf16"


def _file_line_col(location: SourceLocation) -> FileLineColLoc:
    return FileLineColLoc(StringAttr(location.filename), IntAttr(location.line), IntAttr(location.column + 1))


def is_runtime(value: object) -> bool:
    return isinstance(value, RUNTIME_VALUES)


# ===================================================================== kernel level


def describe_tensors(
    kernel: ParsedFunction, args: Sequence[Any], num_outs: int, dtypes: Sequence[tuple[str, str]] = ()
) -> list[api.KernelTensor]:
    """One KernelTensor per argument, in the device dtype `dtypes` names for it (else
    its own); rejects shapes that are not whole tiles and `dtypes` it cannot apply."""
    # Positional parameters without defaults are the tensors; the rest are compile-time
    # keyword parameters.
    signature = kernel.tree.args
    parameters = signature.args[: len(signature.args) - len(signature.defaults)]
    if len(args) != len(parameters):
        raise kernel.error(
            kernel.tree,
            f"kernel {kernel.tree.name} takes {len(parameters)} tensors, but was called with {len(args)}",
            "pass one tensor per parameter without a default; compile-time parameters have "
            "defaults and are passed as keywords",
        )
    if not 1 <= num_outs <= len(args):
        raise kernel.error(
            decorator_keyword(kernel, "num_outs"),
            f"num_outs={num_outs}, but the kernel has {len(args)} tensors",
            f"pass num_outs between 1 and {len(args)}: the last num_outs tensors are the outputs",
        )
    device_dtypes = dict(dtypes)
    names = [p.arg for p in parameters]
    for name, dtype in dtypes:
        if name not in names or dtype not in DEVICE_DTYPES:
            problem = (
                f"names `{name}`, which is not one of the kernel's tensors ({', '.join(names)})"
                if name not in names
                else f"gives `{name}` the dtype {dtype!r}, which is not one of {', '.join(DEVICE_DTYPES)}"
            )
            raise kernel.error(
                decorator_keyword(kernel, "dtypes"),
                f"dtypes {problem}",
                'map tensor parameter names to ttnn dtype names, e.g. dtypes={"k": "bfloat8_b"}',
            )
    tensors = []
    for index, (parameter, arg) in enumerate(zip(parameters, args)):
        shape = tuple(int(d) for d in arg.shape)
        data_type = DATA_TYPES.get(str(arg.dtype))
        if data_type is not None and parameter.arg in device_dtypes:
            data_type = DEVICE_DTYPES[device_dtypes[parameter.arg]]
        if data_type is None:
            raise kernel.error(
                parameter,
                f"tensor `{parameter.arg}` has dtype {arg.dtype}; kernels take bfloat16 or float32 tensors",
                "convert it: .to(torch.bfloat16) for a torch tensor, ttnn.typecast(t, ttnn.bfloat16) for a ttnn one",
            )
        if len(shape) < 2 or shape[-2] % TILE or shape[-1] % TILE or 0 in shape:
            raise kernel.error(
                parameter,
                f"tensor `{parameter.arg}` has shape {operators.format_shape(shape)}, which is not "
                f"tile-aligned: its last two dims must be nonzero multiples of {TILE}",
                "pad the tensor to whole 32x32 tiles (e.g. torch.nn.functional.pad) and slice the result",
            )
        tensors.append(
            api.KernelTensor(
                parameter.arg, index, shape, data_type, is_output=index >= len(args) - num_outs
            )
        )
    return tensors


def decorator_keyword(kernel: ParsedFunction, keyword: str) -> ast.AST:
    """The `keyword=` argument of the kernel's decorator, else the decorator (for
    locating option errors)."""
    calls = [d for d in kernel.tree.decorator_list if isinstance(d, ast.Call)]
    for decorator in calls:
        for kw in decorator.keywords:
            if kw.arg == keyword:
                return kw
    return calls[0] if calls else kernel.tree


def check_options(
    kernel: ParsedFunction, options: KernelOptions, tensors: Sequence[api.KernelTensor]
) -> None:
    grid = options.grid
    grid_node = decorator_keyword(kernel, "grid")
    if len(grid) != 2 or any(not isinstance(d, int) or d < 1 for d in grid):
        raise kernel.error(grid_node, f"grid must be two positive ints (rows, cols), but is {grid!r}")
    device_rows, device_cols = options.core_grid
    if grid[0] > device_rows or grid[1] > device_cols:
        raise kernel.error(
            grid_node,
            f"grid {grid[0]}x{grid[1]} is larger than the device's {device_rows}x{device_cols} cores",
            f"use at most {device_rows}x{device_cols} cores and give each core more blocks "
            "(a loop over its share of the work)",
        )
    if options.block_factors is not None:
        factors_node = decorator_keyword(kernel, "block_factors")
        if len(options.block_factors) != len(tensors):
            raise kernel.error(
                factors_node,
                f"block_factors has {len(options.block_factors)} entries, but the kernel has "
                f"{len(tensors)} tensors",
                "give one block shape (tiles per dim) per tensor argument",
            )
        for tensor, factors in zip(tensors, options.block_factors):
            block = _block_tile_shape(tensor, factors)
            if block is None or any(b < 1 or b > t for b, t in zip(block, tensor.tile_shape)):
                raise kernel.error(
                    factors_node,
                    f"block_factors {factors!r} for `{tensor.name}` is not a block of its "
                    f"{'x'.join(map(str, tensor.tile_shape))} tiles",
                    "a block shape gives tiles per dim: (rows, cols), or one entry per dim",
                )
    if not isinstance(options.cb_buffers, int) and len(options.cb_buffers) != len(tensors):
        raise kernel.error(
            decorator_keyword(kernel, "cb_buffers"),
            f"cb_buffers has {len(options.cb_buffers)} entries, but the kernel has {len(tensors)} tensors",
        )


def iteration_space(
    kernel: ParsedFunction, options: KernelOptions, tensors: Sequence[api.KernelTensor]
) -> tuple[list[AffineMap], list[IteratorType]] | None:
    """The kernel's `indexing_maps` as affine maps (each callable is called with one
    dimension expression per loop dim) and its iterator types; None without maps."""
    if options.indexing_maps is None:
        if options.iterator_types is not None:
            raise kernel.error(
                decorator_keyword(kernel, "iterator_types"),
                "iterator_types needs indexing_maps beside it",
                "give one indexing map per tensor, e.g. `lambda m, n, k: (m, k)`",
            )
        return None
    maps_node = decorator_keyword(kernel, "indexing_maps")
    if len(options.indexing_maps) != len(tensors):
        raise kernel.error(
            maps_node,
            f"indexing_maps has {len(options.indexing_maps)} entries, but the kernel has "
            f"{len(tensors)} tensors",
            "give one map per tensor argument, e.g. `lambda m, n, k: (m, k)`",
        )
    maps = []
    for tensor, indexing_map in zip(tensors, options.indexing_maps):
        if not callable(indexing_map):
            raise kernel.error(maps_node, f"the indexing map of `{tensor.name}` is not a callable")
        rank = len(inspect.signature(indexing_map).parameters)
        results = indexing_map(*(AffineExpr.dimension(d) for d in range(rank)))
        results = tuple(AffineExpr.constant(r) if isinstance(r, int) else r for r in results)
        if len(results) != tensor.rank or not all(isinstance(r, AffineExpr) for r in results):
            raise kernel.error(
                maps_node,
                f"the indexing map of `{tensor.name}` must return one loop dim or int per "
                f"dim of the tensor ({tensor.rank})",
            )
        maps.append(AffineMap(rank, 0, results))
    loop_rank = maps[0].num_dims
    if any(m.num_dims != loop_rank for m in maps):
        raise kernel.error(maps_node, "every indexing map must take the same loop dims")
    iterator_types = options.iterator_types or ("parallel",) * loop_rank
    valid = {t.value for t in IteratorType}
    if len(iterator_types) != loop_rank or any(t not in valid for t in iterator_types):
        raise kernel.error(
            decorator_keyword(kernel, "iterator_types"),
            f"iterator_types must give \"parallel\" or \"reduction\" for each of the "
            f"{loop_rank} loop dims, but is {iterator_types!r}",
        )
    return maps, [IteratorType(t) for t in iterator_types]


@dataclass(frozen=True)
class _BoundExpr:
    """A loop dim expression while tracing a loop bound: `+ - * // %` with ints, as
    AffineExpr's, except `int - expr`, which xdsl computes as `expr - int`."""

    expr: AffineExpr

    @staticmethod
    def _of(value: object) -> AffineExpr | int:
        return value.expr if isinstance(value, _BoundExpr) else value

    def __add__(self, other): return _BoundExpr(self.expr + self._of(other))
    def __radd__(self, other): return _BoundExpr(self.expr + self._of(other))
    def __sub__(self, other): return _BoundExpr(self.expr - self._of(other))
    def __rsub__(self, other): return _BoundExpr(-self.expr + self._of(other))
    def __neg__(self): return _BoundExpr(-self.expr)
    def __mul__(self, other): return _BoundExpr(self.expr * self._of(other))
    def __rmul__(self, other): return _BoundExpr(self.expr * self._of(other))
    def __floordiv__(self, other): return _BoundExpr(self.expr // self._of(other))
    def __mod__(self, other): return _BoundExpr(self.expr % self._of(other))


def traced_loop_bounds(
    kernel: ParsedFunction, options: KernelOptions, space: tuple[list[AffineMap], list[IteratorType]] | None
) -> list[AffineMap] | None:
    """The kernel's `loop_bounds` as affine maps of the loop dims, one per loop dim (no
    result: the dim's whole extent); None without bounds. A bound may use only the dims
    outside its own (d2m.generic's verifier says so at the IR level too)."""
    if options.loop_bounds is None:
        return None
    node = decorator_keyword(kernel, "loop_bounds")
    if space is None:
        raise kernel.error(node, "loop_bounds needs indexing_maps beside it")
    loop_rank = len(space[1])
    if len(options.loop_bounds) != loop_rank:
        raise kernel.error(
            node,
            f"loop_bounds has {len(options.loop_bounds)} entries, but the indexing maps take "
            f"{loop_rank} loop dims",
            "give one entry per loop dim: None (its whole extent) or a callable of the loop dims",
        )
    dims = [_BoundExpr(AffineExpr.dimension(d)) for d in range(loop_rank)]
    bounds = []
    for dim, bound in enumerate(options.loop_bounds):
        if bound is None:
            bounds.append(AffineMap(loop_rank, 0, ()))
            continue
        if not callable(bound):
            raise kernel.error(node, f"loop_bounds[{dim}] is neither None nor a callable")
        try:
            result = bound(*dims)
        except TypeError as error:
            raise kernel.error(
                node, f"loop_bounds[{dim}] could not be traced: {error}",
                "a bound is `+ - *` and `//`, `%` by ints of the loop dims",
            ) from None
        result = AffineExpr.constant(result) if isinstance(result, int) else getattr(result, "expr", None)
        if not isinstance(result, AffineExpr):
            raise kernel.error(node, f"loop_bounds[{dim}] must return a loop-dim expression or int")
        inner = [d for d in result.used_dims() if d >= dim]
        if inner:
            raise kernel.error(
                node,
                f"loop_bounds[{dim}] uses loop dim d{max(inner)}; a dim's bound may use only "
                "the dims outside it (before it)",
            )
        bounds.append(AffineMap(loop_rank, 0, (result,)))
    return bounds


def blocks_per_tensor(
    kernel: ParsedFunction,
    options: KernelOptions,
    space: tuple[list[AffineMap], list[IteratorType]] | None,
) -> KernelOptions:
    """tt-lang's `block_factors` per loop dim (`[2, 1, 4]` for (m, n, k)) as each
    tensor's CB block through its indexing map: (m, k) -> (2, 4); a constant 0 in a map
    gives 1. Per-tensor block_factors are returned as they are."""
    factors = options.block_factors
    if space is None or factors is None or not all(isinstance(f, int) for f in factors):
        return options
    maps, iterator_types = space
    if len(factors) != len(iterator_types):
        raise kernel.error(
            decorator_keyword(kernel, "block_factors"),
            f"block_factors {factors!r} gives {len(factors)} loop dims, but the indexing maps "
            f"take {len(iterator_types)}",
            "give tiles per loop dim (`[2, 2, 1]` for maps of (m, n, k)), or a block shape "
            "per tensor",
        )
    blocks = []
    for indexing_map in maps:
        block = []
        for result in indexing_map.results:
            if isinstance(result, AffineDimExpr):
                block.append(factors[result.position])
            elif isinstance(result, AffineConstantExpr) and result.value == 0:
                block.append(1)
            else:
                raise kernel.error(
                    decorator_keyword(kernel, "indexing_maps"),
                    f"block_factors per loop dim need indexing maps that name loop dims or 0, "
                    f"but one returns {result}",
                    "give a block shape per tensor in block_factors instead",
                )
        blocks.append(tuple(block))
    return replace(options, block_factors=tuple(blocks))


def _block_tile_shape(tensor: api.KernelTensor, factors: Sequence[int] | None) -> tuple[int, ...] | None:
    """Tiles per dim of the tensor's CB block; (rows, cols) factors keep batch dims at 1."""
    if factors is None:
        return (1,) * tensor.rank
    if any(not isinstance(f, int) for f in factors):
        return None
    if len(factors) == tensor.rank:
        return tuple(factors)
    if len(factors) == 2:
        return (1,) * (tensor.rank - 2) + tuple(factors)
    return None


def _located_in(kernel: ParsedFunction, error: DSLError, traceback) -> KernelError:
    """Locates a DSLError raised while the kernel function ran, at its line in the kernel."""
    line = None
    while traceback is not None:
        if traceback.tb_frame.f_code is kernel.function.__code__:
            line = traceback.tb_lineno
        traceback = traceback.tb_next
    location = kernel.location()
    if line is not None:
        location = SourceLocation(kernel.filename, line)
    return KernelError(error.message, location, error.hint)


def _is_compile_time_constant(value: object) -> bool:
    if isinstance(value, tuple):
        return all(_is_compile_time_constant(item) for item in value)
    return value is None or isinstance(value, bool | int | float)


def trace_kernel(
    kernel: ParsedFunction, tensors: Sequence[api.KernelTensor], params: dict[str, Any]
) -> tuple[api.Program, list[KernelLocalCB]]:
    """Runs the kernel function with KernelTensors; returns the Program it builds and
    the kernel-local CBs it creates."""
    for name, value in params.items():
        if not _is_compile_time_constant(value):
            raise kernel.error(
                kernel.tree,
                f"kernel parameter `{name}` is {type(value).__name__}; keyword parameters are "
                "compile-time ints, floats, bools or tuples of them",
            )
    try:
        with api.declaring_circular_buffers() as declared:
            program = kernel.function(*tensors, **params)
    except DSLError as error:
        raise _located_in(kernel, error, sys.exc_info()[2]) from None
    returns = [n for n in ast.walk(kernel.tree) if isinstance(n, ast.Return)]
    where = returns[-1] if returns else kernel.tree
    if not isinstance(program, api.Program):
        raise kernel.error(
            where,
            f"kernel {kernel.tree.name} must return Program(...)(tensors), but returned "
            f"{type(program).__name__}",
            "end the kernel with `return Program(compute_thread, reader, writer)(lhs, rhs, out)`",
        )
    if list(program.tensors) != list(tensors):
        raise kernel.error(
            where,
            "Program(...) must be called with the kernel's tensor parameters, in order: "
            f"({', '.join(t.name for t in tensors)})",
        )
    kinds = [t.kind for t in program.threads]
    if not kinds:
        raise kernel.error(where, "Program() needs at least one thread")
    if kinds.count("compute") > d2m.GenericOp.MAX_COMPUTE_THREADS or kinds.count(
        "datamovement"
    ) > d2m.GenericOp.MAX_DATAMOVEMENT_THREADS:
        raise kernel.error(
            where,
            f"a core runs at most one @compute() and two @datamovement() threads, but this "
            f"Program has {kinds.count('compute')} and {kinds.count('datamovement')}",
        )
    return program, kernel_local_cbs(kernel, declared)


@dataclass(frozen=True)
class KernelLocalCB:
    """A kernel-local CB (`CircularBuffer(shape)` in the kernel function): its name
    there, its CB type and where it is declared."""

    declaration: api.CircularBuffer
    name: str
    cb_type: d2m.CBType
    location: SourceLocation


# the tile formats of a kernel-local CB (dtype: ttnn's name, torch's or ours)
LOCAL_CB_FORMATS = ("bf16", "f32")


def kernel_local_cbs(
    kernel: ParsedFunction, declared: Sequence[api.CircularBuffer]
) -> list[KernelLocalCB]:
    """The kernel-local CBs the kernel function created, checked; each named by the
    variable the kernel function assigns it to (`mask_cb = CircularBuffer(...)`, or
    `mask_cb = helper()`), located at its `CircularBuffer(...)` call."""
    statements = [n for n in ast.walk(kernel.tree) if isinstance(n, ast.stmt)]
    names = {  # kernel function line -> the name it assigns
        node.lineno + kernel.line_offset: node.targets[0].id
        for node in statements
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
    }
    calls = {  # kernel function line -> its CircularBuffer(...) call
        node.lineno + kernel.line_offset: node
        for node in ast.walk(kernel.tree)
        if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("CircularBuffer")
    }
    result: list[KernelLocalCB] = []
    for position, cb in enumerate(declared):
        line = next((line for code, line in cb.calls if code is kernel.function.__code__), None)
        name = names.get(line, f"local_cb{position}")
        if name in (other.name for other in result):
            name = f"{name}_{position}"
        here = cb.calls[0][0] is kernel.function.__code__ and cb.line in calls
        location = kernel.location(calls[cb.line]) if here else SourceLocation(cb.filename, cb.line)
        result.append(KernelLocalCB(cb, name, _local_cb_type(cb, name, location), location))
    return result


def _local_cb_type(cb: api.CircularBuffer, name: str, location: SourceLocation) -> d2m.CBType:
    shape, buffers = cb.shape, cb.buffer_factor
    if (
        not isinstance(shape, tuple | list)
        or len(shape) < 2
        or any(not isinstance(d, int) or isinstance(d, bool) or d < 1 for d in shape)
        or any(d % TILE for d in shape[-2:])
    ):
        raise KernelError(
            f"CircularBuffer `{name}` has block shape {shape!r}; a block shape is a tuple of "
            f"positive ints (..., rows, cols), rows and cols multiples of {TILE}",
            location,
            "the shape is in elements, as zeros(shape): (64, 128) is a block of 2x4 tiles",
        )
    dtype = cb.dtype if isinstance(cb.dtype, str) else str(cb.dtype)
    data_type = DEVICE_DTYPES.get(dtype) or DATA_TYPES.get(dtype)
    if data_type not in LOCAL_CB_FORMATS:
        raise KernelError(
            f"CircularBuffer `{name}` has dtype {cb.dtype!r}; a kernel-local CB holds "
            "bfloat16 or float32 tiles",
            location,
            'pass dtype="bfloat16" (the default) or dtype="float32" (or the torch dtype)',
        )
    if not isinstance(buffers, int) or isinstance(buffers, bool) or buffers < 1:
        raise KernelError(
            f"CircularBuffer `{name}` has buffer_factor={buffers!r}; it holds a positive "
            "int number of blocks",
            location,
            "buffer_factor=2 (the default) lets the producer fill a block while the consumer uses the other",
        )
    block = MemRefType(
        TileType(data_type), tile_shape(tuple(shape)), memory_space=MemorySpaceAttr(MemorySpace.L1)
    )
    return d2m.CBType(block, buffers)


def build_module(
    function: FunctionType, args: Sequence[Any], params: dict[str, Any], options: KernelOptions
) -> ModuleOp:
    """The stage-1 IR of `function` (a `@pykernel_gen` body) for tensors like `args`."""
    kernel = parse_function(function)
    tensors = describe_tensors(kernel, args, options.num_outs, options.dtypes)
    space = iteration_space(kernel, options, tensors)
    options = blocks_per_tensor(kernel, options, space)
    check_options(kernel, options, tensors)
    program, local_cbs = trace_kernel(kernel, tensors, params)
    module = KernelBuilder(kernel, tensors, program, options, space, local_cbs).build()
    try:
        module.verify()
    except VerifyException as error:
        raise CompilerBug(f"the frontend built invalid IR: {error}", kernel.location()) from error
    return module


def _compute_config_attr(options: KernelOptions) -> DictionaryAttr:
    config = options.compute_config
    return DictionaryAttr(
        {
            "math_fidelity": StringAttr(config.math_fidelity),
            "fp32_dest_acc_en": IntegerAttr.from_bool(config.fp32_dest_acc_en),
            "math_approx_mode": IntegerAttr.from_bool(config.math_approx_mode),
            "dst_full_sync_en": IntegerAttr.from_bool(config.dst_full_sync_en),
        }
    )


class KernelBuilder:
    """Builds the kernel's func.func and its d2m.generic, one region per thread."""

    def __init__(
        self,
        kernel: ParsedFunction,
        tensors: Sequence[api.KernelTensor],
        program: api.Program,
        options: KernelOptions,
        space: tuple[list[AffineMap], list[IteratorType]] | None = None,
        local_cbs: Sequence[KernelLocalCB] = (),
    ):
        self.space = space
        self.kernel = kernel
        self.tensors = tensors
        self.program = program
        self.options = options
        self.local_cbs = list(local_cbs)
        self.used_local_cbs: set[int] = set()  # positions of the local CBs some thread uses
        self.tile_types = [TileType(t.data_type) for t in tensors]
        self.cb_types = [
            d2m.CBType(
                MemRefType(
                    tile_type,
                    _block_tile_shape(
                        tensor,
                        None if options.block_factors is None else options.block_factors[tensor.index],
                    ),
                    memory_space=MemorySpaceAttr(MemorySpace.L1),
                ),
                options.buffers_of(tensor.index),
            )
            for tensor, tile_type in zip(tensors, self.tile_types)
        ]

    def build(self) -> ModuleOp:
        arg_types = [
            MemRefType(tile_type, tensor.tile_shape, memory_space=MemorySpaceAttr(MemorySpace.DRAM))
            for tensor, tile_type in zip(self.tensors, self.tile_types)
        ]
        kernel_func = func.FuncOp(self.kernel.function.__name__, (arg_types, []))
        kernel_func.location = _file_line_col(self.kernel.location())
        kernel_func.attributes["ttcore.compute_config"] = _compute_config_attr(self.options)
        entry = kernel_func.body.block
        for arg, tensor in zip(entry.args, self.tensors):
            arg.name_hint = tensor.name
        self.dram_operands = list(entry.args)

        regions = [self._thread_region(thread) for thread in self.program.threads]
        for position, local in enumerate(self.local_cbs):
            if position not in self.used_local_cbs:
                raise KernelError(
                    f"CircularBuffer `{local.name}` is used by no thread",
                    local.location,
                    f"fill it in one thread (`with {local.name}.reserve() as blk:`) and consume "
                    f"it in another (`with {local.name}.wait() as blk:`), or drop it",
                )
        num_inputs = len(self.tensors) - self.options.num_outs
        maps, iterator_types = self.space or ([], [])
        bounds = traced_loop_bounds(self.kernel, self.options, self.space)
        generic = d2m.GenericOp(
            inputs=self.dram_operands[:num_inputs],
            outputs=self.dram_operands[num_inputs:],
            grid=GridAttr(*self.options.grid),
            # The threads index their blocks explicitly, so each core runs every region
            # once: one block iteration per loop (or grid) dimension.
            block_factors=[1] * (len(iterator_types) or 2),
            threads=[d2m.ThreadType(thread.kind) for thread in self.program.threads],
            thread_regions=regions,
            indexing_maps=ArrayAttr(AffineMapAttr(m) for m in maps) if maps else None,
            iterator_types=ArrayAttr(IteratorTypeAttr(t) for t in iterator_types) if maps else None,
            loop_bounds=ArrayAttr(AffineMapAttr(m) for m in bounds) if bounds else None,
            deal=self.options.deal if self.options.deal != "contiguous" else None,
        )
        generic.location = kernel_func.location
        entry.add_op(generic)
        entry.add_op(func.ReturnOp())
        module = ModuleOp([kernel_func])
        module.attributes[DEVICE_ATTR] = DeviceAttr.from_description(
            load_device(self.options.device), self.options.core_grid
        )
        return module

    def _thread_region(self, thread: api.Thread) -> Region:
        source = parse_function(thread.function)
        parameters = source.tree.args
        if parameters.vararg or parameters.kwarg or parameters.kwonlyargs or parameters.defaults:
            raise source.error(
                source.tree,
                f"thread {thread.name} must take plain parameters: one CircularBuffer per "
                "kernel tensor, then Semaphores",
            )
        names = [p.arg for p in parameters.args]
        if len(names) < len(self.tensors):
            raise source.error(
                source.tree,
                f"thread {thread.name} takes {len(names)} parameters, but the kernel has "
                f"{len(self.tensors)} tensors; a thread takes one CircularBuffer per tensor, in order",
                f"declare it as `def {thread.name}("
                + ", ".join(f"{t.name}_cb: CircularBuffer" for t in self.tensors)
                + "):`",
            )
        compiler = ThreadCompiler(self, thread, source)
        semaphores = []
        for position, parameter in enumerate(parameters.args):
            expected = api.CircularBuffer if position < len(self.tensors) else api.Semaphore
            annotation = None
            if parameter.annotation is not None:
                annotation = compiler.evaluate(parameter.annotation)
            if annotation is not expected and not (annotation is None and expected is api.CircularBuffer):
                what = (
                    f"the CircularBuffer of tensor `{self.tensors[position].name}`"
                    if expected is api.CircularBuffer
                    else "a Semaphore (parameters after the CircularBuffers are semaphores)"
                )
                raise source.error(
                    parameter,
                    f"parameter `{parameter.arg}` of thread {thread.name} must be {what}, but is "
                    f"annotated {ast.unparse(parameter.annotation) if parameter.annotation else 'nothing'}",
                    "each thread takes one `name: CircularBuffer` per kernel tensor, in order, "
                    "then `name: Semaphore` parameters; a kernel-local CircularBuffer(shape) "
                    "is used by its name in the kernel function, not passed",
                )
            if expected is api.Semaphore:
                semaphores.append(parameter.arg)
        local_types = [local.cb_type for local in self.local_cbs]
        region_block = IRBlock(
            arg_types=[*self.cb_types, *local_types, *[d2m.SemaphoreType()] * len(semaphores)]
        )
        local_names = [local.name for local in self.local_cbs]
        region_names = [*names[: len(self.tensors)], *local_names, *names[len(self.tensors) :]]
        for arg, name in zip(region_block.args, region_names):
            arg.name_hint = name
        compiler.compile(region_block)
        region = Region(region_block)
        if thread.verbose:
            print(f"// thread {thread.name} ({thread.kind})")
            Printer().print_region(region)
            print()
        return region


# ===================================================================== thread level


@dataclass(eq=False)
class _InFlight:
    """A transfer on CB blocks that has not been waited."""

    transfer: Transfer
    acquisitions: list[Acquisition]
    depth: int
    location: SourceLocation


class _Return(Exception):
    """Unwinds an inlined helper at its `return`."""

    def __init__(self, value: object):
        self.value = value


@dataclass
class _Frame:
    """One function being compiled: the thread itself or an inlined helper."""

    source: ParsedFunction
    scope: dict[str, object]
    depth: int  # region depth when the function was entered
    # names assigned only inside a loop or run-time branch -> that statement's location
    region_locals: dict[str, SourceLocation] = field(default_factory=dict)


_BINARY_SPELLINGS: dict[type[ast.operator], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.MatMult: "@",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
}

_PYTHON_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "@": operator.matmul,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "<<": operator.lshift,
    ">>": operator.rshift,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
}

_PYTHON_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: operator.not_,
    ast.Invert: operator.invert,
}

_INDEX_BINARY: dict[str, type[Operation]] = {
    "+": arith.AddiOp,
    "-": arith.SubiOp,
    "*": arith.MuliOp,
    "//": arith.FloorDivSIOp,
    "%": arith.RemSIOp,
}

# comparison -> (Python operator, arith.cmpi predicate)
_COMPARISONS: dict[type[ast.cmpop], tuple[Callable[[Any, Any], Any], str | None]] = {
    ast.Eq: (operator.eq, "eq"),
    ast.NotEq: (operator.ne, "ne"),
    ast.Lt: (operator.lt, "slt"),
    ast.LtE: (operator.le, "sle"),
    ast.Gt: (operator.gt, "sgt"),
    ast.GtE: (operator.ge, "sge"),
    ast.Is: (operator.is_, None),
    ast.IsNot: (operator.is_not, None),
    ast.In: (lambda a, b: a in b, None),
    ast.NotIn: (lambda a, b: a not in b, None),
}

_BLOCK_METHODS = sorted(
    ["store", "transpose", *operators.UNARY_OPERATORS, *operators.REDUCTIONS]
)


LOOP_COUNTER_BITS = 32
"""Loop counters are the kernel's int32_t (a 32-bit RISC-V); see target/cpp.py."""


def _check_loop_bounds(start: int | Index, stop: int | Index, step: int) -> None:
    """Compile-time range() bounds the int32_t loop counter cannot hold, including the
    last increment past `stop`."""
    low, high = -(1 << (LOOP_COUNTER_BITS - 1)), (1 << (LOOP_COUNTER_BITS - 1)) - 1
    for value in (start, stop):
        if isinstance(value, int) and not low <= value <= high:
            raise DSLError(
                f"range() bound {value} does not fit the kernel's {LOOP_COUNTER_BITS}-bit signed "
                f"loop counter ({low} to {high})",
                "loop over fewer iterations, e.g. split the range into an outer and an inner loop",
            )
    if isinstance(stop, int) and not low <= stop + step <= high:
        raise DSLError(
            f"range() stop {stop} with step {step} overflows the kernel's {LOOP_COUNTER_BITS}-bit "
            "signed loop counter on its last increment",
            "loop over fewer iterations, or to a smaller stop",
        )


def _describe(value: object) -> str:
    """How a value is named in error messages."""
    if isinstance(value, Block):
        return f"a {operators.format_shape(value.shape)} block"
    names = {
        Index: "a run-time index",
        Condition: "a run-time condition",
        Transfer: "a DMA transfer",
        CBHandle: "a CircularBuffer",
        SemaphoreHandle: "a Semaphore",
        AccessorBlock: "an accessor block",
    }
    return names.get(type(value), f"{type(value).__name__} {value!r}")


def _block_tiles(cb: SSAValue) -> tuple[int, ...]:
    """The block shape, in tiles, of a region's CB argument."""
    assert isinstance(cb.type, d2m.CBType)
    return cb.type.block.get_shape()


def _assigned_names(statements: Sequence[ast.AST]) -> list[str]:
    """Names the statements (or assignment targets) assign, in order of first assignment."""
    names: dict[str, None] = {}
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names[node.id] = None
    return list(names)


class ThreadCompiler:
    """Compiles one thread function into its d2m.generic region."""

    def __init__(self, kernel: KernelBuilder, thread: api.Thread, source: ParsedFunction):
        self.kernel = kernel
        self.thread = thread
        self.is_compute = thread.kind == "compute"
        self.frames = [_Frame(source, {}, depth=0)]
        self.block: IRBlock | None = None
        self.entry_block: IRBlock | None = None  # the thread region's block
        self.reduce_scalers: dict[TileType, Block] = {}
        self.depth = 0  # nesting of scf regions (loops, run-time branches)
        self.outstanding: list[Acquisition] = []  # waits/reserves not yet popped/pushed
        # CB -> this compute thread's pushes to it in the current straight-line code,
        # oldest first: a wait() on that CB reads the oldest back (Acquisition).
        self.own_pushes: dict[SSAValue, list[Acquisition]] = {}
        self.in_flight: list[_InFlight] = []  # transfers on CB blocks not yet waited
        # id of a kernel-local CB's declaration -> (its position, its handle)
        self.local_cb_handles: dict[int, tuple[int, CBHandle]] = {}
        self.nodes: list[ast.AST] = []  # statements and expressions being compiled

    # ------------------------------------------------------------------ plumbing

    @property
    def frame(self) -> _Frame:
        return self.frames[-1]

    @property
    def source(self) -> ParsedFunction:
        return self.frame.source

    def emit(self, op: Operation) -> Operation:
        """Appends `op` at the insertion point, located at the innermost statement or
        expression being compiled (so later passes can name the kernel line)."""
        assert self.block is not None
        if self.nodes:
            op.location = _file_line_col(self.source.location(self.nodes[-1]))
        self.block.add_op(op)
        return op

    def reduce_scaler(self, tile_type: TileType) -> Block:
        """The tile of ones reductions scale by: filled once at the thread's entry and
        shared by all its reductions, loops included (tt-metal's kernels also make the
        scaler tile once)."""
        if tile_type not in self.reduce_scalers:
            entry = self.entry_block
            anchor = entry.first_op

            def emit_at_entry(op: Operation) -> Operation:
                if self.nodes:
                    op.location = _file_line_col(self.source.location(self.nodes[-1]))
                if anchor is None:
                    entry.add_op(op)
                else:
                    entry.insert_op_before(op, anchor)
                return op

            ones = operators.fill(emit_at_entry, 1.0, (TILE, TILE), tile_type)
            self.reduce_scalers[tile_type] = ones
        return self.reduce_scalers[tile_type]

    def error(self, node: ast.AST, message: str, hint: str | None = None) -> NoReturn:
        raise self.source.error(node, message, hint)

    def index(self, value: int | Index) -> SSAValue:
        """An index SSA value for a compile-time int or run-time index."""
        if isinstance(value, Index):
            return value.value
        if isinstance(value, bool) or not isinstance(value, int):
            raise DSLError(f"expected an integer index, but got {_describe(value)}")
        return self.emit(arith.ConstantOp(IntegerAttr(value, IndexType()))).results[0]

    def compile(self, region_block: IRBlock) -> None:
        self.block = self.entry_block = region_block
        tensors = self.kernel.tensors
        local_cbs = self.kernel.local_cbs
        scope = self.frame.scope
        for position, parameter in enumerate(self.source.tree.args.args):
            if position < len(tensors):
                arg = region_block.args[position]
                scope[parameter.arg] = CBHandle(parameter.arg, arg, _block_tiles(arg), tensors[position])
            else:
                arg = region_block.args[position + len(local_cbs)]
                scope[parameter.arg] = SemaphoreHandle(parameter.arg, arg)
        self.local_cb_handles = {
            id(local.declaration): (position, CBHandle(local.name, arg, _block_tiles(arg)))
            for position, (local, arg) in enumerate(
                zip(local_cbs, region_block.args[len(tensors) :])
            )
        }
        body = self.source.tree.body
        if body and isinstance(body[-1], ast.Return) and body[-1].value is None:
            body = body[:-1]
        self.statements(body)
        self.release_at_scope_end()

    def release_at_scope_end(self) -> None:
        """Pops/pushes, at the end of the current loop body, branch or thread, the blocks
        acquired there and not released (tt-lang code leaves them to the compiler, as
        tt-mlir released them at the end of the acquiring scope)."""
        for acquisition in [a for a in self.outstanding if a.depth == self.depth]:
            self._release(acquisition, acquisition.location)

    # ------------------------------------------------------------------ statements

    def statements(self, statements: Sequence[ast.stmt]) -> None:
        for statement in statements:
            self.statement(statement)

    @contextmanager
    def located(self, node: ast.stmt | ast.expr) -> Iterator[None]:
        """Runs the body for `node`: a DSL error becomes a KernelError at `node`'s line,
        any other exception a CompilerBug located there."""
        self.nodes.append(node)
        try:
            yield
        except DSLError as error:
            raise self.source.error(node, error.message, error.hint) from None
        except (KernelError, CompilerBug, _Return):
            raise
        except Exception as error:
            raise CompilerBug(f"{type(error).__name__}: {error}", self.source.location(node)) from error
        finally:
            self.nodes.pop()

    def statement(self, node: ast.stmt) -> None:
        with self.located(node):
            self._statement(node)

    def _statement(self, node: ast.stmt) -> None:
        match node:
            case ast.Expr(value=ast.Constant(value=str())):
                pass  # docstring
            case ast.Expr(value=value):
                self.evaluate(value)
            case ast.Assign(targets=targets, value=value):
                result = self.evaluate(value)
                for target in targets:
                    self.assign(target, result)
            case ast.AnnAssign(target=target, value=value) if value is not None:
                self.assign(target, self.evaluate(value))
            case ast.AugAssign(target=ast.Name(id=name) as target, op=op, value=value):
                current = self.lookup(name)
                result = self.binary(node, _BINARY_SPELLINGS[type(op)], current, self.evaluate(value))
                self.assign(target, result)
            case ast.For():
                self.for_loop(node)
            case ast.If():
                self.if_statement(node)
            case ast.With():
                self.with_statement(node)
            case ast.Assert(test=test, msg=msg):
                condition = self.evaluate(test)
                if is_runtime(condition):
                    raise DSLError("assert needs a compile-time condition")
                if not condition:
                    message = self.evaluate(msg) if msg is not None else ast.unparse(test)
                    raise DSLError(f"assertion failed: {message}")
            case ast.Return(value=value):
                if len(self.frames) == 1:
                    raise DSLError(
                        "a thread returns nothing; `return` may only end it",
                        "threads communicate through CircularBuffers",
                    )
                if self.depth != self.frame.depth:
                    raise DSLError("a helper cannot return from inside a loop or run-time branch")
                raise _Return(None if value is None else self.evaluate(value))
            case ast.Pass():
                pass
            case ast.While():
                raise DSLError(
                    "`while` loops are not supported in threads", "use `for i in range(n):`"
                )
            case ast.FunctionDef():
                raise DSLError(
                    "functions cannot be defined inside a thread",
                    "define the helper in the kernel function or at module level and call it",
                )
            case _:
                raise DSLError(f"`{type(node).__name__}` statements are not supported in threads")

    def assign(self, target: ast.expr, value: object) -> None:
        match target:
            case ast.Name(id=name):
                if is_runtime(value) and hasattr(value, "value") and isinstance(value.value, SSAValue):
                    if value.value.name_hint is None:
                        value.value.name_hint = name
                self.frame.scope[name] = value
                self.frame.region_locals.pop(name, None)
            case ast.Tuple(elts=elements) | ast.List(elts=elements):
                if not isinstance(value, tuple | list) or len(value) != len(elements):
                    raise DSLError(f"cannot unpack {_describe(value)} into {len(elements)} names")
                for element, item in zip(elements, value):
                    self.assign(element, item)
            case _:
                raise DSLError(
                    f"cannot assign to `{ast.unparse(target)}`",
                    "assign to plain names; store into a block with blk.store(value)",
                )

    # ---------------------------------------------------------- regions: for / if

    def _carried(self, statements: Sequence[ast.stmt]) -> list[str]:
        """Names assigned in `statements` whose current value can cross an scf region
        boundary (blocks, indices; Python ints become indices). A name bound to a CB
        block already popped/pushed has no value to carry: the region acquires its own
        (`with acc_cb.reserve() as a:` before a loop and in it)."""
        scope = self.frame.scope
        carried = []
        for name in _assigned_names(statements):
            value = scope.get(name)
            if isinstance(value, int) and not isinstance(value, bool):
                scope[name] = Index(self.index(value))
                carried.append(name)
            elif isinstance(value, Index) or (
                isinstance(value, Block)
                and isinstance(value.value.type, TensorType)
                and not (value.acquisition and value.acquisition.ended)
            ):
                carried.append(name)
        return carried

    def _rebind(self, names: Sequence[str], initial: Sequence[object], values: Sequence[SSAValue]) -> None:
        for name, before, value in zip(names, initial, values):
            value.name_hint = name
            self.frame.scope[name] = Block(value, before.shape) if isinstance(before, Block) else Index(value)
            self.frame.region_locals.pop(name, None)

    def _yielded(self, names: Sequence[str], initial: Sequence[object], where: str) -> list[SSAValue]:
        """The values of the carried names at the end of a region, checked against the
        values they had on entry."""
        values = []
        for name, before in zip(names, initial):
            after = self.frame.scope.get(name)
            if isinstance(after, int) and not isinstance(after, bool) and isinstance(before, Index):
                after = Index(self.index(after))
            if isinstance(before, Block):
                if not isinstance(after, Block) or after.shape != before.shape:
                    raise DSLError(
                        f"`{name}` is {_describe(before)} before the {where} but "
                        f"{_describe(after)} at its end; a value carried through a {where} "
                        "keeps its shape"
                    )
            elif not isinstance(after, Index):
                raise DSLError(
                    f"`{name}` is an integer before the {where} but {_describe(after)} at its end"
                )
            values.append(after.value)
        return values

    def _enter_region(self, block: IRBlock) -> tuple[IRBlock, dict[str, object]]:
        """Moves the insertion point into an scf region; returns what _leave_region restores."""
        saved = (self.block, dict(self.frame.scope))
        self.block = block
        self.depth += 1
        self.own_pushes.clear()
        return saved

    def _leave_region(self, saved, statements: Sequence[ast.AST], location: SourceLocation) -> None:
        block, scope_before = saved
        assert not any(a.depth == self.depth for a in self.outstanding), "released at scope end"
        # Pushes before or inside a region are not read back after it: the region may
        # have taken them from the CB.
        self.own_pushes.clear()
        self.block = block
        self.depth -= 1
        # Names (re)assigned in the region and not carried out have no value after it.
        scope = self.frame.scope
        for name in _assigned_names(statements):
            if name in scope and (name not in scope_before or scope[name] is not scope_before[name]):
                del scope[name]
                self.frame.region_locals[name] = location

    def for_loop(self, node: ast.For) -> None:
        iterable = node.iter
        is_range = isinstance(iterable, ast.Call) and self.evaluate(iterable.func) is builtins.range
        if not is_range:
            raise self.source.error(
                iterable,
                f"a thread can only loop over range(...), not `{ast.unparse(iterable)}`",
                "write `for i in range(n):` and index with i (the loop becomes scf.for, not unrolled)",
            )
        if node.orelse:
            raise DSLError("`for ... else` is not supported")
        if not isinstance(node.target, ast.Name):
            raise DSLError("the loop variable must be a single name")
        if iterable.keywords:
            raise DSLError("range() takes positional arguments")
        bounds = [self.evaluate(arg) for arg in iterable.args]
        if not 1 <= len(bounds) <= 3:
            raise DSLError(f"range() takes 1 to 3 arguments, but got {len(bounds)}")
        start, stop, step = {1: (0, *bounds, 1), 2: (*bounds, 1), 3: tuple(bounds)}[len(bounds)]
        if isinstance(step, Index | bool) or not isinstance(step, int) or step == 0:
            raise DSLError(
                f"the step of range() must be a nonzero compile-time int, not {_describe(step)}"
            )
        for bound in (start, stop):
            if not isinstance(bound, int | Index) or isinstance(bound, bool):
                raise DSLError(f"range() bounds must be integers, but got {_describe(bound)}")
        _check_loop_bounds(start, stop, step)
        if isinstance(start, int) and isinstance(stop, int) and not range(start, stop, step):
            return  # a compile-time empty range runs nothing, as an `if` on a compile-time False

        carried = self._carried(node.body)
        initial = [self.frame.scope[name] for name in carried]
        if step > 0:
            lower, upper, stride = self.index(start), self.index(stop), self.index(step)
        else:
            # scf.for counts up: run j over the trip count, i = start + j * step.
            lower, upper, stride = self.index(0), self._descending_trips(start, stop, -step), self.index(1)
        body = IRBlock(arg_types=[IndexType(), *[v.value.type for v in initial]])
        induction, *carried_args = body.args
        induction.name_hint = node.target.id if step > 0 else f"{node.target.id}_trip"
        saved = self._enter_region(body)
        variable = induction
        if step < 0:
            offset = self.emit(arith.MuliOp(induction, self.index(step))).results[0]
            variable = self.emit(arith.AddiOp(self.index(start), offset)).results[0]
            variable.name_hint = node.target.id
        self.frame.scope[node.target.id] = Index(variable)
        self._rebind(carried, initial, carried_args)
        self.statements(node.body)
        with self.located(node):
            self.release_at_scope_end()
        try:
            body.add_op(scf.YieldOp(*self._yielded(carried, initial, "loop")))
        except DSLError as error:
            raise self.source.error(node, error.message, error.hint) from None
        self._leave_region(saved, [*node.body, node.target], self.source.location(node))
        loop = self.emit(scf.ForOp(lower, upper, stride, [v.value for v in initial], body))
        self._rebind(carried, initial, loop.results)

    def _descending_trips(self, start: int | Index, stop: int | Index, stride: int) -> SSAValue:
        """How many times `range(start, stop, -stride)` runs (negative when it runs none:
        the signed loop test then fails at once)."""
        if isinstance(start, int) and isinstance(stop, int):
            return self.index(len(range(start, stop, -stride)))
        span = self.emit(arith.SubiOp(self.index(start), self.index(stop))).results[0]
        rounded = self.emit(arith.AddiOp(span, self.index(stride - 1))).results[0]
        return self.emit(arith.FloorDivSIOp(rounded, self.index(stride))).results[0]

    def if_statement(self, node: ast.If) -> None:
        test = self.evaluate(node.test)
        if not is_runtime(test):
            self.statements(node.body if test else node.orelse)
            return
        if not isinstance(test, Condition):
            raise self.source.error(
                node.test,
                f"an `if` needs a compile-time value or a comparison, not {_describe(test)}",
                "compare run-time indices explicitly, e.g. `if core_index(0) == 0:`",
            )
        carried = self._carried([*node.body, *node.orelse])
        initial = [self.frame.scope[name] for name in carried]
        regions = []
        # Without an else and carried values, the else region stays empty.
        branches = (node.body, node.orelse) if node.orelse or carried else (node.body,)
        for statements in branches:
            block = IRBlock()
            saved = self._enter_region(block)
            self.statements(statements)
            with self.located(node):
                self.release_at_scope_end()
            try:
                yielded = self._yielded(carried, initial, "branch")
            except DSLError as error:
                raise self.source.error(node, error.message, error.hint) from None
            block.add_op(scf.YieldOp(*yielded))
            # The else branch starts from the values before the `if`, not the then branch's.
            for name, value in zip(carried, initial):
                self.frame.scope[name] = value
            self._leave_region(saved, [*node.body, *node.orelse], self.source.location(node))
            regions.append(Region(block))
        branch = self.emit(scf.IfOp(test.value, [v.value.type for v in initial], *regions))
        self._rebind(carried, initial, branch.results)

    def with_statement(self, node: ast.With) -> None:
        entered: list[Acquisition] = []
        for item in node.items:
            value = self.evaluate(item.context_expr)
            if (
                not isinstance(value, Block)
                or value.acquisition is None
                or value.acquisition in entered
                or value.view_start is not None
            ):
                raise self.source.error(
                    item.context_expr,
                    f"`with` takes cb.wait() or cb.reserve(), not `{ast.unparse(item.context_expr)}`",
                )
            entered.append(value.acquisition)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, value)
        self.statements(node.body)
        for acquisition in reversed(entered):
            if acquisition.released_at is not None:
                raise self.source.error(
                    node,
                    f"the block of {acquisition.cb.name}.{acquisition.kind}() is released twice: "
                    f"at line {acquisition.released_at.line} and at the end of this `with`",
                    f"drop the explicit {acquisition.cb.name}.{acquisition.releaser}(); "
                    "`with` releases the block on exit",
                )
            if acquisition.returned:
                self._release(acquisition, self.source.location(node))
            else:
                self.release(acquisition.cb, acquisition.kind, node)

    # ----------------------------------------------------------------- expressions

    def evaluate(self, node: ast.expr) -> object:
        with self.located(node):
            value = self._evaluate(node)
            if isinstance(value, api.CircularBuffer):
                return self.local_cb(value)
            return value

    def local_cb(self, declaration: api.CircularBuffer) -> CBHandle:
        """The handle of a kernel-local CB the thread names (from the kernel function)."""
        if id(declaration) not in self.local_cb_handles:
            raise DSLError(
                f"{declaration!r} was not created by this kernel's function",
                "create kernel-local CBs in the kernel function whose threads use them",
            )
        position, handle = self.local_cb_handles[id(declaration)]
        self.kernel.used_local_cbs.add(position)
        return handle

    def _evaluate(self, node: ast.expr) -> object:
        match node:
            case ast.Constant(value=value):
                return value
            case ast.Name(id=name):
                return self.lookup(name)
            case ast.Tuple(elts=elements):
                return tuple(self.evaluate(e) for e in elements)
            case ast.List(elts=elements):
                return [self.evaluate(e) for e in elements]
            case ast.Attribute(value=receiver_node, attr=attribute):
                return self.attribute(self.evaluate(receiver_node), attribute)
            case ast.Call():
                return self.call(node)
            case ast.BinOp(left=left, op=op, right=right):
                spelling = _BINARY_SPELLINGS[type(op)]
                return self.binary(node, spelling, self.evaluate(left), self.evaluate(right))
            case ast.UnaryOp(op=op, operand=operand):
                return self.unary(op, self.evaluate(operand))
            case ast.Compare():
                return self.compare(node)
            case ast.BoolOp(op=op, values=values):
                return self.bool_op(op, values)
            case ast.IfExp(test=test, body=body, orelse=orelse):
                condition = self.evaluate(test)
                if is_runtime(condition):
                    raise DSLError("a conditional expression needs a compile-time condition")
                return self.evaluate(body if condition else orelse)
            case ast.Subscript(value=value, slice=index):
                return self.subscript(self.evaluate(value), index)
            case _:
                raise DSLError(f"`{ast.unparse(node)}` ({type(node).__name__}) is not supported in threads")

    def lookup(self, name: str) -> object:
        frame = self.frame
        if name in frame.scope:
            value = frame.scope[name]
            acquisition = value.acquisition if isinstance(value, Block) else None
            if acquisition and acquisition.ended:
                raise DSLError(
                    f"block `{name}` is used after {acquisition.cb.name}.{acquisition.releaser}() "
                    f"at line {acquisition.released_at.line} released it",
                    f"use the block before {acquisition.cb.name}.{acquisition.releaser}(); after "
                    "it the other thread owns the block",
                )
            return value
        if name in frame.region_locals:
            raise DSLError(
                f"`{name}` has no value here: it is assigned inside the loop or run-time branch "
                f"at line {frame.region_locals[name].line}",
                f"assign `{name}` before that statement so its value is carried out of it",
            )
        function = frame.source.function
        if name in function.__code__.co_freevars:
            cell = function.__closure__[function.__code__.co_freevars.index(name)]
            try:
                return cell.cell_contents
            except ValueError:
                raise DSLError(f"`{name}` is used before the kernel function assigns it") from None
        if name in function.__globals__:
            return function.__globals__[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise DSLError(f"name `{name}` is not defined")

    def attribute(self, receiver: object, attribute: str) -> object:
        if isinstance(receiver, Block) and attribute == "shape":
            return receiver.shape
        if is_runtime(receiver):
            methods = self._methods_of(receiver)
            if attribute in methods:
                raise DSLError(f"`{attribute}` is a method; call it: .{attribute}()")
            raise DSLError(
                f"{_describe(receiver)} has no attribute `{attribute}`",
                f"available: {', '.join(methods)}" if methods else None,
            )
        try:
            return getattr(receiver, attribute)
        except AttributeError:
            raise DSLError(f"{_describe(receiver)} has no attribute `{attribute}`") from None

    def subscript(self, receiver: object, index: ast.expr) -> object:
        if isinstance(receiver, api.TensorAccessor):
            return self.accessor_block(receiver, index)
        if isinstance(receiver, Block):
            return self.block_view(receiver, index)
        if is_runtime(receiver):
            raise DSLError(
                f"{_describe(receiver)} cannot be indexed",
                "index TensorAccessors (in tiles) to name blocks of a tensor in DRAM",
            )
        key = self.evaluate(index)
        if is_runtime(key):
            raise DSLError("only accessors take run-time indices")
        try:
            return receiver[key]
        except (TypeError, IndexError, KeyError) as error:
            raise DSLError(f"cannot index {_describe(receiver)} with {key!r}: {error}") from None

    def accessor_block(self, accessor: api.TensorAccessor, index: ast.expr) -> AccessorBlock:
        items = index.elts if isinstance(index, ast.Tuple) else [index]
        tensor = accessor.tensor
        if len(items) > tensor.rank:
            raise DSLError(
                f"`{tensor.name}` has {tensor.rank} dims, but is indexed with {len(items)} indices"
            )
        offsets: list[int | Index] = []
        extents: list[int | None] = []
        for dim, item in enumerate(items):
            if isinstance(item, ast.Slice):
                if item.step is not None:
                    raise self.source.error(item, "accessor slices take no step")
                start = 0 if item.lower is None else self.evaluate(item.lower)
                stop = tensor.tile_shape[dim] if item.upper is None else self.evaluate(item.upper)
                offsets.append(self._tile_index(start, item))
                stop = self._tile_index(stop, item)
                extents.append(
                    stop - start if isinstance(start, int) and isinstance(stop, int) else None
                )
            else:
                offsets.append(self._tile_index(self.evaluate(item), item))
                extents.append(None)
        for dim in range(len(items), tensor.rank):
            offsets.append(0)
            extents.append(tensor.tile_shape[dim])
        for dim, (offset, extent) in enumerate(zip(offsets, extents)):
            tiles = tensor.tile_shape[dim]
            if isinstance(offset, int) and (
                offset >= tiles or (extent is not None and offset + extent > tiles)
            ):
                raise DSLError(
                    f"index out of bounds: `{tensor.name}` has {tensor.tile_shape[dim]} tiles in dim "
                    f"{dim}, but the block starts at tile {offset}"
                    + (f" and spans {extent}" if extent is not None else ""),
                    "accessor indices count tiles (32x32), not elements",
                )
        return AccessorBlock(accessor, tuple(offsets), tuple(extents))

    def block_view(self, block: Block, index: ast.expr) -> Block:
        """`blk[:, a:b]`: tile rows a..b-1 (second-to-last dim) of a block from
        cb.wait(), the other dims whole, as a `d2m.block_view` (docs/dsl.md)."""
        self._require_compute("a view of a block (blk[:, a:b])")
        hint = "view tile rows of a block from cb.wait(): `blk[:, a:b]`, a and b compile-time tile counts"
        acquisition = block.acquisition
        if acquisition is None:
            raise DSLError("only blocks from cb.wait() can be viewed, not a computed value", hint)
        if acquisition.kind == "reserve":
            raise DSLError(
                f"only blocks from cb.wait() can be viewed, not a block from "
                f"{acquisition.cb.name}.reserve() (the packer writes whole blocks)", hint,
            )
        if acquisition.read_back:
            raise DSLError(
                f"only blocks from cb.wait() can be viewed, not the value this thread pushed to "
                f"{acquisition.cb.name} and took back (it is not read from the CB)", hint,
            )
        items = index.elts if isinstance(index, ast.Tuple) else [index]
        rank, row_dim = len(block.tile_shape), len(block.tile_shape) - 2
        if len(items) > rank:
            raise DSLError(f"the block has {rank} dims, but is indexed with {len(items)}", hint)
        start, stop = 0, block.tile_shape[row_dim]
        for dim, item in enumerate(items):
            extent = block.tile_shape[dim]
            if not isinstance(item, ast.Slice):
                raise self.source.error(
                    item, f"block views take slices, not the index `{ast.unparse(item)}`",
                    "one tile row r is the slice r:r+1; " + hint,
                )
            if item.step is not None and self.evaluate(item.step) != 1:
                raise self.source.error(item, "block views take no step", hint)
            bounds = [
                default if node is None else self.evaluate(node)
                for node, default in ((item.lower, 0), (item.upper, extent))
            ]
            if any(is_runtime(b) or not isinstance(b, int) or isinstance(b, bool) for b in bounds):
                raise self.source.error(
                    item, f"block view bounds must be compile-time ints, got `{ast.unparse(item)}`",
                    "a view is a fixed tile offset into the CB block; branch on a run-time value "
                    "instead (`for _ in range(n)` with n 0 or 1)",
                )
            if dim != row_dim:
                if bounds != [0, extent]:
                    raise self.source.error(
                        item, f"block views slice only the tile rows (dim {row_dim} of "
                        f"{_describe(block)}); dim {dim} must be whole (`:`)", hint,
                    )
                continue
            start, stop = bounds
            if not 0 <= start < stop <= extent:
                raise self.source.error(
                    item, f"tile rows {start}:{stop} are empty or outside the block's {extent} tile "
                    f"rows ({_describe(block)}: view bounds count tiles, not elements)",
                    f"use 0 <= a < b <= {extent}",
                )
        if (start, stop) == (0, block.tile_shape[row_dim]):
            return block
        offset = block.view_start or 0
        source = acquisition.ops[0].results[0]
        tiles = (*block.tile_shape[:row_dim], stop - start, block.tile_shape[-1])
        view_type = TensorType(block.tile_type, tiles)
        view = self.emit(d2m.BlockViewOp(source, offset + start, offset + stop, view_type))
        return Block(view.results[0], logical_shape(tiles), acquisition, view_start=offset + start)

    def _tile_index(self, value: object, node: ast.AST) -> int | Index:
        is_count = isinstance(value, int) and not isinstance(value, bool) and value >= 0
        if isinstance(value, Index) or is_count:
            return value
        raise self.source.error(node, f"a tile index must be a non-negative integer, not {_describe(value)}")

    def unary(self, op: ast.unaryop, operand: object) -> object:
        if not is_runtime(operand):
            return self._fold(_PYTHON_UNARY[type(op)], operand)
        if isinstance(op, ast.UAdd):
            return operand
        if isinstance(op, ast.USub) and isinstance(operand, Block):
            return self.block_method(operand, "neg", [], {})
        if isinstance(op, ast.USub) and isinstance(operand, Index):
            return Index(self.emit(arith.SubiOp(self.index(0), operand.value)).results[0])
        if isinstance(op, ast.Not) and isinstance(operand, Condition):
            true = self.emit(arith.ConstantOp(IntegerAttr(1, IntegerType(1)))).results[0]
            return Condition(self.emit(arith.XOrIOp(operand.value, true)).results[0])
        raise DSLError(f"unary `{ast.unparse(op)}` is not supported on {_describe(operand)}")

    def _fold(self, function: Callable[..., Any], *operands: object) -> object:
        try:
            return function(*operands)
        except Exception as error:
            raise DSLError(f"compile-time arithmetic failed: {type(error).__name__}: {error}") from None

    def binary(self, node: ast.AST, spelling: str, lhs: object, rhs: object) -> object:
        if not is_runtime(lhs) and not is_runtime(rhs):
            return self._fold(_PYTHON_BINARY[spelling], lhs, rhs)
        if isinstance(lhs, Block) or isinstance(rhs, Block):
            return self.block_binary(spelling, lhs, rhs)
        if isinstance(lhs, Index | int) and isinstance(rhs, Index | int):
            if spelling not in _INDEX_BINARY:
                hint = "use // for integer division" if spelling == "/" else None
                raise DSLError(f"operator {spelling} is not supported on run-time indices", hint)
            op = _INDEX_BINARY[spelling](self.index(lhs), self.index(rhs))
            return Index(self.emit(op).results[0])
        raise DSLError(f"operator {spelling} is not supported between {_describe(lhs)} and {_describe(rhs)}")

    def _require_compute(self, what: str) -> None:
        if not self.is_compute:
            raise DSLError(
                f"{what} belongs in a @compute() thread, not in data-movement thread {self.thread.name}",
                "data-movement threads move blocks with dma(); compute threads compute on them",
            )

    def block_binary(self, spelling: str, lhs: object, rhs: object) -> Block:
        self._require_compute(f"block operator {spelling}")
        if spelling == "@":
            if not (isinstance(lhs, Block) and isinstance(rhs, Block)):
                raise DSLError("@ (matmul) needs two blocks")
            return operators.matmul(self.emit, lhs, rhs)
        if spelling not in operators.BINARY_OPERATORS:
            raise DSLError(
                f"operator {spelling} is not supported on blocks",
                "blocks support + - * / @, maximum(a, b), where(c, a, b) and the methods "
                + ", ".join(_BLOCK_METHODS),
            )
        return operators.binary(self.emit, spelling, self._block_operand(lhs), self._block_operand(rhs))

    def _block_operand(self, value: object) -> operators.Operand:
        if isinstance(value, Block):
            return value
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        raise DSLError(
            f"blocks combine with blocks or compile-time numbers, not {_describe(value)}",
            "run-time indices cannot be used as scalars in block arithmetic",
        )

    def compare(self, node: ast.Compare) -> object:
        left = self.evaluate(node.left)
        if len(node.ops) > 1:
            values = [left, *(self.evaluate(c) for c in node.comparators)]
            if any(is_runtime(v) for v in values):
                raise DSLError("chained comparisons need compile-time values; split them with `and`")
            return all(
                self._fold(_COMPARISONS[type(op)][0], a, b) for op, a, b in zip(node.ops, values, values[1:])
            )
        right = self.evaluate(node.comparators[0])
        python, predicate = _COMPARISONS[type(node.ops[0])]
        if not is_runtime(left) and not is_runtime(right):
            return self._fold(python, left, right)
        if type(node.ops[0]) in (ast.Is, ast.IsNot) and None in (left, right):
            # A run-time value is never None: `mask is not None` on a block is a
            # compile-time True (helpers with optional block arguments).
            return python(left, right)
        if predicate and isinstance(left, Index | int) and isinstance(right, Index | int):
            comparison = arith.CmpiOp(self.index(left), self.index(right), predicate)
            return Condition(self.emit(comparison).results[0])
        raise DSLError(
            f"cannot compare {_describe(left)} with {_describe(right)}",
            "run-time comparisons are between integer indices",
        )

    def bool_op(self, op: ast.boolop, value_nodes: Sequence[ast.expr]) -> object:
        is_and = isinstance(op, ast.And)
        runtime: list[Condition] = []
        for value_node in value_nodes:
            value = self.evaluate(value_node)
            if isinstance(value, Condition):
                runtime.append(value)
            elif is_runtime(value):
                raise DSLError(f"`{'and' if is_and else 'or'}` takes conditions, not {_describe(value)}")
            elif bool(value) != is_and:
                return value  # short-circuits at compile time
        if not runtime:
            return is_and
        result = runtime[0].value
        for condition in runtime[1:]:
            combine = arith.AndIOp if is_and else arith.OrIOp
            result = self.emit(combine(result, condition.value)).results[0]
        return Condition(result)

    # ----------------------------------------------------------------------- calls

    def call(self, node: ast.Call) -> object:
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise DSLError("*args and **kwargs are not supported in threads")
        receiver = None
        if isinstance(node.func, ast.Attribute):
            receiver = self.evaluate(node.func.value)
        if is_runtime(receiver):
            assert isinstance(node.func, ast.Attribute)
            args = [self.evaluate(a) for a in node.args]
            kwargs = {k.arg: self.evaluate(k.value) for k in node.keywords}
            return self.method(receiver, node.func.attr, args, kwargs, node)
        callee = (
            self.attribute(receiver, node.func.attr)
            if isinstance(node.func, ast.Attribute)
            else self.evaluate(node.func)
        )
        args = [self.evaluate(a) for a in node.args]
        kwargs = {k.arg: self.evaluate(k.value) for k in node.keywords}
        intrinsic = _INTRINSICS.get(callee) if isinstance(callee, FunctionType) else None
        if intrinsic is not None:
            try:
                inspect.signature(callee).bind(*args, **kwargs)
            except TypeError as error:
                raise DSLError(
                    f"bad call to {callee.__name__}(): {error}",
                    f"{callee.__name__}{inspect.signature(callee)}",
                ) from None
            return intrinsic(self, node, *args, **kwargs)
        if callee is builtins.range:
            raise DSLError("range() can only be the iterable of a `for` loop")
        if callee is builtins.abs and len(args) == 1 and isinstance(args[0], Block):
            return self.block_method(args[0], "abs", [], {})
        if isinstance(callee, api.Thread):
            raise DSLError(f"thread {callee.name} cannot be called from a thread")
        if isinstance(callee, FunctionType):
            return self.inline(callee, args, kwargs)
        if any(is_runtime(v) for v in [*args, *kwargs.values()]):
            raise DSLError(
                f"`{ast.unparse(node.func)}` runs at compile time and cannot take run-time values"
            )
        if not callable(callee):
            raise DSLError(f"{_describe(callee)} is not callable")
        return self._fold(callee, *args, **kwargs)

    def inline(self, helper: FunctionType, args: Sequence[object], kwargs: dict[str, object]) -> object:
        """Compiles a call to a plain Python helper in place."""
        if len(self.frames) > MAX_INLINE_DEPTH:
            raise DSLError(f"helpers nest deeper than {MAX_INLINE_DEPTH} calls (recursion is not supported)")
        try:
            bound = inspect.signature(helper).bind(*args, **kwargs)
        except TypeError as error:
            raise DSLError(f"bad call to {helper.__name__}: {error}") from None
        bound.apply_defaults()
        source = parse_function(helper)
        self.frames.append(_Frame(source, dict(bound.arguments), depth=self.depth))
        try:
            self.statements(source.tree.body)
        except _Return as returned:
            return returned.value
        finally:
            self.frames.pop()
        return None

    def _methods_of(self, receiver: object) -> list[str]:
        if isinstance(receiver, Block):
            return _BLOCK_METHODS
        return sorted(_METHODS.get(type(receiver), {}))

    def method(self, receiver: object, name: str, args: list, kwargs: dict, node: ast.Call) -> object:
        if isinstance(receiver, Block):
            return self.block_method(receiver, name, args, kwargs)
        handler = _METHODS.get(type(receiver), {}).get(name)
        if handler is None:
            methods = self._methods_of(receiver)
            raise DSLError(
                f"{_describe(receiver)} has no method `{name}`",
                f"available: {', '.join(methods)}" if methods else None,
            )
        return handler(self, node, receiver, *args, **kwargs)

    def block_method(self, block: Block, name: str, args: list, kwargs: dict) -> object:
        if name == "store":
            if len(args) != 1 or kwargs:
                raise DSLError("store takes one block: blk.store(value)")
            return self.store(block, args[0])
        if name not in _BLOCK_METHODS:
            raise DSLError(
                f"blocks have no method `{name}`",
                f"block methods: {', '.join(_BLOCK_METHODS)}; functions: maximum, where, fill",
            )
        if args or kwargs:
            raise DSLError(f".{name}() takes no arguments")
        self._require_compute(f".{name}()")
        if name == "transpose":
            return operators.transpose(self.emit, block)
        if name in operators.REDUCTIONS:
            return operators.reduce(self.emit, name, block, self.reduce_scaler(block.tile_type))
        return operators.unary(self.emit, name, block)

    def store(self, destination: Block, value: object) -> None:
        self._require_compute("blk.store(...)")
        acquisition = destination.acquisition
        if acquisition is None or acquisition.kind != "reserve":
            origin = (
                f"comes from {acquisition.cb.name}.wait() at line {acquisition.location.line}"
                if acquisition
                else "is a computed value"
            )
            raise DSLError(
                f"store needs a block from cb.reserve(), but this block {origin}",
                "reserve an output block first: `o = out_cb.reserve(); o.store(value); out_cb.push()`",
            )
        if not isinstance(value, Block):
            raise DSLError(
                f"store takes a block, not {_describe(value)}", "use fill(value, shape) for constants"
            )
        if value.tile_shape != destination.tile_shape:
            raise DSLError(
                f"shape mismatch: cannot store {_describe(value)} into "
                f"{_describe(destination)} of {acquisition.cb.name}",
                "the CB block shape comes from block_factors",
            )
        if value.tile_type != destination.tile_type:
            raise DSLError(f"cannot store {value.tile_type} tiles into a block of {destination.tile_type}")
        acquisition.ops.append(self.emit(d2m.StoreOp(destination.value, value.value)))
        acquisition.stored = value

    # ------------------------------------------------------------------- CB ops

    def acquire(self, node: ast.Call, cb: CBHandle, kind: str) -> Block:
        cb_type = cb.value.type
        assert isinstance(cb_type, d2m.CBType)
        # Compute threads see blocks as tensors (values); data movement as the L1 buffer.
        result_type = cb_type.block
        if self.is_compute:  # the tiles as the unpacker hands them to compute
            result_type = TensorType(cb_type.block.get_element_type().unpacked(), cb.block_tile_shape)
        acquisition = Acquisition(cb, kind, self.source.location(node), self.depth)
        self.outstanding.append(acquisition)
        shape = logical_shape(cb.block_tile_shape)
        # A wait takes the oldest of this thread's own pushes back, or (when it cannot)
        # the CB's front; either way the pushes before it are no longer read back.
        own_pushes = self.own_pushes.pop(cb.value, []) if kind == "wait" else []
        if own_pushes and self._can_read_back(own_pushes[0]):
            sent = own_pushes.pop(0)
            self.own_pushes[cb.value] = own_pushes
            reserve, *sent_ops = sent.ops
            for op in reversed(sent_ops):
                op.detach()
                op.erase()
            value = sent.stored.value
            sent.ops, sent.stored, sent.released_at, sent.returned = [reserve], None, None, True
            self.outstanding.insert(0, sent)  # the oldest reserve of its CB again
            acquisition.read_back = True
            return Block(value, shape, acquisition)
        op_class = d2m.WaitOp if kind == "wait" else d2m.ReserveOp
        op = self.emit(op_class(cb.value, result_type))
        acquisition.ops.append(op)
        return Block(op.results[0], shape, acquisition)

    def _can_read_back(self, sent: Acquisition) -> bool:
        """Whether a wait() can take the value of this thread's push `sent` without CB
        traffic: a computed value was stored into the pushed block, right here (not in a
        nested loop or branch), the block was used for nothing else, and the CB keeps
        tiles as computed (a bfp8_b CB rounds them: that value comes through the CB)."""
        reserve, *rest = sent.ops
        if sent.stored is None or sent.stored.acquisition is not None:
            return False  # nothing stored, or a copy of another CB's block (freed by its pop)
        cb_type = sent.cb.value.type
        assert isinstance(cb_type, d2m.CBType)
        tile = cb_type.block.get_element_type()
        if tile.unpacked() != tile:
            return False
        if any(op.parent_block() is not reserve.parent_block() for op in rest):
            return False
        return all(use.operation in rest for use in reserve.results[0].uses)

    def release(self, cb: CBHandle, kind: str, node: ast.AST) -> None:
        releaser = "pop" if kind == "wait" else "push"
        pending = [a for a in self.outstanding if a.cb is cb and a.kind == kind and not a.dropped]
        if not pending:
            raise DSLError(
                f"{cb.name}.{releaser}() has no {cb.name}.{kind}() to release",
                f"{releaser}() ends the block a {kind}() started",
            )
        oldest = pending[0]
        if oldest.depth != self.depth:
            raise DSLError(
                f"{cb.name}.{releaser}() releases the block of {cb.name}.{kind}() at line "
                f"{oldest.location.line}, outside this loop or branch",
                f"keep {kind}() and {releaser}() in the same loop body or branch",
            )
        self._release(oldest, self.source.location(node))

    def _release(self, acquisition: Acquisition, location: SourceLocation) -> None:
        """Ends `acquisition` (its pop or push) at the insertion point."""
        acquisition.released_at = location
        self.outstanding.remove(acquisition)
        if acquisition.read_back:
            return  # the block never went through the CB
        if acquisition.dropped:
            (reserve,) = acquisition.ops  # a reserve read back and not stored into again
            reserve.detach()
            reserve.erase()
            return
        self.settle_transfers(acquisition)
        cb = acquisition.cb
        if acquisition.kind == "wait":
            self.emit(d2m.PopOp(cb.value))
            return
        acquisition.ops.append(self.emit(d2m.PushOp(cb.value)))
        if self.is_compute:
            self.own_pushes.setdefault(cb.value, []).append(acquisition)

    # -------------------------------------------------------------- data movement

    def transfer_wait(self, node: ast.Call, transfer: Transfer) -> None:
        self.in_flight = [t for t in self.in_flight if t.transfer != transfer]
        self.emit(d2m.DMAWaitOp(transfer.value))

    def settle_transfers(self, acquisition: Acquisition) -> None:
        """Before a block is pushed or popped, every transfer on it must be complete: the
        NoC is still writing (or reading) a block while its transfer is in flight, and a
        pushed block is read by the consumer, a popped one refilled by the producer. A
        transfer issued at this nesting level gets the wait the author left out; one
        issued in a loop or branch that has ended cannot be waited any more."""
        for pending in [t for t in self.in_flight if acquisition in t.acquisitions]:
            if pending.depth != self.depth:
                raise KernelError(
                    f"the transfer started at line {pending.location.line} on the block of "
                    f"{acquisition.cb.name}.{acquisition.kind}() is never waited, and the block "
                    f"is {'pushed' if acquisition.kind == 'reserve' else 'popped'} while the "
                    "NoC may still be moving it",
                    pending.location,
                    "call .wait() on the transfer in the loop or branch that starts it: "
                    "`dma(src, dst).wait()`",
                )
            self.emit(d2m.DMAWaitOp(pending.transfer.value))
            self.in_flight.remove(pending)

    def dma(
        self, node: ast.Call, src: object, dst: object, core: object = None, mcast: object = None
    ) -> Transfer:
        if self.is_compute:
            raise DSLError(
                "dma() belongs in a @datamovement() thread",
                "compute threads get their blocks from cb.wait() and hand results on with cb.push()",
            )
        for side in (src, dst):
            if isinstance(side, Block):
                self._check_cb_block(side)
        self._check_direction(src, dst)
        if (core is None) != (mcast is None):
            raise DSLError("a multicast dma needs both core=(row, col) and mcast=(rows, cols)")
        if core is not None:
            if not (isinstance(src, Block) and isinstance(dst, Block)):
                raise DSLError("a multicast dma copies a CB block to a CB block on other cores")
            corner, extent = self._core_pair(core, "core"), self._core_pair(mcast, "mcast")
            op = d2m.DMAMulticastOp(src.value, dst.value, corner, extent)
        elif isinstance(src, AccessorBlock) and isinstance(dst, Block):
            op = d2m.DMAReadOp(self._dram(src), self._offsets(src, dst), dst.value)
        elif isinstance(src, Block) and isinstance(dst, AccessorBlock):
            op = d2m.DMAWriteOp(src.value, self._dram(dst), self._offsets(dst, src))
        else:
            raise DSLError(
                f"dma copies between an accessor block and a CB block, but got {_describe(src)} "
                f"and {_describe(dst)}",
                "dma(acc[i, j], cb_block) reads from DRAM; dma(cb_block, acc[i, j]) writes to it",
            )
        transfer = Transfer(self.emit(op).results[0])
        blocks = [side.acquisition for side in (src, dst) if isinstance(side, Block)]
        self.in_flight.append(_InFlight(transfer, blocks, self.depth, self.source.location(node)))
        return transfer

    def fill_causal_mask(self, node: ast.Call, block: object, row: object, col: object) -> None:
        if self.is_compute:
            raise DSLError(
                "fill_causal_mask() belongs in a @datamovement() thread",
                "fill a reserved block there and push it; the compute thread adds it to the scores",
            )
        if not isinstance(block, Block) or block.acquisition is None or block.acquisition.kind != "reserve":
            raise DSLError(
                f"fill_causal_mask fills a CB block taken with cb.reserve(), but got {_describe(block)}",
                "`with mask_cb.reserve() as blk: fill_causal_mask(blk, row, col)`",
            )
        self.emit(d2m.FillCausalMaskOp(block.value, self.index(row), self.index(col)))

    def _check_cb_block(self, block: Block) -> None:
        if block.acquisition is None:
            raise DSLError("dma moves CB blocks (from cb.reserve() or cb.wait())")

    def _check_direction(self, src: object, dst: object) -> None:
        """Rejects the two transfers that run but corrupt a result: writing into an input
        tensor, and reading DRAM into a block the consumer is still reading."""
        if isinstance(src, Block) and isinstance(dst, AccessorBlock) and not dst.accessor.tensor.is_output:
            name = dst.accessor.tensor.name
            raise DSLError(
                f"dma writes into `{name}`, an input tensor of the kernel",
                f"to read `{name}` into the block, put the accessor first: "
                f"`dma({name}_acc[...], blk)`; only the last num_outs tensors are outputs",
            )
        if isinstance(src, AccessorBlock) and isinstance(dst, Block) and dst.acquisition.kind == "wait":
            cb = dst.acquisition.cb.name
            raise DSLError(
                f"dma reads `{src.accessor.tensor.name}` into a block taken with {cb}.wait(), "
                "which holds data a producer pushed",
                f"to write that block to DRAM, put the block first: `dma(blk, acc[...])`; to fill "
                f"a block, take it with `{cb}.reserve()` and push it",
            )

    def _core_pair(self, value: object, name: str) -> list[SSAValue]:
        if not isinstance(value, tuple | list) or len(value) != 2:
            raise DSLError(f"{name}= takes two integers (row, col), but got {_describe(value)}")
        return [self.index(v) for v in value]

    def _dram(self, block: AccessorBlock) -> SSAValue:
        return self.kernel.dram_operands[block.accessor.tensor.index]

    def _offsets(self, accessor_block: AccessorBlock, cb_block: Block) -> list[SSAValue]:
        tensor = accessor_block.accessor.tensor
        block_tiles = cb_block.tile_shape
        sides = zip(accessor_block.offsets, accessor_block.extents, block_tiles)
        for dim, (offset, extent, tiles) in enumerate(sides):
            if extent is not None and extent != tiles:
                raise DSLError(
                    f"shape mismatch: the accessor slice spans {extent} tiles in dim {dim}, but the CB "
                    f"block has {tiles}",
                    "the CB block shape (block_factors) decides how many tiles a dma moves",
                )
            if isinstance(offset, int) and offset + tiles > tensor.tile_shape[dim]:
                raise DSLError(
                    f"index out of bounds: a block of {tiles} tiles at tile {offset} of dim {dim} "
                    f"overruns `{tensor.name}` ({tensor.tile_shape[dim]} tiles)",
                    "accessor indices count tiles (32x32), not elements",
                )
        return [self.index(offset) for offset in accessor_block.offsets]

    # ---------------------------------------------------------------- semaphores

    def semaphore_set(
        self, node: ast.Call, semaphore: SemaphoreHandle, value: object, core=None, mcast=None
    ) -> None:
        amount = self.index(value)
        core_values = [] if core is None else self._core_pair(core, "core")
        mcast_values = [] if mcast is None else self._core_pair(mcast, "mcast")
        self.emit(d2m.SemaphoreSetOp(operands=[semaphore.value, amount, core_values, mcast_values]))

    def semaphore_inc(self, node: ast.Call, semaphore: SemaphoreHandle, value: object, core=None) -> None:
        amount = self.index(value)
        core_values = [] if core is None else self._core_pair(core, "core")
        self.emit(d2m.SemaphoreIncOp(operands=[semaphore.value, amount, core_values]))

    def semaphore_wait(self, node: ast.Call, semaphore: SemaphoreHandle, value: object, reset=None) -> None:
        expected = self.index(value)
        reset_values = [] if reset is None else [self.index(reset)]
        self.emit(d2m.SemaphoreWaitOp(operands=[semaphore.value, expected, reset_values]))

    # ----------------------------------------------------------------- intrinsics

    def default_tile_type(self) -> TileType:
        return self.kernel.tile_types[0].unpacked()

    def fill(self, node: ast.Call, value: object, shape: object) -> Block:
        self._require_compute("fill()")
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise DSLError(f"fill value must be a compile-time number, not {_describe(value)}")
        if not isinstance(shape, tuple | list):
            raise DSLError(f"a block shape is a tuple (rows, cols), not {_describe(shape)}")
        return operators.fill(self.emit, float(value), tuple(shape), self.default_tile_type())

    def full(self, node: ast.Call, shape: object, value: object) -> Block:
        return self.fill(node, value, shape)

    def zeros(self, node: ast.Call, shape: object) -> Block:
        return self.fill(node, 0.0, shape)

    def maximum(self, node: ast.Call, lhs: object, rhs: object) -> Block:
        if not isinstance(lhs, Block) and not isinstance(rhs, Block):
            raise DSLError("maximum() needs at least one block (use max() for numbers)")
        return self.block_binary("maximum", lhs, rhs)

    def reduce_function(
        self, node: ast.Call, pool: str, block: object, scaler: object, dim: object = 1
    ) -> Block:
        """tt-lang's reduce_sum/reduce_max(block, scaler, dim): the row (dim=1) or column
        (dim=0) reduction of `block * scaler[0, 0]`, in the block's shape."""
        name = f"reduce_{pool}"
        self._require_compute(f"{name}()")
        if not isinstance(block, Block) or not isinstance(scaler, Block):
            raise DSLError(
                f"{name}(block, scaler, dim) takes two blocks, not {_describe(block)} and "
                f"{_describe(scaler)}",
                "the scaler is a block whose element [0][0] scales the input (a tile of ones "
                "for a plain reduction)",
            )
        if dim not in (0, 1) or isinstance(dim, bool):
            raise DSLError(
                f"{name}(..., dim={dim!r}): dim is 1 (reduce each row, sums in column 0) "
                "or 0 (reduce each column, sums in row 0)"
            )
        operators.check_tile_aligned(f"the scaler of {name}()", scaler.shape)
        operators.common_tile_type(name, [block, scaler])
        method = ("row" if dim == 1 else "col") + pool
        reduced = operators.reduce(self.emit, method, block, scaler, f"{name}(..., dim={dim})")
        axis = -1 if dim == 1 else -2
        if block.shape[axis] > TILE:
            return operators.replicate_tiles(self.emit, reduced, block.shape)
        return Block(reduced.value, block.shape)

    def bcast(self, node: ast.Call, block: object, dim: object = 1) -> Block:
        self._require_compute("bcast()")
        if not isinstance(block, Block):
            raise DSLError(f"bcast() takes a block, not {_describe(block)}")
        if dim not in (0, 1) or isinstance(dim, bool):
            raise DSLError(
                f"bcast(..., dim={dim!r}): dim is 1 (column 0 across the tile) or 0 (row 0 "
                "down the tile)"
            )
        return operators.bcast(self.emit, block, d2m.TileDim.COL if dim == 1 else d2m.TileDim.ROW)

    def where(self, node: ast.Call, condition: object, if_true: object, if_false: object) -> Block:
        self._require_compute("where()")
        if not isinstance(condition, Block):
            raise DSLError(f"where() takes a block as its condition, not {_describe(condition)}")
        return operators.where(
            self.emit, condition, self._block_operand(if_true), self._block_operand(if_false)
        )

    def tril(self, node: ast.Call, block: object, diagonal: object = 0, value: object = 0.0) -> Block:
        self._require_compute("tril()")
        if not isinstance(block, Block):
            raise DSLError(f"tril() takes a block, not {_describe(block)}")
        if len(block.shape) < 2:
            raise DSLError(
                f"tril() masks a block's last two dims (rows, cols), but got a block of shape "
                f"{operators.format_shape(block.shape)}"
            )
        operators.check_tile_aligned("tril()", block.shape)
        if not isinstance(diagonal, int) or isinstance(diagonal, bool) or diagonal % TILE:
            raise DSLError(
                f"tril(..., diagonal={_describe(diagonal)}): the diagonal is a compile-time "
                f"int, a multiple of {TILE} (elements: whole tiles)",
                "a diagonal that differs at run time is a run-time branch between trils "
                "(`for _ in range(n)`, n 0 or 1)",
            )
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise DSLError(f"tril(..., value={_describe(value)}): the value is a compile-time number")
        if block.tile_type.element_format != DataType.BF16:
            raise DSLError(
                f"tril() masks bf16 blocks (its mask tiles are bf16), but got {block.tile_type}"
            )
        return operators.tril(self.emit, block, diagonal // TILE, float(value))


def _grid_query(op_class: type[Operation], name: str):
    """The intrinsic handler of core_index / grid_size."""

    def handler(self: ThreadCompiler, node: ast.Call, dim: object) -> Index:
        if not isinstance(dim, int) or isinstance(dim, bool) or dim not in (0, 1):
            raise DSLError(f"{name}(dim) takes 0 (rows) or 1 (columns), not {_describe(dim)}")
        return Index(self.emit(op_class(dim)).results[0])

    return handler


def _block_index(self: ThreadCompiler, node: ast.Call, dim: object, n: object) -> Index:
    """The intrinsic handler of block_index(dim, n)."""
    if not isinstance(dim, int) or isinstance(dim, bool) or dim < 0:
        raise DSLError(f"block_index(dim, n) takes a loop dim (an int >= 0), not {_describe(dim)}")
    return Index(self.emit(d2m.BlockIndexOp(dim, self.index(n))).results[0])


def _block_function(name: str):
    """The intrinsic handler of a block method's free-function spelling (`exp(x)`)."""

    def handler(self: ThreadCompiler, node: ast.Call, block: object, *args, **kwargs) -> object:
        if not isinstance(block, Block):
            raise DSLError(f"{name}() takes a block, not {_describe(block)}")
        return self.block_method(block, name, list(args), kwargs)

    return handler


def _reduce_function(pool: str):
    """The intrinsic handler of reduce_sum / reduce_max."""

    def handler(self: ThreadCompiler, node: ast.Call, *args, **kwargs) -> Block:
        return self.reduce_function(node, pool, *args, **kwargs)

    return handler


def _cb_method(kind: str, release: bool):
    """The method handler of cb.wait/reserve (acquire) and cb.pop/push (release)."""
    spelling = ("pop" if kind == "wait" else "push") if release else kind

    def handler(self: ThreadCompiler, node: ast.Call, cb: CBHandle, *args, **kwargs):
        if args or kwargs:
            raise DSLError(f"{cb.name}.{spelling}() takes no arguments")
        if release:
            return self.release(cb, kind, node)
        return self.acquire(node, cb, kind)

    return handler


_INTRINSICS: dict[FunctionType, Callable[..., object]] = {
    api.dma: ThreadCompiler.dma,
    api.fill_causal_mask: ThreadCompiler.fill_causal_mask,
    api.core_index: _grid_query(d2m.CoreIndexOp, "core_index"),
    api.grid_size: _grid_query(d2m.GridSizeOp, "grid_size"),
    api.block_index: _block_index,
    api.fill: ThreadCompiler.fill,
    api.full: ThreadCompiler.full,
    api.zeros: ThreadCompiler.zeros,
    api.maximum: ThreadCompiler.maximum,
    api.where: ThreadCompiler.where,
    api.tril: ThreadCompiler.tril,
    api.reduce_sum: _reduce_function("sum"),
    api.reduce_max: _reduce_function("max"),
    api.bcast: ThreadCompiler.bcast,
    **{function: _block_function(function.__name__) for function in api.BLOCK_FUNCTIONS},
}

_METHODS: dict[type, dict[str, Callable[..., object]]] = {
    CBHandle: {
        "wait": _cb_method("wait", release=False),
        "pop": _cb_method("wait", release=True),
        "reserve": _cb_method("reserve", release=False),
        "push": _cb_method("reserve", release=True),
    },
    Transfer: {"wait": ThreadCompiler.transfer_wait},
    SemaphoreHandle: {
        "set": ThreadCompiler.semaphore_set,
        "inc": ThreadCompiler.semaphore_inc,
        "wait": ThreadCompiler.semaphore_wait,
    },
}
