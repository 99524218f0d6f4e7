"""The few names of Cython's pure-Python mode (``import cython``) the engine's typed modules use, as plain Python:
what they run with where Cython is not installed (it is a build requirement of the dev extra only), and what mypy
reads for them (Cython's own ``cython`` module carries no type information).

Compiled, ``import cython`` is Cython's own: the decorators and declarations below become C types; here they do
nothing (``compiled`` is False), so the module runs as the Python it is.
"""

from __future__ import annotations

import builtins
import ctypes
from collections.abc import Callable
from typing import Any, TypeVar, overload

_F = TypeVar("_F")
_V = TypeVar("_V")

compiled: bool = False


class _CType:
    """A C type's name and its size in bytes (``sizeof``, as this platform's C has it): ``ulonglong[8]`` (an array
    of it) names one too."""

    def __init__(self, size: builtins.int) -> None:
        self.size = size

    def __getitem__(self, count: object) -> _CType:
        return _CType(self.size * count) if isinstance(count, builtins.int) else self


int = bint = _CType(ctypes.sizeof(ctypes.c_int))  # noqa: A001  (Cython's names, shadowed here)
uint = _CType(ctypes.sizeof(ctypes.c_uint))
longlong, ulonglong = _CType(ctypes.sizeof(ctypes.c_longlong)), _CType(ctypes.sizeof(ctypes.c_ulonglong))
char = _CType(1)
p_int = p_ulonglong = p_longlong = _CType(ctypes.sizeof(ctypes.c_void_p))
Py_ssize_t = _CType(ctypes.sizeof(ctypes.c_ssize_t))
float, double = _CType(ctypes.sizeof(ctypes.c_float)), _CType(ctypes.sizeof(ctypes.c_double))  # noqa: A001


def sizeof(c_type: _CType) -> builtins.int:
    """The size of ``c_type`` in bytes.

    >>> sizeof(longlong), sizeof(ulonglong[4])
    (8, 32)
    """
    return c_type.size


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

