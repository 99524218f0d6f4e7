"""Policy modules planted for the attacks of issue 27: each does something visible as it is imported, so a test can
tell whether a server imported it. Written at test time into a temporary folder (a module that calls ``sys.exit`` at
import cannot sit among the suite's files: ``--doctest-modules`` imports them all).

    marker = plant(tmp_path)              # tmp_path/<PACKAGE>/{marks,exits,interrupts}.py
    f"{PACKAGE}.marks:Bot"                # importing it writes ``marker``
"""

from __future__ import annotations

import secrets
from pathlib import Path

PACKAGE = f"ctplanted_{secrets.token_hex(3)}"  # a name of this run's own: no module of it is imported before
MARKER = "IMPORTED"
_POLICY = '''
from engine.bots import Policy


class Bot(Policy):
    """Plays the first legal action."""

    def choose(self, observation):
        return observation["legal_actions"][0]
'''
# What each module does at import, before it defines its policy.
_TOP = {
    "marks": f"from pathlib import Path\n\nPath(__file__).with_name({MARKER!r}).write_text(__name__)\n",
    "exits": "import sys\n\nsys.exit(3)\n",
    "interrupts": "raise KeyboardInterrupt\n",
}


def plant(folder: Path, package: str = PACKAGE) -> Path:
    """The package ``package`` in ``folder``, with a module per planted behaviour; the file ``marks`` writes."""
    where = folder / package
    where.mkdir(exist_ok=True)
    (where / "__init__.py").write_text("")
    for name, top in _TOP.items():
        (where / f"{name}.py").write_text(top + _POLICY)
    return where / MARKER


def evil_module(marker: Path) -> str:
    """A top-level module's source that writes ``marker`` when imported and defines a policy ``Bot``."""
    return f"from pathlib import Path\n\nPath({str(marker)!r}).write_text('evil ran')\n{_POLICY}"
