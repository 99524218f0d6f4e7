"""Fixtures shared across the suite (keep this file small: a fixture lives here only when several files use it)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner


@pytest.fixture
def cli_runner() -> CliRunner:
    """Runs ``cardtable`` commands in-process: ``cli_runner.invoke(cli, ["games", "--json"])``."""
    return CliRunner()
