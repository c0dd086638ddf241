"""Playing through `cgledger serve` in a real browser: the server as a real subprocess (its own passphrase, its own
database), Debian's Chromium driven by Selenium, one browser per player. What a player does is what he clicks and
types on the page; every refusal shows as the page's one line, which fails the step here."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
needs_browser = pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="Chromium and chromedriver (bash .ci/chromium)")


class Server:
    """`cgledger --db DB serve` as the player starts it, on a free port, with his passphrase in its environment."""

    def __init__(self, db, passphrase: str | None, outbox: Path | None = None, inbox: Path | None = None,
                 token: str = "test-token-not-secret"):
        env = {**os.environ, "CGLEDGER_SERVE_TOKEN": token}
        env.pop("CGLEDGER_PASSPHRASE", None)
        if passphrase:
            env["CGLEDGER_PASSPHRASE"] = passphrase
        self.db, self.passphrase = db, passphrase
        args = [str(Path(sys.executable).parent / "cgledger"), "--db", str(db), "serve", "--no-browser", "--port", "0"]
        args += ["--outbox", str(outbox)] if outbox else []
        args += ["--inbox", str(inbox)] if inbox else []
        args += ["--no-live"] if os.environ.get("NOLIVE") else []
        import tempfile

        self.log = Path(tempfile.mkstemp(prefix="serve-", suffix=".log")[1])  # its stderr, shown when a step fails
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log.open("w"), text=True, env=env,
                                        cwd=Path(__file__).resolve().parent.parent)
        self.url = ""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not self.url:
            line = self.process.stdout.readline()
            if not line:
                break
            if "?token=" in line:
                self.url = line.strip()
        if not self.url:
            self.stop()
            raise AssertionError(f"serve did not start: {self.log.read_text()}")
        self.base = self.url.split("/?", 1)[0]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()


def chrome(width: int = 1400, height: int = 1000):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", f"--window-size={width},{height}"):
        options.add_argument(arg)
    options.binary_location = CHROMIUM
    return webdriver.Chrome(service=Service(DRIVER), options=options)


def again(act):
    """A live page reloads itself when the log moves (the server's own watcher may see the player's last record a beat
    after the page was drawn): an act whose form went stale before it was sent is done again on the fresh page."""
    import functools

    @functools.wraps(act)
    def wrapper(self, *args, **kwargs):
        from selenium.common.exceptions import WebDriverException

        for attempt in range(3):
            self.sent = False
            try:
                return act(self, *args, **kwargs)
            except WebDriverException:
                if self.sent or attempt == 2:
                    raise
                time.sleep(0.3)

    return wrapper


def replaced(old) -> bool:
    """Whether a page's element is gone: stale, or (Chromium 156 says it so) a node no longer in the document."""
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException

    try:
        old.is_enabled()
    except StaleElementReferenceException:
        return True
    except WebDriverException as e:
        if "does not belong to the document" in str(e):
            return True
        raise
    return False


