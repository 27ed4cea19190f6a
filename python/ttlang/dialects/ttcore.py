"""The ttcore dialect: types and attributes shared by every ttlang dialect.

- `!ttcore.tile<32x32, bf16>`: one 32x32 tile, the unit every Tensix engine works on.
  Blocks of tiles are memrefs/tensors of tiles, e.g.
  `memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>`.
- `#ttcore.memory_space<dram|l1|dst>`: where a memref lives (DRAM, a core's L1, or
  the DST register file of the math engine).
- `#ttcore.grid<RxC>`: a rectangle of cores (rows x columns).
- `#ttcore.iterator_type<parallel|reduction>`: how a loop dimension of a generic runs.
- `#ttcore.data_format<bf16|f32|bfp8_b>`: the element format of a tile (and of a CB
  page). `bfp8_b` (block floating point: one shared exponent per 16 values) is a
  storage format: the unpacker hands its tiles to the math engines as bf16, so compute
  sees a bfp8_b block as bf16 tiles (`TileType.unpacked`) and the packer converts
  back when it writes a bfp8_b CB.
- `#ttcore.device<n150, grid = 8x8, cb_l1_bytes = 1396736, max_cbs = 32, dst_tiles = 16x8>`:
  the target device, what passes need of it (from its description, ttlang.device); the
  frontend puts it on the module as `ttcore.device`. A module without one targets the
  default device.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import IntAttr, IntegerAttr, StringAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import irdl_attr_definition, param_def
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from ttlang.device import DeviceDescription, load_device

TILE_ROWS = 32
TILE_COLS = 32


class DataType(StrEnum):
    """Element format of a tile."""

    BF16 = "bf16"
    F32 = "f32"
    BFP8_B = "bfp8_b"


# Bytes of one 32x32 tile per format; bfp8_b is 1024 mantissa bytes plus one shared
# exponent byte per 16 values (64 bytes).
_TILE_BYTES: dict[DataType, int] = {
    DataType.BF16: TILE_ROWS * TILE_COLS * 2,
    DataType.F32: TILE_ROWS * TILE_COLS * 4,
    DataType.BFP8_B: TILE_ROWS * TILE_COLS + TILE_ROWS * TILE_COLS // 16,
}


class BracketedEnumSyntax:
    """Prints an enum attribute as `#dialect.name<value>` (the MLIR pretty form)."""

    data: StrEnum
    enum_type: type[StrEnum]

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.data.value)

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> StrEnum:
        with parser.in_angle_brackets():
            return parser.parse_str_enum(cls.enum_type)


@irdl_attr_definition
class DataTypeAttr(BracketedEnumSyntax, EnumAttribute[DataType]):
    """A tile element format: `#ttcore.data_format<bf16>`."""

    name = "ttcore.data_format"


class MemorySpace(StrEnum):
    """Where a buffer lives."""

    DRAM = "dram"
    L1 = "l1"
    DST = "dst"


@irdl_attr_definition
class MemorySpaceAttr(BracketedEnumSyntax, EnumAttribute[MemorySpace]):
    """The memory space of a memref: `#ttcore.memory_space<l1>`."""

    name = "ttcore.memory_space"


class IteratorType(StrEnum):
    """How a loop dimension of a generic is iterated."""

    PARALLEL = "parallel"
    REDUCTION = "reduction"


@irdl_attr_definition
class IteratorTypeAttr(BracketedEnumSyntax, EnumAttribute[IteratorType]):
    """A loop dimension's iterator type: `#ttcore.iterator_type<parallel>`."""

    name = "ttcore.iterator_type"


@irdl_attr_definition
class TileType(ParametrizedAttribute, TypeAttribute):
    """A 32x32 tile of `data_type` elements: `!ttcore.tile<32x32, bf16>`."""

    name = "ttcore.tile"

    rows: IntAttr = param_def(IntAttr)
    cols: IntAttr = param_def(IntAttr)
    data_type: DataTypeAttr = param_def(DataTypeAttr)

    def __init__(
        self, data_type: DataType | str | DataTypeAttr, rows: int = TILE_ROWS, cols: int = TILE_COLS
    ):
        if not isinstance(data_type, DataTypeAttr):
            data_type = DataTypeAttr(DataType(data_type))
        super().__init__(IntAttr(rows), IntAttr(cols), data_type)

    @property
    def element_format(self) -> DataType:
        return self.data_type.data

    def unpacked(self) -> TileType:
        """The tile type the math engines see when this one is unpacked from a CB:
        bfp8_b tiles become bf16; bf16 and f32 stay as they are."""
        if self.element_format == DataType.BFP8_B:
            return TileType(DataType.BF16, self.rows.data, self.cols.data)
        return self

    def size_bytes(self) -> int:
        """Bytes one tile of this type occupies in L1 or DRAM."""
        return _TILE_BYTES[self.element_format]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            shape = parser.parse_dimension_list()
            if len(shape) != 2:
                parser.raise_error(f"expected a tile shape of two dimensions, got {len(shape)}")
            parser.parse_punctuation(",")
            data_type = parser.parse_str_enum(DataType)
        return (IntAttr(shape[0]), IntAttr(shape[1]), DataTypeAttr(data_type))

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(f"{self.rows.data}x{self.cols.data}, {self.element_format.value}")

    def verify(self) -> None:
        if (self.rows.data, self.cols.data) != (TILE_ROWS, TILE_COLS):
            raise VerifyException(
                f"a tile must be {TILE_ROWS}x{TILE_COLS}, "
                f"but this one is {self.rows.data}x{self.cols.data}."
            )


