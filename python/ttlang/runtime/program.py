"""The program descriptor: everything a target needs to run one compiled program.

This is the contract between the compiler (which produces it in
`conversion/program_builder.py`) and the runtimes (the emulator and hardware, in
`runtime/`). It mirrors what a tt-metal host program sets up: a core grid, kernels (one compute, one reader, one writer per core),
circular buffers (identical on every core), per-core runtime arguments, compile-time
arguments per kernel, the compute kernel configuration, and DRAM buffers.

A runtime argument is a plain 32-bit integer, `BufferAddress(name)`, which the runtime
replaces by the DRAM base address it gave the named buffer (as a tt-metal host does with
`buffer->address()`), or `NocCoordinate(axis, index)`, which it replaces by the NoC
coordinate of a grid column or row on its target.

A Program has one serialized form, `Program.to_json` (versioned by PROGRAM_FORMAT, read
back by `Program.from_json`): the emulator reads it (lib/program_loader.cpp) and the
hardware launcher keys its program cache on it; docs/emulator.md gives the schema.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Literal

from ttlang.device import DEFAULT_DEVICE

DataFormat = Literal["bf16", "fp32", "bfp8_b"]
KernelKind = Literal["compute", "reader", "writer"]
MathFidelity = Literal["LoFi", "HiFi2", "HiFi3", "HiFi4"]

# The version of the serialized program (`Program.to_json`); a change to its schema
# bumps it, and both readers (`Program.from_json`, lib/program_loader.cpp) check it.
PROGRAM_FORMAT = 2  # 2: a kernel's `noc`

TILE_ROWS = 32
TILE_COLS = 32
TILE_BYTES: dict[str, int] = {
    "bf16": TILE_ROWS * TILE_COLS * 2,
    "fp32": TILE_ROWS * TILE_COLS * 4,
    # One shared exponent byte per 16 values (a face row), then one sign-magnitude byte
    # per value: 64 + 1024 (tt-metal's tile_size(DataFormat::Bfp8_b)).
    "bfp8_b": TILE_ROWS * TILE_COLS // 16 + TILE_ROWS * TILE_COLS,
}


def tile_size_bytes(data_format: str) -> int:
    """Bytes in one 32x32 tile of `data_format`."""
    return TILE_BYTES[data_format]


@dataclass(frozen=True)
class BufferAddress:
    """A runtime argument that the runtime resolves to a DRAM buffer's base address."""

    buffer: str


@dataclass(frozen=True)
class NocCoordinate:
    """A runtime argument that the runtime resolves to the NoC x of grid column `index`
    (`axis` "x") or the NoC y of grid row `index` ("y"), as its target numbers the NoC:
    the emulator's NoC coordinates are the logical ones, a device's come from its
    description (`ttlang.device`: `TensixGrid.noc_coordinates`)."""

    axis: Literal["x", "y"]
    index: int


RuntimeArg = int | BufferAddress | NocCoordinate


@dataclass(frozen=True)
class ComputeConfig:
    """tt-metal's ComputeConfig: decides DST capacity, numerics and matmul cost."""

    math_fidelity: MathFidelity = "HiFi2"
    fp32_dest_acc_en: bool = False
    math_approx_mode: bool = False
    dst_full_sync_en: bool = False


@dataclass(frozen=True)
class CBConfig:
    """One circular buffer, allocated at the same L1 address on every core."""

    index: int  # CB id, 0..31
    num_pages: int  # capacity in pages (tiles)
    page_size: int  # bytes per page
    data_format: DataFormat = "bf16"
    name: str = ""  # the kernel's CB parameter (`k_cb`), for run-time reports
    # The index of a CB listed before this one whose L1 this CB uses (tt-metal: two
    # buffer indices of one circular buffer, e.g. a matmul's partial sums and its output);
    # each index keeps its own pointers. -1: L1 of its own.
    shares_l1_with: int = -1


@dataclass(frozen=True)
class Kernel:
    """One kernel source; `kind` says which RISC-V thread(s) run it. `noc`: the NoC its
    RISC uses, the default of its NoC calls (tt-metal's `DataMovementConfig::noc`,
    `noc_index`); None, the device's for its kind (`reader_noc` / `writer_noc`: NoC 0
    and NoC 1 on Wormhole, as ttnn's reader and writer configurations set them)."""

    name: str
    kind: KernelKind
    source: str  # C++ source text
    compile_time_args: tuple[int, ...] = ()
    noc: int | None = None

    def __post_init__(self) -> None:
        if self.noc not in (None, 0, 1):
            raise ValueError(f"kernel '{self.name}': noc={self.noc!r}; a Tensix has NoC 0 and NoC 1")


