"""Timeline traces (lib/trace.h, ttlang.runtime.trace) of small programs: well-formed
trace-event JSON whose slices add up to the report's cycles; core selection, the
size cap and TTLANG_TRACE."""

import json

import pytest
import torch
from examples.multicast import broadcast_exp
from examples.softmax import softmax
from trace_checks import check_trace
from ttlang.runtime import RuntimeLaunchError, run_program
from ttlang.runtime import trace as trace_module
from ttlang.runtime.trace import TraceOptions


def softmax_artifact():
    x = torch.randn(64, 128, generator=torch.Generator().manual_seed(0)).to(torch.bfloat16)
    out = torch.empty_like(x)
    return softmax.compile(x, out), [x, out]


def multicast_artifact():
    x = torch.randn(32, 192, generator=torch.Generator().manual_seed(1)).to(torch.bfloat16)
    out = torch.empty_like(x)
    return broadcast_exp.compile(x, out), [x, out]


@pytest.mark.parametrize("make", [softmax_artifact, multicast_artifact])
def test_trace_is_well_formed_and_adds_up_to_the_report(tmp_path, make):
    artifact, tensors = make()
    result = artifact.trace(tmp_path / "run.json", tensors)
    trace = check_trace(tmp_path / "run.json", result.report)
    names = {s.name for slices in trace.slices.values() for s in slices}
    assert {"cb_wait_front", "cb_push_back", "noc_async_read", "tile_regs_acquire", "pack_tile"} <= names
    flows = [e for e in trace.events if e["ph"] == "s"]
    assert flows, "no CB flow arrows"
    counters = {e["name"] for e in trace.events if e["ph"] == "C"}
    assert "NoC reads in flight" in counters and any(n.startswith("cb ") for n in counters)
    assert any(n.startswith("bank ") for n in counters)


def test_tracing_changes_neither_results_nor_cycles(tmp_path):
    artifact, (x, out) = softmax_artifact()
    plain = artifact.run([x, out])
    traced = artifact.trace(tmp_path / "run.json")
    assert torch.equal(plain.outputs["out"], traced.outputs["out"])
    assert plain.report.cores == traced.report.cores


def test_slices_carry_cb_tile_and_dst_args(tmp_path):
    artifact, tensors = softmax_artifact()
    artifact.trace(tmp_path / "run.json", tensors)
    trace = trace_module.load(tmp_path / "run.json")
    copies = [s for s in trace.slices[((0, 0), "compute")] if s.name == "copy_tile"]
    assert copies and all({"cb", "tile", "dst"} <= set(s.args) for s in copies)
    waits = [s for s in trace.slices[((0, 0), "compute")] if s.name == "cb_wait_front"]
    assert all(s.args["pages"] >= 1 and s.args["cb"] >= 0 for s in waits)


def test_selected_cores_only(tmp_path):
    artifact, tensors = multicast_artifact()
    result = run_program(artifact.program, tensors, trace=TraceOptions(tmp_path / "t.json", cores=[(0, 2)]))
    trace = trace_module.load(tmp_path / "t.json")
    assert trace.cores == [(0, 2)] and trace.cores_left_out == []
    assert {core for core, _ in trace.slices} == {(0, 2)}
    thread = next(t for c in result.report.cores if c.core == (0, 2) for t in c.threads if t.thread == "reader")
    assert trace.busy((0, 2), "reader") == thread.busy


def test_cap_keeps_whole_cores_critical_first(tmp_path):
    artifact, tensors = multicast_artifact()
    full = artifact.trace(tmp_path / "full.json", tensors)
    per_core = {}
    for (core, _), slices in trace_module.load(tmp_path / "full.json").slices.items():
        per_core[core] = per_core.get(core, 0) + len(slices)
    critical = full.report.critical_core
    artifact.trace(tmp_path / "capped.json", tensors, max_slices=per_core[critical] + 1)
    capped = trace_module.load(tmp_path / "capped.json")
    assert capped.cores == [critical]
    assert sorted(capped.cores_left_out) == sorted(set(per_core) - {critical})
    check_trace(tmp_path / "capped.json", full.report)  # the kept core is whole

    artifact.trace(tmp_path / "cut.json", tensors, max_slices=10)
    cut = trace_module.load(tmp_path / "cut.json")
    assert cut.cores == [critical] and cut.cut_at_cycle is not None
    kept = [s for slices in cut.slices.values() for s in slices if s.name != "kernel end"]
    assert len(kept) <= 10 + len(cut.track_names)  # + one kernel-end slice per track at most
    assert all(s.start < cut.cut_at_cycle for s in kept)


def test_environment_names_one_file_per_run(tmp_path, monkeypatch):
    artifact, tensors = softmax_artifact()
    monkeypatch.setattr(trace_module, "_environment_runs", iter(range(1, 10)))
    monkeypatch.setenv("TTLANG_TRACE", str(tmp_path / "demo.json"))
    monkeypatch.setenv("TTLANG_TRACE_CORES", "1,0")
    first = artifact.run(tensors)
    artifact.run(tensors)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.2.json", "demo.json"]
    check_trace_json = json.loads((tmp_path / "demo.json").read_text())
    assert check_trace_json["otherData"]["cores_traced"] == [[1, 0]]
    check_trace(tmp_path / "demo.2.json", first.report, all_cores=False)


def test_hardware_target_cannot_trace(tmp_path):
    artifact, tensors = softmax_artifact()
    with pytest.raises(RuntimeLaunchError, match="emulator"):
        run_program(artifact.program, tensors, "hardware", trace=TraceOptions(tmp_path / "t.json"))
