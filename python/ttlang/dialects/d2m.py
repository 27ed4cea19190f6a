"""The d2m dialect: a multi-threaded generic over a grid of Tensix cores (as tt-mlir's D2M).

A kernel is one `d2m.generic` over DRAM memrefs of tiles. The generic runs on every
core of its `grid`; each core runs one region per thread (a compute thread and
data-movement threads). The threads talk through circular buffers (CBs, one per
operand, the region's block arguments): a producer `reserve`s a block, fills it and
`push`es it; a consumer `wait`s for a block, reads it and `pop`s it.

    d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1],
                 threads = [#d2m.thread<compute>, #d2m.thread<datamovement>]}
        ins(%in : memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>)
        outs(%out : memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>) {
    ^bb0(%in_cb: !d2m.cb<...>, %out_cb: !d2m.cb<...>):     // compute
      %x = d2m.wait %in_cb : !d2m.cb<...> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
      ...
    }, {
    ^bb0(%in_cb: !d2m.cb<...>, %out_cb: !d2m.cb<...>):     // reader
      %blk = d2m.reserve %in_cb : !d2m.cb<...> -> memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
      %tx = d2m.dma_read %in[%c0, %c0], %blk : ...
      ...
    }

Compute regions hold one `linalg.generic` per block operation whose body is made of
`d2m.tile_*` ops on `!ttcore.tile` values. Data-movement regions move blocks between
DRAM and L1 with `d2m.dma_*` ops and synchronise cores with semaphores.
docs/dialects.md describes every op.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    AffineMapAttr,
    ArrayAttr,
    DenseArrayBase,
    Float32Type,
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    MemRefType,
    IntegerType,
    StringAttr,
    TensorType,
    UnitAttr,
    i32,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    AttrSizedOperandSegments,
    ParsePropInAttrDict,
    BaseAttr,
    IRDLOperation,
    VarConstraint,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    param_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.irdl.constraints import AttrConstraint, VerificationContext
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import NoTerminator, Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from ttlang.dialects.ttcore import (
    BracketedEnumSyntax,
    DataType,
    GridAttr,
    IteratorTypeAttr,
    MemorySpace,
    MemorySpaceAttr,
    TileType,
)

DEFAULT_CB_BUFFERS = 2
"""Blocks a CB holds unless told otherwise: double buffering."""

# --------------------------------------------------------------------------- types


@irdl_attr_definition
class CBType(ParametrizedAttribute, TypeAttribute):
    """A circular buffer of blocks in L1: `!d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>,
    #ttcore.memory_space<l1>>>`, optionally with its block count (default 2):
    `!d2m.cb<memref<...>, 3>`. The memref is the shape of one block, in tiles."""

    name = "d2m.cb"

    block: MemRefType = param_def(MemRefType)
    buffers: IntAttr = param_def(IntAttr)

    def __init__(self, block: MemRefType, buffers: int = DEFAULT_CB_BUFFERS):
        super().__init__(block, IntAttr(buffers))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            block = parser.parse_type()
            buffers = DEFAULT_CB_BUFFERS
            if parser.parse_optional_punctuation(",") is not None:
                buffers = parser.parse_integer(allow_boolean=False, allow_negative=False)
        return (block, IntAttr(buffers))

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.block)
            if self.buffers.data != DEFAULT_CB_BUFFERS:
                printer.print_string(f", {self.buffers.data}")

    def verify(self) -> None:
        if memory_space_of(self.block) != MemorySpace.L1:
            raise VerifyException(
                f"a circular buffer holds blocks in L1, but its block type is {self.block}."
            )
        if self.buffers.data < 1:
            raise VerifyException(
                f"a circular buffer needs at least one block, but this one has {self.buffers.data}."
            )


@irdl_attr_definition
class TriangleAttr(ParametrizedAttribute):
    """`#d2m.triangle<rows = 1, cols = 2, diagonal = 4>`: on a `linalg.generic` (its
    `d2m.triangles` list, d2m-skip-masked-tiles), the iterations whose index along loop
    dim `cols` exceeds the index along loop dim `rows` plus `diagonal` are skipped:
    tiles above a tile diagonal that hold a known constant, or that no consumer reads.
    On two parallel dims it skips output tiles (not computed, not packed); with `cols`
    a reduction dim it shortens the reduction of each row."""

    name = "d2m.triangle"

    rows: IntAttr = param_def(IntAttr)
    cols: IntAttr = param_def(IntAttr)
    diagonal: IntAttr = param_def(IntAttr)

    def __init__(self, rows: int, cols: int, diagonal: int):
        super().__init__(IntAttr(rows), IntAttr(cols), IntAttr(diagonal))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        values = []
        with parser.in_angle_brackets():
            for position, keyword in enumerate(("rows", "cols", "diagonal")):
                if position:
                    parser.parse_punctuation(",")
                parser.parse_keyword(keyword)
                parser.parse_punctuation("=")
                values.append(IntAttr(parser.parse_integer(allow_boolean=False)))
        return values

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(
            f"<rows = {self.rows.data}, cols = {self.cols.data}, diagonal = {self.diagonal.data}>"
        )

    def verify(self) -> None:
        if self.rows.data < 0 or self.cols.data < 0 or self.rows.data == self.cols.data:
            raise VerifyException(
                f"relates two different loop dims, but got rows = {self.rows.data}, cols = "
                f"{self.cols.data}."
            )


TRIANGLES_ATTR = "d2m.triangles"
"""`[#d2m.triangle<...>, ...]` on a linalg.generic: the iterations it skips (TriangleAttr)."""

TRIL_DIAGONAL_ATTR = "d2m.tril_diagonal"
"""On the `d2m.tile_where %mask, %value, %x` of a `tril()` (i64, tiles): at output tiles
(r, c) (its generic's first output map, last two indices) with c - r below it the
result is `%x` (the mask tile there is all 0), so only the tiles on and above the
diagonal need the select."""


@irdl_attr_definition
class MemTxType(ParametrizedAttribute, TypeAttribute):
    """A DMA transfer in flight, returned by the `d2m.dma_*` ops and awaited by `d2m.dma_wait`."""

    name = "d2m.mem_tx"


@irdl_attr_definition
class SemaphoreType(ParametrizedAttribute, TypeAttribute):
    """A semaphore in L1 at the same address on every core of the grid."""

    name = "d2m.semaphore"


class ThreadType(StrEnum):
    """What a thread of a generic does: math on tiles, or moving data."""

    COMPUTE = "compute"
    DATAMOVEMENT = "datamovement"


@irdl_attr_definition
class ThreadAttr(BracketedEnumSyntax, EnumAttribute[ThreadType]):
    """The kind of one thread of a `d2m.generic`: `#d2m.thread<compute>`."""

    name = "d2m.thread"


class TileDim(StrEnum):
    """An axis of a tile, for reductions and broadcasts."""

    ROW = "row"
    COL = "col"
    SCALAR = "scalar"


@irdl_attr_definition
class ReduceDimAttr(BracketedEnumSyntax, EnumAttribute[TileDim]):
    """What a tile reduction reduces: `row` reduces each row (the result is a column in
    column 0), `col` each column (a row in row 0), `scalar` the whole tile (element
    [0, 0])."""

    name = "d2m.reduce_dim"


@irdl_attr_definition
class BcastKindAttr(BracketedEnumSyntax, EnumAttribute[TileDim]):
    """What a tile broadcast replicates: `row` copies row 0 to every row, `col` copies
    column 0 to every column, `scalar` copies element [0, 0] everywhere."""

    name = "d2m.bcast"


class Engine(StrEnum):
    """The part of a Tensix core that computes a tile op, chosen by d2m-dst-allocate
    (from where the op's operands are) and read by convert-d2m-to-ttkernel."""

    FPU = "fpu"  # the matrix engine; every tile operand unpacked from a CB (an accumulator in DST)
    DEST_TO_SRCA = "dest_to_srca"  # FPU add/sub/mul: lhs from DST, rhs from a CB; result over lhs
    DEST_TO_SRCB = "dest_to_srcb"  # FPU add/sub/mul: rhs from DST, lhs from a CB; result over rhs
    SFPU = "sfpu"  # the vector unit; every operand in DST
    UNPACK = "unpack"  # applied by the unpacker to a CB tile on its way into the FPU op using it
    # FPU add/sub/mul of column vectors (COLUMN_VECTORS_ATTR), both from CBs: the rhs read
    # COL-broadcast (column 0, all their data, is the same), sharing a broadcast op's init
    FPU_BCAST_COL = "fpu_bcast_col"


COLUMN_VECTORS_ATTR = "d2m.column_vectors"
"""Unit attribute on a `d2m.tile_add/sub/mul` whose operands and result are column
vectors (the frontend's (..., R, 1) blocks, such as reduction results): only column 0 of
their tiles is data, the other columns are unspecified."""


@irdl_attr_definition
class EngineAttr(BracketedEnumSyntax, EnumAttribute[Engine]):
    """Where a tile op runs: `#d2m.engine<fpu>` (see `Engine`)."""

    name = "d2m.engine"


_DEST_REUSE = frozenset({Engine.DEST_TO_SRCA, Engine.DEST_TO_SRCB})
_FPU_BINARY_ENGINES = frozenset({Engine.FPU, Engine.FPU_BCAST_COL, *_DEST_REUSE, Engine.SFPU})


class _EnginePlaced(IRDLOperation):
    """A tile op with an optional `engine` property (set by d2m-dst-allocate); `ENGINES`
    are the engines that can compute it."""

    ENGINES: ClassVar[frozenset[Engine]] = frozenset({Engine.SFPU})

    engine = opt_prop_def(EngineAttr)

    irdl_options = (ParsePropInAttrDict(),)  # printed as `{engine = #d2m.engine<...>}`

    def verify_(self) -> None:
        if self.engine is not None and self.engine.data not in self.ENGINES:
            allowed = ", ".join(sorted(e.value for e in self.ENGINES))
            raise VerifyException(
                f"cannot run on the {self.engine.data.value} engine; it runs on: {allowed}."
            )


def memory_space_of(memref: MemRefType) -> MemorySpace | None:
    """The ttcore memory space of `memref`, or None when it has none."""
    space = memref.memory_space
    return space.data if isinstance(space, MemorySpaceAttr) else None


def _element_type(shaped: Attribute) -> Attribute:
    assert isinstance(shaped, MemRefType | TensorType)
    return shaped.get_element_type()


# ----------------------------------------------------------------------- d2m.generic


@irdl_op_definition
class GenericOp(IRDLOperation):
    """Runs one region per thread on every core of `grid`.

    Each region's block arguments are the thread's CBs, one per operand (`ins` then
    `outs`, in order), then the kernel-local CBs (backed by no operand; the same ones in
    every region), then semaphores. Regions are not isolated from
    above: DMA ops name the generic's operands (the DRAM tensors) directly.
    `block_factors` gives the blocks per loop dimension; `indexing_maps` (one per
    operand) and `iterator_types`, when present, describe the iteration space as in
    linalg.generic. `loop_bounds` (one map per loop dim, of the loop dims) bounds a
    dim's blocks by a function of the dims outside it (a map with no result: the whole
    extent); `deal` says how a grid dim's blocks are dealt to its cores
    ("contiguous", the default, or "serpentine"). d2m-generate-datamovement reads them.
    """

    name = "d2m.generic"

    inputs = var_operand_def(MemRefType)
    outputs = var_operand_def(MemRefType)

    grid = prop_def(GridAttr)
    block_factors = prop_def(ArrayAttr[IntegerAttr[I64]])
    indexing_maps = opt_prop_def(ArrayAttr[AffineMapAttr])
    iterator_types = opt_prop_def(ArrayAttr[IteratorTypeAttr])
    loop_bounds = opt_prop_def(ArrayAttr[AffineMapAttr])
    deal = opt_prop_def(StringAttr)
    threads = prop_def(ArrayAttr[ThreadAttr])

    thread_regions = var_region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(NoTerminator())

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        grid: GridAttr,
        block_factors: Sequence[int],
        threads: Sequence[ThreadType],
        thread_regions: Sequence[Region],
        indexing_maps: ArrayAttr[AffineMapAttr] | None = None,
        iterator_types: ArrayAttr[IteratorTypeAttr] | None = None,
        loop_bounds: ArrayAttr[AffineMapAttr] | None = None,
        deal: str | None = None,
    ):
        super().__init__(
            operands=[inputs, outputs],
            properties={
                "grid": grid,
                "block_factors": ArrayAttr(IntegerAttr(f, 64) for f in block_factors),
                "threads": ArrayAttr(ThreadAttr(t) for t in threads),
                "indexing_maps": indexing_maps,
                "iterator_types": iterator_types,
                "loop_bounds": loop_bounds,
                "deal": StringAttr(deal) if deal is not None else None,
            },
            regions=[thread_regions],
        )

    # The syntax follows linalg.generic, with one region per thread separated by commas:
    #   d2m.generic {grid = ..., block_factors = [...], threads = [...]}
    #       ins(%a, %b : T, T) outs(%c : T) {^bb0(...): ...}, {^bb0(...): ...}
    def print(self, printer: Printer) -> None:
        entries = {
            name: value
            for name, value in (*self.properties.items(), *self.attributes.items())
            if name != AttrSizedOperandSegments.attribute_name
        }
        printer.print_string(" {")

        def print_entry(name: str) -> None:
            printer.print_string(f"{name} = ")
            if name == "block_factors":
                # MLIR's short form for i64 arrays: `[1, 1]`, not `[1 : i64, 1 : i64]`.
                printer.print_string(str(self.block_factor_values))
            else:
                printer.print_attribute(entries[name])

        printer.print_list(entries, print_entry)
        printer.print_string("}")
        for keyword, operands in (("ins", self.inputs), ("outs", self.outputs)):
            printer.print_string(f" {keyword}(")
            if operands:
                printer.print_list(operands, printer.print_ssa_value)
                printer.print_string(" : ")
                printer.print_list(operands.types, printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        printer.print_list(self.thread_regions, printer.print_region)

    @classmethod
    def parse(cls, parser: Parser) -> GenericOp:
        attributes = parser.parse_optional_attr_dict()
        inputs = _parse_operand_group(parser, "ins")
        outputs = _parse_operand_group(parser, "outs")
        regions = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_region)
        property_names = cls.get_irdl_definition().properties.keys()
        properties = {name: attributes.pop(name) for name in list(attributes) if name in property_names}
        properties[AttrSizedOperandSegments.attribute_name] = DenseArrayBase.from_list(
            i32, [len(inputs), len(outputs)]
        )
        return cls.create(
            operands=[*inputs, *outputs],
            properties=properties,
            attributes=attributes,
            regions=regions,
        )

    MAX_COMPUTE_THREADS: ClassVar[int] = 1
    # operand indices whose CB d2m-hw-thread-selection grew to hold all their per-core
    # blocks (so the L1 budget check can say why such a CB is large)
    CBS_HOLDING_ALL_BLOCKS: ClassVar[str] = "cbs_holding_all_blocks"
    # one per data-movement RISC-V (BRISC, NCRISC); d2m-generate-datamovement may add
    # more, which d2m-hw-thread-selection merges down to this many
    MAX_DATAMOVEMENT_THREADS: ClassVar[int] = 2

    @property
    def block_factor_values(self) -> list[int]:
        return [factor.value.data for factor in self.block_factors.data]

    @property
    def thread_kinds(self) -> list[ThreadType]:
        return [thread.data for thread in self.threads.data]

    def verify_(self) -> None:
        self._verify_threads()
        self._verify_block_factors()
        self._verify_iteration_space()
        operand_types = [operand.type for operand in self.operands]
        for region_index, region in enumerate(self.thread_regions):
            _verify_thread_arguments(region_index, region.block.arg_types, operand_types)
        local_cbs = [self.local_cb_types(region) for region in self.thread_regions]
        for region_index, types in enumerate(local_cbs[1:], 1):
            if types != local_cbs[0]:
                raise VerifyException(
                    f"region {region_index} has {len(types)} kernel-local CBs and region 0 "
                    f"{len(local_cbs[0])}, or their types differ; every thread sees the same "
                    "kernel-local CBs."
                )

    def local_cb_types(self, region: Region) -> list[CBType]:
        """The kernel-local CBs of a thread region: its CB arguments after the operands'."""
        args = region.block.arg_types[len(self.operands) :]
        return [t for t in args if isinstance(t, CBType)]

    def _verify_threads(self) -> None:
        if len(self.thread_regions) != len(self.threads):
            raise VerifyException(
                f"has {len(self.thread_regions)} regions but "
                f"{len(self.threads)} threads; each thread needs exactly one region."
            )
        kinds = self.thread_kinds
        if kinds.count(ThreadType.COMPUTE) > self.MAX_COMPUTE_THREADS:
            raise VerifyException(
                f"has {kinds.count(ThreadType.COMPUTE)} compute threads, "
                f"but a core runs at most {self.MAX_COMPUTE_THREADS}."
            )

    def _verify_block_factors(self) -> None:
        factors = self.block_factor_values
        if any(factor < 1 for factor in factors):
            raise VerifyException(f"block factors must be positive, but got {factors}.")

    def _verify_iteration_space(self) -> None:
        if self.indexing_maps is None:
            if self.iterator_types is not None:
                raise VerifyException("iterator_types needs indexing_maps beside it.")
            return
        maps = [m.data for m in self.indexing_maps.data]
        if len(maps) != len(self.operands):
            raise VerifyException(
                f"has {len(self.operands)} operands but {len(maps)} "
                "indexing maps; it needs one map per operand."
            )
        num_dims = {m.num_dims for m in maps}
        if len(num_dims) != 1:
            raise VerifyException(
                "all indexing maps must have the same number of dimensions, "
                f"but they have {sorted(num_dims)}."
            )
        (loop_rank,) = num_dims
        for index, (indexing_map, operand) in enumerate(zip(maps, self.operands)):
            rank = len(_shape(operand.type))
            if len(indexing_map.results) != rank:
                raise VerifyException(
                    f"indexing map {index} has {len(indexing_map.results)} results, "
                    f"but operand {index} has rank {rank}."
                )
        if len(self.block_factors) != loop_rank:
            raise VerifyException(
                f"has {len(self.block_factors)} block factors but "
                f"{loop_rank} loop dimensions; it needs one factor per dimension."
            )
        if self.iterator_types is not None and len(self.iterator_types) != loop_rank:
            raise VerifyException(
                f"has {len(self.iterator_types)} iterator types but "
                f"{loop_rank} loop dimensions; it needs one per dimension."
            )
        self._verify_loop_bounds(loop_rank)

    DEALS: ClassVar[tuple[str, ...]] = ("contiguous", "serpentine")

    def _verify_loop_bounds(self, loop_rank: int) -> None:
        if self.deal is not None and self.deal.data not in self.DEALS:
            raise VerifyException(f"deal must be one of {list(self.DEALS)}, but is {self.deal.data!r}.")
        if self.loop_bounds is None:
            return
        bounds = [b.data for b in self.loop_bounds.data]
        if len(bounds) != loop_rank:
            raise VerifyException(
                f"has {len(bounds)} loop bounds but {loop_rank} loop dimensions; it needs "
                "one map per dimension (no result: the whole extent)."
            )
        for dim, bound in enumerate(bounds):
            if bound.num_dims != loop_rank or len(bound.results) > 1:
                raise VerifyException(
                    f"loop bound {dim} must be a map of the {loop_rank} loop dimensions with "
                    f"at most one result, but is {bound}."
                )
            used = bound.used_dims()
            if any(d >= dim for d in used):
                raise VerifyException(
                    f"loop bound {dim} ({bound}) may use only the loop dimensions outside "
                    f"d{dim}, but uses d{max(used)}."
                )


def _parse_operand_group(parser: Parser, keyword: str) -> list[SSAValue]:
    """Parses `keyword(%a, %b : T, T)` or `keyword()`."""
    parser.parse_keyword(keyword)
    parser.parse_punctuation("(")
    if parser.parse_optional_punctuation(")") is not None:
        return []
    position = parser.pos
    names = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    return list(parser.resolve_operands(names, types, position))


def _shape(shaped: Attribute) -> tuple[int, ...]:
    assert isinstance(shaped, MemRefType | TensorType)
    return shaped.get_shape()


def thread_region(op: Operation) -> tuple[GenericOp, Region] | None:
    """The `d2m.generic` thread region holding `op` (at any depth) and its generic, or
    None outside every generic."""
    region = op.parent_region()
    while region is not None:
        owner = region.parent_op()
        if owner is None:
            return None
        if isinstance(owner, GenericOp):
            return owner, region
        region = owner.parent_region()
    return None


def thread_of(op: Operation) -> ThreadType | None:
    """The kind of the generic thread running `op`, or None outside every generic."""
    found = thread_region(op)
    if found is None:
        return None
    generic, region = found
    return generic.thread_kinds[list(generic.thread_regions).index(region)]


def _verify_thread_arguments(
    region_index: int, arg_types: Sequence[Attribute], operand_types: Sequence[Attribute]
) -> None:
    """A thread's block arguments are one CB per operand (of the operand's element type
    and rank), then kernel-local CBs, then semaphores."""
    if len(arg_types) < len(operand_types):
        raise VerifyException(
            f"region {region_index} has {len(arg_types)} block arguments, but the "
            f"generic has {len(operand_types)} operands; each thread needs one CB per operand."
        )
    for index, (arg_type, operand_type) in enumerate(zip(arg_types, operand_types)):
        if not isinstance(arg_type, CBType):
            raise VerifyException(
                f"block argument {index} of region {region_index} must be a !d2m.cb "
                f"for operand {index}, but it is {arg_type}."
            )
        block_element = arg_type.block.get_element_type()
        if block_element != _element_type(operand_type):
            raise VerifyException(
                f"the CB of operand {index} in region {region_index} holds {block_element}, "
                f"but the operand holds {_element_type(operand_type)}."
            )
        if arg_type.block.get_num_dims() != len(_shape(operand_type)):
            raise VerifyException(
                f"the CB of operand {index} in region {region_index} has blocks of rank "
                f"{arg_type.block.get_num_dims()}, but the operand has rank "
                f"{len(_shape(operand_type))}."
            )
    rest = arg_types[len(operand_types) :]
    local_cbs = next((i for i, t in enumerate(rest) if not isinstance(t, CBType)), len(rest))
    for index, arg_type in enumerate(rest[local_cbs:], len(operand_types) + local_cbs):
        if not isinstance(arg_type, SemaphoreType):
            raise VerifyException(
                f"block argument {index} of region {region_index} comes after the CBs, "
                f"so it must be a !d2m.semaphore, but it is {arg_type}."
            )


# --------------------------------------------------------------------------- CB ops


def unpacked_block(block: MemRefType) -> MemRefType:
    """A CB's block as compute sees it: its tiles as the unpacker hands them to the
    math engines (`TileType.unpacked`: bfp8_b tiles as bf16), in the same L1 block."""
    tile = block.get_element_type()
    if not isinstance(tile, TileType) or tile.unpacked() == tile:
        return block
    return MemRefType(tile.unpacked(), block.get_shape(), memory_space=block.memory_space)


class _CBBlockOp(IRDLOperation):
    """Base of wait/reserve: returns the CB's current block, as a tensor (compute
    regions before bufferization) or as the CB's L1 memref. A compute region sees the
    tiles as the unpacker hands them over (`unpacked_block`: a bfp8_b block is a tensor
    or memref of bf16 tiles); a data-movement region moves the CB's own block."""

    cb = operand_def(CBType)
    result = result_def(TensorType | MemRefType)

    assembly_format = "$cb attr-dict `:` type($cb) `->` type($result)"

    def __init__(self, cb: SSAValue, result_type: Attribute):
        super().__init__(operands=[cb], result_types=[result_type])

    def verify_(self) -> None:
        assert isinstance(self.cb.type, CBType)
        block = self.cb.type.block
        result = self.result.type
        if isinstance(result, MemRefType):
            if result != block and result != unpacked_block(block):
                raise VerifyException(
                    f"returns the CB's block, {block}, but the result type is {result}."
                )
        elif isinstance(result, TensorType):
            unpacked = unpacked_block(block).get_element_type()
            if (result.get_shape(), result.get_element_type()) != (block.get_shape(), unpacked):
                raise VerifyException(
                    f"returns a tensor of the CB's block shape and element type "
                    f"({block}, {unpacked} tiles as compute sees them), but the result type "
                    f"is {result}."
                )


@irdl_op_definition
class WaitOp(_CBBlockOp):
    """Blocks until the CB's front block is filled by its producer; returns it (consumer side)."""

    name = "d2m.wait"


@irdl_op_definition
class ReserveOp(_CBBlockOp):
    """Blocks until the CB has a free block at its back; returns it (producer side)."""

    name = "d2m.reserve"


class _CBHandOffOp(IRDLOperation):
    """Base of pop/push: hands the CB's current block to the other side."""

    cb = operand_def(CBType)

    assembly_format = "$cb attr-dict `:` type($cb)"

    def __init__(self, cb: SSAValue):
        super().__init__(operands=[cb])


@irdl_op_definition
class PopOp(_CBHandOffOp):
    """Frees the front block that `d2m.wait` returned, for the producer to refill."""

    name = "d2m.pop"


@irdl_op_definition
class PushOp(_CBHandOffOp):
    """Publishes the back block that `d2m.reserve` returned, to the consumer."""

    name = "d2m.push"


@irdl_op_definition
class StoreOp(IRDLOperation):
    """Writes `value` into the block `dst` (the DSL's `block.store(expr)`); `dst` is a
    block returned by `d2m.reserve`. Both have the same shape and element type."""

    name = "d2m.store"

    dst = operand_def(TensorType | MemRefType)
    value = operand_def(TensorType | MemRefType)

    assembly_format = "$dst `,` $value attr-dict `:` type($dst) `,` type($value)"

    def __init__(self, dst: SSAValue, value: SSAValue):
        super().__init__(operands=[dst, value])

    def verify_(self) -> None:
        dst, value = self.dst.type, self.value.type
        if (_shape(dst), _element_type(dst)) != (_shape(value), _element_type(value)):
            raise VerifyException(
                f"needs a value of the destination's shape and element type, "
                f"but stores {value} into {dst}."
            )


@irdl_op_definition
class BlockViewOp(IRDLOperation):
    """Tile rows `start` to `stop` (exclusive) of a block a compute thread waited for,
    along its second-to-last dim, the other dims whole (the DSL's `blk[:, 2:4]`):

        %v = d2m.block_view %k rows(0, 4) : tensor<1x8x2x!tile> -> tensor<1x4x2x!tile>

    A read-only view of the CB's front, no copy: its tile (b, r, c) is the source's
    (b, r + start, c). Tiles of a block are row-major, so each batch's rows are one run
    of tiles at an offset; convert-d2m-to-ttkernel adds it to the tile index of every
    read (`copy_tile`, `matmul_tiles`, the binary and reduce calls). Its source is the
    result of `d2m.wait` (a tensor before d2m-bufferize, the L1 block after), never of
    a `d2m.reserve` (the packer writes whole blocks) or a computed value, and it lives
    in a compute thread."""

    name = "d2m.block_view"

    source = operand_def(TensorType | MemRefType)
    start = prop_def(IntegerAttr[I64])
    stop = prop_def(IntegerAttr[I64])
    result = result_def(TensorType | MemRefType)

    assembly_format = (
        "$source `rows` `(` $start `,` $stop `)` attr-dict `:` type($source) `->` type($result)"
    )
    traits = traits_def(Pure())

    def __init__(self, source: SSAValue, start: int, stop: int, result_type: Attribute):
        super().__init__(
            operands=[source],
            properties={"start": IntegerAttr(start, 64), "stop": IntegerAttr(stop, 64)},
            result_types=[result_type],
        )

    @property
    def row_offset(self) -> int:
        return self.start.value.data

    def verify_(self) -> None:
        source, result = self.source.type, self.result.type
        start, stop = self.start.value.data, self.stop.value.data
        if type(source) is not type(result) or _element_type(source) != _element_type(result):
            raise VerifyException(
                f"views a block as a block of the same kind and tiles, but maps {source} to {result}."
            )
        if isinstance(source, MemRefType) and isinstance(result, MemRefType) and (
            source.memory_space != result.memory_space
        ):
            raise VerifyException(f"views {source} as {result}, in another memory space.")
        shape = _shape(source)
        if len(shape) < 2:
            raise VerifyException(f"views tile rows of a block of rank >= 2, but got {source}.")
        if not 0 <= start < stop <= shape[-2]:
            raise VerifyException(
                f"views tile rows {start} to {stop} of a block with {shape[-2]} tile rows; "
                f"they need 0 <= start < stop <= {shape[-2]}."
            )
        expected = (*shape[:-2], stop - start, shape[-1])
        if _shape(result) != expected:
            raise VerifyException(
                f"views {stop - start} tile rows of {source}, so its result has shape "
                f"{'x'.join(map(str, expected))}, but it is {result}."
            )
        if not isinstance(self.source.owner, WaitOp):
            raise VerifyException(
                "views a block taken with d2m.wait (a CB's front), but its source is not one."
            )
        if thread_of(self) == ThreadType.DATAMOVEMENT:
            raise VerifyException("is a compute thread's view; data movement moves whole blocks.")


def viewed_block(block: SSAValue) -> SSAValue:
    """The block `block` is a `d2m.block_view` of, else `block` itself: what the passes
    tracing an operand to its CB look at."""
    return block.owner.source if isinstance(block.owner, BlockViewOp) else block


# ------------------------------------------------------------------------- tile ops


@dataclass(frozen=True, init=False)
class SameTileType(VarConstraint[TileType]):
    """All operands and results constrained by the same `SameTileType(name)` have one
    tile type; says so in a sentence when they do not."""

    def __init__(self, name: str):
        super().__init__(name, BaseAttr(TileType))

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        expected = constraint_context.get_variable(self.name)
        if expected is not None and expected != attr:
            raise VerifyException(
                f"all tiles of this op must have the same type, but got {expected} and {attr}."
            )
        super().verify(attr, constraint_context)


_TILE: AttrConstraint = SameTileType("T")
_ACC_TILE: AttrConstraint = SameTileType("ACC")


class _TileUnaryOp(_EnginePlaced):
    input = operand_def(_TILE)
    result = result_def(_TILE)

    assembly_format = "$input attr-dict `:` type($result)"
    traits = traits_def(Pure())

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input], result_types=[input.type])


