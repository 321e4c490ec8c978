"""Report figures: matplotlib loaded on demand, each figure saved as a PNG (inline in HTML,
or a file beside a Markdown report), and the dots-with-error-bars helper the panels share."""
from __future__ import annotations

import base64
import html
import io
import re
import urllib.parse
from pathlib import Path

import numpy as np
import pandas as pd

from cardsim.simcore.framework.config import ConfigError


def _plt():
    try:
        import matplotlib
    except ImportError:
        raise ConfigError("reports need matplotlib: pip install 'cardsim[plot]'") from None

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


class _Figures:
    """Collects PNG figures: inline (HTML) or as files beside a Markdown report."""

    def __init__(self, out: Path, inline: bool):
        self.out = out
        self.inline = inline
        self.count = 0
        self.files: list[tuple[Path, bytes]] = []  # a Markdown report's PNGs, written with the report
        #: A line naming the section's run or experiment (n, seed), printed on each figure so
        #: that a PNG seen on its own still says what it shows.
        self.context = ""

    def add(self, fig, title: str, caption: bool = True) -> str:
        """The figure as HTML (``title`` as its alt text and, with ``caption``, printed under
        it unless a panel has that very title) or as a Markdown image link."""
        if self.context:  # a footnote under everything drawn (tick labels and legends included)
            box = fig.get_tightbbox(fig.canvas.get_renderer())
            fig.text(box.x0 / fig.get_figwidth(), (box.y0 - 0.08) / fig.get_figheight(), self.context, fontsize=7,
                     color="0.35", ha="left", va="top")
        caption = title if caption and not any(ax.get_title() == title for ax in fig.axes) else ""
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
        _plt().close(fig)
        data = buffer.getvalue()
        self.count += 1
        if self.inline:
            src = "data:image/png;base64," + base64.b64encode(data).decode()
            caption_html = f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""
            return f'<figure><img alt="{html.escape(title)}" src="{src}">{caption_html}</figure>'
        name = f"{self.out.stem}-fig{self.count}.png"
        self.files.append((self.out.parent / name, data))
        return f"![{title}]({urllib.parse.quote(name)})"


def figure_files(out: Path) -> list[tuple[int, Path]]:
    """The PNG files a Markdown report ``out`` writes beside itself (``STEM-figN.png``), as
    ``(N, path)`` in order of N."""
    pattern = re.compile(re.escape(out.stem) + r"-fig(\d+)\.png")
    if not out.parent.is_dir():
        return []
    return sorted((int(m.group(1)), p) for p in out.parent.iterdir() if (m := pattern.fullmatch(p.name)))


def _dots(ax, frame: pd.DataFrame, labels: list[str], series: str, offset_step: float = 0.12) -> None:
    """Dots with 95% error bars, one colour per value of ``series``, at the positions of ``labels``."""
    keys = list(dict.fromkeys(frame[series]))
    for k, key in enumerate(keys):
        rows = frame[frame[series] == key]
        x = np.array([labels.index(g) for g in rows["label"]]) + (k - (len(keys) - 1) / 2) * offset_step
        err = np.vstack([rows["value"] - rows["ci_low"], rows["ci_high"] - rows["value"]]).clip(min=0)
        ax.errorbar(x, rows["value"], yerr=err, fmt="o", ms=4, capsize=3, color=f"C{k % 10}", label=str(key))
    ax.set_xticks(np.arange(len(labels)))
    ax.set_xticklabels(labels, fontsize=8)
