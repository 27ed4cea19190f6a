"""What every bench/ script shares: progress on long sweeps, and its table saved as CSV
and JSON next to the printed one, so results can be compared between commits.

    from results import Results, progress     # bench/ is the script's directory

    results = Results("flash_attention")      # -> bench/results/flash_attention.{csv,json}
    for shape in progress(SHAPES, "shapes"):  # "[2/7 shapes] ... 41 s, ~1 min left" on stderr
        ...
        print(row_text)                       # the script's own table, as before
        results.add(shape=str(shape), cycles=report.cycles, tflops=round(tflops, 3))
    results.write()                           # also called at exit if rows were added

The files go to $TTLANG_BENCH_RESULTS (default bench/results/, not tracked). The JSON
holds the rows plus the commit (`git describe --always --dirty`), the command line and
the date; the CSV the rows alone, with a header of every column any row has.
"""

from __future__ import annotations

import atexit
import csv
import datetime
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

BENCH_DIR = Path(__file__).resolve().parent
Item = TypeVar("Item")


def results_dir() -> Path:
    return Path(os.environ.get("TTLANG_BENCH_RESULTS", BENCH_DIR / "results"))


def _commit() -> str:
    try:
        return subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            cwd=BENCH_DIR,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


class Results:
    """The rows of one script's table; `write` saves them as `<name>.csv` and `<name>.json`."""

    def __init__(self, name: str):
        self.name = name
        self.rows: list[dict[str, Any]] = []
        self._written = False
        atexit.register(self._write_at_exit)

    def add(self, **row: Any) -> None:
        """One row, column name -> value (numbers stay numbers in the JSON)."""
        self.rows.append(row)
        self._written = False

    def write(self) -> tuple[Path, Path]:
        """Writes both files (again, if rows were added since); returns their paths."""
        directory = results_dir()
        directory.mkdir(parents=True, exist_ok=True)
        csv_path, json_path = directory / f"{self.name}.csv", directory / f"{self.name}.json"
        columns = list(dict.fromkeys(key for row in self.rows for key in row))
        with open(csv_path, "w", newline="") as file:
            writer = csv.DictWriter(file, fieldnames=columns)
            writer.writeheader()
            writer.writerows(self.rows)
        document = {
            "benchmark": self.name,
            "commit": _commit(),
            "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "rows": self.rows,
        }
        json_path.write_text(json.dumps(document, indent=1) + "\n")
        self._written = True
        print(f"results: {csv_path}, {json_path}", file=sys.stderr)
        return csv_path, json_path

    def _write_at_exit(self) -> None:
        if self.rows and not self._written:
            self.write()


def progress(items: Iterable[Item], what: str = "items") -> Iterator[Item]:
    """Yields `items`, printing "[i/n what] elapsed, ~left" to stderr before each (the
    estimate is the mean time per finished item)."""
    items = list(items)
    start = time.perf_counter()
    for index, item in enumerate(items):
        elapsed = time.perf_counter() - start
        left = f", ~{_duration(elapsed / index * (len(items) - index))} left" if index else ""
        print(f"[{index + 1}/{len(items)} {what}] {_duration(elapsed)} elapsed{left}", file=sys.stderr, flush=True)
        yield item
    print(f"[{len(items)}/{len(items)} {what}] done in {_duration(time.perf_counter() - start)}", file=sys.stderr)


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"
