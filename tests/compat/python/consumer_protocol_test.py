"""The consumer group protocol of KIP-848 with real clients, against Apache Kafka 4.3.1 and highwater alike.

Run by ctest as compat_python_consumer_protocol_tests:
    <venv>/bin/python consumer_protocol_test.py --highwater <highwater binary> --source-dir <repository>
`--only kafka` (no --highwater needed) or `--only highwater` runs one broker.

Both brokers run one configuration (SHARED_SETTINGS: sessions of 6 s, heartbeats every second, three offsets
partitions, no automatic topic creation) with one PLAINTEXT listener. Each test does the same to both, Kafka
first: it asserts what the clients must see on each broker, then that they saw the same on both. Clients are
confluent-kafka (librdkafka 2.16) with group.protocol=consumer (ConsumerGroupHeartbeat, API key 68) unless said
otherwise, and Kafka's own Java tools.

- Two members subscribed by name to a 6-partition topic get 3 partitions each (the uniform assignor), read
  every record exactly once and commit; a third member of the group after they close starts at the committed
  offsets: it reads the records written since and none of the old ones.
- A member that leaves (close) gives its partitions to the other within a deadline; a member killed
  (SIGKILL, a process of its own) keeps them until its session ends (about 6 s), then the survivor gets them.
- A regular expression subscription ("^cp-regex-.*", which librdkafka sends as SubscribedTopicRegex) is
  assigned the matching topics' partitions and no other, and a matching topic created later (Kafka resolves
  regular expressions again at most every 10 s). An expression must match a topic's whole name:
  "^cp-regex-[ab]" (another group) takes cp-regex-a and cp-regex-b, not cp-regex-bx.
- group.remote.assignor=range: two members, two topics of three partitions: one member gets partitions 0-1 of
  each, the other partition 2 of each. An unknown assignor is refused (UNSUPPORTED_ASSIGNOR, which librdkafka
  makes a fatal error of its consumer).
- Regular expressions the broker's RE2 refuses (librdkafka's own parser takes them) are refused
  (INVALID_REGULAR_EXPRESSION, a fatal error too), and the group's other member keeps its partitions.
- Kafka's ConsumerPerformance (kafka-consumer-perf-test) with group.protocol=consumer reads all 3,000 records of a
  3-partition topic; the group it leaves is listed as a Consumer group with no lag.
- Kafka's Java console consumer with group.protocol=consumer reads what was written, and kafka-consumer-groups
  describes the group while it runs (--members, --verbose, --state) and after (--state, --offsets, --members,
  --list --type).
- The native kafka-consumer-groups (highwater-tools, `--tools`, by default beside --highwater) prints what
  Kafka's prints, stdout byte for byte and the notes on stderr, for a group of two members (one static) that
  read and committed: --describe (offsets, --verbose, --offsets), --members (and --verbose), --state (and
  --verbose), --list with --state/--type; and again once both left and the group is empty.
- AdminClient describe_consumer_groups (ConsumerGroupDescribe, API key 69) of a live group of two: type
  CONSUMER, state STABLE, the assignor, each member's client id, host and assignment; a group that does not
  exist is described as librdkafka's fallback (DescribeGroups) has it: CLASSIC, DEAD.
- A classic member (group.protocol=classic, JoinGroup) joins a live consumer group (the default
  group.consumer.migration.policy, bidirectional, lets it): the group gives it half of the partitions and every
  record is read once.
- A rolling restart of two members from group.protocol=classic to consumer and back, one member at a time: the
  group is described CLASSIC, then CONSUMER while any member speaks the consumer protocol, then CLASSIC again;
  at every step the members split the partitions, read what is written once and their commits carry over.
  The same with Kafka's Java console consumer (cooperative-sticky while classic), nothing lost at any step.
"""

import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from confluent_kafka import (Consumer, ConsumerGroupTopicPartitions, KafkaError, KafkaException, Producer,
                             TopicPartition)

import broker_pair
from broker_pair import PLAINTEXT_LISTENER, java_env
from kafka_process import run
from highwater_process import wait_for

HIGHWATER = None
TOOLS = None  # highwater-tools, for the native kafka-consumer-groups
SOURCE_DIR = None
ONLY = None  # "kafka" or "highwater": that broker alone
BROKERS = broker_pair.Pair()  # Kafka first: what it does is what highwater must do
WORK_DIR = None
FAILURE_LOGS = []  # (test, broker, the end of its log) for each failed test, printed at the end
TIMINGS = []  # (test, broker, seconds, what): printed at the end
WORKERS = set()  # the member processes of MembershipTest, killed at the end whatever happens

SESSION_S = 6
SHARED_SETTINGS = [
    ("group.consumer.session.timeout.ms", str(SESSION_S * 1000)),
    ("group.consumer.min.session.timeout.ms", str(SESSION_S * 1000)),
    ("group.consumer.heartbeat.interval.ms", "1000"),
    ("group.consumer.min.heartbeat.interval.ms", "1000"),
    ("offsets.topic.replication.factor", "1"),
    ("offsets.topic.num.partitions", "3"),
    ("group.initial.rebalance.delay.ms", "0"),
    ("auto.create.topics.enable", "false"),
    ("num.partitions", "1"),
]

UNSUPPORTED_ASSIGNOR_TEXT = "The assignor or its version range is not supported by the consumer group"
INVALID_REGEX_TEXT = "The regular expression is not valid"


class Broker(broker_pair.Broker):
    """broker_pair's, with the group clients these tests use."""

    def produce(self, topic, records):
        """Writes records ((key, value, partition or None) each; keys through the default partitioner) with
        acks=all: the written records as (topic, partition, offset, key, value)."""
        written, failed = [], []

        def report(err, msg):
            if err is not None:
                failed.append(err.name())
            else:
                written.append((msg.topic(), msg.partition(), msg.offset(),
                                msg.key().decode() if msg.key() is not None else None, msg.value().decode()))

        p = Producer({"bootstrap.servers": self.bootstrap, "acks": "all", "linger.ms": 5})
        for key, value, partition in records:
            kwargs = {} if partition is None else {"partition": partition}
            p.produce(topic, value.encode(), key.encode() if key is not None else None, on_delivery=report,
                      **kwargs)
        left = p.flush(20)
        if left or failed or len(written) != len(records):
            raise AssertionError("%s: wrote %d of %d records to %s (failures %s)"
                                 % (self.name, len(written), len(records), topic, failed))
        return written

    def high_watermarks(self, topic, partitions):
        c = Consumer({"bootstrap.servers": self.bootstrap, "group.id": "cp-watermarks"})
        try:
            return {p: c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1] for p in range(partitions)}
        finally:
            c.close()

    def committed(self, group):
        """The group's committed offsets: {(topic, partition): offset} (OffsetFetch through the AdminClient)."""
        got = self.admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])[group].result(20)
        return {(tp.topic, tp.partition): tp.offset for tp in got.topic_partitions}

    def describe(self, group):
        return self.admin.describe_consumer_groups([group], request_timeout=10)[group].result(20)

    def describe_settled(self, group, members, timeout_s=15):
        """The group's description once it is STABLE and every member's assignment is its target (the coordinator
        learns that a member reconciled from its next heartbeat); members are polled meanwhile."""
        last = [None]

        def settled():
            last[0] = self.describe(group)
            return (last[0].state.name == "STABLE"
                    and all(mm.assignment is not None and mm.target_assignment is not None
                            and tps(mm.assignment.topic_partitions) == tps(mm.target_assignment.topic_partitions)
                            for mm in last[0].members))
        poll_until(members, settled, timeout_s, lambda: "a stable description of %s (the last: %s)"
                   % (group, describe_text(last[0])))
        return last[0]


