"""The `objaverse` package, pointed at a hub or a mirror, with timeouts, retries and a cache of our choice.

`objaverse` 0.1.7 builds every URL as `https://huggingface.co/datasets/allenai/objaverse/resolve/main/…`
and fetches it with `urllib.request.urlretrieve`. `Hub` routes those URLs at one point: a urllib
handler that swaps the `https://huggingface.co` prefix for the chosen endpoint (a mirror keeps the
hub's layout) and sets a socket timeout. Every call into `objaverse` goes through `Hub.call`, which
retries with backoff and discards an index file a failed download left half written (`objaverse`
writes those in place). GLBs it writes as `<uid>.glb.tmp` and renames when complete, so a killed
download is never taken for a whole file.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import http.client
import json
import os
import threading
import time
import urllib.error
import urllib.request
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Self, TypeVar
from urllib.parse import urlsplit

import objaverse

from tabletest.errors import UserError

HUB_URL = "https://huggingface.co"
ENDPOINT_VARIABLE = "HF_ENDPOINT"  # the Hugging Face convention for mirrors
RETRIED_HTTP_CODES = {408, 425, 429, 500, 502, 503, 504}
_BROKEN_INDEX = (EOFError, gzip.BadGzipFile, zlib.error, json.JSONDecodeError, UnicodeDecodeError)
_INDEX_FILES = ("object-paths.json.gz", "lvis-annotations.json.gz", "metadata/*.json.gz")

T = TypeVar("T")


class HubFileError(Exception):
    """One file the hub would not give us whole (missing, refused, cut short): skip it, go on."""


def hub_endpoint(mirror: str | None) -> str:
    """The base URL to fetch from: `--mirror`, else $HF_ENDPOINT, else the Hugging Face hub."""
    value, origin = (mirror, "--mirror") if mirror else (os.environ.get(ENDPOINT_VARIABLE), ENDPOINT_VARIABLE)
    if not value:
        return HUB_URL
    parts = urlsplit(value.strip())
    if parts.scheme not in {"http", "https"} or not parts.netloc or parts.query or parts.fragment:
        raise UserError(f"{origin} {value!r} is not an http(s) base URL; write it like https://hf-mirror.com")
    return value.strip().rstrip("/")


class _RouteToEndpoint(urllib.request.BaseHandler):
    """Rewrites hub URLs to the endpoint and gives every request a timeout (urllib's default is none)."""

    handler_order = 100  # before the HTTP handlers fill in the Host header

    def __init__(self, endpoint: str, timeout_s: float) -> None:
        self.endpoint, self.timeout_s = endpoint, timeout_s

    def _route(self, request: urllib.request.Request) -> urllib.request.Request:
        url = request.full_url
        if url.startswith(HUB_URL + "/"):
            request.full_url = self.endpoint + url[len(HUB_URL) :]
        request.timeout = self.timeout_s
        return request

    http_request = https_request = _route


@dataclass(frozen=True)
class Network:
    """How patient to be with the hub: per-read timeout, tries per file, first backoff (doubling)."""

    timeout_s: float = 60.0
    tries: int = 4
    backoff_s: float = 1.0


class Hub:
    """`objaverse` for the duration of a `with` block: routed, cached under `cache_dir`, retried."""

    def __init__(self, endpoint: str, cache_dir: Path, network: Network = Network()) -> None:
        self.endpoint, self.cache_dir, self.network = endpoint, Path(cache_dir), network
        self._index_lock = threading.Lock()  # objaverse writes index files in place: one writer at a time
        self._uid_locks: dict[str, threading.Lock] = {}
        self._saved: tuple | None = None
        self._quiet = contextlib.ExitStack()

    def __enter__(self) -> Self:
        self._saved = (
            objaverse.BASE_PATH,
            objaverse._VERSIONED_PATH,
            objaverse._load_object_paths,
            urllib.request._opener,  # type: ignore[attr-defined]
        )
        objaverse.BASE_PATH = str(self.cache_dir.parent)
        objaverse._VERSIONED_PATH = str(self.cache_dir)
        # objaverse re-reads its 800k-entry index (about 1 s) on every call; read it once per session
        objaverse._load_object_paths = functools.cache(self._saved[2])
        urllib.request.install_opener(
            urllib.request.build_opener(_RouteToEndpoint(self.endpoint, self.network.timeout_s))
        )
        # objaverse prints download counters to stdout; our progress lines (on stderr) say it once
        self._quiet.enter_context(contextlib.redirect_stdout(self._quiet.enter_context(open(os.devnull, "w"))))
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._saved is not None
        objaverse.BASE_PATH, objaverse._VERSIONED_PATH, objaverse._load_object_paths, opener = self._saved
        urllib.request.install_opener(opener)
        self._quiet.close()

    # ---- the calls into objaverse ----

    def known_uids(self) -> frozenset[str]:
        return frozenset(self._index("the object list (object-paths.json.gz)", objaverse.load_uids))

    def annotations(self, uids: list[str]) -> dict[str, dict]:
        return self._index("object metadata (metadata/*.json.gz)", objaverse.load_annotations, uids)

    def lvis(self) -> dict[str, list[str]]:
        return self._index("the LVIS categories (lvis-annotations.json.gz)", objaverse.load_lvis_annotations)

    def glb(self, uid: str) -> Path:
        """The cached GLB of `uid`, downloaded if absent. Raises HubFileError for a file the hub won't give."""
        with self._uid_locks.setdefault(uid, threading.Lock()):
            paths = self.call(f"GLB {uid}", objaverse.load_objects, [uid])
        if uid not in paths:
            raise HubFileError(f"uid {uid} is not in Objaverse's object list")
        return Path(paths[uid])

    def _index(self, what: str, fn: Callable[..., T], *args: object) -> T:
        with self._index_lock:
            try:
                return self.call(what, fn, *args)
            except HubFileError as err:
                raise UserError(
                    f"{err}; check that {self.endpoint} mirrors Objaverse 1.0, or try again later"
                ) from None

    def call(self, what: str, fn: Callable[..., T], *args: object) -> T:
        """`fn(*args)`, retried with doubling backoff on network trouble and half-written index files.

        An endpoint still unreachable after every try is a UserError; a file it refuses or keeps
        cutting short is a HubFileError, so one bad file does not stop the others.
        """
        last: Exception | None = None
        for attempt in range(self.network.tries):
            if attempt:
                time.sleep(self.network.backoff_s * 2 ** (attempt - 1))
            try:
                return fn(*args)
            except _BROKEN_INDEX as err:
                self.discard_broken_indexes()
                last = err
            except urllib.error.HTTPError as err:
                if err.code not in RETRIED_HTTP_CODES:
                    raise HubFileError(f"{what}: HTTP {err.code} {err.reason} from {err.url}") from None
                last = err
            except (urllib.error.ContentTooShortError, http.client.HTTPException, OSError) as err:
                last = err  # cut short, or the network: refused, reset, timed out, name not resolved
        if _is_network_failure(last):
            raise UserError(
                f"cannot reach the Objaverse hub at {self.endpoint} ({getattr(last, 'reason', last)}) after "
                f"{self.network.tries} tries; check --mirror / ${ENDPOINT_VARIABLE} and the network, "
                "or import your own files with `tabletest assets import DIR`"
            )
        raise HubFileError(f"{what}: gave up after {self.network.tries} tries ({type(last).__name__}: {last})")

    def discard_broken_indexes(self) -> None:
        """Delete the index files a failed or killed download left incomplete (they then download again)."""
        for pattern in _INDEX_FILES:
            for path in self.cache_dir.glob(pattern):
                if not _is_complete_gzip_json(path):
                    path.unlink(missing_ok=True)


def _is_network_failure(err: Exception | None) -> bool:
    file_level = (urllib.error.HTTPError, urllib.error.ContentTooShortError, http.client.HTTPException, *_BROKEN_INDEX)
    return isinstance(err, OSError) and not isinstance(err, file_level)


def _is_complete_gzip_json(path: Path) -> bool:
    try:
        with gzip.open(path, "rb") as fh:
            json.load(fh)
        return True
    except (*_BROKEN_INDEX, OSError):
        return False


@contextlib.contextmanager
def session(mirror: str | None, cache_dir: Path | None, network: Network = Network()) -> Iterator[Hub]:
    """A routed `Hub` over `cache_dir` (default: objaverse's own ~/.objaverse/hf-objaverse-v1)."""
    cache = Path(cache_dir) if cache_dir else Path(objaverse._VERSIONED_PATH)
    with Hub(hub_endpoint(mirror), cache.expanduser().resolve(), network) as hub:
        yield hub
