"""The streams rebalance protocol of KIP-1071 with a real Kafka Streams application, against Apache Kafka 4.3.1 and
highwater alike.

Run by ctest as compat_python_streams_group_tests:
    <venv>/bin/python streams_group_test.py --highwater <highwater binary> --source-dir <repository>
`--only kafka` (no --highwater needed) or `--only highwater` runs one broker.

Both brokers run one configuration (SHARED_SETTINGS: streams sessions of 6 s, heartbeats every second, no initial
rebalance delay, single-node offsets and transaction logs, no automatic topic creation) with one PLAINTEXT
listener, Kafka first; what the clients saw must be the same on both.

The application is tests/compat/streams/CountApp.java, Kafka Streams 4.3.1 (scripts/fetch-kafka-streams.sh),
compiled here with javac (cached by the source's hash beside the jars): it re-keys each record of its input topic
by its value (a repartition topic), counts per key into a RocksDB store (a changelog topic) and writes the counts to
its output topic, with group.protocol=streams (StreamsGroupHeartbeat, API key 88) and
processing.guarantee=exactly_once_v2. It prints its state changes (`STATE RUNNING ...`) on stdout; its logs go to a
file in its own directory.

- StreamsCountTest.test_counts_exactly_once: input (6 partitions) and output topics are created, nothing else; 20,000
  keyed records of 50 words (uneven, fixed by a seed) go in through an idempotent producer; two instances of one
  application.id start and must reach RUNNING, the broker creating the internal topics itself when the group
  coordinator finds them missing: <app>-by-word-repartition (cleanup.policy=delete) and
  <app>-word-counts-changelog (compact), 6 partitions each, their own configs compared between the brokers. Then
  6,000 more records trickle in (1,000 a second); once some of them are counted one instance is killed (SIGKILL,
  most likely inside a transaction) and started again on the same state directory (so the same process id and
  transactional.id, which fences the dead one's transaction at once), and 10,000 more records go in. The output,
  read read_committed, must come to the exact count of every word (the latest value per key) within a deadline, and
  each word's committed counts must rise strictly and never past its total: nothing lost, nothing counted twice.
  kafka-streams-groups (--list; --describe with --state, --members, --members --verbose, --offsets), kafka-groups
  --list and kafka-topics --describe of the internal topics run while both instances are up, and are printed at the
  end: the group must be listed as a streams group (TYPE Streams, PROTOCOL streams), Stable with two members whose
  active tasks are each of the 12 tasks (2 subtopologies x 6 partitions) once. Both instances then stop on SIGTERM
  and must close (KafkaStreams.close within its timeout, NOT_RUNNING). On a broker without StreamsGroupHeartbeat the
  instances fail at their first heartbeat (UnsupportedVersionException) and the test fails at once, saying so and
  what ApiVersions advertised. About 30 s a broker (Kafka's start included).
"""

import collections
import hashlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import ConfigResource, ConfigSource, ResourceType

import broker_pair
from broker_pair import PLAINTEXT_LISTENER, file_tail, java_env
from kafka_process import run
from highwater_process import wait_for

HIGHWATER = None
SOURCE_DIR = None
ONLY = None  # "kafka" or "highwater": that broker alone
BROKERS = broker_pair.Pair()  # Kafka first: what it does is what highwater must do
WORK_DIR = None
APP_CLASSES = None  # the compiled CountApp
STREAMS_LIBS = None  # Kafka Streams 4.3.1 and its dependencies (scripts/fetch-kafka-streams.sh)
FAILURE_LOGS = []  # (test, name, the end of its log) for each failed test, printed at the end
TIMINGS = []  # (test, broker, seconds, what): printed at the end
TOOL_OUTPUTS = []  # (broker, command, output): printed at the end
SEEN = []  # (test, broker, what the clients saw): printed at the end
APPS = set()  # the application processes, killed at the end whatever happens

