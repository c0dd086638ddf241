from __future__ import annotations

import click

from .app import as_of_option, common, emit_answer, json_option, main


@main.command(name="date")
@as_of_option
@json_option
@common
def show_date(obj, as_of: str | None, as_json: bool) -> None:
    """Show the campaign's CG and current CG Date."""
    def compute(ledger) -> dict:
        state, _rules = ledger.state_as_of(obj.campaign, as_of)
        return {"campaign": state.name, "system": state.system, "cg": state.cg, "cg_date": state.cg_date,
                "flags": state.flags}

    data = obj.answer("date", (), compute, as_of)
    if as_json:
        emit_answer(data)
        return
    flags = f" ({', '.join(data['flags'])})" if data["flags"] else ""
    click.echo(f"{data['campaign']}: {data['system'].upper()} CG {data['cg']}, CG Date {data['cg_date']}{flags}")
