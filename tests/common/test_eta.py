"""The time an index still needs, as every door's progress line says it."""

from __future__ import annotations

import pytest

from codekeep.common import eta as eta_module
from codekeep.common.eta import Eta, describe


def test_the_time_left_follows_the_pace_so_far(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    monkeypatch.setattr(eta_module.time, "monotonic", lambda: now[0])
    eta = Eta()
    assert eta.seconds_left(0, 5000) is None  # no pace yet
    now[0] += 10.0
    assert eta.seconds_left(1000, 5000) == pytest.approx(40.0)  # 100 files a second
    assert eta.seconds_left(5000, 5000) == 0.0
    assert describe(1000, 55000, 540.0) == "1,000/55,000 files, about 9 min left"
    assert describe(10, 20, 12.4) == "10/20 files, about 12 s left"
    assert describe(0, 20, None) == "0/20 files"
    assert describe(20, 20, 0.0) == "20/20 files"
