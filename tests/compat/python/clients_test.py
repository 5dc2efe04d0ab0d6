"""confluent-kafka (Python, librdkafka 2.16) against a real highwater.

Run by ctest as compat_python_tests:
    <venv>/bin/python clients_test.py --highwater <path to the highwater binary>
Each test class starts its own broker on 127.0.0.1 port 0 in a temporary
directory and reads the bound port from --port-file. Consumers assign
partitions with explicit offsets, so no group coordinator is needed.
"""

import argparse
import os
import shutil
import sys
import tempfile
import time
import unittest

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

from highwater_process import Highwater, wait_for

HIGHWATER = None


class Broker(Highwater):
    """One PLAINTEXT listener in a temporary directory, removed at stop()."""

    def __init__(self):
        super().__init__(HIGHWATER, tempfile.mkdtemp(prefix="hw-py-"), [("listeners", "PLAINTEXT://127.0.0.1:0")], 20)
        self.bootstrap = self.listeners["PLAINTEXT"]

    def stop(self):
        super().stop(10)
        shutil.rmtree(self.dir, ignore_errors=True)


class BrokerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = Broker()
        cls.admin = AdminClient({"bootstrap.servers": cls.broker.bootstrap})

    @classmethod
    def tearDownClass(cls):
        del cls.admin  # before the broker goes, or librdkafka logs reconnect failures
        cls.broker.stop()

    def create(self, name, partitions):
        fs = self.admin.create_topics([NewTopic(name, num_partitions=partitions, replication_factor=1)],
                                      operation_timeout=10)
        fs[name].result(15)

    def consume(self, topic, partition, offset, count, timeout_s=20):
        c = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": "py-unused",
                      "enable.auto.commit": False, "enable.partition.eof": False})
        try:
            c.assign([TopicPartition(topic, partition, offset)])
            out = []
            deadline = time.monotonic() + timeout_s
            while len(out) < count and time.monotonic() < deadline:
                for m in c.consume(num_messages=count - len(out), timeout=0.5):
                    if m.error():
                        if m.error().code() in (KafkaError._PARTITION_EOF,):
                            continue
                        raise KafkaException(m.error())
                    out.append(m)
            return out
        finally:
            c.close()


class AdminTest(BrokerTest):
    def test_create_list_delete(self):
        self.create("py-admin", 3)
        md = self.admin.list_topics(timeout=10)
        self.assertIn("py-admin", md.topics)
        self.assertEqual(len(md.topics["py-admin"].partitions), 3)
        self.assertEqual(md.brokers[1].port, int(self.broker.bootstrap.rsplit(":", 1)[1]))
        for p in md.topics["py-admin"].partitions.values():
            self.assertEqual(p.leader, 1)
            self.assertEqual(p.replicas, [1])
            self.assertEqual(p.isrs, [1])

        fs = self.admin.create_partitions([NewPartitions("py-admin", 5)], operation_timeout=10)
        fs["py-admin"].result(15)
        self.assertEqual(len(self.admin.list_topics("py-admin", timeout=10).topics["py-admin"].partitions), 5)

        fs = self.admin.delete_topics(["py-admin"], operation_timeout=10)
        fs["py-admin"].result(15)
        wait_for(lambda: "py-admin" not in self.admin.list_topics(timeout=10).topics, 10, "the topic to go")

    def assert_create_fails(self, topic, code):
        fs = self.admin.create_topics([topic], operation_timeout=10)
        with self.assertRaises(KafkaException) as cm:
            fs[topic.topic].result(15)
        self.assertEqual(cm.exception.args[0].code(), code, str(cm.exception))

    def test_bad_requests(self):
        self.create("py-dup", 1)
        self.assert_create_fails(NewTopic("py-dup", num_partitions=1, replication_factor=1),
                                 KafkaError.TOPIC_ALREADY_EXISTS)
        self.assert_create_fails(NewTopic("bad name", num_partitions=1, replication_factor=1),
                                 KafkaError.TOPIC_EXCEPTION)
        self.assert_create_fails(NewTopic("py-rf3", num_partitions=1, replication_factor=3),
                                 KafkaError.INVALID_REPLICATION_FACTOR)
        fs = self.admin.delete_topics(["py-missing"], operation_timeout=10)
        with self.assertRaises(KafkaException) as cm:
            fs["py-missing"].result(15)
        self.assertEqual(cm.exception.args[0].code(), KafkaError.UNKNOWN_TOPIC_OR_PART)
        self.assertNotIn("py-rf3", self.admin.list_topics(timeout=10).topics)