SESSION_S = 6
SHARED_SETTINGS = [
    ("group.streams.session.timeout.ms", str(SESSION_S * 1000)),
    ("group.streams.min.session.timeout.ms", str(SESSION_S * 1000)),
    ("group.streams.heartbeat.interval.ms", "1000"),
    ("group.streams.min.heartbeat.interval.ms", "1000"),
    ("group.streams.initial.rebalance.delay.ms", "0"),
    ("offsets.topic.replication.factor", "1"),
    ("offsets.topic.num.partitions", "3"),
    ("transaction.state.log.replication.factor", "1"),
    ("transaction.state.log.min.isr", "1"),
    ("transaction.state.log.num.partitions", "3"),
    ("group.initial.rebalance.delay.ms", "0"),
    ("auto.create.topics.enable", "false"),
    ("num.partitions", "1"),
    ("default.replication.factor", "1"),
]

STREAMS_GROUP_HEARTBEAT, STREAMS_GROUP_DESCRIBE = 88, 89
STREAMS_GROUP_COMMAND = "org.apache.kafka.tools.streams.StreamsGroupCommand"
GROUPS_COMMAND = "org.apache.kafka.tools.GroupsCommand"
TOPIC_COMMAND = "org.apache.kafka.tools.TopicCommand"

# The application's log: a file of its own, INFO and above.
APP_LOG4J = """status = warn
name = countapp
shutdownHook = disable
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = ${sys:countapp.log}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p [%t] %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = FILE
"""


class Broker(broker_pair.Broker):
    """broker_pair's, with the clients these tests use."""

    def topics(self):
        """{name: partition count} of every topic the metadata shows."""
        md = self.admin.list_topics(timeout=10)
        return {name: len(t.partitions) for name, t in md.topics.items() if t.error is None}

    def produce(self, topic, records):
        """Writes records ((key, value) each; keys through the default partitioner) with an idempotent producer."""
        acked, failed = [0], []

        def report(err, msg):
            if err is not None:
                failed.append(err.name())
            else:
                acked[0] += 1

        p = Producer({"bootstrap.servers": self.bootstrap, "enable.idempotence": True, "acks": "all",
                      "linger.ms": 5})
        for key, value in records:
            while True:
                try:
                    p.produce(topic, value.encode(), key.encode(), on_delivery=report)
                    break
                except BufferError:
                    p.poll(0.1)
        left = p.flush(30)
        if left or failed or acked[0] != len(records):
            raise AssertionError("%s: wrote %d of %d records to %s (failures %s)"
                                 % (self.name, acked[0], len(records), topic, sorted(set(failed))))

    def trickle(self, topic, records, per_second):
        """Starts writing records in the background, per_second of them a second: a Trickle."""
        return Trickle(self, topic, records, per_second)


class KafkaBroker(Broker, broker_pair.KafkaBroker):
    pass


class HighwaterBroker(Broker, broker_pair.HighwaterBroker):
    pass


