"""Bad input found by independent checks: each refused with one line and exit 2, nothing touched."""
import pytest

from cli_helpers import run


@pytest.mark.parametrize("out", ["", ".", ".."])
def test_an_out_that_is_the_current_folder_or_above_is_refused(out, tmp_path, capsys, monkeypatch):
    here = tmp_path / "work"
    here.mkdir()
    (here / "keep.txt").write_text("mine")
    monkeypatch.chdir(here)
    for command in (["deal", "tienlen", "--deals", 100], ["play", "tienlen", "--games", 10]):
        code, _, err = run(capsys, *command, "--seed", 1, "--out", out, "--overwrite")
        assert code == 2 and "current folder or one above it" in err and len(err.strip().splitlines()) == 1, err
    code, _, err = run(capsys, "ladder", "tienlen", "--policies", "random", "--games", 2, "--out", out, "--overwrite")
    assert code == 2 and "current folder" in err, err
    assert (here / "keep.txt").read_text() == "mine" and sorted(p.name for p in here.iterdir()) == ["keep.txt"]


@pytest.mark.parametrize("flags", [["--max", "1000"], ["--target", "weak_hand@any"],
                                   ["--target", "dragon@any", "--max", "10"]])
def test_precision_flags_without_precision_are_refused(flags, capsys):
    code, _, err = run(capsys, "deal", "tienlen", "--deals", 100, "--seed", 1, *flags)
    assert code == 2 and "only works with --precision" in err, err
    code, _, err = run(capsys, "play", "tienlen", "--games", 10, "--seed", 1, *flags)
    assert code == 2 and "only works with --precision" in err, err


def test_an_out_on_a_virtual_file_system_is_called_unusable(capsys):
    """/proc accepts a mkdir check for root but holds no files: the path is the problem, not N."""
    code, _, err = run(capsys, "deal", "tienlen", "--deals", 100, "--seed", 1, "--out", "/proc/cardsim-x")
    assert code == 2 and "unusable output path" in err and "smaller N" not in err, err
