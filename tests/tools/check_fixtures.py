#!/usr/bin/env python3
"""Consistency check of the captured protocol fixtures (standard library only).

    tests/tools/check_fixtures.py [fixtures-dir]   (default tests/protocol/fixtures)

Checks, for every pair in manifest.json: both files exist, no file is left
out of the manifest, the request header (api key, version, correlation id,
client id) matches the manifest, the response starts with the same
correlation id, the header versions follow the flexible-version rule (a
flexible header's tagged-field section is present and well formed), and the
size limits (single file < 256 KiB, total < 2 MB) hold.
"""
import json
import struct
import sys
from pathlib import Path

MAX_FILE = 256 * 1024
MAX_TOTAL = 2 * 1024 * 1024


def uvarint(buf: bytes, pos: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7
        if shift > 28:
            raise ValueError("varint too long")


def skip_tagged_fields(buf: bytes, pos: int) -> int:
    n, pos = uvarint(buf, pos)
    for _ in range(n):
        _tag, pos = uvarint(buf, pos)
        size, pos = uvarint(buf, pos)
        pos += size
    if pos > len(buf):
        raise ValueError("tagged fields overrun the frame")
    return pos


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else
                Path(__file__).resolve().parents[1] / "protocol" / "fixtures")
    manifest = json.loads((root / "manifest.json").read_text())
    errors = []
    listed = set()
    total = 0
    for p in manifest["pairs"]:
        tag = p["request"]
        req = (root / p["request"]).read_bytes()
        resp = (root / p["response"]).read_bytes()
        listed.update((p["request"], p["response"]))
        total += len(req) + len(resp)
        for name, data in ((p["request"], req), (p["response"], resp)):
            if len(data) >= MAX_FILE:
                errors.append(f"{name}: {len(data)} bytes >= {MAX_FILE}")
        api_key, version, corr = struct.unpack_from(">hhi", req, 0)
        (cid_len,) = struct.unpack_from(">h", req, 8)
        client_id = None if cid_len < 0 else req[10:10 + cid_len].decode()
        got = (api_key, version, corr, client_id)
        want = (p["api_key"], p["api_version"], p["correlation_id"], p["client_id"])
        if got != want:
            errors.append(f"{tag}: request header {got} != manifest {want}")
        if p["request_header_version"] == 2:
            try:
                skip_tagged_fields(req, 10 + max(cid_len, 0))
            except (ValueError, IndexError) as e:
                errors.append(f"{tag}: bad request header tagged fields: {e}")
        elif p["request_header_version"] != 1:
            errors.append(f"{tag}: unexpected request header version")
        (rcorr,) = struct.unpack_from(">i", resp, 0)
        if rcorr != corr:
            errors.append(f"{tag}: response correlation id {rcorr} != {corr}")
        if p["response_header_version"] == 1:
            try:
                skip_tagged_fields(resp, 4)
            except (ValueError, IndexError) as e:
                errors.append(f"{tag}: bad response header tagged fields: {e}")
        if p["api_key"] == 18 and p["response_header_version"] != 0:
            errors.append(f"{tag}: ApiVersions response must use header v0")
        if len(req) != p["request_size"] or len(resp) != p["response_size"]:
            errors.append(f"{tag}: size differs from manifest")
    on_disk = {str(f.relative_to(root)) for f in root.rglob("*.bin")}
    for extra in sorted(on_disk - listed):
        errors.append(f"{extra}: not in manifest.json")
    if total >= MAX_TOTAL:
        errors.append(f"total {total} bytes >= {MAX_TOTAL}")
    for e in errors:
        print("FAIL", e)
    print(f"{len(manifest['pairs'])} pairs, {total} bytes: "
          f"{'OK' if not errors else f'{len(errors)} problems'}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
