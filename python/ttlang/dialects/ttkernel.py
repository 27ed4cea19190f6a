"""The ttkernel dialect: one op per call of the Tensix kernel API (docs/kernel_api.md).

A kernel is a `func.func` without arguments or results, marked with the thread that
runs it: `attributes {ttkernel.thread = #ttkernel.thread<compute>}` (or `reader`,
`writer`). Its body is ttkernel ops plus `arith` and `scf` for index arithmetic and
loops. Every integer the kernel API takes (CB ids, tile counts, tile and DST indices,
L1 addresses, sizes) is an `i32`, tt-metal's `uint32_t`; NoC addresses are `i64`.
CB ids come from `ttkernel.get_compile_time_arg_val` so that the program descriptor
assigns them.

    func.func @add_compute() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
      %lhs_cb = ttkernel.get_compile_time_arg_val(0)
      ...
      ttkernel.cb_wait_front(%lhs_cb, %c1)
      ttkernel.tile_regs_acquire()
      ttkernel.add_tiles(%lhs_cb, %rhs_cb, %c0, %c0, %c0)
      ...

The custom syntax mirrors the C++ call. Each op knows what `convert-ttkernel-to-emitc`
needs to emit it as tt-metal 0.81.1's kernel API spells the call: the callee (the op
name without the `ttkernel.` prefix unless the release renamed it), template arguments,
the operands the call takes, and, in a compute kernel, the header that declares it
(data-movement kernels include `api/dataflow/dataflow_api.h` only). Ops verify that
they run on a thread that offers them and that constant CB ids, tile counts and DST indices are in range.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    I32,
    I64,
    Float32Type,
    IntegerAttr,
    StringAttr,
    UnitAttr,
    i32,
    i64,
)
from xdsl.dialects.emitc import EmitC_OpaqueAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Dialect,
    Operation,
    ParametrizedAttribute,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    param_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from ttlang.dialects.ttcore import (
    BracketedEnumSyntax, DataType, DataTypeAttr, MemorySpace, constant_int, device_of,
)

THREAD_ATTR = "ttkernel.thread"
"""The name of the function attribute holding a kernel's `ThreadAttr`."""


# --------------------------------------------------------------------------- attributes


class Thread(StrEnum):
    """The kernel thread kinds of a Tensix core."""

    COMPUTE = "compute"
    READER = "reader"
    WRITER = "writer"

    @property
    def is_compute(self) -> bool:
        return self is Thread.COMPUTE


@irdl_attr_definition
class ThreadAttr(BracketedEnumSyntax, EnumAttribute[Thread]):
    """Which thread runs a kernel function: `#ttkernel.thread<compute|reader|writer>`."""

    name = "ttkernel.thread"


class PoolType(StrEnum):
    """What a reduction computes (tt-metal's `PoolType`)."""

    SUM = "sum"
    MAX = "max"


@irdl_attr_definition
class PoolTypeAttr(SpacedOpaqueSyntaxAttribute, EnumAttribute[PoolType]):
    """`#ttkernel<pool_type sum|max>`; in an op's custom syntax just `sum`."""

    name = "ttkernel.pool_type"


class ReduceDim(StrEnum):
    """Which dimension of a tile a reduction collapses (tt-metal's `ReduceDim`).

    `row` reduces along each row (the result is a column), `col` along each column,
    `scalar` over the whole tile."""

    ROW = "row"
    COL = "col"
    SCALAR = "scalar"


@irdl_attr_definition
class ReduceDimAttr(SpacedOpaqueSyntaxAttribute, EnumAttribute[ReduceDim]):
    """`#ttkernel<reduce_dim row|col|scalar>`."""

    name = "ttkernel.reduce_dim"


class BroadcastType(StrEnum):
    """How the second operand of a broadcast op is spread (tt-metal's `BroadcastType`).

    `row` repeats the tile's first row down the tile, `col` repeats its first column
    across, `scalar` repeats element [0, 0]."""

    ROW = "row"
    COL = "col"
    SCALAR = "scalar"


@irdl_attr_definition
class BroadcastTypeAttr(SpacedOpaqueSyntaxAttribute, EnumAttribute[BroadcastType]):
    """`#ttkernel<bcast row|col|scalar>`."""

    name = "ttkernel.bcast"


class BinaryOp(StrEnum):
    """The FPU binary operations (tt-metal's `EltwiseBinaryType`)."""

    ADD = "add"
    SUB = "sub"
    MUL = "mul"


@irdl_attr_definition
class BinaryOpAttr(SpacedOpaqueSyntaxAttribute, EnumAttribute[BinaryOp]):
    """`#ttkernel<binary_op add|sub|mul>`."""

    name = "ttkernel.binary_op"


class ReuseDest(StrEnum):
    """Which FPU source register the DST tile is moved to by binary_dest_reuse_tiles
    (tt-metal's `EltwiseBinaryReuseDestType`): `srca` makes DST the left operand."""

    SRCA = "srca"
    SRCB = "srcb"


@irdl_attr_definition
class ReuseDestAttr(SpacedOpaqueSyntaxAttribute, EnumAttribute[ReuseDest]):
    """`#ttkernel<reuse_dest srca|srcb>`."""

    name = "ttkernel.reuse_dest"


# The C++ spellings of the enum values, as tt-metal's headers declare them.
_CPP_POOL_TYPE = {PoolType.SUM: "PoolType::SUM", PoolType.MAX: "PoolType::MAX"}
_CPP_REDUCE_DIM = {
    ReduceDim.ROW: "ReduceDim::REDUCE_ROW",
    ReduceDim.COL: "ReduceDim::REDUCE_COL",
    ReduceDim.SCALAR: "ReduceDim::REDUCE_SCALAR",
}
_CPP_BROADCAST = {
    BroadcastType.ROW: "BroadcastType::ROW",
    BroadcastType.COL: "BroadcastType::COL",
    BroadcastType.SCALAR: "BroadcastType::SCALAR",
}
_CPP_BINARY_OP = {
    BinaryOp.ADD: "EltwiseBinaryType::ELWADD",
    BinaryOp.SUB: "EltwiseBinaryType::ELWSUB",
    BinaryOp.MUL: "EltwiseBinaryType::ELWMUL",
}
_CPP_REUSE_DEST = {
    ReuseDest.SRCA: "EltwiseBinaryReuseDestType::DEST_TO_SRCA",
    ReuseDest.SRCB: "EltwiseBinaryReuseDestType::DEST_TO_SRCB",
}
CPP_DATA_FORMAT = {
    DataType.BF16: "DataFormat::Float16_b",
    DataType.F32: "DataFormat::Float32",
    DataType.BFP8_B: "DataFormat::Bfp8_b",
}
"""tt-metal's `DataFormat` enumerator for each ttcore data type."""


@irdl_attr_definition
class InterleavedAddrGenFastType(ParametrizedAttribute, TypeAttribute):
    """An address generator over an interleaved buffer of tile pages in DRAM or L1
    (tt-metal's `InterleavedAddrGenFast<is_dram>`):
    `!ttkernel.interleaved_addr_gen_fast<dram>`."""

    name = "ttkernel.interleaved_addr_gen_fast"

    memory: StringAttr = param_def(StringAttr)

    def __init__(self, memory: MemorySpace):
        super().__init__(StringAttr(memory.value))

    @property
    def is_dram(self) -> bool:
        return self.memory.data == MemorySpace.DRAM.value

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (StringAttr(parser.parse_str_enum(MemorySpace).value),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.memory.data)

    def verify(self) -> None:
        if self.memory.data not in (MemorySpace.DRAM.value, MemorySpace.L1.value):
            raise VerifyException(
                f"an interleaved buffer lives in dram or l1, not '{self.memory.data}'"
            )


# --------------------------------------------------------------------------- helpers


def kernel_thread(op: Operation) -> Thread | None:
    """The thread of the kernel function enclosing `op`, if it is marked."""
    kernel = op if isinstance(op, func.FuncOp) else op.parent_op()
    while kernel is not None and not isinstance(kernel, func.FuncOp):
        kernel = kernel.parent_op()
    if kernel is None:
        return None
    attr = kernel.attributes.get(THREAD_ATTR)
    return attr.data if isinstance(attr, ThreadAttr) else None


def _is_cb_operand(name: str) -> bool:
    return name == "cb" or name.endswith("_cb")


def _is_dst_operand(name: str) -> bool:
    return name in ("dst", "dst0", "dst1", "dst2", "odst", "dst_in", "dst_out")


# --------------------------------------------------------------------------- op bases


