"""Experiments (common random numbers), interval coverage, and reports."""
import base64
import json
import math
import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from cardsim import analysis
from cardsim.analysis.intervals import wilson
from cardsim.analysis.stats import PairedMoments, paired_difference, unpaired_difference
from cli_helpers import run

SPEC = """
name = "iw"
game = "tienlen"
task = "deal"
n = 40000
seed = 9
chunk_size = 15000
[baseline]
rules = {{ instant_wins = "dragon,four_twos" }}
[[arms]]
name = "more"
rules = {{ instant_wins = "{arm}" }}
"""


def test_common_random_numbers_pair_the_same_deals(tmp_path, capsys):
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.format(arm="dragon,four_twos,six_pairs,one_colour"))
    code, stdout, stderr = run(capsys, "experiment", spec, "--out", tmp_path / "exp", "--json", "--quiet")
    assert code == 0, stderr
    table = pd.DataFrame(json.loads(stdout))
    saved = pd.read_parquet(tmp_path / "exp" / "comparison.parquet")
    pd.testing.assert_frame_equal(table.reset_index(drop=True), saved, check_dtype=False)
    # both arms really dealt the same hands
    base = analysis.load(tmp_path / "exp" / "baseline", "per_deal").sort_values("deal").reset_index(drop=True)
    arm = analysis.load(tmp_path / "exp" / "more", "per_deal").sort_values("deal").reset_index(drop=True)
    hands = [f"hand_{s}" for s in range(4)]
    assert base[hands].equals(arm[hands])
    # adding kinds can only add instant wins: the paired interval is far narrower
    row = table[table["metric"] == "instant_win"].iloc[0]
    assert row["ci_high"] - row["ci_low"] < 0.7 * (row["unpaired_ci_high"] - row["unpaired_ci_low"])
    assert row["se_ratio"] < 0.7
    # and the difference equals the exact count of deals that changed outcome
    expected = ((arm["instant_winner"] >= 0).mean() - (base["instant_winner"] >= 0).mean())
    assert row["difference"] == pytest.approx(expected, abs=1e-12)
    meta = json.loads((tmp_path / "exp" / "experiment.json").read_text())
    assert [a["name"] for a in meta["arms"]] == ["baseline", "more"]
    # an experiment directory can be replaced by rerunning with --overwrite, not without
    code, _, stderr = run(capsys, "experiment", spec, "--out", tmp_path / "exp", "--quiet")
    assert code == 2 and "exists" in stderr
    code, _, stderr = run(capsys, "experiment", spec, "--out", tmp_path / "exp", "--quiet", "--overwrite")
    assert code == 0, stderr


def test_paired_and_unpaired_formulas():
    rng = np.random.default_rng(0)
    a = rng.normal(size=5000)
    b = a + rng.normal(scale=0.1, size=5000) + 0.05
    paired, unpaired = paired_difference(a, b), unpaired_difference(a, b)
    d = b - a
    assert paired["difference"] == pytest.approx(d.mean())
    assert paired["se"] == pytest.approx(d.std(ddof=1) / math.sqrt(d.size))
    assert unpaired["se"] == pytest.approx(math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size))
    assert paired["se"] < unpaired["se"] / 5
    acc = PairedMoments()
    for lo in range(0, 5000, 700):  # streaming in parts gives the same answer
        acc.add(a[lo:lo + 700], b[lo:lo + 700])
    assert acc.paired()["se"] == pytest.approx(paired["se"], rel=1e-9)
    assert acc.unpaired()["se"] == pytest.approx(unpaired["se"], rel=1e-9)


@pytest.mark.parametrize("p, n", [(0.5, 200), (0.1, 500), (0.01, 2000)])
def test_wilson_coverage(p, n):
    # Exact coverage: sum of binomial probabilities of the k whose interval covers p.
    k = np.arange(n + 1)
    low, high = wilson(k, n)
    log_pmf = np.array([math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in k]) \
        + k * math.log(p) + (n - k) * math.log1p(-p)
    exact = float(np.exp(log_pmf)[(low <= p) & (p <= high)].sum())
    assert 0.93 < exact < 0.97
    # Simulated Bernoulli data agree with it.
    reps = 20_000
    counts = np.random.default_rng(42).binomial(n, p, size=reps)
    lo, hi = wilson(counts, n)
    covered = ((lo <= p) & (p <= hi)).mean()
    assert abs(covered - exact) / math.sqrt(exact * (1 - exact) / reps) < 4


