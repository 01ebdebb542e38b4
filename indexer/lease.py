"""The writer lease of an index on object storage: ``<index>/writer.lease``, one writer across machines.

A local file lock (``indexer.lock``) only excludes writers of one machine. For an index at
``s3://``, ``gs://`` or ``az://`` the writer takes a *lease object* beside the tables instead: a small
JSON record ``{"holder": ..., "token": ..., "expires": ...}``.

* **Acquire** — a conditional put that succeeds only if the object does not exist (S3
  ``If-None-Match: *``; GCS and Azure have their own preconditions; ``obstore``'s ``mode="create"``).
  The one writer whose put lands holds the lease; the others read the record and either wait for it
  (``wait`` seconds, polling) or raise :class:`~indexer.errors.IndexLockedError` naming the holder.
* **Expiry** — a holder that died leaves a record whose ``expires`` has passed; a new writer takes it
  over with a put conditional on the record's ETag (``If-Match``), so of two writers that both see
  the expired record exactly one wins.
* **Renewal** — while the writer works, a daemon thread pushes ``expires`` forward every third of the
  lease's time to live, again conditional on the ETag it last wrote; a failed renewal (the lease was
  taken over after a stall) is logged and reported by :attr:`ObjectLease.lost`.
* **Release** — the record is deleted if it is still ours.
* **Stores without conditional puts** — the put is plain when the object is absent, then read back:
  the writer holds the lease only if the record read is its own (a read-after-write check; weaker,
  since two writers can both pass it within one round trip, and said so in the log).

Credentials and the endpoint come from the standard variables (``AWS_ACCESS_KEY_ID``,
``AWS_ENDPOINT_URL``, ``AWS_ALLOW_HTTP``, ...) that LanceDB reads too. ``obstore`` is imported only
here, only for remote indexes.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from indexer.errors import IndexLockedError, IndexStoreError

log = logging.getLogger(__name__)

LEASE_NAME = "writer.lease"
DEFAULT_TTL = 120.0  # seconds; renewed every third of it while the writer works


@dataclass(frozen=True, slots=True)
class LeaseRecord:
    holder: str
    token: str
    expires: float  # Unix time

    def describe(self) -> str:
        left = self.expires - time.time()
        return f"{self.holder}, lease for {max(0, round(left))}s more"


def _open_store(uri: str) -> Any:
    try:
        from obstore.store import from_url
    except ImportError as exc:  # a dependency of plait; missing only in a broken install
        raise IndexStoreError(f"an index at {uri} needs the obstore package; reinstall plait.") from exc
    try:
        if uri.startswith(("s3://", "s3a://")):  # S3's If-None-Match / If-Match, off by default
            return from_url(uri, conditional_put="etag")
        return from_url(uri)
    except Exception as exc:  # obstore raises its own errors for bad URLs and options
        raise IndexStoreError(f"cannot open the object store at {uri}: {exc}") from exc


class ObjectLease:
    """One writer's lease on the index at ``uri`` (see the module docstring)."""

    def __init__(self, uri: str, *, ttl: float = DEFAULT_TTL, clock: Callable[[], float] = time.time) -> None:
        if ttl <= 0:
            raise ValueError(f"ttl must be positive, got {ttl}")
        self.uri = uri
        self.ttl = ttl
        self.clock = clock
        self.store = _open_store(uri)
        self.token = uuid.uuid4().hex
        self.holder = f"pid {os.getpid()} on {socket.gethostname()}"
        self.lost = False
        self._etag: str | None = None
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None

    # -- reading ----------------------------------------------------------------------------------
    def read(self) -> tuple[LeaseRecord, str | None] | None:
        """The record now at ``writer.lease`` and its ETag; ``None`` when there is none."""
        import obstore

        try:
            got = obstore.get(self.store, LEASE_NAME)
            raw = bytes(got.bytes())
            etag = got.meta.get("e_tag")
        except FileNotFoundError:  # obstore's "not found" (its NotFoundError is deprecated)
            return None
        except Exception as exc:
            raise _translate(self.uri, exc) from exc
        try:
            data = json.loads(raw)
            record = LeaseRecord(str(data["holder"]), str(data["token"]), float(data["expires"]))
        except (ValueError, KeyError, TypeError):
            record = LeaseRecord("an unreadable lease record", "", 0.0)  # treated as expired
        return record, etag

    def current(self) -> LeaseRecord | None:
        """The live (unexpired) lease, if a writer holds one."""
        found = self.read()
        if found is None or found[0].expires <= self.clock():
            return None
        return found[0]

    # -- writing ----------------------------------------------------------------------------------
    def _body(self) -> bytes:
        record = {"holder": self.holder, "token": self.token, "expires": self.clock() + self.ttl}
        return json.dumps(record).encode()

    def _put(self, mode: Any) -> bool:
        """A conditional put; False when its precondition failed (another writer was first)."""
        import obstore
        from obstore.exceptions import AlreadyExistsError, NotSupportedError, PreconditionError

        try:
            result = obstore.put(self.store, LEASE_NAME, self._body(), mode=mode)
        except (AlreadyExistsError, PreconditionError):
            return False
        except NotSupportedError:
            return self._put_checked()
        except Exception as exc:
            raise _translate(self.uri, exc) from exc
        self._etag = result.get("e_tag")
        return True

    def _put_checked(self) -> bool:
        """No conditional puts here: a plain put, then a read-after-write check that it is ours."""
        import obstore

        log.warning(
            "%s has no conditional puts; the writer lease falls back to a read-after-write check", self.uri
        )
        try:
            obstore.put(self.store, LEASE_NAME, self._body())
        except Exception as exc:
            raise _translate(self.uri, exc) from exc
        found = self.read()
        if found is None or found[0].token != self.token:
            return False
        self._etag = found[1]
        return True

    def try_acquire(self) -> LeaseRecord | None:
        """One attempt: ``None`` when the lease is now ours, else the live record of its holder."""
        for _ in range(3):  # the record can vanish between a failed put and the read (a release)
            if self._put("create"):
                return None
            found = self.read()
            if found is None:
                continue
            record, etag = found
            if record.expires > self.clock():
                return record
            log.warning("taking over the expired writer lease of %s at %s", record.holder, self.uri)
            if etag is not None and self._put({"e_tag": etag}):
                return None
        return self.current() or LeaseRecord("another writer", "", self.clock())

    def acquire(self, *, wait: float = 0.0, poll: float = 0.5) -> None:
        """Hold the lease; wait up to ``wait`` seconds for a live holder, then raise IndexLockedError."""
        deadline = time.monotonic() + wait
        while True:
            holder = self.try_acquire()
            if holder is None:
                break
            if time.monotonic() >= deadline:
                raise IndexLockedError(self.uri, holder.describe())
            time.sleep(min(poll, max(0.0, deadline - time.monotonic())) or poll)
        self._stop.clear()
        self._renewer = threading.Thread(target=self._renew_loop, name="plait-lease", daemon=True)
        self._renewer.start()

    def _renew_loop(self) -> None:
        while not self._stop.wait(self.ttl / 3):
            try:
                if self._etag is None or not self._put({"e_tag": self._etag}):
                    self.lost = True
                    log.error("lost the writer lease of %s to another writer", self.uri)
                    return
            except Exception as exc:  # top of a thread: log, keep the build going; the next try may work
                log.warning("renewing the writer lease of %s failed: %s", self.uri, exc)

    def release(self) -> None:
        """Stop renewing and delete the record if it is still ours."""
        import obstore

        self._stop.set()
        if self._renewer is not None:
            self._renewer.join(timeout=30)
        try:
            found = self.read()
        except IndexStoreError as exc:  # never hide the error that ended the build
            log.warning("could not read the writer lease of %s (it expires by itself): %s", self.uri, exc)
            return
        if found is not None and found[0].token == self.token:
            try:
                obstore.delete(self.store, LEASE_NAME)
            except Exception as exc:
                log.warning(
                    "could not delete the writer lease of %s (it expires by itself): %s", self.uri, exc
                )