@irdl_attr_definition
class GridAttr(ParametrizedAttribute):
    """A rectangle of cores, rows x columns: `#ttcore.grid<2x4>`."""

    name = "ttcore.grid"

    rows: IntAttr = param_def(IntAttr)
    cols: IntAttr = param_def(IntAttr)

    def __init__(self, rows: int, cols: int):
        super().__init__(IntAttr(rows), IntAttr(cols))

    @property
    def shape(self) -> tuple[int, int]:
        return (self.rows.data, self.cols.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            shape = parser.parse_dimension_list()
        if len(shape) != 2:
            parser.raise_error(f"expected a grid of two dimensions (rows x columns), got {len(shape)}")
        return (IntAttr(shape[0]), IntAttr(shape[1]))

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(f"{self.rows.data}x{self.cols.data}")

    def verify(self) -> None:
        if self.rows.data < 1 or self.cols.data < 1:
            raise VerifyException(
                f"a grid needs at least one core in each dimension, but this one is "
                f"{self.rows.data}x{self.cols.data}."
            )


@irdl_attr_definition
class DeviceAttr(ParametrizedAttribute):
    """The target device as passes see it: its name, the compute grid a program may
    use, the L1 bytes and count of circular buffers a core has, and DST's capacity in
    tiles of 16-bit and of 32-bit data (the whole register; half sync halves it)."""

    name = "ttcore.device"

    device_name: StringAttr = param_def(StringAttr)
    grid: GridAttr = param_def(GridAttr)
    cb_l1_bytes: IntAttr = param_def(IntAttr)
    max_cbs: IntAttr = param_def(IntAttr)
    dst_tiles_16bit: IntAttr = param_def(IntAttr)
    dst_tiles_32bit: IntAttr = param_def(IntAttr)

    @staticmethod
    def from_description(
        device: DeviceDescription, grid: tuple[int, int] | None = None
    ) -> DeviceAttr:
        """`device`'s attribute; `grid` narrows its compute grid (a smaller device)."""
        rows, cols = grid or device.grid.compute_grid
        return DeviceAttr(
            StringAttr(device.name),
            GridAttr(rows, cols),
            IntAttr(device.l1.cb_budget_bytes),
            IntAttr(device.l1.max_cbs),
            IntAttr(device.dst.tiles_16bit),
            IntAttr(device.dst.tiles_32bit),
        )

    def dst_capacity_tiles(self, fp32_dest_acc_en: bool, dst_full_sync_en: bool) -> int:
        """DST tiles one sync section may use."""
        whole = (self.dst_tiles_32bit if fp32_dest_acc_en else self.dst_tiles_16bit).data
        return whole if dst_full_sync_en else whole // 2

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        def field(keyword: str) -> list[int]:
            parser.parse_punctuation(",")
            parser.parse_keyword(keyword)
            parser.parse_punctuation("=")
            if keyword in ("grid", "dst_tiles"):
                shape = parser.parse_dimension_list()
                if len(shape) != 2:
                    parser.raise_error(f"expected {keyword} as two dimensions, got {len(shape)}")
                return shape
            return [parser.parse_integer(allow_boolean=False, allow_negative=False)]

        with parser.in_angle_brackets():
            device_name = parser.parse_identifier_or_str_literal("device name")
            (rows, cols), (cb_bytes,), (max_cbs,), (dst16, dst32) = (
                field(k) for k in ("grid", "cb_l1_bytes", "max_cbs", "dst_tiles")
            )
        return (
            StringAttr(device_name),
            GridAttr(rows, cols),
            IntAttr(cb_bytes),
            IntAttr(max_cbs),
            IntAttr(dst16),
            IntAttr(dst32),
        )

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(
                f"{self.device_name.data}, grid = {self.grid.rows.data}x{self.grid.cols.data}, "
                f"cb_l1_bytes = {self.cb_l1_bytes.data}, max_cbs = {self.max_cbs.data}, "
                f"dst_tiles = {self.dst_tiles_16bit.data}x{self.dst_tiles_32bit.data}"
            )

    def verify(self) -> None:
        if self.dst_tiles_16bit.data < 2 or self.dst_tiles_32bit.data < 2:
            raise VerifyException("a device's DST holds at least two tiles (one per half).")


DEVICE_ATTR = "ttcore.device"


def device_of(op: Operation) -> DeviceAttr:
    """The device the module enclosing `op` targets (its `ttcore.device`; the default
    device when it names none)."""
    holder: Operation | None = op
    while holder is not None:
        attr = holder.attributes.get(DEVICE_ATTR)
        if isinstance(attr, DeviceAttr):
            return attr
        holder = holder.parent_op()
    return DeviceAttr.from_description(load_device())


def constant_int(value: SSAValue) -> int | None:
    """The value of `value` if an `arith.constant` defines it."""
    owner = value.owner
    if isinstance(owner, ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


TTCore = Dialect(
    "ttcore",
    [],
    [DataTypeAttr, MemorySpaceAttr, IteratorTypeAttr, TileType, GridAttr, DeviceAttr],
)