def test_wilson_known_values():
    low, high = wilson(0, 10)
    assert low == 0 and high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson(50, 100)
    assert (low, high) == (pytest.approx(0.4038, abs=1e-4), pytest.approx(0.5962, abs=1e-4))


@pytest.mark.parametrize("content, message", [
    ('game = "tienlen"\nn = 10\n', "[[arms]]"),
    ('game = "tienlen"\nn = 10\ncolour = 1\n[[arms]]\nname="a"\n', "unknown key"),
    ('game = "poker"\nn = 10\n[[arms]]\nname="a"\n', "unknown game"),
    ('game = "tienlen"\ntask = "deal"\nn = -1\n[[arms]]\nname="a"\n', "n must be"),
    ('game = "tienlen"\ntask = "deal"\nn = 10\n[[arms]]\nname="a"\nrules = { players = 7 }\n', "arm 1: bad value"),
    ('game = "tienlen"\ntask = "deal"\nn = 10\n[[arms]]\nname="baseline"\n', "unique"),
    ('game = "tienlen"\ntask = "deal"\nn = 10\n[[arms]]\nname="a"\nspeed = 2\n', "unknown key"),
    ('game = "tienlen"\ntask = "deal"\nn = 1e9\n[[arms]]\nname="a"\n', "n must be"),
    ("this is not toml", "cannot read experiment spec"),
])
def test_bad_experiment_specs(tmp_path, capsys, monkeypatch, content, message):
    monkeypatch.chdir(tmp_path)
    spec = tmp_path / "spec.toml"
    spec.write_text(content)
    code, _, stderr = run(capsys, "experiment", spec, "--out", tmp_path / "exp")
    assert code == 2 and message in stderr and stderr.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spec.toml"]


class _Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.images, self.tables, self.headings = [], 0, []
        self._in_h = False

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs)["src"])
        self.tables += tag == "table"
        self._in_h = tag in ("h1", "h2")

    def handle_data(self, data):
        if self._in_h:
            self.headings.append(data)
            self._in_h = False


def _valid_png(data: bytes) -> bool:
    import matplotlib.image as mpimg
    import io

    return data[:8] == b"\x89PNG\r\n\x1a\n" and mpimg.imread(io.BytesIO(data), format="png").ndim == 3


def test_report_renders_html_and_markdown(tmp_path, capsys):
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.format(arm="all"))
    assert run(capsys, "experiment", spec, "--out", tmp_path / "exp", "--quiet")[0] == 0
    assert run(capsys, "deal", "tienlen", "--deals", 20000, "--seed", 1, "--out", tmp_path / "deal", "--quiet")[0] == 0
    code, _, stderr = run(capsys, "report", tmp_path / "exp", tmp_path / "deal", "--out", tmp_path / "r.html")
    assert code == 0, stderr
    parser = _Collector()
    parser.feed((tmp_path / "r.html").read_text())
    assert parser.tables >= 3 and len(parser.images) >= 2  # arms, comparison, deal rates
    # named by the spec (and the folder); each arm with the rules it changes; a unit per metric
    assert any(h.startswith("Experiment iw (exp)") for h in parser.headings), parser.headings
    page = (tmp_path / "r.html").read_text()
    # (a long text cell may wrap: class w)
    assert "<td>more</td><td class=w>instant_wins = dragon,four_twos,five_consecutive_pairs," in page
    assert "<th>unit</th>" in page
    assert "baseline arm &#x27;baseline&#x27;; n = 40,000 per arm; seed 9" in page
    for src in parser.images:
        assert src.startswith("data:image/png;base64,")
        assert _valid_png(base64.b64decode(src.split(",", 1)[1]))
    code, _, _ = run(capsys, "report", tmp_path / "exp", "--out", tmp_path / "r.md")
    assert code == 0
    text = (tmp_path / "r.md").read_text()
    pngs = re.findall(r"\]\(([^)]+\.png)\)", text)
    assert pngs and all(_valid_png((tmp_path / p).read_bytes()) for p in pngs)
    # its PNGs are files of their own: an existing one is not overwritten without --overwrite
    (tmp_path / "r.md").unlink()
    code, _, stderr = run(capsys, "report", tmp_path / "exp", "--out", tmp_path / "r.md")
    assert code == 2 and "r-fig1.png exists" in stderr and not (tmp_path / "r.md").exists()
    (tmp_path / "r-fig9.png").write_bytes(b"an earlier, longer report's figure")
    code, _, stderr = run(capsys, "report", tmp_path / "exp", "--out", tmp_path / "r.md", "--overwrite")
    assert code == 0, stderr
    assert not (tmp_path / "r-fig9.png").exists() and (tmp_path / "r-fig1.png").exists()


