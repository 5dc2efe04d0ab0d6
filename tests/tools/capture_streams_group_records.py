#!/usr/bin/env python3
"""Captures the __consumer_offsets records Apache Kafka 4.3.1 writes for a
streams group (KIP-1071), as golden bytes for the coordinator's record tests
(tests/broker/group_streams_golden_test.cc).

    ~/.cache/highwater/py-venv/bin/python tests/tools/capture_streams_group_records.py [out-file]

Not run by CI: it needs Kafka's jars (scripts/fetch-kafka.sh), Kafka Streams
4.3.1's (scripts/fetch-kafka-streams.sh, through Maven) and a JDK, and takes
about a minute. Its output is committed as the fixture.

Kafka (scripts/kafka-server.sh, through tests/compat/python/kafka_process.py)
runs with one __consumer_offsets partition (offsets.topic.num.partitions=1,
so every record of the group is in one log), streams sessions of 6 s
(group.streams.session.timeout.ms=6000, which needs
group.streams.min.session.timeout.ms lowered to 6000 from its 45000),
heartbeats every second (group.streams.heartbeat.interval.ms=1000 and its
minimum), no initial rebalance delay (group.streams.initial.rebalance.delay.ms=0)
and no automatic topic creation. The application is
tests/compat/streams/CountApp.java (Kafka Streams 4.3.1, group.protocol=streams,
exactly_once_v2), compiled and run by the helpers of
tests/compat/python/streams_group_test.py (compile_app, App, Output), with
application.id cap-streams: it re-keys the input topic cap-words (4
partitions) by value through cap-streams-by-word-repartition (subtopology 0
writes it, subtopology 1 reads it), counts into a store logged to
cap-streams-word-counts-changelog and writes to cap-counts. The broker
creates the two internal topics (4 partitions each).

Scenario: 400 records go in; instance a starts (application.server
localhost:7001) and runs alone until its counts come out; instance b starts
(localhost:7002, num.stream.threads=1) and the group must become Stable with
two members each running active tasks (kafka-streams-groups --describe);
400 more records are counted; b stops (SIGTERM: KafkaStreams.close), then,
once the group has one member, a stops; once the group is Empty Kafka is
stopped. Every record of the __consumer_offsets segments is written, one per
line: "<offset> <key hex> <value hex or null>" (offset commits and the
transactional ones included; control batches are skipped), after '#' lines
that give the group, and each topic as
"# topic <name> <id base64> <id hex> <partitions>" (kafka AdminClient
describe_topics at capture time; the broker has no rack), from which a test
recomputes the metadata hash. Default out-file:
tests/broker/fixtures/streams_group_records_4_3.txt.
"""

import base64
import collections
import os
import random
import shutil
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests/compat/python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from confluent_kafka import Producer, TopicCollection  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

import streams_group_test as sgt  # noqa: E402  (definitions only; its globals are set below)
from broker_pair import file_tail, java_env  # noqa: E402
from capture_consumer_group_records import records_of  # noqa: E402
from highwater_process import wait_for  # noqa: E402
from kafka_process import run, start_kafka, stop_kafka  # noqa: E402

APP_ID = "cap-streams"
SOURCE, SINK = "cap-words", "cap-counts"
PARTITIONS = 4
STREAMS_RECORD_TYPES = {17: "StreamsGroupMetadata", 19: "StreamsGroupMemberMetadata",
                        20: "StreamsGroupTargetAssignmentMetadata", 21: "StreamsGroupTargetAssignmentMember",
                        22: "StreamsGroupCurrentMemberAssignment", 23: "StreamsGroupTopology"}

SETTINGS = [
    ("group.streams.session.timeout.ms", "6000"),
    ("group.streams.min.session.timeout.ms", "6000"),
    ("group.streams.heartbeat.interval.ms", "1000"),
    ("group.streams.min.heartbeat.interval.ms", "1000"),
    ("group.streams.initial.rebalance.delay.ms", "0"),
    ("offsets.topic.replication.factor", "1"),
    ("offsets.topic.num.partitions", "1"),
    ("transaction.state.log.replication.factor", "1"),
    ("transaction.state.log.min.isr", "1"),
    ("transaction.state.log.num.partitions", "1"),
    ("group.initial.rebalance.delay.ms", "0"),
    ("auto.create.topics.enable", "false"),
    ("num.partitions", "1"),
    ("default.replication.factor", "1"),
]


