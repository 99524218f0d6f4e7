"""The Go and Java clients (tests/clients/go, tests/clients/java) are built with the README's commands, as written, in a
copy of the project, and each plays a two-player and a four-player match to the end against a real `cardtable serve`;
what each reports must agree with the replay the server stored. The README's excerpts of their code are the code.

The tools are Debian's, installed by `make install` (DEB_PACKAGES): where one is missing, its language is skipped,
saying which.

A build is kept in build/client-builds/ (git-ignored) under a hash of all it depends on: the README's commands, the
client's source, the protos and the versions of the Debian packages named here. The next run with the same inputs
plays with that build instead of compiling again (Go alone spends about a minute compiling gRPC); a change to any of
them builds anew with the README's commands. Deleting the folder forces a build.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from client_fixtures import *  # noqa: F403 (the fixtures)

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = ROOT / "tests" / "clients"
README_ADDRESS = "127.0.0.1:50051"
BUILDS = ROOT / "build" / "client-builds"  # git-ignored
SOURCES = {"Go": CLIENTS / "go" / "play_match.go", "Java": CLIENTS / "java" / "PlayMatch.java"}
# What each language's commands need, by the Debian package that installs it.
NEEDS = {
    "Go": {"go": "golang-go", "protoc": "protobuf-compiler", "protoc-gen-go": "protoc-gen-go",
           "protoc-gen-go-grpc": "protoc-gen-go-grpc",
           "/usr/share/gocode/src/google.golang.org/grpc": "golang-google-grpc-dev"},
    "Java": {"javac": "default-jdk-headless", "protoc": "protobuf-compiler",
             "/usr/bin/grpc_java_plugin": "protobuf-compiler-grpc-java-plugin",
             "/usr/share/java/grpc-netty.jar": "libgrpc-java"},
}

# The packages of the jars on the README's class path, and the Go protobuf module's.
JARS = {"libgrpc-java", "libprotobuf-java", "libguava-java", "libgoogle-gson-java", "libperfmark-java", "libnetty-java",
        "libgeronimo-annotation-1.3-spec-java"}
GO_PROTOBUF = "golang-github-golang-protobuf-1-5-dev"  # the 1.3 one grpc-dev may pull cannot decode our messages


def readme_block(title: str, fence: str) -> str:
    """The first ``fence`` code block of the README after ``title``."""
    after = (ROOT / "README.md").read_text().split(title, 1)[1]
    return after.split(f"```{fence}\n", 1)[1].split("```", 1)[0]


def readme_commands() -> dict[str, list[str]]:
    """The README's build-and-run commands by language (each group opens with a comment naming it), continuation
    lines joined; the last of each group runs the client."""
    block = readme_block("Built and run as `make test` runs them", "bash").replace("\\\n", " ")
    commands: dict[str, list[str]] = {}
    language = ""
    for line in block.strip().splitlines():
        if line.startswith("#"):
            language = line[1:].split(":")[0].strip()
            commands[language] = []
        else:
            commands[language].append(" ".join(line.split()))
    return commands


def missing_tools(language: str) -> list[str]:
    return [package for tool, package in NEEDS[language].items()
            if not (Path(tool).exists() if tool.startswith("/") else shutil.which(tool))]


def test_make_install_installs_what_both_clients_need() -> None:
    """Every Debian package named here, and the jars' packages of the README's class path, are in DEB_PACKAGES."""
    makefile = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    installed = set(re.search(r"^DEB_PACKAGES := (.+)$", makefile, re.M).group(1).split())
    assert {p for needs in NEEDS.values() for p in needs.values()} | JARS | {GO_PROTOBUF} <= installed


def inputs_hash(language: str, commands: list[str]) -> str:
    """A hash of what a build of ``language``'s client depends on: its commands, its sources and the protos (names
    and contents), and the versions of the Debian packages that hold its tools and jars."""
    digest = hashlib.sha256("\n".join([language, *commands]).encode())
    for folder in (ROOT / "protos", CLIENTS / language.lower()):
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    packages = sorted({*NEEDS[language].values(), *JARS, GO_PROTOBUF})
    versions = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Version}\\n", *packages], capture_output=True,
                              text=True) if shutil.which("dpkg-query") else None
    digest.update((versions.stdout if versions else "no dpkg").encode())
    return digest.hexdigest()[:16]


def built_client(language: str, env: dict[str, str]) -> Path:
    """A copy of what the README's build commands read (the protos, the client's sources) in which they have run, as
    one shell runs them: the one kept for these inputs, else a new one (built aside, then moved in place)."""
    *build, _run = readme_commands()[language]
    folder = BUILDS / f"{language.lower()}-{inputs_hash(language, readme_commands()[language])}"
    if (folder / ".built").exists():
        return folder
    BUILDS.mkdir(parents=True, exist_ok=True)
    copy = Path(tempfile.mkdtemp(prefix=f".{language.lower()}-", dir=BUILDS))
    try:
        shutil.copytree(ROOT / "protos", copy / "protos")
        shutil.copytree(CLIENTS / language.lower(), copy / "tests" / "clients" / language.lower())
        script = "\n".join(["set -e", *build])  # one shell, as a person types them: Java's CP is set for javac
        done = subprocess.run(["bash", "-c", script], cwd=copy, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{script}\n{done.stdout}\n{done.stderr}"
        (copy / ".built").write_text(script + "\n")
        try:
            copy.rename(folder)
        except OSError:  # another run kept the same build meanwhile
            if not (folder / ".built").exists():
                raise
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    return folder


def test_the_readme_builds_and_runs_both_clients() -> None:
    commands = readme_commands()
    assert set(commands) == {"Go", "Java"}
    for language, lines in commands.items():
        assert README_ADDRESS in lines[-1] and all(README_ADDRESS not in line for line in lines[:-1]), language


@pytest.mark.parametrize("fence,language", [("go", "Go"), ("java", "Java")])
def test_the_readmes_excerpts_are_the_clients_code(fence: str, language: str) -> None:
    """Every line of the README's excerpt is a line of the client, in the same order."""
    code = [line.strip() for line in SOURCES[language].read_text().splitlines()]
    excerpt = [line.strip() for line in readme_block("Their heart", fence).strip().splitlines()]
    assert len(excerpt) >= 3
    position = 0
    for line in excerpt:
        assert line in code[position:], f"README's {language} line not in {SOURCES[language].name}: {line}"
        position = code.index(line, position) + 1


@pytest.mark.parametrize("language", ["Go", "Java"])
def test_the_client_builds_as_the_readme_says_and_plays_matches_to_the_end(language, server, run_client):
    if missing := missing_tools(language):
        pytest.skip(f"{language} needs the Debian packages {', '.join(sorted(set(missing)))} (make install)")
    *build, run = readme_commands()[language]
    env = {**os.environ, "GOFLAGS": "", "GOPROXY": "off"}  # never the module proxy: Debian's sources only
    project = built_client(language, env)
    # The run line needs the build's variables (Java's CP): it runs after them in the same shell.
    prelude = "; ".join(line for line in build if re.match(r"^[A-Z]+=", line))
    played = {}
    for game, args in (("tablanette", ""), ("belote_contree", " 3 belote_contree")):
        command = (f"{prelude}; " if prelude else "") + run.replace(README_ADDRESS, f"127.0.0.1:{server}") + args
        played[game] = run_client(["bash", "-c", command], game, cwd=project, env=env)
    assert played["tablanette"]["players"] == 2 and played["belote_contree"]["players"] == 4