class TTKernelOp(IRDLOperation):
    """Base of every ttkernel op: how it is emitted and where it may run.

    - `COMPUTE_HEADER`: the header declaring the call in a compute kernel (None for
      data-movement-only ops, which `api/dataflow/dataflow_api.h` declares);
    - `CALLEE`: the C++ function, when it is not the op name (tt-metal renamed it);
    - `cpp_operands()`: the operands the call takes, in its order (all of them unless
      the release moved one elsewhere);
    - `THREADS`: `compute`, `datamovement` or `any`;
    - `cpp_template_args()` / `cpp_literal_args()` / `cpp_trailing_literal_args()`:
      template arguments, leading and trailing literal arguments of the call, as C++
      text / attributes;
    - `CPP_DEFINITION`: the C++ definition of the callee when tt-metal has none, put in
      the kernel's source before kernel_main.
    """

    COMPUTE_HEADER: ClassVar[str | None] = None
    CALLEE: ClassVar[str | None] = None
    CPP_DEFINITION: ClassVar[str | None] = None
    THREADS: ClassVar[str] = "compute"

    @property
    def callee(self) -> str:
        """The C++ function this op calls."""
        return self.CALLEE or self.name.removeprefix("ttkernel.")

    def cpp_operands(self) -> Sequence[SSAValue]:
        return self.operands

    def cpp_template_args(self) -> tuple[str, ...]:
        return ()

    def cpp_literal_args(self) -> tuple[Attribute, ...]:
        return ()

    def cpp_trailing_literal_args(self) -> tuple[Attribute, ...]:
        return ()

    def verify_(self) -> None:
        thread = kernel_thread(self)
        if thread is not None and self.THREADS != "any":
            if self.THREADS == "compute" and not thread.is_compute:
                raise VerifyException(f"a compute op cannot run in a {thread.value} kernel")
            if self.THREADS == "datamovement" and thread.is_compute:
                raise VerifyException("a data-movement op cannot run in a compute kernel")
        device = device_of(self)
        for name, _ in type(self).get_irdl_definition().operands:
            operand = getattr(self, name)
            value = constant_int(operand) if isinstance(operand, SSAValue) else None
            if value is None:
                continue
            if _is_cb_operand(name) and not 0 <= value < device.max_cbs.data:
                raise VerifyException(
                    f"CB id {value} of '{name}' is out of range [0, {device.max_cbs.data})"
                )
            if name == "num_tiles" and value <= 0:
                raise VerifyException(f"num_tiles must be positive, got {value}")
            # the largest DST section of any configuration: 16-bit data, full sync
            if _is_dst_operand(name) and not 0 <= value < device.dst_tiles_16bit.data:
                raise VerifyException(
                    f"DST index {value} of '{name}' is out of range [0, {device.dst_tiles_16bit.data})"
                )
            if name == "num_dests" and value <= 0:
                raise VerifyException(f"num_dests must be positive, got {value}")


class _NoOperandOp(TTKernelOp):
    assembly_format = "`(` `)` attr-dict"

    def __init__(self):
        super().__init__()


def _i32_operands_op(names: Sequence[str]) -> str:
    """An assembly format `(%a, %b, ...)` for ops whose operands are all i32."""
    return "`(` " + " `,` ".join(f"${n}" for n in names) + " `)` attr-dict"


class _CBTilesOp(TTKernelOp):
    cb = operand_def(I32)
    num_tiles = operand_def(I32)
    THREADS: ClassVar[str] = "any"
    COMPUTE_HEADER: ClassVar[str | None] = "api/compute/cb_api.h"
    assembly_format = _i32_operands_op(["cb", "num_tiles"])

    def __init__(self, cb: SSAValue, num_tiles: SSAValue):
        super().__init__(operands=[cb, num_tiles])


class _CBQueryOp(TTKernelOp):
    cb = operand_def(I32)
    result = result_def(I32)
    THREADS: ClassVar[str] = "datamovement"
    assembly_format = _i32_operands_op(["cb"])

    def __init__(self, cb: SSAValue):
        super().__init__(operands=[cb], result_types=[i32])


class _InOutInitOp(TTKernelOp):
    """An init taking the input and the output CB."""

    in_cb = operand_def(I32)
    out_cb = operand_def(I32)
    assembly_format = _i32_operands_op(["in_cb", "out_cb"])

    def __init__(self, in_cb: SSAValue, out_cb: SSAValue):
        super().__init__(operands=[in_cb, out_cb])


class _BinaryInitOp(TTKernelOp):
    """An init taking the two input CBs and the output CB."""

    in0_cb = operand_def(I32)
    in1_cb = operand_def(I32)
    out_cb = operand_def(I32)
    assembly_format = _i32_operands_op(["in0_cb", "in1_cb", "out_cb"])

    def __init__(self, in0_cb: SSAValue, in1_cb: SSAValue, out_cb: SSAValue):
        super().__init__(operands=[in0_cb, in1_cb, out_cb])


class _BinaryShortInitOp(TTKernelOp):
    """A short init (after a common init) taking the two input CBs."""

    in0_cb = operand_def(I32)
    in1_cb = operand_def(I32)
    assembly_format = _i32_operands_op(["in0_cb", "in1_cb"])

    def __init__(self, in0_cb: SSAValue, in1_cb: SSAValue):
        super().__init__(operands=[in0_cb, in1_cb])


class _BinaryTilesOp(TTKernelOp):
    """A binary op of tile `in0_tile` of `in0_cb` and `in1_tile` of `in1_cb` into DST
    slot `dst` (tile indices count from the CB's front)."""

    in0_cb = operand_def(I32)
    in1_cb = operand_def(I32)
    in0_tile = operand_def(I32)
    in1_tile = operand_def(I32)
    dst = operand_def(I32)
    assembly_format = _i32_operands_op(["in0_cb", "in1_cb", "in0_tile", "in1_tile", "dst"])

    def __init__(
        self,
        in0_cb: SSAValue,
        in1_cb: SSAValue,
        in0_tile: SSAValue,
        in1_tile: SSAValue,
        dst: SSAValue,
        properties: dict[str, Attribute] | None = None,
    ):
        super().__init__(
            operands=[in0_cb, in1_cb, in0_tile, in1_tile, dst], properties=properties
        )


class _TileFromCBOp(TTKernelOp):
    """Reads tile `in_tile` of `in_cb` into DST slot `dst`."""

    in_cb = operand_def(I32)
    in_tile = operand_def(I32)
    dst = operand_def(I32)
    assembly_format = _i32_operands_op(["in_cb", "in_tile", "dst"])

    def __init__(self, in_cb: SSAValue, in_tile: SSAValue, dst: SSAValue):
        super().__init__(operands=[in_cb, in_tile, dst])


class _SFPUInitOp(_NoOperandOp):
    """Configures the SFPU for one operation."""


class _SFPUUnaryOp(TTKernelOp):
    """An SFPU op on DST slot `dst`, in place."""

    dst = operand_def(I32)
    assembly_format = _i32_operands_op(["dst"])

    def __init__(self, dst: SSAValue):
        super().__init__(operands=[dst])


class _SFPUScalarOp(TTKernelOp):
    """DST[dst] = DST[dst] <op> scalar, the scalar an f32 passed as its bit pattern."""

    COMPUTE_HEADER: ClassVar[str | None] = "api/compute/eltwise_unary/binop_with_scalar.h"
    dst = operand_def(I32)
    param = operand_def(I32)
    assembly_format = _i32_operands_op(["dst", "param"])

    def __init__(self, dst: SSAValue, param: SSAValue):
        super().__init__(operands=[dst, param])


class _SFPUBinaryOp(TTKernelOp):
    """DST[odst] = DST[dst0] <op> DST[dst1] on the SFPU."""

    dst0 = operand_def(I32)
    dst1 = operand_def(I32)
    odst = operand_def(I32)
    assembly_format = _i32_operands_op(["dst0", "dst1", "odst"])

    def __init__(self, dst0: SSAValue, dst1: SSAValue, odst: SSAValue):
        super().__init__(operands=[dst0, dst1, odst])


class _DataMovementOp(TTKernelOp):
    THREADS: ClassVar[str] = "datamovement"


# --------------------------------------------------------------------------- CB ops


@irdl_op_definition
class CBWaitFrontOp(_CBTilesOp):
    """Blocks until `num_tiles` pages are ready at the front of `cb` (consumer side)."""

    name = "ttkernel.cb_wait_front"


@irdl_op_definition
class CBPopFrontOp(_CBTilesOp):
    """Frees `num_tiles` pages at the front of `cb` (consumer side)."""

    name = "ttkernel.cb_pop_front"


@irdl_op_definition
class CBReserveBackOp(_CBTilesOp):
    """Blocks until `num_tiles` pages are free at the back of `cb` (producer side)."""

    name = "ttkernel.cb_reserve_back"


@irdl_op_definition
class CBPushBackOp(_CBTilesOp):
    """Publishes `num_tiles` written pages at the back of `cb` (producer side)."""

    name = "ttkernel.cb_push_back"


@irdl_op_definition
class GetWritePtrOp(_CBQueryOp):
    """The L1 address of the first reserved page of `cb`."""

    name = "ttkernel.get_write_ptr"


@irdl_op_definition
class GetReadPtrOp(_CBQueryOp):
    """The L1 address of the first ready page of `cb`."""

    name = "ttkernel.get_read_ptr"


@irdl_op_definition
class GetTileSizeOp(_CBQueryOp):
    """The size in bytes of one page of `cb`."""

    name = "ttkernel.get_tile_size"


# --------------------------------------------------------------------------- DST sync


class _TileRegsOp(_NoOperandOp):
    COMPUTE_HEADER: ClassVar[str | None] = "api/compute/reg_api.h"


@irdl_op_definition
class TileRegsAcquireOp(_TileRegsOp):
    """MATH acquires a DST section (whose tiles are zero) for writing."""

    name = "ttkernel.tile_regs_acquire"


@irdl_op_definition
class TileRegsCommitOp(_TileRegsOp):
    """MATH hands the DST section it wrote to PACK."""

    name = "ttkernel.tile_regs_commit"


@irdl_op_definition
class TileRegsWaitOp(_TileRegsOp):
    """PACK waits until MATH has committed the DST section."""

    name = "ttkernel.tile_regs_wait"


@irdl_op_definition
class TileRegsReleaseOp(_TileRegsOp):
    """PACK releases the DST section back to MATH."""

    name = "ttkernel.tile_regs_release"


# --------------------------------------------------------------------------- copy / pack


@irdl_op_definition
class CopyTileInitOp(TTKernelOp):
    """Configures the unpacker and math engine to copy tiles of `cb` into DST."""

    name = "ttkernel.copy_tile_init"
    COMPUTE_HEADER: ClassVar[str | None] = "api/compute/tile_move_copy.h"
    CALLEE: ClassVar[str | None] = "copy_init"
    cb = operand_def(I32)
    assembly_format = _i32_operands_op(["cb"])

    def __init__(self, cb: SSAValue):
        super().__init__(operands=[cb])


