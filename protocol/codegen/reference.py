"""Reads Apache Kafka's JSON message definitions into the project's schema model.

Used by the schema comparison test (and to seed protocol/schema/): the
reference files are data to compare against, never part of the build.

Two sources: ../shared/reference/kafka-protocol (Kafka 4.3 for the
client-facing APIs listed in its message-4.3.txt, an October 2024 trunk for
the rest), and the kafka-clients jar of the Apache Kafka release that
scripts/fetch-kafka.sh caches. Real 4.3 clients and tools speak newer versions
of some APIs outside that list (ConsumerGroupDescribe v1, Vote v2 for
pre-vote, ...), so for request and response definitions outside the list the
jar, when present, is the reference.
"""

from __future__ import annotations

import glob
import json
import os
import re
import zipfile

from schema import Field, Message, Struct, parse_range

_KIND = {"request": "request", "response": "response", "header": "header",
         "coordinator-key": "data", "coordinator-value": "data",
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


def _read_source(source: str) -> str:
    """A path, or 'jar!member' for a definition inside a jar."""
    if "!" in source:
        jar, member = source.split("!", 1)
        with zipfile.ZipFile(jar) as z:
            return z.read(member).decode("utf-8")
    with open(source, encoding="utf-8") as fh:
        return fh.read()


def load_reference_file(path: str) -> Message:
    d = json.loads(_strip_comments(_read_source(path)))
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
    if d["type"].startswith("coordinator-"):
        # Since 4.0 a record's key names its type in apiKey and has version 0;
        # the type is still what is written where the key's version stands,
        # which is how the project's schema (and the older reference) says it.
        m.api_key = None
        if d["type"] == "coordinator-key" and "apiKey" in d:
            record_type = parse_range(str(d["apiKey"]))
            m.versions = record_type
            for f in m.fields:
                f.versions = record_type
    return m


_SUBDIRS = ("message", "metadata", "group-coordinator", "transaction-coordinator", "storage")


def default_kafka_libs() -> str:
    return os.environ.get("HW_KAFKA_LIBS", os.path.expanduser("~/.cache/highwater/kafka-4.3.1/libs"))


def reference_index(reference_dir: str, kafka_libs: str | None = None) -> dict[str, str]:
    """Definition name → source, over every reference file (a file's name need
    not match the definition it holds). With kafka_libs, API definitions
    outside message-4.3.txt come from the kafka-clients jar there."""
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
    jars = glob.glob(os.path.join(kafka_libs, "kafka-clients-*.jar")) if kafka_libs else []
    listed_path = os.path.join(reference_dir, "message-4.3.txt")
    if jars and os.path.exists(listed_path):
        with open(listed_path, encoding="utf-8") as fh:
            listed = {line.strip() for line in fh if line.strip()}
        with zipfile.ZipFile(jars[0]) as z:
            for member in z.namelist():
                base = os.path.basename(member)
                if (member.startswith("common/message/") and base.endswith(".json")
                        and base not in listed
                        and (base.endswith("Request.json") or base.endswith("Response.json"))):
                    d = json.loads(_strip_comments(z.read(member).decode("utf-8")))
                    index[d["name"]] = f"{jars[0]}!{member}"
    # The shared metadata records predate 4.3 (CordonedLogDirs, ClearElrRecord):
    # the kafka-metadata jar of the same release is their reference.
    metadata_jars = glob.glob(os.path.join(kafka_libs, "kafka-metadata-*.jar")) if kafka_libs else []
    if metadata_jars:
        with zipfile.ZipFile(metadata_jars[0]) as z:
            for member in z.namelist():
                if member.startswith("common/metadata/") and member.endswith("Record.json"):
                    d = json.loads(_strip_comments(z.read(member).decode("utf-8")))
                    index[d["name"]] = f"{metadata_jars[0]}!{member}"
    # So do the consumer-group records (4.3 added tagged fields and the
    # regular-expression record), and the streams-group records are only
    # there: the kafka-group-coordinator jar.
    group_jars = glob.glob(os.path.join(kafka_libs, "kafka-group-coordinator-4*.jar")) if kafka_libs else []
    if group_jars:
        with zipfile.ZipFile(group_jars[0]) as z:
            for member in z.namelist():
                base = os.path.basename(member)
                if (member.startswith(("common/message/ConsumerGroup", "common/message/StreamsGroup"))
                        and base.endswith(("Key.json", "Value.json"))):
                    d = json.loads(_strip_comments(z.read(member).decode("utf-8")))
                    index[d["name"]] = f"{group_jars[0]}!{member}"
    return index


def newer_than_shared(index: dict[str, str]) -> set[str]:
    return {name for name, src in index.items() if "!" in src}
