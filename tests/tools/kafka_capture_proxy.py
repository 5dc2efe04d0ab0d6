#!/usr/bin/env python3
"""Kafka capture proxy (Python 3 standard library only).

Listens on 127.0.0.1:<listen>, forwards every connection to
127.0.0.1:<target>, parses Kafka framing (4-byte big-endian size + frame) in
both directions, pairs each request with its response by correlation id and
writes the pairs as golden fixtures:

    <out>/<client>/<NNN>_<ApiName>_v<version>.request.bin   request header + body
    <out>/<client>/<NNN>_<ApiName>_v<version>.response.bin  response header + body
    <out>/manifest.json                                     one entry per pair

(the 4-byte size prefix is not part of either file).  NNN continues from what
is already in manifest.json for that client, so several proxy runs (one per
scenario) can write into the same output directory one after another.

To keep the fixtures small and representative only the first --keep pairs of
each (api, version) are written per run (i.e. per scenario), plus, for Fetch,
the first pair whose response is clearly bigger than the ones already kept
(i.e. one that carries records).  Pairs whose request or response frame is
bigger than --max-frame bytes are not written.  Produce requests with acks=0
have no response and are never written.

Run the broker with advertised.listeners=PLAINTEXT://127.0.0.1:<listen> so
that clients come back through the proxy after the bootstrap Metadata call.

The request header version (1 or 2) and response header version (0 or 1) are
derived from the flexibleVersions of Apache Kafka's message definitions
(--schema-dir, default: the project's shared reference copy): request header
v2 / response header v1 when the API version is flexible, except that
ApiVersions responses always use response header v0.

Usage:
    kafka_capture_proxy.py --listen 19192 --target 19092 --out DIR \
        --client java --scenario produce-gzip [--keep 2] [--ready-file F]

Stop it with SIGTERM or SIGINT; the manifest is rewritten after every pair.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import struct
import sys
import threading
from pathlib import Path

DEFAULT_SCHEMA_DIRS = [
    os.environ.get("HW_KAFKA_SCHEMA_DIR", ""),
    "/work/shared/reference/kafka-protocol/message",
    str(Path(__file__).resolve().parents[3] / "shared/reference/kafka-protocol/message"),
    str(Path(__file__).resolve().parents[2] / "shared/reference/kafka-protocol/message"),
]


# --------------------------------------------------------------------------
# Message definitions: api key -> name, flexible versions
# --------------------------------------------------------------------------

def strip_json_comments(text: str) -> str:
    """Remove // line comments that are outside JSON strings."""
    out_lines = []
    for line in text.splitlines():
        in_str = False
        esc = False
        cut = len(line)
        for i, ch in enumerate(line):
            if in_str:
                if esc:
                    esc = False
                elif ch == "\\":
                    esc = True
                elif ch == '"':
                    in_str = False
            elif ch == '"':
                in_str = True
            elif ch == "/" and line.startswith("//", i):
                cut = i
                break
        out_lines.append(line[:cut])
    return "\n".join(out_lines)


def parse_versions(spec: str) -> tuple[int, int] | None:
    """'none' -> None, '9+' -> (9, big), '3' -> (3, 3), '0-4' -> (0, 4)."""
    spec = (spec or "none").strip()
    if spec == "none":
        return None
    if spec.endswith("+"):
        return int(spec[:-1]), 1 << 15
    if "-" in spec:
        lo, hi = spec.split("-", 1)
        return int(lo), int(hi)
    return int(spec), int(spec)


class ApiInfo:
    def __init__(self) -> None:
        self.name: str = ""
        self.req_flexible: tuple[int, int] | None = None
        self.resp_flexible: tuple[int, int] | None = None


