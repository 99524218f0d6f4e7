"""Tablić's optional partial captures: the number of legal actions grows exponentially with the table.

The engine lists up to ``MAX_CAPTURE_CHOICES`` captures per card, then refuses with ``ActionLimitExceeded`` (a clear
error that leaves the state unchanged) instead of working for hours.
"""

from __future__ import annotations

import pytest

import engine


def test_a_grown_tablic_table_is_refused_clearly_and_changes_nothing():
    state = engine.new_match("tablic", seed=3, options={"max_deals": 1})
    with pytest.raises(engine.ActionLimitExceeded, match="capture choices"):
        while True:
            actions = state.legal_action_ids()
            trails = [a for a in actions if a < 64]
            state.apply_id(trails[0] if trails else actions[0])
    before = state.to_position()
    assert len(before["table"]) > 18
    with pytest.raises(engine.ActionLimitExceeded):
        state.legal_actions()
    assert state.to_position() == before
