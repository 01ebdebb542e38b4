"""Importing LanceDB at about half its CPU cost, by letting pydantic build its validators on first use.

``import lancedb`` (0.40) imports ``lance_namespace``, whose generated REST client decorates 366
functions with pydantic's ``validate_call``; each builds its validator at import, which took 0.5 s of
the 1.4 s CPU of the import here (2 runs each: 1.36–1.41 s plain, 0.85 s deferred). plait never calls
that client, and every process that opens an index pays the import: ``plait index``, ``plait status``,
a cold ``plait search``. pydantic's own ``defer_build`` setting postpones those builds to a
validator's first call; it is made the default for the duration of the import only, through pydantic's
table of configuration defaults (a private name: when it is not there, LanceDB is imported as is).

On Python 3.11 LanceDB also takes ``override`` and ``EnforceOverrides`` from the ``overrides``
package, whose decorator checks each overriding method's signature against its parent's as the
class is made: about 0.2 s of every import here (4 runs each: 1.01–1.14 s, 0.82–0.89 s without).
On 3.12 and later LanceDB uses ``typing.override``, which only marks the method, and an empty
``EnforceOverrides``; for the duration of the import the package's two names are those forms.

The generated REST client's package (``lance_namespace_urllib3_client``) imports all its API classes
from its ``__init__``, about a quarter of the import (0.70 → 0.54 s, medians of 8 alternated runs),
while LanceDB needs only its ``models``. The package is entered in ``sys.modules`` unexecuted, with
its ``__path__``, so that its submodules import as usual; its own ``__init__`` runs on the first
attribute its module is asked for (``from lance_namespace_urllib3_client import ApiClient`` works as
before, later).
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import sys
import threading
from collections.abc import Callable
from types import ModuleType
from typing import Any

log = logging.getLogger(__name__)

_lock = threading.Lock()


def import_lancedb() -> ModuleType:
    """``lancedb``, imported with pydantic's validators of its import-time definitions deferred.

    Thread-safe: a second caller waits for the first import to finish (``sys.modules`` holds the module
    from the start of its import, so it is not a sign that the import is done)."""
    with _lock:
        if "lancedb" not in sys.modules:
            _import_deferred()
    import lancedb  # done by now: Python's own import lock covers an import begun elsewhere

    return lancedb


#: Packages whose ``__init__`` LanceDB's import does not need (see the module docstring).
DEFERRED_PACKAGES = ("lance_namespace_urllib3_client",)


def _import_deferred() -> None:
    for name in DEFERRED_PACKAGES:
        _defer_package_init(name)
    restore = _marking_overrides()
    try:
        _import_validators_deferred()
    finally:
        restore()


def _defer_package_init(name: str) -> None:
    """Enter package ``name`` in ``sys.modules`` with its ``__path__`` but its ``__init__`` not yet run;
    the first attribute asked of it that it lacks runs the ``__init__`` (once, under a lock) and is then
    looked up. Nothing is done for a package already imported, absent, or that is no package."""
    if name in sys.modules:
        return
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError) as exc:
        log.debug("%s not deferred: %s", name, exc)
        return
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    module = importlib.util.module_from_spec(spec)
    loader = spec.loader
    lock = threading.RLock()

    def __getattr__(attr: str) -> Any:  # the module's own (PEP 562)
        with lock:
            if module.__dict__.get("__getattr__") is __getattr__:
                del module.__dict__["__getattr__"]
                try:
                    loader.exec_module(module)
                except BaseException:
                    sys.modules.pop(name, None)  # as a failed import leaves it: the next import retries
                    raise
        try:
            return module.__dict__[attr]
        except KeyError:
            raise AttributeError(f"module {name!r} has no attribute {attr!r}") from None

    module.__dict__["__getattr__"] = __getattr__
    sys.modules[name] = module


def _import_validators_deferred() -> None:
    try:
        from pydantic._internal import _config

        defaults = _config.config_defaults
        previous = defaults["defer_build"]
    except Exception as exc:  # another pydantic: import as is
        log.debug("pydantic's build defaults not found, LanceDB imported as is: %s", exc)
        import lancedb

        return
    defaults["defer_build"] = True
    try:
        import lancedb  # noqa: F401
    finally:
        defaults["defer_build"] = previous


class _NoEnforcement:
    """What LanceDB derives its connections from on Python 3.12+ (``EnforceOverrides`` there)."""


def _mark_override(method: Any) -> Any:
    """``typing.override`` of Python 3.12: marks the method, checks nothing."""
    try:
        method.__override__ = True
    except (AttributeError, TypeError):  # a builtin or a slot wrapper: nothing to mark
        pass
    return method


def _marking_overrides() -> Callable[[], None]:
    """Give the ``overrides`` package Python 3.12's forms of its two names LanceDB imports; returns the
    undo. Nothing to do where LanceDB does not import them (3.12+) or the package is absent."""
    if sys.version_info >= (3, 12):
        return lambda: None
    try:
        package: Any = importlib.import_module("overrides")
    except ImportError:
        return lambda: None
    saved = package.override, package.EnforceOverrides

    def restore() -> None:
        package.override, package.EnforceOverrides = saved

    package.override, package.EnforceOverrides = _mark_override, _NoEnforcement
    return restore
