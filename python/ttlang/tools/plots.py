"""Plots of a run and of a compilation (matplotlib figures; `save` writes PNGs).

- `busy_heatmap(report)`: the core grid, one panel per thread (reader, compute,
  packer, writer) coloured by the share of the run the thread was busy, and one by each
  core's cycles against the critical core's: imbalance and idle threads at a glance.
- `thread_timeline(trace, core)`: one core's tracks over the run, its calls coloured by
  kind (FPU, SFPU, pack, CB, DST sync, NoC, ...) and waiting in grey.
- `dst_occupancy(module)`: per generic the DST tiles of one subblock section over the
  body's ops, as d2m-dst-allocate placed them (its report line as the title).

The figures are `matplotlib.figure.Figure`s made without pyplot (no display needed);
a notebook shows them as they are. `python -m ttlang.tools.profile` makes all three
for a script's runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.dialects.linalg.ops import GenericOp

from ttlang.runtime.report import TimingReport
from ttlang.runtime.trace import TRACK_IDS, Trace
from ttlang.transforms.analysis.compute_config import dst_capacity_of
from ttlang.transforms.analysis.dst_liveness import DST_SLOT_ATTR, DST_SLOTS_ATTR, subblock_tiles
from ttlang.transforms.d2m_dst_allocate import dst_report

THREADS = tuple(TRACK_IDS)  # reader, compute, packer, writer

CALL_KINDS = {
    "FPU": ("matmul_tiles", "add_tiles", "sub_tiles", "mul_tiles", "reduce_tile", "binary_dest_reuse",
            "transpose_wh_tile", "unary_bcast", "copy_tile"),
    "SFPU": ("exp_tile", "recip_tile", "sqrt_tile", "rsqrt_tile", "negative_tile", "abs_tile", "relu_tile",
             "_unary_tile", "_binary_tile", "binary_max_tile", "binary_min_tile", "where_tile", "fill_tile",
             "copy_dest_values"),
    "pack": ("pack_tile",),
    "CB": ("cb_",),
    "DST sync": ("tile_regs_",),
    "NoC": ("noc_async",),
    "semaphore": ("noc_semaphore",),
}  # fmt: skip
"""Colour groups of a timeline, by (parts of) tt-metal call names; anything else is "init"."""

KIND_COLOURS = {
    "FPU": "tab:blue",
    "SFPU": "tab:orange",
    "pack": "tab:green",
    "CB": "tab:purple",
    "DST sync": "tab:brown",
    "NoC": "tab:cyan",
    "semaphore": "tab:pink",
    "init": "tab:olive",
    "waiting": "lightgrey",
}


def call_kind(name: str) -> str:
    """The colour group of a traced call."""
    for kind, parts in CALL_KINDS.items():
        if any(part in name for part in parts):
            return kind
    return "init"


def busy_shares(report: TimingReport) -> dict[str, np.ndarray]:
    """Per thread kind, the rows x cols grid of busy cycles over the run's cycles (NaN
    where a core runs no such thread), and "cycles": each core's cycles over the
    critical core's."""
    rows, cols = report.grid
    shares = {name: np.full((rows, cols), np.nan) for name in (*THREADS, "cycles")}
    for core in report.cores:
        row, col = core.core
        shares["cycles"][row, col] = core.cycles / report.cycles if report.cycles else 0.0
        for thread in core.threads:
            shares[thread.thread][row, col] = thread.busy / report.cycles if report.cycles else 0.0
            if thread.thread == "compute":
                shares["packer"][row, col] = thread.packer_busy / report.cycles if report.cycles else 0.0
    return shares


def busy_heatmap(report: TimingReport) -> Figure:
    """The grid heatmap: busy share of the run per thread, and cycles per core."""
    shares = busy_shares(report)
    rows, cols = report.grid
    figure = Figure(figsize=(3.2 * len(shares), 0.45 * rows + 1.6), layout="constrained")
    axes = figure.subplots(1, len(shares))
    for ax, (name, grid) in zip(axes, shares.items()):
        image = ax.imshow(grid, vmin=0.0, vmax=1.0, cmap="viridis")
        title = "cycles / critical core" if name == "cycles" else f"{name} busy / run"
        ax.set_title(title, fontsize=9)
        ax.set_xticks(range(cols))
        ax.set_yticks(range(rows))
        ax.tick_params(labelsize=7)
        ax.set_xlabel("col", fontsize=8)
        ax.set_ylabel("row", fontsize=8)
        if rows * cols <= 100:
            for (row, col), value in np.ndenumerate(grid):
                if not np.isnan(value):
                    colour = "black" if value > 0.6 else "white"
                    ax.text(col, row, f"{100 * value:.0f}", ha="center", va="center", fontsize=6, color=colour)
    figure.colorbar(image, ax=list(axes), shrink=0.8, label="share of the run (cells: %)")
    figure.suptitle(
        f"busy vs waiting per core: {report.cycles} modeled cycles, critical core {report.critical_core}",
        fontsize=10,
    )
    return figure