# --- errors at the object-store boundary -----------------------------------------------------------

_HINTS: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        ("NoSuchBucket", "bucket does not exist"),
        "the bucket of {uri} does not exist; create it, or fix the bucket name in --index-dir",
    ),
    (
        ("InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "403 Forbidden", "ExpiredToken"),
        "the object store refused the credentials for {uri}; check AWS_ACCESS_KEY_ID / "
        "AWS_SECRET_ACCESS_KEY (or your cloud's credentials) and the bucket's permissions",
    ),
    (
        ("Connection refused", "error trying to connect", "dns error", "ConnectError"),
        "cannot reach the object store for {uri}; check AWS_ENDPOINT_URL (and AWS_ALLOW_HTTP=true for "
        "an http:// endpoint) and the network",
    ),
)


def remote_hint(uri: str, exc: BaseException) -> str | None:
    """A clear message for an object-store failure (missing bucket, refused credentials, no endpoint)."""
    text = str(exc)
    for needles, message in _HINTS:
        if any(n.lower() in text.lower() for n in needles):
            return message.format(uri=uri)
    return None


def _translate(uri: str, exc: BaseException) -> IndexStoreError:
    hint = remote_hint(uri, exc)
    if hint is not None:
        return IndexStoreError(hint + ".")
    return IndexStoreError(
        f"the object store at {uri} failed: {str(exc).splitlines()[0] if str(exc) else exc!r}"
    )