def load_schemas(schema_dir: str | None) -> dict[int, ApiInfo]:
    candidates = [schema_dir] if schema_dir else DEFAULT_SCHEMA_DIRS
    for d in candidates:
        if d and Path(d).is_dir():
            break
    else:
        raise SystemExit(f"capture-proxy: no Kafka message definitions found in {candidates}")
    apis: dict[int, ApiInfo] = {}
    for f in sorted(Path(d).glob("*.json")):
        try:
            obj = json.loads(strip_json_comments(f.read_text()))
        except json.JSONDecodeError as e:
            print(f"capture-proxy: skipping {f.name}: {e}", file=sys.stderr)
            continue
        kind = obj.get("type")
        if kind not in ("request", "response") or "apiKey" not in obj:
            continue
        info = apis.setdefault(int(obj["apiKey"]), ApiInfo())
        flex = parse_versions(obj.get("flexibleVersions", "none"))
        if kind == "request":
            info.name = re.sub(r"Request$", "", obj["name"])
            info.req_flexible = flex
        else:
            info.resp_flexible = flex
    return apis


def is_flexible(rng: tuple[int, int] | None, version: int) -> bool:
    return rng is not None and rng[0] <= version <= rng[1]


# --------------------------------------------------------------------------
# Capture store
# --------------------------------------------------------------------------

class Store:
    def __init__(self, out: Path, client: str, scenario: str, keep: int,
                 max_frame: int, apis: dict[int, ApiInfo]) -> None:
        self.out = out
        self.client = client
        self.scenario = scenario
        self.keep = keep
        self.max_frame = max_frame
        self.apis = apis
        self.lock = threading.Lock()
        self.manifest_path = out / "manifest.json"
        (out / client).mkdir(parents=True, exist_ok=True)
        if self.manifest_path.exists():
            self.manifest = json.loads(self.manifest_path.read_text())
        else:
            self.manifest = {"pairs": []}
        nums = [int(Path(p["request"]).name.split("_", 1)[0])
                for p in self.manifest["pairs"] if p["client"] == client]
        self.next_num = max(nums, default=0) + 1
        # (api_key, version) -> list of response sizes kept in this run
        self.kept: dict[tuple[int, int], list[int]] = {}
        self.seen = 0
        self.written = 0

    def want(self, api_key: int, version: int, req: bytes, resp: bytes) -> bool:
        if len(req) > self.max_frame or len(resp) > self.max_frame:
            return False
        sizes = self.kept.setdefault((api_key, version), [])
        if len(sizes) < self.keep:
            return True
        # Fetch: also keep the first response that clearly carries records
        # (a record batch has a 61-byte header) if none kept so far does.
        if api_key == 1 and len(sizes) == self.keep and len(resp) > min(sizes) + 61 \
                and max(sizes) <= min(sizes) + 61:
            return True
        return False

    def record(self, req: bytes, resp: bytes) -> None:
        api_key, version, corr = struct.unpack_from(">hhi", req, 0)
        (cid_len,) = struct.unpack_from(">h", req, 8)
        client_id = None if cid_len < 0 else req[10:10 + cid_len].decode("utf-8", "replace")
        info = self.apis.get(api_key)
        name = info.name if info and info.name else f"Api{api_key}"
        req_hv = 2 if info and is_flexible(info.req_flexible, version) else 1
        if api_key == 18:  # ApiVersions: response header is always v0
            resp_hv = 0
        else:
            resp_hv = 1 if info and is_flexible(info.resp_flexible, version) else 0
        with self.lock:
            self.seen += 1
            if not self.want(api_key, version, req, resp):
                return
            self.kept[(api_key, version)].append(len(resp))
            base = f"{self.next_num:03d}_{name}_v{version}"
            self.next_num += 1
            rel_req = f"{self.client}/{base}.request.bin"
            rel_resp = f"{self.client}/{base}.response.bin"
            (self.out / rel_req).write_bytes(req)
            (self.out / rel_resp).write_bytes(resp)
            self.manifest["pairs"].append({
                "request": rel_req,
                "response": rel_resp,
                "client": self.client,
                "scenario": self.scenario,
                "client_id": client_id,
                "api_key": api_key,
                "api_name": name,
                "api_version": version,
                "correlation_id": corr,
                "request_header_version": req_hv,
                "response_header_version": resp_hv,
                "request_size": len(req),
                "response_size": len(resp),
            })
            self.written += 1
            self._flush()

    def _flush(self) -> None:
        tmp = self.manifest_path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(self.manifest, indent=1) + "\n")
        os.replace(tmp, self.manifest_path)


