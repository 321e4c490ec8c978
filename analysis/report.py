"""Self-contained reports (HTML with embedded PNGs, or Markdown + PNG files).

``build_report(paths, out)`` renders one section per input: a run dataset (deal or
play), a ladder, a balance card, a tune race or an experiment directory written by
``cardsim experiment``. This module assembles the page and writes it; the sections live
in :mod:`~cardsim.analysis.report_runs` (deal, play, ladder) and
:mod:`~cardsim.analysis.report_studies` (experiment, sweep, balance, tune), the tables in
:mod:`~cardsim.analysis.report_tables` and the figure plumbing in
:mod:`~cardsim.analysis.report_figures`; their names stay importable from here.
"""
from __future__ import annotations

import html
import json
import os
from pathlib import Path

from cardsim.analysis.report_figures import _dots, _Figures, _plt, figure_files  # noqa: F401 (re-exported)
from cardsim.analysis.report_runs import (SEAT_COLOURS, _deal_section, _ladder_section,  # noqa: F401
                                          _play_section, _rate_dots, event_groups, pack_groups)
from cardsim.analysis.report_studies import (_arms_table, _balance_section, _difference_figure,  # noqa: F401
                                             _experiment_section, _sweep_section, _tune_section, _unit_lookup,
                                             experiment_info)
from cardsim.analysis.report_tables import (HIDDEN_COLUMNS, SIGNED_COLUMNS, TABLE_NOTES,  # noqa: F401
                                            VALUE_COLUMNS, _cell, _number, _render_table, _rules_text,
                                            ci_decimals, display_table)
from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.run.output import Dataset, missing_parent_message


REPORT_SUFFIXES = {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md"}


def _write_whole(path: Path, data: bytes) -> None:
    """Write ``path`` through a new temporary file beside it, renamed into place.

    The temporary file is created exclusively under a fresh name (``mkstemp``: O_EXCL),
    so a planted ``.NAME.tmp`` symlink is never written through nor renamed onto the
    report.
    """
    import tempfile

    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o666 & ~_umask())  # as an ordinary new file, not mkstemp's 0600
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def check_report_path(out: Path, overwrite: bool) -> str:
    """The report format of ``out``; ConfigError for an unknown suffix, a folder, a place
    inside a cardsim dataset or study folder, an existing file without ``overwrite`` or a
    folder that cannot be written."""
    if out.is_dir():
        raise ConfigError(f"{out} is a folder: give a file name such as {out / 'report.html'}")
    fmt = REPORT_SUFFIXES.get(out.suffix.lower())
    if fmt is None:
        raise ConfigError(f"report file must end in .html or .md, got {str(out)[:200]!r}")
    from cardsim.simcore.run.outpath import enclosing_dataset

    for form in (out.absolute(), Path(os.path.realpath(out.absolute().parent)) / out.name):
        inside = enclosing_dataset(form)
        if inside is not None:  # a stray file there makes every reader call the dataset damaged
            raise ConfigError(f"refusing to write the report inside the cardsim dataset {inside}: its readers "
                              "would call it damaged; choose an --out outside it")
    if out.exists() and not overwrite:
        raise ConfigError(f"{out} exists: use --overwrite to replace it")
    existing = figure_files(out) if fmt == "md" and not overwrite else []  # the PNGs it writes beside itself
    if existing:
        raise ConfigError(f"{existing[0][1]} exists: use --overwrite to replace it")
    parent = out.absolute().parent
    if not parent.is_dir():
        raise ConfigError(missing_parent_message(parent, "report directory"))
    if not os.access(parent, os.W_OK):
        raise ConfigError(f"cannot write the report into {parent}: permission denied")
    return fmt


