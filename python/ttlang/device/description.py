"""A device description: one TOML file per device in this package, read into typed values.

A description holds what the compiler, the emulator and the docs need to know about a
device: its Tensix grid (NoC coordinates, harvested and dispatch rows, the compute grid
programs get), L1 and circular buffers, DST capacity, DRAM banks and where they sit on
the NoC, NoC link widths and latencies, and the cycles every kernel API call costs.
Adding a device is adding a file (`<name>.toml`, see n150.toml for the keys); no code
names a device except `DEFAULT_DEVICE`.

The emulator reads the same file itself (lib/device_description.cpp); the launcher
hands it the file's path.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

DESCRIPTIONS_DIR = Path(__file__).resolve().parent
DEFAULT_DEVICE = "n150"
"""The device programs target unless they name another."""


FIDELITY_PHASES = {"LoFi": 1, "HiFi2": 2, "HiFi3": 3, "HiFi4": 4}
"""Passes of the matrix engine (and the FPU multiply) per math fidelity (tensix.md)."""


class DeviceDescriptionError(Exception):
    """A device name with no description, or a description missing or misspelling a key."""


@dataclass(frozen=True)
class TensixGrid:
    """Where the Tensix cores are on the NoC and which of them programs get."""

    noc_size: tuple[int, int]  # (x, y) extent of NoC coordinates
    tensix_x: tuple[int, ...]  # NoC x of each Tensix column
    tensix_y: tuple[int, ...]  # NoC y of each Tensix row, harvested and dispatch included
    harvested_y: tuple[int, ...]
    dispatch_y: tuple[int, ...]
    compute_rows: int
    compute_cols: int

    @property
    def compute_grid(self) -> tuple[int, int]:
        """(rows, cols) of cores a program may use."""
        return (self.compute_rows, self.compute_cols)

    @property
    def worker_y(self) -> tuple[int, ...]:
        """NoC y of the rows programs run on, in logical row order."""
        unused = set(self.harvested_y) | set(self.dispatch_y)
        return tuple(y for y in self.tensix_y if y not in unused)

    def noc_coordinates(self, row: int, col: int) -> tuple[int, int]:
        """The NoC (x, y) of logical core (row, col) of the compute grid."""
        if not (0 <= row < self.compute_rows and 0 <= col < self.compute_cols):
            raise ValueError(
                f"core ({row}, {col}) is outside the {self.compute_rows}x{self.compute_cols} compute grid"
            )
        return (self.tensix_x[col], self.worker_y[row])


@dataclass(frozen=True)
class L1:
    size_bytes: int
    reserved_bytes: int  # below the CBs: firmware, kernel binaries, semaphores
    max_cbs: int
    cb_alignment: int

    @property
    def cb_budget_bytes(self) -> int:
        """L1 a core leaves to circular buffers."""
        return self.size_bytes - self.reserved_bytes


@dataclass(frozen=True)
class Dst:
    tiles_16bit: int  # whole register, 16-bit data
    tiles_32bit: int  # whole register, 32-bit data (fp32_dest_acc_en)

    def capacity_tiles(self, fp32_dest_acc_en: bool, dst_full_sync_en: bool) -> int:
        """DST tiles one sync section may use (half sync gives a section half of DST)."""
        whole = self.tiles_32bit if fp32_dest_acc_en else self.tiles_16bit
        return whole if dst_full_sync_en else whole // 2


@dataclass(frozen=True)
class DramBanks:
    banks: int
    bank_bytes: int
    bank_noc: tuple[tuple[int, int], ...]  # (x, y) NoC endpoint of each bank
    bank_bytes_per_cycle: float


@dataclass(frozen=True)
class DeviceDescription:
    """One device, as its TOML file describes it."""

    name: str
    arch: str
    clock_hz: float
    grid: TensixGrid
    l1: L1
    dst: Dst
    dram: DramBanks
    noc: dict[str, float]  # link widths, latencies: see the file
    costs: dict[str, float]  # cycles per kernel API call: see the file
    path: Path

    def kernel_noc(self, kind: str) -> int:
        """The NoC a data-movement kernel of `kind` ("reader" or "writer") runs on by
        default: its RISC's (`reader_noc` / `writer_noc`)."""
        return int(self.noc[f"{kind}_noc"])

    def peak_flops_per_cycle(self, math_fidelity: str) -> float:
        """Matmul FLOP per cycle per core at `math_fidelity`: one 32x32x32 tile (2 x 32^3
        FLOP) per `matmul_tile_per_phase` cycles per fidelity phase."""
        return 2 * 32**3 / (self.costs["matmul_tile_per_phase"] * FIDELITY_PHASES[math_fidelity])


