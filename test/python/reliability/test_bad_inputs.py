"""Runs the bad-input corpus (bad_inputs.py): every wrong kernel raises its error class,
at the line marked for it in the corpus, with its key words in the message or hint."""

from pathlib import Path

import pytest

import bad_inputs
from ttlang.runtime.errors import EmulatorError

CORPUS = Path(bad_inputs.__file__)


def marked_line(name: str) -> int | None:
    for number, text in enumerate(CORPUS.read_text().splitlines(), start=1):
        if f"# <- {name}" in text:
            return number
    return None


def test_the_corpus_is_large():
    assert len(bad_inputs.CASES) >= 80


@pytest.mark.parametrize("name", sorted(bad_inputs.CASES))
def test_bad_input(name):
    error_class, words, make_mistake, marker = bad_inputs.CASES[name]
    with pytest.raises(Exception) as caught:
        make_mistake()
    error = caught.value
    assert type(error) is error_class, f"{type(error).__name__}: {error}"
    text = str(error) + " " + (getattr(error, "hint", None) or "")
    for word in words:
        assert word in text, text
    line = marked_line(marker)
    if isinstance(error, EmulatorError) and error.line is None:
        # a run-time error the compiler did not locate names core, thread and CB instead
        assert line is None, f"{name}: its emulator error names no kernel line to mark"
    else:
        assert line is not None, f"{name}: mark the line its error must name with `# <- {marker}`"
        assert (error.filename, error.line) == (str(CORPUS), line), str(error)
