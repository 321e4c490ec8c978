"""Report sections of studies over several tables: an experiment (arms, differences, a
sweep), a balance card and a tune race."""
from __future__ import annotations

import html
import json
from pathlib import Path

import numpy as np
import pandas as pd

from cardsim.analysis.compare import load_comparison
from cardsim.analysis.report_figures import _dots, _Figures, _plt
from cardsim.analysis.report_tables import TABLE_NOTES, _render_table, _rules_text
from cardsim.simcore.framework.config import ConfigError, rule_text


def experiment_info(path: Path) -> dict:
    """An experiment directory's ``experiment.json`` (empty when there is none)."""
    import json

    file = path / "experiment.json"
    return json.loads(file.read_text()) if file.is_file() else {}


def _arms_table(info: dict) -> pd.DataFrame:
    """Per arm, the rules and options it changes from the baseline arm (the first); with
    ``policies`` (strengths) the seats' policies are the strength's, not the arms'."""
    arms = info.get("arms") or []
    if not arms:
        return pd.DataFrame()
    base_rules, base_options = arms[0].get("rules", {}), arms[0].get("options", {})
    overridden = ("policy", "policies") if info.get("policies") else ()
    rows = []
    for k, arm in enumerate(arms):
        rules, options = arm.get("rules", {}), arm.get("options", {})
        changed = [f"{key} = {rule_text(v)}" for key, v in rules.items() if base_rules.get(key) != v]
        changed += [f"{key} = {rule_text(v)}" for key, v in options.items()
                    if base_options.get(key) != v and key not in overridden]
        rows.append({"arm": arm.get("name", str(k)),
                     "changes from the baseline": "(baseline)" if k == 0 else "; ".join(changed) or "(none)"})
    return pd.DataFrame(rows)


def _experiment_section(path: Path, figures: _Figures, fmt: str) -> list[str]:
    """What the experiment compares (arms and what each changes), a sweep's answer (each
    metric against the swept value) where there is one, the comparison table, then the
    differences with intervals: one panel per unit (rates, points, counts ...) so that
    effects of different sizes stay readable."""
    plt = _plt()
    table = load_comparison(path)
    info = experiment_info(path)
    parts = []
    if info:
        baseline = (info.get("arms") or [{}])[0].get("name", "baseline")
        description = (info.get("description") or "").strip().rstrip(".")
        line = (f"{description + '. ' if description else ''}{info.get('game')} {info.get('task')}; "
                f"baseline arm {baseline!r}; n = {info.get('n', 0):,} per arm; seed {info.get('seed')}. "
                f"Differences are arm − baseline on the same deals, with paired 95% intervals.")
        parts.append(line if fmt == "md" else f"<p>{html.escape(line)}</p>")
        arms = _arms_table(info)
        if len(arms):
            parts.append(_render_table(arms, fmt))
    if (path / "sweep.parquet").is_file():  # a sweep's answer before its arm-by-arm differences
        parts += _sweep_section(path, figures, fmt)
    unit_of = _unit_lookup(info.get("game"), info.get("task", "play"))
    units = [unit_of(m) for m in table["metric"]]
    shown = table.copy()
    shown.insert(list(shown.columns).index("metric") + 1, "unit", units)
    parts.append(_render_table(shown, fmt, TABLE_NOTES["experiment"]))
    for unit in dict.fromkeys(units):
        rows = table[[u == unit for u in units]]
        parts.append(_difference_figure(plt, figures, rows, f"differences ({unit})"))
    if "strength" in table:
        from cardsim.analysis.compare import robustness

        tests = pd.read_parquet(path / "interaction.parquet") if (path / "interaction.parquet").is_file() else None
        parts.append(_render_table(robustness(table, tests)[["metric", "arm", "verdict"]], fmt))
    return parts


def _unit_lookup(game, task):
    try:
        from cardsim.simcore.framework.registry import get_spec

        return get_spec(str(game)).metric_spec(task).unit_of
    except (ConfigError, KeyError, TypeError):
        return lambda metric: "rate" if not metric.startswith("points") else "points"


