from __future__ import annotations

import click

from . import complete
from .app import as_of_option, common, emit_answer, json_option, main


def _line(name: str, stats: dict | None) -> str:
    if not stats:
        return f"    {name}: none"
    dies = f" (white {stats['mean_white']}, colored {stats['mean_colored']} vs 3.5)" if "mean_white" in stats else ""
    streak = stats["longest_streaks"]
    caution = "" if stats["reliable"] else ", too few rolls for the test"
    return (f"    {name}: {stats['count']}, mean {stats['mean_total']} vs {stats['expected_mean']}{dies}; "
            f"chi-square {stats['chi_square']}, p = {stats['p_value']}{caution}; "
            f"longest streaks high {streak['high']}, low {streak['low']}, same {streak['same']}")


@main.command(name="dice-stats")
@click.option("--side", shell_complete=complete.sides, default=None)
@as_of_option
@json_option
@common
def dice_stats_command(obj, side: str | None, as_of: str | None, as_json: bool) -> None:
    """Each side's dice over the whole campaign, per source (ledger, entered, vasl); undone rolls apart; VASL
    rolls per scenario (each imported file), per player and per category."""
    def compute(ledger) -> dict:
        stats, rules, _state = ledger.dice_stats_of(obj.campaign, side, as_of)
        return {"stats": stats, "sides": dict(rules.system.sides)}

    answer = obj.answer("dice-stats", (side,), compute, as_of)
    stats = answer["stats"]
    if as_json:
        emit_answer(stats)
        return
    names = {**answer["sides"], "unassigned": "unassigned"}
    for title, groups in (("in force", stats["groups"]), ("undone (voided by undo or rewind)", stats["undone"])):
        click.echo(f"Rolls {title}:")
        if not groups:
            click.echo("  none")
        for group in groups:
            click.echo(f"  {names.get(group['side'], group['side'])}, {group['source']}:")
            click.echo(_line("DR", group["DR"]))
            click.echo(_line("dr", group["dr"]))
            click.echo("    per table: " + ", ".join(f"{t} {n}" for t, n in group["tables"].items()))
    _vasl(stats["vasl"], names)


def _brief(stats: dict) -> str:
    parts = []
    for die in ("DR", "dr"):
        s = stats.get(die)
        if s:
            parts.append(f"{die} {s['count']}, mean {s['mean_total']}" + ("" if not s["reliable"] else
                                                                        f", p = {s['p_value']}"))
    return "; ".join(parts) or "none"


def _vasl(vasl: dict, names: dict) -> None:
    """The VASL rolls per scenario (each imported file), per player and per category."""
    if not vasl["scenarios"]:
        return
    click.echo("VASL dice per scenario (each imported file):")
    for scenario in vasl["scenarios"]:
        date = f"{scenario['cg_date']}  " if scenario["cg_date"] else ""
        click.echo(f"  {date}{scenario['file']}: {scenario['reports']} reports; {_brief(scenario)}")
        for player, stats in scenario["players"].items():
            click.echo(f"    <{player}>: {_brief(stats)}")
    click.echo("VASL dice per player (whole campaign):")
    for player, stats in vasl["players"].items():
        sides = ", ".join(names.get(s, s) for s in stats["sides"])
        click.echo(f"  <{player}> ({sides}): {_brief(stats)}")
        click.echo(_line("DR", stats["DR"]) if stats["DR"] else "    DR: none")
        click.echo(_line("dr", stats["dr"]) if stats["dr"] else "    dr: none")
    click.echo("VASL dice per category (whole campaign):")
    for category, stats in vasl["categories"].items():
        click.echo(f"  {category or '(none)'}: {_brief(stats)}")
    for key, title in (("dust_die", "Dust die"), ("rof_die", "ROF die")):
        if vasl[key]:
            click.echo(f"  {title}: {vasl[key]['count']}, mean {vasl[key]['mean_total']} vs 3.5")