class _TileBinaryOp(_EnginePlaced):
    lhs = operand_def(_TILE)
    rhs = operand_def(_TILE)
    result = result_def(_TILE)

    assembly_format = "$lhs `,` $rhs attr-dict `:` type($result)"
    traits = traits_def(Pure())

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[lhs, rhs], result_types=[lhs.type])


class _TileScalarOp(_EnginePlaced):
    """A binary op whose second operand is a compile-time f32 scalar."""

    input = operand_def(_TILE)
    scalar = prop_def(FloatAttr[Float32Type])
    result = result_def(_TILE)

    assembly_format = "$input `,` $scalar attr-dict `:` type($result)"
    traits = traits_def(Pure())

    def __init__(self, input: SSAValue, scalar: float):
        super().__init__(
            operands=[input],
            properties={"scalar": FloatAttr(scalar, Float32Type())},
            result_types=[input.type],
        )


@irdl_op_definition
class TileAddOp(_TileBinaryOp):
    """lhs + rhs, elementwise."""

    ENGINES: ClassVar[frozenset[Engine]] = _FPU_BINARY_ENGINES

    name = "d2m.tile_add"


@irdl_op_definition
class TileSubOp(_TileBinaryOp):
    """lhs - rhs, elementwise."""

    ENGINES: ClassVar[frozenset[Engine]] = _FPU_BINARY_ENGINES

    name = "d2m.tile_sub"


