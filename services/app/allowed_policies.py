"""Which policies a remote client may name: those the operator allowed when starting the server.

A client of the gRPC API or of the web page names a built-in policy, one an installed package registers (entry-point
group ``cardtable.policies``), or an import path ``module:Class`` whose module the operator listed, or a module inside
a listed package (``cardtable serve --allow-policies mybots,teambots`` allows ``mybots.cautious:Cautious``). Anything
else is refused before anything is imported: the server runs no code a client picked. Local commands (``cardtable
simulate``, ``play``...) do not go through here: their user is the operator.

>>> allowed = PolicyAllowList.parse(["mybots, teambots"])
>>> [allowed.allows(name) for name in ("greedy", "mybots.cautious:Cautious", "mybotsx:Bot", "unittest.__main__:X")]
[True, True, False, False]
>>> PolicyAllowList().check("unittest.__main__:X")
Traceback (most recent call last):
services.app.errors.InvalidArgument: policy 'unittest.__main__:X' is not allowed on this server; the policies are \
greedy, ismcts, pimc, random (built in); no import paths are allowed on this server; start it with --allow-policies \
MODULE
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.bots import builtin_policy_names
from engine.bots.plugins import entry_point_names, is_import_path
from engine.errors import UnknownPolicy

from .errors import InvalidArgument, quoted

ALLOW_FLAG = "--allow-policies"


def is_module_name(text: str) -> bool:
    """Whether ``text`` is an absolute dotted module name (``mybots.cautious``), as an import path's module must be."""
    return all(part.isidentifier() for part in text.split("."))


@dataclass(frozen=True)
class PolicyAllowList:
    """The modules (and the modules inside them) whose policies a client may name by import path; the built-in
    policies and the installed entry points are always allowed. The default allows no import path."""

    modules: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for module in self.modules:
            if not is_module_name(module):
                raise ValueError(f"{module!r} is not a module name (such as mybots or mybots.cautious)")

    @classmethod
    def parse(cls, texts: Iterable[str]) -> PolicyAllowList:
        """From the operator's texts, each one module or several separated by commas (``["mybots,teambots"]``)."""
        modules = [name.strip() for text in texts for name in text.split(",")]
        return cls(tuple(dict.fromkeys(name for name in modules if name)))

    def allows(self, name: str) -> bool:
        """Whether a client may name policy ``name`` (a label's name: ``greedy``, ``mybots.cautious:Cautious``)."""
        if not is_import_path(name):
            return name in builtin_policy_names() or name in entry_point_names()
        module = name.partition(":")[0]
        return is_module_name(module) and any(module == allowed or module.startswith(f"{allowed}.")
                                              for allowed in self.modules)

    def check(self, name: str) -> None:
        """InvalidArgument (an import path), or UnknownPolicy, naming the allowed sources unless a client may name
        policy ``name``."""
        if self.allows(name):
            return
        if not is_import_path(name):
            raise UnknownPolicy(name, self.describe())
        raise InvalidArgument(f"policy {quoted(name)} is not allowed on this server; {self.describe()}")

    def describe(self) -> str:
        """The allowed sources in words: the built-ins, the entry points, the modules of the allowed import paths."""
        sources = f"the policies are {', '.join(builtin_policy_names())} (built in)"
        entry_points = entry_point_names()
        if entry_points:
            sources += f", {', '.join(entry_points)} (installed entry points)"
        if not self.modules:
            return f"{sources}; no import paths are allowed on this server; start it with {ALLOW_FLAG} MODULE"
        return f"{sources} and import paths module:Class in the allowed modules {', '.join(self.modules)}"