class KafkaBroker(Broker, broker_pair.KafkaBroker):
    pass


class HighwaterBroker(Broker, broker_pair.HighwaterBroker):
    pass


def stop_workers():
    for p in list(WORKERS):
        if p.poll() is None:
            p.kill()
            p.wait(5)
        WORKERS.discard(p)


def setUpModule():
    global WORK_DIR
    WORK_DIR = tempfile.mkdtemp(prefix="hw-py-cp-")
    try:
        # Kafka with its PLAINTEXT listener alone, highwater alike (or the one of --only).
        BROKERS.start(WORK_DIR, lambda d: KafkaBroker(SOURCE_DIR, d, SHARED_SETTINGS, sasl_listener=False),
                      lambda d: HighwaterBroker(HIGHWATER, d, SHARED_SETTINGS + PLAINTEXT_LISTENER), ONLY)
    except Exception:
        close_brokers()
        raise


def tearDownModule():
    close_brokers()


def close_brokers():
    global WORK_DIR
    stop_workers()
    BROKERS.stop()
    if WORK_DIR:
        shutil.rmtree(WORK_DIR, ignore_errors=True)
        WORK_DIR = None


def describe_text(d):
    """A ConsumerGroupDescription as text, for failure messages."""
    if d is None:
        return None
    return "%s %s %s members %s" % (d.type.name, d.state.name, d.partition_assignor, [
        (mm.client_id, mm.assignment and tps(mm.assignment.topic_partitions),
         mm.target_assignment and tps(mm.target_assignment.topic_partitions)) for mm in d.members])


def tps(partitions):
    """TopicPartitions as a sorted list of (topic, partition)."""
    return sorted((tp.topic, tp.partition) for tp in partitions)


class Member:
    """A confluent-kafka consumer in a group (group.protocol=consumer unless conf says otherwise), subscribed at
    once: its assignment, the rebalance callbacks it saw, what it read, the errors it reported (error_cb and
    consume's error events, as (name, text))."""

    def __init__(self, broker, group, topics, client_id, **conf):
        self.name = client_id
        self.broker = broker
        self.events = []    # ("assign" | "revoke" | "lost", [(topic, partition)]), in order
        self.records = []   # (topic, partition, offset, key, value)
        self.errors = []
        self.closed = False
        settings = {"bootstrap.servers": broker.bootstrap, "group.id": group, "group.protocol": "consumer",
                    "client.id": client_id, "auto.offset.reset": "earliest", "enable.auto.commit": False,
                    "error_cb": lambda e: self.errors.append((e.name(), e.str()))}
        settings.update(conf)
        self.c = Consumer(settings)
        self.c.subscribe(topics, on_assign=lambda c, ps: self.events.append(("assign", tps(ps))),
                         on_revoke=lambda c, ps: self.events.append(("revoke", tps(ps))),
                         on_lost=lambda c, ps: self.events.append(("lost", tps(ps))))

    def owned(self):
        return tps(self.c.assignment())

    def from_callbacks(self):
        """The assignment the rebalance callbacks add up to (incremental: assign adds, revoke and lost take)."""
        owned = set()
        for kind, partitions in self.events:
            owned = owned | set(partitions) if kind == "assign" else owned - set(partitions)
        return sorted(owned)

    def poll(self, timeout_s=0.05):
        for m in self.c.consume(num_messages=500, timeout=timeout_s):
            if m.error():
                if m.error().code() != KafkaError._PARTITION_EOF:
                    self.errors.append((m.error().name(), m.error().str()))
            else:
                key = m.key().decode() if m.key() is not None else None
                self.records.append((m.topic(), m.partition(), m.offset(), key, m.value().decode()))

    def commit(self):
        """A synchronous commit of what it read: None or the error's name."""
        try:
            self.c.commit(asynchronous=False)
            return None
        except KafkaException as e:
            return e.args[0].name()

    def state(self):
        if self.closed:
            return "%s: closed, read %d, errors %s" % (self.name, len(self.records), self.errors[-4:])
        return "%s: owns %s, read %d, events %s, errors %s" % (self.name, self.owned(), len(self.records),
                                                              self.events[-6:], self.errors[-4:])

    def close(self):
        if not self.closed:
            self.closed = True
            self.c.close()


def poll_until(members, done, timeout_s, what):
    """Polls every member until done() holds; the seconds it took. what names the wait in the failure message
    (a function: called then)."""
    start = time.monotonic()
    deadline = start + timeout_s
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError("%s: timed out after %.0f s waiting for %s:\n  %s"
                                 % (members[0].broker.name, timeout_s, what() if callable(what) else what,
                                    "\n  ".join(m.state() for m in members)))
        for m in members:
            if not m.closed:
                m.poll(0.02)
    return time.monotonic() - start


def close_all(members):
    for m in members:
        m.close()


def java_tool(main_class, args, timeout_s=90):
    return run([os.path.join(SOURCE_DIR, "scripts/kafka-run-class.sh"), main_class] + args, timeout_s, java_env())


CONSOLE_CONSUMER = "org.apache.kafka.tools.consumer.ConsoleConsumer"
GROUP_COMMAND = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"
PERF_CONSUMER = "org.apache.kafka.tools.ConsumerPerformance"


class ConsumerProtocolTest(broker_pair.PairTest):
    brokers, failure_logs, timings = BROKERS, FAILURE_LOGS, TIMINGS

    def tearDown(self):
        stop_workers()
        super().tearDown()

    def assert_split(self, members, partitions, sizes, what):
        """The members own disjoint sets of partitions that make up partitions, of the given sizes."""
        owned = [m.owned() for m in members]
        self.assertEqual(sorted(len(o) for o in owned), sorted(sizes), "%s: %s" % (what, owned))
        self.assertEqual(sorted(p for o in owned for p in o), sorted(partitions), "%s: %s" % (what, owned))

    def split_is(self, members, partitions, sizes):
        owned = [m.owned() for m in members]
        return (sorted(len(o) for o in owned) == sorted(sizes)
                and sorted(p for o in owned for p in o) == sorted(partitions))


