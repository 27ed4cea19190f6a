"""Program assembly: the lowered module -> the `Program` a runtime launches.

Input: a module after `convert-ttkernel-to-emitc`, carrying the `ttlang.program`
attribute that convert-d2m-to-ttkernel wrote (grid, buffers, CBs by id, kernels and
their runtime-argument layout, compute configuration). Output:

- kernels: one per kernel function, its C++ from `ttlang.target.cpp`; every kernel
  gets the CB ids as compile-time args (arg `i` is CB `i`);
- CBs: page = one tile of the block's format, pages = tiles per block x blocks (the
  operand CBs, the kernel-local CBs, and the compute-local CBs d2m-bufferize and
  d2m-memref-provenance bound), a CB in another's L1 where ttkernel-share-cb-l1 says so;
  together (a CB in another's L1 taking none of its own) they must fit a core of the module's `ttcore.device`: at most its
  `max_cbs` of them, in the `cb_l1_bytes` of L1 it leaves to CBs, else
  `CBBudgetError` names the kernel and lists the CBs;
- buffers: one DRAM buffer per kernel tensor, its logical shape in elements;
- runtime args per kernel and core, following the layout: a buffer's DRAM address
  (`BufferAddress`), the core's (row, column), the grid's (rows, columns), the NoC
  coordinate of each grid column and row (`NocCoordinate`, resolved by the launcher);
- the compute configuration from the kernel's `ttcore.compute_config`;
- the semaphores, each starting at 0;
- the device, by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Attribute

from ttlang.dialects import d2m
from ttlang.dialects.ttcore import DataType, DeviceAttr, GridAttr, TileType, device_of
from ttlang.transforms.analysis.compute_config import config_from_attr
from ttlang.target.cpp import translate_kernels
from ttlang.runtime.program import (
    TILE_COLS,
    TILE_ROWS,
    BufferAddress,
    NocCoordinate,
    CBConfig,
    ComputeConfig,
    DataFormat,
    DramBuffer,
    Kernel,
    Program,
    RuntimeArg,
    tile_size_bytes,
)

from ttlang.conversion.d2m_to_ttkernel import PROGRAM_ATTR

_DATA_FORMAT: dict[DataType, DataFormat] = {
    DataType.BF16: "bf16",
    DataType.F32: "fp32",
    DataType.BFP8_B: "bfp8_b",
}


SHARES_L1_ATTR = "cb_shares_l1_with"
"""The `ttlang.program` entry ttkernel-share-cb-l1 writes: by CB id, the id of the CB
whose L1 it takes, or -1 (`CBConfig.shares_l1_with`)."""


class ProgramError(Exception):
    """The module does not describe a program (it was not lowered by the pipeline)."""


class CBBudgetError(ProgramError):
    """The program's circular buffers do not fit a core (too many, or too big for L1).
    The numbers are fields, so callers never parse the message: `bytes_needed` and
    `bytes_available` (L1 for CBs; None when the CB count is the problem), `cbs`."""

    def __init__(
        self,
        message: str,
        cbs: list[CBConfig],
        bytes_needed: int | None = None,
        bytes_available: int | None = None,
    ):
        super().__init__(message)
        self.cbs = cbs
        self.bytes_needed = bytes_needed
        self.bytes_available = bytes_available


def check_cb_budget(
    kernel: str, cbs: list[CBConfig], device: DeviceAttr, holding_all_blocks: Sequence[int] = ()
) -> None:
    """Raises CBBudgetError when `kernel` needs more CBs, or more L1 for them, than a
    core of `device` has. `holding_all_blocks`: ids of CBs d2m-hw-thread-selection grew
    to hold all their per-core blocks; the error says so."""
    max_cbs, budget = device.max_cbs.data, device.cb_l1_bytes.data
    if len(cbs) > max_cbs:
        raise CBBudgetError(
            f"kernel '{kernel}': needs {len(cbs)} circular buffers, more than the "
            f"{max_cbs} a core has; fewer temporaries or spills would fit.",
            cbs,
        )
    total = sum(cb.num_pages * cb.page_size for cb in cbs if cb.shares_l1_with < 0)
    if total <= budget:
        return
    listing = ", ".join(
        f"cb{cb.index} {cb.num_pages} x {cb.page_size} B"
        + (f" (in cb{cb.shares_l1_with}'s L1)" if cb.shares_l1_with >= 0 else "")
        for cb in sorted(cbs, key=lambda cb: -cb.num_pages * cb.page_size)
    )
    raise CBBudgetError(
        f"kernel '{kernel}': its {len(cbs)} circular buffers need {total // 1024} KiB of L1 "
        f"per core, more than the {budget // 1024} KiB a core of the {device.device_name.data} "
        f"leaves for CBs: {listing}; use smaller blocks (block_factors) or fewer blocks per CB."
        + "".join(
            f" cb{cb.index}{f' (`{cb.name}`)' if cb.name else ''} holds all its {cb.num_pages} "
            "per-core tiles because its generated data movement shares a data-movement thread "
            "with hand-written movement (d2m-hw-thread-selection; docs/dsl.md, \"Implicit "
            "operands\"): make a data-movement thread `pass`, or spread the tensor over more cores."
            for cb in cbs
            if cb.index in holding_all_blocks
        ),
        cbs,
        bytes_needed=total,
        bytes_available=budget,
    )


def data_format(tile: Attribute) -> DataFormat:
    """The program-descriptor format of a tile type."""
    if not isinstance(tile, TileType) or tile.element_format not in _DATA_FORMAT:
        raise ProgramError(f"tiles of {tile} have no data format the runtimes support")
    return _DATA_FORMAT[tile.element_format]


def cb_config(index: int, cb_type: Attribute, name: str = "") -> CBConfig:
    """The L1 circular buffer of CB id `index` (`name`: the kernel's CB parameter)."""
    assert isinstance(cb_type, d2m.CBType)
    block = cb_type.block
    tiles_per_block = 1
    for extent in block.get_shape():
        tiles_per_block *= extent
    fmt = data_format(block.get_element_type())
    return CBConfig(
        index=index,
        num_pages=tiles_per_block * cb_type.buffers.data,
        page_size=tile_size_bytes(fmt),
        data_format=fmt,
        name=name,
    )


def dram_buffer(name: str, role: str, memref: Attribute) -> DramBuffer:
    """The DRAM buffer of one kernel tensor (a memref of tiles; shape in elements)."""
    assert isinstance(memref, MemRefType)
    *batch, rows, cols = memref.get_shape()
    return DramBuffer(
        name=name,
        shape=(*batch, rows * TILE_ROWS, cols * TILE_COLS),
        data_format=data_format(memref.get_element_type()),
        is_input=role == "input",
        is_output=role == "output",
    )


def _runtime_args(
    layout: ArrayAttr, buffers: list[DramBuffer], core: tuple[int, int], grid: tuple[int, int]
) -> list[RuntimeArg]:
    args: list[RuntimeArg] = []
    for entry in layout.data:
        kind, index = entry.data
        assert isinstance(kind, StringAttr) and isinstance(index, IntegerAttr)
        position = index.value.data
        if kind.data == "buffer_address":
            args.append(BufferAddress(buffers[position].name))
        elif kind.data == "core_index":
            args.append(core[position])
        elif kind.data == "grid_size":
            args.append(grid[position])
        elif kind.data in ("noc_x", "noc_y"):
            args.append(NocCoordinate(kind.data[-1], position))
        else:
            raise ProgramError(f"unknown runtime argument kind '{kind.data}'")
    return args


def _description(module: ModuleOp) -> dict[str, Attribute]:
    attr = module.attributes.get(PROGRAM_ATTR)
    if not isinstance(attr, DictionaryAttr):
        raise ProgramError(
            f"the module has no '{PROGRAM_ATTR}' attribute; run convert-d2m-to-ttkernel"
        )
    return attr.data


def _cbs(description: dict[str, Attribute]) -> list[CBConfig]:
    """The program's CBs by id, with the L1 sharing ttkernel-share-cb-l1 recorded."""
    names_attr = description.get("cb_names")
    names = [n.data for n in names_attr.data] if isinstance(names_attr, ArrayAttr) else []
    shares_attr = description.get(SHARES_L1_ATTR)
    shares = [h.value.data for h in shares_attr.data] if isinstance(shares_attr, ArrayAttr) else []
    cbs = [
        replace(
            cb_config(index, cb_type, names[index] if index < len(names) else ""),
            shares_l1_with=shares[index] if index < len(shares) else -1,
        )
        for index, cb_type in enumerate(description["cbs"].data)
    ]
    return cbs


def _check_cbs(description: dict[str, Attribute], cbs: list[CBConfig], device: DeviceAttr) -> None:
    """`check_cb_budget` on the program's CBs `cbs` (`_cbs(description)`)."""
    name = description["name"]
    assert isinstance(name, StringAttr)
    holding = description.get(d2m.GenericOp.CBS_HOLDING_ALL_BLOCKS)
    holding_all_blocks = [i.data for i in holding.data] if isinstance(holding, ArrayAttr) else []
    check_cb_budget(name.data, cbs, device, holding_all_blocks)


def check_program_cbs(module: ModuleOp) -> None:
    """`check_cb_budget` on the CBs of the module's program (CBBudgetError), as program
    assembly does; the driver calls it once ttkernel-share-cb-l1 has laid them out, so a
    kernel too big for L1 fails before the rest of the pipeline runs."""
    description = _description(module)
    _check_cbs(description, _cbs(description), device_of(module))


def build_program(module: ModuleOp) -> Program:
    """The program `module` (lowered through convert-ttkernel-to-emitc) describes."""
    description = _description(module)
    grid_attr = description["grid"]
    assert isinstance(grid_attr, GridAttr)
    grid = grid_attr.shape
    buffers = [
        dram_buffer(e.data[0].data, e.data[1].data, e.data[2]) for e in description["buffers"].data
    ]
    cbs = _cbs(description)
    device = device_of(module)
    _check_cbs(description, cbs, device)
    sources = translate_kernels(module)
    compile_time_args = tuple(cb.index for cb in cbs)
    kernels = [
        Kernel(
            name=name.data,
            kind=kind.data,
            source=sources[name.data],
            compile_time_args=compile_time_args,
        )
        for name, kind in (entry.data for entry in description["kernels"].data)
    ]
    layout = description["runtime_args"]
    assert isinstance(layout, ArrayAttr)
    runtime_args = {
        kernel.name: {
            (row, col): _runtime_args(layout, buffers, (row, col), grid)
            for row in range(grid[0])
            for col in range(grid[1])
        }
        for kernel in kernels
    }
    config_attr = description.get("compute_config")
    compute_config = config_from_attr(config_attr) if config_attr is not None else ComputeConfig()
    semaphores = description["semaphores"]
    assert isinstance(semaphores, IntegerAttr)
    return Program(
        grid=grid,
        kernels=kernels,
        cbs=cbs,
        buffers=buffers,
        runtime_args=runtime_args,
        compute_config=compute_config,
        semaphores=[0] * semaphores.value.data,
        device=device.device_name.data,
    )
