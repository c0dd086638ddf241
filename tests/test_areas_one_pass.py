"""The map of every CG Date in one pass over the log: the same Control and HQ, in the same order,
as reading the events up to each CG Date's end on their own."""

from __future__ import annotations

from cgledger.ledger.domain.mapping import control_of, controls_at
from cgledger.ledger.domain.timeline import reph_ends


def test_control_at_every_version_is_control_of_the_log_up_to_it(played):
    from cgledger.ledger.application import open_ledger

    logged = open_ledger(str(played())).history(None)
    versions = [e.version for e in logged]
    assert reph_ends(logged) and any(e.topic in ("ActionUndone", "Rewound") for e in logged)  # undos and a rewind
    assert any(control for control, _hq in controls_at(logged, "St", versions))
    for group in ("St", "Ch"):
        for version, (control, hq) in zip(versions, controls_at(logged, group, versions)):
            expected_control, expected_hq = control_of([e for e in logged if e.version <= version], group)
            assert list(control.items()) == list(expected_control.items()), version
            assert list(hq.items()) == list(expected_hq.items()), version