@irdl_op_definition
class TileMulOp(_TileBinaryOp):
    """lhs * rhs, elementwise."""

    ENGINES: ClassVar[frozenset[Engine]] = _FPU_BINARY_ENGINES

    name = "d2m.tile_mul"


FPU_BINARY_OPS = (TileAddOp, TileSubOp, TileMulOp)
"""The binary tile ops the FPU computes (from CBs, or with one operand in DST)."""


@irdl_op_definition
class TileDivOp(_TileBinaryOp):
    """lhs / rhs, elementwise."""

    name = "d2m.tile_div"


@irdl_op_definition
class TileMaximumOp(_TileBinaryOp):
    """max(lhs, rhs), elementwise."""

    name = "d2m.tile_maximum"


@irdl_op_definition
class TileAddScalarOp(_TileScalarOp):
    """input + scalar."""

    name = "d2m.tile_add_scalar"


@irdl_op_definition
class TileSubScalarOp(_TileScalarOp):
    """input - scalar."""

    name = "d2m.tile_sub_scalar"


@irdl_op_definition
class TileRsubScalarOp(_TileScalarOp):
    """scalar - input."""

    name = "d2m.tile_rsub_scalar"


@irdl_op_definition
class TileMulScalarOp(_TileScalarOp):
    """input * scalar."""

    name = "d2m.tile_mul_scalar"


