"""`serve`'s page: Starlette routes over the same commands as the CLI (cli/web/runner.py), Jinja2 templates, and
the live watcher. Every form is a cgledger command line; its refusal is the CLI's one line, and nothing is written."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import tempfile
import uuid
from collections import OrderedDict
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from . import forms, pages
from .guard import Guard, allowed_hosts
from .live import Watcher
from .runner import Outcome, Runner

HERE = Path(__file__).resolve().parent


class Page:
    """What the routes share: the runner, the watcher, the outcomes shown after a form, the turn's folders."""

    def __init__(self, runner: Runner, outbox: Path | None = None, inbox: Path | None = None):
        self.runner, self.outbox, self.inbox = runner, outbox, inbox
        # bundles to download, uploads, maps: removed when the server stops (or this page is gone, or Python exits)
        self._work = tempfile.TemporaryDirectory(prefix="cgledger-serve-", ignore_cleanup_errors=True)
        self.work = Path(self._work.name)
        self.outcomes: OrderedDict[str, Outcome] = OrderedDict()
        self.templates = Jinja2Templates(directory=str(HERE / "templates"))
        self.templates.env.globals.update(template=forms.template, fixed=forms.fixed, button_label=forms.label,
                                          new_id=lambda: str(uuid.uuid4()))
        self.watcher: Watcher | None = None
        self.audits: dict = {}  # (head, final) -> the audit's report of the log at that head

    def said(self, outcome: Outcome) -> str:
        key = secrets.token_urlsafe(8)
        self.outcomes[key] = outcome
        while len(self.outcomes) > 64:
            self.outcomes.popitem(last=False)
        return key

    def render(self, request: Request, name: str, **context) -> HTMLResponse:
        outcome = self.outcomes.get(request.query_params.get("said", ""))
        context.setdefault("status", None)
        return self.templates.TemplateResponse(request, name, {
            "csrf": request.scope["state"]["csrf"], "outcome": outcome, "path": request.url.path,
            "version": self.watcher.version if self.watcher else 0, "live": self.watcher is not None,
            "listening": bool(self.watcher and self.watcher.listening),
            "campaign": self.runner.campaign, **context})

    def after(self, request: Request, outcome: Outcome, back: str) -> Response:
        """Post/redirect/get: the page the form came from, with what the command said."""
        if self.watcher is not None and outcome.words:
            self.watcher.sync()
        if not back.startswith("/") or back.startswith("//"):
            back = "/"
        back = back.split("?", 1)[0] + (("?" + back.split("?", 1)[1] + "&") if "?" in back else "?")
        return RedirectResponse(f"{back}said={self.said(outcome)}", 303)


async def checked_form(request: Request):
    form = await request.form()
    if not secrets.compare_digest(str(form.get("csrf", "")), request.scope["state"]["csrf"]):
        return None
    return form


def create_app(runner: Runner, token: str, host: str, port: int, outbox: Path | None = None,
               inbox: Path | None = None, live: bool = True) -> Starlette:
    page = Page(runner, outbox, inbox)

    async def act(request: Request) -> Response:
        """One command line from a form: `line` (an offered line, its holes filled with `value`) or `words`."""
        form = await checked_form(request)
        if form is None:
            return HTMLResponse("the form's token is missing or stale: reload the page", 403)
        back = str(form.get("back", "/"))
        try:
            words = pages.words_of(form)
        except ValueError as e:
            return page.after(request, Outcome([], error=str(e)), back)
        if form.get("confirm_needed") and not form.get("confirm"):
            return page.after(request, Outcome(words, error="tick the box to confirm: this takes records back"), back)
        outcome = await asyncio.to_thread(runner.run, words, str(form.get("command_id") or "") or None, True)
        return page.after(request, outcome, back)

    async def upload(request: Request) -> Response:
        """A file from the player's machine for a command that reads one (receive, rules load, vasl-import)."""
        form = await checked_form(request)
        if form is None:
            return HTMLResponse("the form's token is missing or stale: reload the page", 403)
        back = str(form.get("back", "/"))
        verb = str(form.get("verb", ""))
        files = [f for f in form.getlist("file") if getattr(f, "filename", "")]
        use_inbox = verb == "receive" and form.get("inbox") and page.inbox is not None
        if not files and not use_inbox:
            return page.after(request, Outcome([verb], error="choose a file to send to the ledger"), back)
        paths = []
        for item in files:
            folder = Path(tempfile.mkdtemp(dir=page.work))
            path = folder / Path(item.filename).name
            path.write_bytes(await item.read())
            paths.append(str(path))
        words = {"receive": ["receive", "--inbox", str(page.inbox)] if use_inbox else ["receive", *paths[:1]],
                 "rules": ["rules", "load", *paths[:1]], "vasl-import": ["vasl-import", *paths]}.get(verb)
        if words is None:
            return page.after(request, Outcome([verb], error=f"'{verb}' takes no file from the page"), back)
        outcome = await asyncio.to_thread(runner.run, words, str(form.get("command_id") or "") or None)
        return page.after(request, outcome, back)

    async def send(request: Request) -> Response:
        """The email turn's Send: the bundle written to the outbox folder, or kept here to download."""
        form = await checked_form(request)
        if form is None:
            return HTMLResponse("the form's token is missing or stale: reload the page", 403)
        use_outbox = page.outbox is not None and form.get("outbox")
        folder = page.outbox if use_outbox else Path(tempfile.mkdtemp(dir=page.work))  # else kept here to download
        words = ["send", "--outbox", str(folder), "--json"]  # named as the outbox names turns: they sort in order
        outcome = await asyncio.to_thread(runner.run, words)
        return page.after(request, outcome, "/turn")

    async def bundle(request: Request) -> Response:
        path = Path(request.query_params.get("file", ""))
        folders = [page.work] + ([page.outbox] if page.outbox is not None else [])  # the bundles this server wrote
        try:
            inside = any(path.resolve().is_relative_to(f.resolve()) for f in folders) and path.is_file() \
                and path.name.endswith(".json")
        except OSError:
            inside = False
        if not inside:
            return HTMLResponse("no such bundle", 404)
        return FileResponse(path, filename=path.name, media_type="application/json")

    async def events(request: Request) -> Response:
        """Server-sent events: `changed` whenever the log moved (the page reloads itself)."""
        since = int(request.query_params.get("v", "0") or 0)

        async def stream():
            nonlocal since
            yield ": connected\n\n"
            beat = 0
            while not await request.is_disconnected():  # no thread held while waiting: pages are many, threads few
                if page.watcher.version != since:
                    since = page.watcher.version
                    yield f"event: changed\ndata: {since}\n\n"
                await asyncio.sleep(0.25)
                beat += 1
                if beat % 60 == 0:
                    yield ": still here\n\n"

        if page.watcher is None:
            return Response(status_code=204)
        return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})

    routes = [Route(path, pages.handler(page, view)) for path, view in pages.VIEWS.items()] + [
        Route("/do", act, methods=["POST"]),
        Route("/upload", upload, methods=["POST"]),
        Route("/send", send, methods=["POST"]),
        Route("/bundle", bundle),
        Route("/events", events),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app):
        if live:
            page.watcher = Watcher(runner).start()
        yield
        if page.watcher is not None:
            page.watcher.stop()
        page._work.cleanup()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.page = page
    return Guard(app, token, allowed_hosts(host, port))