class GroupTest(ConsumerProtocolTest):
    """Members subscribed by name: the uniform assignor's split, reading, committing, starting from commits."""
    RECORDS = 120
    LATER = 12  # written after the first two members closed: 2 in each partition

    def test_two_members_split_read_and_commit(self):
        self.on_both(self.split_read_commit)

    def split_read_commit(self, broker):
        topic, group = "cp-split", "cp-split-group"
        partitions = [(topic, p) for p in range(6)]
        broker.create_topic(topic, 6)
        seen = {}
        members = [Member(broker, group, [topic], "cp-split-%d" % i) for i in (1, 2)]
        try:
            took = poll_until(members, lambda: self.split_is(members, partitions, [3, 3]), 30,
                              "3 partitions each")
            self.timing(broker, "two members' split", took)
            # The records go once the split is made: no partition changes hands while they are read.
            written = broker.produce(topic, [("key-%03d" % (i % 40), "%s-%04d" % (topic, i), None)
                                             for i in range(self.RECORDS)])
            poll_until(members, lambda: sum(len(m.records) for m in members) >= len(written), 30,
                       "every record")
            self.assert_split(members, partitions, [3, 3], "the split after reading")
            for m in members:
                self.assertEqual(m.from_callbacks(), m.owned(), "%s's callbacks %s" % (m.name, m.events))
            read = [r for m in members for r in m.records]
            self.assertEqual(sorted(read), sorted(written), "what the two members read, together")
            for m in members:
                self.assertEqual({(t, p) for t, p, _, _, _ in m.records} - set(m.owned()), set(),
                                 "%s read partitions it did not own" % m.name)
            seen["split"] = sorted(len(m.owned()) for m in members)
            seen["read"] = sorted(read)
            seen["commits"] = [m.commit() for m in members]
            self.assertEqual(seen["commits"], [None, None], "the members' synchronous commits")
            seen["errors"] = [m.errors for m in members]
            self.assertEqual(seen["errors"], [[], []], "the members' errors")
        finally:
            close_all(members)

        # What they committed: each partition's end (the admin's OffsetFetch).
        ends = broker.high_watermarks(topic, 6)
        seen["committed"] = sorted(broker.committed(group).items())
        self.assertEqual(seen["committed"], [((topic, p), ends[p]) for p in range(6)], "the committed offsets")

        # A third member starts at the committed offsets: the new records and none of the old.
        later = broker.produce(topic, [(None, "%s-later-%02d" % (topic, i), i % 6) for i in range(self.LATER)])
        third = Member(broker, group, [topic], "cp-split-3")
        try:
            took = poll_until([third], lambda: len(third.records) >= len(later), 30, "the later records")
            self.timing(broker, "a third member's first records", took)
            # Within a partition the old records come first: with every partition holding later records, any old
            # one read would be among these.
            self.assertEqual(sorted(third.records), sorted(later), "what the third member read")
            self.assertEqual(third.owned(), partitions, "the third member's partitions")
            seen["third read"] = sorted(third.records)
            seen["third commit"] = third.commit()
            self.assertIsNone(seen["third commit"])
        finally:
            third.close()
        return seen


class MembershipTest(ConsumerProtocolTest):
    """Members that leave and members that die."""

    def test_leave_then_session_expiry(self):
        self.on_both(self.leave_then_expiry)

    def leave_then_expiry(self, broker):
        topic, group = "cp-leave", "cp-leave-group"
        partitions = [(topic, p) for p in range(6)]
        broker.create_topic(topic, 6)
        seen = {}
        stayer = Member(broker, group, [topic], "cp-stayer")
        leaver = Member(broker, group, [topic], "cp-leaver")
        worker = None
        try:
            poll_until([stayer, leaver], lambda: self.split_is([stayer, leaver], partitions, [3, 3]), 30,
                       "3 partitions each")
            # A member that closes leaves the group (a heartbeat with epoch -1): the other gets everything.
            leaver.close()
            took = poll_until([stayer], lambda: stayer.owned() == partitions, 15,
                              "all partitions after the other member left")
            self.timing(broker, "the survivor's partitions after a leave", took)
            seen["after a leave"] = stayer.owned()

            # A member in a process of its own, killed: it never leaves, its session ends SESSION_S after its
            # last heartbeat (at most a second before the kill).
            worker = WorkerMember(broker, group, topic)
            poll_until([stayer], lambda: len(stayer.owned()) == 3 and len(worker.owned()) == 3
                       and sorted(stayer.owned() + worker.owned()) == partitions, 30,
                       "3 partitions each with the member process (it owns %s)" % worker.owned())
            worker.kill()
            killed_at = time.monotonic()
            took = poll_until([stayer], lambda: stayer.owned() == partitions, SESSION_S + 20,
                              "all partitions after the member process was killed")
            self.timing(broker, "the survivor's partitions after a kill (session %d s)" % SESSION_S, took)
            seen["after a kill"] = stayer.owned()
            # Not before the session could have ended: no leave was sent, and a closed connection ends nothing.
            seen["kept until the session's end"] = time.monotonic() - killed_at >= SESSION_S - 1.5
            self.assertTrue(seen["kept until the session's end"],
                            "the survivor got the killed member's partitions %.1f s after the kill, before its "
                            "session of %d s could end" % (time.monotonic() - killed_at, SESSION_S))
            seen["survivor's errors"] = stayer.errors
            self.assertEqual(stayer.errors, [], "the survivor's errors")
            # (The survivor's callbacks are not compared: how many steps a reassignment takes is timing.)
        finally:
            if worker:
                worker.kill()
            close_all([stayer, leaver])
        return seen


class WorkerMember:
    """A member in a process of its own (this file run with --worker): it prints its assignment, as a JSON list,
    each time it changes."""

    def __init__(self, broker, group, topic):
        self.assignments = [[]]
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                     cwd=os.path.dirname(os.path.abspath(__file__)))
        WORKERS.add(self.proc)
        self.proc.stdin.write(json.dumps({"bootstrap": broker.bootstrap, "group": group, "topic": topic}) + "\n")
        self.proc.stdin.flush()
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        for line in self.proc.stdout:
            self.assignments.append([tuple(tp) for tp in json.loads(line)])
        self.proc.stdout.close()

    def owned(self):
        return self.assignments[-1]

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()  # SIGKILL: no leave, no close
            self.proc.wait(5)
        self.reader.join(10)
        self.proc.stdin.close()
        WORKERS.discard(self.proc)


