"""ttlang-prof (python -m ttlang.tools.profile) on an example script: a trace and the
three plots per kernel run, the trace matching the run's report."""

import json

from ttlang.runtime import trace as trace_module
from ttlang.tools import profile


def test_profile_writes_a_trace_and_plots_per_run(tmp_path, capsys):
    assert profile.main(["-o", str(tmp_path), "examples/softmax.py"]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [
        "1-softmax_compute.busy.png",
        "1-softmax_compute.dst.png",
        "1-softmax_compute.timeline.png",
        "1-softmax_compute.trace.json",
    ]
    output = capsys.readouterr()
    assert "row softmax: matches torch" in output.out  # the script ran as __main__
    cycles = int(output.err.split("run 1-softmax_compute: ")[1].split()[0])
    trace = trace_module.load(tmp_path / "1-softmax_compute.trace.json")
    ends = [s.end for slices in trace.slices.values() for s in slices]
    assert max(ends) == cycles
    assert json.loads((tmp_path / "1-softmax_compute.trace.json").read_text())["otherData"]["grid"] == [2, 1]


def test_profile_says_when_the_script_runs_no_kernel(tmp_path, capsys):
    script = tmp_path / "nothing.py"
    script.write_text("print('no kernels here')\n")
    assert profile.main(["-o", str(tmp_path / "out"), str(script)]) == 1
    assert "ran no ttlang kernel" in capsys.readouterr().err
