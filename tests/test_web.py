"""`cgledger serve`'s page over the real application (Starlette's TestClient speaks ASGI to the real app;
the ledger is a real SQLite file or PostgreSQL database): the guard (token, Host, form token, same origin), forms
that run the CLI's own commands (the same refusal, nothing written; a form sent twice recorded once), every page
on the three shipped samples, and the served ledger beside a CLI on the same file."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from cgledger.cli.web import forms
from cgledger.cli.web.app import create_app
from cgledger.cli.web.runner import Runner
from conftest import Cli, count_events
from test_turn import GERMAN, US, desks, initial_scenario_played  # noqa: F401 (desks: two machines, both keyed)

FIXTURES = Path(__file__).parent.parent / "fixtures"
TOKEN = "a-test-token"
BASE = "http://127.0.0.1:8765"


def page(db, material: bytes | None = None, **options) -> TestClient:
    client = TestClient(create_app(Runner(str(db), None, material), TOKEN, "127.0.0.1", 8765, live=False, **options),
                        base_url=BASE, follow_redirects=False)
    client.cookies.set("cgledger_token", TOKEN)
    return client


def csrf(client: TestClient) -> str:
    return re.search(r'name="csrf" value="([0-9a-f]+)"', client.get("/").text)[1]


def post(client: TestClient, words: list[str] | None = None, **fields):
    """A form of the page, as the browser sends it: its form token, a command id, where to go back to."""
    data = {"csrf": csrf(client), "back": "/", **fields}
    if words is not None:
        data["words"] = json.dumps(words)
    response = client.post("/do", data=data)
    assert response.status_code == 303, response.text
    shown = client.get(response.headers["location"]).text
    error = re.search(r'<p class="error" role="alert"><strong>Refused:</strong> (.*?) <span', shown, re.S)
    return (html.unescape(error[1]) if error else None), html.unescape(shown)


@pytest.fixture
def sample(played) -> Cli:
    return Cli(played())


# ---- the guard --------------------------------------------------------------------------------------------------
def test_the_page_is_its_players_alone(sample):
    client = page(sample.db)
    stranger = TestClient(client.app, base_url=BASE, follow_redirects=False)
    assert stranger.get("/").status_code == 403 and "URL cgledger serve printed" in stranger.get("/").text
    assert stranger.get("/?token=wrong").status_code == 403
    opened = stranger.get("/roster?token=" + TOKEN)  # the printed URL: a cookie, and the token leaves the address
    assert opened.status_code == 303 and opened.headers["location"] == "/roster"
    assert "cgledger_token=" + TOKEN in opened.headers["set-cookie"] and "samesite=strict" in opened.headers[
        "set-cookie"].lower() and "httponly" in opened.headers["set-cookie"].lower()
    rebound = client.get("/", headers={"host": "attacker.example:8765"})  # DNS rebinding to 127.0.0.1
    assert rebound.status_code == 400 and "unknown Host" in rebound.text
    assert client.get("/", headers={"host": "localhost:8765"}).status_code == 200


def test_a_form_from_elsewhere_writes_nothing(sample):
    client = page(sample.db)
    before = count_events(sample.db)
    good = {"csrf": csrf(client), "words": json.dumps(["step", "next"]), "back": "/"}
    for headers, data in (({}, {**good, "csrf": "0" * 32}),  # a stale or forged form token
                          ({}, {k: v for k, v in good.items() if k != "csrf"}),
                          ({"origin": "http://attacker.example"}, good),  # a page of another site posting here
                          ({"sec-fetch-site": "cross-site"}, good)):
        assert client.post("/do", data=data, headers=headers).status_code == 403
    assert count_events(sample.db) == before
    assert client.post("/do", data=good, headers={"origin": BASE}).status_code == 303  # the page's own form
    assert count_events(sample.db) > before


# ---- forms run the CLI's commands --------------------------------------------------------------------------------
def test_a_refused_form_says_the_clis_one_line_and_writes_nothing(sample):
    client = page(sample.db)
    before = count_events(sample.db)
    cases = [(["roll", "8.616", "--side", "german", "--dice", "9,9"], "die value 9 is out of range 1-6"),
             (["buy", "XX", "--side", "german"], "recorded in step 8.619 Purchasing Reinforcement Groups, and the "
                                                 "campaign cannot walk on to it yet"),
             (["roll", "NOPE", "--side", "us"], "NOPE"),
             (["step", "8.601"], "8.601")]
    for words, contains in cases:
        error, _ = post(client, words)
        cli = sample(*words)
        assert cli.exit_code == 1 and error == cli.stderr.strip().removeprefix("Error: "), (error, cli.stderr)
        assert contains in error
    assert count_events(sample.db) == before
    for words in (["demo"], ["script", "x.cgl"], ["serve"], ["report", "--html", "/tmp/x.html"], ["import", "x"]):
        error, _ = post(client, words)  # the page runs no command that runs others or names a file
        assert error == f"'{words[0]}' is not a command the page runs"
    for words in (["new", "Other", "--db", str(sample.db) + "-other"], ["status", "--db=/tmp/x.db"],
                  ["keys", "init", "--side", "us", "--key-file", "/etc/hostname"]):
        error, _ = post(client, words)  # nor on another file: only its own database and key
        assert error.startswith("the page runs commands on its own database and key"), error
    assert not Path(str(sample.db) + "-other").exists()
    error, _ = post(client, line="cgledger scenario-end --lvp german=N --lvp us=N --winner german|us",
                    value=["3", "2", "nobody"])
    assert error == "'nobody' is not one of german, us"
    assert count_events(sample.db) == before


def test_a_form_sent_twice_is_recorded_once(sample):
    client = page(sample.db)
    before = count_events(sample.db)
    fields = {"csrf": csrf(client), "words": json.dumps(["step", "next"]), "command_id": "form-1", "back": "/"}
    first = client.get(client.post("/do", data=fields).headers["location"]).text
    after_first = count_events(sample.db)
    assert after_first > before
    again = client.get(client.post("/do", data=fields).headers["location"]).text  # reload, back and resubmit
    assert "Refused" not in first and "already recorded as event" in again
    assert count_events(sample.db) == after_first


def test_the_audit_cannot_tell_the_page_from_the_cli(make_db):
    """The same acts by the page on one ledger and by the CLI on another: the same facts, field by field."""
    by_cli, by_page = Cli(make_db()), Cli(make_db())
    for cli in (by_cli, by_page):
        cli.ok("new", "CG I", "--cg", "I", "--start-cpp", "german=20", "--start-cpp", "us=12")
        cli.ok("rules", "load", str(Path(__file__).parent / "data" / "kgp-rg-test-chart.toml"))
    client = page(by_page.db)
    acts = [["step", "8.619"], ["buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19"],
            ["buy", "V1", "--side", "german", "--map-group", "St"],
            ["roll", "8.6201", "--side", "german", "--rg", "I2#1", "--dice", "3,4", "--for", "1st platoon"],
            ["undo", "--reason", "typo"]]
    for words in acts:
        by_cli.ok(*words)
        assert post(client, words)[0] is None
    strip = ("timestamp", "digest")
    rows = [[{k: v for k, v in row.items() if k not in strip} for row in cli.json("log")] for cli in (by_cli, by_page)]
    assert rows[0] == rows[1]
    assert by_page("audit").exit_code == 0


# ---- the pages -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("script", ["kgp-cg1-sample.cgl", "rr-sample.cgl", "cgs-sample.cgl"])
def test_every_page_shows_each_shipped_sample(played, script):
    from cgledger.ledger.domain.events import TAGS

    cli = Cli(played(script))
    client = page(cli.db)
    internal = re.compile(r"\b(" + "|".join(sorted(TAGS.values(), key=len, reverse=True)) + r"|None)\b")
    for path in ("/", "/roll", "/roll?table=" + cli.json("tables")["tables"][0]["id"], "/buy", "/map", "/roster",
                 "/history", "/dice", "/audit", "/audit?final=1", "/log", "/turn", "/report"):
        response = client.get(path)
        assert response.status_code == 200, (path, response.text[:300])
        text = re.sub(r"<[^>]+>", " ", response.text)
        found = internal.search(text) if path != "/report" else None
        assert found is None, (path, found.group(0), text[max(0, found.start() - 120):found.end() + 60])
    home = client.get("/").text
    status = cli.json("status")
    assert status["cg_date"] in home and status["step_title"] in home


def test_the_campaign_page_offers_what_status_offers_as_forms(sample):
    client = page(sample.db)
    home = client.get("/").text
    status = sample.json("status")
    lines = [line for need in status["needs"] for line in need["commands"]]
    lines += [act["command"] for act in status["next_acts"] if act.get("command")]
    lines += [option["command"] for option in status["may"]]
    assert lines
    for line in lines:
        assert f'name="line" value="{line}"' in home, line


def test_a_click_on_the_map_records_control_as_the_cli_would(sample, kgp):
    client = page(sample.db)
    svg = client.get("/map?group=St").text
    assert 'data-hex="StJ19"' in svg and 'id="control-form"' in svg
    error, _ = post(client, ["control"], arg="StM20", **{"opt:--side": "us"})  # 20 N, 8.623: not now (8.605)
    assert error == sample("control", "StM20", "--side", "us").stderr.strip().removeprefix("Error: ")
    kgp.ok("rules", "load", str(FIXTURES / "kgp-st-fixture-map.toml"))
    kgp.ok("step", "scenario")  # the Initial Scenario: Control changes during play
    error, shown = post(page(kgp.db), ["control"], arg="StM20", **{"opt:--side": "us"})
    assert error is None and "StM20: Controlled by U.S." in shown
    assert kgp.json("log")[-1]["location"] == "StM20"


def test_without_a_campaign_the_page_starts_one_or_receives_one(make_db, tmp_path):
    db = make_db()
    client = page(db)
    start = client.get("/").text
    assert "No campaign here yet" in start and "Start the campaign" in start and 'value="receive"' in start
    error, shown = post(client, ["new"], arg="Stoumont", **{"opt:--system": "kgp", "opt:--cg": "I"})
    assert error is None and "Stoumont" in client.get("/").text
    assert Cli(db).json("status")["campaign"] == "Stoumont"


def test_rules_and_turns_travel_as_uploaded_files(sample, tmp_path):
    """Receive takes the bundle the browser uploads; send leaves one to download (or writes the outbox)."""
    outbox = tmp_path / "out"
    client = page(sample.db, outbox=outbox)
    token = csrf(client)
    sent = client.post("/send", data={"csrf": token, "outbox": "on"})
    assert sent.status_code == 303
    shown = client.get(sent.headers["location"]).text
    assert "Refused" in shown and "--side" in shown  # no key, no side: the CLI's own refusal, said on the page
    chart = Path(__file__).parent / "data" / "kgp-rg-test-chart.toml"
    with chart.open("rb") as handle:
        loaded = client.post("/upload", data={"csrf": token, "verb": "rules", "back": "/buy"},
                             files={"file": ("my-chart.toml", handle, "application/toml")})
    shown = client.get(loaded.headers["location"]).text
    assert "Refused" not in shown and "my-chart.toml" in shown
    assert sample.json("log")[-1]["source"] == "my-chart.toml"
    refused = client.post("/upload", data={"csrf": token, "verb": "import", "back": "/"},
                          files={"file": ("x.json", b"{}", "application/json")})
    assert "takes no file from the page" in client.get(refused.headers["location"]).text
    outside = client.get("/bundle", params={"file": str(chart)})  # only the server's own bundles are served
    assert outside.status_code == 404


# ---- the offered lines as forms ---------------------------------------------------------------------------------
def test_an_offered_line_becomes_a_form_and_back_the_same_words():
    parts = forms.template("cgledger fortify ITEM --side german|us --setup-area ID [--count N]")
    assert [p.label for p in parts if p.hole] == ["fortification", "choice", "Setup Area", "number"]
    assert forms.fill(parts, ["trench", "us", "A", ""]) == ["fortify", "trench", "--side", "us", "--setup-area", "A"]
    assert forms.fill(parts, ["trench", "us", "A", "2"])[-2:] == ["--count", "2"]
    with pytest.raises(ValueError, match="fill in the Setup Area"):
        forms.fill(parts, ["trench", "us", "", ""])
    chit = forms.template("cgledger initiative --chit german=attack|idle")
    assert forms.fill(chit, ["attack"]) == ["initiative", "--chit", "german=attack"]
    played = forms.template('cgledger roll KGP3 --side us --dice W,C (or --vasl "LINE")')
    assert forms.fill(played, ["3,4"]) == ["roll", "KGP3", "--side", "us", "--dice", "3,4"]
    assert forms.fixed(forms.template("cgledger roll 8.6201 --side german --rg I2#1"))


# ---- beside the CLI ----------------------------------------------------------------------------------------------
@pytest.mark.sqlite_only
def test_a_served_ledger_loses_nothing_when_the_cli_reads_the_same_file(sample, tmp_path):
    """A player types CLI commands beside his served page: every record the server writes is in the file the CLI
    reads. (tests/test_web_browser.py found the way this failed: `receive` re-checked the open file, reading its
    header with open() and close(), which dropped the server's SQLite locks; a CLI read beside it then deleted the WAL
    the server still wrote to. This test has not made that happen on its own; the browser test did, every time.)"""
    from concurrent.futures import ThreadPoolExecutor

    from cgledger.cli.web.live import Watcher

    runner = Runner(str(sample.db))
    pool = ThreadPoolExecutor(4)  # as the server runs them: each command in a worker thread
    watcher = Watcher(runner, poll=0.05).start()  # and its live watcher looks at the log all along

    def run(*words: str):
        outcome = pool.submit(runner.run, list(words)).result()
        assert outcome.ok, outcome.error
        return outcome

    bundle = tmp_path / "all.json"
    sample.ok("export", "--since", "0", str(bundle))
    cgledger = str(Path(sys.executable).parent / "cgledger")
    for _ in range(3):
        run("status")
        run("receive", str(bundle))  # the check that re-opened the file
        subprocess.run([cgledger, "--db", str(sample.db), "head"], check=True, capture_output=True)
        run("step", "next")
    watcher.stop()
    written = run("log", "--json").json()
    seen = json.loads(subprocess.run([cgledger, "--db", str(sample.db), "log", "--json"], check=True,
                                     capture_output=True, text=True).stdout)
    assert len(seen) == len(written) and seen[-1]["digest"] == written[-1]["digest"]


def test_the_other_sides_acts_show_after_this_sides_ledger_answered_them(desks, tmp_path):
    """The U.S. receives the German turn (his ledger answers the German fair roll as it does): the U.S. page lists the
    German acts since the U.S. player's own last act; the answer his ledger made is not his act (it once hid them)."""
    g, u = desks
    initial_scenario_played(g, u, tmp_path)
    g.ok("roll", "8.616", "--side", "german")  # Secret, fair (his 2nd, after 8.6113): the U.S. ledger answers it
    g.ok("send", str(tmp_path / "5.json"))
    u.ok("receive", str(tmp_path / "5.json"))
    recent = page(u.db, US.encode()).get("/").text
    section = recent[recent.index("The other side since your last act"):recent.index("<h2>Keys")]
    assert "declares Secret fair roll 2 on 8.616" in section, section  # not hidden behind the answer, which
    assert "answers the fair roll" in section  # the U.S. ledger made after it, and which is no act of its player