@irdl_op_definition
class CopyTileOp(_TileFromCBOp):
    """Copies tile `in_tile` of `in_cb` into DST slot `dst`."""

    name = "ttkernel.copy_tile"
    COMPUTE_HEADER: ClassVar[str | None] = "api/compute/tile_move_copy.h"


@irdl_op_definition
class PackTileOp(TTKernelOp):
    """Packs DST slot `dst` into page `out_tile` of `out_cb`, counted from the write
    pointer (tt-metal's out-of-order `pack_tile<true>`)."""

    name = "ttkernel.pack_tile"
    COMPUTE_HEADER: ClassVar[str | None] = "api/compute/pack.h"
    dst = operand_def(I32)
    out_cb = operand_def(I32)
    out_tile = operand_def(I32)
    assembly_format = _i32_operands_op(["dst", "out_cb", "out_tile"])

    def __init__(self, dst: SSAValue, out_cb: SSAValue, out_tile: SSAValue):
        super().__init__(operands=[dst, out_cb, out_tile])

    def cpp_template_args(self) -> tuple[str, ...]:
        return ("true",)


@irdl_op_definition
class PackReconfigL1AccOp(TTKernelOp):
    """Turns the packer's L1 accumulation on (`l1_acc_en` 1) or off (0): while it is on,
    `pack_tile` adds the DST tile to the values the CB page holds."""

    name = "ttkernel.pack_reconfig_l1_acc"
    COMPUTE_HEADER: ClassVar[str | None] = "api/compute/pack.h"
    l1_acc_en = operand_def(I32)
    assembly_format = _i32_operands_op(["l1_acc_en"])

    def __init__(self, l1_acc_en: SSAValue):
        super().__init__(operands=[l1_acc_en])


# --------------------------------------------------------------------------- data formats


_RECONFIG_H = "api/compute/reconfig_data_format.h"


@irdl_op_definition
class ReconfigDataFormatOp(TTKernelOp):
    """Reprograms the unpackers for the data formats of `srca_cb` (srcA) and `srcb_cb`
    (srcB) (tt-metal 0.81.1's unconditional `reconfig_data_format(icb0, icb1)`)."""

    name = "ttkernel.reconfig_data_format"
    COMPUTE_HEADER: ClassVar[str | None] = _RECONFIG_H
    srca_cb = operand_def(I32)
    srcb_cb = operand_def(I32)
    assembly_format = _i32_operands_op(["srca_cb", "srcb_cb"])

    def __init__(self, srca_cb: SSAValue, srcb_cb: SSAValue):
        super().__init__(operands=[srca_cb, srcb_cb])


@irdl_op_definition
class ReconfigDataFormatSrcaOp(TTKernelOp):
    """Reprograms the srcA unpacker for the data format of `cb`."""

    name = "ttkernel.reconfig_data_format_srca"
    COMPUTE_HEADER: ClassVar[str | None] = _RECONFIG_H
    cb = operand_def(I32)
    assembly_format = _i32_operands_op(["cb"])

    def __init__(self, cb: SSAValue):
        super().__init__(operands=[cb])


@irdl_op_definition
class ReconfigDataFormatSrcbOp(TTKernelOp):
    """Reprograms the srcB unpacker for the data format of `cb`."""

    name = "ttkernel.reconfig_data_format_srcb"
    COMPUTE_HEADER: ClassVar[str | None] = _RECONFIG_H
    cb = operand_def(I32)
    assembly_format = _i32_operands_op(["cb"])

    def __init__(self, cb: SSAValue):
        super().__init__(operands=[cb])


@irdl_op_definition
class PackReconfigDataFormatOp(TTKernelOp):
    """Reprograms the packer for the data format of `out_cb`."""

    name = "ttkernel.pack_reconfig_data_format"
    COMPUTE_HEADER: ClassVar[str | None] = _RECONFIG_H
    out_cb = operand_def(I32)
    assembly_format = _i32_operands_op(["out_cb"])

    def __init__(self, out_cb: SSAValue):
        super().__init__(operands=[out_cb])


# --------------------------------------------------------------------------- matmul


@irdl_op_definition
class MMInitOp(TTKernelOp):
    """Full matmul init: input CBs `in0_cb` (A), `in1_cb` (B), output CB `out_cb`;
    `transpose` nonzero transposes each B tile. tt-metal 0.81.1's `matmul_init(in0, in1,
    transpose)` takes no output CB (the hardware startup configured the packer)."""

    name = "ttkernel.mm_init"
    COMPUTE_HEADER: ClassVar[str | None] = "api/compute/matmul.h"
    CALLEE: ClassVar[str | None] = "matmul_init"
    in0_cb = operand_def(I32)
    in1_cb = operand_def(I32)
    out_cb = operand_def(I32)
    transpose = operand_def(I32)
    assembly_format = _i32_operands_op(["in0_cb", "in1_cb", "out_cb", "transpose"])

    def __init__(self, in0_cb: SSAValue, in1_cb: SSAValue, out_cb: SSAValue, transpose: SSAValue):
        super().__init__(operands=[in0_cb, in1_cb, out_cb, transpose])

    def cpp_operands(self) -> Sequence[SSAValue]:
        return (self.in0_cb, self.in1_cb, self.transpose)


@irdl_op_definition
class MMInitShortOp(TTKernelOp):
    """Re-initializes matmul for new input CBs after another op's init."""

    name = "ttkernel.mm_init_short"
    COMPUTE_HEADER: ClassVar[str | None] = "api/compute/matmul.h"
    CALLEE: ClassVar[str | None] = "matmul_init"
    in0_cb = operand_def(I32)
    in1_cb = operand_def(I32)
    transpose = operand_def(I32)
    assembly_format = _i32_operands_op(["in0_cb", "in1_cb", "transpose"])

    def __init__(self, in0_cb: SSAValue, in1_cb: SSAValue, transpose: SSAValue):
        super().__init__(operands=[in0_cb, in1_cb, transpose])


@irdl_op_definition
class MatmulTilesOp(TTKernelOp):
    """DST[dst] += A[in0_tile] @ B[in1_tile], each B tile transposed first when
    `transpose` is nonzero (the unpacker does it; it must match mm_init's). In tt-metal
    0.81.1 the transpose is matmul_init's alone: the call takes the first five operands."""

    name = "ttkernel.matmul_tiles"
    COMPUTE_HEADER: ClassVar[str | None] = "api/compute/matmul.h"
    in0_cb = operand_def(I32)
    in1_cb = operand_def(I32)
    in0_tile = operand_def(I32)
    in1_tile = operand_def(I32)
    dst = operand_def(I32)
    transpose = operand_def(I32)
    assembly_format = _i32_operands_op(
        ["in0_cb", "in1_cb", "in0_tile", "in1_tile", "dst", "transpose"]
    )

    def __init__(
        self,
        in0_cb: SSAValue,
        in1_cb: SSAValue,
        in0_tile: SSAValue,
        in1_tile: SSAValue,
        dst: SSAValue,
        transpose: SSAValue,
    ):
        super().__init__(operands=[in0_cb, in1_cb, in0_tile, in1_tile, dst, transpose])

    def cpp_operands(self) -> Sequence[SSAValue]:
        return (self.in0_cb, self.in1_cb, self.in0_tile, self.in1_tile, self.dst)


# --------------------------------------------------------------------------- reduce


class _ReduceOp(TTKernelOp):
    COMPUTE_HEADER: ClassVar[str | None] = "api/compute/reduce.h"
    pool_type = prop_def(PoolTypeAttr)
    reduce_dim = prop_def(ReduceDimAttr)

    def cpp_template_args(self) -> tuple[str, ...]:
        return (_CPP_POOL_TYPE[self.pool_type.data], _CPP_REDUCE_DIM[self.reduce_dim.data])


@irdl_op_definition
class ReduceInitOp(_ReduceOp):
    """Initializes a reduction of `in_cb` tiles scaled by a `scaler_cb` tile into
    `out_cb`."""

    name = "ttkernel.reduce_init"
    in_cb = operand_def(I32)
    scaler_cb = operand_def(I32)
    out_cb = operand_def(I32)
    assembly_format = (
        "`<` $pool_type `,` $reduce_dim `>` `(` $in_cb `,` $scaler_cb `,` $out_cb `)` attr-dict"
    )

    def __init__(
        self,
        pool_type: PoolType,
        reduce_dim: ReduceDim,
        in_cb: SSAValue,
        scaler_cb: SSAValue,
        out_cb: SSAValue,
    ):
        super().__init__(
            operands=[in_cb, scaler_cb, out_cb],
            properties={
                "pool_type": PoolTypeAttr(pool_type),
                "reduce_dim": ReduceDimAttr(reduce_dim),
            },
        )


@irdl_op_definition
class ReduceTileOp(_ReduceOp):
    """DST[dst] = pool(DST[dst], reduce(tile `in_tile` of `in_cb`) * scaler tile)."""

    name = "ttkernel.reduce_tile"
    in_cb = operand_def(I32)
    scaler_cb = operand_def(I32)
    in_tile = operand_def(I32)
    scaler_tile = operand_def(I32)
    dst = operand_def(I32)
    assembly_format = (
        "`<` $pool_type `,` $reduce_dim `>` "
        "`(` $in_cb `,` $scaler_cb `,` $in_tile `,` $scaler_tile `,` $dst `)` attr-dict"
    )

    def __init__(
        self,
        pool_type: PoolType,
        reduce_dim: ReduceDim,
        in_cb: SSAValue,
        scaler_cb: SSAValue,
        in_tile: SSAValue,
        scaler_tile: SSAValue,
        dst: SSAValue,
    ):
        super().__init__(
            operands=[in_cb, scaler_cb, in_tile, scaler_tile, dst],
            properties={
                "pool_type": PoolTypeAttr(pool_type),
                "reduce_dim": ReduceDimAttr(reduce_dim),
            },
        )


