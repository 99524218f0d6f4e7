"""docs/security.md tells an operator what to set before exposing the servers: every flag it names is one of
`cardtable serve` or `cardtable web`, and every default its table gives is the one the commands apply."""

from __future__ import annotations

import re
from pathlib import Path

import click

from services.cli.serve import serve
from services.cli.web import web

DOC = Path(__file__).resolve().parent.parent / "docs" / "security.md"


def options(command: click.Command) -> dict[str, click.Option]:
    return {flag: param for param in command.params if isinstance(param, click.Option) for flag in param.opts}


def test_every_flag_the_page_names_is_a_server_flag() -> None:
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", DOC.read_text()))
    known = options(serve) | options(web) | {"--help": None}
    assert named, "the page names no flag"
    assert sorted(named - set(known)) == []


def test_the_table_gives_the_defaults_the_commands_apply() -> None:
    rows = re.findall(r"^\| `(--[a-z-]+)`[^|]*\| ([^|]+) \|", DOC.read_text(), re.M)
    assert len(rows) >= 6
    for flag, written in rows:
        for command in (serve, web):
            option = options(command).get(flag)
            if option is None:
                continue
            default = option.default() if callable(option.default) else option.default
            shown, expected = (option.type.convert(value, option, None) for value in (written.strip(), default))
            assert shown == expected, f"{command.name} {flag}: the page says {written.strip()}, the default {default}"