class Player:
    """One player at his page: clicks the forms the page offers, and nothing else."""

    def __init__(self, server: Server, driver, name: str):
        self.server, self.driver, self.name = server, driver, name
        self.clicks = 0  # forms submitted: what the evening cost
        driver.get(server.url)  # the printed URL: its token becomes the page's cookie

    # ---- looking --------------------------------------------------------------------------------------------
    def open(self, path: str = "/") -> None:
        self.driver.get(self.server.base + path)

    def text(self) -> str:
        """The page's text; a live page may reload itself while it is read (the other side recorded): read again."""
        from selenium.common.exceptions import WebDriverException

        for _ in range(50):
            try:
                return self.driver.find_element("tag name", "main").text
            except WebDriverException:  # stale, or a node of the page that was just replaced
                time.sleep(0.1)
        return self.driver.find_element("tag name", "main").text

    def refused(self) -> str | None:
        from selenium.webdriver.common.by import By

        from selenium.common.exceptions import WebDriverException

        for _ in range(50):  # a live page may reload itself while it is read
            try:
                found = self.driver.find_elements(By.CSS_SELECTOR, "p.error[role=alert]")
                return found[0].text if found else None
            except WebDriverException:
                time.sleep(0.1)
        return None

    def done(self) -> str:
        problem = self.refused()
        assert problem is None, f"{self.name}: {problem}\n{self.server.log.read_text()[-3000:]}"
        return self.text()

    # ---- doing ----------------------------------------------------------------------------------------------
    def _submit(self, form) -> str:
        from selenium.webdriver.support.ui import WebDriverWait

        started = time.monotonic()
        old = self.driver.find_element("tag name", "html")
        form.find_element("css selector", "button").click()
        self.sent = True
        self.clicks += 1
        WebDriverWait(self.driver, 60).until(lambda _driver: replaced(old))  # the next page is there
        WebDriverWait(self.driver, 60).until(lambda d: d.execute_script("return document.readyState") == "complete")
        print(f"{self.name}: {time.monotonic() - started:.2f}s {self.driver.current_url}")
        return self.done()

    def form(self, css: str, path: str | None = None):
        if path is not None:
            self.open(path)
        return self.driver.find_element("css selector", css)

    @again
    def line(self, line: str, *values: str, path: str = "/") -> str:
        """The form of a command line the page offers (`status`'s needs, next acts, options), its holes filled."""
        form = self.form(f'form input[name=line][value="{line}"]', path).find_element("xpath", "..")
        holes = form.find_elements("css selector", "[name=value]")
        assert len(holes) == len(values), f"{line}: {len(holes)} inputs on the page, {len(values)} values given"
        for hole, value in zip(holes, values):
            if hole.tag_name == "select":
                from selenium.webdriver.support.ui import Select

                Select(hole).select_by_value(value)
            else:
                hole.clear()
                hole.send_keys(value)
        return self._submit(form)

    def offered(self, path: str = "/") -> list[str]:
        """Every command line the page offers as a form."""
        self.open(path)
        return [e.get_attribute("value") for e in self.driver.find_elements("css selector", "form input[name=line]")]

    def fill(self, form, fields: dict[str, str]):
        from selenium.webdriver.support.ui import Select

        for name, value in fields.items():
            field = form.find_element("css selector", f'[name="{name}"]')
            if field.tag_name == "select":
                Select(field).select_by_value(value)
            elif field.get_attribute("type") == "checkbox":
                if bool(value) != field.is_selected():
                    field.click()
            else:
                field.clear()
                field.send_keys(value)
        return form

    @again
    def words(self, words: str, path: str, fields: dict[str, str] | None = None) -> str:
        """A page's own form for a verb (`words` is its hidden JSON, e.g. '["buy", "V1", "--side", "german"]')."""
        self.open(path)
        form = self.driver.find_element("css selector", f"form input[name=words][value='{words}']") \
            .find_element("xpath", "..")
        return self._submit(self.fill(form, fields or {}))

    @again
    def roll(self, table: str, side: str, dice: str = "", rg: str = "") -> str:
        self.open(f"/roll?table={table}")
        form = self.driver.find_element("css selector", f"form input[name=words][value='[\"roll\", \"{table}\"]']") \
            .find_element("xpath", "..")
        return self._submit(self.fill(form, {"opt:--side": side, "opt:--dice": dice, "opt:--rg": rg}))

    @again
    def upload(self, verb: str, path: Path | None, path_of_page: str = "/turn", inbox: bool = False) -> str:
        self.open(path_of_page)
        form = self.driver.find_element("css selector", f"form input[name=verb][value='{verb}']") \
            .find_element("xpath", "..")
        if path is not None:
            form.find_element("css selector", "input[type=file]").send_keys(str(path))
        if inbox:
            self.fill(form, {"inbox": "on"})
        return self._submit(form)

    @again
    def click_hex(self, group: str, hex_name: str, side: str) -> str:
        """A click on a hex of the map fills the Control form's Location; the side chosen, it is recorded."""
        self.open(f"/map?group={group}")
        self.driver.find_element("css selector", f"#map [data-hex='{hex_name}'].hex").click()
        assert self.driver.find_element("id", "control-hex").get_attribute("value") == hex_name
        return self._submit(self.fill(self.driver.find_element("id", "control-form"), {"opt:--side": side}))

    @again
    def send(self) -> str:
        self.open("/turn")
        form = self.driver.find_element("css selector", "form[action='/send']")
        return self._submit(form)

    def receive(self) -> str:
        return self.upload("receive", None, inbox=True)

    def cli(self, *words: str):
        """A read of this player's own database by the CLI, with his key (to check the page against it)."""
        import json

        env = {**os.environ, "CGLEDGER_PASSPHRASE": self.server.passphrase or ""}
        result = subprocess.run([str(Path(sys.executable).parent / "cgledger"), "--db", str(self.server.db), *words],
                                capture_output=True, text=True, env=env)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout) if "--json" in words else result.stdout
