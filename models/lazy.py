"""Modules and names imported on first use, so that a command which never needs numpy or pyarrow does
not pay for importing them (``plait search --mode text`` starts in a fraction of a second).

``indexer``, ``models`` and ``search`` list their public names in a table (submodule → names) and
call :func:`lazy_exports` from their ``__init__``: importing the package loads none of its
submodules, and the first use of a name loads only the submodule that defines it. Other packages
reach a package through these names only (``lint-imports`` checks it).

``np = lazy_module("numpy")`` binds a stand-in; the first attribute read (``np.array``) imports numpy
and every later read is forwarded to it. Until then ``sys.modules`` holds no ``numpy``, which is what
``tests/test_startup_imports.py`` checks. Pair it with an ``if TYPE_CHECKING:`` import of the real
module so that type checkers see the real names.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any


class LazyModule(types.ModuleType):
    """Stands for the module ``name`` and imports it on the first attribute read."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.__dict__["_lazy_target"] = None

    def _load(self) -> types.ModuleType:
        module: types.ModuleType | None = self.__dict__["_lazy_target"]
        if module is None:
            module = importlib.import_module(self.__name__)
            self.__dict__["_lazy_target"] = module
        return module

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._load(), attr)

    def __repr__(self) -> str:
        state = "imported" if self.__dict__["_lazy_target"] is not None else "not imported yet"
        return f"<lazy module {self.__name__!r} ({state})>"


def lazy_module(name: str) -> Any:
    """A stand-in for the module ``name`` that imports it when first used."""
    return LazyModule(name)


def lazy_exports(package: str, table: Mapping[str, Sequence[str]]) -> tuple[list[str], Callable[[str], Any]]:
    """``__all__`` and the module ``__getattr__`` for ``package`` whose public names are ``table``
    (submodule → names). A name is looked up once, then kept as an attribute of the package."""
    where = {name: module for module, names in table.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return sorted(where), __getattr__