@irdl_op_definition
class ReduceUninitOp(_NoOperandOp):
    """Restores the packer state a reduction changed, before other ops run."""

    name = "ttkernel.reduce_uninit"
    COMPUTE_HEADER: ClassVar[str | None] = "api/compute/reduce.h"


# --------------------------------------------------------------------------- FPU binary


_ELTWISE_BINARY_H = "api/compute/eltwise_binary.h"
_HW_STARTUP_H = "api/compute/compute_kernel_hw_startup.h"


@irdl_op_definition
class BinaryOpInitCommonOp(_BinaryInitOp):
    """The common init of FPU binary ops on `in0_cb`, `in1_cb` packing to `out_cb`
    (tt-metal 0.81.1's `compute_kernel_hw_startup`, once per compute kernel)."""

    name = "ttkernel.binary_op_init_common"
    COMPUTE_HEADER: ClassVar[str | None] = _HW_STARTUP_H
    CALLEE: ClassVar[str | None] = "compute_kernel_hw_startup"


@irdl_op_definition
class AddTilesInitOp(_BinaryShortInitOp):
    """Configures the FPU for add_tiles."""

    name = "ttkernel.add_tiles_init"
    COMPUTE_HEADER: ClassVar[str | None] = _ELTWISE_BINARY_H
    CALLEE: ClassVar[str | None] = "add_init"


@irdl_op_definition
class SubTilesInitOp(_BinaryShortInitOp):
    """Configures the FPU for sub_tiles."""

    name = "ttkernel.sub_tiles_init"
    COMPUTE_HEADER: ClassVar[str | None] = _ELTWISE_BINARY_H
    CALLEE: ClassVar[str | None] = "sub_init"


@irdl_op_definition
class MulTilesInitOp(_BinaryShortInitOp):
    """Configures the FPU for mul_tiles."""

    name = "ttkernel.mul_tiles_init"
    COMPUTE_HEADER: ClassVar[str | None] = _ELTWISE_BINARY_H
    CALLEE: ClassVar[str | None] = "mul_init"


@irdl_op_definition
class AddTilesOp(_BinaryTilesOp):
    """DST[dst] = A[in0_tile] + B[in1_tile]."""

    name = "ttkernel.add_tiles"
    COMPUTE_HEADER: ClassVar[str | None] = _ELTWISE_BINARY_H


@irdl_op_definition
class SubTilesOp(_BinaryTilesOp):
    """DST[dst] = A[in0_tile] - B[in1_tile]."""

    name = "ttkernel.sub_tiles"
    COMPUTE_HEADER: ClassVar[str | None] = _ELTWISE_BINARY_H


@irdl_op_definition
class MulTilesOp(_BinaryTilesOp):
    """DST[dst] = A[in0_tile] * B[in1_tile]."""

    name = "ttkernel.mul_tiles"
    COMPUTE_HEADER: ClassVar[str | None] = _ELTWISE_BINARY_H


class _DestReuseOp(TTKernelOp):
    """tt-metal 0.81.1 names the binary op in the function (`add_reuse_dest_init`,
    `add_reuse_dest_tiles`) and takes the reuse kind as its template argument."""

    COMPUTE_HEADER: ClassVar[str | None] = _ELTWISE_BINARY_H
    CPP_SUFFIX: ClassVar[str]
    op = prop_def(BinaryOpAttr)
    reuse = prop_def(ReuseDestAttr)

    @property
    def callee(self) -> str:
        return f"{self.op.data.value}_reuse_dest_{self.CPP_SUFFIX}"

    def cpp_template_args(self) -> tuple[str, ...]:
        return (_CPP_REUSE_DEST[self.reuse.data],)


@irdl_op_definition
class BinaryDestReuseTilesInitOp(_DestReuseOp):
    """Configures an FPU binary op whose one operand is the DST tile itself."""

    name = "ttkernel.binary_dest_reuse_tiles_init"
    CPP_SUFFIX: ClassVar[str] = "init"
    in_cb = operand_def(I32)
    assembly_format = "`<` $op `,` $reuse `>` `(` $in_cb `)` attr-dict"

    def __init__(self, op: BinaryOp, reuse: ReuseDest, in_cb: SSAValue):
        super().__init__(
            operands=[in_cb],
            properties={"op": BinaryOpAttr(op), "reuse": ReuseDestAttr(reuse)},
        )


@irdl_op_definition
class BinaryDestReuseTilesOp(_DestReuseOp):
    """DST[dst] = DST[dst] <op> tile `in_tile` of `in_cb` (`reuse = srca`; the
    operands swap with `srcb`)."""

    name = "ttkernel.binary_dest_reuse_tiles"
    CPP_SUFFIX: ClassVar[str] = "tiles"
    in_cb = operand_def(I32)
    in_tile = operand_def(I32)
    dst = operand_def(I32)
    assembly_format = "`<` $op `,` $reuse `>` `(` $in_cb `,` $in_tile `,` $dst `)` attr-dict"

    def __init__(
        self, op: BinaryOp, reuse: ReuseDest, in_cb: SSAValue, in_tile: SSAValue, dst: SSAValue
    ):
        super().__init__(
            operands=[in_cb, in_tile, dst],
            properties={"op": BinaryOpAttr(op), "reuse": ReuseDestAttr(reuse)},
        )


# --------------------------------------------------------------------------- broadcast


_BCAST_H = "api/compute/bcast.h"


@irdl_op_definition
class InitBcastOp(TTKernelOp):
    """Configures the FPU for `<op>_tiles_bcast<bcast>` on `in0_cb`, `in1_cb`, packing
    to `out_cb` (tt-metal 0.81.1's `bcast_init<EltwiseBinaryType, BroadcastType>(in0,
    in1)`, without the output CB)."""

    name = "ttkernel.init_bcast"
    COMPUTE_HEADER: ClassVar[str | None] = _BCAST_H
    CALLEE: ClassVar[str | None] = "bcast_init"
    op = prop_def(BinaryOpAttr)
    bcast = prop_def(BroadcastTypeAttr)
    in0_cb = operand_def(I32)
    in1_cb = operand_def(I32)
    out_cb = operand_def(I32)
    assembly_format = "`<` $op `,` $bcast `>` `(` $in0_cb `,` $in1_cb `,` $out_cb `)` attr-dict"

    def __init__(
        self, op: BinaryOp, bcast: BroadcastType, in0_cb: SSAValue, in1_cb: SSAValue, out_cb: SSAValue
    ):
        super().__init__(
            operands=[in0_cb, in1_cb, out_cb],
            properties={"op": BinaryOpAttr(op), "bcast": BroadcastTypeAttr(bcast)},
        )

    def cpp_operands(self) -> Sequence[SSAValue]:
        return (self.in0_cb, self.in1_cb)

    def cpp_template_args(self) -> tuple[str, ...]:
        return (_CPP_BINARY_OP[self.op.data], _CPP_BROADCAST[self.bcast.data])


class _BcastTilesOp(_BinaryTilesOp):
    """DST[dst] = A[in0_tile] <op> broadcast(B[in1_tile])."""

    COMPUTE_HEADER: ClassVar[str | None] = _BCAST_H
    bcast = prop_def(BroadcastTypeAttr)
    assembly_format = (
        "`<` $bcast `>` `(` $in0_cb `,` $in1_cb `,` $in0_tile `,` $in1_tile `,` $dst `)` attr-dict"
    )

    def __init__(
        self,
        bcast: BroadcastType,
        in0_cb: SSAValue,
        in1_cb: SSAValue,
        in0_tile: SSAValue,
        in1_tile: SSAValue,
        dst: SSAValue,
    ):
        super().__init__(
            in0_cb, in1_cb, in0_tile, in1_tile, dst, {"bcast": BroadcastTypeAttr(bcast)}
        )

    def cpp_template_args(self) -> tuple[str, ...]:
        return (_CPP_BROADCAST[self.bcast.data],)


@irdl_op_definition
class AddTilesBcastOp(_BcastTilesOp):
    """DST[dst] = A[in0_tile] + broadcast(B[in1_tile])."""

    name = "ttkernel.add_tiles_bcast"


@irdl_op_definition
class SubTilesBcastOp(_BcastTilesOp):
    """DST[dst] = A[in0_tile] - broadcast(B[in1_tile])."""

    name = "ttkernel.sub_tiles_bcast"


@irdl_op_definition
class MulTilesBcastOp(_BcastTilesOp):
    """DST[dst] = A[in0_tile] * broadcast(B[in1_tile])."""

    name = "ttkernel.mul_tiles_bcast"


@irdl_op_definition
class UnaryBcastInitOp(TTKernelOp):
    """Configures unary_bcast from `in_cb`, packing to `out_cb` (tt-metal 0.81.1's
    `unary_bcast_init<bcast>(in_cb)` takes no output CB)."""

    name = "ttkernel.unary_bcast_init"
    COMPUTE_HEADER: ClassVar[str | None] = _BCAST_H
    bcast = prop_def(BroadcastTypeAttr)
    in_cb = operand_def(I32)
    out_cb = operand_def(I32)
    assembly_format = "`<` $bcast `>` `(` $in_cb `,` $out_cb `)` attr-dict"

    def __init__(self, bcast: BroadcastType, in_cb: SSAValue, out_cb: SSAValue):
        super().__init__(operands=[in_cb, out_cb], properties={"bcast": BroadcastTypeAttr(bcast)})

    def cpp_template_args(self) -> tuple[str, ...]:
        return (_CPP_BROADCAST[self.bcast.data],)

    def cpp_operands(self) -> Sequence[SSAValue]:
        return (self.in_cb,)


