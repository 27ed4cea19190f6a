"""Side-by-side: our emulator vs tt-lang-sim 1.1.6 on a 2048^3 bf16 matmul, 8x8 grid.

Usage: .venv/bin/python bench/compare_tt_lang_sim.py

tt-lang-sim (PyPI `tt-lang-sim`, pure-Python simulator of the TT-Lang `ttl` API) is a
benchmark-only dependency, not one of ttlang's: this script installs
`tt-lang-sim==1.1.6` into the running interpreter's environment when it is missing
(`python -m pip install tt-lang-sim==1.1.6`).

Each side runs its own matmul: ours is bench/emulator.py (hand-written tt-metal-style
kernels on the C++ emulator); theirs is the multinode matmul tutorial shipped in the
package (ttl/tutorials/matmul/step_3_multinode.py: relu(a @ b + c), fixed grid) with
the grid set to 8x8 and M = K = N = 2048. Both time the kernel call alone, after
compilation and tensor setup: theirs with perf_counter around `tutorial_operation(a,
b, c)`, ours inside the emulator process around the device run. Both run in this
invocation, alternately, on the same machine, `--repeat` times each (default 3; the
best time of each side counts, which damps noise from other load on the machine);
the last line is the speedup.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from results import Results, progress

SIM_VERSION = "1.1.6"
BENCH_DIR = Path(__file__).resolve().parent
WALL = re.compile(r"^wall_s=([0-9.]+)$", re.MULTILINE)


def ensure_tt_lang_sim() -> Path:
    """The tutorial's path, installing tt-lang-sim first if needed."""
    if importlib.util.find_spec("ttl") is None:
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", f"tt-lang-sim=={SIM_VERSION}"], check=True
        )
    installed = subprocess.run(
        [sys.executable, "-c", "import importlib.metadata as m; print(m.version('tt-lang-sim'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if installed != SIM_VERSION:
        sys.exit(f"tt-lang-sim {installed} is installed; this comparison needs {SIM_VERSION}")
    spec = importlib.util.find_spec("ttl")
    return Path(spec.origin).parent / "tutorials" / "matmul" / "step_3_multinode.py"


def tutorial_at_2048(tutorial: Path) -> str:
    """The tutorial's source with an 8x8 grid, 2048^3 and a timer around the kernel call."""
    source = tutorial.read_text()
    edits = [
        ("@ttl.operation(grid=(4, 4))", "@ttl.operation(grid=(8, 8))"),
        ("M, K, N = 8192, 8192, 8192", "M, K, N = 2048, 2048, 2048"),
        (
            "    y = tutorial_operation(a, b, c)\n",
            "    import time as _time\n"
            "    _start = _time.perf_counter()\n"
            "    y = tutorial_operation(a, b, c)\n"
            "    _wall = _time.perf_counter() - _start\n",
        ),
        ('    print(f"PCC {pcc:.6f}")\n', '    print(f"PCC {pcc:.6f}")\n    print(f"wall_s={_wall:.3f}")\n'),
    ]
    for old, new in edits:
        if old not in source:
            sys.exit(f"the tt-lang-sim tutorial changed; cannot find: {old.strip()}")
        source = source.replace(old, new)
    return source


def run(command: list[str]) -> tuple[str, float]:
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout, float(WALL.findall(result.stdout)[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side (the best counts)")
    repeat = parser.parse_args().repeat
    tutorial = ensure_tt_lang_sim()
    sim_walls, ours_walls = [], []
    with tempfile.TemporaryDirectory() as work:
        script = Path(work) / "matmul_2048_8x8.py"
        script.write_text(tutorial_at_2048(tutorial))
        simulator = str(Path(sys.executable).parent / "tt-lang-sim")
        for _ in progress(range(repeat), "rounds"):
            sim_output, wall = run([simulator, str(script)])
            sim_walls.append(wall)
            ours_output, wall = run([sys.executable, str(BENCH_DIR / "emulator.py")])
            ours_walls.append(wall)
    print("tt-lang-sim 1.1.6, multinode matmul tutorial, 2048^3 on 8x8 (last run):")
    print("  " + "\n  ".join(sim_output.strip().splitlines()))
    print("ttlang emulator, bench/emulator.py (last run):")
    print("  " + "\n  ".join(ours_output.strip().splitlines()))
    print(f"tt-lang-sim wall_s per run: {' '.join(f'{w:.3f}' for w in sim_walls)}")
    print(f"ttlang      wall_s per run: {' '.join(f'{w:.3f}' for w in ours_walls)}")
    sim_best, ours_best = min(sim_walls), min(ours_walls)
    print(f"tt-lang-sim wall_s={sim_best:.3f}  ttlang wall_s={ours_best:.3f}  speedup={sim_best / ours_best:.1f}x")
    results = Results("compare_tt_lang_sim")
    for side, walls in (("tt-lang-sim", sim_walls), ("ttlang", ours_walls)):
        results.add(side=side, best_wall_s=min(walls), wall_s_per_run=" ".join(f"{w:.3f}" for w in walls))


if __name__ == "__main__":
    main()