def worker_main():
    task = json.loads(sys.stdin.readline())
    c = Consumer({"bootstrap.servers": task["bootstrap"], "group.id": task["group"], "group.protocol": "consumer",
                  "client.id": "cp-worker", "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.subscribe([task["topic"]])
    last = None
    while True:
        c.poll(0.05)
        owned = tps(c.assignment())
        if owned != last:
            print(json.dumps(owned), flush=True)
            last = owned


class RegexTest(ConsumerProtocolTest):
    """Subscriptions by regular expression (SubscribedTopicRegex)."""
    NEW_TOPIC_S = 40  # Kafka resolves a group's regular expressions again at most every 10 s

    def test_regex_subscription(self):
        self.on_both(self.regex_subscription)

    def regex_subscription(self, broker):
        sizes = {"cp-regex-a": 2, "cp-regex-b": 3, "cp-regex-bx": 1, "cp-other": 2, "xcp-regex-c": 1, "cp-regexx": 1}
        for t, n in sizes.items():
            broker.create_topic(t, n)
        matching = [(t, p) for t in ("cp-regex-a", "cp-regex-b", "cp-regex-bx") for p in range(sizes[t])]
        # An expression matches a topic's whole name (RE2/J's matches()): "^cp-regex-[ab]" is not cp-regex-bx.
        whole = [(t, p) for t in ("cp-regex-a", "cp-regex-b") for p in range(sizes[t])]
        seen = {}
        m = Member(broker, "cp-regex-group", ["^cp-regex-.*"], "cp-regex")
        anchored = Member(broker, "cp-regex-whole-group", ["^cp-regex-[ab]"], "cp-regex-whole")
        both = [m, anchored]
        try:
            took = poll_until(both, lambda: m.owned() == matching and anchored.owned() == whole, 30,
                              "the matching topics' partitions")
            self.timing(broker, "the regular expressions' first assignments", took)
            seen["assigned"] = (m.owned(), anchored.owned())
            # One record in every partition of every topic: only the matching ones' are read.
            written = []
            for t, n in sizes.items():
                written += broker.produce(t, [(None, "%s-%d" % (t, p), p) for p in range(n)])
            poll_until(both, lambda: len(m.records) >= len(matching) and len(anchored.records) >= len(whole), 20,
                       "the matching topics' records")
            seen["read"] = (sorted(m.records), sorted(anchored.records))
            self.assertEqual(seen["read"], (sorted(r for r in written if (r[0], r[1]) in matching),
                                            sorted(r for r in written if (r[0], r[1]) in whole)),
                             "what the members read")

            # A matching topic created now joins the assignment once the broker resolves the expression again.
            broker.create_topic("cp-regex-new", 2)
            want = sorted(matching + [("cp-regex-new", 0), ("cp-regex-new", 1)])
            took = poll_until(both, lambda: m.owned() == want, self.NEW_TOPIC_S, "the new topic's partitions")
            self.timing(broker, "a new matching topic's partitions (from its creation)", took)
            later = broker.produce("cp-regex-new", [(None, "cp-regex-new-%d" % p, p) for p in range(2)])
            poll_until(both, lambda: len(m.records) >= len(matching) + 2, 20, "the new topic's records")
            seen["read from the new topic"] = sorted(r for r in m.records if r[0] == "cp-regex-new")
            self.assertEqual(seen["read from the new topic"], sorted(later))
            seen["assigned at the end"] = (m.owned(), anchored.owned())
            self.assertEqual(seen["assigned at the end"], (want, whole), "the assignments at the end")
            seen["errors"] = [mm.errors for mm in both]
            self.assertEqual(seen["errors"], [[], []], "the members' errors")
        finally:
            close_all(both)
        return seen

    # Regular expressions librdkafka's parser takes (it refuses "^cp-(" itself, at subscribe()) and RE2, Kafka's
    # (RE2/J), refuses: a repetition of a repetition, a count above RE2's limit of 1000, a backreference.
    INVALID = ["^cp-a**", "^cp-x{2000}", "^cp-(a)\\1"]

    def test_invalid_regex(self):
        self.on_both(self.invalid_regex)

    def invalid_regex(self, broker):
        topic, group = "cp-bad-regex", "cp-bad-regex-group"
        partitions = [(topic, p) for p in range(3)]
        broker.create_topic(topic, 3)
        seen = {}
        keeper = Member(broker, group, [topic], "cp-keeper")
        try:
            poll_until([keeper], lambda: keeper.owned() == partitions, 30, "the first member's partitions")
            events_before = list(keeper.events)
            seen["refused"] = {}
            for i, regex in enumerate(self.INVALID):
                bad = Member(broker, group, [regex], "cp-bad-%d" % i)
                try:
                    poll_until([keeper, bad], lambda: bad.errors, 20, "%s refused" % regex)
                    seen["refused"][regex] = {"errors": bad.errors, "owned": bad.owned()}
                finally:
                    bad.close()
                self.assertEqual(seen["refused"][regex]["errors"],
                                 [("_FATAL", "Fatal error: Broker: %s: ConsumerGroupHeartbeat fatal error: Broker: "
                                   "%s" % (INVALID_REGEX_TEXT, INVALID_REGEX_TEXT))],
                                 "what the member subscribed to %s reported" % regex)
                self.assertEqual(seen["refused"][regex]["owned"], [])
            # The first member is undisturbed: the same partitions, no callback since, and it reads on.
            written = broker.produce(topic, [(None, "%s-%d" % (topic, p), p) for p in range(3)])
            poll_until([keeper], lambda: len(keeper.records) >= 3, 20, "the first member's records")
            seen["keeper"] = {"owned": keeper.owned(), "events since": keeper.events[len(events_before):],
                              "read": sorted(keeper.records), "errors": keeper.errors}
            self.assertEqual(seen["keeper"], {"owned": partitions, "events since": [], "read": sorted(written),
                                              "errors": []}, "the first member")
            d = broker.describe_settled(group, [keeper])
            seen["described"] = (d.state.name, [(mm.client_id, tps(mm.assignment.topic_partitions))
                                                for mm in d.members])
            self.assertEqual(seen["described"], ("STABLE", [("cp-keeper", partitions)]), "the group described")
        finally:
            keeper.close()
        return seen


class AssignorTest(ConsumerProtocolTest):
    """group.remote.assignor: the range assignor on request, an unknown one refused."""

    def test_range_assignor(self):
        self.on_both(self.range_assignor)

    def range_assignor(self, broker):
        group = "cp-range-group"
        topics = ["cp-range-a", "cp-range-b"]
        for t in topics:
            broker.create_topic(t, 3)
        partitions = [(t, p) for t in topics for p in range(3)]
        seen = {}
        members = [Member(broker, group, topics, "cp-range-%d" % i, **{"group.remote.assignor": "range"})
                   for i in (1, 2)]
        try:
            poll_until(members, lambda: self.split_is(members, partitions, [4, 2]), 30, "a range split")
            # Members in order of their ids take ranges of each topic's partitions: the first 0-1, the other 2.
            seen["split"] = sorted(sorted(m.owned()) for m in members)
            self.assertEqual(seen["split"], [[("cp-range-a", 0), ("cp-range-a", 1), ("cp-range-b", 0),
                                              ("cp-range-b", 1)], [("cp-range-a", 2), ("cp-range-b", 2)]])
            d = broker.describe_settled(group, members)
            seen["described"] = (d.type.name, d.state.name, d.partition_assignor)
            self.assertEqual(seen["described"], ("CONSUMER", "STABLE", "range"), "the group described")
            seen["errors"] = [m.errors for m in members]
            self.assertEqual(seen["errors"], [[], []])
        finally:
            close_all(members)
        return seen

    def test_unknown_assignor(self):
        self.on_both(self.unknown_assignor)

    def unknown_assignor(self, broker):
        topic = "cp-nonesuch"
        broker.create_topic(topic, 2)
        m = Member(broker, "cp-nonesuch-group", [topic], "cp-nonesuch", **{"group.remote.assignor": "nonesuch"})
        try:
            poll_until([m], lambda: m.errors, 20, "the unknown assignor refused")
            seen = {"errors": m.errors, "owned": m.owned()}
        finally:
            m.close()
        # librdkafka makes a fatal error of UNSUPPORTED_ASSIGNOR: the consumer can do nothing more.
        self.assertEqual(seen, {"errors": [("_FATAL", "Fatal error: Broker: %s: ConsumerGroupHeartbeat fatal error: "
                                            "Broker: %s" % (UNSUPPORTED_ASSIGNOR_TEXT, UNSUPPORTED_ASSIGNOR_TEXT))],
                                "owned": []}, "what the consumer reported")
        return seen


class DescribeTest(ConsumerProtocolTest):
    """AdminClient describe_consumer_groups (ConsumerGroupDescribe)."""

    def test_describe_live_group(self):
        self.on_both(self.describe_live)

    def describe_live(self, broker):
        topic, group = "cp-describe", "cp-describe-group"
        partitions = [(topic, p) for p in range(6)]
        broker.create_topic(topic, 6)
        seen = {}
        members = [Member(broker, group, [topic], "cp-describe-%d" % i) for i in (1, 2)]
        try:
            poll_until(members, lambda: self.split_is(members, partitions, [3, 3]), 30, "3 partitions each")
            d = broker.describe_settled(group, members)
            ids = {m.c.memberid(): m for m in members}
            seen["group"] = {"type": d.type.name, "state": d.state.name, "assignor": d.partition_assignor,
                             "simple": d.is_simple_consumer_group, "coordinator id": d.coordinator.id,
                             "coordinator is the broker": "%s:%d" % (d.coordinator.host, d.coordinator.port)
                             == broker.bootstrap}
            self.assertEqual(seen["group"], {"type": "CONSUMER", "state": "STABLE", "assignor": "uniform",
                                             "simple": False, "coordinator id": 1, "coordinator is the broker": True})
            seen["members"] = []
            for mm in sorted(d.members, key=lambda mm: mm.client_id):
                self.assertIn(mm.member_id, ids, "a described member id that no member has")
                own = ids[mm.member_id]
                self.assertEqual(mm.client_id, own.name)
                self.assertEqual(tps(mm.assignment.topic_partitions), own.owned(), "%s's assignment" % own.name)
                seen["members"].append({"client id": mm.client_id, "host": mm.host,
                                        "instance id": mm.group_instance_id,
                                        "assigned": len(mm.assignment.topic_partitions),
                                        "target": len(mm.target_assignment.topic_partitions)})
            self.assertEqual(seen["members"], [
                {"client id": "cp-describe-%d" % i, "host": "/127.0.0.1", "instance id": None, "assigned": 3,
                 "target": 3} for i in (1, 2)], "the members described")

            # Both in the admin's list of groups, as a consumer group.
            listed = broker.admin.list_consumer_groups(request_timeout=10).result(20)
            seen["listed"] = [(g.group_id, g.type.name, g.state.name) for g in listed.valid if g.group_id == group]
            self.assertEqual(seen["listed"], [(group, "CONSUMER", "STABLE")])
        finally:
            close_all(members)

        # After both left: EMPTY, no members.
        def empty():
            d = broker.describe(group)
            return (d.type.name, d.state.name, len(d.members)) == ("CONSUMER", "EMPTY", 0)
        wait_for(empty, 15, "%s: the group empty" % broker.name)
        seen["after"] = "EMPTY"
        # A group that does not exist: ConsumerGroupDescribe answers GROUP_ID_NOT_FOUND, and librdkafka describes
        # it through DescribeGroups (a classic group, DEAD).
        d = broker.describe("cp-no-such-group")
        seen["no such group"] = (d.type.name, d.state.name, len(d.members), d.is_simple_consumer_group)
        self.assertEqual(seen["no such group"], ("CLASSIC", "DEAD", 0, True))
        return seen


class ClassicMemberTest(ConsumerProtocolTest):
    """A classic member (JoinGroup, SyncGroup) in a live consumer group: with Kafka's default
    group.consumer.migration.policy (bidirectional) it joins and the group's assignor gives it partitions."""
    RECORDS = 60

    def test_classic_member_joins(self):
        self.on_both(self.classic_joins)

    def classic_joins(self, broker):
        topic, group = "cp-mixed", "cp-mixed-group"
        partitions = [(topic, p) for p in range(6)]
        broker.create_topic(topic, 6)
        seen = {}
        first = Member(broker, group, [topic], "cp-mixed-consumer")
        classic = None
        try:
            poll_until([first], lambda: first.owned() == partitions, 30, "the consumer member's partitions")
            before = broker.produce(topic, [(None, "%s-before-%02d" % (topic, i), i % 6) for i in range(self.RECORDS)])
            poll_until([first], lambda: len(first.records) >= len(before), 20, "the first records")
            self.assertIsNone(first.commit())

            classic = Member(broker, group, [topic], "cp-mixed-classic", **{"group.protocol": "classic"})
            took = poll_until([first, classic], lambda: self.split_is([first, classic], partitions, [3, 3]), 40,
                              "the classic member's half")
            self.timing(broker, "a classic member's half of the partitions", took)
            after = broker.produce(topic, [(None, "%s-after-%02d" % (topic, i), i % 6) for i in range(self.RECORDS)])
            both = [first, classic]
            poll_until(both, lambda: sum(len(m.records) for m in both) >= len(before) + len(after), 30,
                       "every record")
            self.assert_split(both, partitions, [3, 3], "the split after reading")
            seen["read once"] = sorted(r for m in both for r in m.records) == sorted(before + after)
            self.assertTrue(seen["read once"], "every record read once: %s"
                            % collections.Counter(r[4] for m in both for r in m.records).most_common(3))
            seen["classic read"] = sorted(r for r in classic.records) == sorted(
                r for r in after if (r[0], r[1]) in classic.owned())
            self.assertTrue(seen["classic read"], "the classic member read the later records of its partitions")

            d = broker.describe_settled(group, both)
            seen["described"] = (d.type.name, d.state.name, sorted((mm.client_id, len(mm.assignment.topic_partitions))
                                                                   for mm in d.members))
            self.assertEqual(seen["described"], ("CONSUMER", "STABLE", [("cp-mixed-classic", 3),
                                                                        ("cp-mixed-consumer", 3)]))
            seen["errors"] = [m.errors for m in both]
            self.assertEqual(seen["errors"], [[], []])
        finally:
            close_all([m for m in (first, classic) if m])
        return seen


class RollingMigrationTest(ConsumerProtocolTest):
    """A rolling restart of a two-member application from group.protocol=classic to consumer and back, one member at
    a time (Kafka's default group.consumer.migration.policy, bidirectional): the classic group is upgraded when the
    first consumer-protocol member joins, its classic member keeps working inside the consumer group, and the group
    is a classic group again once its last consumer-protocol member leaves. At every step the two members split the
    partitions, read what is written once, and the committed offsets carry over (a new member starts where its
    predecessor committed)."""
    BATCH = 12

    def test_rolling_upgrade_and_downgrade(self):
        self.on_both(self.rolling)

    def rolling(self, broker):
        topic, group = "cp-rolling", "cp-rolling-group"
        partitions = [(topic, p) for p in range(6)]
        broker.create_topic(topic, 6)
        seen = {"steps": []}
        written, everyone, members = [], [], [None, None]

        def start(i, protocol):
            m = Member(broker, group, [topic], "cp-rolling-%d-%s" % (i, protocol), **{"group.protocol": protocol})
            everyone.append(m)
            members[i] = m

        def settle_and_read(step):
            took = poll_until(members, lambda: self.split_is(members, partitions, [3, 3]), 60,
                              "the split after %s" % step)
            self.timing(broker, "%s: the split" % step, took)
            batch = broker.produce(topic, [(None, "%s-%s-%02d" % (topic, step, i), i % 6) for i in range(self.BATCH)])
            written.extend(batch)
            poll_until(members, lambda: sum(len(m.records) for m in everyone) >= len(written), 30,
                       "the records of %s" % step)
            for m in members:
                self.assertIsNone(m.commit(), "%s: %s commits" % (step, m.name))
            d = broker.describe(group)
            if d.type.name == "CONSUMER":
                d = broker.describe_settled(group, members)
            read = sorted(r for m in everyone for r in m.records)
            seen["steps"].append((step, d.type.name, d.state.name, len(d.members), read == sorted(written)))
            self.assertEqual(read, sorted(written), "%s: every record read once" % step)

        def replace(i, protocol, step):
            members[i].close()  # it committed what it read (settle_and_read)
            start(i, protocol)
            settle_and_read(step)

        try:
            start(0, "classic")
            start(1, "classic")
            settle_and_read("classic")
            replace(0, "consumer", "one upgraded")
            replace(1, "consumer", "both upgraded")
            replace(0, "classic", "one downgraded")
            replace(1, "classic", "both downgraded")
            self.assertEqual([s[1] for s in seen["steps"]], ["CLASSIC", "CONSUMER", "CONSUMER", "CONSUMER", "CLASSIC"])
            self.assertEqual({s[2] for s in seen["steps"]}, {"STABLE"})
            hw = broker.high_watermarks(topic, 6)
            seen["committed"] = broker.committed(group) == {(topic, p): hw[p] for p in range(6)}
            self.assertTrue(seen["committed"], "the group's committed offsets are the ends of its partitions")
            seen["errors"] = [m.errors for m in everyone]
            self.assertEqual(seen["errors"], [[]] * len(everyone))
        finally:
            close_all([m for m in everyone if m])
        return seen


class JavaProcess:
    """A Java tool run in the background (scripts/kafka-run-class.sh), its output lines gathered as they come."""

    def __init__(self, args):
        self.proc = subprocess.Popen([os.path.join(SOURCE_DIR, "scripts/kafka-run-class.sh")] + args,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=java_env())
        WORKERS.add(self.proc)
        self.out, self.err = [], []
        self.readers = [threading.Thread(target=self.gather, args=(stream, lines), daemon=True)
                        for stream, lines in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))]
        for r in self.readers:
            r.start()

    @staticmethod
    def gather(stream, lines):
        for line in stream:
            lines.append(line)
        stream.close()

    def wait(self, timeout_s):
        """Its exit code (None if it had to be killed at the deadline), once its output is all read."""
        try:
            code = self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            code = None
        self.kill()
        return code

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
        for r in self.readers:
            r.join(10)
        WORKERS.discard(self.proc)

    def err_tail(self):
        return "".join(self.err)[-3000:]