def _difference_figure(plt, figures, shown: pd.DataFrame, title: str) -> str:
    fig, ax = plt.subplots(figsize=(7, 0.32 * len(shown) + 1.2))
    y = np.arange(len(shown))
    ax.errorbar(shown["difference"], y + 0.15, xerr=[shown["difference"] - shown["unpaired_ci_low"],
                                                      shown["unpaired_ci_high"] - shown["difference"]],
                fmt="o", color="grey", ms=3, capsize=2, label="unpaired 95% CI")
    ax.errorbar(shown["difference"], y - 0.15, xerr=[shown["difference"] - shown["ci_low"],
                                                      shown["ci_high"] - shown["difference"]],
                fmt="o", color="tab:red", ms=3, capsize=2, label="paired 95% CI (same deals)")
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y)
    labels = shown["arm"] + (" @ " + shown["strength"].astype(str) if "strength" in shown else "")
    ax.set_yticklabels([f"{m} [{a}]" for m, a in zip(shown["metric"], labels)], fontsize=7)
    ax.set_ylim(len(shown) - 0.5, -0.5)  # top to bottom; a lone row's intervals not on the frame
    ax.set_xlabel("arm − baseline")
    ax.set_title(title, fontsize=9, pad=16)
    # just above the axes, under the title: inside, the legend box would hide the top rows' intervals
    ax.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False, borderaxespad=0.1)
    return figures.add(fig, title)


def _sweep_section(path: Path, figures: _Figures, fmt: str) -> list[str]:
    """Each metric against the swept value as dots with 95% error bars (one panel per metric,
    one colour per strength), then the table."""
    plt = _plt()
    sweep = pd.read_parquet(path / "sweep.parquet")
    switch = str(sweep["switch"].iloc[0]) if len(sweep) else "value"
    shown = sweep.drop(columns="switch").rename(columns={"value": switch})  # "players = 3", not a number
    metrics = list(dict.fromkeys(sweep["metric"]))
    strengths = list(dict.fromkeys(sweep["strength"])) if "strength" in sweep else [None]
    cols = min(3, len(metrics))
    rows = -(-len(metrics) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.8 * rows), squeeze=False)  # page-wide at most
    for ax, metric in zip(axes.flat, metrics):
        for k, strength in enumerate(strengths):
            sel = sweep[(sweep["metric"] == metric) & ((sweep["strength"] == strength) if strength else True)]
            x = np.arange(len(sel))
            err = np.vstack([sel["estimate"] - sel["ci_low"], sel["ci_high"] - sel["estimate"]]).clip(min=0)
            ax.errorbar(x + (k - (len(strengths) - 1) / 2) * 0.08, sel["estimate"], yerr=err, fmt="o-", ms=4,
                        lw=0.8, capsize=3, color=f"C{k}", label=strength or None)
            ax.set_xticks(x)
            ax.set_xticklabels(sel["value"])
        ax.set_title(metric, fontsize=9)
        ax.set_xlabel(str(sweep["switch"].iloc[0]))
        ax.set_ylabel(sweep[sweep["metric"] == metric]["unit"].iloc[0])
        if strengths[0] is not None:
            ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(metrics):]:
        ax.axis("off")
    fig.tight_layout()
    return [figures.add(fig, "each metric against the swept value (95% CI)"),
            _render_table(shown, fmt, TABLE_NOTES["sweep"])]


