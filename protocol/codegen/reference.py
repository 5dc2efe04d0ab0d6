"""Reads Apache Kafka's JSON message definitions into the project's schema model.

Used by the schema comparison test (and once, to seed protocol/schema/): the
reference files are data to compare against, never part of the build.
"""

from __future__ import annotations

import json
import os
import re

from schema import Field, Message, Struct, parse_range

_KIND = {"request": "request", "response": "response", "header": "header",
         "data": "data", "metadata": "metadata"}


def _strip_comments(text: str) -> str:
    return re.sub(r"^\s*//.*$", "", text, flags=re.M)


def _field(d: dict) -> Field:
    versions = parse_range(d.get("versions", "none"))
    f = Field(name=d["name"], type=d["type"].strip(), versions=versions)
    if "nullableVersions" in d:
        f.nullable = parse_range(d["nullableVersions"])
    if "tag" in d:
        f.tag = int(d["tag"])
        f.tagged = parse_range(d.get("taggedVersions", d.get("versions")))
    if "default" in d:
        f.default = str(d["default"]).lower() if isinstance(d["default"], bool) else str(d["default"])
    if "flexibleVersions" in d:
        f.flexible = d["flexibleVersions"]
    f.ignorable = bool(d.get("ignorable", False))
    f.mapkey = bool(d.get("mapKey", False))
    f.zerocopy = bool(d.get("zeroCopy", False))
    f.fields = [_field(c) for c in d.get("fields", [])]
    return f


def load_reference_file(path: str) -> Message:
    with open(path, encoding="utf-8") as fh:
        d = json.loads(_strip_comments(fh.read()))
    m = Message(
        kind=_KIND[d["type"]], name=d["name"],
        api_key=d.get("apiKey"),
        versions=parse_range(d["validVersions"]),
        flexible=parse_range(d.get("flexibleVersions", "none")),
        unstable=bool(d.get("latestVersionUnstable", False)))
    m.fields = [_field(f) for f in d.get("fields", [])]
    m.common = [Struct(name=s["name"], versions=parse_range(s.get("versions", "0+")),
                       fields=[_field(f) for f in s.get("fields", [])])
                for s in d.get("commonStructs", [])]
    m.source = os.path.basename(path)
    return m


_SUBDIRS = ("message", "metadata", "group-coordinator", "transaction-coordinator", "storage")


def reference_index(reference_dir: str) -> dict[str, str]:
    """Definition name → path, over every reference file (a file's name need
    not match the definition it holds)."""
    index: dict[str, str] = {}
    for sub in _SUBDIRS:
        folder = os.path.join(reference_dir, sub)
        if not os.path.isdir(folder):
            continue
        for fname in sorted(os.listdir(folder)):
            if fname.endswith(".json"):
                path = os.path.join(folder, fname)
                with open(path, encoding="utf-8") as fh:
                    d = json.loads(_strip_comments(fh.read()))
                index[d["name"]] = path
    return index