class JavaRollingMigrationTest(ConsumerProtocolTest):
    """Kafka's Java console consumer in the rolling restart of RollingMigrationTest: two members on the classic
    protocol with the cooperative-sticky assignor (their JoinGroup carries what they own), replaced one at a time by
    members on the consumer protocol and back. Each member is stopped with SIGTERM (it commits on its way out); at
    every step the two split the partitions and every record written so far has been read."""
    BATCH = 12

    def test_java_rolling_upgrade_and_downgrade(self):
        self.on_both(self.rolling)

    def rolling(self, broker):
        topic, group = "cp-java-rolling", "cp-java-rolling-group"
        broker.create_topic(topic, 6)
        seen = {"steps": []}
        written, retired, members = [], [], [None, None]

        def start(i, protocol):
            args = [CONSOLE_CONSUMER, "--bootstrap-server", broker.bootstrap, "--topic", topic, "--group", group,
                    "--from-beginning", "--command-property", "group.protocol=" + protocol,
                    "--command-property", "client.id=cp-java-%d-%s" % (i, protocol),
                    "--command-property", "auto.commit.interval.ms=500"]
            if protocol == "classic":
                args += ["--command-property", "partition.assignment.strategy="
                         "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"]
            members[i] = JavaProcess(args)

        def split():
            d = broker.describe(group)
            owned = [len(tps(m.assignment.topic_partitions)) for m in d.members]
            return d if d.state.name == "STABLE" and sorted(owned) == [3, 3] else None

        def read():
            return [line.rstrip("\n") for p in retired + members if p for line in p.out]

        def step(name):
            start_s = time.monotonic()
            wait_for(split, 90, "%s: %s: two members holding 3 partitions each" % (broker.name, name))
            self.timing(broker, "%s: the split (JVM start included)" % name, time.monotonic() - start_s)
            batch = broker.produce(topic, [(None, "%s-%s-%02d" % (topic, name, i), i % 6) for i in range(self.BATCH)])
            written.extend(r[4] for r in batch)
            wait_for(lambda: set(written) <= set(read()), 60, "%s: %s: every record read" % (broker.name, name))
            d = broker.describe(group)
            seen["steps"].append((name, d.type.name, len(d.members)))

        def replace(i, protocol, name):
            old = members[i]
            old.proc.terminate()  # the console consumer closes its consumer: a last commit, then it leaves
            self.assertIsNotNone(old.wait(60), "%s: the old member stopped" % name)
            retired.append(old)
            start(i, protocol)
            step(name)

        try:
            start(0, "classic")
            start(1, "classic")
            step("classic")
            replace(0, "consumer", "one upgraded")
            replace(1, "consumer", "both upgraded")
            replace(0, "classic", "one downgraded")
            replace(1, "classic", "both downgraded")
            self.assertEqual([s[1] for s in seen["steps"]], ["CLASSIC", "CONSUMER", "CONSUMER", "CONSUMER", "CLASSIC"])
            seen["nothing lost"] = set(written) <= set(read())
            self.assertTrue(seen["nothing lost"])
        finally:
            for p in members + retired:
                if p:
                    p.kill()
        return seen