def test_the_served_key_is_stretched_once(sample):
    """A server (or a script) runs many commands with one key: scrypt runs once per salt, not once per command."""
    runner = Runner(str(sample.db), None, b"Peiper kept a counsel all his own")
    assert runner.run(["keys", "init", "--side", "german"]).ok
    assert runner.side_of_key() == "german"  # the page asks whose key it holds: the key is stretched here
    keyring = runner.ledger().keyring
    derived = dict(keyring._derived)
    assert derived
    for words in (["status"], ["roster", "--side", "german"], ["audit"]):
        runner.run(words)
    assert runner.side_of_key() == "german"
    assert runner.ledger().keyring is keyring and keyring._derived == derived  # kept, not stretched again


def test_log_json_is_json_at_any_length_and_last_n_is_its_tail(sample):
    rows = sample.json("log")
    assert len(rows) == 124
    tail = sample.json("log", "--last", "5")
    assert tail == rows[-5:]
    from cgledger.cli.app import emit_json
    from click.testing import CliRunner
    import click

    @click.command()
    @click.argument("n", type=int)
    def emit(n):
        emit_json(iter({"i": i} for i in range(n)))

    for n in (0, 1, 499, 500, 501, 1000):  # a multiple of 500 once ended in a comma before ']'
        assert json.loads(CliRunner().invoke(emit, [str(n)]).stdout) == [{"i": i} for i in range(n)]