@irdl_op_definition
class TileDivScalarOp(_TileScalarOp):
    """input / scalar."""

    name = "d2m.tile_div_scalar"


@irdl_op_definition
class TileExpOp(_TileUnaryOp):
    """e^x, elementwise."""

    name = "d2m.tile_exp"


@irdl_op_definition
class TileSqrtOp(_TileUnaryOp):
    """sqrt(x), elementwise."""

    name = "d2m.tile_sqrt"


@irdl_op_definition
class TileRsqrtOp(_TileUnaryOp):
    """1 / sqrt(x), elementwise."""

    name = "d2m.tile_rsqrt"


@irdl_op_definition
class TileRecipOp(_TileUnaryOp):
    """1 / x, elementwise."""

    name = "d2m.tile_recip"


@irdl_op_definition
class TileNegOp(_TileUnaryOp):
    """-x, elementwise."""

    name = "d2m.tile_neg"


@irdl_op_definition
class TileAbsOp(_TileUnaryOp):
    """|x|, elementwise."""

    name = "d2m.tile_abs"


@irdl_op_definition
class TileTransposeOp(_TileUnaryOp):
    """The transpose of the tile (rows become columns)."""

    ENGINES: ClassVar[frozenset[Engine]] = frozenset({Engine.FPU, Engine.UNPACK})

    name = "d2m.tile_transpose"


