"""`cgledger serve`: the campaign in the browser, on this machine. The page runs the CLI's own command lines, so
it stands above the CLI: this command is registered by name (cli.COMMANDS), its module imported when it runs."""

from __future__ import annotations

import secrets
from pathlib import Path

import click

from ..app import common, main


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on: this machine only by default (the page holds your key's power).")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535),
              help="Port (0: any free one).")
@click.option("--outbox", type=click.Path(file_okay=False, path_type=Path), envvar="CGLEDGER_OUTBOX",
              help="Send writes your turn's bundle into this folder (a synced folder is a mailbox).")
@click.option("--inbox", type=click.Path(file_okay=False, path_type=Path), envvar="CGLEDGER_INBOX",
              help="Receive reads the new bundles in this folder.")
@click.option("--no-browser", is_flag=True, help="Do not open the browser; only print the page's URL.")
@click.option("--no-live", is_flag=True, help="Pages do not reload themselves when the log moves.")
@click.option("--token", envvar="CGLEDGER_SERVE_TOKEN", hidden=True, help="The page's token (default: a new random one).")
@common
def serve(obj, host: str, port: int, outbox: Path | None, inbox: Path | None, no_browser: bool, no_live: bool,
          token: str | None) -> None:
    """Play in your browser: a page on this machine over the same ledger (127.0.0.1; the URL it prints carries the
    page's token). Your passphrase (CGLEDGER_PASSPHRASE) or key file (--key-file) is read once and stays in this
    process: the page shows what your side may see, and runs the same commands as the CLI."""
    import socket

    import uvicorn

    from cgledger.ledger.store.database import resolve_db

    from .app import create_app
    from .runner import Runner

    material = obj.key_material()
    runner = Runner(resolve_db(obj.db), obj.campaign, material, obj.seed)
    token = token or secrets.token_urlsafe(24)
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        raise click.ClickException(f"cannot listen on {host}:{port}: {e.strerror}") from None
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/?token={token}"
    app = create_app(runner, token, host, port, outbox, inbox, live=not no_live)
    who = "with your key" if material is not None else "without a key (one table: no side's secrets opened)"
    click.echo(f"cgledger page for {runner.db} {who}:\n  {url}\n(Ctrl-C stops it)", err=False)
    if not no_browser:
        import webbrowser

        webbrowser.open(url)
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1, lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])
