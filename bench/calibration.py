"""Calibration: the emulator's cost model against Tenstorrent's published measurements.

Usage: .venv/bin/python bench/calibration.py [--device n150] [--skip-gemm]

Runs every point of the fitting set and of held-out points from the same published
tables on the emulator and prints, per point: table, configuration, published figure,
modeled figure, ratio (modeled / published), role (`fit`: a point some cost entry of
the device description was fitted to, or that the issue names as one of the set the
model must match; `held-out`: a point of the same table nobody fitted to) and source.
docs/cost_model.md explains the fit. The goal: fit points within +-10%, held-out
points within +-15%. The last two lines are `within_15pct_held_out=K/N` and
`within_10pct=K/N` (fit points).

Every figure here is "published" (tt-metal's repository, cited per point) or
"modeled" (this emulator); nothing is measured on hardware by this script.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "test" / "emulator"))

import emulator_programs as programs  # noqa: E402
from results import Results, progress  # noqa: E402

from ttlang.device import FIDELITY_PHASES, load_device  # noqa: E402
from ttlang.runtime import run_program  # noqa: E402
from ttlang.runtime.program import (  # noqa: E402
    BufferAddress, CBConfig, ComputeConfig, DramBuffer, Program,
)

DM = "tt-metal tests/tt_metal/tt_metal/data_movement/documentation/perf_plots/wormhole_b0/"
GEMM = "tt-metal tech_reports/GEMM_FLOPS/GEMM_FLOPS.md (N150 manually tuned, device-based utilization)"
DRAM_REPORT = "tt-metal tech_reports/Saturating_DRAM_bandwidth/Saturating_DRAM_bandwidth.md"
EXP = "tt-llk PR #1190 (fast approximate exp, 70.7 cycles/tile); tt-metal issue #55760"

# Published latencies (cycles) of the data-movement tables: every row of each table,
# by number of transactions (rows below) and transaction size (columns, 32 B to 64 KiB).
DM_SIZES = tuple(32 << i for i in range(12))
DM_COUNTS = (1, 4, 16, 64, 256)


def _dm_table(rows: list[list[int]]) -> dict[tuple[int, int], int]:
    return {(count, size): cycles for count, row in zip(DM_COUNTS, rows, strict=True)
            for size, cycles in zip(DM_SIZES, row, strict=True)}


DRAM_READ = _dm_table([
    [384, 383, 382, 391, 398, 423, 463, 552, 871, 1213, 1889, 3299],
    [434, 474, 441, 466, 466, 570, 716, 1059, 1729, 3260, 6242, 12227],
    [735, 711, 699, 743, 722, 1060, 1880, 3387, 6390, 12091, 23797, 47902],
    [1790, 1645, 1830, 1661, 1885, 3307, 6229, 12077, 23797, 47328, 94192, 190870],
    [5469, 5515, 6226, 5493, 6229, 12076, 23929, 47295, 94156, 188061, 375736, 762381],
])
DRAM_WRITE = _dm_table([
    [401, 401, 406, 424, 431, 460, 505, 583, 757, 1089, 1942, 3479],
    [579, 574, 481, 495, 503, 583, 784, 1252, 1764, 3474, 6540, 12455],
    [1439, 1407, 776, 737, 810, 1086, 1941, 3467, 6348, 12272, 24220, 48838],
    [4547, 4481, 1770, 2006, 1997, 3460, 6344, 12252, 24101, 47987, 95727, 194399],
    [16558, 17049, 6277, 6306, 6392, 12435, 24293, 47971, 95521, 190718, 381288, 775371],
])
ONE_FROM_ONE = _dm_table([
    [290, 290, 290, 298, 307, 322, 364, 434, 570, 864, 1433, 2577],
    [357, 357, 357, 365, 373, 437, 582, 861, 1429, 2570, 4845, 9421],
    [585, 585, 585, 585, 601, 889, 1450, 2585, 4849, 9410, 18510, 36718],
    [1497, 1497, 1497, 1497, 1513, 2665, 4962, 9473, 18553, 36810, 73334, 146380],
    [5145, 5145, 5145, 5145, 5185, 9801, 18722, 37017, 73001, 145956, 291626, 583636],
])
ONE_TO_ONE = _dm_table([
    [294, 295, 302, 302, 308, 326, 358, 431, 555, 821, 1358, 2402],
    [369, 369, 363, 378, 381, 428, 553, 810, 1342, 2386, 4521, 8719],
    [637, 637, 645, 645, 662, 829, 1358, 2407, 4500, 8719, 17087, 33969],
    [1681, 1741, 1741, 1688, 1757, 2431, 4541, 8729, 17110, 33888, 67550, 134847],
    [5903, 5904, 6157, 6165, 6173, 8872, 17293, 34049, 67496, 134861, 269351, 538649],
])
MULTICAST_LINKED_5X5 = _dm_table([
    [468, 467, 468, 475, 485, 498, 540, 596, 730, 1183, 2093, 3891],
    [547, 545, 552, 558, 570, 619, 774, 1053, 1589, 2885, 5461, 10669],
    [812, 809, 820, 843, 954, 1224, 1774, 2844, 4973, 9653, 19031, 37750],
    [1955, 1955, 1955, 2011, 2498, 3592, 5750, 10029, 18495, 36768, 73185, 146003],
    [6565, 6563, 6569, 6644, 8630, 13095, 21669, 38703, 72614, 144964, 289807, 579328],
])
MULTICAST_5X5 = _dm_table([
    [470, 468, 466, 475, 482, 498, 541, 594, 731, 1182, 2084, 3885],
    [1020, 1022, 1028, 1049, 1078, 1140, 1290, 1564, 2085, 3884, 7477, 14653],
    [3194, 3206, 3236, 3300, 3437, 3717, 4261, 5341, 7473, 14675, 29010, 57751],
    [11879, 11945, 12072, 12325, 12878, 13993, 16148, 20439, 29008, 57724, 115166, 230108],
    [46631, 46895, 47409, 48426, 50606, 55018, 63692, 80886, 115183, 230141, 459662, 918861],
])
# The points some [noc] entry was fitted to, or that the issue names (docs/cost_model.md).
DM_FIT = {
    "DRAM read": {(1, 32), (16, 2048), (256, 2048)},
    "DRAM write": {(1, 32), (256, 32), (256, 2048)},
    "one from one": {(1, 2048), (256, 2048), (256, 32)},
    "one to one": {(1, 32), (256, 512), (256, 2048)},
    "multicast linked 5x5": {(1, 32), (16, 2048), (256, 65536)},
    "multicast 5x5": {(16, 2048)},
}
DM_TABLES = {
    "DRAM read": (DRAM_READ, "DRAM Interleaved Packet Sizes.md (Receiver)"),
    "DRAM write": (DRAM_WRITE, "DRAM Interleaved Packet Sizes.md (Sender)"),
    "one from one": (ONE_FROM_ONE, "One from One Packet Sizes.md"),
    "one to one": (ONE_TO_ONE, "One to One Packet Sizes.md"),
    "multicast linked 5x5": (MULTICAST_LINKED_5X5, "One to All Multicast Linked 5x5 Packet Sizes without Loopback.md"),
    "multicast 5x5": (MULTICAST_5X5, "One to All Multicast 5x5 Packet Sizes without Loopback.md"),
}
# (m, k, n, dtype, fidelity, a and out in L1) -> device-based utilization % (GEMM_FLOPS.md,
# "N150 Manually Tuned Configurations", 8x8, without trace): every row from 2048 to
# 4096 (the sizes below take seconds to minutes of emulation; 8192^3 and 16384^3 would
# take an hour, and the rows below 2048 measure host-launched programs of a few
# microseconds, whose fixed overheads the model does not hold).
GEMM_POINTS = {
    (2048, 2048, 2048, "bf16", "HiFi2", True): 64.88,
    (2048, 2048, 3072, "bf16", "HiFi2", True): 64.52,
    (2048, 3072, 3072, "bf16", "HiFi2", True): 65.50,
    (3072, 3072, 3072, "bf16", "HiFi2", True): 64.56,
    (3072, 3072, 4096, "bf16", "HiFi2", False): 74.19,
    (3072, 4096, 4096, "bf16", "HiFi2", False): 75.09,
    (3328, 2560, 2560, "bf16", "HiFi2", False): 63.14,
    (4096, 4096, 4096, "bf16", "HiFi2", False): 59.50,
    (2048, 2048, 2048, "bf16", "HiFi4", True): 89.65,
    (2048, 2048, 3072, "bf16", "HiFi4", True): 90.21,
    (2048, 3072, 3072, "bf16", "HiFi4", True): 92.04,
    (3072, 3072, 3072, "bf16", "HiFi4", True): 92.41,
    (3072, 3072, 4096, "bf16", "HiFi4", False): 91.69,
    (3072, 4096, 4096, "bf16", "HiFi4", False): 92.18,
    (3328, 2560, 2560, "bf16", "HiFi4", False): 89.41,
    (4096, 4096, 4096, "bf16", "HiFi4", False): 83.21,
    (2048, 2048, 2048, "bfp8_b", "HiFi2", True): 84.56,
    (2048, 2048, 3072, "bfp8_b", "HiFi2", True): 85.57,
    (2048, 3072, 3072, "bfp8_b", "HiFi2", True): 86.95,
    (3072, 3072, 3072, "bfp8_b", "HiFi2", True): 88.56,
    (3072, 3072, 4096, "bfp8_b", "HiFi2", True): 89.18,
    (3328, 2560, 2560, "bfp8_b", "HiFi2", False): 85.08,
    (4096, 4096, 4096, "bfp8_b", "HiFi2", False): 79.43,
    (2048, 2048, 2048, "bfp8_b", "LoFi", True): 59.82,
    (2048, 2048, 3072, "bfp8_b", "LoFi", True): 59.35,
    (2048, 3072, 3072, "bfp8_b", "LoFi", True): 61.20,
    (3072, 3072, 3072, "bfp8_b", "LoFi", True): 61.57,
    (3072, 3072, 4096, "bfp8_b", "LoFi", True): 63.26,
    (3328, 2560, 2560, "bfp8_b", "LoFi", False): 58.62,
    (4096, 4096, 4096, "bfp8_b", "LoFi", False): 58.88,
}
# The fitting set, and the point matmul_tile_floor_bfp8_b is fitted on.
GEMM_FIT = {
    (2048, 2048, 2048, "bf16", "HiFi2", True), (2048, 2048, 2048, "bf16", "HiFi4", True),
    (4096, 4096, 4096, "bf16", "HiFi2", False), (4096, 4096, 4096, "bf16", "HiFi4", False),
    (3072, 3072, 3072, "bfp8_b", "LoFi", True),
}

DM_CB = 0
DM_SLOTS = 16


@dataclass(frozen=True)
class Point:
    table: str
    config: str
    published: float
    unit: str
    fit: bool
    source: str
    modeled: Callable[[], float]


def _dm_program(grid: tuple[int, int], kernel_file: str, bytes_: int, args: dict, pages: int = 0) -> Program:
    """One data-movement kernel on `grid` with a CB of 16 slots of `bytes_` (and a DRAM
    buffer of `pages` tile pages when `pages`)."""
    return Program(
        grid=grid,
        kernels=[programs.kernel(kernel_file, "reader", DM_CB)],
        cbs=[CBConfig(DM_CB, DM_SLOTS, bytes_)],
        buffers=[DramBuffer("dram", (32, 32 * pages), is_input=False)] if pages else [],
        runtime_args={Path(kernel_file).stem: args},
    )


def _reader_cycles(program: Program, core: tuple[int, int] = (0, 0)) -> float:
    report = run_program(program, {}, "emulator").report
    timing = next(c for c in report.cores if c.core == core)
    return float(max(t.cycles for t in timing.threads))


def _dram_pages(bytes_: int, banks: int, per_bank: int) -> int:
    """Tile pages (2 KB) of a buffer whose banks each hold `per_bank` pages of `bytes_`."""
    return max(banks, banks * per_bank * bytes_ // 2048)


def dram_transfer(kind: str, transactions: int, bytes_: int, banks: int) -> Callable[[], float]:
    kernel_file = "dm_dram_read.cpp" if kind == "read" else "dm_dram_write.cpp"

    def modeled() -> float:
        args = {(0, 0): [BufferAddress("dram"), transactions, bytes_, 0, 1]}
        pages = _dram_pages(bytes_, banks, 2)
        return _reader_cycles(_dm_program((1, 1), kernel_file, bytes_, args, pages))

    return modeled


def core_transfer(write: bool, transactions: int, bytes_: int) -> Callable[[], float]:
    def modeled() -> float:
        # the neighbouring cores of a row, as the "directed ideal" tests place them
        args = {(0, 0): [transactions, bytes_, 1, 0, int(write)], (0, 1): [0, bytes_, 0, 0, 0]}
        return _reader_cycles(_dm_program((1, 2), "dm_core_transfer.cpp", bytes_, args))

    return modeled


def multicast(linked: bool, transactions: int, bytes_: int) -> Callable[[], float]:
    def modeled() -> float:
        args = {(r, c): [transactions, bytes_, 4, 4, int(linked)] for r in range(5) for c in range(5)}
        return _reader_cycles(_dm_program((5, 5), "dm_multicast.cpp", bytes_, args))

    return modeled


def dram_aggregate(device_name: str) -> Callable[[], float]:
    """GB/s of one reader per bank, each next to its bank (the report's placement),
    reading 256 transactions of 8 KB from its own bank."""

    def modeled() -> float:
        device = load_device(device_name)
        rows, cols = device.grid.compute_grid
        readers = _readers_next_to_banks(device)
        transactions, bytes_ = 256, 8192
        banks = device.dram.banks
        args = {
            (r, c): [BufferAddress("dram"), transactions if (r, c) in readers else 0, bytes_, readers.get((r, c), 0), banks]
            for r in range(rows)
            for c in range(cols)
        }
        program = _dm_program((rows, cols), "dm_dram_read.cpp", bytes_, args, _dram_pages(bytes_, banks, DM_SLOTS))
        report = run_program(program, {}, "emulator").report
        slowest = max(max(t.cycles for t in c.threads) for c in report.cores if c.core in readers)
        return len(readers) * transactions * bytes_ / slowest * device.clock_hz / 1e9

    return modeled


def _noc0_links(device, start: tuple[int, int], end: tuple[int, int]) -> set[tuple[int, int, int]]:
    """The links (x, y, dimension) of the NoC 0 route start -> end (+x, then +y)."""
    width, height = device.grid.noc_size
    (x, y), links = start, set()
    while x != end[0]:
        links.add((x, y, 0))
        x = (x + 1) % width
    while y != end[1]:
        links.add((x, y, 1))
        y = (y + 1) % height
    return links


def _readers_next_to_banks(device) -> dict[tuple[int, int], int]:
    """The report's placement: each bank's reader is the free core with the shortest
    NoC 0 route from the bank that shares no link with the routes already chosen."""
    rows, cols = device.grid.compute_grid
    cores = {(r, c): device.grid.noc_coordinates(r, c) for r in range(rows) for c in range(cols)}
    used: set[tuple[int, int, int]] = set()
    readers: dict[tuple[int, int], int] = {}
    for bank, position in enumerate(device.dram.bank_noc):
        routes = {core: _noc0_links(device, position, xy) for core, xy in cores.items() if core not in readers}
        core = min((c for c, links in routes.items() if not links & used), key=lambda c: len(routes[c]))
        used |= routes[core]
        readers[core] = bank
    return readers


# The published runs' program configurations: tt-metal
# tests/ttnn/unit_tests/benchmarks/test_benchmark.py (the version with the 3328x2560x2560
# rows: shapes per core of a 1x1 grid, scaled by the 8x8 grid), per dtype list and shape:
# (in0_block_w_div, num_out_blocks_h, num_out_blocks_w). The K block is k / 8 / 32 /
# in0_block_w_div tiles; the core's output block is split into out blocks; every run
# sets packer_l1_acc=True, fp32_dest_acc_en=False and writes the output in the input's
# dtype. The bf16 list serves HiFi2 and HiFi4, the bfloat8_b list HiFi2 and LoFi.
PUBLISHED_CONFIG = {
    ("bf16", 2048, 2048, 2048): (1, 1, 1), ("bf16", 2048, 2048, 3072): (1, 1, 1),
    ("bf16", 2048, 3072, 3072): (2, 1, 1), ("bf16", 3072, 3072, 3072): (4, 1, 1),
    ("bf16", 3072, 3072, 4096): (2, 1, 1), ("bf16", 3072, 4096, 4096): (2, 1, 1),
    ("bf16", 3328, 2560, 2560): (1, 1, 1), ("bf16", 4096, 4096, 4096): (1, 2, 2),
    ("bfp8_b", 2048, 2048, 2048): (1, 1, 1), ("bfp8_b", 2048, 2048, 3072): (1, 1, 1),
    ("bfp8_b", 2048, 3072, 3072): (1, 1, 1), ("bfp8_b", 3072, 3072, 3072): (2, 1, 1),
    ("bfp8_b", 3072, 3072, 4096): (2, 1, 1), ("bfp8_b", 3328, 2560, 2560): (1, 1, 1),
    ("bfp8_b", 4096, 4096, 4096): (1, 2, 2),
}
# The same file's output subblock choice: the first of these (rows, cols) that divides
# the out block, with one row only when the output is sharded in L1.
SUBBLOCK_CHOICES = (
    (4, 2), (2, 4), (8, 1), (1, 8), (7, 1), (1, 7), (3, 2), (2, 3), (6, 1), (1, 6), (5, 1), (1, 5),
    (2, 2), (4, 1), (1, 4), (3, 1), (1, 3), (2, 1), (1, 2), (1, 1),
)


def _subblock(block_h: int, block_w: int, out_in_l1: bool) -> tuple[int, int]:
    return next(
        (h, w) for h, w in SUBBLOCK_CHOICES
        if block_h % h == 0 and block_w % w == 0 and (h == 1 or not out_in_l1)
    )


def gemm(m: int, k: int, n: int, dtype: str, fidelity: str, in_l1: bool) -> Callable[[], float]:
    """Device-based utilization as the published table computes it: ideal cycles (16 per
    fidelity phase per tile matmul, over 64 cores) over the math thread's kernel duration
    (TRISC1, averaged over the cores), on the published program configuration."""

    def modeled() -> float:
        div, blocks_h, blocks_w = PUBLISHED_CONFIG[(dtype, m, k, n)]
        mt, nt = m // 32 // 8, n // 32 // 8
        program = programs.matmul(
            m, k, n, (8, 8), k_block=k // 8 // 32 // div,
            subblock=_subblock(mt // blocks_h, nt // blocks_w, in_l1),
            multicast=True, sharded_in_l1=in_l1, compute_config=ComputeConfig(math_fidelity=fidelity),
            in_format=dtype, out_format=dtype, l1_acc=True, out_blocks=(blocks_h, blocks_w), out_cb_block=True,
        )
        tensors = {
            "a": torch.zeros(m, k, dtype=torch.bfloat16),
            "b": torch.zeros(k, n, dtype=torch.bfloat16),
            "out": torch.zeros(m, n, dtype=torch.bfloat16),
        }
        report = run_program(program, tensors, "emulator").report
        math = [t.cycles for c in report.cores for t in c.threads if t.thread == "compute"]
        ideal = report.flops / (2 * 32**3) * 16 * FIDELITY_PHASES[fidelity] / len(math)
        return 100 * ideal / (sum(math) / len(math))

    return modeled


def exp_cycles() -> float:
    def cycles(count: int) -> float:
        program = programs.exp_rate(count)
        report = run_program(program, {"x": torch.zeros(32, 32, dtype=torch.bfloat16)}, "emulator").report
        return float(next(t.busy for t in report.cores[0].threads if t.thread == "compute"))

    return (cycles(64) - cycles(32)) / 32


def points(device: str, with_gemm: bool) -> list[Point]:
    result = []
    for table, (published, source) in DM_TABLES.items():
        for (transactions, bytes_), cycles in published.items():
            if table.startswith("DRAM"):
                measure = dram_transfer(table.split()[1], transactions, bytes_, load_device(device).dram.banks)
            elif table.startswith("multicast"):
                measure = multicast("linked" in table, transactions, bytes_)
            else:
                measure = core_transfer(table == "one to one", transactions, bytes_)
            fit = (transactions, bytes_) in DM_FIT[table]
            config = f"{transactions} x {bytes_} B"
            result.append(Point(table, config, cycles, "cycles", fit, DM + source, measure))
    result.append(Point("DRAM aggregate", "12 readers, one per bank", 267, "GB/s", True, DRAM_REPORT,
                        dram_aggregate(device)))
    result.append(Point("exp_tile (approx)", "marginal cycles per tile", 70.7, "cycles", True, EXP, exp_cycles))
    if with_gemm:
        for key, utilization in GEMM_POINTS.items():
            m, k, n, dtype, fidelity, in_l1 = key
            where = "a, out in L1" if in_l1 else "DRAM"
            config = f"{m}x{k}x{n} {dtype} {fidelity}, {where}"
            measure = gemm(m, k, n, dtype, fidelity, in_l1)
            result.append(Point("GEMM", config, utilization, "% of peak", key in GEMM_FIT, GEMM, measure))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="n150")
    parser.add_argument("--skip-gemm", action="store_true", help="leave out the GEMM points (minutes of emulation)")
    options = parser.parse_args()
    header = f"{'table':<22} {'config':<36} {'published':>10} {'modeled':>10} {'ratio':>6}  {'role':<8}  source"
    print(f"device: {options.device}; every 'modeled' figure is the emulator's cost model")
    print(header)
    print("-" * len(header))
    fit_total = fit_ok = held_total = held_ok = 0
    results = Results("calibration")
    for point in progress(points(options.device, not options.skip_gemm), "points"):
        modeled = point.modeled()
        ratio = modeled / point.published
        role = "fit" if point.fit else "held-out"
        if point.fit:
            fit_total += 1
            fit_ok += abs(ratio - 1) <= 0.10
        else:
            held_total += 1
            held_ok += abs(ratio - 1) <= 0.15
        print(
            f"{point.table:<22} {point.config:<36} {point.published:>10.5g} {modeled:>10.5g} {ratio:>6.3f}  "
            f"{role:<8}  {point.source} [{point.unit}]",
            flush=True,
        )
        results.add(
            table=point.table,
            config=point.config,
            published=point.published,
            modeled=modeled,
            ratio=ratio,
            role=role,
            unit=point.unit,
            source=point.source,
        )
    print(f"within_15pct_held_out={held_ok}/{held_total}")
    print(f"within_10pct={fit_ok}/{fit_total}")


if __name__ == "__main__":
    main()
