#!/usr/bin/env python3
"""Compares protocol/schema/*.hws with Apache Kafka's JSON definitions.

Every fact the codecs depend on (API keys, version ranges, flexible versions,
field names, types, versions, nullability, tags, defaults) must match the
reference, except for the deliberate overrides listed in
protocol/codegen/import_reference.py. Skipped (exit 77, reported by ctest as
skipped) when ../shared/reference/kafka-protocol is not beside the checkout.
The API definitions newer than that reference are compared with the
kafka-clients jar that scripts/fetch-kafka.sh caches; without the jar they are
listed as not compared.
"""

from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "protocol", "codegen"))

from import_reference import GROUPS, OVERRIDES, plan  # noqa: E402
from reference import default_kafka_libs, load_reference_file, newer_than_shared, reference_index  # noqa: E402
from schema import Field, load_dir, parse_range, range_str  # noqa: E402

FIELD_FACTS = ("type", "versions", "nullable", "tag", "tagged", "default", "flexible",
               "ignorable", "mapkey", "zerocopy")


def field_diffs(path: str, ours: list[Field], theirs: list[Field]) -> list[str]:
    out = []
    names_ours = [f.name for f in ours]
    names_theirs = [f.name for f in theirs]
    if names_ours != names_theirs:
        return [f"{path}: fields {names_ours} != reference {names_theirs}"]
    for a, b in zip(ours, theirs):
        for fact in FIELD_FACTS:
            va, vb = getattr(a, fact), getattr(b, fact)
            if va != vb:
                out.append(f"{path}.{a.name}: {fact} {va!r} != reference {vb!r}")
        out.extend(field_diffs(f"{path}.{a.name}", a.fields, b.fields))
    return out


def main() -> int:
    reference_dir = os.environ.get(
        "HW_KAFKA_REFERENCE", os.path.join(ROOT, "..", "shared", "reference", "kafka-protocol"))
    if not os.path.isdir(reference_dir):
        print(f"SKIPPED: no Kafka reference definitions at {reference_dir}")
        return 77
    ours = {m.name: m for m in load_dir(os.path.join(ROOT, "protocol", "schema"))}
    index = reference_index(reference_dir, default_kafka_libs())
    newer = newer_than_shared(index) & set(ours)
    not_compared = []
    if not newer:
        # Without the jar, API definitions outside the 4.3 list have no
        # reference as new as the project's: they stay uncompared.
        with open(os.path.join(reference_dir, "message-4.3.txt"), encoding="utf-8") as fh:
            listed = {line.strip()[:-len(".json")] for line in fh if line.strip()}
        not_compared = sorted(n for n, m in ours.items()
                              if m.kind in ("request", "response") and n not in listed)
    wanted = [n for names in plan().values() for n in names]
    problems = [f"{n}: not defined in protocol/schema" for n in wanted if n not in ours]
    checked = 0
    for name, m in sorted(ours.items()):
        if name in not_compared:
            continue
        path = index.get(name)
        if path is None:
            problems.append(f"{name}: no reference definition")
            continue
        ref = load_reference_file(path)
        expected_versions = parse_range(OVERRIDES.get(name, {}).get("versions", range_str(ref.versions)))
        for fact, a, b in (("kind", m.kind, ref.kind), ("api_key", m.api_key, ref.api_key),
                           ("versions", m.versions, expected_versions),
                           ("flexible", m.flexible, ref.flexible),
                           ("unstable", m.unstable, ref.unstable)):
            if a != b:
                problems.append(f"{name}: {fact} {a} != reference {b}")
        problems.extend(field_diffs(name, m.fields, ref.fields))
        common_ours = {s.name: s for s in m.common}
        common_ref = {s.name: s for s in ref.common}
        if set(common_ours) != set(common_ref):
            problems.append(f"{name}: common structs {sorted(common_ours)} != {sorted(common_ref)}")
        for sname in set(common_ours) & set(common_ref):
            problems.extend(field_diffs(f"{name}.{sname}", common_ours[sname].fields,
                                        common_ref[sname].fields))
        checked += 1
    for p in problems:
        print("MISMATCH", p)
    print(f"{checked} definitions compared with {reference_dir} "
          f"({len(newer)} of them with the kafka-clients jar in {default_kafka_libs()}), "
          f"{len(problems)} mismatches; overrides: {sorted(OVERRIDES)}")
    if not_compared:
        print(f"NOT COMPARED (no kafka-clients jar; run scripts/fetch-kafka.sh): {not_compared}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
