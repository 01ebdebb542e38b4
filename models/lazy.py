"""Modules imported on first use, so that a command which never needs numpy or pyarrow does not pay
for importing them (``plait search --mode text`` starts in a fraction of a second).

``np = lazy_module("numpy")`` binds a stand-in; the first attribute read (``np.array``) imports numpy
and every later read is forwarded to it. Until then ``sys.modules`` holds no ``numpy``, which is what
``tests/test_startup_imports.py`` checks. Pair it with an ``if TYPE_CHECKING:`` import of the real
module so that type checkers see the real names.
"""

from __future__ import annotations

import importlib
import types
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