class ProduceConsumeTest(BrokerTest):
    def produce(self, topic, messages, **conf):
        acked = []
        errors = []

        def on_delivery(err, msg):
            (errors if err else acked).append(err or msg)

        p = Producer({"bootstrap.servers": self.broker.bootstrap, **conf})
        for m in messages:
            p.produce(topic, on_delivery=on_delivery, **m)
            p.poll(0)
        self.assertEqual(p.flush(30), 0)
        self.assertEqual(errors, [])
        self.assertEqual(len(acked), len(messages))
        return acked

    def test_every_codec(self):
        for codec in ("none", "gzip", "snappy", "lz4", "zstd"):
            with self.subTest(codec=codec):
                topic = "py-" + codec
                self.create(topic, 1)
                msgs = [{"key": b"k%d" % i, "value": b"x" * 300 + b"%d" % i, "partition": 0,
                         "headers": [("codec", codec.encode()), ("i", b"%d" % i)]} for i in range(200)]
                acked = self.produce(topic, msgs, **{"compression.type": codec, "linger.ms": 20, "acks": "all"})
                self.assertEqual(sorted(m.offset() for m in acked), list(range(200)))
                got = self.consume(topic, 0, 0, 200)
                self.assertEqual([m.offset() for m in got], list(range(200)))
                for i, m in enumerate(got):
                    self.assertEqual(m.key(), b"k%d" % i)
                    self.assertEqual(m.value(), b"x" * 300 + b"%d" % i)
                    self.assertEqual(m.headers(), [("codec", codec.encode()), ("i", b"%d" % i)])

    def test_timestamps_and_null_values(self):
        self.create("py-ts", 1)
        self.produce("py-ts", [{"key": b"a", "value": b"1", "timestamp": 1600000000000, "partition": 0},
                               {"key": b"b", "value": None, "timestamp": 1600000000001, "partition": 0},
                               {"key": None, "value": b"", "partition": 0}])
        got = self.consume("py-ts", 0, 0, 3)
        self.assertEqual(len(got), 3)
        self.assertEqual(got[0].timestamp(), (1, 1600000000000))  # TIMESTAMP_CREATE_TIME
        self.assertEqual(got[1].timestamp(), (1, 1600000000001))
        self.assertIsNone(got[1].value())
        self.assertIsNone(got[2].key())
        self.assertEqual(got[2].value(), b"")

    def test_many_partitions_and_watermarks(self):
        self.create("py-many", 8)
        msgs = [{"key": b"key-%d" % i, "value": b"v%d" % i} for i in range(800)]
        acked = self.produce("py-many", msgs)
        per_partition = {}
        for m in acked:
            per_partition.setdefault(m.partition(), []).append(m)
        self.assertGreater(len(per_partition), 4)
        c = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": "py-unused"})
        try:
            for p, ms in per_partition.items():
                self.assertEqual(c.get_watermark_offsets(TopicPartition("py-many", p), timeout=10), (0, len(ms)))
        finally:
            c.close()
        for p, ms in per_partition.items():
            got = self.consume("py-many", p, 0, len(ms))
            want = sorted(ms, key=lambda m: m.offset())
            self.assertEqual([m.value() for m in got], [m.value() for m in want])


def main():
    global HIGHWATER
    parser = argparse.ArgumentParser()
    parser.add_argument("--highwater", required=True)
    args, rest = parser.parse_known_args()
    HIGHWATER = os.path.abspath(args.highwater)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