def _balance_section(path: Path, figures: _Figures, fmt: str) -> list[str]:
    """The balance card: with compared rules the paired differences first (the answer of a
    comparison), then the answers at a glance (seat win rates, luck and skill shares per
    strength, the ladder), then the headline table and every figure."""
    from cardsim.analysis.balance import headline

    plt = _plt()
    meta = json.loads((path / "balance.json").read_text())
    card = pd.read_parquet(path / "card.parquet")
    shown = card[card["rules"] != "difference"] if "rules" in card else card.assign(rules="base")
    several = shown["rules"].nunique() > 1
    parts = [_rules_text(meta["rules"], fmt)]
    if "compare_rules" in meta:
        changed = {k: v for k, v in meta["compare_rules"].items() if meta["rules"].get(k) != v}
        parts.append(_rules_text(changed, fmt).replace("Rules:", "Compared with:"))
    if "rules" in card:  # the answer of a comparison first: what the changed rules change (on a phone too)
        differences = headline(card[card["rules"] == "difference"]).drop(columns="rules")
        parts.append(_render_table(differences.rename(columns={"value": "difference"}), fmt,
                                   "at a glance, the differences: compared rules − base rules on the same deals "
                                   "(paired bootstrap 95% interval)"))
    players = int(meta["players"])

    # seat balance across the top, luck/skill and the skill trace under it: about as wide as the
    # page, so that its text is not shrunk below the page's own
    fig = plt.figure(figsize=(9.5, 7.2))
    grid = fig.add_gridspec(2, 2)
    axes = [fig.add_subplot(grid[0, :]), fig.add_subplot(grid[1, 0]), fig.add_subplot(grid[1, 1])]
    seats = shown[(shown["metric"] == "win_rate") & shown["group"].str.startswith("seat ")].copy()
    seats["label"] = seats["group"]
    seats["series"] = seats["strength"] + (" (" + seats["rules"] + ")" if several else "")
    _dots(axes[0], seats, [f"seat {s}" for s in range(players)], "series")
    axes[0].axhline(1.0 / players, color="0.5", lw=0.8, ls="--")
    axes[0].set_ylabel("win rate (95% CI)")
    axes[0].set_title("seat balance: each strength alone at the table", fontsize=9)
    axes[0].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # beside the dots, not on them
    field = meta["field"]
    # the one-seat-against-the-field figures only (not the --mix or --pairs tables)
    shares = shown[shown["metric"].isin(["luck_share", "skill_share"])
                   & (shown["group"] == shown["strength"] + f" vs {field}")].copy()
    shares["label"] = shares["strength"] + (" (" + shares["rules"] + ")" if several else "")
    labels = list(dict.fromkeys(shares["label"]))
    shares["series"] = shares["metric"]
    if len(shares):
        _dots(axes[1], shares, labels, "series")
        axes[1].legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)
    axes[1].set_ylim(bottom=-0.02)  # a share at 0 shows its whole dot
    axes[1].set_ylabel("share of a win's variance")
    axes[1].set_title(f"luck and skill: one strength among {meta['field']}", fontsize=9, pad=18)
    ratings = shown[(shown["metric"] == "elo") & (shown["group"] == f"1 seat vs {field}")].copy()
    ratings["label"] = ratings["strength"]
    ratings["series"] = ratings["rules"]
    field_row = {"metric": "elo", "strength": meta["field"], "label": meta["field"], "value": 0.0, "ci_low": 0.0,
                 "ci_high": 0.0}
    ratings = pd.concat([ratings, pd.DataFrame([dict(field_row, rules=r, series=r)
                                                for r in dict.fromkeys(shown["rules"])])], ignore_index=True)
    ratings = ratings.sort_values("value", kind="stable")
    _dots(axes[2], ratings, list(dict.fromkeys(ratings["label"])), "series")
    axes[2].axhline(0, color="0.5", lw=0.8, ls="--")
    axes[2].set_ylabel("rating vs the field (Elo, 95% CI)")
    axes[2].set_title("skill trace: the strengths against the field", fontsize=9, pad=18 if several else None)
    if several:
        axes[2].legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)
    for ax in axes[1:]:
        ax.tick_params(axis="x", labelrotation=15)
    fig.tight_layout()
    parts.append(figures.add(fig, "the balance card at a glance"))
    note = TABLE_NOTES["balance"]
    parts.append(_render_table(headline(card), fmt, note))
    parts.append(_render_table(card, fmt))
    return parts


