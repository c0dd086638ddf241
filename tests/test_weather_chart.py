"""8.617 KGP WEATHER: 'Consult the Historical Weather Chart for each CG Date's weather (plus Moon Phase and Cloud Cover
information if night).' RR 2.517's chart gives each CG Date's EC and, at night, the Moon Phase/Cloud Cover. The roster,
the history and `status` show them beside the weather, by the chart's own names."""

from __future__ import annotations


def test_a_night_cg_date_shows_its_moon_phase_and_cloud_cover(at):
    """Given CG I at 19 N, when the players read the roster and status, then 8.617's Night line is there."""
    cli = at("8.623", "19 N")
    status = cli.json("status")
    assert status["cg_date"] == "19 N" and status["weather"] == "Moderate Mist"
    assert status["conditions"] == {"Moon Phase": "No Moon", "Cloud Cover": "Overcast"}
    assert "  weather: Moderate Mist (Moon Phase: No Moon, Cloud Cover: Overcast)" in cli.ok("status").output.splitlines()
    rows = {r["date"]: r for r in cli.json("roster", "--side", "german")}
    assert rows["19 AM"]["conditions"] == {} and rows["19 AM"]["weather"] == "Extremely Heavy Mist"
    assert rows["19 N"]["conditions"] == {"Moon Phase": "No Moon", "Cloud Cover": "Overcast"}
    assert "Moderate Mist (Moon Phase: No Moon, Cloud Cover: Overcast)" in cli.ok("roster", "--side", "us").output
    night = next(d for d in cli.json("history")["dates"] if d["date"] == "19 N")
    assert night["conditions"] == {"Moon Phase": "No Moon", "Cloud Cover": "Overcast"}


def test_with_the_random_weather_the_moon_phase_stays_the_charts(cli):
    """8.6171 randomly determines the weather (its Overcast code is the cloud cover): the Moon Phase is still the
    chart's, the Cloud Cover and the weather are the random result's (none shown before it is rolled)."""
    cli.ok("new", "CG I", "--cg", "I", "--random-weather")
    cli.to("8.623", "19 N")
    status = cli.json("status")
    assert status["weather"] is None and status["conditions"] == {"Moon Phase": "No Moon"}


def test_rr_shows_the_ec_of_every_cg_date(rr):
    """RR 2.517: the chart's EC column beside the weather, and at night its Moon Phase/Cloud Cover."""
    status = rr.json("status")
    assert status["cg_date"] == "19 AM" and status["weather"] == "Overcast"
    assert status["conditions"] == {"EC": "Wet/…"}
    assert "  weather: Overcast (EC: Wet/…)" in rr.ok("status").output.splitlines()
