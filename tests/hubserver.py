"""A stand-in for the Hugging Face hub on 127.0.0.1, serving Objaverse 1.0's layout from test fixtures.

`HubFixture` builds the files `objaverse` asks for (`object-paths.json.gz`, `metadata/000-NNN.json.gz`,
`glbs/000-NNN/<uid>.glb`, `lvis-annotations.json.gz`); `HubServer` serves them under the dataset's
`/datasets/allenai/objaverse/resolve/main/` prefix and can be made slow, flaky or to cut files short.
"""

from __future__ import annotations

import gzip
import hashlib
import http.server
import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

import yaml

PREFIX = "/datasets/allenai/objaverse/resolve/main/"
REAL_LVIS = Path(__file__).resolve().parent / "fixtures" / "lvis-annotations.json.gz"  # Objaverse 1.0's own file


@dataclass
class HubFixture:
    """Models by uid with their metadata, laid out as the hub stores them."""

    models: dict[str, bytes] = field(default_factory=dict)
    metadata: dict[str, dict] = field(default_factory=dict)
    folders: dict[str, str] = field(default_factory=dict)

    def add(self, uid: str, glb: bytes, license: str = "by", folder: str = "000-001", title: str = "", **extra) -> str:
        self.models[uid] = glb
        self.folders[uid] = folder
        self.metadata[uid] = {
            "uid": uid,
            "name": title or f"Model {uid[:6]}",
            "license": license,
            "viewerUrl": f"https://sketchfab.com/3d-models/{uid}",
            "user": {"displayName": f"Author {uid[:4]}", "username": f"author{uid[:4]}"},
            "archives": {"glb": {"size": len(glb), "type": "glb"}},
            **extra,
        }
        return uid

    def files(self) -> dict[str, bytes]:
        """Path under the dataset root -> bytes, for every file of the layout."""
        out = {
            "object-paths.json.gz": gzip.compress(
                json.dumps({uid: f"glbs/{self.folders[uid]}/{uid}.glb" for uid in self.models}).encode()
            ),
            "lvis-annotations.json.gz": REAL_LVIS.read_bytes(),
        }
        for folder in sorted(set(self.folders.values())):
            shard = {uid: self.metadata[uid] for uid in self.models if self.folders[uid] == folder}
            out[f"metadata/{folder}.json.gz"] = gzip.compress(json.dumps(shard).encode())
        for uid, glb in self.models.items():
            out[f"glbs/{self.folders[uid]}/{uid}.glb"] = glb
        return out


class HubServer:
    """A threaded HTTP server for a fixture; `with HubServer(fixture) as hub: hub.url`.

    Knobs (change them at any time): `chunk_delay_s` slows every GLB to one 4 KiB chunk per delay;
    `fail[path] = n` answers the next n requests for `path` with 503; `cut` holds paths whose body
    stops halfway although the Content-Length promised it all. `requests` logs every path asked for.
    """

    def __init__(self, fixture: HubFixture) -> None:
        self.files = fixture.files()
        self.chunk_delay_s = 0.0
        self.fail: dict[str, int] = {}
        self.cut: set[str] = set()
        self.requests: list[str] = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.requests.append(self.path)
                path = self.path.removeprefix(PREFIX)
                if not self.path.startswith(PREFIX) or path not in server.files:
                    self.send_error(404)
                    return
                if server.fail.get(path, 0) > 0:
                    server.fail[path] -= 1
                    self.send_error(503)
                    return
                body = server.files[path]
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if path in server.cut:
                    body = body[: len(body) // 2]
                chunk = 4096 if path.startswith("glbs/") and server.chunk_delay_s > 0 else max(1, len(body))
                try:
                    for start in range(0, len(body), chunk):
                        self.wfile.write(body[start : start + chunk])
                        self.wfile.flush()
                        if chunk == 4096:
                            time.sleep(server.chunk_delay_s)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client gave up (a timeout test, or a killed fetch)
                if path in server.cut:
                    self.close_connection = True

            def log_message(self, *args: object) -> None:
                pass

        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self) -> Self:
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def glb_requests(self) -> list[str]:
        return [p for p in self.requests if "/glbs/" in p]


def uid_of(name: str) -> str:
    """A stable 32-hex uid for a fixture model."""
    return hashlib.md5(name.encode()).hexdigest()


def write_catalog(path: Path, objects: list[dict]) -> Path:
    """A catalog YAML of `objects` (name, size_m, and any other catalog field)."""
    entries = [{"kind": "artifact", "group": "test", **obj} for obj in objects]
    path.write_text(yaml.safe_dump({"objects": entries}, sort_keys=False), encoding="utf-8")
    return path
