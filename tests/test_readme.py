"""Every command of the README runs as written, in order, in a fresh folder, and the
output the README shows is what the command prints.

Only sizes are lowered where a command would take minutes (each replacement is listed in
``SMALLER``); the quick-start sample runs verbatim and its shown rows must match.
"""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from cli_helpers import run

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
#: (pattern, replacement): smaller sizes for the slow commands, nothing else changes
SMALLER = [(r"--deals 10M", "--deals 20000"), (r"--games 2000\b", "--games 30"), (r"--games 500\b", "--games 10"),
           (r"--budget 200000", "--budget 3000"), (r"search:64", "search:4"), (r"search:16", "search:2")]


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", README, flags=re.S)


def _commands() -> list[str]:
    """The ``cardsim`` commands of the README's bash blocks, in order (the set-up line's
    simulation included)."""
    out = []
    for block in _blocks("bash"):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            for part in line.split("&&"):
                part = part.strip()
                if part.startswith(".venv/bin/cardsim "):
                    part = part[len(".venv/bin/"):]
                if part.startswith("cardsim "):
                    out.append(part)
    return out


def _smaller(command: str) -> str:
    for pattern, replacement in SMALLER:
        command = re.sub(pattern, replacement, command)
    return command


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """A folder like a fresh clone's root: the specs and examples, no runs yet."""
    folder = tmp_path_factory.mktemp("clone")
    for name in ("experiments", "examples"):
        (folder / name).symlink_to(ROOT / name)
    (folder / "runs").mkdir()  # the set-up command's `mkdir -p runs`
    return folder


def test_the_readme_has_its_two_setup_commands():
    setup = README.split("## Set up", 1)[1].split("\n## ", 1)[0]
    commands = [b.strip() for b in re.findall(r"```bash\n(.*?)```", setup, flags=re.S)]
    assert len(commands) == 2
    assert "pip install" in commands[0] and "cardsim deal" in commands[0]
    assert "pip install" in commands[1] and "pytest" in commands[1]
    assert (ROOT / ".ci" / "run").read_text().count("pytest -q -n auto --dist loadfile") == 1


def test_every_readme_command_runs_in_order(fresh, capsys, monkeypatch):
    monkeypatch.chdir(fresh)
    commands = _commands()
    assert len(commands) >= 7
    for command in commands:
        args = shlex.split(_smaller(command))[1:]
        if args[0] == "experiment":
            args += ["--n", "300"]
        code, _, err = run(capsys, *args)
        assert code == 0, f"{command}: {err}"
    for block in _blocks("python"):  # the API and pandas examples, after the commands made runs/
        exec(compile(block.replace("deals=100_000", "deals=20_000"), "README.md", "exec"), {})


def test_the_quick_start_prints_what_the_readme_shows(capsys):
    block = next(b for b in _blocks("text") if b.startswith("$ cardsim play"))
    lines = block.splitlines()
    code, out, err = run(capsys, *shlex.split(lines[0][2:])[1:])
    assert code == 0, err
    printed = {" ".join(line.split()) for line in out.splitlines()}
    for shown in lines[1:]:
        if shown.strip() and shown.strip() != "...":
            assert " ".join(shown.split()) in printed, shown


def test_readme_paths_and_flags_exist():
    for link in re.findall(r"\]\(((?:docs|examples|experiments)/[^)#]+)\)", README):
        assert (ROOT / link).exists(), link
    assert "replay --game" not in README and "runs/games" not in README
    assert len(README.splitlines()) <= 250
    assert "/work/" not in README and "/home/" not in README  # no machine paths
