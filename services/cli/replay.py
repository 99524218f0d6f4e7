"""``cardtable replay``: list, show, export, import and stream the replays of the replay store.

    cardtable replay list                      # the collections and their sizes
    cardtable replay list sim-1a2b3c4d5e6f     # a page of 50 replays: id, game, date, policies, size
    cardtable replay show sim-1a2b3c4d5e6f/17 --hands
    cardtable replay export live/3 --format text
    cardtable replay export live/3 --format bin -o deal.ctr
    cardtable replay export sim-1a2b3c4d5e6f --format parquet -o deals.parquet   # a row per replay
    cardtable replay import deal.ctr           # or an exported JSON replay
    cardtable replay stream live/3 --delay 0.5
    cardtable replay delete live/3             # or a whole collection; --yes skips the question
    cardtable replay analyze live/3 --from-trick 4 --json   # double-dummy value of every card played

The store is Redis at ``--redis-url`` or ``REDIS_URL``, else the embedded Valkey with its data in the user's data
folder (``$XDG_DATA_HOME/cardtable``).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import click
import redis
from rich.console import Console

from replay import Replayer, ReplayError, decode
from replay.analysis import MAX_NODES
from replay.analysis import analyze as analyze_replay
from replay.codec import MAGIC
from replay.connect import open_store
from replay.export import export_json, import_json, text_record
from replay.record import replay_turns
from replay.store import ReplayStore, format_id

from ..app.replays import list_entry, summary_of
from ..app.results import count_of
from .mapping import replay_json
from .redis_url import redis_url_option
from .render import aligned


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
    except BrokenPipeError:  # the reader went away (`| head`): not a store error; the command group ends quietly
        raise
    except (ConnectionError, redis.RedisError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None


@click.group()
@redis_url_option("Redis URL (default: $REDIS_URL, else the embedded Valkey).")
@click.option("--data-dir", type=click.Path(path_type=Path), default=None,
              help="The embedded Valkey's data folder (default: $XDG_DATA_HOME/cardtable).")
@click.pass_context
def replay(ctx: click.Context, redis_url: str | None, data_dir: Path | None) -> None:
    """Look back at logged deals: list, show, stream, export, import, delete."""
    ctx.obj = {"redis_url": redis_url, "data_dir": data_dir}


@replay.command("list")
@click.argument("collection", required=False)
@click.option("--start", type=click.IntRange(min=0), default=0,
              help="List from this replay index on (the `more:` line of a page gives the next one).")
@click.option("--count", type=click.IntRange(min=1, max=10_000), default=50, show_default=True,
              help="Replays per page.")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@click.pass_context
def list_replays(ctx: click.Context, collection: str | None, start: int, count: int, as_json: bool) -> None:
    """The collections with their sizes, or one page of a COLLECTION's replays (game, date, policies, size)."""
    with _store(ctx) as store:
        if collection is None:
            _list_collections(store, as_json)
            return
        if not store.exists(collection):
            raise click.ClickException(f"no collection {collection!r}; {_known_collections(store)}")
        total = store.count(collection)
        page = store.page(collection, start, count, checked=False)  # a replay that does not decode is marked
        written = store.written(collection, [index for index, _ in page.items])
        rows = [_row(collection, index, data, written[index]) for index, data in page.items]
    if as_json:
        click.echo(json.dumps({"collection": collection, "replays": total, "items": rows,
                               "next_start": page.next_start}, indent=2))
        return
    first = f"; from index {start} on" if start else ""
    click.echo(f"{collection}: {count_of(total, 'replay')}{first}")
    click.echo(aligned([["id", "game", "players", "scope", "written", "policies", "bytes"]]
                       + [_row_cells(row) for row in rows]))
    for row in rows:
        if "error" in row:
            click.echo(f"{row['id']} is unreadable: {row['error']}")
    if page.next_start is not None:
        click.echo(f"more: cardtable replay list {collection} --start {page.next_start}")


def _list_collections(store: ReplayStore, as_json: bool) -> None:
    names = store.collections()
    if as_json:
        click.echo(json.dumps([{"collection": name, "replays": size} for name, size in names], indent=2))
    elif not names:
        click.echo("no replays stored yet (cardtable simulate ... --log sample:100 stores some)")
    else:
        click.echo(aligned([[name, count_of(size, "replay")] for name, size in names]))


def _known_collections(store: ReplayStore) -> str:
    names = [name for name, _ in store.collections()]
    return f"the collections are {', '.join(names)}" if names else "no replays are stored yet"