class Broker:
    """What sgt.App and sgt.Output need of a broker."""
    name = "kafka"

    def __init__(self, bootstrap):
        self.bootstrap = bootstrap


def tool(bootstrap, args):
    """kafka-streams-groups with args: its stdout."""
    code, out, err = run([os.path.join(ROOT, "scripts/kafka-run-class.sh"), sgt.STREAMS_GROUP_COMMAND,
                          "--bootstrap-server", bootstrap] + args, 60, java_env())
    if code != 0:
        raise AssertionError("kafka-streams-groups %s: exit %d\n%s%s" % (" ".join(args), code, out, err))
    return out


def group_state(bootstrap):
    """(state, member count) of the group from kafka-streams-groups --describe --state."""
    out = tool(bootstrap, ["--describe", "--group", APP_ID, "--state"])
    rows = sgt.table(out, "GROUP")
    if len(rows) != 1:
        raise AssertionError("kafka-streams-groups --state:\n" + out)
    return rows[0].get("STATE"), int(rows[0].get("#MEMBERS", "-1"))


def members_tasks(bootstrap):
    """The active tasks of each member, from kafka-streams-groups --describe --members."""
    out = tool(bootstrap, ["--describe", "--group", APP_ID, "--members"])
    return [sgt.active_tasks(r.get("ASSIGNMENTS", "")) for r in sgt.table(out, "GROUP")]


def produce(bootstrap, records):
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all", "linger.ms": 5})
    for key, value in records:
        p.produce(SOURCE, value.encode(), key.encode())
    if p.flush(30):
        raise AssertionError("records not written")