@irdl_op_definition
class UnaryBcastOp(TTKernelOp):
    """DST[dst] = broadcast(tile `in_tile` of `in_cb`)."""

    name = "ttkernel.unary_bcast"
    COMPUTE_HEADER: ClassVar[str | None] = _BCAST_H
    bcast = prop_def(BroadcastTypeAttr)
    in_cb = operand_def(I32)
    in_tile = operand_def(I32)
    dst = operand_def(I32)
    assembly_format = "`<` $bcast `>` `(` $in_cb `,` $in_tile `,` $dst `)` attr-dict"

    def __init__(self, bcast: BroadcastType, in_cb: SSAValue, in_tile: SSAValue, dst: SSAValue):
        super().__init__(
            operands=[in_cb, in_tile, dst], properties={"bcast": BroadcastTypeAttr(bcast)}
        )

    def cpp_template_args(self) -> tuple[str, ...]:
        return (_CPP_BROADCAST[self.bcast.data],)


# --------------------------------------------------------------------------- transpose


@irdl_op_definition
class TransposeWHInitOp(_InOutInitOp):
    """Configures transpose_wh_tile from `in_cb`, packing to `out_cb` (tt-metal 0.81.1's
    `transpose_init(in_cb)`)."""

    name = "ttkernel.transpose_wh_init"
    COMPUTE_HEADER: ClassVar[str | None] = "api/compute/transpose.h"
    CALLEE: ClassVar[str | None] = "transpose_init"

    def cpp_operands(self) -> Sequence[SSAValue]:
        return (self.in_cb,)


@irdl_op_definition
class TransposeWHTileOp(_TileFromCBOp):
    """DST[dst] = transpose(tile `in_tile` of `in_cb`)."""

    name = "ttkernel.transpose_wh_tile"
    COMPUTE_HEADER: ClassVar[str | None] = "api/compute/transpose.h"
    CALLEE: ClassVar[str | None] = "transpose_tile"


# --------------------------------------------------------------------------- SFPU


_ELTWISE_UNARY_H = "api/compute/eltwise_unary/eltwise_unary.h"


@irdl_op_definition
class InitSFPUOp(_InOutInitOp):
    """The common init of SFPU ops reading `in_cb` and packing to `out_cb` (tt-metal
    0.81.1's `compute_kernel_hw_startup(in_cb, out_cb)`)."""

    name = "ttkernel.init_sfpu"
    COMPUTE_HEADER: ClassVar[str | None] = _HW_STARTUP_H
    CALLEE: ClassVar[str | None] = "compute_kernel_hw_startup"


@irdl_op_definition
class UnaryOpInitCommonOp(_InOutInitOp):
    """The common init of unary ops reading `in_cb` and packing to `out_cb` (tt-metal
    0.81.1's `compute_kernel_hw_startup(in_cb, out_cb)`)."""

    name = "ttkernel.unary_op_init_common"
    COMPUTE_HEADER: ClassVar[str | None] = _HW_STARTUP_H
    CALLEE: ClassVar[str | None] = "compute_kernel_hw_startup"


def _unary_h(name: str) -> str:
    return f"api/compute/eltwise_unary/{name}.h"


# tt-metal's exp_tile<approx> defaults to the exact exp; its `APPROX` constant is the
# program's math_approx_mode (the emulator defines it too), as its SDPA passes it.
_EXP_APPROX = ("APPROX",)


@irdl_op_definition
class ExpTileInitOp(_SFPUInitOp):
    """Configures exp_tile (`exp_tile_init<APPROX>`)."""

    name = "ttkernel.exp_tile_init"
    COMPUTE_HEADER: ClassVar[str | None] = _unary_h("exp")

    def cpp_template_args(self) -> tuple[str, ...]:
        return _EXP_APPROX


@irdl_op_definition
class ExpTileOp(_SFPUUnaryOp):
    """DST[dst] = exp(DST[dst]) (`exp_tile<APPROX>`: approximate when the program's
    math_approx_mode is set)."""

    name = "ttkernel.exp_tile"
    COMPUTE_HEADER: ClassVar[str | None] = _unary_h("exp")

    def cpp_template_args(self) -> tuple[str, ...]:
        return _EXP_APPROX


@irdl_op_definition
class RecipTileInitOp(_SFPUInitOp):
    """Configures recip_tile."""

    name = "ttkernel.recip_tile_init"
    COMPUTE_HEADER: ClassVar[str | None] = _unary_h("recip")


@irdl_op_definition
class RecipTileOp(_SFPUUnaryOp):
    """DST[dst] = 1 / DST[dst]."""

    name = "ttkernel.recip_tile"
    COMPUTE_HEADER: ClassVar[str | None] = _unary_h("recip")


@irdl_op_definition
class SqrtTileInitOp(_SFPUInitOp):
    """Configures sqrt_tile."""

    name = "ttkernel.sqrt_tile_init"
    COMPUTE_HEADER: ClassVar[str | None] = _unary_h("sqrt")


@irdl_op_definition
class SqrtTileOp(_SFPUUnaryOp):
    """DST[dst] = sqrt(DST[dst])."""

    name = "ttkernel.sqrt_tile"
    COMPUTE_HEADER: ClassVar[str | None] = _unary_h("sqrt")


@irdl_op_definition
class RsqrtTileInitOp(_SFPUInitOp):
    """Configures rsqrt_tile."""

    name = "ttkernel.rsqrt_tile_init"
    COMPUTE_HEADER: ClassVar[str | None] = _unary_h("rsqrt")


@irdl_op_definition
class RsqrtTileOp(_SFPUUnaryOp):
    """DST[dst] = 1 / sqrt(DST[dst])."""

    name = "ttkernel.rsqrt_tile"
    COMPUTE_HEADER: ClassVar[str | None] = _unary_h("rsqrt")


@irdl_op_definition
class NegativeTileInitOp(_SFPUInitOp):
    """Configures negative_tile."""

    name = "ttkernel.negative_tile_init"
    COMPUTE_HEADER: ClassVar[str | None] = _unary_h("negative")


@irdl_op_definition
class NegativeTileOp(_SFPUUnaryOp):
    """DST[dst] = -DST[dst]."""

    name = "ttkernel.negative_tile"
    COMPUTE_HEADER: ClassVar[str | None] = _unary_h("negative")


@irdl_op_definition
class AbsTileInitOp(_SFPUInitOp):
    """Configures abs_tile."""

    name = "ttkernel.abs_tile_init"
    COMPUTE_HEADER: ClassVar[str | None] = "api/compute/compute_kernel_api.h"


@irdl_op_definition
class AbsTileOp(_SFPUUnaryOp):
    """DST[dst] = |DST[dst]|."""

    name = "ttkernel.abs_tile"
    COMPUTE_HEADER: ClassVar[str | None] = "api/compute/compute_kernel_api.h"


@irdl_op_definition
class FillTileInitOp(_SFPUInitOp):
    """Configures fill_tile."""

    name = "ttkernel.fill_tile_init"
    COMPUTE_HEADER: ClassVar[str | None] = _unary_h("fill")


@irdl_op_definition
class FillTileOp(TTKernelOp):
    """Sets every element of DST[dst] to `value`."""

    name = "ttkernel.fill_tile"
    COMPUTE_HEADER: ClassVar[str | None] = _unary_h("fill")
    dst = operand_def(I32)
    value = operand_def(Float32Type)
    assembly_format = "`(` $dst `,` $value `)` attr-dict"

    def __init__(self, dst: SSAValue, value: SSAValue):
        super().__init__(operands=[dst, value])


@irdl_op_definition
class BinopWithScalarTileInitOp(_SFPUInitOp):
    """Configures the `*_unary_tile` ops (binary op with a scalar)."""

    name = "ttkernel.binop_with_scalar_tile_init"
    COMPUTE_HEADER: ClassVar[str | None] = _unary_h("binop_with_scalar")


@irdl_op_definition
class AddUnaryTileOp(_SFPUScalarOp):
    """DST[dst] = DST[dst] + scalar."""

    name = "ttkernel.add_unary_tile"


@irdl_op_definition
class SubUnaryTileOp(_SFPUScalarOp):
    """DST[dst] = DST[dst] - scalar."""

    name = "ttkernel.sub_unary_tile"


@irdl_op_definition
class MulUnaryTileOp(_SFPUScalarOp):
    """DST[dst] = DST[dst] * scalar."""

    name = "ttkernel.mul_unary_tile"


@irdl_op_definition
class DivUnaryTileOp(_SFPUScalarOp):
    """DST[dst] = DST[dst] / scalar."""

    name = "ttkernel.div_unary_tile"


@irdl_op_definition
class RsubUnaryTileOp(_SFPUScalarOp):
    """DST[dst] = scalar - DST[dst]."""

    name = "ttkernel.rsub_unary_tile"


_BINARY_SFPU_H = "api/compute/eltwise_binary_sfpu.h"


@irdl_op_definition
class AddBinaryTileInitOp(_SFPUInitOp):
    """Configures add_binary_tile."""

    name = "ttkernel.add_binary_tile_init"
    COMPUTE_HEADER: ClassVar[str | None] = _BINARY_SFPU_H


@irdl_op_definition
class AddBinaryTileOp(_SFPUBinaryOp):
    """DST[odst] = DST[dst0] + DST[dst1]."""

    name = "ttkernel.add_binary_tile"
    COMPUTE_HEADER: ClassVar[str | None] = _BINARY_SFPU_H


@irdl_op_definition
class SubBinaryTileInitOp(_SFPUInitOp):
    """Configures sub_binary_tile."""

    name = "ttkernel.sub_binary_tile_init"
    COMPUTE_HEADER: ClassVar[str | None] = _BINARY_SFPU_H