@irdl_op_definition
class TileMatmulOp(_EnginePlaced):
    """acc + a @ b. `a` and `b` share one tile type; `acc` and the result share another
    (an f32 accumulator for bf16 inputs, with fp32 DST accumulation)."""

    ENGINES: ClassVar[frozenset[Engine]] = frozenset({Engine.FPU})

    name = "d2m.tile_matmul"

    a = operand_def(_TILE)
    b = operand_def(_TILE)
    acc = operand_def(_ACC_TILE)
    result = result_def(_ACC_TILE)

    assembly_format = "$a `,` $b `,` $acc attr-dict `:` type($a) `,` type($acc)"
    traits = traits_def(Pure())

    def __init__(self, a: SSAValue, b: SSAValue, acc: SSAValue):
        super().__init__(operands=[a, b, acc], result_types=[acc.type])


class _TileReduceOp(_EnginePlaced):
    """reduce(input * scaler) along `dim`, combined with `acc` (tt-metal's reduce_tile).
    `scaler` is a tile whose first row holds the scale factor (1.0 for a plain reduction)."""

    ENGINES: ClassVar[frozenset[Engine]] = frozenset({Engine.FPU})

    input = operand_def(_TILE)
    scaler = operand_def(_TILE)
    acc = operand_def(_TILE)
    dim = prop_def(ReduceDimAttr)
    result = result_def(_TILE)

    assembly_format = "$dim $input `,` $scaler `,` $acc attr-dict `:` type($result)"
    traits = traits_def(Pure())

    def __init__(self, input: SSAValue, scaler: SSAValue, acc: SSAValue, dim: TileDim):
        super().__init__(
            operands=[input, scaler, acc],
            properties={"dim": ReduceDimAttr(dim)},
            result_types=[acc.type],
        )


@irdl_op_definition
class TileReduceSumOp(_TileReduceOp):
    """Sum of `input * scaler` along `dim`, plus `acc`."""

    name = "d2m.tile_reduce_sum"


@irdl_op_definition
class TileReduceMaxOp(_TileReduceOp):
    """Maximum of `input * scaler` along `dim`, combined with `acc` by maximum."""

    name = "d2m.tile_reduce_max"


@irdl_op_definition
class TileAccumulateOp(_TileBinaryOp):
    """rhs + lhs, elementwise, `rhs` the accumulator: in a reduction generic, the sum of
    the `lhs` tiles along the reduction dims with no reduction within a tile (a row sum
    deferred to once after a loop, d2m-deferred-row-sum). On the FPU with the
    accumulator in DST and `lhs` from a CB (tt-metal's `binary_dest_reuse_tiles<ELWADD,
    DEST_TO_SRCA>`)."""

    ENGINES: ClassVar[frozenset[Engine]] = frozenset({Engine.FPU})

    name = "d2m.tile_accumulate"


@irdl_op_definition
class TileBcastOp(_EnginePlaced):
    """Replicates row 0, column 0 or element [0, 0] of `input` across the tile (`kind`)."""

    ENGINES: ClassVar[frozenset[Engine]] = frozenset({Engine.FPU, Engine.UNPACK})

    name = "d2m.tile_bcast"

    input = operand_def(_TILE)
    kind = prop_def(BcastKindAttr)
    result = result_def(_TILE)

    assembly_format = "$kind $input attr-dict `:` type($result)"
    traits = traits_def(Pure())

    def __init__(self, input: SSAValue, kind: TileDim):
        super().__init__(
            operands=[input], properties={"kind": BcastKindAttr(kind)}, result_types=[input.type]
        )


