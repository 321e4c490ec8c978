"""Reports: honest errors (existing file, unknown suffix, folder, no matplotlib), readable tables."""
from __future__ import annotations

import sys

import pytest

from cardsim.analysis.report import _cell, _table_html
from cli_helpers import run


@pytest.fixture(scope="module")
def deal_run(tmp_path_factory):
    import contextlib
    import io

    from cardsim.cli.main import main

    out = tmp_path_factory.mktemp("r") / "deal"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["deal", "tienlen", "--deals", "20000", "--seed", "1", "--out", str(out), "--quiet"]) == 0
    return out


def test_report_refuses_bad_outputs(deal_run, tmp_path, capsys):
    for target, message in ((tmp_path / "r.pdf", "must end in .html or .md"), (tmp_path, "is a folder"),
                            (tmp_path / "no" / "r.html", "does not exist")):
        code, _, err = run(capsys, "report", deal_run, "--out", target)
        assert code == 2 and message in err, err
    existing = tmp_path / "r.html"
    existing.write_text("keep me")
    code, _, err = run(capsys, "report", deal_run, "--out", existing)
    assert code == 2 and "--overwrite" in err and existing.read_text() == "keep me"
    code, _, err = run(capsys, "report", deal_run, "--out", existing, "--overwrite")
    assert code == 0 and "<img" in existing.read_text()


def test_report_without_matplotlib_is_a_user_error(deal_run, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, _, err = run(capsys, "report", deal_run, "--out", tmp_path / "r.html")
    assert code == 2 and "cardsim[plot]" in err
    assert not (tmp_path / "r.html").exists()


def test_tables_are_readable_without_optional_dependencies():
    import pandas as pd

    frame = pd.DataFrame({"event": ["a"], "count": [1234567], "rate": [0.000123456], "se_ratio": [0.5]})
    md = _table_html(frame, "md")
    assert "1,234,567" in md and "0.000123" in md and "se_ratio" not in md
    assert _cell(12345.0) == "12,345" and _cell(0.25) == "0.25" and _cell(float("nan")) == ""
