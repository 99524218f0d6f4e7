"""``cardtable replay``: list, show, export, import and stream the replays of the replay store.

    cardtable replay list                      # the collections and their sizes
    cardtable replay list sim:job1 --start 1000
    cardtable replay show sim:job1/17 --hands
    cardtable replay export live/3 --format text
    cardtable replay import deal.json          # or a raw replay file (.ctr)
    cardtable replay stream live/3 --delay 0.5

The store is Redis at ``--redis-url`` or ``REDIS_URL``, else the embedded Valkey with its data in the user's data
folder (``$XDG_DATA_HOME/cardtable``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path

import click
import redis

from replay import Replayer, ReplayError
from replay.codec import MAGIC, decode_frame
from replay.connect import open_store
from replay.export import export_json, import_json, text_record
from replay.store import ReplayStore, format_id


@contextlib.contextmanager
def _store(ctx: click.Context) -> Iterator[ReplayStore]:
    """The store of the group's options; store and replay errors become clear messages, not tracebacks."""
    try:
        with open_store(ctx.obj["redis_url"], ctx.obj["data_dir"]) as store:
            yield store
    except ReplayError as exc:
        raise click.ClickException(str(exc)) from None
    except KeyError as exc:
        raise click.ClickException(exc.args[0]) from None
    except (ConnectionError, redis.RedisError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None


@click.group()
@click.option("--redis-url", envvar="REDIS_URL", default=None, help="Redis URL (default: $REDIS_URL, else the "
              "embedded Valkey).")
@click.option("--data-dir", type=click.Path(path_type=Path), default=None,
              help="The embedded Valkey's data folder (default: $XDG_DATA_HOME/cardtable).")
@click.pass_context
def replay(ctx: click.Context, redis_url: str | None, data_dir: Path | None) -> None:
    """Look back at logged deals: list, show, export, import, stream."""
    ctx.obj = {"redis_url": redis_url, "data_dir": data_dir}


@replay.command("list")
@click.argument("collection", required=False)
@click.option("--start", type=click.IntRange(min=0), default=0, help="First replay index of the page.")
@click.option("--count", type=click.IntRange(min=1, max=10_000), default=50, help="Page size.")
@click.pass_context
def list_replays(ctx: click.Context, collection: str | None, start: int, count: int) -> None:
    """The collections with their sizes, or one page of a COLLECTION's replays."""
    with _store(ctx) as store:
        if collection is None:
            names = store.collections()
            if not names:
                click.echo("no replays stored yet")
            for name, size in names:
                click.echo(f"{name}\t{size} replays")
            return
        page = store.page(collection, start, count)
        click.echo(f"{collection}: {store.count(collection)} replays")
        for index, data in page.items:
            click.echo(f"{format_id(collection, index)}\t{_summary(data)}")
        if page.next_start is not None:
            click.echo(f"more: cardtable replay list {collection} --start {page.next_start}")


def _summary(data: bytes) -> str:
    header = decode_frame(data).header
    where = "match" if header.scope == "match" else f"deal {header.deal_index}"
    return f"{header.game}\t{header.players}p\t{where}\t{len(data)} B\t{','.join(p or '?' for p in header.policies)}"


@replay.command()
@click.argument("replay_id")
@click.option("--hands", is_flag=True, help="Show the hand each move was played from.")
@click.pass_context
def show(ctx: click.Context, replay_id: str, hands: bool) -> None:
    """The deal step by step (REPLAY_ID such as live/3)."""
    with _store(ctx) as store:
        click.echo(text_record(store.get(replay_id), hands=hands))


@replay.command()
@click.argument("replay_id")
@click.option("--format", "fmt", type=click.Choice(["json", "text"]), default="json", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write to this file instead of the terminal.")
@click.pass_context
def export(ctx: click.Context, replay_id: str, fmt: str, output: Path | None) -> None:
    """A replay as JSON (imports back to the same bytes) or as a readable text record."""
    with _store(ctx) as store:
        data = store.get(replay_id)
        text = export_json(data) if fmt == "json" else text_record(data)
    if output is None:
        click.echo(text)
    else:
        output.write_text(text + "\n")
        click.echo(f"wrote {output}")


@replay.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--collection", default="imported", show_default=True, help="The collection to add it to.")
@click.pass_context
def import_replay(ctx: click.Context, file: Path, collection: str) -> None:
    """Add an exported JSON replay (or a raw replay file) to the store; prints its id."""
    raw = file.read_bytes()
    with _store(ctx) as store:
        data = raw if raw.startswith(MAGIC) else import_json(raw.decode("utf-8", errors="replace"))
        Replayer(data)  # the header must describe a start this engine can play
        click.echo(store.save(data, collection))


@replay.command()
@click.argument("replay_id")
@click.option("--delay", type=click.FloatRange(min=0), default=0.0, help="Seconds between two moves.")
@click.pass_context
def stream(ctx: click.Context, replay_id: str, delay: float) -> None:
    """Print the moves as they are replayed through the engine."""
    with _store(ctx) as store:
        replayer = Replayer(store.get(replay_id))
        header = replayer.header
        click.echo(f"{replay_id}: {header.game}, {header.players} players, seed {header.seed}")
        for step in replayer:
            click.echo(f"{step.number:4d}. deal {step.deal_index} seat {step.seat}: {step.action}")
            if delay:
                time.sleep(delay)
        click.echo(f"scores: {' '.join(map(str, replayer.state.scores))}")
