"""The PostgreSQL databases a test takes (conftest.pg_create, pg_drop), without a CREATE DATABASE each: on a busy
2-core machine one took 0.6-1.5 s (it copies template1's 7.5 MB through the WAL), where emptying one takes ~0.05 s.

A database a test is done with is emptied (every schema dropped, `public` made again as CREATE DATABASE makes it),
checked to be as a new one (its catalogs counted against a new database's, its settings compared), renamed afresh
(no URL is ever given twice, so nothing a process keeps per URL can meet it again) and kept for the next test; one
that does not check out is dropped. A copy of a fixture's template (`at`, `played`: never written after it is made)
is such a database with the template's dump run in it, dumped once (pg_dump); any other template is copied by
CREATE DATABASE ... TEMPLATE."""

from __future__ import annotations

import glob
import shutil
import subprocess
import time
import uuid

_FREE: list[str] = []  # emptied databases, renamed afresh: taken before any is created
_DUMPS: dict[str, str] = {}  # a fixture template's name -> its dump (schema and rows), run in a free database
_FRESH: list = []  # the catalogs of a new database (`_catalogs`), once measured

_CATALOGS = ", ".join(f"(SELECT count(*) FROM pg_catalog.{table})" for table in (
    "pg_class", "pg_proc", "pg_type", "pg_namespace", "pg_extension", "pg_largeobject_metadata", "pg_event_trigger",
    "pg_publication", "pg_default_acl", "pg_constraint", "pg_trigger", "pg_rewrite", "pg_attrdef", "pg_operator",
    "pg_collation", "pg_description", "pg_policy", "pg_statistic_ext", "pg_foreign_server", "pg_ts_config"))
CATALOGS = f"""SELECT {_CATALOGS},
    (SELECT nspowner::regrole::text || ' ' || coalesce(nspacl::text, '') FROM pg_namespace WHERE nspname = 'public'),
    (SELECT count(*) FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
     WHERE d.datname = current_database()),
    (SELECT concat_ws(' ', datconnlimit, datallowconn, datistemplate, datcollate, datctype, encoding, datacl::text)
     FROM pg_database WHERE datname = current_database())"""
SCHEMAS = """SELECT nspname FROM pg_namespace WHERE nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
    AND nspname NOT LIKE 'pg\\_temp\\_%' AND nspname NOT LIKE 'pg\\_toast\\_temp\\_%'"""
PUBLIC = ("CREATE SCHEMA public AUTHORIZATION pg_database_owner; GRANT USAGE ON SCHEMA public TO PUBLIC; "
          "COMMENT ON SCHEMA public IS 'standard public schema'")


def _name() -> str:
    return f"t_{uuid.uuid4().hex[:16]}"


def create(admin, url, template: str | None = None, frozen: bool = False) -> str:
    """A new database's name: an empty one, or a copy of `template` (`frozen`: a template never written again)."""
    import psycopg

    if template and not (frozen and _dump(admin, url, template)):
        name = _name()
        quiet(admin, [template])  # a template copied must have no session
        admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        return name
    _fresh(admin, url)
    name = _FREE.pop() if _FREE else _created(admin)
    if template:
        with psycopg.connect(url(name), autocommit=True) as conn:
            conn.execute(_DUMPS[template])
    return name


def _created(admin) -> str:
    name = _name()
    admin.execute(f'CREATE DATABASE "{name}"')
    return name


def _fresh(admin, url) -> None:
    """A new database's catalogs, measured once (and that database kept for a test)."""
    import psycopg

    if not _FRESH:
        name = _created(admin)
        with psycopg.connect(url(name), autocommit=True) as conn:
            _FRESH.append(conn.execute(CATALOGS).fetchone())
        _FREE.append(name)


def _dump(admin, url, template: str) -> bool:
    """The template's dump, made once (False where no pg_dump is found: it is then copied by the server)."""
    if template not in _DUMPS:
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_dump"), key=lambda p: int(p.split("/")[4]))
        pg_dump = found[-1] if found else shutil.which("pg_dump")
        if pg_dump is None:
            return False
        quiet(admin, [template])  # everything written is in it
        text = subprocess.run([pg_dump, "--inserts", "--rows-per-insert", "200", "-d", url(template)],
                              check=True, capture_output=True, text=True).stdout
        _DUMPS[template] = "\n".join(line for line in text.splitlines() if not line.startswith("\\"))  # psql's own
    return True


def drop(admin, url, names: list[str]) -> None:
    """Each database emptied and kept (renamed afresh), or dropped where it does not check out as a new one."""
    import psycopg

    quiet(admin, names)
    for name in names:
        kept = False
        if _FRESH:
            try:
                with psycopg.connect(url(name), autocommit=True) as conn:
                    schemas = [row[0] for row in conn.execute(SCHEMAS).fetchall()]
                    conn.execute("; ".join(f'DROP SCHEMA "{s}" CASCADE' for s in schemas) + "; " + PUBLIC)
                    kept = conn.execute(CATALOGS).fetchone() == _FRESH[0]
            except psycopg.Error:
                kept = False
        if kept:
            quiet(admin, [name])
            fresh = _name()
            admin.execute(f'ALTER DATABASE "{name}" RENAME TO "{fresh}"')
            _FREE.append(fresh)
        else:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def close(admin) -> None:
    """The databases kept for tests that did not come: dropped."""
    while _FREE:
        admin.execute(f'DROP DATABASE IF EXISTS "{_FREE.pop()}" WITH (FORCE)')


def quiet(admin, names: list[str]) -> None:
    """No session left on the databases `names`: every one ended, and waited for here (CREATE ... TEMPLATE, ALTER
    ... RENAME and DROP would otherwise wait for them in steps of 100 ms)."""
    ended = "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ANY(%s) AND pid <> pg_backend_pid()"
    admin.execute(ended, (names,))
    for _ in range(2500):
        if not admin.execute("SELECT 1 FROM pg_stat_activity WHERE datname = ANY(%s)", (names,)).fetchall():
            return
        time.sleep(0.002)
