"""Helpers shared by the CLI tests."""
from cardsim.cli.main import main


def run(capsys, *args):
    """Run ``cardsim ARGS`` in-process: ``(exit code, stdout, stderr)``."""
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err