def _row(collection: str, index: int, data: bytes, written: float | None) -> dict[str, Any]:
    """One replay of a listing, as JSON: its id, game, players, what it covers, when it was written, the bytes; or,
    for a replay that does not decode, its id, when it was written, its bytes and why (``error``)."""
    return replay_json(summary_of(list_entry(format_id(collection, index), data)), written)


def _row_cells(row: dict[str, Any]) -> list[str]:
    written = "-"
    if row["written"] is not None:
        written = datetime.fromisoformat(row["written"]).astimezone().strftime("%Y-%m-%d %H:%M")
    if "error" in row:
        return [row["id"], "unreadable", "-", "-", written, "-", str(row["bytes"])]  # why: under the table
    scope = row["scope"] if not row["deal_index"] else f"deal {row['deal_index'] + 1} of a match"
    policies = ",".join(p or "?" for p in row["policies"])
    return [row["id"], row["game"], str(row["players"]), scope, written, policies, str(row["bytes"])]


@replay.command()
@click.argument("replay_id")
@click.option("--hands", is_flag=True, help="Show the hand each move was played from.")
@click.pass_context
def show(ctx: click.Context, replay_id: str, hands: bool) -> None:
    """The deal step by step (REPLAY_ID such as live/3)."""
    with _store(ctx) as store:
        click.echo(text_record(store.get(replay_id), hands=hands))


@replay.command()
@click.argument("replay_id", metavar="REPLAY_ID|COLLECTION")
@click.option("--format", "fmt", type=click.Choice(["json", "text", "bin", "parquet"]), default="json",
              show_default=True,
              help="json (imports back to the same bytes), text (a readable record) or bin (the replay's own bytes, "
                   "which import back as they are); parquet exports a whole COLLECTION, a row per replay, for "
                   "DuckDB, polars or pandas (docs/analysis.md).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write to this file instead of the terminal (parquet: required).")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="parquet: processes that decode the replays (default: every CPU).")
@click.pass_context
def export(ctx: click.Context, replay_id: str, fmt: str, output: Path | None, workers: int | None) -> None:
    """A replay as JSON, as a readable text record, or as its bytes (`replay import` takes JSON and bytes); or a
    whole collection as a Parquet file."""
    if fmt == "parquet":
        _export_parquet(ctx, replay_id, output, workers or os.cpu_count() or 1)
        return
    with _store(ctx) as store:
        data = store.get(replay_id)
        if fmt == "bin":
            _write_bytes(data, output)
            return
        text = export_json(data) if fmt == "json" else text_record(data)
    if output is None:
        click.echo(text)
    else:
        output.write_text(text + "\n")
        click.echo(f"wrote {output}")


