"""Every trace the demo (`make demo`: examples/flash_attention.py) writes with
TTLANG_TRACE, non-causal and causal FlashAttention on the 8x8 grid, is well-formed
trace-event JSON whose slices add up to each run's report, every core and thread
with its track."""

import examples.flash_attention as demo
from trace_checks import check_trace
from ttlang.runtime import trace as trace_module


def test_every_demo_trace_checks_against_its_report(tmp_path, monkeypatch, capsys):
    reports = []
    plain_run = demo.FlashAttention.run

    def run_keeping_report(self, *tensors):
        out = plain_run(self, *tensors)
        reports.append(self.artifact.perf())
        return out

    monkeypatch.setattr(demo.FlashAttention, "run", run_keeping_report)
    monkeypatch.setattr(trace_module, "_environment_runs", iter(range(1, 10)))
    monkeypatch.setenv("TTLANG_TRACE", str(tmp_path / "demo.json"))
    demo.main()
    assert capsys.readouterr().out.count("PCC") == 2
    paths = [tmp_path / "demo.json", tmp_path / "demo.2.json"]
    assert sorted(tmp_path.iterdir()) == sorted(paths)
    assert len(reports) == 2
    for path, report in zip(paths, reports):
        trace = check_trace(path, report)
        assert trace.cores_left_out == [] and len(trace.cores) == 64