class JavaToolsTest(ConsumerProtocolTest):
    """Kafka's console consumer in a consumer group, and kafka-consumer-groups describing it; Kafka's
    ConsumerPerformance with the consumer protocol."""
    RECORDS = 30
    LATER = 6
    PERF_RECORDS = 3000

    def test_consumer_performance_with_the_consumer_protocol(self):
        self.on_both(self.consumer_performance)

    def consumer_performance(self, broker):
        """kafka-consumer-perf-test (ConsumerPerformance) in a group of the consumer protocol reads every record
        of a 3-partition topic; the group it leaves is a consumer group, its offsets at the topic's end."""
        topic, group = "cp-perf", "cp-perf-group"
        broker.create_topic(topic, 3)
        broker.produce(topic, [(None, "%s-%05d" % (topic, i), i % 3) for i in range(self.PERF_RECORDS)])
        start = time.monotonic()
        code, out, err = java_tool(PERF_CONSUMER, ["--bootstrap-server", broker.bootstrap, "--topic", topic,
                                                   "--group", group, "--messages", str(self.PERF_RECORDS),
                                                   "--command-property", "group.protocol=consumer",
                                                   "--timeout", "60000"], 120)
        self.assertEqual(code, 0, "%s: ConsumerPerformance:\n%s%s" % (broker.name, out, err))
        self.timing(broker, "ConsumerPerformance of %d records (JVM start included)" % self.PERF_RECORDS,
                    time.monotonic() - start)
        lines = [line for line in out.splitlines() if line.strip()]
        header = next((i for i, line in enumerate(lines) if line.startswith("start.time")), None)
        self.assertIsNotNone(header, "%s: no statistics header:\n%s%s" % (broker.name, out, err))
        stats = dict(zip([c.strip() for c in lines[header].split(",")],
                         [v.strip() for v in lines[header + 1].split(",")]))
        seen = {"records": int(stats["data.consumed.in.nMsg"])}
        listed = self.groups(broker, ["--list", "--type"])
        seen["type"] = next((row.split()[1] for row in listed.splitlines() if row.split()[:1] == [group]), None)
        offsets = self.groups(broker, ["--describe", "--group", group, "--offsets"])
        seen["lag"] = sorted({row["LAG"] for row in table(offsets, "GROUP", ["CONSUMER-ID", "HOST", "CLIENT-ID"])})
        self.assertEqual(seen, {"records": self.PERF_RECORDS, "type": "Consumer", "lag": ["0"]},
                         "%s:\n%s\n%s\n%s" % (broker.name, out, listed, offsets))
        return seen

    def test_console_consumer_and_group_command(self):
        self.on_both(self.console_and_group_command)

    def groups(self, broker, args):
        """kafka-consumer-groups' standard output (its notes, such as "has no active members", go to its standard
        error, kept in self.notes)."""
        code, out, err = java_tool(GROUP_COMMAND, ["--bootstrap-server", broker.bootstrap] + args, 60)
        self.assertEqual(code, 0, "kafka-consumer-groups %s on %s:\n%s%s" % (" ".join(args), broker.name, out, err))
        self.notes = [line for line in err.splitlines() if line.strip() and not line.startswith("[")]
        return out

    def console_and_group_command(self, broker):
        topic, group = "cp-console", "cp-console-group"
        broker.create_topic(topic, 3)
        written = broker.produce(topic, [(None, "%s-%02d" % (topic, i), i % 3) for i in range(self.RECORDS)])
        seen = {}
        # The console consumer reads the first records, stays in the group while the tool describes it, then reads
        # the later ones and stops (--max-messages), committing on its way out.
        console = JavaProcess([CONSOLE_CONSUMER, "--bootstrap-server", broker.bootstrap, "--topic", topic,
                               "--group", group, "--command-property", "group.protocol=consumer",
                               "--command-property", "client.id=cp-console", "--from-beginning",
                               "--max-messages", str(self.RECORDS + self.LATER), "--timeout-ms", "60000"])
        try:
            start = time.monotonic()
            wait_for(lambda: len(console.out) >= self.RECORDS or console.proc.poll() is not None, 60,
                     "%s: the console consumer's first records" % broker.name)
            if len(console.out) < self.RECORDS:
                self.fail("the console consumer exited: %s" % console.err_tail())
            self.timing(broker, "the console consumer's first records (JVM start included)", time.monotonic() - start)

            # While it runs: one member holding the 3 partitions, a stable consumer group.
            members = self.groups(broker, ["--describe", "--group", group, "--members"])
            seen["live --members"] = table(members, "GROUP", ["CONSUMER-ID"])
            self.assertEqual(seen["live --members"],
                             [{"GROUP": group, "HOST": "/127.0.0.1", "CLIENT-ID": "cp-console", "#PARTITIONS": "3"}],
                             members)
            verbose = self.groups(broker, ["--describe", "--group", group, "--members", "--verbose"])
            rows = table(verbose, "GROUP", ["CONSUMER-ID"])
            self.assertEqual(len(rows), 1, verbose)
            # The epochs depend on how many heartbeats the console consumer took to reconcile: only that they
            # agree.
            seen["live --members --verbose"] = {
                "assignment": rows[0]["CURRENT-ASSIGNMENT"], "target": rows[0]["TARGET-ASSIGNMENT"],
                "epochs agree": rows[0]["CURRENT-EPOCH"] == rows[0]["TARGET-EPOCH"]}
            self.assertEqual(seen["live --members --verbose"],
                             {"assignment": "%s:0,1,2" % topic, "target": "%s:0,1,2" % topic, "epochs agree": True},
                             verbose)
            state = self.groups(broker, ["--describe", "--group", group, "--state"])
            seen["live --state"] = state_row(state, broker)
            self.assertEqual(seen["live --state"], {"GROUP": group, "COORDINATOR": "the broker (1)",
                                                    "ASSIGNMENT-STRATEGY": "uniform", "STATE": "Stable",
                                                    "#MEMBERS": "1"}, state)

            later = broker.produce(topic, [(None, "%s-later-%d" % (topic, i), i % 3) for i in range(self.LATER)])
            code = console.wait(60)
            self.assertEqual(code, 0, console.err_tail())
            seen["console read"] = sorted(line.rstrip("\n") for line in console.out)
            self.assertEqual(seen["console read"], sorted(r[4] for r in written + later), console.err_tail())
            self.assertIn("Processed a total of %d messages" % (self.RECORDS + self.LATER), "".join(console.err))
        finally:
            console.kill()

        # After it left: empty, its commits the ends of the partitions.
        ends = broker.high_watermarks(topic, 3)
        last = [None]

        def empty():
            last[0] = self.groups(broker, ["--describe", "--group", group, "--state"])
            return state_row(last[0], broker).get("STATE") == "Empty"
        wait_for(empty, 20, "%s: the group empty (last: %s)" % (broker.name, last))
        seen["after --state"] = state_row(last[0], broker)
        self.assertEqual(seen["after --state"], {"GROUP": group, "COORDINATOR": "the broker (1)",
                                                 "ASSIGNMENT-STRATEGY": "uniform", "STATE": "Empty",
                                                 "#MEMBERS": "0"}, last[0])
        offsets = self.groups(broker, ["--describe", "--group", group, "--offsets"])
        seen["after --offsets"] = table(offsets, "GROUP", [])
        self.assertEqual(seen["after --offsets"], [
            {"GROUP": group, "TOPIC": topic, "PARTITION": str(p), "CURRENT-OFFSET": str(ends[p]),
             "LOG-END-OFFSET": str(ends[p]), "LAG": "0", "CONSUMER-ID": "-", "HOST": "-", "CLIENT-ID": "-"}
            for p in range(3)], offsets)
        seen["after --offsets notes"] = self.notes
        self.assertEqual(self.notes, ["Consumer group '%s' has no active members." % group], offsets)
        members = self.groups(broker, ["--describe", "--group", group, "--members"])
        seen["after --members"] = (table(members, "GROUP", []), self.notes)
        self.assertEqual(seen["after --members"], ([], ["Consumer group '%s' has no active members." % group]),
                         members)
        listed = self.groups(broker, ["--list", "--type"])
        seen["--list --type"] = [r for r in table(listed, "GROUP", []) if r["GROUP"] == group]
        self.assertEqual(seen["--list --type"], [{"GROUP": group, "TYPE": "Consumer"}], listed)
        return seen


