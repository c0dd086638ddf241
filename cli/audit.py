from __future__ import annotations

import click

from .app import as_of_option, common, emit_json, json_option, main


@main.command()
@as_of_option
@json_option
@common
def audit(obj, as_of: str | None, as_json: bool) -> None:
    """Replay the whole log and re-check every roll and the hash chain. Exit 1 on any problem."""
    report = obj.ledger().audit(obj.campaign, as_of)
    if as_json:
        emit_json({
            "events": report.events,
            "rolls": report.rolls,
            "clean": report.clean,
            "findings": [{"version": f.version, "kind": f.kind, "message": f.message} for f in report.findings],
            "unrevealed": [{"version": v, "table": t, "side": s} for v, t, s in report.unrevealed],
        })
    else:
        for finding in report.findings:
            click.echo(finding.line())
        for version, table, side in report.unrevealed:
            click.echo(f"event {version}: secret roll on {table} by {side} not revealed yet")
        verdict = "clean" if report.clean else f"{len(report.findings)} problem(s)"
        click.echo(f"audit: {report.events} events, {report.rolls} rolls re-checked: {verdict}")
    if not report.clean:
        raise SystemExit(1)
