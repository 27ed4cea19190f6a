"""ttlang-prof: run a script and profile every kernel run it makes.

    python -m ttlang.tools.profile [-o DIR] examples/flash_attention.py [script args]
    ttlang-prof -o profile/ examples/softmax.py

The script runs as `__main__`. Each time it runs a compiled kernel (an artifact's
`run`: `kernel(*tensors)` and `artifact.run(...)`), the run is made on the emulator
with a timeline trace, and the tool writes into DIR (default `profile/`), for run N
of compute kernel K:

- `N-K.trace.json`: the Chrome trace-event timeline (Perfetto; docs/profiling.md);
- `N-K.busy.png`: busy share per core and thread, cycles per core (imbalance);
- `N-K.timeline.png`: the critical core's threads over the run (`--core` for another);
- `N-K.dst.png`: DST occupancy per subblock, from d2m-dst-allocate;

and prints one line per run: modeled cycles, critical core, files. `--cores` and
`--max-slices` select cores and cap the trace as TTLANG_TRACE_CORES and
TTLANG_TRACE_MAX_SLICES do (ttlang.runtime.trace).
"""

from __future__ import annotations

import argparse
import contextlib
import runpy
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ttlang import driver
from ttlang.runtime import trace as trace_module
from ttlang.tools import plots


@dataclass
class ProfiledRun:
    """One kernel run of the script and the files written for it."""

    name: str
    result: Any  # ttlang.runtime.RunResult
    files: list[Path]


def _compute_kernel_name(artifact: driver.Artifact) -> str:
    names = [k.name for k in artifact.program.kernels if k.kind == "compute"]
    return names[0] if names else artifact.program.kernels[0].name


@contextlib.contextmanager
def profiling_runs(
    out_dir: Path,
    cores: list[tuple[int, int]] | None = None,
    max_slices: int = trace_module.DEFAULT_MAX_SLICES,
    timeline_core: tuple[int, int] | None = None,
) -> Iterator[list[ProfiledRun]]:
    """While active, every `Artifact.run` traces and plots its run into `out_dir`; yields
    the list of runs made so far."""
    out_dir.mkdir(parents=True, exist_ok=True)
    runs: list[ProfiledRun] = []
    plain_run = driver.Artifact.run

    def traced_run(artifact: driver.Artifact, tensors: Any, target: str | None = None) -> Any:
        name = f"{len(runs) + 1}-{_compute_kernel_name(artifact)}"
        trace_path = out_dir / f"{name}.trace.json"
        result = artifact.trace(trace_path, tensors, cores=cores, max_slices=max_slices)
        trace = trace_module.load(trace_path)
        core = timeline_core if timeline_core in trace.cores else None
        if core is None and result.report.critical_core in trace.cores:
            core = result.report.critical_core
        module = artifact.module_after("d2m-dst-allocate")
        files = [trace_path, *plots.save_all(result.report, trace, module, out_dir / name, core)]
        runs.append(ProfiledRun(name, result, files))
        report = result.report
        print(
            f"ttlang-prof: run {name}: {report.cycles} modeled cycles, critical core "
            f"{report.critical_core}; wrote {', '.join(str(f) for f in files)}",
            file=sys.stderr,
        )
        return result

    driver.Artifact.run = traced_run
    try:
        yield runs
    finally:
        driver.Artifact.run = plain_run


def _parse_cores(text: str) -> list[tuple[int, int]]:
    return [tuple(int(x) for x in core.split(",")) for core in text.split(";")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="ttlang-prof", description="Run a script, tracing and plotting every kernel run it makes."
    )
    parser.add_argument("script", help="a Python script that runs ttlang kernels (e.g. examples/*.py)")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    parser.add_argument("-o", "--out", type=Path, default=Path("profile"), help="output directory")
    parser.add_argument("--cores", type=_parse_cores, help='trace only these cores: "r,c;r,c"')
    parser.add_argument("--max-slices", type=int, default=trace_module.DEFAULT_MAX_SLICES)
    parser.add_argument("--core", type=lambda t: _parse_cores(t)[0], help='timeline of this core: "r,c"')
    options = parser.parse_args(argv)
    script = Path(options.script)
    if not script.is_file():
        parser.error(f"no such script: {script}")
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [str(script), *options.args]
    sys.path.insert(0, str(script.resolve().parent))
    try:
        with profiling_runs(options.out, options.cores, options.max_slices, options.core) as runs:
            runpy.run_path(str(script), run_name="__main__")
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    if not runs:
        print(f"ttlang-prof: {script} ran no ttlang kernel", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