class Trickle:
    """Records written by a thread of its own with an idempotent producer at a steady pace (so that they are still
    coming in when an instance is killed); join() asserts every one was acknowledged."""

    def __init__(self, broker, topic, records, per_second):
        self.broker, self.topic, self.records, self.per_second = broker, topic, records, per_second
        self.written, self.acked, self.failed = 0, 0, []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.write, daemon=True)
        self.thread.start()

    def write(self):
        def report(err, msg):
            if err is not None:
                self.failed.append(err.name())
            else:
                self.acked += 1

        p = Producer({"bootstrap.servers": self.broker.bootstrap, "enable.idempotence": True, "acks": "all",
                      "linger.ms": 5})
        start = time.monotonic()
        step = max(1, self.per_second // 20)
        for i in range(0, len(self.records), step):
            # Paced against the clock: record i goes at i / per_second seconds.
            if self.stop.wait(max(0.0, start + i / self.per_second - time.monotonic())):
                break
            for key, value in self.records[i:i + step]:
                p.produce(self.topic, value.encode(), key.encode(), on_delivery=report)
            self.written = min(len(self.records), i + step)
            p.poll(0)
        p.flush(30)

    def join(self, timeout_s):
        self.thread.join(timeout_s)
        if self.thread.is_alive() or self.failed or self.acked != len(self.records):
            self.stop.set()
            raise AssertionError("%s: the trickle wrote %d of %d records to %s, %d acknowledged (failures %s)"
                                 % (self.broker.name, self.written, len(self.records), self.topic, self.acked,
                                    sorted(set(self.failed))))


def stop_apps():
    for app in list(APPS):
        app.kill()


def compile_app():
    """The directory of the compiled CountApp, kept beside the Kafka Streams jars under the hash of its source (and
    of the jars' version): compiled once per change."""
    global APP_CLASSES, STREAMS_LIBS
    code, out, err = run([os.path.join(SOURCE_DIR, "scripts/fetch-kafka-streams.sh")], 600)
    if code != 0:
        raise AssertionError("scripts/fetch-kafka-streams.sh failed:\n" + out + err)
    cache = out.strip().splitlines()[-1]
    STREAMS_LIBS = os.path.join(cache, "libs")
    source = os.path.join(SOURCE_DIR, "tests/compat/streams/CountApp.java")
    with open(source, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    classes = os.path.join(cache, "countapp-" + digest)
    if not os.path.exists(os.path.join(classes, "CountApp.class")):
        staging = tempfile.mkdtemp(prefix="countapp.tmp.", dir=cache)
        try:
            code, out, err = run([os.environ.get("JAVAC", "javac"), "-nowarn", "-d", staging,
                                  "-cp", os.path.join(STREAMS_LIBS, "*"), source], 120)
            if code != 0:
                raise AssertionError("javac CountApp.java failed:\n" + out + err)
            try:
                os.rename(staging, classes)
            except OSError:
                if not os.path.exists(os.path.join(classes, "CountApp.class")):  # not another run's
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    APP_CLASSES = classes


def setUpModule():
    global WORK_DIR
    WORK_DIR = tempfile.mkdtemp(prefix="hw-py-streams-")
    try:
        with open(os.path.join(WORK_DIR, "countapp-log4j2.properties"), "w") as f:
            f.write(APP_LOG4J)
        # javac (when the source changed) while the brokers start.
        with ThreadPoolExecutor(max_workers=1) as pool:
            compiled = pool.submit(compile_app)
            # Kafka with its PLAINTEXT listener alone, highwater alike (or the one of --only).
            BROKERS.start(WORK_DIR, lambda d: KafkaBroker(SOURCE_DIR, d, SHARED_SETTINGS, sasl_listener=False),
                          lambda d: HighwaterBroker(HIGHWATER, d, SHARED_SETTINGS + PLAINTEXT_LISTENER), ONLY)
            compiled.result()
    except Exception:
        close_brokers()
        raise


def tearDownModule():
    close_brokers()


def close_brokers():
    global WORK_DIR
    stop_apps()
    BROKERS.stop()
    if WORK_DIR:
        shutil.rmtree(WORK_DIR, ignore_errors=True)
        WORK_DIR = None


class App:
    """One instance of CountApp in a JVM of its own, in directory (its properties, state/, its log app.log and its
    stderr). Its stdout's STATE, ERROR and CLOSED lines are gathered as they come."""

    def __init__(self, broker, directory, settings):
        self.broker = broker
        self.dir = directory
        self.name = os.path.basename(directory)
        os.makedirs(os.path.join(directory, "tmp"), exist_ok=True)
        self.log_path = os.path.join(directory, "app.log")
        self.stderr_path = os.path.join(directory, "stderr.log")
        config = os.path.join(directory, "countapp.properties")
        with open(config, "w") as f:
            for key, value in settings:
                f.write("%s=%s\n" % (key, value))
        self.states = []  # (monotonic time, state)
        self.errors = []
        self.closed = None  # once close() returned: "true" or "false" (in time or not) and the state it left
        # Short-lived JVMs on two cores: C1 only and the serial collector. RocksDB unpacks its native library into
        # java.io.tmpdir: the instance's own, so that a killed JVM leaves nothing in /tmp.
        cmd = [os.environ.get("JAVA", "java"), "-Xmx384m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
               "-Djava.awt.headless=true", "-Djava.io.tmpdir=" + os.path.join(directory, "tmp"),
               "-Dlog4j2.configurationFile=" + os.path.join(WORK_DIR, "countapp-log4j2.properties"),
               "-Dcountapp.log=" + self.log_path,
               "-cp", APP_CLASSES + os.pathsep + os.path.join(STREAMS_LIBS, "*"), "CountApp", config]
        with open(self.stderr_path, "a") as err:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err,
                                         text=True, cwd=directory)
        APPS.add(self)
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        for line in self.proc.stdout:
            words = line.split()
            if words[:1] == ["STATE"] and len(words) >= 2:
                self.states.append((time.monotonic(), words[1]))
            elif words[:1] == ["ERROR"]:
                self.errors.append(line.strip()[len("ERROR "):])
            elif words[:1] == ["CLOSED"] and len(words) >= 3:
                self.closed = "%s %s" % (words[1], words[2])
        self.proc.stdout.close()

    def state(self):
        return self.states[-1][1] if self.states else None

    def alive(self):
        return self.proc.poll() is None

    def failed(self):
        """An ERROR line, state (PENDING_)ERROR, or its JVM gone."""
        return bool(self.errors) or self.state() in ("ERROR", "PENDING_ERROR") or not self.alive()

    def report(self):
        """What went wrong, for a failure message: states, errors, exit code and the log's warnings."""
        warnings = []
        try:
            with open(self.log_path, errors="replace") as f:
                warnings = [line.rstrip() for line in f if "] WARN " in line or "] ERROR " in line]
        except OSError:
            pass
        return ("  %s: states %s, errors %s, exit code %s\n  its log's last warnings and errors (%s):\n    %s"
                % (self.name, [s for _, s in self.states], self.errors, self.proc.poll(), self.log_path,
                   "\n    ".join(warnings[-12:]) or "(none)"))

    def kill(self):
        """SIGKILL: no close, no leave, a transaction possibly open."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        self.reader.join(10)
        APPS.discard(self)

    def terminate(self, timeout_s):
        """SIGTERM (its shutdown hook closes the application): its exit code, None if it had to be killed."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            code = None
        self.kill()
        return code


class Output:
    """A read_committed consumer of every partition of the output topic from its start: the last count of each
    word, and every count each word was given, in order."""

    def __init__(self, broker, topic, partitions, isolation="read_committed"):
        self.topic, self.partitions = topic, partitions
        self.latest = {}
        self.history = collections.defaultdict(list)
        self.records = 0
        self.errors = []
        self.c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "streams-output-reader",
                           "isolation.level": isolation, "enable.auto.commit": False,
                           "enable.partition.eof": False})
        self.c.assign([TopicPartition(topic, p, 0) for p in range(partitions)])

    def poll(self):
        for m in self.c.consume(num_messages=5000, timeout=0.05):
            if m.error():
                if m.error().code() != KafkaError._PARTITION_EOF:
                    self.errors.append(m.error().name())
                continue
            word, count = m.key().decode(), int(m.value().decode())
            self.latest[word] = count
            self.history[word].append(count)
            self.records += 1

    def at_end(self):
        """Whether the consumer's position is at the high watermark of every partition."""
        for p in range(self.partitions):
            tp = TopicPartition(self.topic, p)
            high = self.c.get_watermark_offsets(tp, timeout=10, cached=False)[1]
            if self.c.position([tp])[0].offset < high:
                return False
        return True

    def counted(self):
        return sum(self.latest.values())

    def close(self):
        self.c.close()