class NativeGroupCommandTest(ConsumerProtocolTest):
    """The native kafka-consumer-groups (highwater-tools) and Kafka's ConsumerGroupCommand on one consumer group:
    the same stdout, byte for byte, and the same notes on stderr."""
    RECORDS = 24
    LIVE = [[], ["--verbose"], ["--offsets"], ["--members"], ["--members", "--verbose"], ["--state"],
            ["--state", "--verbose"]]
    EMPTY = [[], ["--members", "--verbose"], ["--state", "--verbose"], ["--offsets", "--verbose"]]
    LISTS = [["--list", "--state", "--type"], ["--list", "--type", "consumer", "--state", "stable,empty"]]

    def test_native_tool_matches_kafka(self):
        if not TOOLS:
            self.skipTest("no highwater-tools (--tools, or beside --highwater)")
        self.on_both(self.native_matches)

    def both_tools(self, broker, args):
        """Kafka's tool, then the native one, with args: asserts they printed the same; stdout."""
        args = ["--bootstrap-server", broker.bootstrap] + args
        code, out, err = java_tool(GROUP_COMMAND, args, 60)
        native = run([TOOLS, "kafka-consumer-groups.sh"] + args, 60)
        what = "kafka-consumer-groups %s on %s" % (" ".join(args), broker.name)
        self.assertEqual(code, 0, "%s (java):\n%s%s" % (what, out, err))
        self.assertEqual((native[0], native[1]), (code, out), "%s: the native tool (first) and Kafka's\n%s" % (what, err))
        notes = lambda text: [line for line in text.splitlines() if line.strip() and not line.startswith("[")]
        self.assertEqual(notes(native[2]), notes(err), "%s: the notes on stderr" % what)
        return out

    def views(self, broker, group, views):
        # Each view's Java and native runs in a pair; two pairs at once (the group does not change meanwhile).
        with ThreadPoolExecutor(max_workers=2) as pool:
            return list(pool.map(lambda v: self.both_tools(broker, v), [["--describe", "--group", group] + v
                                                                      for v in views] if group else views))

    def native_matches(self, broker):
        topic, group = "cp-native", "cp-native-group"
        broker.create_topic(topic, 6)
        seen = {}
        # Two members, the second static (a GROUP-INSTANCE-ID column), each having read and committed the records
        # of its 3 partitions (written once the split is made).
        members = [Member(broker, group, [topic], "cp-native-1"),
                   Member(broker, group, [topic], "cp-native-2", **{"group.instance.id": "cp-native-static"})]
        try:
            poll_until(members, lambda: self.split_is(members, [(topic, p) for p in range(6)], [3, 3]), 40,
                       "3 partitions each")
            written = broker.produce(topic, [(None, "%s-%02d" % (topic, i), i % 6) for i in range(self.RECORDS)])
            poll_until(members, lambda: sum(len(m.records) for m in members) >= len(written), 20, "every record")
            self.assertEqual([m.commit() for m in members], [None, None])
            broker.describe_settled(group, members)
            start = time.monotonic()
            live = self.views(broker, group, self.LIVE) + self.views(broker, None, self.LISTS)
            self.timing(broker, "both tools, %d views of a live group" % len(live), time.monotonic() - start)
            # The non-static member's GROUP-INSTANCE-ID is blank: its rows are read by their last column.
            rows = [line for line in live[3].splitlines()[2:] if line.strip()]
            seen["live --members"] = sorted(("cp-native-static" in line, line.split()[-1]) for line in rows)
            self.assertEqual(seen["live --members"], [(False, "3"), (True, "3")], live[3])
            seen["live --state"] = state_row(live[5], broker)
            self.assertEqual(seen["live --state"], {"GROUP": group, "COORDINATOR": "the broker (1)",
                                                    "ASSIGNMENT-STRATEGY": "uniform", "STATE": "Stable",
                                                    "#MEMBERS": "2"}, live[5])
        finally:
            close_all(members)

        # Both gone (the static member once its session ends): empty, with the commits.
        last = [None]

        def empty():
            last[0] = run([TOOLS, "kafka-consumer-groups.sh", "--bootstrap-server", broker.bootstrap, "--describe",
                           "--group", group, "--state"], 30)[1]
            return "Empty" in last[0]
        wait_for(empty, 30, "%s: the group empty (last: %s)" % (broker.name, last))
        start = time.monotonic()
        after = self.views(broker, group, self.EMPTY) + self.views(broker, None, self.LISTS)
        self.timing(broker, "both tools, %d views of the empty group" % len(after), time.monotonic() - start)
        seen["empty --offsets"] = table(after[0], "GROUP", [])
        ends = broker.high_watermarks(topic, 6)
        self.assertEqual(seen["empty --offsets"], [
            {"GROUP": group, "TOPIC": topic, "PARTITION": str(p), "CURRENT-OFFSET": str(ends[p]),
             "LOG-END-OFFSET": str(ends[p]), "LAG": "0", "CONSUMER-ID": "-", "HOST": "-", "CLIENT-ID": "-"}
            for p in range(6)], after[0])
        seen["empty --list"] = [r for r in table(after[-1], "GROUP", []) if r["GROUP"] == group]
        self.assertEqual(seen["empty --list"], [{"GROUP": group, "TYPE": "Consumer", "STATE": "Empty"}], after[-1])
        return seen