def available_devices() -> list[str]:
    """Names of every device with a description."""
    return sorted(p.stem for p in DESCRIPTIONS_DIR.glob("*.toml"))


def description_path(name: str) -> Path:
    path = DESCRIPTIONS_DIR / f"{name}.toml"
    if not path.is_file():
        raise DeviceDescriptionError(
            f"no description of device '{name}'; known devices: {', '.join(available_devices())} "
            f"(add {path.name} to {DESCRIPTIONS_DIR})"
        )
    return path


def load_device(name: str = DEFAULT_DEVICE) -> DeviceDescription:
    """The description of device `name` (read once)."""
    return load_description(description_path(name))


@cache
def load_description(path: Path) -> DeviceDescription:
    """The description in the TOML file at `path`."""
    with path.open("rb") as file:
        doc = tomllib.load(file)
    table = _Table(doc, path.name)
    grid, l1, dst, dram = (table.table(t) for t in ("grid", "l1", "dst", "dram"))
    description = DeviceDescription(
        name=table.take("name", str),
        arch=table.take("arch", str),
        clock_hz=table.take("clock_hz", float),
        grid=TensixGrid(
            noc_size=tuple(grid.take("noc_size", list)),
            tensix_x=tuple(grid.take("tensix_x", list)),
            tensix_y=tuple(grid.take("tensix_y", list)),
            harvested_y=tuple(grid.take("harvested_y", list)),
            dispatch_y=tuple(grid.take("dispatch_y", list)),
            compute_rows=grid.take("compute_rows", int),
            compute_cols=grid.take("compute_cols", int),
        ),
        l1=L1(
            size_bytes=l1.take("size_bytes", int),
            reserved_bytes=l1.take("reserved_bytes", int),
            max_cbs=l1.take("max_cbs", int),
            cb_alignment=l1.take("cb_alignment", int),
        ),
        dst=Dst(tiles_16bit=dst.take("tiles_16bit", int), tiles_32bit=dst.take("tiles_32bit", int)),
        dram=DramBanks(
            banks=dram.take("banks", int),
            bank_bytes=dram.take("bank_bytes", int),
            bank_noc=tuple(tuple(xy) for xy in dram.take("bank_noc", list)),
            bank_bytes_per_cycle=dram.take("bank_bytes_per_cycle", float),
        ),
        noc=table.numbers("noc"),
        costs=table.numbers("cost"),
        path=path,
    )
    for part in (table, grid, l1, dst, dram):
        part.check_all_taken()
    _check_consistent(description)
    return description


class _Table:
    """One TOML table, read key by key; keys nobody read are reported (typos)."""

    def __init__(self, doc: dict[str, Any], where: str):
        self.doc = doc
        self.where = where
        self.taken: set[str] = set()

    def take(self, key: str, kind: type) -> Any:
        if key not in self.doc:
            raise DeviceDescriptionError(f"{self.where}: missing key '{key}'")
        value = self.doc[key]
        if kind is float and isinstance(value, int):
            value = float(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise DeviceDescriptionError(f"{self.where}: '{key}' must be a {kind.__name__}, got {value!r}")
        self.taken.add(key)
        return value

    def table(self, key: str) -> _Table:
        return _Table(self.take(key, dict), f"{self.where} [{key}]")

    def numbers(self, key: str) -> dict[str, float]:
        """A table of numbers (noc, cost), every entry a number."""
        entries = self.take(key, dict)
        for name, value in entries.items():
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise DeviceDescriptionError(f"{self.where} [{key}]: '{name}' must be a number, got {value!r}")
        return {name: float(value) for name, value in entries.items()}

    def check_all_taken(self) -> None:
        unknown = sorted(set(self.doc) - self.taken)
        if unknown:
            raise DeviceDescriptionError(f"{self.where}: unknown key(s) {', '.join(unknown)}")


def _check_consistent(device: DeviceDescription) -> None:
    grid = device.grid
    where = device.path.name
    if len(grid.worker_y) < grid.compute_rows or len(grid.tensix_x) < grid.compute_cols:
        raise DeviceDescriptionError(
            f"{where}: a {grid.compute_rows}x{grid.compute_cols} compute grid needs more Tensix rows or "
            f"columns than the {len(grid.worker_y)}x{len(grid.tensix_x)} left after harvesting and dispatch"
        )
    if len(device.dram.bank_noc) != device.dram.banks:
        raise DeviceDescriptionError(f"{where}: [dram] bank_noc lists {len(device.dram.bank_noc)} banks, not {device.dram.banks}")
