"""Which TCP addresses processes listen on, from /proc (Linux): for the tests that a local Ray, every process of it,
listens on 127.0.0.1 alone (Ray has no authentication of its own: anything that reaches it runs code)."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path

LISTEN = "0A"  # a socket's state in /proc/net/tcp*


def descendants(pid: int) -> list[int]:
    """Every process started by ``pid``, by those, and so on."""
    parents = {}
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text() if entry.name.isdigit() else ""
        except OSError:  # gone meanwhile
            continue
        if stat:
            parents[int(entry.name)] = int(stat[stat.rindex(")") + 2:].split()[1])
    found, frontier = [], [pid]
    while frontier:
        pid = frontier.pop()
        children = [child for child, parent in parents.items() if parent == pid]
        found += children
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


def listeners(pids: list[int]) -> list[tuple[int, str, str]]:
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