def _export_parquet(ctx: click.Context, collection: str, output: Path | None, workers: int) -> None:
    if output is None:
        raise click.UsageError("a Parquet export goes to a file: add -o FILE")
    if "/" in collection:
        raise click.UsageError(f"--format parquet exports a whole collection (such as {collection.rpartition('/')[0]}"
                               f"), not one replay ({collection})")
    started = time.perf_counter()
    with _store(ctx) as store:
        if not store.exists(collection):
            raise click.ClickException(f"no collection {collection!r}; {_known_collections(store)}")
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        from ..app.replay_columns import export_collection  # pyarrow: half a second to import, for this command only

        columns = [TextColumn("replays"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn()]
        console = Console(stderr=True)
        with Progress(*columns, console=console, transient=True, disable=not console.is_terminal) as progress:
            task = progress.add_task("export", total=None)
            try:
                rows = export_collection(store, collection, output, workers,
                                         lambda done, total: progress.update(task, completed=done, total=total))
            except OSError as exc:
                raise click.ClickException(f"cannot write {output}: {exc.strerror or exc}") from None
    seconds = time.perf_counter() - started
    click.echo(f"wrote {output}: {count_of(rows, 'replay')}, {count_of(output.stat().st_size, 'byte')} "
               f"in {seconds:.1f} s")


def _write_bytes(data: bytes, output: Path | None) -> None:
    if output is not None:
        output.write_bytes(data)
        click.echo(f"wrote {output} ({count_of(len(data), 'byte')})")
        return
    if sys.stdout.isatty():
        raise click.UsageError("a binary replay is not for the terminal: add -o FILE, or redirect the output")
    sys.stdout.flush()
    sys.stdout.buffer.write(data)


@replay.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--collection", default="imported", show_default=True, help="The collection to add it to.")
@click.pass_context
def import_replay(ctx: click.Context, file: Path, collection: str) -> None:
    """Add a replay to the store, from `replay export --format json` or `--format bin`; prints its new id."""
    raw = file.read_bytes()
    with _store(ctx) as store:
        data = raw if raw.startswith(MAGIC) else import_json(raw.decode("utf-8", errors="replace"))
        decode(data)  # every move is checked against the engine before anything is stored
        click.echo(store.save(data, collection))


@replay.command()
@click.argument("target", metavar="REPLAY_ID|COLLECTION")
@click.option("-y", "--yes", is_flag=True, help="Do not ask for confirmation.")
@click.pass_context
def delete(ctx: click.Context, target: str, yes: bool) -> None:
    """Delete one replay (such as live/3) or a whole collection (such as sim-1a2b3c4d5e6f) and its replays."""
    with _store(ctx) as store:
        if "/" in target:
            store.get(target)  # a missing replay is an error before anything is asked
            what = f"replay {target}"
        else:
            if not store.exists(target):
                raise click.ClickException(f"no collection {target!r}; {_known_collections(store)}")
            what = f"collection {target} and its {count_of(store.count(target), 'replay')}"
        if not yes:
            click.confirm(f"Delete {what}?", abort=True)
        if "/" in target:
            store.delete(target)
        else:
            store.delete_collection(target)
    click.echo(f"deleted {what}")


@replay.command()
@click.argument("replay_id")
@click.option("--delay", type=click.FloatRange(min=0), default=0.0, help="Seconds between two moves.")
@click.pass_context
def stream(ctx: click.Context, replay_id: str, delay: float) -> None:
    """Print the moves as they are replayed through the engine (a fishing game's capture as one whole turn)."""
    with _store(ctx) as store:
        replayer = Replayer(store.get(replay_id))
        header = replayer.header
        click.echo(f"{replay_id}: {header.game}, {header.players} players, seed {header.seed}")
        for line in stream_lines(replayer):
            click.echo(line)
            if delay:
                time.sleep(delay)
        click.echo(f"scores: {' '.join(map(str, replayer.state.scores))}")


def stream_lines(replayer: Replayer) -> Iterator[str]:
    """A line per turn, ``  12. deal 1 seat 0: 7H`` (deals counted from 1, as everywhere in the CLI); a fishing
    game's capture, stored as its decisions, is one line in the rules' notation of a whole turn with the numbers of
    its moves: ``13-16. deal 1 seat 1: KS:4C,TD``."""
    for turn in replay_turns(replayer):
        yield f"{turn.numbers:>4}. deal {turn.deal_index + 1} seat {turn.seat}: {turn.action}"


@replay.command()
@click.argument("replay_id")
@click.option("--from-trick", type=click.IntRange(min=1), default=1, show_default=True,
              help="Analyse from this trick on (earlier cards are listed without values).")
@click.option("--max-nodes", type=click.IntRange(min=1), default=MAX_NODES, show_default=True,
              help="The double-dummy search's budget per position: positions that need more are too large.")
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON.")
@click.pass_context
def analyze(ctx: click.Context, replay_id: str, from_trick: int, max_nodes: int, as_json: bool) -> None:
    """For every card played in a trick-game deal: what each legal card would have given the player's side with
    best play by everyone (double dummy), the card's loss, and the deal's turning points."""
    with _store(ctx) as store:
        data = store.get(replay_id)
        try:
            report = analyze_replay(data, from_trick=from_trick, max_nodes=max_nodes)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps({"replay_id": replay_id, **report}))
        return
    click.echo(f"{replay_id}: {report['game']}, double-dummy {report['unit']} of the player's side for the deal")
    for line in analysis_lines(report):
        click.echo(line)


def analysis_lines(report: dict[str, Any]) -> Iterator[str]:
    """A line per card: move, trick, seat, card, then its value, the best and the loss, and every legal card's
    value (or why there is none); then the turning points."""
    rows = [["move", "trick", "seat", "card", "value", "best", "loss", "each card"]]
    for m in report["moves"]:
        if m["status"] != "exact":
            rows.append([str(m["move"]), str(m["trick"]), str(m["seat"]), m["card"], "", "", "", m["status"]])
            continue
        each = " ".join(f"{card}={value}" for card, value in m["values"].items())
        rows.append([str(m["move"]), str(m["trick"]), str(m["seat"]), m["card"], str(m["value"]), str(m["best"]),
                     str(m["loss"]) if m["loss"] else "", each])
    yield aligned(rows)
    if report["exact_from_move"] is None:
        yield "no position was small enough for an exact search (raise --max-nodes or --from-trick)"
    by_move = {m["move"]: m for m in report["moves"]}
    points = [f"move {n} ({by_move[n]['card']}, -{by_move[n]['loss']})" for n in report["turning_points"]]
    yield "turning points: " + (", ".join(points) if points else "none (every card kept the best result)")
