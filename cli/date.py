from __future__ import annotations

import click

from .app import as_of_option, common, emit_json, json_option, main


@main.command(name="date")
@as_of_option
@json_option
@common
def show_date(obj, as_of: str | None, as_json: bool) -> None:
    """Show the campaign's CG and current CG Date."""
    state, _rules = obj.ledger().state_as_of(obj.campaign, as_of)
    data = {"campaign": state.name, "system": state.system, "cg": state.cg, "cg_date": state.cg_date,
            "flags": state.flags}
    if as_json:
        emit_json(data)
        return
    flags = f" ({', '.join(state.flags)})" if state.flags else ""
    click.echo(f"{state.name}: {state.system.upper()} CG {state.cg}, CG Date {state.cg_date}{flags}")
