"""bench/results.py, the helper every bench script shares: the table as CSV and JSON
(with the commit), and progress lines on stderr."""

import csv
import importlib.util
import json
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3] / "bench"


def load_results_module():
    spec = importlib.util.spec_from_file_location("bench_results", BENCH / "results.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rows_are_written_as_csv_and_json(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TTLANG_BENCH_RESULTS", str(tmp_path))
    results = load_results_module().Results("sweep")
    results.add(shape="[1, 8, 512, 64]", causal=False, cycles=1234, tflops=1.5)
    results.add(shape="[1, 8, 512, 64]", causal=True, cycles=999, note="extra column")
    csv_path, json_path = results.write()
    rows = list(csv.DictReader(csv_path.open()))
    assert [r["cycles"] for r in rows] == ["1234", "999"]
    assert list(rows[0]) == ["shape", "causal", "cycles", "tflops", "note"]
    assert rows[0]["note"] == "" and rows[1]["tflops"] == ""
    document = json.loads(json_path.read_text())
    assert document["benchmark"] == "sweep"
    assert document["rows"][0] == {"shape": "[1, 8, 512, 64]", "causal": False, "cycles": 1234, "tflops": 1.5}
    assert document["commit"] != "" and document["date"].startswith("20")
    assert str(csv_path) in capsys.readouterr().err


def test_progress_counts_items_on_stderr(capsys):
    progress = load_results_module().progress
    assert list(progress(["a", "b", "c"], "shapes")) == ["a", "b", "c"]
    lines = capsys.readouterr().err.splitlines()
    assert [line.split("]")[0] for line in lines] == ["[1/3 shapes", "[2/3 shapes", "[3/3 shapes", "[3/3 shapes"]
    assert "left" in lines[1] and lines[-1].split("] ")[1].startswith("done in")


def test_every_bench_script_uses_the_helper():
    scripts = [p for p in BENCH.glob("*.py") if p.name != "results.py"]
    assert scripts
    for script in scripts:
        assert "from results import" in script.read_text(), f"{script.name} does not save its table"
