"""The ``cardsim`` command line (Typer): argument parsing and the commands.

Running tasks lives in :mod:`cardsim.cli.runs`, rendering in :mod:`cardsim.cli.render`.
Every user error prints one line ``cardsim: error: ...`` on stderr and exits with
code 2, leaving no output behind.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional

import typer

# the base of every parsing error: recent typer vendors click and exports it as TyperException;
# older releases use click's own
ClickException = getattr(typer, "TyperException", None)
if ClickException is None:  # pragma: no cover
    from click.exceptions import ClickException

from cardsim.cli.app import app  # noqa: E402
from cardsim.cli.runs import STATE  # noqa: E402
from cardsim.simcore.framework.config import CardsimError, Interrupted  # noqa: E402
# the command modules register their commands, in the order `cardsim --help` lists them
from cardsim.cli import (info_commands, run_commands, study_commands, data_commands,  # noqa: F401,E402,I001
                         train_commands, plan_commands, playtest_commands)


_METAVARS = {"int": "N", "float": "X", "path": "PATH", "bool": ""}


def _usage_piece(param) -> str:
    """An argument on a usage line: ``GAME``, ``[GAME]...`` when optional, ``PATHS...``."""
    name = param.metavar or (param.name or "value").upper()
    name = name if param.required else f"[{name}]"
    return name + ("..." if param.nargs != 1 else "")


def _click_command():
    """The click command of the Typer app, built once, with readable metavars in help
    (``GAME``, ``SEED``, ``N``, ``PATH``) instead of the internal type names."""
    global _COMMAND
    if _COMMAND is not None:
        return _COMMAND
    command = typer.main.get_command(app)
    for sub in getattr(command, "commands", {}).values():
        if sub.help and not sub.short_help:  # the whole first sentence, never cut with "..."
            first = " ".join(sub.help.split("\n\n")[0].split())
            sub.short_help = first.split(". ")[0].rstrip(".")
        for param in sub.params:
            if type(param).__name__.endswith("Argument"):
                param.display_type = lambda ctx: None  # "GAME  game name", not "GAME <str>"
                # the usage line as click writes it ("cardsim replay [OPTIONS] GAME"), not typer's "{GAME}"
                param.get_usage_pieces = lambda ctx, p=param: [_usage_piece(p)]
            if getattr(param, "metavar", None):
                continue
            descriptor = getattr(param, "type_descriptor", None)
            annotation = getattr(descriptor, "annotation", None)
            kind = {int: "int", float: "float", bool: "bool", Path: "path"}.get(annotation, "text")
            if type(param).__name__.endswith("Argument"):
                param.metavar = (param.name or "value").upper()
            elif getattr(param, "is_flag", False) or kind == "bool":
                continue
            elif kind in _METAVARS:
                param.metavar = _METAVARS[kind]
            else:
                longest = max(param.opts, key=len).lstrip("-")
                param.metavar = {"set": "KEY=VALUE", "policy": "POLICY", "policies": "LIST"}.get(longest, longest.upper())
    _COMMAND = command
    return command


_COMMAND = None


#: Flags of the whole program (``cardsim --FLAG COMMAND``) also taken after the command,
#: where a user of one command writes them (``cardsim play ... --no-variance-reduction``).
GLOBAL_FLAGS = ("--no-variance-reduction",)


def global_flags_first(argv: list[str]) -> list[str]:
    """``argv`` with every :data:`GLOBAL_FLAGS` token moved before the command (not past a ``--``)."""
    end = argv.index("--") if "--" in argv else len(argv)
    flags = [a for a in argv[:end] if a in GLOBAL_FLAGS]
    return flags + [a for i, a in enumerate(argv) if i >= end or a not in GLOBAL_FLAGS]


def main(argv: Optional[list[str]] = None) -> int:
    """Console-script entry point; returns the exit code (2 for any user error)."""
    STATE.reset()  # per-command state: main() may run many commands in one process
    argv = global_flags_first(sys.argv[1:] if argv is None else list(argv))
    try:
        result = _click_command()(args=argv, prog_name="cardsim", standalone_mode=False)
    except ClickException as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # bare `cardsim`: show the help
            sys.stdout.write(exc.format_message() + "\n")
            return 0
        ctx = getattr(exc, "ctx", None)
        command = ctx.command_path if ctx is not None else "cardsim"
        message = " ".join(exc.format_message().split())
        _error(f"{message} (see '{command} --help')")
        return 2 if exc.exit_code == 2 else 1
    except CardsimError as exc:
        if isinstance(exc, Interrupted):
            sys.stderr.write(f"cardsim: {exc}\n")
        else:
            _error(str(exc))
        return exc.exit_code
    except (typer.Abort, KeyboardInterrupt):
        sys.stderr.write("cardsim: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except (OverflowError, RecursionError, UnicodeDecodeError) as exc:
        # Raised by parsing what the user gave (--deals 1e400, --game 2**63, a deeply
        # nested or non-UTF-8 TOML file) before any run starts: bad input, not a bug.
        if os.environ.get("CARDSIM_DEBUG"):
            raise
        what = {OverflowError: "a number is out of range", RecursionError: "an input is nested too deeply",
                UnicodeDecodeError: "an input file is not UTF-8 text"}[type(exc)]
        _error(f"{what} ({exc})")
        return 2
    except Exception as exc:  # a bug, not bad input: one line, the traceback on request
        if os.environ.get("CARDSIM_DEBUG"):
            raise
        _error(f"internal error: {type(exc).__name__}: {exc} (rerun with CARDSIM_DEBUG=1 for the traceback)")
        return 1
    if result == 130:  # typer turns a KeyboardInterrupt outside a run into exit code 130
        sys.stderr.write("cardsim: interrupted\n")
    return result if isinstance(result, int) else 0


def _error(message: str) -> None:
    """One line on stderr, never wrapped; an echoed value of any length is cut to 240 characters."""
    words = [word if len(word) <= _ERROR_WORD_CHARS else f"{word[:_ERROR_WORD_CHARS - 20]}...({len(word):,} characters)"
             for word in message.split()]
    line = " ".join(words)
    if len(line) > _ERROR_LINE_CHARS:
        line = line[:_ERROR_LINE_CHARS] + "..."
    sys.stderr.write("cardsim: error: " + line + "\n")


_ERROR_WORD_CHARS = 240


_ERROR_LINE_CHARS = 1000


if __name__ == "__main__":
    sys.exit(main())