def build_report(paths: list[str | os.PathLike], out: str | os.PathLike, overwrite: bool = True) -> Path:
    """Write a report of datasets and experiments to ``out`` (``.html`` or ``.md``)."""
    out = Path(out)
    fmt = check_report_path(out, overwrite)
    _plt()
    figures = _Figures(out, inline=(fmt == "html"))
    sections = []
    from cardsim.simcore.run.folders import check_folder, is_study_folder

    for raw in paths:
        path = Path(raw)
        if is_study_folder(path):
            check_folder(path)  # an edited table or a damaged arm is refused, not reported
        if (path / "tune.json").is_file():
            meta = json.loads((path / "tune.json").read_text())
            title = f"{meta['game']} tune: {path.name} (budget {meta['budget']:,} games, seed={meta['seed']})"
            figures.context = title
            body = _tune_section(path, figures, fmt)
        elif (path / "balance.json").is_file():
            meta = json.loads((path / "balance.json").read_text())
            title = (f"{meta['game']} balance card: {path.name} ({', '.join(meta['policies'])}; field "
                     f"{meta['field']}; {meta['n']:,} deals per table, seed={meta['seed']})")
            figures.context = title
            body = _balance_section(path, figures, fmt)
        elif (path / "ladder.json").is_file():
            meta = json.loads((path / "ladder.json").read_text())
            title = (f"{meta['game']} ladder: {path.name} (field {meta['field']}, {meta['n']:,} deals per seat, "
                     f"seed={meta['seed']})")
            figures.context = title
            body = _ladder_section(path, figures, fmt)
        elif (path / "comparison.parquet").is_file():
            info = experiment_info(path)
            name = str(info.get("name") or path.name)
            title = f"Experiment {name}" + (f" ({path.name})" if name != path.name else "")
            figures.context = (f"experiment {name}: {info.get('game')} {info.get('task')}, "
                               f"n = {info.get('n', 0):,} per arm, seed {info.get('seed')}") if info else name
            body = _experiment_section(path, figures, fmt)
        else:
            dataset = Dataset(path)
            meta = dataset.meta
            title = f"{meta['game']} {meta['task']}: {path.name} (n={meta['n']:,}, seed={meta['seed']})"
            figures.context = title
            body = [_rules_text(meta["rules"], fmt)]
            body += _play_section(dataset, figures, fmt) if meta["task"] == "play" else _deal_section(dataset, figures, fmt)
        sections.append((title, body))
    if fmt == "md":
        text = "# cardsim report\n\n" + "\n\n".join(f"## {t}\n\n" + "\n\n".join(b) for t, b in sections) + "\n"
    else:
        # a phone (390 px) as well as a desktop: padding at the edges, a wide table scrolls sideways
        # in its own box (its first column, the labels, stays in view), the answers are its first
        # columns (display_table), headings and long names wrap
        style = ("body{font-family:sans-serif;max-width:1000px;margin:auto;padding:0 12px}"
                 "h1{font-size:1.6em}h2{font-size:1.2em}h1,h2,p{overflow-wrap:anywhere}"
                 "table.t{border-collapse:collapse;font-size:12px;margin:10px 0}"
                 "table.t td,table.t th{padding:2px 8px;border-bottom:1px solid #ddd}"
                 "table.t th:first-child,table.t td:first-child{position:sticky;left:0;background:#fff}"
                 "table.t td{white-space:nowrap}td.w{white-space:normal;min-width:16em}"
                 "td.n{text-align:right;font-variant-numeric:tabular-nums}"
                 "th{white-space:nowrap}div.scroll{overflow-x:auto;max-width:100%}"  # "[16.0, 17.8]" on one line
                 "figure{margin:12px 0}img{max-width:100%;height:auto}p.rules,p.note{font-size:12px;color:#444}"
                 "@media (max-width:600px){table.t td,table.t th{padding:2px 4px}}")
        body = "".join(f"<h2>{html.escape(t)}</h2>" + "".join(f"<div>{b}</div>" for b in parts) for t, parts in sections)
        text = (f"<!DOCTYPE html><html><head><meta charset='utf-8'>"
                f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>cardsim report</title>"
                f"<style>{style}</style></head><body><h1>cardsim report</h1>{body}</body></html>\n")
    written: list[Path] = []
    try:  # each file whole (a temporary file renamed), the figures first, the report last
        for path, data in [*figures.files, (out, text.encode("utf-8"))]:
            _write_whole(path, data)
            written.append(path)
    except OSError as exc:
        for path in written:  # no figures without their report
            path.unlink(missing_ok=True)
        raise ConfigError(f"cannot write the report {out}: {exc.strerror or exc}") from None
    for number, stale in figure_files(out) if fmt == "md" else ():  # an earlier, longer report's extra figures
        if number > figures.count:
            stale.unlink(missing_ok=True)
    return out
