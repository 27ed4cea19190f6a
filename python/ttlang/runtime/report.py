"""The timing report of one run: modeled cycles per core and thread, FLOPs, FLOP/s."""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class ThreadTiming:
    """One kernel thread on one core: total cycles = busy (charged work) + waiting."""

    thread: str  # reader, compute or writer
    kernel: str
    cycles: int
    busy: int
    waiting: int
    tiles_unpacked: int  # tiles read from CBs into DST / source registers (compute)
    tiles_packed: int  # tiles packed from DST into CBs (compute)
    # A compute thread's packer runs on its own clock (cycles = packer_busy + packer_waiting).
    packer_busy: int = 0
    packer_waiting: int = 0


@dataclass(frozen=True)
class CoreTiming:
    core: tuple[int, int]
    cycles: int
    flops: int
    threads: tuple[ThreadTiming, ...]


@dataclass(frozen=True)
class TimingReport:
    """The cost model's account of a run (docs/cost_model.md)."""

    grid: tuple[int, int]
    math_fidelity: str
    clock_hz: float
    cycles: int  # the critical core's cycles: the program's modeled duration
    critical_core: tuple[int, int]
    time_s: float
    flops: int
    achieved_flops_per_s: float
    peak_flops_per_s: float
    dram_bytes_read: int
    dram_bytes_written: int
    cores: tuple[CoreTiming, ...]
    host_seconds: float  # wall time the emulator spent running the kernels

    @classmethod
    def from_json(cls, text: str) -> TimingReport:
        doc = json.loads(text)
        cores = tuple(
            CoreTiming(
                core=tuple(c["core"]),
                cycles=c["cycles"],
                flops=c["flops"],
                threads=tuple(ThreadTiming(**t) for t in c["threads"]),
            )
            for c in doc["cores"]
        )
        return cls(
            grid=tuple(doc["grid"]),
            math_fidelity=doc["math_fidelity"],
            clock_hz=doc["clock_hz"],
            cycles=doc["cycles"],
            critical_core=tuple(doc["critical_core"]),
            time_s=doc["time_s"],
            flops=doc["flops"],
            achieved_flops_per_s=doc["achieved_flops_per_s"],
            peak_flops_per_s=doc["peak_flops_per_s"],
            dram_bytes_read=doc["dram_bytes_read"],
            dram_bytes_written=doc["dram_bytes_written"],
            cores=cores,
            host_seconds=doc["host_seconds"],
        )

    @property
    def cb_tile_traffic(self) -> tuple[int, int]:
        """Tiles unpacked from CBs and packed into CBs by every compute thread."""
        threads = [t for core in self.cores for t in core.threads]
        return sum(t.tiles_unpacked for t in threads), sum(t.tiles_packed for t in threads)

    @property
    def utilization(self) -> float:
        """Achieved over peak FLOP/s at the fidelity used (0 when nothing was computed)."""
        return self.achieved_flops_per_s / self.peak_flops_per_s if self.peak_flops_per_s else 0.0

    def __str__(self) -> str:
        rows, cols = self.grid
        lines = [
            f"grid {rows}x{cols}, {self.math_fidelity}: {self.cycles} cycles "
            f"= {self.time_s * 1e6:.2f} us at {self.clock_hz / 1e9:g} GHz, "
            f"critical core {self.critical_core}",
            f"FLOPs {self.flops:.4g}: {self.achieved_flops_per_s / 1e12:.3f} TFLOP/s achieved, "
            f"{self.peak_flops_per_s / 1e12:.3f} peak ({100 * self.utilization:.1f}%)",
            f"DRAM read {self.dram_bytes_read} B, written {self.dram_bytes_written} B",
            "",
            f"{'core':>8} {'cycles':>10}  " + "  ".join(f"{k + ' busy/wait':>22}" for k in THREADS),
        ]
        for core in self.cores:
            by_kind = {t.thread: t for t in core.threads}
            cells = [
                f"{by_kind[k].busy:>10}/{by_kind[k].waiting:<11}" if k in by_kind else f"{'-':>22}"
                for k in THREADS
            ]
            label = f"({core.core[0]},{core.core[1]})"
            lines.append(f"{label:>8} {core.cycles:>10}  " + "  ".join(cells))
        return "\n".join(lines)


THREADS = ("reader", "compute", "writer")