def thread_timeline(trace: Trace, core: tuple[int, int] | None = None) -> Figure:
    """One core's tracks (default: the trace's first core, the critical one when the
    trace was capped) over the run, one bar per traced call."""
    core = tuple(core) if core is not None else trace.cores[0]
    tracks = [t for t in THREADS if (core, t) in trace.track_names]
    figure = Figure(figsize=(12, 0.7 * len(tracks) + 1.4), layout="constrained")
    ax = figure.subplots()
    for row, track in enumerate(reversed(tracks)):
        by_kind: dict[str, list[tuple[int, int]]] = {}
        for piece in trace.slices.get((core, track), []):
            kind = "waiting" if piece.waiting else call_kind(piece.name)
            by_kind.setdefault(kind, []).append((piece.start, piece.duration))
        for kind, spans in by_kind.items():
            ax.broken_barh(spans, (row - 0.4, 0.8), facecolors=KIND_COLOURS[kind], label=kind)
    ax.set_yticks(range(len(tracks)), [trace.track_names[(core, t)] for t in reversed(tracks)], fontsize=8)
    ax.set_xlabel("modeled cycles")
    ax.set_title(f"core {core}: one bar per kernel API call (waiting in grey)", fontsize=10)
    ax.legend(
        handles=[Patch(color=c, label=k) for k, c in KIND_COLOURS.items()],
        loc="upper center",
        bbox_to_anchor=(0.5, -0.25 if len(tracks) > 2 else -0.4),
        ncol=len(KIND_COLOURS),
        fontsize=7,
        frameon=False,
    )
    return figure


def dst_intervals(generic: GenericOp) -> list[tuple[str, int, int, int]]:
    """The DST values of an allocated generic's body: (op name, slot, first op index,
    last op index using it), in body order."""
    ops = [op for op in generic.body.block.ops if op is not generic.body.block.last_op]
    position = {op: index for index, op in enumerate(ops)}
    intervals = []
    for index, op in enumerate(ops):
        slot = op.attributes.get(DST_SLOT_ATTR)
        if not isinstance(slot, IntegerAttr) or not op.results:
            continue
        uses = [position.get(use.operation, len(ops)) for result in op.results for use in result.uses]
        intervals.append((op.name.removeprefix("d2m."), slot.value.data, index, max(uses, default=index)))
    return intervals


def allocated_generics(module: ModuleOp) -> list[GenericOp]:
    return [op for op in module.walk() if isinstance(op, GenericOp) and DST_SLOTS_ATTR in op.attributes]


def dst_occupancy(module: ModuleOp) -> Figure:
    """DST tiles over the body's ops of one subblock section, per generic of `module`
    (IR after d2m-dst-allocate: `artifact.module_after("d2m-dst-allocate")`): a bar per
    value from the op making it to its last use, at its slot's tiles."""
    generics = allocated_generics(module)
    if not generics:
        raise ValueError("no generic with DST slots: give the IR after d2m-dst-allocate")
    columns = 1 if len(generics) <= 2 else 3
    rows = -(-len(generics) // columns)
    figure = Figure(figsize=(5.5 * columns, 2.4 * rows + 0.6), layout="constrained")
    axes = np.atleast_1d(figure.subplots(rows, columns)).flatten()
    for ax in axes[len(generics) :]:
        ax.remove()
    for ax, generic in zip(axes, generics):
        capacity = dst_capacity_of(generic)
        tiles = subblock_tiles(generic)
        ops = [op for op in generic.body.block.ops if op is not generic.body.block.last_op]
        for number, (name, slot, first, last) in enumerate(dst_intervals(generic)):
            ax.broken_barh([(first, last - first + 1)], (slot * tiles, tiles), facecolors=f"C{number % 10}",
                           edgecolor="white")
            ax.text(first + 0.05, slot * tiles + tiles / 2, name.removeprefix("tile_"), va="center", fontsize=6,
                    color="white", clip_on=True)
        for index, op in enumerate(ops):
            if op.name == "d2m.dst_spill":
                ax.axvline(index + 0.5, color="tab:red", linestyle="--", linewidth=1)
        ax.set_ylim(0, capacity)
        ax.set_xlim(0, max(len(ops), 1))
        ax.set_yticks(range(0, capacity + 1, tiles))
        ax.set_ylabel("DST tile", fontsize=8)
        ax.set_xticks([index + 0.5 for index in range(len(ops))],
                      [op.name.removeprefix("d2m.").removeprefix("tile_") for op in ops], rotation=30, ha="right")
        ax.tick_params(labelsize=7)
        body, _, counts = dst_report(generic, capacity).removeprefix("dst-report: generic ").partition(": ")
        ax.set_title(f"{body}\n{counts}", fontsize=7)
    figure.suptitle("DST occupancy of one subblock section (d2m-dst-allocate; red: spill)", fontsize=10)
    return figure


def save(figure: Figure, path: str | Path, dpi: int = 110) -> Path:
    """Writes `figure` as a PNG; returns the path."""
    path = Path(path)
    figure.savefig(path, dpi=dpi)
    return path


def save_all(
    report: TimingReport,
    trace: Trace | None,
    module: ModuleOp | None,
    stem: str | Path,
    core: Sequence[int] | None = None,
) -> list[Path]:
    """The three plots of a run as `<stem>.busy.png`, `<stem>.timeline.png` and
    `<stem>.dst.png` (those whose input is given)."""
    stem = Path(stem)
    written = [save(busy_heatmap(report), stem.with_name(stem.name + ".busy.png"))]
    if trace is not None:
        written.append(save(thread_timeline(trace, core), stem.with_name(stem.name + ".timeline.png")))
    if module is not None and allocated_generics(module):
        written.append(save(dst_occupancy(module), stem.with_name(stem.name + ".dst.png")))
    return written
