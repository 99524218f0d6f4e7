"""Processes and the TCP addresses they listen on, from /proc (Linux): for the tests that a command leaves no process
behind, and that a local Ray, every process of it, listens on 127.0.0.1 alone (Ray has no authentication of its own:
anything that reaches it runs code)."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Iterable
from pathlib import Path

LISTEN = "0A"  # a socket's state in /proc/net/tcp*


def process_table() -> dict[int, tuple[str, int, str, str]]:
    """Every process: pid -> (command name, parent pid, state, start time), from /proc."""
    table = {}
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text() if entry.name.isdigit() else ""
        except OSError:  # gone meanwhile
            continue
        if stat:
            name, rest = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
            table[int(entry.name)] = (name, int(rest[1]), rest[0], rest[19])
    return table


def descendants(pid: int) -> dict[int, tuple[str, int, str, str]]:
    """Every process started by ``pid``, by those, and so on, with its row of :func:`process_table`."""
    table = process_table()
    found, frontier = {}, [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, row in table.items() if row[1] == parent]
        found.update((child, table[child]) for child in children)
        frontier += children
    return found


def _address(field: str) -> str:
    """``0100007F:1F90`` (or its 32-digit IPv6 form) -> ``127.0.0.1:8080``: the kernel's words in its byte order."""
    hexip, hexport = field.split(":")
    raw = b"".join(bytes.fromhex(hexip[i:i + 8])[::-1] for i in range(0, len(hexip), 8))
    ip = ipaddress.ip_address(raw)
    if ip.version == 4:
        return f"{ip}:{int(hexport, 16)}"
    return f"[::ffff:{ip.ipv4_mapped}]:{int(hexport, 16)}" if ip.ipv4_mapped else f"[{ip}]:{int(hexport, 16)}"


def listening_sockets() -> dict[str, str]:
    """Every listening TCP socket of this network namespace: inode -> its address (``HOST:PORT``, ``[HOST]:PORT``)."""
    sockets = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == LISTEN:
                sockets[fields[9]] = _address(fields[1])
    return sockets


def listeners(pids: Iterable[int]) -> list[tuple[int, str, str]]:
    """(pid, command name, address) for every TCP socket that one of ``pids`` listens on (a process gone meanwhile
    has none)."""
    sockets, found = listening_sockets(), []
    for pid in pids:
        try:
            name, fds = Path(f"/proc/{pid}/comm").read_text().strip(), os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:  # closed meanwhile
                continue
            if link.startswith("socket:[") and link[8:-1] in sockets:
                found.append((pid, name, sockets[link[8:-1]]))
    return found


def is_loopback(address: str) -> bool:
    """``127.0.0.1:PORT``, ``[::1]:PORT`` or ``[::ffff:127.0.0.1]:PORT`` (an IPv6 socket that takes 127.0.0.1's
    connections alone), not ``0.0.0.0``, ``[::]`` (every interface) or an outward address."""
    ip = ipaddress.ip_address(address.rpartition(":")[0].strip("[]"))
    return (ip.ipv4_mapped or ip).is_loopback if ip.version == 6 else ip.is_loopback
