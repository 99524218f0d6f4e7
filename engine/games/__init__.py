"""One package per game, ``engine/games/<game>/``: importing this package imports each of them, and each registers
its game (``@register`` on its class, engine/registry.py), so a new game is its folder and that one line
(docs/adding_a_game.md). The folders are read from the source tree, which the compiled engine keeps beside its build."""

from importlib import import_module

from .._native import SOURCE

for _folder in sorted((SOURCE / "games").iterdir()):
    if (_folder / "__init__.py").is_file():
        import_module(f"{__name__}.{_folder.name}")