def table(out, first_header, dropped):
    """The rows of the table in a tool's output whose header line starts with first_header, as dicts (columns
    split on whitespace), without the columns in dropped (their values differ from run to run)."""
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.split()[:1] == [first_header]:
            header = line.split()
            rows = []
            for row in lines[i + 1:]:
                if not row.strip():
                    break
                values = row.split()
                if len(values) != len(header):
                    raise AssertionError("a row of %d columns under %d headers:\n%s" % (len(values), len(header), out))
                rows.append({h: v for h, v in zip(header, values) if h not in dropped})
            return sorted(rows, key=lambda r: sorted(r.items()))
    raise AssertionError("no table headed %s in:\n%s" % (first_header, out))


def state_row(out, broker):
    """The row of kafka-consumer-groups --describe --state: its COORDINATOR (ID) column ("host:port  (id)") as
    "the broker (id)" when it is the broker's address."""
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("GROUP ") and "COORDINATOR (ID)" in line:
            header = line.replace("COORDINATOR (ID)", "COORDINATOR").split()
            m = re.match(r"(\S+)\s+(\S+)\s+\((\d+)\)\s+(.*)$", lines[i + 1])
            if not m:
                raise AssertionError("an unexpected --state row:\n" + out)
            coordinator = ("the broker (%s)" % m.group(3)) if m.group(2) == broker.bootstrap else m.group(2)
            values = [m.group(1), coordinator] + m.group(4).split()
            return dict(zip(header, values))
    raise AssertionError("no --state table in:\n" + out)


def main():
    global HIGHWATER, TOOLS, SOURCE_DIR, ONLY
    if sys.argv[1:2] == ["--worker"]:
        worker_main()
        return
    args, rest = broker_pair.parse_arguments(only=True, tools=True)
    HIGHWATER, TOOLS, SOURCE_DIR, ONLY = args.highwater, args.tools, args.source_dir, args.only

    def report(seconds):
        broker_pair.print_timings(TIMINGS, seconds)
        broker_pair.print_failure_logs(FAILURE_LOGS)
    broker_pair.run_tests(rest, close_brokers, report)


if __name__ == "__main__":
    main()
