"""The profiler's plots (ttlang.tools.plots) hold what the run and the compilation say:
the heatmap's cells are the report's busy shares, the timeline's bars the trace's
slices, the DST plot's bars d2m-dst-allocate's slots; and the PNGs are drawn."""

import matplotlib.image
import numpy as np
import torch
from examples.softmax import softmax
from matplotlib.collections import PolyCollection
from ttlang.runtime import trace as trace_module
from ttlang.tools import plots


def softmax_run(tmp_path):
    x = torch.randn(64, 128, generator=torch.Generator().manual_seed(0)).to(torch.bfloat16)
    out = torch.empty_like(x)
    artifact = softmax.compile(x, out)
    result = artifact.trace(tmp_path / "run.json", [x, out])
    return artifact, result.report, trace_module.load(tmp_path / "run.json")


def test_heatmap_cells_are_the_reports_busy_shares(tmp_path):
    _, report, _ = softmax_run(tmp_path)
    figure = plots.busy_heatmap(report)
    panels = [ax for ax in figure.axes if ax.images]
    assert [ax.get_title() for ax in panels] == [
        "reader busy / run", "compute busy / run", "packer busy / run", "writer busy / run",
        "cycles / critical core",
    ]  # fmt: skip
    for core in report.cores:
        row, col = core.core
        threads = {t.thread: t for t in core.threads}
        compute = panels[1].images[0].get_array()
        assert compute[row, col] == threads["compute"].busy / report.cycles
        assert panels[2].images[0].get_array()[row, col] == threads["compute"].packer_busy / report.cycles
        assert panels[4].images[0].get_array()[row, col] == core.cycles / report.cycles
    # The critical core's cell is the brightest of the imbalance panel: 100%.
    assert np.nanmax(panels[4].images[0].get_array()) == 1.0


def test_timeline_bars_are_the_traces_slices(tmp_path):
    _, report, trace = softmax_run(tmp_path)
    core = report.critical_core
    figure = plots.thread_timeline(trace, core)
    (ax,) = figure.axes
    bars = [c for c in ax.collections if isinstance(c, PolyCollection)]
    drawn = {}
    for collection in bars:
        for path in collection.get_paths():
            xs = path.vertices[:, 0]
            row = round(path.vertices[:, 1].mean())
            drawn.setdefault(row, []).append(xs.max() - xs.min())
    labels = [t.get_text() for t in ax.get_yticklabels()]
    for row, label in enumerate(labels):
        track = next(t for t in plots.THREADS if trace.track_names.get((core, t)) == label)
        expected = [s.duration for s in trace.slices[(core, track)]]
        assert sorted(drawn[row]) == sorted(expected), track
    waiting = [c for c in bars if c.get_label() == "waiting"]
    assert waiting, "waiting slices are drawn"


def test_dst_occupancy_bars_are_the_allocated_slots(tmp_path):
    artifact, _, _ = softmax_run(tmp_path)
    module = artifact.module_after("d2m-dst-allocate")
    generics = plots.allocated_generics(module)
    figure = plots.dst_occupancy(module)
    for ax, generic in zip(figure.axes, generics):
        intervals = plots.dst_intervals(generic)
        assert intervals
        bars = [c for c in ax.collections if isinstance(c, PolyCollection)]
        assert len(bars) == len(intervals)
        tiles = plots.subblock_tiles(generic)
        for collection, (_, slot, first, last) in zip(bars, intervals):
            vertices = collection.get_paths()[0].vertices
            assert vertices[:, 1].min() == slot * tiles and vertices[:, 1].max() == (slot + 1) * tiles
            assert vertices[:, 0].min() == first and vertices[:, 0].max() == last + 1
        assert "DST tiles" in ax.get_title()


def test_pngs_are_drawn(tmp_path):
    artifact, report, trace = softmax_run(tmp_path)
    files = plots.save_all(report, trace, artifact.module_after("d2m-dst-allocate"), tmp_path / "softmax")
    assert [f.name for f in files] == ["softmax.busy.png", "softmax.timeline.png", "softmax.dst.png"]
    for file in files:
        pixels = matplotlib.image.imread(file)
        assert pixels.shape[0] > 100 and pixels.shape[1] > 300
        # More than a blank canvas: many distinct colours.
        colours = np.unique(pixels.reshape(-1, pixels.shape[-1]).round(2), axis=0)
        assert len(colours) > 20, file
