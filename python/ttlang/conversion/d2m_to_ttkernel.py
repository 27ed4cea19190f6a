"""convert-d2m-to-ttkernel: each thread of a kernel's `d2m.generic` becomes a kernel
function of ttkernel ops; the kernel function's launch facts move to the module.

Input: a kernel `func.func` (DRAM memref arguments) holding one `d2m.generic` whose
compute region is at the loop stage (d2m-lower-to-loops). Output: one function per
thread, `@<kernel>_compute`, `@<kernel>_reader`, `@<kernel>_writer` (data-movement
threads in order), each marked `ttkernel.thread`, taking no arguments; and the module
attribute `ttlang.program` describing the launch for program assembly:

    builtin.module attributes {ttlang.program = {
        name = "add", grid = #ttcore.grid<1x1>,
        buffers = [["lhs", "input", memref<...dram>], ...],  // the kernel's tensors, in order
        cbs = [!d2m.cb<...>, ...],               // by CB id: operand CBs, then local CBs
        kernels = [["add_compute", "compute"], ["add_reader", "reader"], ...],
        semaphores = 0,                          // how many, each starting at 0
        runtime_args = [["buffer_address", 0], ..., ["core_index", 0], ["core_index", 1],
                        ["grid_size", 0], ["grid_size", 1]],
        compute_config = {...}}}

Kernel arguments, the same for every kernel: compile-time argument `i` is the id of CB
`i`; the runtime arguments are listed by `runtime_args` (DRAM base address of each
tensor, the core's coordinates and the grid size, then the NoC x of every grid column
and the NoC y of every grid row: a kernel addresses another core by looking its
coordinates up there, so each launcher numbers the NoC as its target does).

Rewrites (the CB, DMA, multicast, semaphore and grid ops by one conversion pattern per
op family, `CB_DMA_SEMAPHORE_PATTERNS`; the tile ops by one lowering function per family,
`_TILE_OP_LOWERINGS`):
- CB ops: `d2m.wait/reserve/pop/push` -> `cb_wait_front/cb_reserve_back/cb_pop_front/
  cb_push_back` of the block's tile count.
- DMA: `d2m.dma_read/dma_write` of a block -> loops over the block's tiles issuing
  `noc_async_read_tile/write_tile` through an `InterleavedAddrGenFast` built from the
  buffer's address argument (a read of `rows(start, stop)`: those tile rows, `start`
  rows past the block's L1 address and DRAM index); `d2m.dma_wait` -> the read or
  write barrier. Before the
  loops, the block is checked against the tensor's tile shape per dimension: constant
  indices here (a PassError when outside), others by `ttkernel.check_tile_block`, which
  the emulator runs (pages are numbered row-major: a block past a row's end would move
  the next row's tiles).
- Multicast: `d2m.dma_mcast` -> `noc_async_write_multicast` of the block (of its tile
  rows `rows(start, stop)`: one run of bytes) to the same address on the rectangle's
  cores other than the sender; the rectangle's corners are
  the NoC coordinates of its first and last column and row (the `noc_x`/`noc_y` args);
  a `linked` one passes `linked = true`.
- Causal masks: `d2m.fill_causal_mask` of a reserved block -> loops over its tiles;
  the first tile of each distinct mask (`ttkernel.causal_mask_first_tile`, chosen at
  run time) is written with `fill_causal_mask_tile`, every other is a
  `noc_async_read` of 2 KiB from that first tile at this core's own NoC coordinates;
  then `noc_async_read_barrier` (tt-metal's SDPA reader builds its masks so).
- Semaphores (the generic's block arguments after the CBs; id = position among them):
  `semaphore_wait` -> `noc_semaphore_wait` (+ `noc_semaphore_set` of the reset value);
  `semaphore_set` -> `noc_semaphore_set` here and, with a core or rectangle,
  `noc_semaphore_set_multicast` of this core's word there; `semaphore_inc` ->
  `noc_semaphore_inc` at the core's NoC address.
- DST sections: `d2m.acquire/commit/wait/release_dst` -> `tile_regs_*`.
- Tiles: `memref.store (memref.load %cb_block[..]), %dst[s]` -> `copy_tile`; a load
  through a `d2m.block_view` reads the viewed block's tile, the view's row offset added
  to the row index (the view itself emits nothing);
  `memref.store %r, %dst[s]` of a tile op -> the kernel-API call computing `%r` into
  slot `s` on the engine d2m-dst-allocate recorded (the op's `engine` property; one
  lowering function per op family, `_TILE_OP_LOWERINGS`), with CB operands and tile
  indices taken from the loads that feed it: add/sub/mul on `fpu` read both operands
  from CBs (a second operand broadcast on the `unpack` engine is the `*_tiles_bcast`
  form), on `dest_to_srca`/`dest_to_srcb` are `binary_dest_reuse_tiles` (the DST
  operand's slot takes the result), on `sfpu` the SFPU form; a matmul whose B is a
  `d2m.tile_transpose` on the `unpack` engine reads that tile with the unpacker's
  transpose (`mm_init`/`matmul_tiles` `transpose = 1`);
  a `d2m.tile_copy` of a DST tile is `copy_dest_values<format>(s, d)` (source first);
  `d2m.tile_where` (all three operands in DST) is `where_tile` in DST's format (f32 with
  `fp32_dest_acc_en`, else bf16);
  `memref.store (memref.load %dst[s]), %cb_block[..]` -> `pack_tile`.
- Each compute call directly follows its init; ttkernel-place-inits (the next pass)
  hoists and deduplicates them.
- `arith`/`scf` on `index` -> the same on `i32` (the kernel API's `uint32_t`).

Before (compute region, one output tile):

    %dst = d2m.acquire_dst : memref<8x!tile, #dst>
    %a = memref.load %lhs[%i, %j] : memref<2x2x!tile, #l1>
    %b = memref.load %rhs[%i, %j] : memref<2x2x!tile, #l1>
    %s = d2m.tile_add %a, %b : !tile
    memref.store %s, %dst[%c0] : memref<8x!tile, #dst>
    d2m.commit_dst %dst ...

After:

    ttkernel.tile_regs_acquire()
    ttkernel.add_tiles_init(%lhs_cb, %rhs_cb)
    ttkernel.add_tiles(%lhs_cb, %rhs_cb, %t, %t, %c0)
    ttkernel.tile_regs_commit()

Fails (PassError) on ops it has no kernel-API form for (`d2m.iter_index`), on loops or branches carrying values, on a DMA block
at constant indices outside its tensor, on DMA and multicast of
blocks not from `d2m.wait`/`d2m.reserve` or to memrefs that are not kernel arguments,
on tile operands it cannot trace to a CB block or a DST slot, on more than one generic
per kernel function and on more than one kernel per module.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from math import prod
from typing import ClassVar

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    Float32Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    i32,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from ttlang.dialects import d2m, ttkernel
from ttlang.device import load_device
from ttlang.dialects.ttcore import DataType, MemorySpace, TileType, constant_int, device_of
from ttlang.transforms.analysis.compute_config import COMPUTE_CONFIG_ATTR, compute_config_of
from ttlang.transforms.analysis.provenance import CBBlock, DstRegister, memref_origin
from ttlang.transforms.diagnostics import PassError, PassInvariantError, source_location

MAX_READ_TRID = 15
"""Read transaction ids the DMA reads cycle through (tt-metal's NOC_MAX_TRANSACTION_ID)."""

PROGRAM_ATTR = "ttlang.program"
"""The module attribute describing the launch (see the module docstring)."""

GRID_RANK = 2

# d2m tile op -> (init op, op) of the kernel API, one table per operand form.
_SFPU_UNARY: dict[type[Operation], tuple[type[ttkernel.TTKernelOp], type[ttkernel.TTKernelOp]]] = {
    d2m.TileExpOp: (ttkernel.ExpTileInitOp, ttkernel.ExpTileOp),
    d2m.TileSqrtOp: (ttkernel.SqrtTileInitOp, ttkernel.SqrtTileOp),
    d2m.TileRsqrtOp: (ttkernel.RsqrtTileInitOp, ttkernel.RsqrtTileOp),
    d2m.TileRecipOp: (ttkernel.RecipTileInitOp, ttkernel.RecipTileOp),
    d2m.TileNegOp: (ttkernel.NegativeTileInitOp, ttkernel.NegativeTileOp),
    d2m.TileAbsOp: (ttkernel.AbsTileInitOp, ttkernel.AbsTileOp),
}
_SCALAR: dict[type[Operation], type[ttkernel.TTKernelOp]] = {
    d2m.TileAddScalarOp: ttkernel.AddUnaryTileOp,
    d2m.TileSubScalarOp: ttkernel.SubUnaryTileOp,
    d2m.TileRsubScalarOp: ttkernel.RsubUnaryTileOp,
    d2m.TileMulScalarOp: ttkernel.MulUnaryTileOp,
    d2m.TileDivScalarOp: ttkernel.DivUnaryTileOp,
}
_FPU_BINARY: dict[type[Operation], tuple[type[ttkernel.TTKernelOp], type[ttkernel.TTKernelOp]]] = {
    d2m.TileAddOp: (ttkernel.AddTilesInitOp, ttkernel.AddTilesOp),
    d2m.TileSubOp: (ttkernel.SubTilesInitOp, ttkernel.SubTilesOp),
    d2m.TileMulOp: (ttkernel.MulTilesInitOp, ttkernel.MulTilesOp),
}
# add/sub/mul whose second operand is a broadcast CB tile: the FPU broadcasts it.
_FPU_BROADCAST: dict[type[Operation], tuple[ttkernel.BinaryOp, type[ttkernel.TTKernelOp]]] = {
    d2m.TileAddOp: (ttkernel.BinaryOp.ADD, ttkernel.AddTilesBcastOp),
    d2m.TileSubOp: (ttkernel.BinaryOp.SUB, ttkernel.SubTilesBcastOp),
    d2m.TileMulOp: (ttkernel.BinaryOp.MUL, ttkernel.MulTilesBcastOp),
}
_SFPU_BINARY: dict[type[Operation], tuple[type[ttkernel.TTKernelOp], type[ttkernel.TTKernelOp]]] = {
    d2m.TileAddOp: (ttkernel.AddBinaryTileInitOp, ttkernel.AddBinaryTileOp),
    d2m.TileSubOp: (ttkernel.SubBinaryTileInitOp, ttkernel.SubBinaryTileOp),
    d2m.TileMulOp: (ttkernel.MulBinaryTileInitOp, ttkernel.MulBinaryTileOp),
    d2m.TileDivOp: (ttkernel.DivBinaryTileInitOp, ttkernel.DivBinaryTileOp),
    d2m.TileMaximumOp: (ttkernel.BinaryMaxTileInitOp, ttkernel.BinaryMaxTileOp),
}
_REDUCE_POOL = {
    d2m.TileReduceSumOp: ttkernel.PoolType.SUM,
    d2m.TileReduceMaxOp: ttkernel.PoolType.MAX,
}
_REDUCE_DIM = {
    d2m.TileDim.ROW: ttkernel.ReduceDim.ROW,
    d2m.TileDim.COL: ttkernel.ReduceDim.COL,
    d2m.TileDim.SCALAR: ttkernel.ReduceDim.SCALAR,
}
_BCAST = {
    d2m.TileDim.ROW: ttkernel.BroadcastType.ROW,
    d2m.TileDim.COL: ttkernel.BroadcastType.COL,
    d2m.TileDim.SCALAR: ttkernel.BroadcastType.SCALAR,
}
_DATA_MOVEMENT_THREADS = (ttkernel.Thread.READER, ttkernel.Thread.WRITER)


_GRID_ARG_NAMES = {
    ("core_index", 0): "core_row",
    ("core_index", 1): "core_col",
    ("grid_size", 0): "grid_rows",
    ("grid_size", 1): "grid_cols",
}


def runtime_arg_layout(num_buffers: int, grid: Sequence[int]) -> list[tuple[str, int]]:
    """The runtime arguments every kernel receives, in order, on a (rows, cols) grid."""
    rows, cols = grid
    return (
        [("buffer_address", index) for index in range(num_buffers)]
        + [("core_index", dim) for dim in range(GRID_RANK)]
        + [("grid_size", dim) for dim in range(GRID_RANK)]
        + [("noc_x", col) for col in range(cols)]
        + [("noc_y", row) for row in range(rows)]
    )


def _is_index(type_: Attribute) -> bool:
    return isinstance(type_, IndexType)


def _i32(builder: Builder, value: int) -> SSAValue:
    return builder.insert(arith.ConstantOp.from_int_and_width(value, i32)).result


def _f32_bits(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


def _block_tiles(block_type: MemRefType) -> int:
    count = 1
    for extent in block_type.get_shape():
        count *= extent
    return count


def _linearize(builder: Builder, indices: Sequence[SSAValue], shape: Sequence[int]) -> SSAValue:
    """The row-major position of `indices` in `shape`, as an i32."""
    linear = indices[0]
    for index, extent in zip(indices[1:], shape[1:]):
        scaled = builder.insert(arith.MuliOp(linear, _i32(builder, extent))).result
        linear = builder.insert(arith.AddiOp(scaled, index)).result
    return linear


@dataclass(frozen=True)
class CBTile:
    """Tile `tile` of the CB `cb` (both i32 values of the kernel)."""

    cb: SSAValue
    tile: SSAValue


@dataclass(frozen=True)
class DstTile:
    """The tile in DST slot `slot` (an i32 value of the kernel)."""

    slot: SSAValue


@dataclass
class _KernelBuilder:
    """Translates one thread region into the body of one kernel function."""

    generic: d2m.GenericOp
    thread: ttkernel.Thread
    kernel_args: Sequence[SSAValue]  # the kernel function's DRAM memrefs
    cb_ids: dict[SSAValue, int]  # old CB value -> CB id
    body: Block = field(default_factory=Block)
    values: dict[SSAValue, SSAValue] = field(default_factory=dict)
    cbs: dict[SSAValue, SSAValue] = field(default_factory=dict)  # old CB -> new i32 id
    tiles: dict[SSAValue, CBTile | DstTile] = field(default_factory=dict)
    # tx -> its read's transaction id (None: a write)
    transfers: dict[SSAValue, int | None] = field(default_factory=dict)
    addr_gens: dict[int, SSAValue] = field(default_factory=dict)
    runtime_args: dict[tuple[str, int], int] = field(default_factory=dict)
    pack_cb: dict[SSAValue, SSAValue] = field(default_factory=dict)  # old dst -> new out CB
    section_out_cb: SSAValue | None = None
    constants: dict[int, SSAValue] = field(default_factory=dict)
    prologue: Block = field(default_factory=Block)  # kernel arguments and constants
    entry: Builder = field(init=False)

    def __post_init__(self) -> None:
        self.entry = Builder(InsertPoint.at_end(self.prologue))
        layout = runtime_arg_layout(len(self.kernel_args), self.generic.grid.shape)
        self.runtime_args = {arg: index for index, arg in enumerate(layout)}

    @property
    def noc(self) -> int:
        """The NoC the kernel's RISC uses on the target (its `noc_index`): the device's
        `reader_noc` or `writer_noc`."""
        return load_device(device_of(self.generic).device_name.data).kernel_noc(self.thread.value)

    # ------------------------------------------------------------------ entry values

    def cb(self, old: SSAValue) -> SSAValue:
        """The kernel's i32 id of the CB `old` (a compile-time argument)."""
        if old not in self.cbs:
            index = self.cb_ids[old]
            cb = self.entry.insert(ttkernel.GetCompileTimeArgValOp(index)).result
            cb.name_hint = old.name_hint or f"cb{index}"
            self.cbs[old] = cb
        return self.cbs[old]

    def read_trid(self) -> int:
        """The transaction id of the thread's next DMA read op: 1, 2, ..., 15, then 1
        again (tt-metal's ids are 0x0-0xF; 0 stays the default). Ops sharing an id only
        make a wait wait for more."""
        reads = sum(1 for trid in self.transfers.values() if trid is not None)
        return reads % MAX_READ_TRID + 1

    def const(self, value: int) -> SSAValue:
        """An i32 constant defined at kernel entry (so that inits using it can be hoisted)."""
        if value not in self.constants:
            self.constants[value] = _i32(self.entry, value)
        return self.constants[value]

    def addr_gen(self, buffer: SSAValue, op: Operation) -> SSAValue:
        """An address generator over the kernel tensor `buffer`, built at kernel entry."""
        if buffer not in self.kernel_args:
            raise PassError(op, "moves data to or from a memref that is not a kernel argument.")
        index = list(self.kernel_args).index(buffer)
        if index not in self.addr_gens:
            buffer_type = buffer.type
            assert isinstance(buffer_type, MemRefType)
            tile = buffer_type.get_element_type()
            assert isinstance(tile, TileType)
            name = buffer.name_hint or f"arg{index}"
            address = self.runtime_arg("buffer_address", index, self.entry)
            address.name_hint = f"{name}_addr"
            page_size = self.const(tile.size_bytes())
            generator = self.entry.insert(
                ttkernel.GetInterleavedAddrGenFastOp(
                    MemorySpace.DRAM, address, page_size, tile.element_format
                )
            ).result
            generator.name_hint = f"{name}_pages"
            self.addr_gens[index] = generator
        return self.addr_gens[index]

    # ------------------------------------------------------------------ translation

    def translate(self, region: Region) -> Block:
        for arg in region.block.args:
            if isinstance(arg.type, d2m.CBType):
                self.cb(arg)
        if self.thread.is_compute:
            self._hw_startup(region)
            self._find_pack_targets(region)
        self.block(region.block, Builder(InsertPoint.at_end(self.body)))
        Builder(InsertPoint.at_end(self.body)).insert(func.ReturnOp())
        first = self.body.first_op
        for op in list(self.prologue.ops):
            op.detach()
            self.body.insert_op_before(op, first)
        return self.body

    def _hw_startup(self, region: Region) -> None:
        """tt-metal's one-time configuration of unpacker, math and packer, for the
        generic's first two inputs and its first output (an output stands in for
        missing inputs, and the other way round)."""
        operand_cbs = region.block.args[: len(self.generic.operands)]
        if not operand_cbs:
            return
        num_inputs = len(self.generic.inputs)
        inputs = list(operand_cbs[:num_inputs]) or [operand_cbs[-1]]
        outputs = list(operand_cbs[num_inputs:]) or [operand_cbs[0]]
        in1 = inputs[1] if len(inputs) > 1 else inputs[0]
        self.entry.insert(
            ttkernel.BinaryOpInitCommonOp(self.cb(inputs[0]), self.cb(in1), self.cb(outputs[0]))
        )

    def _find_pack_targets(self, region: Region) -> None:
        """For each DST section, the CB its results are packed into (the inits name it)."""
        for op in region.walk():
            if not isinstance(op, memref.StoreOp) or not isinstance(op.value.owner, memref.LoadOp):
                continue
            source, target = memref_origin(op.value.owner.memref), memref_origin(op.memref)
            if isinstance(source, DstRegister) and isinstance(target, CBBlock):
                self.pack_cb.setdefault(source.op.result, self.cb(target.cb))

    def block(self, block: Block, builder: Builder) -> None:
        for op in block.ops:
            self.op(op, builder)

    def op(self, op: Operation, builder: Builder) -> None:
        handler = _HANDLERS.get(type(op))
        if handler is not None:
            handler(self, op, builder)
        elif isinstance(op, _TILE_OPS):
            pass  # emitted where its result is stored into DST
        elif op.name.startswith("arith."):
            self.arith(op, builder)
        else:
            raise PassError(op, f"has no kernel-API form in a {self.thread.value} kernel.")

    def arith(self, op: Operation, builder: Builder) -> None:
        """`arith` ops carry over, `index` becoming the kernel API's i32."""
        if isinstance(op, arith.ConstantOp) and _is_index(op.result.type):
            assert isinstance(op.value, IntegerAttr)
            self.values[op.result] = _i32(builder, op.value.value.data)
            return
        if isinstance(op, arith.IndexCastOp) and self.value(op.input).type == i32:
            self.values[op.result] = self.value(op.input)  # i32 to index: both i32 now
            return
        new = type(op).create(
            operands=[self.value(operand) for operand in op.operands],
            result_types=[i32 if _is_index(r.type) else r.type for r in op.results],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
        )
        builder.insert(new)
        for old, result in zip(op.results, new.results):
            self.values[old] = result

    def value(self, old: SSAValue) -> SSAValue:
        return self.values.get(old, old)

    # ------------------------------------------------------------------ control flow

    def for_op(self, op: scf.ForOp, builder: Builder) -> None:
        if op.iter_args:
            raise PassError(
                op, "carries values across iterations; kernels take loops without them."
            )
        body = Block(arg_types=[i32])
        self.values[op.body.block.args[0]] = body.args[0]
        builder.insert(
            scf.ForOp(self.value(op.lb), self.value(op.ub), self.value(op.step), [], body)
        )
        inner = Builder(InsertPoint.at_end(body))
        for inner_op in op.body.block.ops:
            if not isinstance(inner_op, scf.YieldOp):
                self.op(inner_op, inner)
        inner.insert(scf.YieldOp())

    def if_op(self, op: scf.IfOp, builder: Builder) -> None:
        if op.results:
            raise PassError(op, "yields values; kernels take branches without them.")
        branches: list[Region] = []
        for region in (op.true_region, op.false_region):
            block = Block()
            inner = Builder(InsertPoint.at_end(block))
            for inner_op in region.block.ops if region.blocks else ():
                if not isinstance(inner_op, scf.YieldOp):
                    self.op(inner_op, inner)
            inner.insert(scf.YieldOp())
            branches.append(Region(block))
        builder.insert(scf.IfOp(self.value(op.cond), [], branches[0], branches[1]))

    # ------------------------------------------------------------------ helpers of the patterns

    def check_tile_block(
        self,
        op: d2m.DMAReadOp | d2m.DMAWriteOp,
        dram: SSAValue,
        origin: Sequence[SSAValue],
        block_shape: Sequence[int],
        builder: Builder,
    ) -> None:
        """The bounds check of a transfer's block: an error here when every index is a
        constant, else `ttkernel.check_tile_block` for the emulator to run (pages are
        numbered row-major: a block past a row's end would move the next row's tiles)."""
        dram_type = dram.type
        assert isinstance(dram_type, MemRefType)
        shape = dram_type.get_shape()
        name = dram.name_hint or f"arg{list(self.kernel_args).index(dram)}"
        constants = [constant_int(index) for index in origin]
        for dim, (index, tiles, extent) in enumerate(zip(constants, block_shape, shape)):
            if index is not None and not 0 <= index <= extent - tiles:
                raise PassError(
                    op,
                    f"moves a block of {tiles} tiles at tile {index} of dim {dim}, outside "
                    f"`{name}` ({extent} tiles).",
                )
        if None not in constants:
            return
        location = source_location(op)
        source = "" if location is None else f"{location.filename.data}:{location.line.data}"
        builder.insert(ttkernel.CheckTileBlockOp(origin, name, block_shape, shape, source))

    def block_address(self, block: SSAValue, builder: Builder, first_row: int = 0) -> SSAValue:
        """The L1 address of a CB block (read pointer after wait, write pointer after
        reserve), or of its tile row `first_row` (the dims before its rows are 1)."""
        origin = memref_origin(block)
        assert isinstance(origin, CBBlock)
        query = ttkernel.GetReadPtrOp if origin.is_front else ttkernel.GetWritePtrOp
        address = builder.insert(query(self.cb(origin.cb))).result
        if not first_row:
            return address
        block_type = block.type
        assert isinstance(block_type, MemRefType)
        tile = block_type.get_element_type()
        assert isinstance(tile, TileType)
        offset = _i32(builder, first_row * block_type.get_shape()[-1] * tile.size_bytes())
        return builder.insert(arith.AddiOp(address, offset)).result

    def core_rectangle(
        self, corner: Sequence[SSAValue], extent: Sequence[SSAValue], builder: Builder
    ) -> tuple[list[SSAValue], SSAValue]:
        """NoC (x_start, y_start, x_end, y_end) of the cores from `corner` (row, col) over
        `extent` (rows, cols), all i32 kernel values, as the kernel's NoC reads a
        multicast rectangle (NoC 1 from the far corner, as tt-metal's programs swap it),
        and how many of them are not this core (multicasts skip the sender)."""
        one = _i32(builder, 1)
        inside: list[SSAValue] = []
        for dim, (first, count) in enumerate(zip(corner, extent)):
            own = self.runtime_arg("core_index", dim, builder)
            offset = builder.insert(arith.SubiOp(own, first)).result  # wraps below `first`
            inside.append(builder.insert(arith.CmpiOp(offset, count, "ult")).result)
        sender_inside = builder.insert(
            arith.ExtUIOp(builder.insert(arith.AndIOp(*inside)).result, i32)
        ).result
        cores = builder.insert(arith.MuliOp(*extent)).result
        receivers = builder.insert(arith.SubiOp(cores, sender_inside)).result
        last_row, last_col = (
            builder.insert(
                arith.SubiOp(builder.insert(arith.AddiOp(first, count)).result, one)
            ).result
            for first, count in zip(corner, extent)
        )
        row, col = corner
        x_start, x_end = (self.noc_coordinate("noc_x", c, builder) for c in (col, last_col))
        y_start, y_end = (self.noc_coordinate("noc_y", r, builder) for r in (row, last_row))
        if self.noc == 1:  # NoC 1 runs backwards: its rectangles start at the far corner
            return [x_end, y_end, x_start, y_start], receivers
        return [x_start, y_start, x_end, y_end], receivers

    def noc_coordinate(self, table: str, logical: SSAValue, builder: Builder) -> SSAValue:
        """The NoC x of grid column `logical` (`table` "noc_x") or the NoC y of grid row
        `logical` ("noc_y"), looked up in the runtime args."""
        first = _i32(builder, self.runtime_args[(table, 0)])
        index = builder.insert(arith.AddiOp(first, logical)).result
        value = builder.insert(ttkernel.GetArgValAtOp(index)).result
        value.name_hint = table
        return value

    def runtime_arg(self, kind: str, index: int, builder: Builder) -> SSAValue:
        """Runtime argument `kind` `index` of this kernel (see `runtime_arg_layout`)."""
        value = builder.insert(ttkernel.GetArgValOp(self.runtime_args[(kind, index)])).result
        value.name_hint = _GRID_ARG_NAMES.get((kind, index))
        return value

    def semaphore(self, old: SSAValue, builder: Builder) -> SSAValue:
        """This core's L1 address of the semaphore block argument `old`."""
        assert isinstance(old, BlockArgument)
        cbs = sum(isinstance(t, d2m.CBType) for t in old.block.arg_types)
        semaphore_id = old.index - cbs
        return builder.insert(ttkernel.GetSemaphoreOp(_i32(builder, semaphore_id))).result

    # ------------------------------------------------------------------ compute

    def dst_section(self, op: Operation, builder: Builder) -> None:
        if isinstance(op, d2m.AcquireDstOp):
            self.section_out_cb = self.pack_cb.get(op.result)
        call = {
            d2m.AcquireDstOp: ttkernel.TileRegsAcquireOp,
            d2m.CommitDstOp: ttkernel.TileRegsCommitOp,
            d2m.WaitDstOp: ttkernel.TileRegsWaitOp,
            d2m.ReleaseDstOp: ttkernel.TileRegsReleaseOp,
        }[type(op)]
        builder.insert(call())

    def load(self, op: memref.LoadOp, builder: Builder) -> None:
        origin = memref_origin(op.memref)
        if isinstance(origin, DstRegister):
            (slot,) = op.indices
            self.tiles[op.res] = DstTile(self.value(slot))
            return
        if not isinstance(origin, CBBlock):
            raise PassError(op, "reads a tile from a memref that is neither DST nor a CB block.")
        if not origin.is_front:
            raise PassError(
                op,
                "reads a tile of a block taken with d2m.reserve; the unpacker reads only a "
                "CB's front (a block taken with d2m.wait).",
            )
        self.tiles[op.res] = CBTile(self.cb(origin.cb), self.tile_index(op.memref, op.indices, builder))

    def store(self, op: memref.StoreOp, builder: Builder) -> None:
        origin = memref_origin(op.memref)
        if isinstance(origin, DstRegister):
            (slot,) = op.indices
            self.compute_into(op.value, self.value(slot), builder)
            return
        source = self.tiles.get(op.value)
        if not isinstance(origin, CBBlock) or not isinstance(source, DstTile):
            raise PassError(op, "stores a tile that is not packed from DST into a CB block.")
        if origin.is_front:
            raise PassError(
                op,
                "packs a tile into a block taken with d2m.wait; the packer writes only a CB's "
                "back (a block taken with d2m.reserve).",
            )
        index = self.tile_index(op.memref, op.indices, builder)
        builder.insert(ttkernel.PackTileOp(source.slot, self.cb(origin.cb), index))

    def block_view(self, op: d2m.BlockViewOp, builder: Builder) -> None:
        """A view emits nothing: the reads through it add its offset (`tile_index`)."""

    def pack_l1_acc(self, op: d2m.PackL1AccOp, builder: Builder) -> None:
        """`d2m.pack_l1_acc` -> `pack_reconfig_l1_acc` of the flag as a uint32_t."""
        flag = op.enable.owner
        if isinstance(flag, arith.ConstantOp) and isinstance(flag.value, IntegerAttr):
            l1_acc_en = _i32(builder, int(flag.value.value.data != 0))
        else:
            l1_acc_en = builder.insert(arith.ExtUIOp(self.value(op.enable), i32)).result
        builder.insert(ttkernel.PackReconfigL1AccOp(l1_acc_en))

    def tile_index(
        self, block: SSAValue, indices: Sequence[SSAValue], builder: Builder
    ) -> SSAValue:
        """The row-major position of tile `indices` in the CB block `block` (an i32); in
        the block a `d2m.block_view` views, its rows shifted by the view's offset."""
        positions = [self.value(i) for i in indices]
        view = block.owner
        if isinstance(view, d2m.BlockViewOp):
            block = view.source
            offset = _i32(builder, view.row_offset)
            positions[-2] = builder.insert(arith.AddiOp(positions[-2], offset)).result
        block_type = block.type
        assert isinstance(block_type, MemRefType)
        return _linearize(builder, positions, block_type.get_shape())

    def out_cb(self, fallback: SSAValue) -> SSAValue:
        return self.section_out_cb if self.section_out_cb is not None else fallback

    def operand(self, value: SSAValue, op: Operation, want_cb: bool) -> CBTile | DstTile:
        location = self.tiles.get(value)
        if location is None or isinstance(location, CBTile) != want_cb:
            where = "a CB" if want_cb else "DST"
            raise PassInvariantError(
                op, f"needs its operand in {where}; run d2m-lower-to-loops first."
            )
        return location

    def compute_into(self, value: SSAValue, dst: SSAValue, builder: Builder) -> None:
        """Emits the kernel-API call that leaves `value` in DST slot `dst`, after its init
        (ttkernel-place-inits removes the inits already in force): a copy_tile for a CB
        tile, else the lowering of the op's family on the engine d2m-dst-allocate chose."""
        source = self.tiles.get(value)
        if isinstance(source, CBTile):
            builder.insert(ttkernel.CopyTileInitOp(source.cb))
            builder.insert(ttkernel.CopyTileOp(source.cb, source.tile, dst))
            return
        op = value.owner
        assert isinstance(op, Operation)
        engine = getattr(op, "engine", None)
        if not isinstance(engine, d2m.EngineAttr):
            raise PassError(op, "has no engine; run d2m-dst-allocate first.")
        lowering = _TILE_OP_LOWERINGS[type(op)]
        lowering(self, op, engine.data, dst, builder)


# ----------------------------------------------------------------------- CB, DMA, semaphores
# One conversion pattern per op family, as tt-mlir's D2MToTTKernel has: `lower(k, op,
# builder)` is its matchAndRewrite, with the kernel builder `k` as the adaptor (`k.value`
# maps an operand to its converted value, `k.cb` a CB to its id) and `builder` as the
# rewriter, inserting the kernel-API calls where the op stood.


class ConversionPattern:
    """Lowers the ops of one family (`ops`) into the kernel function being built."""

    ops: ClassVar[tuple[type[Operation], ...]] = ()

    def lower(self, k: _KernelBuilder, op: Operation, builder: Builder) -> None:
        raise NotImplementedError


class LowerLocalCB(ConversionPattern):
    """A compute-local CB: its id (a compile-time argument) at kernel entry."""

    ops = (d2m.LocalCBOp,)

    def lower(  # type: ignore[override]
        self, k: _KernelBuilder, op: d2m.LocalCBOp, builder: Builder
    ) -> None:
        k.cb(op.result)


class LowerCB(ConversionPattern):
    """`d2m.wait`/`reserve`/`pop`/`push` -> `cb_wait_front`/`cb_reserve_back`/
    `cb_pop_front`/`cb_push_back` of the block's tiles."""

    ops = (d2m.WaitOp, d2m.ReserveOp, d2m.PopOp, d2m.PushOp)
    calls: ClassVar[dict[type[Operation], type[Operation]]] = {
        d2m.WaitOp: ttkernel.CBWaitFrontOp,
        d2m.ReserveOp: ttkernel.CBReserveBackOp,
        d2m.PopOp: ttkernel.CBPopFrontOp,
        d2m.PushOp: ttkernel.CBPushBackOp,
    }

    def lower(  # type: ignore[override]
        self, k: _KernelBuilder, op: d2m.WaitOp | d2m.ReserveOp | d2m.PopOp | d2m.PushOp, builder: Builder
    ) -> None:
        cb_type = op.cb.type
        assert isinstance(cb_type, d2m.CBType)
        count = k.const(_block_tiles(cb_type.block))
        builder.insert(self.calls[type(op)](k.cb(op.cb), count))


class LowerDMA(ConversionPattern):
    """A block read from or written to DRAM: loops over its tiles issuing
    `noc_async_read_tile`/`noc_async_write_tile` through the buffer's address generator,
    after the block's bounds check."""

    ops = (d2m.DMAReadOp, d2m.DMAWriteOp)

    def lower(  # type: ignore[override]
        self, k: _KernelBuilder, op: d2m.DMAReadOp | d2m.DMAWriteOp, builder: Builder
    ) -> None:
        reading = isinstance(op, d2m.DMAReadOp)
        l1, dram = (op.dst, op.src) if reading else (op.src, op.dst)
        if not isinstance(memref_origin(l1), CBBlock):
            raise PassError(op, "moves a block that does not come from d2m.wait or d2m.reserve.")
        generator = k.addr_gen(dram, op)
        dram_type = dram.type
        assert isinstance(dram_type, MemRefType)
        tile = dram_type.get_element_type()
        assert isinstance(tile, TileType)
        origin = [k.value(index) for index in op.indices]
        l1_type = l1.type
        assert isinstance(l1_type, MemRefType)
        first_row, block_shape = op.piece(l1_type) if reading else (0, l1_type.get_shape())
        base = k.block_address(l1, builder, first_row)
        if first_row:  # rows of the block: those rows of DRAM too
            origin[-2] = builder.insert(arith.AddiOp(origin[-2], _i32(builder, first_row))).result
        k.check_tile_block(op, dram, origin, block_shape, builder)
        transfer = ttkernel.NocAsyncReadTileOp if reading else ttkernel.NocAsyncWriteTileOp
        trid = k.read_trid() if reading else None
        if trid is not None:  # its wait waits for this read only
            builder.insert(ttkernel.NocAsyncReadSetTridOp(k.const(trid)))

        def per_tile(inner: Builder, ivs: list[SSAValue]) -> None:
            page = _linearize(
                inner,
                [inner.insert(arith.AddiOp(o, iv)).result for o, iv in zip(origin, ivs)],
                dram_type.get_shape(),
            )
            offset = inner.insert(
                arith.MuliOp(_linearize(inner, ivs, block_shape), _i32(inner, tile.size_bytes()))
            ).result
            address = inner.insert(arith.AddiOp(base, offset)).result
            inner.insert(transfer(page, generator, address))

        emit_i32_loops(builder, block_shape, per_tile)
        k.transfers[op.tx] = trid


class LowerFillCausalMask(ConversionPattern):
    """Tile (.., i, j) of the block starts `col + 32 j - row - 32 i` key columns right of
    its first query row. A block holds at most four distinct tiles (all 0, all -inf, up
    to two across the diagonal; `ttkernel.causal_mask_first_tile`): the first of each, in
    row-major order, is written with `fill_causal_mask_tile`, every other tile is read
    from it through the NoC (this core's own L1), and one read barrier ends the fill, as
    tt-metal's SDPA reader builds its masks. Which tile is first depends on `col - row`,
    a run-time value, so each tile chooses at run time."""

    ops = (d2m.FillCausalMaskOp,)

    def lower(  # type: ignore[override]
        self, k: _KernelBuilder, op: d2m.FillCausalMaskOp, builder: Builder
    ) -> None:
        origin = memref_origin(op.block)
        if not isinstance(origin, CBBlock) or origin.is_front:
            raise PassError(op, "fills a block that does not come from d2m.reserve.")
        base = k.block_address(op.block, builder)
        block_type = op.block.type
        assert isinstance(block_type, MemRefType)
        tile = block_type.get_element_type()
        assert isinstance(tile, TileType)
        shape = block_type.get_shape()
        diagonal = builder.insert(arith.SubiOp(k.value(op.col), k.value(op.row))).result
        diagonal.name_hint = "diagonal"
        own_x, own_y = (
            k.noc_coordinate(table, k.runtime_arg("core_index", dim, builder), builder)
            for table, dim in (("noc_x", 1), ("noc_y", 0))
        )
        tile_bytes = _i32(builder, tile.size_bytes())

        def per_tile(inner: Builder, ivs: list[SSAValue]) -> None:
            row, col = ivs[-2:]
            tiles_right = inner.insert(arith.SubiOp(col, row)).result
            columns_right = inner.insert(arith.MuliOp(tiles_right, _i32(inner, tile.cols.data))).result
            key_offset = inner.insert(arith.AddiOp(diagonal, columns_right)).result
            index = _linearize(inner, ivs, shape)
            address = inner.insert(
                arith.AddiOp(base, inner.insert(arith.MuliOp(index, tile_bytes)).result)
            ).result
            first = inner.insert(
                ttkernel.CausalMaskFirstTileOp(key_offset, row, col, _i32(inner, shape[-1]))
            ).result
            # names for the C++ (the result not the helper's name, which it would hide)
            for value, name in ((key_offset, "key_offset"), (index, "tile"), (first, "first_alike")):
                value.name_hint = name
            is_first = inner.insert(arith.CmpiOp(first, index, "eq")).result
            write, copy = Block(), Block()
            writer = Builder(InsertPoint.at_end(write))
            writer.insert(ttkernel.FillCausalMaskTileOp(address, key_offset))
            writer.insert(scf.YieldOp())
            copier = Builder(InsertPoint.at_end(copy))
            source = copier.insert(
                arith.AddiOp(base, copier.insert(arith.MuliOp(first, tile_bytes)).result)
            ).result
            noc_source = copier.insert(ttkernel.GetNocAddrOp(own_x, own_y, source)).result
            copier.insert(ttkernel.NocAsyncReadOp(noc_source, address, tile_bytes))
            copier.insert(scf.YieldOp())
            inner.insert(scf.IfOp(is_first, [], Region(write), Region(copy)))

        emit_i32_loops(builder, shape, per_tile)
        builder.insert(ttkernel.NocAsyncReadBarrierOp())


class LowerDMAWait(ConversionPattern):
    """`d2m.dma_wait` of a read -> the read barrier of its transaction id (the thread's
    other reads stay in flight); of a write -> the write barrier;
    `d2m.dma_write_barrier` -> the write barrier."""

    ops = (d2m.DMAWaitOp, d2m.DMAWriteBarrierOp)

    def lower(  # type: ignore[override]
        self, k: _KernelBuilder, op: d2m.DMAWaitOp | d2m.DMAWriteBarrierOp, builder: Builder
    ) -> None:
        trid = k.transfers[op.tx] if isinstance(op, d2m.DMAWaitOp) else None
        if trid is None:
            builder.insert(ttkernel.NocAsyncWriteBarrierOp())
        else:
            builder.insert(ttkernel.NocAsyncReadBarrierWithTridOp(k.const(trid)))


class LowerMulticast(ConversionPattern):
    """The block goes to the same address on every other core of the rectangle."""

    ops = (d2m.DMAMulticastOp,)

    def lower(  # type: ignore[override]
        self, k: _KernelBuilder, op: d2m.DMAMulticastOp, builder: Builder
    ) -> None:
        for block in (op.src, op.dst):
            if not isinstance(memref_origin(block), CBBlock):
                raise PassError(
                    op, "multicasts a block that does not come from d2m.wait or d2m.reserve."
                )
        block_type = op.src.type
        assert isinstance(block_type, MemRefType)
        first_row, shape = op.piece(block_type)
        source, target = (k.block_address(block, builder, first_row) for block in (op.src, op.dst))
        tile = block_type.get_element_type()
        assert isinstance(tile, TileType)
        size = _i32(builder, prod(shape) * tile.size_bytes())
        corner, extent = [k.value(v) for v in op.core], [k.value(v) for v in op.mcast]
        rectangle, receivers = k.core_rectangle(corner, extent, builder)
        address = builder.insert(ttkernel.GetNocMulticastAddrOp(*rectangle, target)).result
        builder.insert(
            ttkernel.NocAsyncWriteMulticastOp(source, address, size, receivers, op.linked is not None)
        )
        k.transfers[op.tx] = None


class LowerSemaphore(ConversionPattern):
    """Semaphore ops on this core's L1 word of the semaphore:
    - `semaphore_set` -> `noc_semaphore_set`; to set it on other cores too, multicasts the
      word there (tt-metal's noc_semaphore_set_multicast copies a local L1 word), a
      single core being a 1x1 rectangle;
    - `semaphore_inc` -> `noc_semaphore_inc` at the NoC address of the semaphore on the
      given core (default: this one);
    - `semaphore_wait` -> `noc_semaphore_wait`, then `noc_semaphore_set` of the reset
      value if any."""

    ops = (d2m.SemaphoreSetOp, d2m.SemaphoreIncOp, d2m.SemaphoreWaitOp)

    def lower(  # type: ignore[override]
        self,
        k: _KernelBuilder,
        op: d2m.SemaphoreSetOp | d2m.SemaphoreIncOp | d2m.SemaphoreWaitOp,
        builder: Builder,
    ) -> None:
        address = k.semaphore(op.semaphore, builder)
        value = k.value(op.value)
        if isinstance(op, d2m.SemaphoreWaitOp):
            builder.insert(ttkernel.NocSemaphoreWaitOp(address, value))
            if op.reset is not None:
                builder.insert(ttkernel.NocSemaphoreSetOp(address, k.value(op.reset)))
        elif isinstance(op, d2m.SemaphoreIncOp):
            if op.core:
                row, col = (k.value(v) for v in op.core)
            else:
                row, col = (k.runtime_arg("core_index", dim, builder) for dim in range(GRID_RANK))
            x, y = k.noc_coordinate("noc_x", col, builder), k.noc_coordinate("noc_y", row, builder)
            noc_address = builder.insert(ttkernel.GetNocAddrOp(x, y, address)).result
            builder.insert(ttkernel.NocSemaphoreIncOp(noc_address, value))
        else:
            builder.insert(ttkernel.NocSemaphoreSetOp(address, value))
            if not op.core:
                return
            corner = [k.value(v) for v in op.core]
            extent = [k.value(v) for v in op.mcast] if op.mcast else [_i32(builder, 1)] * GRID_RANK
            rectangle, receivers = k.core_rectangle(corner, extent, builder)
            target = builder.insert(ttkernel.GetNocMulticastAddrOp(*rectangle, address)).result
            builder.insert(ttkernel.NocSemaphoreSetMulticastOp(address, target, receivers))


class LowerGridQuery(ConversionPattern):
    """The core's index or the grid's size: its runtime argument."""

    ops = (d2m.CoreIndexOp, d2m.GridSizeOp)

    def lower(  # type: ignore[override]
        self, k: _KernelBuilder, op: d2m.CoreIndexOp | d2m.GridSizeOp, builder: Builder
    ) -> None:
        kind = "core_index" if isinstance(op, d2m.CoreIndexOp) else "grid_size"
        k.values[op.result] = k.runtime_arg(kind, op.dim.value.data, builder)


CB_DMA_SEMAPHORE_PATTERNS: tuple[ConversionPattern, ...] = (
    LowerLocalCB(),
    LowerCB(),
    LowerDMA(),
    LowerDMAWait(),
    LowerMulticast(),
    LowerFillCausalMask(),
    LowerSemaphore(),
    LowerGridQuery(),
)
"""The data-movement side of the conversion, one pattern per op family."""


# ----------------------------------------------------------------------- tile-op lowerings
# One function per op family: (kernel builder, op, its engine, DST slot of the result,
# builder). Operands come from `_KernelBuilder.operand`, which checks that each sits
# where the engine reads it (a CB or DST).


def _lower_sfpu_unary(
    k: _KernelBuilder, op: Operation, engine: d2m.Engine, dst: SSAValue, builder: Builder
) -> None:
    """exp, sqrt, rsqrt, recip, neg, abs: in place on the SFPU."""
    init, call = _SFPU_UNARY[type(op)]
    k.operand(op.operands[0], op, want_cb=False)
    builder.insert(init())
    builder.insert(call(dst))


def _lower_scalar(
    k: _KernelBuilder, op: Operation, engine: d2m.Engine, dst: SSAValue, builder: Builder
) -> None:
    """A tile and an f32 scalar: in place on the SFPU (the scalar's bits as an i32)."""
    k.operand(op.operands[0], op, want_cb=False)
    bits = _i32(builder, _f32_bits(op.scalar.value.data))  # type: ignore[attr-defined]
    builder.insert(ttkernel.BinopWithScalarTileInitOp())
    builder.insert(_SCALAR[type(op)](dst, bits))


def _dest_reuse(
    binary: ttkernel.BinaryOp, reuse: ttkernel.ReuseDest, cb: CBTile, dst: SSAValue, builder: Builder
) -> None:
    """DST[dst] = DST[dst] <binary> the CB tile (operands swapped with `reuse` srcb)."""
    builder.insert(ttkernel.BinaryDestReuseTilesInitOp(binary, reuse, cb.cb))
    builder.insert(ttkernel.BinaryDestReuseTilesOp(binary, reuse, cb.cb, cb.tile, dst))


def _lower_binary(
    k: _KernelBuilder, op: Operation, engine: d2m.Engine, dst: SSAValue, builder: Builder
) -> None:
    """add/sub/mul/div/maximum: the FPU with both operands from CBs (the second may be a
    broadcast the unpacker applies), the FPU with one operand in DST (dest reuse), or
    the SFPU with both in DST."""
    kind = type(op)
    lhs, rhs = op.operands
    if engine is d2m.Engine.SFPU:
        init, call = _SFPU_BINARY[kind]
        a, b = (k.operand(v, op, want_cb=False) for v in (lhs, rhs))
        builder.insert(init())
        builder.insert(call(a.slot, b.slot, dst))
        return
    binary = _FPU_BROADCAST[kind][0]
    if engine in (d2m.Engine.DEST_TO_SRCA, d2m.Engine.DEST_TO_SRCB):
        # The DST operand is overwritten with the result; the other comes from a CB.
        to_srca = engine is d2m.Engine.DEST_TO_SRCA
        in_dst, from_cb = (lhs, rhs) if to_srca else (rhs, lhs)
        k.operand(in_dst, op, want_cb=False)
        cb = k.operand(from_cb, op, want_cb=True)
        reuse = ttkernel.ReuseDest.SRCA if to_srca else ttkernel.ReuseDest.SRCB
        _dest_reuse(binary, reuse, cb, dst, builder)
        return
    bcast = rhs.owner
    if isinstance(bcast, d2m.TileBcastOp) and bcast.engine == d2m.EngineAttr(d2m.Engine.UNPACK):
        b = k.operand(bcast.input, bcast, want_cb=True)
        bcast_type = _BCAST[bcast.kind.data]
    elif engine is d2m.Engine.FPU_BCAST_COL:  # column vectors: only column 0 is data
        b = k.operand(rhs, op, want_cb=True)
        bcast_type = ttkernel.BroadcastType.COL
    else:
        init, call = _FPU_BINARY[kind]
        a, b = (k.operand(v, op, want_cb=True) for v in (lhs, rhs))
        builder.insert(init(a.cb, b.cb))
        builder.insert(call(a.cb, b.cb, a.tile, b.tile, dst))
        return
    a = k.operand(lhs, op, want_cb=True)
    builder.insert(ttkernel.InitBcastOp(binary, bcast_type, a.cb, b.cb, k.out_cb(a.cb)))
    builder.insert(_FPU_BROADCAST[kind][1](bcast_type, a.cb, b.cb, a.tile, b.tile, dst))


def _lower_dst_copy(
    k: _KernelBuilder, op: Operation, engine: d2m.Engine, dst: SSAValue, builder: Builder
) -> None:
    """A DST-to-DST copy: copy_dest_values<format>(from, to), source first, in DST's
    format. (A copy from a CB is a copy_tile; d2m-lower-to-loops leaves it as a load
    stored into DST.)"""
    source = k.operand(op.operands[0], op, want_cb=False)
    dst_format = DataType.F32 if compute_config_of(op).fp32_dest_acc_en else DataType.BF16
    builder.insert(ttkernel.CopyDestValuesInitOp())
    builder.insert(ttkernel.CopyDestValuesOp(dst_format, source.slot, dst))


def _lower_matmul(
    k: _KernelBuilder, op: Operation, engine: d2m.Engine, dst: SSAValue, builder: Builder
) -> None:
    """acc += a @ b into DST; a B that the unpacker transposes (a `d2m.tile_transpose` on
    the unpack engine) is read with mm_init/matmul_tiles' `transpose`."""
    assert isinstance(op, d2m.TileMatmulOp)
    transpose_op = op.b.owner
    transposed = isinstance(transpose_op, d2m.TileTransposeOp) and (
        transpose_op.engine == d2m.EngineAttr(d2m.Engine.UNPACK)
    )
    b_tile = transpose_op.input if transposed else op.b  # type: ignore[union-attr]
    a = k.operand(op.a, op, want_cb=True)
    b = k.operand(b_tile, op, want_cb=True)
    transpose = k.const(int(transposed))
    builder.insert(ttkernel.MMInitOp(a.cb, b.cb, k.out_cb(a.cb), transpose))
    builder.insert(ttkernel.MatmulTilesOp(a.cb, b.cb, a.tile, b.tile, dst, transpose))


def _lower_reduce(
    k: _KernelBuilder, op: Operation, engine: d2m.Engine, dst: SSAValue, builder: Builder
) -> None:
    """reduce(input * scaler) combined into the DST accumulator."""
    assert isinstance(op, d2m.TileReduceSumOp | d2m.TileReduceMaxOp)
    a, scaler = (k.operand(v, op, want_cb=True) for v in (op.input, op.scaler))
    pool, dim = _REDUCE_POOL[type(op)], _REDUCE_DIM[op.dim.data]
    builder.insert(ttkernel.ReduceInitOp(pool, dim, a.cb, scaler.cb, k.out_cb(a.cb)))
    builder.insert(ttkernel.ReduceTileOp(pool, dim, a.cb, scaler.cb, a.tile, scaler.tile, dst))


def _lower_accumulate(
    k: _KernelBuilder, op: Operation, engine: d2m.Engine, dst: SSAValue, builder: Builder
) -> None:
    """acc + tile: the FPU adds the CB tile onto the accumulator in DST (dest reuse)."""
    assert isinstance(op, d2m.TileAccumulateOp)
    a = k.operand(op.lhs, op, want_cb=True)
    _dest_reuse(ttkernel.BinaryOp.ADD, ttkernel.ReuseDest.SRCA, a, dst, builder)


def _lower_transpose(
    k: _KernelBuilder, op: Operation, engine: d2m.Engine, dst: SSAValue, builder: Builder
) -> None:
    assert isinstance(op, d2m.TileTransposeOp)
    a = k.operand(op.input, op, want_cb=True)
    builder.insert(ttkernel.TransposeWHInitOp(a.cb, k.out_cb(a.cb)))
    builder.insert(ttkernel.TransposeWHTileOp(a.cb, a.tile, dst))


def _lower_bcast(
    k: _KernelBuilder, op: Operation, engine: d2m.Engine, dst: SSAValue, builder: Builder
) -> None:
    assert isinstance(op, d2m.TileBcastOp)
    a = k.operand(op.input, op, want_cb=True)
    kind = _BCAST[op.kind.data]
    builder.insert(ttkernel.UnaryBcastInitOp(kind, a.cb, k.out_cb(a.cb)))
    builder.insert(ttkernel.UnaryBcastOp(kind, a.cb, a.tile, dst))


def _lower_fill(
    k: _KernelBuilder, op: Operation, engine: d2m.Engine, dst: SSAValue, builder: Builder
) -> None:
    assert isinstance(op, d2m.TileFillOp)
    value = builder.insert(arith.ConstantOp(FloatAttr(op.value.value.data, Float32Type()))).result
    builder.insert(ttkernel.FillTileInitOp())
    builder.insert(ttkernel.FillTileOp(dst, value))


def _lower_where(
    k: _KernelBuilder, op: Operation, engine: d2m.Engine, dst: SSAValue, builder: Builder
) -> None:
    """where_tile on the SFPU, in DST's format (f32 with fp32_dest_acc_en, else bf16)."""
    cond, if_true, if_false = (k.operand(v, op, want_cb=False) for v in op.operands)
    fp32_dst = compute_config_of(op).fp32_dest_acc_en
    builder.insert(ttkernel.WhereTileInitOp())
    builder.insert(
        ttkernel.WhereTileOp(
            DataType.F32 if fp32_dst else DataType.BF16, cond.slot, if_true.slot, if_false.slot, dst
        )
    )


_TileOpLowering = Callable[[_KernelBuilder, Operation, d2m.Engine, SSAValue, Builder], None]

_TILE_OP_LOWERINGS: dict[type[Operation], _TileOpLowering] = {
    **{kind: _lower_sfpu_unary for kind in _SFPU_UNARY},
    **{kind: _lower_scalar for kind in _SCALAR},
    **{kind: _lower_binary for kind in _SFPU_BINARY},
    d2m.TileCopyOp: _lower_dst_copy,
    d2m.TileMatmulOp: _lower_matmul,
    d2m.TileReduceSumOp: _lower_reduce,
    d2m.TileReduceMaxOp: _lower_reduce,
    d2m.TileAccumulateOp: _lower_accumulate,
    d2m.TileTransposeOp: _lower_transpose,
    d2m.TileBcastOp: _lower_bcast,
    d2m.TileFillOp: _lower_fill,
    d2m.TileWhereOp: _lower_where,
}

_TILE_OPS = tuple(_TILE_OP_LOWERINGS)

_HANDLERS: dict[type[Operation], Callable[[_KernelBuilder, Operation, Builder], None]] = {
    **{kind: pattern.lower for pattern in CB_DMA_SEMAPHORE_PATTERNS for kind in pattern.ops},
    scf.ForOp: _KernelBuilder.for_op,
    scf.IfOp: _KernelBuilder.if_op,
    d2m.AcquireDstOp: _KernelBuilder.dst_section,
    d2m.CommitDstOp: _KernelBuilder.dst_section,
    d2m.WaitDstOp: _KernelBuilder.dst_section,
    d2m.ReleaseDstOp: _KernelBuilder.dst_section,
    memref.LoadOp: _KernelBuilder.load,
    memref.StoreOp: _KernelBuilder.store,
    d2m.PackL1AccOp: _KernelBuilder.pack_l1_acc,
    d2m.BlockViewOp: _KernelBuilder.block_view,
}  # type: ignore[dict-item]


def emit_i32_loops(
    builder: Builder, extents: Sequence[int], body: Callable[[Builder, list[SSAValue]], None]
) -> None:
    """Nested `scf.for` loops over i32 from 0 to each extent; `body` gets the ivs."""
    if not extents:
        body(builder, [])
        return
    loop_block = Block(arg_types=[i32])
    builder.insert(
        scf.ForOp(_i32(builder, 0), _i32(builder, extents[0]), _i32(builder, 1), [], loop_block)
    )
    inner = Builder(InsertPoint.at_end(loop_block))
    emit_i32_loops(inner, extents[1:], lambda b, ivs: body(b, [loop_block.args[0], *ivs]))
    inner.insert(scf.YieldOp())


# ----------------------------------------------------------------------- the pass


def _kernel_generic(kernel: func.FuncOp) -> d2m.GenericOp | None:
    generics = [op for op in kernel.walk() if isinstance(op, d2m.GenericOp)]
    if len(generics) > 1:
        raise PassError(
            generics[1], "is a second d2m.generic in one kernel function; a kernel launches one."
        )
    return generics[0] if generics else None


def _operand_cb_ids(region: Region) -> dict[SSAValue, int]:
    """CB ids of a thread's CB arguments (operand CBs, then kernel-local CBs): their
    position."""
    return {
        arg: index
        for index, arg in enumerate(region.block.args)
        if isinstance(arg.type, d2m.CBType)
    }


def _local_cbs(generic: d2m.GenericOp) -> list[d2m.LocalCBOp]:
    return [
        op
        for region in generic.thread_regions
        for op in region.walk()
        if isinstance(op, d2m.LocalCBOp)
    ]


def _thread_names(kinds: Sequence[d2m.ThreadType]) -> list[ttkernel.Thread]:
    threads: list[ttkernel.Thread] = []
    data_movement = iter(_DATA_MOVEMENT_THREADS)
    for kind in kinds:
        threads.append(
            ttkernel.Thread.COMPUTE if kind == d2m.ThreadType.COMPUTE else next(data_movement)
        )
    return threads


def _data_format(tile: Attribute) -> str:
    assert isinstance(tile, TileType)
    return {"bf16": "bf16", "f32": "fp32"}[tile.element_format.value]


def _buffer_name(arg: SSAValue) -> str:
    """A kernel tensor's name: its name in the IR, or its position."""
    assert isinstance(arg, BlockArgument)
    return arg.name_hint or f"arg{arg.index}"


def _buffer_role(arg: SSAValue, generic: d2m.GenericOp) -> str:
    return "output" if arg in generic.outputs else "input"


def convert_kernel(
    kernel: func.FuncOp, generic: d2m.GenericOp
) -> tuple[list[func.FuncOp], DictionaryAttr]:
    """The kernel functions of `generic`'s threads and the launch description."""
    name = kernel.sym_name.data
    thread_cbs = [  # operand CBs, then kernel-local CBs
        arg.type for arg in generic.thread_regions[0].block.args if isinstance(arg.type, d2m.CBType)
    ]
    local_cbs = _local_cbs(generic)
    local_ids = {op.result: len(thread_cbs) + index for index, op in enumerate(local_cbs)}
    kernel_args = list(kernel.body.block.args)
    functions: list[func.FuncOp] = []
    kernels: list[Attribute] = []
    for thread, region in zip(_thread_names(generic.thread_kinds), generic.thread_regions):
        ids = {**_operand_cb_ids(region), **local_ids}
        builder = _KernelBuilder(generic, thread, kernel_args, ids)
        body = builder.translate(region)
        function = func.FuncOp(f"{name}_{thread.value}", ((), ()), Region(body))
        function.attributes[ttkernel.THREAD_ATTR] = ttkernel.ThreadAttr(thread)
        functions.append(function)
        kernels.append(ArrayAttr([StringAttr(function.sym_name.data), StringAttr(thread.value)]))
    program = {
        "name": StringAttr(name),
        "grid": generic.grid,
        "buffers": ArrayAttr(
            [
                ArrayAttr(
                    [
                        StringAttr(_buffer_name(arg)),
                        StringAttr(_buffer_role(arg, generic)),
                        arg.type,
                    ]
                )
                for arg in kernel_args
            ]
        ),
        "cbs": ArrayAttr([*thread_cbs, *(op.result.type for op in local_cbs)]),
        # by CB id, for run-time reports: the first thread's CB arguments (its tensors' CB
        # parameters, then the kernel-local CBs), then temporaries
        "cb_names": ArrayAttr(
            [
                *(
                    StringAttr(arg.name_hint or f"cb{i}")
                    for i, arg in enumerate(generic.thread_regions[0].block.args)
                    if isinstance(arg.type, d2m.CBType)
                ),
                *(StringAttr(op.result.name_hint or "a compute temporary") for op in local_cbs),
            ]
        ),
        "kernels": ArrayAttr(kernels),
        "semaphores": IntegerAttr(
            sum(
                isinstance(t, d2m.SemaphoreType) for t in generic.thread_regions[0].block.arg_types
            ),
            64,
        ),
        "runtime_args": ArrayAttr(
            [
                ArrayAttr([StringAttr(kind), IntegerAttr(index, 64)])
                for kind, index in runtime_arg_layout(len(kernel_args), generic.grid.shape)
            ]
        ),
    }
    if COMPUTE_CONFIG_ATTR in kernel.attributes:
        program["compute_config"] = kernel.attributes[COMPUTE_CONFIG_ATTR]
    if d2m.GenericOp.CBS_HOLDING_ALL_BLOCKS in generic.attributes:  # CB ids = operand indices
        program[d2m.GenericOp.CBS_HOLDING_ALL_BLOCKS] = generic.attributes[d2m.GenericOp.CBS_HOLDING_ALL_BLOCKS]
    return functions, DictionaryAttr(program)


@dataclass(frozen=True)
class ConvertD2MToTTKernel(ModulePass):
    """d2m.generic threads -> ttkernel kernel functions and the `ttlang.program` attribute."""

    name = "convert-d2m-to-ttkernel"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in list(op.body.block.ops):
            if not isinstance(kernel, func.FuncOp):
                continue
            generic = _kernel_generic(kernel)
            if generic is None:
                continue
            if PROGRAM_ATTR in op.attributes:
                raise PassError(kernel, "is a second kernel in the module; a program holds one.")
            functions, program = convert_kernel(kernel, generic)
            for function in functions:
                op.body.block.insert_op_before(function, kernel)
            Rewriter.erase_op(kernel)
            op.attributes[PROGRAM_ATTR] = program