def topic_lines(bootstrap):
    """'# topic <name> <id base64> <id hex> <partitions>' of every topic but Kafka's own."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    names = sorted(n for n in admin.list_topics(timeout=10).topics if not n.startswith("__"))
    lines = []
    for name, future in sorted(admin.describe_topics(TopicCollection(names)).items()):
        d = future.result(20)
        uid = d.topic_id
        value = ((uid.get_most_significant_bits() & (2**64 - 1)) << 64) | (uid.get_least_significant_bits()
                                                                          & (2**64 - 1))
        kafkas = base64.urlsafe_b64encode(value.to_bytes(16, "big")).rstrip(b"=").decode()  # Uuid.toString()
        lines.append("# topic %s %s %032x %d" % (name, kafkas, value, len(d.partitions)))
    return lines


def main():
    out_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        ROOT, "tests/broker/fixtures/streams_group_records_4_3.txt")
    work = tempfile.mkdtemp(prefix="hw-capture-sg-")
    sgt.SOURCE_DIR = ROOT
    sgt.WORK_DIR = work
    with open(os.path.join(work, "countapp-log4j2.properties"), "w") as f:
        f.write(sgt.APP_LOG4J)
    sgt.compile_app()
    kafka_dir = os.path.join(work, "kafka")
    log_tail = lambda n=40: file_tail(os.path.join(kafka_dir, "kafka.log"), n)  # noqa: E731
    bootstrap = start_kafka(ROOT, kafka_dir, SETTINGS, log_tail, sasl_listener=False)
    broker = Broker(bootstrap)
    output = None
    try:
        admin = AdminClient({"bootstrap.servers": bootstrap})
        for f in admin.create_topics([NewTopic(SOURCE, PARTITIONS, 1), NewTopic(SINK, PARTITIONS, 1)]).values():
            f.result(30)
        rnd = random.Random(1071)
        first, second = sgt.batch(0, 400, rnd), sgt.batch(400, 400, rnd)
        del admin  # its client would retry against the stopped broker at the end
        produce(bootstrap, first)
        output = sgt.Output(broker, SINK, PARTITIONS)

        def start(name, endpoint):
            d = os.path.join(work, "apps", name)
            return sgt.App(broker, d, [
                ("bootstrap.servers", bootstrap), ("application.id", APP_ID), ("client.id", "%s-%s" % (APP_ID, name)),
                ("state.dir", os.path.join(d, "state")), ("application.server", endpoint),
                ("countapp.input.topic", SOURCE), ("countapp.output.topic", SINK), ("num.stream.threads", "1")])

        def counted(expected, apps):
            def done():
                sgt.check_apps(apps)
                output.poll()
                return all(x.state() == "RUNNING" for x in apps) and output.latest == expected
            return done

        a = start("a", "localhost:7001")
        wait_for(counted(collections.Counter(v for _, v in first), [a]), 90, "a RUNNING and its counts")
        print("a RUNNING, first batch counted", flush=True)

        b = start("b", "localhost:7002")

        def split():
            sgt.check_apps([a, b])
            if not all(x.state() == "RUNNING" for x in (a, b)):
                return False
            state, members = group_state(bootstrap)
            if (state, members) != ("Stable", 2):
                return False
            tasks = members_tasks(bootstrap)
            return len(tasks) == 2 and all(tasks) and sorted(t for m in tasks for t in m) == [
                (s, p) for s in (0, 1) for p in range(PARTITIONS)]
        wait_for(split, 120, "the group Stable with both instances running tasks")
        print("a and b RUNNING, tasks split: %s" % members_tasks(bootstrap), flush=True)

        produce(bootstrap, second)
        wait_for(counted(collections.Counter(v for _, v in first + second), [a, b]), 60, "the second batch counted")
        print("second batch counted", flush=True)
        topics = topic_lines(bootstrap)

        print("b closed: exit %s, %s" % (b.terminate(40), b.closed), flush=True)
        wait_for(lambda: group_state(bootstrap)[1] == 1, 60, "the group with a alone")
        print("group after b: %s %s" % group_state(bootstrap), flush=True)
        print("a closed: exit %s, %s" % (a.terminate(40), a.closed), flush=True)
        wait_for(lambda: group_state(bootstrap) == ("Empty", 0), 60, "the group Empty")
        print("group after a: %s %s" % group_state(bootstrap), flush=True)
    finally:
        if output is not None:
            output.close()
        sgt.stop_apps()
        stop_kafka(ROOT, kafka_dir)
    segments = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(os.path.join(kafka_dir, "data"))
                      if "__consumer_offsets" in dp for f in fs if f.endswith(".log"))
    lines = []
    kinds = collections.Counter()
    for seg in segments:
        for offset, key, value in records_of(seg):
            lines.append("%d %s %s" % (offset, key.hex(), value.hex() if value is not None else "null"))
            kind = int.from_bytes(key[:2], "big", signed=True)
            kinds[(kind, value is None)] += 1
    with open(out_path, "w") as f:
        f.write("# __consumer_offsets records written by Apache Kafka 4.3.1 for a streams group (KIP-1071):\n"
                "# tests/tools/capture_streams_group_records.py. <offset> <key hex> <value hex or null>\n"
                "# group %s: CountApp a (application.server localhost:7001), then b (localhost:7002);\n"
                "# b leaves, then a. One broker, no rack. Topics at capture time:\n" % APP_ID)
        f.write("".join(t + "\n" for t in topics))
        f.write("\n".join(lines) + "\n")
    print("%d records from %s -> %s" % (len(lines), segments, out_path))
    for (kind, tombstone), n in sorted(kinds.items()):
        print("  key type %2d %-38s %s: %d" % (kind, STREAMS_RECORD_TYPES.get(kind, ""),
                                              "tombstones" if tombstone else "records", n))
    missing = [k for k in STREAMS_RECORD_TYPES if not kinds[(k, False)]]
    missing_tombstones = [k for k in (19, 21, 22) if not kinds[(k, True)]]
    shutil.rmtree(work, ignore_errors=True)
    if missing or missing_tombstones:
        raise SystemExit("missing streams records of types %s, tombstones of types %s" % (missing, missing_tombstones))


if __name__ == "__main__":
    main()