WORDS = ("apple amber anchor arrow aspen badger basil beacon birch bramble cedar cinder clover cobalt comet coral "
         "cricket dahlia delta dune ember falcon fern fjord flint garnet glacier harbor hazel heron indigo iris "
         "juniper kestrel lagoon lantern linden maple marble meadow nectar oak onyx otter pebble quartz raven "
         "saffron thistle willow").split()
assert len(WORDS) == 50


def batch(first, count, rnd):
    """Records first..first+count-1: keys key-<n>, values words drawn with uneven weights."""
    weights = [1 + (i * 7) % 11 for i in range(len(WORDS))]
    values = rnd.choices(WORDS, weights=weights, k=count)
    return [("key-%06d" % (first + i), v) for i, v in enumerate(values)]


def check_apps(apps, note=""):
    """Raises if any of apps failed, with what each of them went through."""
    if any(x.failed() for x in apps):
        raise AssertionError("%s: the application failed%s:\n%s" % (apps[0].broker.name, note,
                                                                    "\n".join(x.report() for x in apps)))


class StreamsGroupTest(broker_pair.PairTest):
    brokers, failure_logs, timings = BROKERS, FAILURE_LOGS, TIMINGS

    def setUp(self):
        super().setUp()
        self.apps = []

    def tearDown(self):
        stop_apps()
        super().tearDown()
        if self.failed():
            for app in {app.log_path: app for app in self.apps}.values():  # a restarted one's log is the same
                FAILURE_LOGS.append((self.id(), "%s %s" % (app.broker.name, app.name),
                                     file_tail(app.log_path, 60) + "--- its stderr ---\n"
                                     + file_tail(app.stderr_path, 30)))

    def scenario_ran(self, broker, seen, seconds):
        super().scenario_ran(broker, seen, seconds)
        SEEN.append((self.id().rsplit(".", 1)[-1], broker.name, seen))

    def start_app(self, broker, name, app_id, settings):
        app = App(broker, os.path.join(WORK_DIR, broker.name + "-apps", name), [
            ("bootstrap.servers", broker.bootstrap),
            ("application.id", app_id),
            ("client.id", "%s-%s" % (app_id, name)),
            ("state.dir", os.path.join(WORK_DIR, broker.name + "-apps", name, "state")),
        ] + settings)
        self.apps.append(app)
        return app

    def tool(self, broker, main_class, args, what):
        """Kafka's tool (scripts/kafka-run-class.sh) with args; asserts it succeeded; its stdout (also kept for the
        printout at the end)."""
        code, out, err = run([os.path.join(SOURCE_DIR, "scripts/kafka-run-class.sh"), main_class,
                              "--bootstrap-server", broker.bootstrap] + args, 60, java_env())
        notes = "".join(line + "\n" for line in err.splitlines() if line.strip() and not line.startswith("["))
        TOOL_OUTPUTS.append((broker.name, "%s %s" % (what, " ".join(args)), out + notes))
        self.assertEqual(code, 0, "%s %s on %s:\n%s%s" % (what, " ".join(args), broker.name, out, err))
        return out