def _tune_section(path: Path, figures: _Figures, fmt: str) -> list[str]:
    """A tune race: each candidate's objectives with 95% intervals (survivors in colour,
    the eliminated in grey; with two objectives one against the other and the Pareto set),
    then the ranked table and the race round by round."""
    plt = _plt()
    meta = json.loads((path / "tune.json").read_text())
    table = pd.read_parquet(path / "candidates.parquet")
    names = [o.rpartition(":")[0] for o in meta["objectives"]]
    line = (f"{meta['candidates']} candidates; {meta['games_played']:,} games played (a full grid at the "
            f"finalists' deals: {meta['grid_games_at_final_deals']:,}); objectives {', '.join(meta['objectives'])}"
            + (f"; constraints {', '.join(meta['constraints'])}" if meta["constraints"] else ""))
    racing = table["status"] == "racing"
    best = table.sort_values("rank").iloc[0] if len(table) else None
    if best is not None:  # the answer first: the best estimate and who is still in
        line = (f"Best estimate: {best['candidate']}; {int(racing.sum())} of {len(table)} candidates not ruled "
                f"out" + (f" (Pareto set: {', '.join(table.loc[racing & table['pareto'], 'candidate'])})"
                          if len(names) >= 2 and "pareto" in table else "") + ". " + line)
    parts = [line if fmt == "md" else f"<p>{html.escape(line)}</p>"]
    if len(names) >= 2:
        fig, ax = plt.subplots(figsize=(6.5, 4.2))
        x, y = names[0], names[1]
        for mask, colour, label in ((~racing, "0.6", "left the race"), (racing & ~table["pareto"], "tab:blue",
                                                                        "not ruled out"),
                                    (racing & table["pareto"], "tab:red", "Pareto set")):
            rows = table[mask]
            if len(rows):
                ax.errorbar(rows[x], rows[y], xerr=[rows[x] - rows[f"{x}_ci_low"], rows[f"{x}_ci_high"] - rows[x]],
                            yerr=[rows[y] - rows[f"{y}_ci_low"], rows[f"{y}_ci_high"] - rows[y]], fmt="o", ms=4,
                            capsize=2, color=colour, label=label)
                for rank, at_x, at_y in zip(rows["rank"], rows[x], rows[y]):  # which dot is which: its rank
                    ax.annotate(str(rank), (at_x, at_y), xytext=(3, 3), textcoords="offset points", fontsize=8,
                                color=colour)
        ax.set_xlabel(meta["objectives"][0])
        ax.set_ylabel(meta["objectives"][1])
        ax.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False)
        ax.set_title("candidates (95% CI), numbered by rank", fontsize=9, pad=18)
    else:
        fig, ax = plt.subplots(figsize=(7, 0.3 * len(table) + 1.2))
        ys = np.arange(len(table))
        for mask, colour, label in ((~racing, "0.6", "left the race"), (racing, "tab:red", "not ruled out")):
            rows = table[mask]
            if not len(rows):  # no legend entry for nobody
                continue
            ax.errorbar(rows[names[0]], ys[mask.to_numpy()], xerr=[(rows[names[0]] - rows[f"{names[0]}_ci_low"]).clip(
                lower=0), (rows[f"{names[0]}_ci_high"] - rows[names[0]]).clip(lower=0)], fmt="o", ms=4, capsize=2,
                        color=colour, label=label)
        ax.set_yticks(ys)
        ax.set_yticklabels(table["candidate"], fontsize=7)
        ax.set_ylim(len(table) - 0.5, -0.5)  # best at the top; no dot on the frame
        ax.set_xlabel(f"{meta['objectives'][0]} (95% CI over each candidate's own deals)")
        ax.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)
        ax.set_title("candidates, best first", fontsize=9, pad=18)
    parts.append(figures.add(fig, "the candidates and their objectives", caption=False))
    if "round_out" in table:  # -1 marks "still racing": printed blank, not as a round
        table = table.assign(round_out=table["round_out"].where(table["round_out"] >= 0))
    parts.append(_render_table(table, fmt, "status racing: survived the race (rank 1 is the best estimate); "
                                           "round out, reason: when and why a candidate left"))
    if (path / "rounds.parquet").is_file():
        parts.append(_render_table(pd.read_parquet(path / "rounds.parquet"), fmt, "the race round by round"))
    return parts