@dataclass(frozen=True)
class DramBuffer:
    """An interleaved DRAM buffer of tile pages holding one tensor.

    `shape` is the logical tensor shape (last two dims multiples of 32); pages are the
    tensor's tiles in row-major tile order, interleaved round-robin over the DRAM
    banks. Inputs are written before the launch; outputs are read back after it.
    """

    name: str
    shape: tuple[int, ...]
    data_format: DataFormat = "bf16"
    is_input: bool = True
    is_output: bool = False

    @property
    def page_size(self) -> int:
        return tile_size_bytes(self.data_format)

    @property
    def num_pages(self) -> int:
        *batch, rows, cols = self.shape
        pages = (rows // TILE_ROWS) * (cols // TILE_COLS)
        for extent in batch:
            pages *= extent
        return pages


@dataclass
class Program:
    """A complete program: what a target needs to launch it."""

    grid: tuple[int, int]  # (rows, cols) of cores used, starting at core (0, 0)
    kernels: list[Kernel]
    cbs: list[CBConfig]
    buffers: list[DramBuffer]
    # runtime_args[kernel name][(row, col)] = args for that kernel on that core;
    # a core missing from the map gets no args.
    runtime_args: dict[str, dict[tuple[int, int], list[RuntimeArg]]] = field(
        default_factory=dict
    )
    compute_config: ComputeConfig = field(default_factory=ComputeConfig)
    # Semaphores: initial values, allocated identically on every core (ids 0..n-1).
    semaphores: list[int] = field(default_factory=list)
    device: str = DEFAULT_DEVICE  # the description (ttlang.device) the program targets

    def to_dict(self) -> dict:
        """The program as JSON-ready data: the one serialized form (`to_json`), read by
        the emulator (lib/program_loader.cpp) and hashed by the hardware launcher's
        program cache key."""

        def encode(arg: RuntimeArg) -> int | dict[str, str | int]:
            if isinstance(arg, BufferAddress):
                return {"buffer": arg.buffer}
            if isinstance(arg, NocCoordinate):
                return {"noc": arg.axis, "index": arg.index}
            return int(arg)

        return {
            "format": PROGRAM_FORMAT,
            "device": self.device,
            "grid": list(self.grid),
            "compute_config": asdict(self.compute_config),
            "cbs": [asdict(c) for c in self.cbs],
            "buffers": [asdict(b) for b in self.buffers],
            "semaphores": list(self.semaphores),
            "kernels": [asdict(k) for k in self.kernels],
            "runtime_args": {
                name: [
                    {"core": [row, col], "args": [encode(a) for a in args]}
                    for (row, col), args in sorted(per_core.items())
                ]
                for name, per_core in sorted(self.runtime_args.items())
            },
        }

    def to_json(self) -> str:
        """The program as JSON (schema: docs/emulator.md, "The program file")."""
        return json.dumps(self.to_dict(), indent=1)

    @classmethod
    def from_json(cls, text: str) -> Program:
        """The program `to_json` wrote; a file of another format version is refused."""
        doc = json.loads(text)
        if doc.get("format") != PROGRAM_FORMAT:
            raise ValueError(
                f"program JSON has format {doc.get('format')!r}; this ttlang reads format "
                f"{PROGRAM_FORMAT} (write it again with this version's Program.to_json)"
            )

        def decode(arg: int | dict) -> RuntimeArg:
            if isinstance(arg, int):
                return arg
            if "buffer" in arg:
                return BufferAddress(arg["buffer"])
            return NocCoordinate(arg["noc"], arg["index"])

        return cls(
            grid=tuple(doc["grid"]),
            kernels=[
                Kernel(**{**k, "compile_time_args": tuple(k["compile_time_args"])}) for k in doc["kernels"]
            ],
            cbs=[CBConfig(**c) for c in doc["cbs"]],
            buffers=[DramBuffer(**{**b, "shape": tuple(b["shape"])}) for b in doc["buffers"]],
            runtime_args={
                name: {tuple(entry["core"]): [decode(a) for a in entry["args"]] for entry in per_core}
                for name, per_core in doc["runtime_args"].items()
            },
            compute_config=ComputeConfig(**doc["compute_config"]),
            semaphores=list(doc["semaphores"]),
            device=doc["device"],
        )
