from __future__ import annotations

import click

from .app import as_of_option, common, emit_json, json_option, main


@main.command()
@as_of_option
@click.option("--final", is_flag=True, help="The campaign is over: an unrevealed Secret roll, secret purchase, chit "
                                            "or hidden fortification, an unanswered fair roll, dice the other side "
                                            "never witnessed are a problem too.")
@json_option
@common
def audit(obj, as_of: str | None, final: bool, as_json: bool) -> None:
    """Replay the whole log and re-check every roll and the hash chain. Exit 1 on any problem."""
    report = obj.ledger().audit(obj.campaign, as_of, final)
    if as_json:
        emit_json({
            "events": report.events,
            "rolls": report.rolls,
            "clean": report.clean,
            "findings": [{"version": f.version, "kind": f.kind, "message": f.message} for f in report.findings],
            "unrevealed": [{"version": v, "table": t, "side": s} for v, t, s in report.unrevealed],
            "pending": [{"version": v, "what": what} for v, what in report.pending],
            "sources": dict(report.sources),
            "unwitnessed": [{"version": v, "what": what} for v, what in report.unwitnessed],
        })
    else:
        for finding in report.findings:
            click.echo(finding.line())
        if not final:
            for version, table, side in report.unrevealed:
                click.echo(f"event {version}: secret roll on {table} by {side} not revealed yet")
            for version, what in report.pending:
                click.echo(f"event {version}: pending: {what}")
            for version, what in report.unwitnessed:
                click.echo(f"event {version}: {what}")
        verdict = "clean" if report.clean else f"{len(report.findings)} problem(s)"
        by_source = ", ".join(f"{n} {source}" for source, n in report.sources)
        click.echo(f"audit: {report.events} events, {report.rolls} rolls re-checked: {verdict}"
                   f"{f' (rolls in force: {by_source})' if by_source else ''}")
    if not report.clean:
        raise SystemExit(1)
