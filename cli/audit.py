from __future__ import annotations

import click

from .app import as_of_option, common, emit_json, json_option, main


@main.command()
@as_of_option
@click.option("--final", is_flag=True, help="The campaign is over: an unrevealed Secret roll, secret purchase, chit "
                                            "or hidden fortification, an unanswered fair roll, dice the other side "
                                            "never witnessed are a problem too.")
@click.option("--fast", is_flag=True, help="Trust what this machine already verified: check only the events past it "
                                           "(digest, chain, author, signature) and that none it saw is gone; "
                                           "decisions are not re-run.")
@click.option("--kept", is_flag=True, hidden=True,
              help="Carry on the audit this process kept of the log (the page's server): only the events stored since "
                   "it last audited the log are decided again.")
@json_option
@common
def audit(obj, as_of: str | None, final: bool, fast: bool, kept: bool, as_json: bool) -> None:
    """Replay the whole log and re-check every roll and the hash chain. Exit 1 on any problem."""
    if fast:
        if final or as_of:
            raise click.UsageError("--fast checks the log as it is now: --final and --as-of need the whole audit")
        return _fast(obj, as_json)
    report = obj.ledger().verification.audit(obj.campaign, as_of, final, kept)
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
                what = f"on {table}" if table else "for an RG bought in secret"  # veiled: its table sealed too
                click.echo(f"event {version}: the {obj.side_name(side)} side's Secret roll {what}, not revealed yet")
            for version, what in report.pending:
                click.echo(f"event {version}: pending: {what}")
            for version, what in report.unwitnessed:
                click.echo(f"event {version}: {what}")
        verdict = "clean" if report.clean else f"{len(report.findings)} problem(s)"
        by_source = ", ".join(f"{n} {source}" for source, n in report.sources)
        click.echo(f"audit: {report.events} events, {report.rolls} roll{'' if report.rolls == 1 else 's'} re-checked: "
                   f"{verdict}"
                   f"{f' (rolls in force: {by_source})' if by_source else ''}")
    if not report.clean:
        raise SystemExit(1)


def _fast(obj, as_json: bool) -> None:
    verified = obj.ledger().verification.fast(obj.campaign)
    checked = verified.events - verified.trusted
    if as_json:
        emit_json({
            "events": verified.events,
            "clean": verified.clean,
            "findings": [{"version": f.version, "kind": f.kind, "message": f.message} for f in verified.findings],
            "fast": True,
            "trusted": verified.trusted,
            "checked": checked,
            "mark_broken": verified.broken,
        })
    else:
        for finding in verified.findings:
            click.echo(finding.line())
        if verified.broken:
            click.echo("the log no longer extends what this machine verified before: every event checked again")
        before = f"events 1-{verified.trusted} verified on this machine before, " if verified.trusted else ""
        now = f"{checked} checked now" if checked else "none new"
        verdict = "clean" if verified.clean else f"{len(verified.findings)} problem(s)"
        click.echo(f"audit --fast: {verified.events} events ({before}{now}: digest, chain, author, signature): "
                   f"{verdict}. Rolls and purchases are not re-decided: `cgledger audit` does the whole check")
    if not verified.clean:
        raise SystemExit(1)
