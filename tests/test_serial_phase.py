"""scripts/test runs in two phases: ``-m "not serial"`` on two workers, then ``-m serial``.
Every test under the serial paths is marked, so it runs in the serial phase and never beside
another worker (tests/conftest.py also fails a serial test that lands on a worker)."""

from __future__ import annotations

import pytest

from tests.conftest import DESELECTED, ROOT, SERIAL_PATHS


def _serial_path(item: pytest.Item) -> bool:
    return item.path.relative_to(ROOT).as_posix().startswith(SERIAL_PATHS)


def test_the_serial_phase_holds_every_test_marked_for_it(request: pytest.FixtureRequest) -> None:
    selected = list(request.session.items)
    deselected = request.config.stash.get(DESELECTED, [])
    collected = selected + deselected
    for serial in SERIAL_PATHS:  # each still names tests
        assert (ROOT / serial).exists() and list((ROOT / serial).parent.glob("test_*.py")), serial
    under = [item for item in collected if _serial_path(item)]
    collected_paths = [item.path.relative_to(ROOT).as_posix() for item in under]
    if not all(any(p.startswith(serial) for p in collected_paths) for serial in SERIAL_PATHS):
        pytest.skip("the serial paths were not all collected: run over the whole suite")
    assert all(item.get_closest_marker("serial") for item in under)
    if request.config.getoption("markexpr") == "not serial":  # the workers' phase
        assert not [item.nodeid for item in selected if item.get_closest_marker("serial")]
        # Whatever this phase left out, the serial phase (-m serial) picks up.
        assert [item.nodeid for item in deselected if not item.get_closest_marker("serial")] == []


def test_scripts_test_runs_both_phases() -> None:
    script = (ROOT / "scripts" / "test").read_text()
    assert '-m "not serial" "$@"' in script
    assert '-m serial "$@"' in script
