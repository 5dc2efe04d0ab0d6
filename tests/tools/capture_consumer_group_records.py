#!/usr/bin/env python3
"""Captures the __consumer_offsets records Apache Kafka 4.3.1 writes for a
consumer group (KIP-848), as golden bytes for the coordinator's record tests.

    ~/.cache/highwater/py-venv/bin/python tests/tools/capture_consumer_group_records.py [out-file]

Not run by CI. Starts Kafka (scripts/kafka-server.sh, jars from
scripts/fetch-kafka.sh) on a free port, makes two topics, and runs
confluent-kafka consumers (group.protocol=consumer) in one group: two
subscribed to a regular expression (^cap-.*) with the uniform assignor, a
third with a topic list and a group.instance.id, each committing; then one
leaves and a third topic matching the expression is created. Kafka is
stopped and every record of the __consumer_offsets segments is written, one
per line: "<offset> <key hex> <value hex or null>". Default out-file:
tests/broker/fixtures/consumer_group_records_4_3.txt.
"""

import os
import socket
import struct
import subprocess
import sys
import tempfile
import time

from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def varint(buf, pos):
    shift = result = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            break
        shift += 7
    return (result >> 1) ^ -(result & 1), pos


def records_of(segment):
    """(offset, key bytes, value bytes or None) of every record of the uncompressed v2 batches in segment."""
    data = open(segment, "rb").read()
    pos = 0
    while pos + 61 <= len(data):
        base_offset, length = struct.unpack_from(">qi", data, pos)
        batch = data[pos + 12:pos + 12 + length]
        pos += 12 + length
        attributes = struct.unpack_from(">h", batch, 9)[0]
        if attributes & 0x07:
            raise SystemExit("compressed batch at offset %d" % base_offset)
        if attributes & 0x20:
            continue  # a control batch (transaction marker)
        count = struct.unpack_from(">i", batch, 45)[0]
        p = 49
        for _ in range(count):
            size, p = varint(batch, p)
            end = p + size
            p += 1  # attributes
            _, p = varint(batch, p)  # timestamp delta
            delta, p = varint(batch, p)
            klen, p = varint(batch, p)
            key = batch[p:p + klen] if klen >= 0 else None
            p += max(klen, 0)
            vlen, p = varint(batch, p)
            value = batch[p:p + vlen] if vlen >= 0 else None
            yield base_offset + delta, key, value
            p = end


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests/broker/fixtures/consumer_group_records_4_3.txt")
    work = tempfile.mkdtemp(prefix="hw-capture-cg-")
    port = free_port()
    script = os.path.join(ROOT, "scripts/kafka-server.sh")
    env = dict(os.environ, HW_KAFKA_EXTRA_PROPS="offsets.topic.num.partitions=1")
    subprocess.run([script, "start", work, str(port)], check=True, env=env)
    bootstrap = "127.0.0.1:%d" % port
    try:
        admin = AdminClient({"bootstrap.servers": bootstrap})
        for f in admin.create_topics([NewTopic("cap-a", 3, 1), NewTopic("cap-b", 2, 1), NewTopic("other", 1, 1)]).values():
            f.result(30)
        p = Producer({"bootstrap.servers": bootstrap})
        for t in ("cap-a", "cap-b", "other"):
            for i in range(6):
                p.produce(t, b"v%d" % i, partition=i % (3 if t == "cap-a" else 2 if t == "cap-b" else 1))
        p.flush(30)
        base = {"bootstrap.servers": bootstrap, "group.id": "cg-capture", "group.protocol": "consumer",
                "auto.offset.reset": "earliest", "enable.auto.commit": False}
        members = [Consumer(dict(base, **{"group.remote.assignor": "uniform"})),
                   Consumer(dict(base, **{"group.remote.assignor": "uniform"})),
                   Consumer(dict(base, **{"group.instance.id": "static-1", "client.rack": "rack-1"}))]
        members[0].subscribe(["^cap-.*"])
        members[1].subscribe(["^cap-.*"])
        members[2].subscribe(["other", "cap-b"])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            for m in members:
                msg = m.poll(0.2)
                if msg is not None and not msg.error():
                    m.commit(msg, asynchronous=False)
            if all(m.assignment() for m in members) and time.monotonic() > deadline - 20:
                break
        members[1].close()
        admin.create_topics([NewTopic("cap-c", 1, 1)])["cap-c"].result(30)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            for m in (members[0], members[2]):
                msg = m.poll(0.2)
                if msg is not None and not msg.error():
                    m.commit(msg, asynchronous=False)
        for m in (members[0], members[2]):
            m.close()
    finally:
        subprocess.run([script, "stop", work], check=False)
    segments = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(os.path.join(work, "data"))
                      if "__consumer_offsets" in dp for f in fs if f.endswith(".log"))
    lines = []
    for seg in segments:
        for offset, key, value in records_of(seg):
            lines.append("%d %s %s" % (offset, key.hex(), value.hex() if value is not None else "null"))
    with open(out, "w") as f:
        f.write("# __consumer_offsets records written by Apache Kafka 4.3.1 for a consumer group (KIP-848):\n"
                "# tests/tools/capture_consumer_group_records.py. <offset> <key hex> <value hex or null>\n")
        f.write("\n".join(lines) + "\n")
    print("%d records from %s -> %s" % (len(lines), segments, out))


if __name__ == "__main__":
    main()
