"""Checks a timeline trace (lib/trace.h) against the trace-event format and the run's report."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from ttlang.runtime import trace as trace_module
from ttlang.runtime.report import TimingReport


def check_trace(path: Path, report: TimingReport, all_cores: bool = True) -> trace_module.Trace:
    """Fails (assert) unless the trace at `path` is well-formed trace-event JSON whose
    slices account for every cycle the report gives each thread; returns it loaded.
    `all_cores`: the run recorded every core (no TTLANG_TRACE_CORES selection)."""
    doc = json.loads(Path(path).read_text())
    assert isinstance(doc["traceEvents"], list)
    trace = trace_module.load(path)
    events = trace.events
    for event in events:
        assert event["ph"] in {"M", "X", "s", "f", "C"}, event
        assert isinstance(event["pid"], int), event
        if event["ph"] in {"X", "s", "f", "C"}:
            assert event["ts"] >= 0, event
        if event["ph"] == "X":
            assert event["dur"] >= 0, f"slice ends before it begins: {event}"
            assert event["cat"] in {"busy", "wait"}, event
    named_processes = {e["pid"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    named_tracks = {(e["pid"], e["tid"]) for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    for event in events:
        if event["ph"] in {"X", "s", "f"}:
            assert (event["pid"], event["tid"]) in named_tracks, f"event on an unnamed track: {event}"
        if event["ph"] == "C":
            assert event["pid"] in named_processes, f"counter of an unnamed process: {event}"

    # Slices of one track follow each other: a thread does one thing at a time.
    by_track = defaultdict(list)
    for event in events:
        if event["ph"] == "X":
            by_track[(event["pid"], event["tid"])].append(
                (trace.cycles(event["ts"]), trace.cycles(event["ts"] + event["dur"]))
            )
    for track, spans in by_track.items():
        spans.sort()
        for (_, end), (start, _) in zip(spans, spans[1:]):
            assert end <= start, f"overlapping slices on track {track}"

    # Every flow arrow joins two slices: its ends lie inside slices of their tracks.
    ends = defaultdict(dict)
    for event in events:
        if event["ph"] in {"s", "f"}:
            assert event["ph"] not in ends[event["id"]], f"flow {event['id']} has two {event['ph']} events"
            ends[event["id"]][event["ph"]] = event
    for flow_id, pair in ends.items():
        assert set(pair) == {"s", "f"}, f"flow {flow_id} lacks an end: {pair}"
        assert pair["f"].get("bp") == "e"
        for end in pair.values():
            time = trace.cycles(end["ts"] * 2) / 2  # flow ends sit mid-slice (half cycles)
            spans = by_track[(end["pid"], end["tid"])]
            assert any(start < time < stop for start, stop in spans), f"flow end outside any slice: {end}"

    # Every core and thread of the run has its track, and the slices add up to the
    # report's busy and waiting cycles of each thread.
    assert trace.cut_at_cycle is None
    traced = set(trace.cores)
    recorded = traced | set(trace.cores_left_out)
    cores = {core.core for core in report.cores}
    assert recorded == cores if all_cores else recorded <= cores
    for core in report.cores:
        if core.core not in traced:
            continue
        for thread in core.threads:
            tracks = [thread.thread] + (["packer"] if thread.thread == "compute" else [])
            for track in tracks:
                assert (core.core, track) in trace.track_names, f"no track for {core.core} {track}"
            assert trace.busy(core.core, thread.thread) == thread.busy, (core.core, thread.thread)
            assert trace.waiting(core.core, thread.thread) == thread.waiting, (core.core, thread.thread)
            if thread.thread == "compute":
                assert trace.busy(core.core, "packer") == thread.packer_busy, core.core
                assert trace.waiting(core.core, "packer") == thread.packer_waiting, core.core

    # Counters never go negative; NoC transfers all complete.
    last = {}
    for event in sorted((e for e in events if e["ph"] == "C"), key=lambda e: e["ts"]):
        value = event["args"]["value"]
        assert value >= 0, event
        last[(event["pid"], event["name"])] = value
    for (pid, name), value in last.items():
        if "in flight" in name or name.endswith("transfers"):
            assert value == 0, f"{name} of process {pid} ends at {value}"
    return trace