@irdl_op_definition
class SubBinaryTileOp(_SFPUBinaryOp):
    """DST[odst] = DST[dst0] - DST[dst1]."""

    name = "ttkernel.sub_binary_tile"
    COMPUTE_HEADER: ClassVar[str | None] = _BINARY_SFPU_H


@irdl_op_definition
class MulBinaryTileInitOp(_SFPUInitOp):
    """Configures mul_binary_tile."""

    name = "ttkernel.mul_binary_tile_init"
    COMPUTE_HEADER: ClassVar[str | None] = _BINARY_SFPU_H


@irdl_op_definition
class MulBinaryTileOp(_SFPUBinaryOp):
    """DST[odst] = DST[dst0] * DST[dst1]."""

    name = "ttkernel.mul_binary_tile"
    COMPUTE_HEADER: ClassVar[str | None] = _BINARY_SFPU_H


@irdl_op_definition
class DivBinaryTileInitOp(_SFPUInitOp):
    """Configures div_binary_tile."""

    name = "ttkernel.div_binary_tile_init"
    COMPUTE_HEADER: ClassVar[str | None] = _BINARY_SFPU_H


@irdl_op_definition
class DivBinaryTileOp(_SFPUBinaryOp):
    """DST[odst] = DST[dst0] / DST[dst1]."""

    name = "ttkernel.div_binary_tile"
    COMPUTE_HEADER: ClassVar[str | None] = _BINARY_SFPU_H


@irdl_op_definition
class BinaryMaxTileInitOp(_SFPUInitOp):
    """Configures binary_max_tile."""

    name = "ttkernel.binary_max_tile_init"
    COMPUTE_HEADER: ClassVar[str | None] = "api/compute/binary_max_min.h"


@irdl_op_definition
class BinaryMaxTileOp(_SFPUBinaryOp):
    """DST[odst] = max(DST[dst0], DST[dst1])."""

    name = "ttkernel.binary_max_tile"
    COMPUTE_HEADER: ClassVar[str | None] = "api/compute/binary_max_min.h"


_COPY_DEST_H = "api/compute/copy_dest_values.h"
_DST_FORMATS = (DataType.BF16, DataType.F32)
"""The formats DST holds: bf16 (16-bit DST) and f32 (fp32_dest_acc_en)."""


@irdl_op_definition
class CopyDestValuesInitOp(_SFPUInitOp):
    """Configures copy_dest_values."""

    name = "ttkernel.copy_dest_values_init"
    COMPUTE_HEADER: ClassVar[str | None] = _COPY_DEST_H


@irdl_op_definition
class CopyDestValuesOp(TTKernelOp):
    """DST[dst_out] = DST[dst_in]: a tile copy inside DST, source first, values moved
    unchanged: `ttkernel.copy_dest_values<bf16>(%from, %to)` (tt-metal 0.81.1's
    `copy_dest_values<DataFormat>(idst_in, idst_out)`). The format is DST's: `bf16` for
    a 16-bit DST, `f32` with fp32_dest_acc_en."""

    name = "ttkernel.copy_dest_values"
    COMPUTE_HEADER: ClassVar[str | None] = _COPY_DEST_H
    dst_in = operand_def(I32)
    dst_out = operand_def(I32)
    data_format = prop_def(DataTypeAttr)
    assembly_format = "$data_format `(` $dst_in `,` $dst_out `)` attr-dict"

    def __init__(self, data_format: DataType, dst_in: SSAValue, dst_out: SSAValue):
        super().__init__(
            operands=[dst_in, dst_out], properties={"data_format": DataTypeAttr(data_format)}
        )

    def cpp_template_args(self) -> tuple[str, ...]:
        return (CPP_DATA_FORMAT[self.data_format.data],)

    def verify_(self) -> None:
        super().verify_()
        if self.data_format.data not in _DST_FORMATS:
            raise VerifyException(
                f"copy_dest_values reads DST as bf16 or f32, not {self.data_format.data.value}"
            )




@irdl_op_definition
class WhereTileInitOp(_SFPUInitOp):
    """Configures where_tile."""

    name = "ttkernel.where_tile_init"
    COMPUTE_HEADER: ClassVar[str | None] = _unary_h("where")


@irdl_op_definition
class WhereTileOp(TTKernelOp):
    """DST[odst] = DST[dst0] != 0 ? DST[dst1] : DST[dst2], elementwise:
    `ttkernel.where_tile<bf16>(%cond, %true, %false, %out)`. The format is DST's
    (tt-metal's `where_tile<DataFormat::...>` template argument): `bf16` for a 16-bit
    DST, `f32` with fp32_dest_acc_en."""

    name = "ttkernel.where_tile"
    COMPUTE_HEADER: ClassVar[str | None] = _unary_h("where")
    dst0 = operand_def(I32)
    dst1 = operand_def(I32)
    dst2 = operand_def(I32)
    odst = operand_def(I32)
    data_format = prop_def(DataTypeAttr)
    assembly_format = "$data_format `(` $dst0 `,` $dst1 `,` $dst2 `,` $odst `)` attr-dict"

    def __init__(
        self,
        data_format: DataType,
        dst0: SSAValue,
        dst1: SSAValue,
        dst2: SSAValue,
        odst: SSAValue,
    ):
        super().__init__(
            operands=[dst0, dst1, dst2, odst],
            properties={"data_format": DataTypeAttr(data_format)},
        )

    def cpp_template_args(self) -> tuple[str, ...]:
        return (CPP_DATA_FORMAT[self.data_format.data],)

    def verify_(self) -> None:
        super().verify_()
        if self.data_format.data not in _DST_FORMATS:
            raise VerifyException(
                f"where_tile reads DST as bf16 or f32, not {self.data_format.data.value}"
            )


# --------------------------------------------------------------------------- data movement


@irdl_op_definition
class GetInterleavedAddrGenFastOp(_DataMovementOp):
    """An address generator over the interleaved buffer of `data_format` pages of
    `page_size` bytes that starts at `bank_base_address` in every bank."""

    name = "ttkernel.get_interleaved_addr_gen_fast"
    bank_base_address = operand_def(I32)
    page_size = operand_def(I32)
    data_format = prop_def(DataTypeAttr)
    result = result_def(InterleavedAddrGenFastType)
    assembly_format = (
        "`(` $bank_base_address `,` $page_size `)` `format` $data_format attr-dict "
        "`:` type($result)"
    )

    def __init__(
        self,
        memory: MemorySpace,
        bank_base_address: SSAValue,
        page_size: SSAValue,
        data_format: DataType,
    ):
        super().__init__(
            operands=[bank_base_address, page_size],
            properties={"data_format": DataTypeAttr(data_format)},
            result_types=[InterleavedAddrGenFastType(memory)],
        )


class _TileTransferOp(_DataMovementOp):
    tile_id = operand_def(I32)
    addr_gen = operand_def(InterleavedAddrGenFastType)
    l1_addr = operand_def(I32)
    assembly_format = (
        "`(` $tile_id `,` $addr_gen `,` $l1_addr `)` attr-dict `:` type($addr_gen)"
    )

    def __init__(self, tile_id: SSAValue, addr_gen: SSAValue, l1_addr: SSAValue):
        super().__init__(operands=[tile_id, addr_gen, l1_addr])


@irdl_op_definition
class NocAsyncReadTileOp(_TileTransferOp):
    """Starts reading page `tile_id` of the buffer `addr_gen` describes into L1 at
    `l1_addr`."""

    name = "ttkernel.noc_async_read_tile"


@irdl_op_definition
class NocAsyncWriteTileOp(_TileTransferOp):
    """Starts writing the page at L1 `l1_addr` to page `tile_id` of the buffer
    `addr_gen` describes."""

    name = "ttkernel.noc_async_write_tile"


@irdl_op_definition
class CheckTileBlockOp(_DataMovementOp):
    """Checks that a transfer's block of `block` tiles at tile `indices` of the tensor
    `tensor` (`shape` tiles) lies inside the tensor in every dimension. The pages a
    transfer moves are numbered row-major, so a block past the end of a row would move
    the next row's tiles with no error; the emulator reports it instead, naming the
    core, thread, kernel, the DSL line `source` and the index.

    tt-metal has no such call and hardware has nowhere to report it: `CPP_DEFINITION`
    makes `TTLANG_CHECK_TILE_BLOCK` empty unless the emulator's kernel headers define it
    (ttemu::check_tile_block). Its arguments: tensor name, source line, rank, the block
    shape, the tensor shape, then the indices.

        ttkernel.check_tile_block(%row, %col) tensor "x" block [1, 2] of [2, 3] at "k.py:17"
    """

    name = "ttkernel.check_tile_block"
    CALLEE: ClassVar[str | None] = "TTLANG_CHECK_TILE_BLOCK"
    indices = var_operand_def(I32)
    tensor = prop_def(StringAttr)
    block = prop_def(ArrayAttr[IntegerAttr[I64]])
    shape = prop_def(ArrayAttr[IntegerAttr[I64]])
    source = prop_def(StringAttr)
    assembly_format = (
        "`(` $indices `)` `tensor` $tensor `block` $block `of` $shape `at` $source attr-dict"
    )
    CPP_DEFINITION: ClassVar[str] = """\
#ifndef TTLANG_CHECK_TILE_BLOCK  // the emulator's check of a transfer's tiles against its tensor
#define TTLANG_CHECK_TILE_BLOCK(...)
#endif"""

    def __init__(
        self,
        indices: Sequence[SSAValue],
        tensor: str,
        block: Sequence[int],
        shape: Sequence[int],
        source: str,
    ):
        def ints(values: Sequence[int]) -> ArrayAttr:
            return ArrayAttr([IntegerAttr(v, i64) for v in values])

        super().__init__(
            operands=[indices],
            properties={
                "tensor": StringAttr(tensor),
                "block": ints(block),
                "shape": ints(shape),
                "source": StringAttr(source),
            },
        )

    def cpp_literal_args(self) -> tuple[Attribute, ...]:
        quoted = [_cpp_string(self.tensor.data), _cpp_string(self.source.data)]
        sizes = [len(self.indices), *(a.value.data for a in self.block), *(a.value.data for a in self.shape)]
        return (*quoted, *(IntegerAttr(v, i32) for v in sizes))

    def verify_(self) -> None:
        super().verify_()
        if not len(self.indices) == len(self.block) == len(self.shape):
            raise VerifyException(
                f"{len(self.indices)} indices for a block of rank {len(self.block)} in a tensor "
                f"of rank {len(self.shape)}"
            )