def test_send_leaves_the_turn_to_download_and_receive_takes_it_uploaded(desks):
    g, u = desks
    g.ok("step", "scenario")
    german = page(g.db, GERMAN.encode())
    sent = german.post("/send", data={"csrf": csrf(german)})
    shown = html.unescape(german.get(sent.headers["location"]).text)
    link = re.search(r'href="(/bundle\?file=[^"]+)"', shown)
    assert "Refused" not in shown and link, shown[:2000]
    bundle = german.get(html.unescape(link[1]))
    assert bundle.status_code == 200 and json.loads(bundle.content)["campaign"] == "CG I"
    us = page(u.db, US.encode())
    received = us.post("/upload", data={"csrf": csrf(us), "verb": "receive", "back": "/"},
                       files={"file": ("turn.json", bundle.content, "application/json")})
    shown = html.unescape(us.get(received.headers["location"]).text)
    assert "Refused" not in shown and "events received" in shown
    assert u.ok("head").stdout == g.ok("head").stdout


def test_what_the_page_kept_to_download_goes_when_the_server_stops(desks):
    """A turn sent to download and a file received sit in the server's own folder while it runs, and nowhere after."""
    g, _ = desks
    with page(g.db, GERMAN.encode()) as german:
        work = german.app.app.state.page.work
        sent = german.post("/send", data={"csrf": csrf(german)})
        link = re.search(r'href="(/bundle\?file=([^"]+))"', html.unescape(german.get(sent.headers["location"]).text))
        assert link and Path(link[2]).is_file() and Path(link[2]).is_relative_to(work)
    assert not work.exists()


