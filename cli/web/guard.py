"""What keeps the page the player's own: a random token in the URL printed at start (kept as a cookie, as notebook
servers do), the Host header checked (no DNS rebinding), and a form token plus a same-origin check on every form
(no cross-site request). A refused request writes nothing: it never reaches a command."""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import urlsplit

from starlette.responses import PlainTextResponse, RedirectResponse

COOKIE = "cgledger_token"


class Guard:
    """ASGI middleware in front of every route."""

    def __init__(self, app, token: str, hosts: set[str]):
        self.app, self.token, self.hosts = app, token, {h.lower() for h in hosts}

    @property
    def csrf(self) -> str:
        """The form token: derived from the page's token, so it is only on pages its holder loaded."""
        return hmac.new(self.token.encode(), b"cgledger form", hashlib.sha256).hexdigest()[:32]

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "").lower()
        if host not in self.hosts:  # a page of another site that resolved its name to 127.0.0.1
            return await PlainTextResponse(f"unknown Host '{host}': open the URL cgledger serve printed", 400)(
                scope, receive, send)
        query = dict(part.split("=", 1) for part in scope.get("query_string", b"").decode().split("&") if "=" in part)
        cookies = _cookies(headers.get("cookie", ""))
        if "token" in query:
            if not hmac.compare_digest(query["token"], self.token):
                return await PlainTextResponse("wrong token: open the URL cgledger serve printed", 403)(
                    scope, receive, send)
            response = RedirectResponse(scope["path"], 303)  # the token leaves the address bar and the history
            response.set_cookie(COOKIE, self.token, httponly=True, samesite="strict")
            return await response(scope, receive, send)
        if not hmac.compare_digest(cookies.get(COOKIE, ""), self.token):
            if scope["path"].startswith("/static/"):
                return await self.app(scope, receive, send)
            return await PlainTextResponse("this page is private to its player: open the URL cgledger serve printed "
                                           "(it carries the token)", 403)(scope, receive, send)
        if scope["method"] not in ("GET", "HEAD"):
            origin = headers.get("origin") or headers.get("referer")
            if origin and urlsplit(origin).netloc.lower() not in self.hosts:
                return await PlainTextResponse("a form from another site is refused", 403)(scope, receive, send)
            if headers.get("sec-fetch-site") not in (None, "same-origin", "none"):
                return await PlainTextResponse("a form from another site is refused", 403)(scope, receive, send)
        scope.setdefault("state", {})["csrf"] = self.csrf
        return await self.app(scope, receive, send)


def _cookies(header: str) -> dict[str, str]:
    out = {}
    for part in header.split(";"):
        if "=" in part:
            key, value = part.strip().split("=", 1)
            out[key] = value
    return out


def allowed_hosts(host: str, port: int) -> set[str]:
    """The Host headers a browser sends for this server: the address it is bound to, and loopback's names."""
    names = {host, "127.0.0.1", "localhost", "[::1]"} if host in ("127.0.0.1", "localhost", "::1") else {host}
    return {f"{'[' + n + ']' if ':' in n and not n.startswith('[') else n}:{port}" for n in names}