class StreamsCountTest(StreamsGroupTest):
    """Two instances of CountApp (group.protocol=streams, exactly_once_v2), one killed and started again: the
    counts come out exact."""
    FIRST, TRICKLE, SECOND = 20000, 6000, 10000
    TRICKLE_RATE = 1000  # records a second: the trickle goes on about 6 s, the kill comes in its first seconds
    PARTITIONS = 6
    RUNNING_S = 60  # a JVM's start, the group's first assignment and the internal topics' creation
    COUNTS_S = 60  # the killed member's session (6 s), a restore from the changelog and the second batch

    def test_counts_exactly_once(self):
        self.on_both(self.counts)

    def counts(self, broker):
        app_id, source, sink = "hw-streams-count", "streams-words", "streams-counts"
        repartition, changelog = app_id + "-by-word-repartition", app_id + "-word-counts-changelog"
        seen = {}
        seen["api versions"] = broker.api_versions([STREAMS_GROUP_HEARTBEAT, STREAMS_GROUP_DESCRIBE],
                                                   "hw-streams-test")
        broker.create_topic(source, self.PARTITIONS)
        broker.create_topic(sink, self.PARTITIONS)
        rnd = random.Random(1071)
        first = batch(0, self.FIRST, rnd)
        trickle = batch(self.FIRST, self.TRICKLE, rnd)
        second = batch(self.FIRST + self.TRICKLE, self.SECOND, rnd)
        expected = collections.Counter(v for _, v in first + trickle + second)
        broker.produce(source, first)

        settings = [("countapp.input.topic", source), ("countapp.output.topic", sink),
                    ("group.protocol", "streams"), ("processing.guarantee", "exactly_once_v2"),
                    ("num.stream.threads", "1"), ("commit.interval.ms", "100")]
        output = Output(broker, sink, self.PARTITIONS)
        trickling = None
        try:
            start = time.monotonic()
            a = self.start_app(broker, "a", app_id, settings)
            b = self.start_app(broker, "b", app_id, settings)
            # The first heartbeats: a broker without StreamsGroupHeartbeat fails the applications here.
            offered = "; %s advertises StreamsGroupHeartbeat (88) %s, StreamsGroupDescribe (89) %s" % (
                broker.name, seen["api versions"][STREAMS_GROUP_HEARTBEAT] or "not at all",
                seen["api versions"][STREAMS_GROUP_DESCRIBE] or "not at all")
            self.wait_running(broker, [a, b], self.RUNNING_S, "both instances RUNNING", note=offered)
            self.timing(broker, "two instances RUNNING (JVM start included)", time.monotonic() - start)
            seen["internal topics"] = self.internal_topics(broker, app_id)
            self.assertEqual(sorted(seen["internal topics"]), sorted([repartition, changelog]),
                             "the application's internal topics, created by the broker")
            self.assertEqual({t: (d["partitions"], d["configs"].get("cleanup.policy"))
                              for t, d in seen["internal topics"].items()},
                             {repartition: (self.PARTITIONS, "delete"), changelog: (self.PARTITIONS, "compact")},
                             "the internal topics' partitions and cleanup.policy")

            # More records keep coming; once some of them have been counted, one instance is killed, most likely
            # with a transaction open: with EOS nothing of it may show, and nothing of what it did may be lost.
            start = time.monotonic()
            trickling = broker.trickle(source, trickle, self.TRICKLE_RATE)

            def trickle_counted():
                check_apps([a, b])
                output.poll()
                return output.counted() > self.FIRST
            wait_for(trickle_counted, 30, "%s: the first output of the trickle" % broker.name)
            a.kill()
            self.timing(broker, "some of the trickle counted, one instance killed (%d of %d written, %d counted)"
                        % (self.FIRST + trickling.written, sum(expected.values()), output.counted()),
                        time.monotonic() - start)

            start = time.monotonic()
            a = self.start_app(broker, "a", app_id, settings)  # the same directory: its state and process id
            trickling.join(30)
            broker.produce(source, second)
            self.wait_running(broker, [a, b], self.RUNNING_S, "the restarted instance RUNNING", output)
            self.timing(broker, "the restarted instance RUNNING", time.monotonic() - start)

            def exact():
                check_apps([a, b])
                output.poll()
                return output.latest == expected
            wait_for_what(exact, self.COUNTS_S, lambda: "%s: the exact counts (counted %d of %d; wrong words %s)" % (
                broker.name, output.counted(), sum(expected.values()),
                {w: (output.latest.get(w), n) for w, n in expected.items() if output.latest.get(w) != n}))
            self.timing(broker, "the exact counts after the restart", time.monotonic() - start)
            # Not asserted (it depends on when the kill came), only shown: how many output records the kill left in
            # an aborted transaction (read_uncommitted sees them too).
            everything = Output(broker, sink, self.PARTITIONS, "read_uncommitted")
            try:
                wait_for(lambda: everything.poll() or everything.at_end(), 30, "%s: the output read_uncommitted"
                         % broker.name)
                self.timing(broker, "output records: %d committed, %d aborted" % (
                    output.records, everything.records - output.records), 0)
            finally:
                everything.close()
            seen["counts"] = dict(sorted(output.latest.items()))
            self.assertEqual(output.latest, dict(expected), "the last count of every word")
            # Exactly once: each committed count of a word is above the one before and none above its total.
            wrong = {w: h for w, h in output.history.items()
                     if any(x >= y for x, y in zip(h, h[1:])) or max(h) > expected[w]}
            seen["counts that did not rise"] = wrong
            self.assertEqual(wrong, {}, "words whose committed counts did not rise strictly to their total")
            self.assertEqual(output.errors, [], "the output consumer's errors")

            seen["group"] = self.describe_group(broker, app_id, self.PARTITIONS)

            # SIGTERM: each closes within its deadline (CLOSED true) and its JVM exits (143: the signal's).
            start = time.monotonic()
            with ThreadPoolExecutor(max_workers=2) as pool:
                codes = list(pool.map(lambda x: x.terminate(40), [a, b]))
            self.timing(broker, "both instances closed on SIGTERM", time.monotonic() - start)
            seen["closed"] = [(code, x.closed) for x, code in zip((a, b), codes)]
            self.assertEqual(seen["closed"], [(143, "true NOT_RUNNING")] * 2,
                             "exit codes, close() in time and the state it left")
        finally:
            if trickling:
                trickling.stop.set()
                trickling.thread.join(40)
            output.close()
        return seen

    def wait_running(self, broker, apps, timeout_s, what, output=None, note=""):
        def running():
            check_apps(apps, note)
            if output is not None:
                output.poll()
            return all(x.state() == "RUNNING" for x in apps)
        wait_for_what(running, timeout_s, lambda: "%s: %s%s (states: %s)\n%s" % (
            broker.name, what, note, [(x.name, x.state()) for x in apps], "\n".join(x.report() for x in apps)))

    def internal_topics(self, broker, app_id):
        """The application's topics as the broker made them: {name: {"partitions": n, "configs": {the topic's own
        configs}}}; kafka-topics --describe of them kept for the printout."""
        names = sorted(t for t in broker.topics() if t.startswith(app_id + "-"))
        found = {}
        if names:
            configs = broker.admin.describe_configs(
                [ConfigResource(ResourceType.TOPIC, name) for name in names], request_timeout=20)
            for resource, future in configs.items():
                entries = future.result(20)
                found[resource.name] = {"configs": {name: e.value for name, e in sorted(entries.items())
                                                    if e.source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value}}
            for name, partitions in broker.topics().items():
                if name in found:
                    found[name]["partitions"] = partitions
            self.tool(broker, TOPIC_COMMAND, ["--describe", "--topic", re.escape(app_id) + "-.*"], "kafka-topics")
        return found

    def describe_group(self, broker, app_id, partitions):
        """kafka-streams-groups and kafka-groups on the live group of two: what they must show."""
        seen = {}
        views = [(STREAMS_GROUP_COMMAND, ["--list"], "kafka-streams-groups"),
                 (STREAMS_GROUP_COMMAND, ["--describe", "--group", app_id, "--state"], "kafka-streams-groups"),
                 (STREAMS_GROUP_COMMAND, ["--describe", "--group", app_id, "--members"], "kafka-streams-groups"),
                 (STREAMS_GROUP_COMMAND, ["--describe", "--group", app_id, "--members", "--verbose"],
                  "kafka-streams-groups"),
                 (STREAMS_GROUP_COMMAND, ["--describe", "--group", app_id, "--offsets"], "kafka-streams-groups"),
                 (GROUPS_COMMAND, ["--list"], "kafka-groups")]
        # Two JVMs at a time; the group does not change meanwhile (both instances up, nothing written).
        start = time.monotonic()
        with ThreadPoolExecutor(max_workers=2) as pool:
            outs = list(pool.map(lambda v: self.tool(broker, *v), views))
        self.timing(broker, "%d tool runs" % len(views), time.monotonic() - start)
        listed, state, members = outs[0], outs[1], outs[2]
        seen["--list"] = [line.strip() for line in listed.splitlines() if line.strip() == app_id]
        self.assertEqual(seen["--list"], [app_id], listed)
        rows = table(state, "GROUP")
        seen["--state"] = [{k: v for k, v in r.items() if k in ("GROUP", "STATE", "#MEMBERS")} for r in rows]
        self.assertEqual(seen["--state"], [{"GROUP": app_id, "STATE": "Stable", "#MEMBERS": "2"}], state)
        rows = table(members, "GROUP")
        owned = [active_tasks(r.get("ASSIGNMENTS", "")) for r in rows]
        seen["--members"] = sorted(len(o) for o in owned)
        self.assertEqual(len(rows), 2, members)
        self.assertEqual(sorted(t for o in owned for t in o), [(s, p) for s in (0, 1) for p in range(partitions)],
                         "the two members' active tasks together: each task of both subtopologies once\n" + members)
        typed = [r for r in table(outs[5], "GROUP") if r.get("GROUP") == app_id]
        seen["kafka-groups --list"] = typed
        self.assertEqual(typed, [{"GROUP": app_id, "TYPE": "Streams", "PROTOCOL": "streams"}], outs[5])
        return seen