def _cpp_string(text: str) -> Attribute:
    """`text` as a C++ string literal (an opaque emitc attribute)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return EmitC_OpaqueAttr(StringAttr(f'"{escaped}"'))


@irdl_op_definition
class GetNocAddrOp(_DataMovementOp):
    """The NoC address of L1 address `addr` on the core at NoC coordinates (x, y)."""

    name = "ttkernel.get_noc_addr"
    x = operand_def(I32)
    y = operand_def(I32)
    addr = operand_def(I32)
    result = result_def(I64)
    assembly_format = _i32_operands_op(["x", "y", "addr"])

    def __init__(self, x: SSAValue, y: SSAValue, addr: SSAValue):
        super().__init__(operands=[x, y, addr], result_types=[i64])


@irdl_op_definition
class NocAsyncReadOp(_DataMovementOp):
    """Starts reading `size` bytes at NoC address `src_noc_addr` into L1 at
    `dst_l1_addr`."""

    name = "ttkernel.noc_async_read"
    src_noc_addr = operand_def(I64)
    dst_l1_addr = operand_def(I32)
    size = operand_def(I32)
    assembly_format = _i32_operands_op(["src_noc_addr", "dst_l1_addr", "size"])

    def __init__(self, src_noc_addr: SSAValue, dst_l1_addr: SSAValue, size: SSAValue):
        super().__init__(operands=[src_noc_addr, dst_l1_addr, size])


@irdl_op_definition
class NocAsyncWriteOp(_DataMovementOp):
    """Starts writing `size` bytes at L1 `src_l1_addr` to NoC address `dst_noc_addr`."""

    name = "ttkernel.noc_async_write"
    src_l1_addr = operand_def(I32)
    dst_noc_addr = operand_def(I64)
    size = operand_def(I32)
    assembly_format = _i32_operands_op(["src_l1_addr", "dst_noc_addr", "size"])

    def __init__(self, src_l1_addr: SSAValue, dst_noc_addr: SSAValue, size: SSAValue):
        super().__init__(operands=[src_l1_addr, dst_noc_addr, size])


@irdl_op_definition
class NocAsyncReadBarrierOp(_NoOperandOp, _DataMovementOp):
    """Blocks until every read this thread started has landed."""

    name = "ttkernel.noc_async_read_barrier"


class _TridOp(_DataMovementOp):
    """An op on a read transaction id `trid` (tt-metal's 0x0-0xF)."""

    trid = operand_def(I32)
    assembly_format = _i32_operands_op(["trid"])

    def __init__(self, trid: SSAValue):
        super().__init__(operands=[trid])


@irdl_op_definition
class NocAsyncReadSetTridOp(_TridOp):
    """The reads this thread starts next carry transaction id `trid`."""

    name = "ttkernel.noc_async_read_set_trid"


@irdl_op_definition
class NocAsyncReadBarrierWithTridOp(_TridOp):
    """Blocks until every read this thread started with transaction id `trid` has
    landed (the others may still be in flight)."""

    name = "ttkernel.noc_async_read_barrier_with_trid"


@irdl_op_definition
class NocAsyncWriteBarrierOp(_NoOperandOp, _DataMovementOp):
    """Blocks until every write this thread started has been acknowledged."""

    name = "ttkernel.noc_async_write_barrier"


@irdl_op_definition
class FillCausalMaskTileOp(_DataMovementOp):
    """Writes the bf16 additive causal mask tile at L1 `l1_addr` whose first key column
    lies `key_offset` columns right of its first query row: 0 where key <= query, -inf
    past it. tt-metal has no such call (its SDPA writes its mask tiles through L1
    pointers in a data-movement kernel, generate_mask), so the kernel source defines
    it: `CPP_DEFINITION`, plain tt-metal data-movement C++."""

    name = "ttkernel.fill_causal_mask_tile"
    l1_addr = operand_def(I32)
    key_offset = operand_def(I32)
    assembly_format = _i32_operands_op(["l1_addr", "key_offset"])

    # A bf16 tile is four 16x16 faces (top left, top right, bottom left, bottom right),
    # each row-major; 0xFF80 is bf16 -inf. Its keys run key_offset - 31 .. key_offset + 31
    # columns past its queries: a tile wholly below the diagonal is all 0, one wholly
    # above all -inf, written two values per 32-bit store; only the others compare.
    CPP_DEFINITION: ClassVar[str] = """\
#ifndef TTLANG_MODELED_COST  // the emulator's hook charging the helper's modeled time
#define TTLANG_MODELED_COST(helper)
#endif
static inline void fill_causal_mask_tile(uint32_t l1_addr, int32_t key_offset) {
  if (key_offset <= -31 || key_offset >= 32) {
    TTLANG_MODELED_COST("fill_uniform_tile");
    uint32_t value = key_offset >= 32 ? 0xFF80FF80u : 0u;
    volatile tt_l1_ptr uint32_t* words = reinterpret_cast<volatile tt_l1_ptr uint32_t*>(l1_addr);
    for (int32_t word = 0; word < 512; ++word) {
      words[word] = value;
    }
    return;
  }
  TTLANG_MODELED_COST("fill_causal_mask_tile");
  volatile tt_l1_ptr uint16_t* tile = reinterpret_cast<volatile tt_l1_ptr uint16_t*>(l1_addr);
  for (int32_t face = 0; face < 4; ++face) {
    for (int32_t row = 0; row < 16; ++row) {
      for (int32_t col = 0; col < 16; ++col) {
        int32_t key_past_query = key_offset + (face % 2) * 16 + col - (face / 2) * 16 - row;
        tile[face * 256 + row * 16 + col] = key_past_query > 0 ? 0xFF80 : 0x0000;
      }
    }
  }
}"""

    def __init__(self, l1_addr: SSAValue, key_offset: SSAValue):
        super().__init__(operands=[l1_addr, key_offset])


@irdl_op_definition
class CausalMaskFirstTileOp(_DataMovementOp):
    """The row-major index, in a mask block `cols` tiles wide, of the first tile whose
    causal mask is the one of tile (`row`, `col`), whose first key column lies
    `key_offset` columns right of its first query row (as `fill_causal_mask_tile`'s).
    The tiles of one diagonal (`col - row`) share a key offset, each diagonal 32 columns
    more than the one left of it, so a block holds at most four distinct tiles: all 0
    (key offset <= -31), all -inf (>= 32) and up to two across the diagonal. The lowering
    of `d2m.fill_causal_mask` writes the first of each with `fill_causal_mask_tile` and
    copies the others from it (tt-metal's SDPA reader does the same with the tiles of its
    masks, generate_mask). tt-metal has no such call: `CPP_DEFINITION`."""

    name = "ttkernel.causal_mask_first_tile"
    key_offset = operand_def(I32)
    row = operand_def(I32)
    col = operand_def(I32)
    cols = operand_def(I32)
    result = result_def(I32)
    assembly_format = _i32_operands_op(["key_offset", "row", "col", "cols"])

    # All -inf: the diagonals from (key_offset - 32) / 32 left of this one on; row 0 is
    # the first row holding any of them. All 0: the diagonals up to (-31 - key_offset) /
    # 32 right of this one; the first row holding one is the first whose column 0 does.
    # Across the diagonal: the top-left tile of its diagonal.
    CPP_DEFINITION: ClassVar[str] = """\
static inline int32_t causal_mask_first_tile(int32_t key_offset, int32_t row, int32_t col, int32_t cols) {
  int32_t diagonal = col - row;
  if (key_offset >= 32) {
    int32_t first = diagonal - (key_offset - 32) / 32;
    return first > 0 ? first : 0;
  }
  if (key_offset <= -31) {
    int32_t last = diagonal + (-31 - key_offset) / 32;
    return last < 0 ? -last * cols : 0;
  }
  int32_t back = row < col ? row : col;
  return (row - back) * cols + col - back;
}"""

    def __init__(self, key_offset: SSAValue, row: SSAValue, col: SSAValue, cols: SSAValue):
        super().__init__(operands=[key_offset, row, col, cols], result_types=[i32])


@irdl_op_definition
class GetSemaphoreOp(_DataMovementOp):
    """The L1 address of semaphore `semaphore_id` (the same on every core)."""

    name = "ttkernel.get_semaphore"
    semaphore_id = operand_def(I32)
    result = result_def(I32)
    assembly_format = _i32_operands_op(["semaphore_id"])

    def __init__(self, semaphore_id: SSAValue):
        super().__init__(operands=[semaphore_id], result_types=[i32])


class _LocalSemaphoreOp(_DataMovementOp):
    """An op on the semaphore at L1 address `sem_addr` of this core; the C++ call
    takes a `volatile uint32_t*`, which convert-ttkernel-to-emitc casts to."""

    sem_addr = operand_def(I32)
    value = operand_def(I32)
    assembly_format = _i32_operands_op(["sem_addr", "value"])

    def __init__(self, sem_addr: SSAValue, value: SSAValue):
        super().__init__(operands=[sem_addr, value])


@irdl_op_definition
class NocSemaphoreSetOp(_LocalSemaphoreOp):
    """Sets this core's semaphore at `sem_addr` to `value`."""

    name = "ttkernel.noc_semaphore_set"


@irdl_op_definition
class NocSemaphoreWaitOp(_LocalSemaphoreOp):
    """Blocks until this core's semaphore at `sem_addr` equals `value`."""

    name = "ttkernel.noc_semaphore_wait"


@irdl_op_definition
class NocSemaphoreIncOp(_DataMovementOp):
    """Atomically adds `incr` to the semaphore at NoC address `noc_addr`."""

    name = "ttkernel.noc_semaphore_inc"
    noc_addr = operand_def(I64)
    incr = operand_def(I32)
    assembly_format = _i32_operands_op(["noc_addr", "incr"])

    def __init__(self, noc_addr: SSAValue, incr: SSAValue):
        super().__init__(operands=[noc_addr, incr])


@irdl_op_definition
class GetNocMulticastAddrOp(_DataMovementOp):
    """The multicast NoC address of L1 address `addr` on the rectangle of cores from
    (x_start, y_start) to (x_end, y_end)."""

    name = "ttkernel.get_noc_multicast_addr"
    x_start = operand_def(I32)
    y_start = operand_def(I32)
    x_end = operand_def(I32)
    y_end = operand_def(I32)
    addr = operand_def(I32)
    result = result_def(I64)
    assembly_format = _i32_operands_op(["x_start", "y_start", "x_end", "y_end", "addr"])

    def __init__(
        self, x_start: SSAValue, y_start: SSAValue, x_end: SSAValue, y_end: SSAValue, addr: SSAValue
    ):
        super().__init__(operands=[x_start, y_start, x_end, y_end, addr], result_types=[i64])


@irdl_op_definition
class NocAsyncWriteMulticastOp(_DataMovementOp):
    """Starts writing `size` bytes at L1 `src_l1_addr` to `num_dests` cores at the
    multicast address `dst_mcast_addr`; `linked` (the call's `linked = true`): the NoC
    keeps the path for the sender's next multicast, to the same cores."""

    name = "ttkernel.noc_async_write_multicast"
    src_l1_addr = operand_def(I32)
    dst_mcast_addr = operand_def(I64)
    size = operand_def(I32)
    num_dests = operand_def(I32)
    linked = opt_prop_def(UnitAttr)
    assembly_format = (
        "`(` $src_l1_addr `,` $dst_mcast_addr `,` $size `,` $num_dests `)` (`linked` $linked^)? attr-dict"
    )

    def __init__(
        self,
        src_l1_addr: SSAValue,
        dst_mcast_addr: SSAValue,
        size: SSAValue,
        num_dests: SSAValue,
        linked: bool = False,
    ):
        super().__init__(
            operands=[src_l1_addr, dst_mcast_addr, size, num_dests],
            properties={"linked": UnitAttr()} if linked else {},
        )

    def cpp_trailing_literal_args(self) -> tuple[Attribute, ...]:
        return (EmitC_OpaqueAttr(StringAttr("true")),) if self.linked is not None else ()


@irdl_op_definition
class NocSemaphoreSetMulticastOp(_DataMovementOp):
    """Copies the semaphore value at L1 `src_l1_addr` to `num_dests` cores at the
    multicast address `dst_mcast_addr`."""

    name = "ttkernel.noc_semaphore_set_multicast"
    src_l1_addr = operand_def(I32)
    dst_mcast_addr = operand_def(I64)
    num_dests = operand_def(I32)
    assembly_format = _i32_operands_op(["src_l1_addr", "dst_mcast_addr", "num_dests"])

    def __init__(self, src_l1_addr: SSAValue, dst_mcast_addr: SSAValue, num_dests: SSAValue):
        super().__init__(operands=[src_l1_addr, dst_mcast_addr, num_dests])


# --------------------------------------------------------------------------- arguments


class _ArgValOp(TTKernelOp):
    THREADS: ClassVar[str] = "any"
    COMPUTE_HEADER: ClassVar[str | None] = "api/compute/common.h"
    index = prop_def(IntegerAttr[I32])
    result = result_def(I32)
    assembly_format = "`(` $index `)` attr-dict"

    def __init__(self, index: int):
        super().__init__(properties={"index": IntegerAttr(index, i32)}, result_types=[i32])

    def cpp_literal_args(self) -> tuple[Attribute, ...]:
        return (self.index,)

    def verify_(self) -> None:
        super().verify_()
        if self.index.value.data < 0:
            raise VerifyException(f"argument index must be non-negative, got {self.index.value.data}")


@irdl_op_definition
class GetArgValOp(_ArgValOp):
    """Runtime argument `index` of this kernel on this core (`get_arg_val<uint32_t>`)."""

    name = "ttkernel.get_arg_val"

    def cpp_template_args(self) -> tuple[str, ...]:
        return ("uint32_t",)


@irdl_op_definition
class GetArgValAtOp(TTKernelOp):
    """Runtime argument number `%index`, an i32 computed by the kernel:
    `get_arg_val<uint32_t>(index)`. A lookup in a table of runtime args (the NoC
    coordinate of a grid column or row)."""

    name = "ttkernel.get_arg_val_at"
    CALLEE: ClassVar[str | None] = "get_arg_val"
    THREADS: ClassVar[str] = "any"
    COMPUTE_HEADER: ClassVar[str | None] = "api/compute/common.h"
    index = operand_def(I32)
    result = result_def(I32)
    assembly_format = _i32_operands_op(["index"])

    def __init__(self, index: SSAValue):
        super().__init__(operands=[index], result_types=[i32])

    def cpp_template_args(self) -> tuple[str, ...]:
        return ("uint32_t",)


@irdl_op_definition
class GetCompileTimeArgValOp(_ArgValOp):
    """Compile-time argument `index` of this kernel (CB ids are passed this way)."""

    name = "ttkernel.get_compile_time_arg_val"


TTKernel = Dialect(
    "ttkernel",
    [
        CBWaitFrontOp,
        CBPopFrontOp,
        CBReserveBackOp,
        CBPushBackOp,
        GetWritePtrOp,
        GetReadPtrOp,
        GetTileSizeOp,
        TileRegsAcquireOp,
        TileRegsCommitOp,
        TileRegsWaitOp,
        TileRegsReleaseOp,
        CopyTileInitOp,
        CopyTileOp,
        PackTileOp,
        ReconfigDataFormatOp,
        ReconfigDataFormatSrcaOp,
        ReconfigDataFormatSrcbOp,
        PackReconfigDataFormatOp,
        PackReconfigL1AccOp,
        MMInitOp,
        MMInitShortOp,
        MatmulTilesOp,
        ReduceInitOp,
        ReduceTileOp,
        ReduceUninitOp,
        BinaryOpInitCommonOp,
        AddTilesInitOp,
        SubTilesInitOp,
        MulTilesInitOp,
        AddTilesOp,
        SubTilesOp,
        MulTilesOp,
        BinaryDestReuseTilesInitOp,
        BinaryDestReuseTilesOp,
        InitBcastOp,
        AddTilesBcastOp,
        SubTilesBcastOp,
        MulTilesBcastOp,
        UnaryBcastInitOp,
        UnaryBcastOp,
        TransposeWHInitOp,
        TransposeWHTileOp,
        InitSFPUOp,
        UnaryOpInitCommonOp,
        ExpTileInitOp,
        ExpTileOp,
        RecipTileInitOp,
        RecipTileOp,
        SqrtTileInitOp,
        SqrtTileOp,
        RsqrtTileInitOp,
        RsqrtTileOp,
        NegativeTileInitOp,
        NegativeTileOp,
        AbsTileInitOp,
        AbsTileOp,
        FillTileInitOp,
        FillTileOp,
        BinopWithScalarTileInitOp,
        AddUnaryTileOp,
        SubUnaryTileOp,
        MulUnaryTileOp,
        DivUnaryTileOp,
        RsubUnaryTileOp,
        AddBinaryTileInitOp,
        AddBinaryTileOp,
        SubBinaryTileInitOp,
        SubBinaryTileOp,
        MulBinaryTileInitOp,
        MulBinaryTileOp,
        DivBinaryTileInitOp,
        DivBinaryTileOp,
        BinaryMaxTileInitOp,
        BinaryMaxTileOp,
        CopyDestValuesInitOp,
        CopyDestValuesOp,
        WhereTileInitOp,
        WhereTileOp,
        GetInterleavedAddrGenFastOp,
        NocAsyncReadTileOp,
        NocAsyncWriteTileOp,
        CheckTileBlockOp,
        GetNocAddrOp,
        NocAsyncReadOp,
        NocAsyncWriteOp,
        NocAsyncReadBarrierOp,
        NocAsyncReadSetTridOp,
        NocAsyncReadBarrierWithTridOp,
        NocAsyncWriteBarrierOp,
        FillCausalMaskTileOp,
        CausalMaskFirstTileOp,
        GetSemaphoreOp,
        NocSemaphoreSetOp,
        NocSemaphoreWaitOp,
        NocSemaphoreIncOp,
        GetNocMulticastAddrOp,
        NocAsyncWriteMulticastOp,
        NocSemaphoreSetMulticastOp,
        GetArgValOp,
        GetArgValAtOp,
        GetCompileTimeArgValOp,
    ],
    [
        ThreadAttr,
        PoolTypeAttr,
        ReduceDimAttr,
        BroadcastTypeAttr,
        BinaryOpAttr,
        ReuseDestAttr,
        InterleavedAddrGenFastType,
    ],
)
