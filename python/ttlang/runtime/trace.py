"""Timeline traces of emulated runs: which runs write one, where, and reading them back.

A trace is Chrome trace-event JSON (open it in Perfetto, chrome://tracing or the
viewer docs/trace_viewer.html; docs/profiling.md explains what it shows). The
emulator writes it (lib/trace.h); this module asks for it:

- `artifact.trace(path)` (ttlang.driver) or `run_program(..., trace=TraceOptions(path))`
  for one run;
- `TTLANG_TRACE=path` for every emulator run of a process (the demo included): the
  first run writes `path`, later ones `<stem>.2<suffix>`, `<stem>.3<suffix>`, ...
  `TTLANG_TRACE_CORES="r,c;r,c"` records only those cores, and
  `TTLANG_TRACE_MAX_SLICES` caps the slices written (default `DEFAULT_MAX_SLICES`).

Past the cap the trace keeps whole cores, the critical (slowest) core first, and
names the cores it left out in `otherData.cores_left_out`; when the critical core
alone has more slices, its timeline is cut at `otherData.cut_at_cycle`. Times are in
microseconds of modeled time at the report's clock (1 GHz: 1 ns = 1 modeled cycle).
"""

from __future__ import annotations

import itertools
import json
import os
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_MAX_SLICES = 1_000_000
"""About 130 MB of JSON: what Perfetto and chrome://tracing still open comfortably."""

TRACK_IDS = {"reader": 1, "compute": 2, "packer": 3, "writer": 4}
"""Thread ids (tid) of a core's tracks: compute is unpack + math, packer its own clock."""


@dataclass(frozen=True)
class TraceOptions:
    """Where to write a run's trace, which cores to record (None: all), and the cap."""

    path: Path
    cores: Sequence[tuple[int, int]] | None = None
    max_slices: int = DEFAULT_MAX_SLICES

    def emulator_environment(self) -> dict[str, str]:
        """The variables that make the emulator process record (lib/trace.h)."""
        env = {"TTEMU_TRACE": str(Path(self.path).resolve()), "TTEMU_TRACE_MAX_SLICES": str(self.max_slices)}
        if self.cores is not None:
            env["TTEMU_TRACE_CORES"] = ";".join(f"{row},{col}" for row, col in self.cores)
        return env


_environment_runs = itertools.count(1)


def requested_by_environment() -> TraceOptions | None:
    """The trace TTLANG_TRACE asks of the next run of this process, or None."""
    path = os.environ.get("TTLANG_TRACE")
    if not path:
        return None
    run = next(_environment_runs)
    target = Path(path)
    if run > 1:
        target = target.with_name(f"{target.stem}.{run}{target.suffix}")
    cores = os.environ.get("TTLANG_TRACE_CORES")
    return TraceOptions(
        path=target,
        cores=[tuple(int(x) for x in core.split(",")) for core in cores.split(";")] if cores else None,
        max_slices=int(os.environ.get("TTLANG_TRACE_MAX_SLICES", DEFAULT_MAX_SLICES)),
    )


@dataclass(frozen=True)
class Slice:
    """One X event: `name` on (core, track) from `start` for `duration` modeled cycles."""

    core: tuple[int, int]
    track: str  # reader, compute, packer, writer
    name: str
    start: int
    duration: int
    waiting: bool
    args: dict

    @property
    def end(self) -> int:
        return self.start + self.duration


@dataclass
class Trace:
    """A trace file read back: slices by core and track, in modeled cycles."""

    grid: tuple[int, int]
    clock_hz: float
    cores: list[tuple[int, int]]
    cores_left_out: list[tuple[int, int]]
    cut_at_cycle: int | None
    track_names: dict[tuple[tuple[int, int], str], str]
    slices: dict[tuple[tuple[int, int], str], list[Slice]] = field(default_factory=dict)
    events: list[dict] = field(default_factory=list)

    def cycles(self, microseconds: float) -> int:
        """A trace time back in modeled cycles."""
        return round(microseconds * self.clock_hz / 1e6)

    def busy(self, core: tuple[int, int], track: str) -> int:
        return sum(s.duration for s in self.slices.get((core, track), []) if not s.waiting)

    def waiting(self, core: tuple[int, int], track: str) -> int:
        return sum(s.duration for s in self.slices.get((core, track), []) if s.waiting)


def load(path: str | Path) -> Trace:
    """Reads a trace the emulator wrote."""
    doc = json.loads(Path(path).read_text())
    other = doc["otherData"]
    rows, cols = other["grid"]
    tracks = {tid: name for name, tid in TRACK_IDS.items()}

    def core_of(pid: int) -> tuple[int, int]:
        return divmod(pid - 1, cols)

    trace = Trace(
        grid=(rows, cols),
        clock_hz=other["clock_hz"],
        cores=[tuple(c) for c in other["cores_traced"]],
        cores_left_out=[tuple(c) for c in other["cores_left_out"]],
        cut_at_cycle=other["cut_at_cycle"],
        track_names={},
        events=doc["traceEvents"],
    )
    slices = defaultdict(list)
    for event in trace.events:
        if event["ph"] == "M" and event["name"] == "thread_name":
            trace.track_names[(core_of(event["pid"]), tracks[event["tid"]])] = event["args"]["name"]
        elif event["ph"] == "X":
            start = trace.cycles(event["ts"])
            slices[(core_of(event["pid"]), tracks[event["tid"]])].append(
                Slice(
                    core=core_of(event["pid"]),
                    track=tracks[event["tid"]],
                    name=event["name"],
                    start=start,
                    duration=trace.cycles(event["ts"] + event["dur"]) - start,
                    waiting=event["cat"] == "wait",
                    args=event.get("args", {}),
                )
            )
    trace.slices = {key: sorted(value, key=lambda s: s.start) for key, value in slices.items()}
    return trace