@irdl_op_definition
class TileFillOp(_EnginePlaced):
    """A tile with every element equal to `value`."""

    name = "d2m.tile_fill"

    value = prop_def(FloatAttr[Float32Type])
    result = result_def(TileType)

    assembly_format = "$value attr-dict `:` type($result)"
    traits = traits_def(Pure())

    def __init__(self, value: float, result_type: TileType):
        super().__init__(
            properties={"value": FloatAttr(value, Float32Type())}, result_types=[result_type]
        )


@irdl_op_definition
class TileWhereOp(_EnginePlaced):
    """Elementwise `condition != 0 ? if_true : if_false`."""

    name = "d2m.tile_where"

    condition = operand_def(_TILE)
    if_true = operand_def(_TILE)
    if_false = operand_def(_TILE)
    result = result_def(_TILE)

    assembly_format = "$condition `,` $if_true `,` $if_false attr-dict `:` type($result)"
    traits = traits_def(Pure())

    def __init__(self, condition: SSAValue, if_true: SSAValue, if_false: SSAValue):
        super().__init__(operands=[condition, if_true, if_false], result_types=[if_true.type])


@irdl_op_definition
class TileCopyOp(_TileUnaryOp):
    """`input` copied into a DST slot of its own: `copy_tile` when `input` is read from
    a CB, a DST-to-DST copy when it already is in DST. d2m-dst-allocate inserts it
    wherever a tile must be in DST and is not (or must survive an in-place op)."""

    ENGINES: ClassVar[frozenset[Engine]] = frozenset({Engine.FPU, Engine.SFPU})  # copy_tile from a CB, copy_dest_values

    name = "d2m.tile_copy"


@irdl_op_definition
class DstSpillOp(IRDLOperation):
    """Ends the DST section mid-computation: the DST tiles `values` are packed into the
    compute-local CB `cb` (one block holding each value for every tile of the
    subblock) and the section is released; `spilled` are the same tiles, now read from
    that CB (a later `d2m.tile_copy` reloads one, an FPU op reads it directly).
    d2m-dst-allocate inserts it when a body needs more DST slots than there are."""

    name = "d2m.dst_spill"

    cb = operand_def(CBType)
    values = var_operand_def(TileType)
    spilled = var_result_def(TileType)

    assembly_format = (
        "$cb `,` $values attr-dict `:` type($cb) `,` type($values) `->` type($spilled)"
    )

    def __init__(self, cb: SSAValue, values: Sequence[SSAValue]):
        super().__init__(operands=[cb, list(values)], result_types=[[v.type for v in values]])

    def verify_(self) -> None:
        if not self.values:
            raise VerifyException("spills no value; it needs at least one.")


@irdl_op_definition
class PackL1AccOp(IRDLOperation):
    """Turns the packer's L1 accumulation on or off (tt-metal's `pack_reconfig_l1_acc`):
    while it is on, every pack adds the DST tile to what the CB page holds instead of
    overwriting it. A compute-thread op; d2m-packer-l1-accumulate places it around the
    generics whose packs accumulate (`d2m.l1_accumulate`)."""

    name = "d2m.pack_l1_acc"

    enable = operand_def(IntegerType(1))

    assembly_format = "$enable attr-dict"

    def __init__(self, enable: SSAValue):
        super().__init__(operands=[enable])

    def verify_(self) -> None:
        if thread_of(self) != ThreadType.COMPUTE:
            raise VerifyException(
                "configures the packer, which only a compute thread has; it must be in a "
                "d2m.generic's compute region."
            )


# ---------------------------------------------------------------------- DST and DMA


@irdl_op_definition
class AcquireDstOp(IRDLOperation):
    """Acquires the DST register file of the math engine, seen as a memref of tiles in the
    dst memory space; tile ops load their operands into it and compute there."""

    name = "d2m.acquire_dst"

    result = result_def(MemRefType)

    assembly_format = "attr-dict `:` type($result)"

    def verify_(self) -> None:
        _verify_in_dst("returns", self.result.type)


def _verify_in_dst(verb: str, memref: Attribute) -> None:
    assert isinstance(memref, MemRefType)
    if memory_space_of(memref) != MemorySpace.DST:
        raise VerifyException(f"{verb} a memref in #ttcore.memory_space<dst>, but got {memref}.")


class _DstSectionOp(IRDLOperation):
    """Base of the DST section hand-offs after `d2m.acquire_dst` (tt-metal's tile_regs_*)."""

    dst = operand_def(MemRefType)

    assembly_format = "$dst attr-dict `:` type($dst)"

    def __init__(self, dst: SSAValue):
        super().__init__(operands=[dst])

    def verify_(self) -> None:
        _verify_in_dst("takes", self.dst.type)


@irdl_op_definition
class CommitDstOp(_DstSectionOp):
    """The math engine is done with the acquired DST section and hands it to the packer."""

    name = "d2m.commit_dst"


@irdl_op_definition
class WaitDstOp(_DstSectionOp):
    """The packer waits for the committed DST section before packing from it."""

    name = "d2m.wait_dst"


@irdl_op_definition
class ReleaseDstOp(_DstSectionOp):
    """The packer is done with the DST section; the next `d2m.acquire_dst` may reuse it."""

    name = "d2m.release_dst"


@irdl_op_definition
class LocalCBOp(IRDLOperation):
    """A CB private to the compute thread, holding a temporary block in L1; the thread
    both produces (reserve/push) and consumes (wait/pop) it. Program assembly numbers
    local CBs after the generic's operand CBs, in order of appearance."""

    name = "d2m.local_cb"

    result = result_def(CBType)

    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, cb_type: CBType):
        super().__init__(result_types=[cb_type])


def _verify_dma_sides(l1: SSAValue, dram: SSAValue, indices: Sequence[SSAValue]) -> None:
    """The DRAM side of a DMA is indexed by one tile index per dimension; the L1 side is a
    block of the same rank and element type."""
    l1_type, dram_type = l1.type, dram.type
    assert isinstance(l1_type, MemRefType) and isinstance(dram_type, MemRefType)
    if memory_space_of(l1_type) != MemorySpace.L1:
        raise VerifyException(f"needs an L1 block on its L1 side, but got {l1_type}.")
    if len(indices) != dram_type.get_num_dims():
        raise VerifyException(
            f"indexes a rank-{dram_type.get_num_dims()} memref with "
            f"{len(indices)} tile indices; it needs one index per dimension."
        )
    if l1_type.get_num_dims() != dram_type.get_num_dims():
        raise VerifyException(
            f"moves a rank-{l1_type.get_num_dims()} block to or from a "
            f"rank-{dram_type.get_num_dims()} memref; the ranks must match."
        )
    if l1_type.get_element_type() != dram_type.get_element_type():
        raise VerifyException(
            f"moves {l1_type.get_element_type()} tiles to or from a memref of "
            f"{dram_type.get_element_type()}; the element types must match."
        )


