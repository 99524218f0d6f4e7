"""Cheap explicit copies, declared as data: each class says how each of its attributes is copied.

Search copies a state thousands of times per decision, so ``clone()`` copies each mutable attribute once, the
cheapest way that keeps the copy independent, and shares everything immutable (tables, rules, frozen records). A
class declares its attributes in ``COPY`` (name -> how to copy it); :func:`copy_declared` merges the declarations of
the class and its bases once per class, then copies an object with one dict copy plus one call per mutable attribute.

- :data:`SHARED`: never copied: immutable, or only ever replaced whole (``self.stock = self.stock[3:]``), never
  changed in place;
- :data:`LIST`: a list of immutable items (ints, tuples, finished tricks that nobody changes again);
- :data:`DICT`: a dict of immutable values;
- :data:`OBJECT`: an object with its own ``copy()`` (a :class:`Copyable`);
- :data:`UNTIL_OVER`: an object with its own ``copy()`` and an ``over`` flag, after which it never changes (an
  auction, a trump choice): copied until it is over, then shared (a clone in the play shares the deal's auction);
- :data:`SHARED_UNTIL_WRITTEN`: an object with its own ``copy()`` and a ``shared`` flag, which a copy shares and
  marks shared: every holder copies it before it changes it (a match's :class:`engine.rng.Rng`, drawn from only as a
  deal begins: most clones never draw; Thunee's calling).

An attribute that is not declared must hold an immutable value (None, a number, a string, a tuple, a frozen
dataclass): ``tests/test_clone.py`` checks that of every game at many points of random matches.

>>> class Pile(Copyable):
...     COPY = {"cards": LIST, "name": SHARED}
...     def __init__(self) -> None:
...         self.cards, self.name = [1, 2], "stock"
>>> a = Pile(); b = a.copy(); b.cards.append(3)
>>> a.cards, b.cards, a.name is b.name
([1, 2], [1, 2, 3], True)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

if TYPE_CHECKING:
    from . import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from . import _cython_shim as cython

Copier = Callable[[Any], Any]

SHARED: None = None


def _object(value: Any) -> Any:
    return value.copy()


def _until_over(value: Any) -> Any:
    return value if value.over else value.copy()


def _shared_until_written(value: Any) -> Any:
    value.shared = True
    return value


LIST: Copier = list.copy
DICT: Copier = dict.copy
OBJECT: Copier = _object
SHARED_UNTIL_WRITTEN: Copier = _shared_until_written
UNTIL_OVER: Copier = _until_over

_PLANS: dict[type, tuple[tuple[str, Copier], ...]] = {}

T = TypeVar("T")


def declared(cls: type) -> dict[str, Copier | None]:
    """Every attribute ``cls`` and its bases declare in ``COPY``, with how it is copied (a subclass overrides)."""
    merged: dict[str, Copier | None] = {}
    for klass in reversed(cls.__mro__):
        merged.update(klass.__dict__.get("COPY", {}))
    return merged


def copy_plan(cls: type) -> tuple[tuple[str, Copier], ...]:
    """The (attribute, copier) pairs of ``cls``'s mutable attributes, computed once per class."""
    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = tuple((name, how) for name, how in declared(cls).items() if how is not None)
    return plan


# Per class: its declared copies of the attributes held in the instance's __dict__, and of its typed fields (a
# compiled TrickCore's ``FIELDS``, copied by its ``_copy_fields``; None for a class without any).
_SPLIT: dict[type, tuple[tuple[tuple[str, Copier], ...], tuple[Copier | None, ...] | None]] = cython.declare(dict, {})


def _split_plan(cls: type) -> tuple[tuple[tuple[str, Copier], ...], tuple[Copier | None, ...] | None]:
    fields: tuple[str, ...] = getattr(cls, "FIELDS", ())
    how = declared(cls)
    split = (tuple((name, copy) for name, copy in copy_plan(cls) if name not in fields),
             tuple(how.get(name) for name in fields) if fields else None)
    _SPLIT[cls] = split
    return split


@cython.locals(items=list)
def field_copy(value: Any, how: Copier | None) -> Any:
    """``value`` copied as ``how`` says (None: shared as it is, as is a None value); compiled, the common copiers
    without a Python call. The copy of a class's typed fields (``_copy_fields`` of the C classes of engine/trickgame.py,
    fishing.py and auction.py) calls it in C (engine/clone.pxd)."""
    if how is None or value is None:
        return value
    if how is LIST:
        items = value
        return items[:]
    if how is SHARED_UNTIL_WRITTEN:
        value.shared = True
        return value
    if how is UNTIL_OVER:
        return value if value.over else value.copy()
    return how(value)


@cython.locals(cls=type, attrs=dict)
def copy_declared(obj: T) -> T:
    """A copy of ``obj``: its attributes shared, then each declared mutable one (when not None) copied once."""
    cls = type(obj)
    in_dict, fields = _SPLIT.get(cls) or _split_plan(cls)
    new = cls.__new__(cls)  # (compiled: the type's own allocator, called in C)
    if fields is not None:  # (a compiled TrickCore: its fields copied by it, the rest from its __dict__)
        obj._copy_fields(new, fields)  # type: ignore[attr-defined]
    attrs = obj.__dict__
    attrs = attrs.copy()
    compiled = cython.compiled  # (from source: no extra call per attribute)
    for name, how in in_dict:
        value = attrs.get(name)
        if value is not None:
            attrs[name] = field_copy(value, how) if compiled else how(value)
    new.__dict__ = attrs
    return new


def fields_of(obj: object) -> dict[str, Any]:
    """Every attribute of ``obj``: its ``__dict__`` with, compiled, a TrickCore's typed fields (``vars`` shows the
    first alone)."""
    return {**{name: getattr(obj, name) for name in getattr(type(obj), "FIELDS", ())}, **vars(obj)}


class Copyable:
    """A class whose ``copy()`` follows its ``COPY`` declarations (see the module docstring)."""

    COPY: ClassVar[Mapping[str, Copier | None]] = {}

    def copy(self: T) -> T:
        return copy_declared(self)
