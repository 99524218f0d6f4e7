"""The few names of Cython's pure-Python mode (``import cython``) the engine's typed modules use, as plain Python:
what they run with where Cython is not installed (it is a build requirement of the dev extra only), and what mypy
reads for them (Cython's own ``cython`` module carries no type information).

Compiled, ``import cython`` is Cython's own: the decorators and declarations below become C types; here they do
nothing (``compiled`` is False), so the module runs as the Python it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

_F = TypeVar("_F")
_V = TypeVar("_V")

compiled: bool = False


class _CType:
    """A C type's name: ``ulonglong[8]`` (an array of it) names one too."""

    def __getitem__(self, size: object) -> _CType:
        return self


int = uint = longlong = ulonglong = char = bint = p_int = p_ulonglong = p_longlong = Py_ssize_t = _CType()  # noqa: A001  (Cython's names, shadowed here)
float = double = _CType()  # noqa: A001


def sizeof(_type: object) -> Any:
    raise NotImplementedError("sizeof: C types only (compiled)")


def _same(f: _F) -> _F:
    return f


cclass = cfunc = final = inline = _same


def boundscheck(_on: bool) -> Callable[[_F], _F]:
    return _same


wraparound = cdivision = boundscheck


def locals(**_types: object) -> Callable[[_F], _F]:  # noqa: A001  (Cython's name)
    return _same


def returns(_type: object) -> Callable[[_F], _F]:
    return _same


def exceptval(_value: object = None, *, check: bool = True) -> Callable[[_F], _F]:
    return _same


def cast(_type: object, value: _V, /) -> _V:
    """``value`` itself (compiled: a C cast, unchecked)."""
    return value


@overload
def declare(_type: object, value: _V, /) -> _V: ...


@overload
def declare(_type: object, /, *, visibility: str) -> Any: ...


@overload
def declare(**_names: object) -> None: ...


def declare(_type: object = None, value: Any = None, **_names: object) -> Any:
    """A declaration's value: ``value`` when given, else None (the compiled build gives the C variable instead; a
    class's ``name = declare(type, visibility="public")`` is a C attribute that Python code reads and writes)."""
    return value