def test_a_campaign_name_is_never_markup_on_the_page(make_db):
    """A second campaign named as markup (created on a shared database, or mailed in a bundle) must not run in the
    player's page: the report's refusal names the campaigns escaped, as text."""
    cli = Cli(make_db())
    cli.ok("new", "Stoumont", "--cg", "I")
    cli.ok("new", '<img src=x onerror="alert(1)">', "--cg", "I")
    response = page(cli.db).get("/report")
    assert response.status_code == 400
    assert "<img" not in response.text and "&lt;img src=x onerror=" in response.text, response.text


def test_a_second_campaign_does_not_take_the_page_over(make_db):
    """The page serves the campaign it first found: a second campaign created later on the same (shared) database
    made it say 'No campaign here yet' and stop answering fair rolls."""
    cli = Cli(make_db())
    cli.ok("new", "Stoumont", "--cg", "I")
    client = page(cli.db)
    assert "Stoumont" in client.get("/").text
    cli.ok("new", "Intruder", "--cg", "I")
    shown = client.get("/").text
    assert "Stoumont" in shown and "No campaign here yet" not in shown


def test_the_side_that_answers_a_proposal_may_accept_or_decline_it_on_the_page(desks, tmp_path):
    """A rules file proposed by the German: the U.S. page offers Accept and Decline (the answer is his), the German
    page neither (it waits); a Decline posted from the page ends the proposal as `cgledger decline` would."""
    g, u = desks
    g.ok("rules", "load", str(FIXTURES / "kgp-rg-chart-example.toml"))
    g.ok("send", str(tmp_path / "3.json"))
    u.ok("receive", str(tmp_path / "3.json"))
    us = page(u.db, US.encode())
    shown = html.unescape(us.get("/").text)
    proposal = shown[shown.index('<section class="proposal'):]
    proposal = proposal[:proposal.index("</section>")]
    assert 'value="cgledger accept"' in proposal and 'value="cgledger decline"' in proposal, proposal
    german = html.unescape(page(g.db, GERMAN.encode()).get("/").text)
    assert 'value="cgledger decline"' not in german
    error, after = post(us, line="cgledger decline")
    assert error is None, error
    assert u.json("status")["proposal"]["open"] is False
    assert u.ok("log", "--last", "1").stdout.count("declines the proposal") == 1