class _PieceOfBlockOp(IRDLOperation):
    """Base of the DMAs that may move a piece of their L1 block: `rows(start, stop)`,
    tile rows start to stop (exclusive) along its second-to-last dim, where every dim
    before it is 1, so the rows are one run of tiles (row-major) at tile
    `start · shape[-1]` of the block. d2m-generate-datamovement reads and multicasts a
    shared block in such pieces."""

    row_start = opt_prop_def(IntegerAttr[I64])
    row_stop = opt_prop_def(IntegerAttr[I64])

    def piece(self, block_type: MemRefType) -> tuple[int, tuple[int, ...]]:
        """The first tile row of the moved piece in the block, and its shape."""
        shape = block_type.get_shape()
        if self.row_start is None or self.row_stop is None:
            return 0, shape
        start, stop = self.row_start.value.data, self.row_stop.value.data
        return start, (*shape[:-2], stop - start, shape[-1])

    def verify_piece(self, block_type: MemRefType) -> None:
        if (self.row_start is None) != (self.row_stop is None):
            raise VerifyException("needs both ends of its rows, or neither.")
        if self.row_start is None or self.row_stop is None:
            return
        shape = block_type.get_shape()
        start, stop = self.row_start.value.data, self.row_stop.value.data
        if len(shape) < 2 or any(extent != 1 for extent in shape[:-2]):
            raise VerifyException(
                f"moves tile rows of {block_type}; they are one run of tiles only in a block "
                "of rank >= 2 whose dims before its rows are 1."
            )
        if not 0 <= start < stop <= shape[-2]:
            raise VerifyException(
                f"moves tile rows {start} to {stop} of a block with {shape[-2]} tile rows; "
                f"they need 0 <= start < stop <= {shape[-2]}."
            )


def _rows(rows: tuple[int, int] | None) -> dict[str, Attribute]:
    if rows is None:
        return {}
    return {"row_start": IntegerAttr(rows[0], 64), "row_stop": IntegerAttr(rows[1], 64)}


@irdl_op_definition
class DMAReadOp(_PieceOfBlockOp):
    """Starts copying the block of `dst`'s shape at tile index `indices` of `src` (DRAM)
    into the L1 block `dst`; with `rows(start, stop)`, only those tile rows of it (the
    DRAM tiles `start` to `stop` rows past `indices`)."""

    name = "d2m.dma_read"

    src = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    dst = operand_def(MemRefType)
    tx = result_def(MemTxType)

    assembly_format = (
        "$src `[` $indices `]` `,` $dst (`rows` `(` $row_start^ `,` $row_stop `)`)? attr-dict "
        "`:` type($src) `,` type($dst) `->` type($tx)"
    )

    def __init__(
        self, src: SSAValue, indices: Sequence[SSAValue], dst: SSAValue, rows: tuple[int, int] | None = None
    ):
        super().__init__(operands=[src, indices, dst], result_types=[MemTxType()], properties=_rows(rows))

    def verify_(self) -> None:
        _verify_dma_sides(self.dst, self.src, self.indices)
        assert isinstance(self.dst.type, MemRefType)
        self.verify_piece(self.dst.type)


@irdl_op_definition
class DMAWriteOp(IRDLOperation):
    """Starts copying the L1 block `src` into `dst` (DRAM) at tile index `indices`."""

    name = "d2m.dma_write"

    src = operand_def(MemRefType)
    dst = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    tx = result_def(MemTxType)

    assembly_format = (
        "$src `,` $dst `[` $indices `]` attr-dict `:` type($src) `,` type($dst) `->` type($tx)"
    )

    def __init__(self, src: SSAValue, dst: SSAValue, indices: Sequence[SSAValue]):
        super().__init__(operands=[src, dst, indices], result_types=[MemTxType()])

    def verify_(self) -> None:
        _verify_dma_sides(self.src, self.dst, self.indices)


@irdl_op_definition
class DMAMulticastOp(_PieceOfBlockOp):
    """Starts copying the L1 block `src` into the L1 block `dst` (same address) on every
    core of the rectangle whose top-left core is `core` and whose shape is `mcast`
    (rows, columns of cores); with `rows(start, stop)`, only those tile rows. `linked`:
    the NoC keeps the multicast's path for the sender's next multicast, which must go
    to the same rectangle (tt-metal's `linked`; the last of a chain, typically the
    semaphore set telling the receivers, is not)."""

    name = "d2m.dma_mcast"

    src = operand_def(MemRefType)
    dst = operand_def(MemRefType)
    core = var_operand_def(IndexType)
    mcast = var_operand_def(IndexType)
    linked = opt_prop_def(UnitAttr)
    tx = result_def(MemTxType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "$src `,` $dst `core` `[` $core `]` `mcast` `[` $mcast `]` (`rows` `(` $row_start^ `,` $row_stop `)`)? "
        "(`linked` $linked^)? attr-dict "
        "`:` type($src) `,` type($dst) `->` type($tx)"
    )

    def __init__(
        self,
        src: SSAValue,
        dst: SSAValue,
        core: Sequence[SSAValue],
        mcast: Sequence[SSAValue],
        linked: bool = False,
        rows: tuple[int, int] | None = None,
    ):
        super().__init__(
            operands=[src, dst, core, mcast],
            result_types=[MemTxType()],
            properties={**({"linked": UnitAttr()} if linked else {}), **_rows(rows)},
        )

    def verify_(self) -> None:
        for operand in (self.src, self.dst):
            assert isinstance(operand.type, MemRefType)
            if memory_space_of(operand.type) != MemorySpace.L1:
                raise VerifyException(
                    f"copies between L1 blocks, but got {operand.type}."
                )
        if self.src.type != self.dst.type:
            raise VerifyException(
                f"copies a block to a block of the same type, but got "
                f"{self.src.type} and {self.dst.type}."
            )
        self.verify_piece(self.src.type)
        _verify_core_rectangle(self.core, self.mcast)


def _verify_core_rectangle(core: Sequence[SSAValue], mcast: Sequence[SSAValue]) -> None:
    if len(core) not in (0, 2):
        raise VerifyException(
            f"needs a core coordinate of two indices (row, column), but got {len(core)}."
        )
    if len(mcast) not in (0, 2):
        raise VerifyException(
            f"needs a multicast shape of two indices (rows, columns), but got {len(mcast)}."
        )
    if mcast and not core:
        raise VerifyException("needs the rectangle's first core beside its multicast shape.")


@irdl_op_definition
class DMAWaitOp(IRDLOperation):
    """Blocks until the transfer `tx` has completed."""

    name = "d2m.dma_wait"

    tx = operand_def(MemTxType)

    assembly_format = "$tx attr-dict"

    def __init__(self, tx: SSAValue):
        super().__init__(operands=[tx])


@irdl_op_definition
class DMAWriteBarrierOp(IRDLOperation):
    """Blocks until every write and multicast this thread has issued has completed
    (tt-metal's `noc_async_write_barrier`). d2m-generate-datamovement waits for a
    sender's multicasts this way a block later, just before the next block's `ready`
    wait, so that the next block's reads go out while the multicasts finish."""

    name = "d2m.dma_write_barrier"

    assembly_format = "attr-dict"


@irdl_op_definition
class FillCausalMaskOp(IRDLOperation):
    """Fills the L1 block `block` (from d2m.reserve, bf16 tiles) with the additive causal
    mask of its place in a score matrix: element (r, c) of its last two dims is 0 where
    key column `col + c` <= query row `row + r` and -inf past it (torch.triu(…, 1) of
    -inf). `row` and `col` are element offsets, any integers (the diagonal may cross a tile
    anywhere). A data-movement op: the
    mask is computed in the kernel from indices instead of read from a host tensor."""

    name = "d2m.fill_causal_mask"

    block = operand_def(MemRefType)
    row = operand_def(IndexType)
    col = operand_def(IndexType)

    assembly_format = "$block `,` $row `,` $col attr-dict `:` type($block)"

    def __init__(self, block: SSAValue, row: SSAValue, col: SSAValue):
        super().__init__(operands=[block, row, col])

    def verify_(self) -> None:
        block_type = self.block.type
        assert isinstance(block_type, MemRefType)
        if memory_space_of(block_type) != MemorySpace.L1:
            raise VerifyException(f"fills an L1 block, but got {block_type}.")
        if block_type.get_num_dims() < 2:
            raise VerifyException(
                f"fills a block of rank >= 2 (rows x columns of tiles), but got {block_type}."
            )
        tile = block_type.get_element_type()
        if not isinstance(tile, TileType) or tile.element_format != DataType.BF16:
            raise VerifyException(f"writes bf16 tiles, but the block holds {tile}.")