# --------------------------------------------------------------------------
# Proxy
# --------------------------------------------------------------------------

def recv_exact(sock: socket.socket, n: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def read_frame(sock: socket.socket) -> bytes | None:
    head = recv_exact(sock, 4)
    if head is None:
        return None
    (size,) = struct.unpack(">i", head)
    if size < 0 or size > 256 * 1024 * 1024:
        raise ValueError(f"bad frame size {size}")
    return recv_exact(sock, size)


class Connection:
    def __init__(self, client_sock: socket.socket, target: int, store: Store) -> None:
        self.c = client_sock
        self.b = socket.create_connection(("127.0.0.1", target))
        self.store = store
        self.pending: dict[int, bytes] = {}
        self.lock = threading.Lock()

    def close(self) -> None:
        for s in (self.c, self.b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                s.close()
            except OSError:
                pass

    def upstream(self) -> None:
        try:
            while True:
                frame = read_frame(self.c)
                if frame is None:
                    break
                if len(frame) >= 10:
                    (corr,) = struct.unpack_from(">i", frame, 4)
                    with self.lock:
                        self.pending[corr] = frame
                self.b.sendall(struct.pack(">i", len(frame)) + frame)
        except (OSError, ValueError):
            pass
        finally:
            self.close()

    def downstream(self) -> None:
        try:
            while True:
                frame = read_frame(self.b)
                if frame is None:
                    break
                # Record first, then forward: once a client has seen a
                # response, its pair is on disk (the driver stops the proxy
                # as soon as the client exits).
                if len(frame) >= 4:
                    (corr,) = struct.unpack_from(">i", frame, 0)
                    with self.lock:
                        req = self.pending.pop(corr, None)
                    if req is not None:
                        try:
                            self.store.record(req, frame)
                        except Exception as e:  # never break the proxied stream
                            print(f"capture-proxy: record failed: {e!r}", file=sys.stderr)
                self.c.sendall(struct.pack(">i", len(frame)) + frame)
        except (OSError, ValueError):
            pass
        finally:
            self.close()

    def start(self) -> None:
        threading.Thread(target=self.upstream, daemon=True).start()
        threading.Thread(target=self.downstream, daemon=True).start()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--listen", type=int, required=True)
    ap.add_argument("--target", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--client", required=True, help='e.g. "java" or "librdkafka"')
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--keep", type=int, default=2,
                    help="pairs kept per (api, version) in this run (default 2)")
    ap.add_argument("--max-frame", type=int, default=256 * 1024 - 1,
                    help="skip pairs with a bigger request or response frame")
    ap.add_argument("--schema-dir", default=None)
    ap.add_argument("--ready-file", default=None,
                    help="file created once the proxy listens")
    args = ap.parse_args()

    apis = load_schemas(args.schema_dir)
    store = Store(Path(args.out), args.client, args.scenario, args.keep,
                  args.max_frame, apis)

    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", args.listen))
    srv.listen(64)

    stop = threading.Event()

    def on_signal(signum, frame):  # noqa: ARG001
        stop.set()
        try:
            srv.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        srv.close()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    if args.ready_file:
        Path(args.ready_file).write_text(str(os.getpid()) + "\n")
    print(f"capture-proxy: 127.0.0.1:{args.listen} -> 127.0.0.1:{args.target} "
          f"client={args.client} scenario={args.scenario}", file=sys.stderr)

    while not stop.is_set():
        try:
            c, _ = srv.accept()
        except OSError:
            break
        try:
            Connection(c, args.target, store).start()
        except OSError as e:
            print(f"capture-proxy: upstream connect failed: {e}", file=sys.stderr)
            c.close()

    store.lock.acquire()  # let a pair being written finish, then keep others out
    print(f"capture-proxy: scenario={args.scenario}: {store.seen} pairs seen, "
          f"{store.written} written", file=sys.stderr)
    os._exit(0)  # do not wait for (or run) the daemon connection threads


if __name__ == "__main__":
    sys.exit(main())