def test_a_proposal_waiting_for_an_answer_is_not_nothing_due(make_db):
    """A rules file proposed (both sides keyed): the proposer's page no longer says "Nothing is due from anyone
    here" while it waits for the other side's Accept, and the other side's page shows the proposal."""
    from conftest import keyed_players

    cli = Cli(make_db())
    cli.ok("new", "CG I", "--cg", "I")
    german, us = keyed_players(cli.db, "Peiper's own words", "Harrison's own words")
    german.ok("rules", "load", str(Path(__file__).parent / "data" / "kgp-rg-test-chart.toml"))
    shown = page(cli.db).get("/").text
    assert "Nothing is due from" not in shown and "accept" in shown.lower(), shown


def test_the_page_lists_what_a_proposed_rules_file_changes_before_accept(make_db):
    """A rules file proposed: the other side's page shows every change it makes against the rules in force (an RG's
    cost raised), as `status` and `receive` do, above its Accept button, not only the file's name."""
    from conftest import keyed_players

    chart = Path(__file__).parent / "data" / "kgp-rg-test-chart.toml"
    cli = Cli(make_db())
    cli.ok("new", "CG I", "--cg", "I")
    german, us = keyed_players(cli.db, "Peiper's own words", "Harrison's own words")
    german.ok("rules", "load", str(chart))
    changes = us.json("status")["proposal"]["changes"]
    assert changes
    shown = html.unescape(page(cli.db, "Harrison's own words".encode()).get("/").text)
    assert all(change in shown for change in changes), (changes, shown)
