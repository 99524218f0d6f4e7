"""The README's tour runs when pasted: its shell commands, in order, in a fresh folder with a fresh embedded Valkey (the
README's default store), and its Python example.

Every command of the README is either run here or skipped for a stated reason (a new command must be sorted into one
or the other). One figure is changed so that the suite stays quick: no pause between moves.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SMALLER = {"--delay 0.2": "--delay 0"}
SKIPPED = {  # the start of a command -> why it is not run here
    "make demo": "the demo itself: a few minutes of simulation (`make demo` is run by hand)",
    "make test": "the suite itself",
    ".venv/bin/cardtable serve": "runs until stopped; tests/services and tests/clients run real servers",
    ".venv/bin/cardtable web": "runs until stopped; tests/web serves the page and drives it in a real browser",
    "node tests/clients/node": "tests/clients/node/test_node_client.py runs it against a real server",
    "mkdir -p gen/": "tests/clients/test_codegen.py runs the code generation commands as written",
    "npm exec --prefix tests/clients/node -- buf generate": "tests/clients/test_codegen.py runs it as written",
    ".venv/bin/cardtable bench": "measures speed for seconds to a minute; tests/test_cli.py, tests/test_bench_bots.py, "
                                 "tests/test_bench_clone.py and tests/workers/test_simulate_cli.py run it",
    "python ../shared/bench/ratio.py": "a benchmark outside this repository",
    ".venv/bin/cardtable tournament": "a minute of searching bots; tests/workers/test_tournament.py and "
                                      "tests/services/test_grpc_tournament.py run tournaments",
}
RUN = ("mkdir -p build", "JOB=", ".venv/bin/cardtable games", ".venv/bin/cardtable play", ".venv/bin/cardtable watch",
       ".venv/bin/cardtable simulate", ".venv/bin/cardtable replay")


def readme_blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", (ROOT / "README.md").read_text(), re.S)


def shell_commands() -> list[str]:
    """Every shell command of the README, continuation lines joined and comments dropped."""
    commands = []
    for block in readme_blocks("sh"):
        for line in block.replace("\\\n", " ").splitlines():
            command = re.sub(r"\s+#(?![^']*'\)).*$", "", line).strip()  # a comment, not a '#' inside quotes
            if command:
                commands.append(" ".join(command.split()))
    return commands


def test_every_readme_command_is_run_or_skipped_for_a_reason() -> None:
    commands = shell_commands()
    assert len(commands) > 10
    unsorted = [c for c in commands if not c.startswith(RUN) and not any(c.startswith(s) for s in SKIPPED)]
    assert unsorted == []


def _script() -> str:
    """The commands to run, in the README's order, the play command answering every move with its first choice."""
    lines = ["set -euo pipefail"]
    for command in shell_commands():
        if not command.startswith(RUN):
            continue
        for written, smaller in SMALLER.items():
            command = command.replace(written, smaller)
        if command.startswith(".venv/bin/cardtable play"):
            command = f"{command} < answers.txt"
        lines.append(f"echo {shlex.quote('>>> ' + command)}")
        lines.append(command)
    return "\n".join(lines) + "\n"


def test_the_tour_runs_as_written(tmp_path: Path) -> None:
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    (tmp_path / "answers.txt").write_text("1\n" * 5000)
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "RAY_ADDRESS")}
    env.update(XDG_DATA_HOME=str(tmp_path / "data"), COLUMNS="120")
    done = subprocess.run(["bash", "-c", _script()], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=540)
    assert done.returncode == 0, f"{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    out = done.stdout
    assert "Saved as replay played/0: cardtable replay stream played/0" in out
    assert "Match over." in out
    assert (tmp_path / "build" / "scores.png").exists() and (tmp_path / "build" / "tablanette.json").exists()
    assert sorted(path.name for path in tmp_path.iterdir()) == [".venv", "answers.txt", "build", "data"], \
        "the tour's outputs land in build/ (git-ignored), none in the repository's root"
    job = re.search(r">>> .venv/bin/cardtable replay list \$JOB\n(sim-[0-9a-f]+): 100 replays", out)
    assert job, out[-4000:]
    assert '"format": "cardtable-replay"' in out.split(">>> .venv/bin/cardtable replay export $JOB/0")[1]
    assert "Traceback" not in out + done.stderr


def test_the_python_example_runs(tmp_path: Path) -> None:
    (example,) = readme_blocks("python")
    done = subprocess.run([str(ROOT / ".venv" / "bin" / "python"), "-c", example], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    legal = re.search(r"state\.legal_actions\(\)\s+# (\[.*?\])", example)[1]
    turns = re.search(r"state\.turn_choices\(\)\s+# (\[.*?\])", example)[1]
    check = (f"import engine; state = engine.new_match('tablanette', seed=42); "
             f"assert state.legal_actions() == {legal} and state.turn_choices() == {turns}")
    assert subprocess.run([str(ROOT / ".venv" / "bin" / "python"), "-c", check], cwd=ROOT).returncode == 0
