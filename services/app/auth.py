"""API keys and who a call comes from: when the server is given keys, every call must carry one in its metadata.

Clients send ``x-api-key: <key>`` (or ``authorization: Bearer <key>``). A missing or wrong key ends the call with
UNAUTHENTICATED before any servicer runs. The health service stays open so that load balancers and Kubernetes
probes, which send no metadata, can still ask whether the server is up.

A server may take several keys, one per client (a key file, one line each: ``name:key``, ``name key`` or a bare
``key``; blank lines and ``#`` comments are skipped). A client is known by its key's name (a bare key's name is
``key-`` and the start of its SHA-256), so that the per-client limits and the logs name it without showing the key;
without keys, by its address (:func:`client_of`, for gRPC and the web alike).

    keys = ApiKeys.parse("alice:3f9c1e...\\nbob 77ab20...\\n")
    server = grpc.aio.server(interceptors=[ApiKeyInterceptor(keys)])  # services.rpc: the gRPC edge's check
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

API_KEY_HEADER = "x-api-key"
KEY_NAME = re.compile(r"[A-Za-z0-9_.@-]{1,64}")


def key_from_metadata(metadata: Any) -> str:
    """The API key a call carries, or "" (metadata keys arrive lower-cased)."""
    for key, value in metadata or ():
        if key == API_KEY_HEADER:
            return value
        if key == "authorization" and value.lower().startswith("bearer "):
            return value[len("bearer "):].strip()
    return ""


class ApiKeys:
    """The keys a server accepts, each with a name.

    >>> keys = ApiKeys.parse("# team keys\\nalice:s3cret-a\\nbob s3cret-b\\ns3cret-c\\n")
    >>> keys.names(), keys.name_of("s3cret-b"), keys.name_of("nope")
    (['alice', 'bob', 'key-ac079ee1'], 'bob', None)
    """

    def __init__(self, named: Iterable[tuple[str, str]]) -> None:
        self._keys: list[tuple[str, bytes]] = []
        for name, key in named:
            if not key or any(c.isspace() for c in key):
                raise ValueError(f"the key of {name!r} is empty or holds a space")
            if not KEY_NAME.fullmatch(name):
                raise ValueError(f"a key's name is 1 to 64 letters, digits or _.@- (not {name!r})")
            if name in self.names() or any(hmac.compare_digest(key.encode(), known) for _, known in self._keys):
                raise ValueError(f"the key named {name!r} is listed twice (by its name or its key)")
            self._keys.append((name, key.encode()))
        if not self._keys:
            raise ValueError("it holds no API key")

    @classmethod
    def parse(cls, text: str) -> ApiKeys:
        """Keys from a key file's text: ``name:key``, ``name key`` or a bare ``key`` per line."""
        named = []
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            name, separator, key = _split(line)
            if not separator:
                name, key = bare_key_name(line), line
            named.append((name.strip(), key.strip()))
            try:
                cls(named)  # this line's key, and not one listed before
            except ValueError as exc:
                raise ValueError(f"line {number}: {exc}") from None
        return cls(named)

    @classmethod
    def read(cls, path: Path) -> ApiKeys:
        """The keys of a key file; ValueError names the file and the line that is wrong."""
        try:
            return cls.parse(path.read_text())
        except ValueError as exc:
            raise ValueError(f"{path}: {exc} (one key a line: name:key, name key, or the key alone)") from None

    @classmethod
    def of(cls, keys: str | ApiKeys | None) -> ApiKeys | None:
        """``keys`` as ApiKeys: a single key (a string) is named as a bare key is; None or "" stays None."""
        if not keys:
            return None
        return keys if isinstance(keys, ApiKeys) else cls([(bare_key_name(keys), keys)])

    def names(self) -> list[str]:
        return [name for name, _ in self._keys]

    def name_of(self, given: str) -> str | None:
        """The name of the key ``given``, or None; every key is compared, in constant time each."""
        found = None
        encoded = given.encode()
        for name, key in self._keys:
            if hmac.compare_digest(encoded, key) and given:
                found = name
        return found

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:  # never the keys themselves
        return f"ApiKeys({', '.join(self.names())})"


def _split(line: str) -> tuple[str, str, str]:
    """``name:key`` or ``name key`` (a space or a tab): the name, the separator ("" for a bare key) and the key."""
    spaced = re.match(r"(\S+)\s+(\S.*)$", line)
    if spaced and ":" not in spaced.group(1):
        return spaced.group(1), " ", spaced.group(2)
    return line.partition(":")


def bare_key_name(key: str) -> str:
    """The name of a key given without one: ``key-`` and the first 8 hex digits of its SHA-256."""
    return f"key-{hashlib.sha256(key.encode()).hexdigest()[:8]}"


def peer_host(peer: str) -> str:
    """The host of a gRPC peer (``context.peer()``): ``ipv4:10.0.0.7:51234`` -> ``10.0.0.7``.

    >>> peer_host("ipv4:10.0.0.7:51234"), peer_host("ipv6:[::1]:40000"), peer_host("unix:/tmp/s")
    ('10.0.0.7', '::1', 'unix')
    """
    kind, _, address = peer.partition(":")
    if kind == "ipv6":
        return address.rpartition("]")[0].lstrip("[") or address
    if kind == "ipv4":
        return address.rpartition(":")[0] or address
    return kind or "unknown"


def client_of(keys: ApiKeys | None, metadata: Any, host: str) -> str:
    """Who a call (gRPC) or request (web) comes from, for the per-client limits and the logs: ``key:<name>`` when
    the server takes keys (the call passed the key check), else ``peer:<host>`` (its address).

    >>> client_of(ApiKeys.parse("alice:k1"), [("x-api-key", "k1")], "10.0.0.7"), client_of(None, [], "10.0.0.7")
    ('key:alice', 'peer:10.0.0.7')
    """
    if keys is not None:
        name = keys.name_of(key_from_metadata(metadata))
        if name is not None:
            return f"key:{name}"
    return f"peer:{host}"