def active_tasks(assignments):
    """The active tasks in kafka-streams-groups --members' ASSIGNMENTS ("ACTIVE: 0:[3,4,5]; 1:[3,4,5]; ..."), as
    sorted (subtopology, partition) pairs."""
    m = re.search(r"(?:^|\s)ACTIVE:((?:\s*\d+:\[[\d,]*\];)*)", assignments)
    tasks = []
    for sub, parts in re.findall(r"(\d+):\[([\d,]*)\]", m.group(1) if m else ""):
        tasks += [(int(sub), int(p)) for p in parts.split(",") if p]
    return sorted(tasks)


def table(out, first_header):
    """The rows under the first line of out whose first column is first_header, as dicts of the columns split on
    whitespace (a row with more values than headers keeps the rest in its last column)."""
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.split()[:1] == [first_header]:
            header = line.split()
            rows = []
            for row in lines[i + 1:]:
                if not row.strip():
                    break
                values = row.split(None, len(header) - 1)
                rows.append(dict(zip(header, (v.strip() for v in values))))
            return rows
    raise AssertionError("no table headed %s in:\n%s" % (first_header, out))


def wait_for_what(pred, timeout_s, what):
    """wait_for, the failure's description made (what()) when the deadline passes: it tells the state then."""
    marker = "<described at the deadline>"
    try:
        wait_for(pred, timeout_s, marker)
    except AssertionError as e:
        if not str(e).endswith(marker):  # pred's own failure
            raise
        raise AssertionError("timed out after %d s waiting for %s" % (timeout_s, what())) from None


def main():
    global HIGHWATER, SOURCE_DIR, ONLY
    args, rest = broker_pair.parse_arguments(only=True)
    HIGHWATER, SOURCE_DIR, ONLY = args.highwater, args.source_dir, args.only

    def report(seconds):
        for broker, command, out in TOOL_OUTPUTS:
            print("\n--- %s: %s ---\n%s" % (broker, command, out.rstrip("\n")), file=sys.stderr)
        for test, broker, seen in SEEN:
            print("\n--- %s, %s: what the clients saw ---" % (test, broker), file=sys.stderr)
            for key, value in seen.items():
                print("  %s: %s" % (key, value), file=sys.stderr)
        broker_pair.print_timings(TIMINGS, seconds, 28)
        broker_pair.print_failure_logs(FAILURE_LOGS)
    broker_pair.run_tests(rest, close_brokers, report)


if __name__ == "__main__":
    main()