def test_report_errors(tmp_path, capsys):
    code, _, stderr = run(capsys, "report", tmp_path / "nothing", "--out", tmp_path / "r.html")
    assert code == 2 and "not a cardsim dataset" in stderr
    assert not (tmp_path / "r.html").exists()


def test_metrics_filter(tmp_path, capsys):
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.format(arm="all").replace("chunk_size = 15000", 'chunk_size = 15000\nmetrics = ["instant_win"]'))
    code, stdout, stderr = run(capsys, "experiment", spec, "--json", "--quiet")
    assert code == 0, stderr
    assert {r["metric"] for r in json.loads(stdout)} == {"instant_win"}
    spec.write_text(SPEC.format(arm="all").replace("chunk_size = 15000", 'chunk_size = 15000\nmetrics = ["charm"]'))
    code, _, stderr = run(capsys, "experiment", spec, "--quiet")
    assert code == 2 and "unknown metric(s) charm" in stderr


def test_means_table():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [0, 0, 1, 1], "name": list("wxyz")})
    table = analysis.means_table(frame)
    assert list(table["metric"]) == ["a", "b"]
    row = table.set_index("metric").loc["a"]
    se = np.std([1, 2, 3, 4], ddof=1) / 2
    assert row["mean"] == 2.5 and row["ci_high"] == pytest.approx(2.5 + 1.959963984540054 * se)


@pytest.mark.parametrize("game", ["tienlen", "tusac", "loba", "continental"])
def test_report_renders_for_every_game(tmp_path, capsys, game):
    n = 200 if game in ("loba", "continental") else 2000
    assert run(capsys, "play", game, "--games", n, "--seed", 1, "--out", tmp_path / "play", "--quiet")[0] == 0
    assert run(capsys, "deal", game, "--deals", 5000, "--seed", 1, "--out", tmp_path / "deal", "--quiet")[0] == 0
    code, _, stderr = run(capsys, "report", tmp_path / "play", tmp_path / "deal", "--out", tmp_path / "r.html")
    assert code == 0, stderr
    parser = _Collector()
    parser.feed((tmp_path / "r.html").read_text())
    assert parser.tables >= 2 and parser.images
    for src in parser.images:
        assert _valid_png(base64.b64decode(src.split(",", 1)[1]))


def test_ladder_report_has_its_table_note_and_skill_trace(tmp_path, capsys):
    assert run(capsys, "ladder", "tienlen", "--policies", "random", "--games", 5, "--seed", 3,
               "--out", tmp_path / "ladder", "--quiet")[0] == 0
    code, _, stderr = run(capsys, "report", tmp_path / "ladder", "--out", tmp_path / "r.html")
    assert code == 0, stderr
    parser = _Collector()
    page = (tmp_path / "r.html").read_text()
    parser.feed(page)
    assert any(h.startswith("tienlen ladder") for h in parser.headings), parser.headings
    assert parser.tables == 1 and len(parser.images) == 1  # the ratings, the skill trace
    assert "score: mean fraction of field seats it finished ahead of" in page