@irdl_op_definition
class TrilMaskOp(IRDLOperation):
    """The constant a `tril` reads its diagonal tiles' element mask from, in a compute
    thread on tensors: one row of bf16 additive causal mask tiles (0 / -inf), tile t
    being `d2m.fill_causal_mask`'s at element offset (`row`, 0), so tile t has its
    first key 32·t - `row` columns right of its first query row. The frontend's
    `tril(x, diagonal)` of a block R tiles tall reads tile `j - i + R - 1` of it for
    output tile (i, j): all 0 below the tile diagonal, the element triangle on it,
    all -inf above it. d2m-tril-masks replaces it by the block of a kernel-local CB
    that a data-movement thread fills once."""

    name = "d2m.tril_mask"

    row = prop_def(IntegerAttr[I64])
    result = result_def(TensorType)

    assembly_format = "attr-dict `:` type($result)"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    def __init__(self, row: int, result_type: TensorType):
        super().__init__(properties={"row": IntegerAttr(row, 64)}, result_types=[result_type])

    def verify_(self) -> None:
        result_type = self.result.type
        assert isinstance(result_type, TensorType)
        shape = result_type.get_shape()
        tile = result_type.get_element_type()
        if len(shape) != 2 or shape[0] != 1:
            raise VerifyException(f"is one row of tiles (1 x N), but got {result_type}.")
        if not isinstance(tile, TileType) or tile.element_format != DataType.BF16:
            raise VerifyException(f"holds bf16 tiles, but got {tile}.")


# ----------------------------------------------------------------------- semaphores


@irdl_op_definition
class SemaphoreSetOp(IRDLOperation):
    """Sets the semaphore to `value`: on this core, on the core `core`, or on every core
    of the rectangle `core` + `mcast`."""

    name = "d2m.semaphore_set"

    semaphore = operand_def(SemaphoreType)
    value = operand_def(IndexType)
    core = var_operand_def(IndexType)
    mcast = var_operand_def(IndexType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "$semaphore `,` $value (`core` `[` $core^ `]`)? (`mcast` `[` $mcast^ `]`)? attr-dict"
    )

    def verify_(self) -> None:
        _verify_core_rectangle(self.core, self.mcast)


@irdl_op_definition
class SemaphoreIncOp(IRDLOperation):
    """Adds `value` to the semaphore on this core or on the core `core`."""

    name = "d2m.semaphore_inc"

    semaphore = operand_def(SemaphoreType)
    value = operand_def(IndexType)
    core = var_operand_def(IndexType)

    assembly_format = "$semaphore `,` $value (`core` `[` $core^ `]`)? attr-dict"

    def verify_(self) -> None:
        _verify_core_rectangle(self.core, ())


@irdl_op_definition
class SemaphoreWaitOp(IRDLOperation):
    """Blocks until this core's semaphore equals `value`, then sets it to `reset` if given."""

    name = "d2m.semaphore_wait"

    semaphore = operand_def(SemaphoreType)
    value = operand_def(IndexType)
    reset = opt_operand_def(IndexType)

    assembly_format = "$semaphore `,` $value (`reset` $reset^)? attr-dict"


# -------------------------------------------------------------------- grid queries


class _IndexQueryOp(IRDLOperation):
    """Base of the ops returning one index along dimension `dim`: `d2m.core_index(0)`."""

    dim = prop_def(IntegerAttr[I64])
    result = result_def(IndexType)

    assembly_format = "`(` $dim `)` attr-dict"
    traits = traits_def(Pure())

    def __init__(self, dim: int):
        super().__init__(properties={"dim": IntegerAttr(dim, 64)}, result_types=[IndexType()])


class _GridQueryOp(_IndexQueryOp):
    GRID_RANK: ClassVar[int] = 2

    def verify_(self) -> None:
        if not 0 <= self.dim.value.data < self.GRID_RANK:
            raise VerifyException(
                f"takes a grid dimension, 0 (rows) or 1 (columns), "
                f"but got {self.dim.value.data}."
            )


@irdl_op_definition
class CoreIndexOp(_GridQueryOp):
    """This core's coordinate along grid dimension `dim` (0: row, 1: column)."""

    name = "d2m.core_index"


@irdl_op_definition
class GridSizeOp(_GridQueryOp):
    """The number of cores of the generic's grid along dimension `dim`."""

    name = "d2m.grid_size"


@irdl_op_definition
class BlockIndexOp(IRDLOperation):
    """The block index along loop dimension `dim` of this core's `n`th block along it:
    where the core's share of the dim begins plus `n` for a contiguous deal, the
    serpentine deal's formula for a serpentine one, `n` itself for a dim no grid dim
    splits. d2m-generate-datamovement replaces it by that arithmetic on
    `d2m.core_index`, in every thread of the generic."""

    name = "d2m.block_index"

    dim = prop_def(IntegerAttr[I64])
    n = operand_def(IndexType)
    result = result_def(IndexType)

    assembly_format = "`(` $dim `)` $n attr-dict"
    traits = traits_def(Pure())

    def __init__(self, dim: int, n: SSAValue):
        super().__init__(
            operands=[n], properties={"dim": IntegerAttr(dim, 64)}, result_types=[IndexType()]
        )

    def verify_(self) -> None:
        if self.dim.value.data < 0:
            raise VerifyException(f"takes a loop dimension >= 0, but got {self.dim.value.data}.")


@irdl_op_definition
class IterIndexOp(_IndexQueryOp):
    """The current block index along loop dimension `dim` of the enclosing generic."""

    name = "d2m.iter_index"

    def verify_(self) -> None:
        if self.dim.value.data < 0:
            raise VerifyException(
                f"takes a loop dimension >= 0, but got {self.dim.value.data}."
            )


D2M = Dialect(
    "d2m",
    [
        GenericOp,
        WaitOp,
        ReserveOp,
        PopOp,
        PushOp,
        StoreOp,
        BlockViewOp,
        TileAddOp,
        TileSubOp,
        TileMulOp,
        TileDivOp,
        TileMaximumOp,
        TileAddScalarOp,
        TileSubScalarOp,
        TileRsubScalarOp,
        TileMulScalarOp,
        TileDivScalarOp,
        TileExpOp,
        TileSqrtOp,
        TileRsqrtOp,
        TileRecipOp,
        TileNegOp,
        TileAbsOp,
        TileTransposeOp,
        TileMatmulOp,
        TileReduceSumOp,
        TileReduceMaxOp,
        TileAccumulateOp,
        TileBcastOp,
        TileFillOp,
        TileWhereOp,
        TileCopyOp,
        DstSpillOp,
        PackL1AccOp,
        AcquireDstOp,
        CommitDstOp,
        WaitDstOp,
        ReleaseDstOp,
        LocalCBOp,
        DMAReadOp,
        DMAWriteOp,
        DMAMulticastOp,
        DMAWaitOp,
        DMAWriteBarrierOp,
        FillCausalMaskOp,
        TrilMaskOp,
        SemaphoreSetOp,
        SemaphoreIncOp,
        SemaphoreWaitOp,
        CoreIndexOp,
        GridSizeOp,
        IterIndexOp,
        BlockIndexOp,
    ],
    [CBType, MemTxType, SemaphoreType, ThreadAttr, ReduceDimAttr, BcastKindAttr, EngineAttr, TriangleAttr],
)
