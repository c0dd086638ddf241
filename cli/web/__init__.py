"""`cgledger serve`'s page: routes (app.py), the guard (guard.py), the in-process command runner (runner.py), offered
command lines as forms (forms.py), the views (pages.py), live updates (live.py), templates and static files."""
