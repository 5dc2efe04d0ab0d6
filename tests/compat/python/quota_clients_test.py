"""Client quota enforcement (KIP-13, KIP-219) with real clients, against highwater and Apache Kafka 4.3.1 alike.

Run by ctest as compat_python_quota_tests:
    <venv>/bin/python quota_clients_test.py --highwater <highwater binary> --source-dir <repository>

Both brokers run one configuration: a SASL_PLAINTEXT listener with PLAIN
users admin, alice, bob and carol (no authorizer: the logins are there so
that user quotas apply), the brokers' own traffic on their PLAINTEXT and
controller listeners, and the default quota windows (quota.window.num 11,
quota.window.size.seconds 1). Kafka runs through scripts/kafka-server.sh on
ports it binds itself, highwater on ports it picks (--port-file). The quotas
are set with Kafka's own kafka-configs (ConfigCommand, through
scripts/kafka-run-class.sh) as admin, which then describes them until the
broker answers them (confluent-kafka 2.16 has no client quota calls).

On each broker, Kafka first, the same measurement (each client is a
confluent-kafka / librdkafka 2.16 program of its own, this file run with
--worker):
- hog-producer, user alice, with a user-level quota producer_byte_rate =
  256 KiB/s, sends 1 KiB records to a topic of its own as fast as it can
  (acks=1, linger.ms 5, 16 KiB batches, 5 requests, 80 records, in
  flight, a 2 MiB queue it keeps full) for 41 s;
- meanwhile hog-consumer, user bob, with a client-id-level quota
  consumer_byte_rate = 256 KiB/s, reads (assigned, from the start) a topic
  that holds 32 MiB (three times what its quota lets it read in the run),
  written beforehand, unthrottled, by admin as client quota-filler;
- free-producer, user carol, with no quota (neither its user nor its
  client id has one), configured as hog-producer, sends at 8 MiB/s (32
  times the hogs' quota) for 5 s alone just before the hogs start (its
  baseline) and for 5 s again while they run (15-20 s into their run).
The tests then assert, for each broker:
1. hog-producer's rate is its quota within +-10%, and librdkafka's
   throttle_cb reported a throttle time > 0 to it;
2. the same of hog-consumer;
3. free-producer's baseline is at least 4 times the hogs' quota (so that
   the hogs are held back by their quota, not by the machine), it keeps
   at least half of it while the hogs run, and it is never throttled
   (throttle_cb never reports a time > 0, the statistics' throttle windows
   stay at 0).
All three clients must see no errors. At the end the figures of both
brokers are printed as tables: rates, ratios to the quota, throttle
events, free-producer's baseline and rate beside the hogs, and the hogs'
bytes in each second of their runs.

What is counted. Kafka charges a producer the size of its Produce requests
as they arrive and a consumer the size of the Fetch responses it is sent
(a throttled fetch is answered empty, and not charged). librdkafka's
statistics (statistics.interval.ms, every 250 ms here) count the bytes
written to and read from each broker connection: the rates here are the
deltas of the broker entry's txbytes (producers) and rxbytes (the
consumer) between two statistics, divided by the time between them (the
statistics' own monotonic ts). The other requests on those connections
(Metadata, ListOffsets) are a few hundred bytes in a run. Bytes written to
the socket but not yet read by the broker (which stops reading a throttled
connection) are counted too: with 5 requests of 16 KiB in flight that is
at most 80 KiB, a third of a second of quota (with librdkafka's default of
a million in flight and a 4 MiB queue, txbytes ran seconds ahead of what
the broker had taken). The consumer asks for 64 KiB per fetch
(fetch.max.bytes, max.partition.fetch.bytes) of a topic written in 16 KiB
batches: Kafka charges a fetch whole and answers a throttled one empty, so
a fetch only goes through when all of it fits in the quota window. With
librdkafka's defaults (1 MiB a partition) on a topic written in 1 MB
batches, a trial got one 2 MiB response every 12 s, two thirds of the
quota; in 64 KiB steps the consumer can use all of it.

Over which interval. Kafka's quota is a rate over its window of 11
one-second samples, counted from the first byte as at least 10 s long: a
greedy client sends 10 s of quota at once (its first sample), is then
held back (a request a second here) until that sample leaves the window
11 s later, sends the same again, and so on. Its bytes come in one burst
per quota window, so an average over 30 s is 20 s or 30 s of quota, +-30%,
depending on where it starts: only an interval of whole windows whose ends
fall between bursts gives the quota's own average. The interval here is
three quota windows (33 s) starting 8 s after the client started: after
its first burst, before the next (11 s after the first, up to 2 s later:
a held-back client asks again only when its throttle time ends), and
ending after the third refill (33-39 s) and well before the fourth (44 s
and later). The first 8 s are the excluded warm-up. A broker that smooths
the rate (a token bucket) is measured as well by the same interval.

free-producer is paced (8 MiB/s) rather than as fast as it can: unpaced,
it would measure how two cores are shared between the client processes
and write gigabytes; paced, it shows whether the broker still serves a
client without a quota at 32 times the hogs' quota while they are held
back. Half of its baseline is the bound because the hogs' processes,
their bursts and the brokers' throttling share the two cores with it
(a sanitizer build of highwater included): it fails on a broker that
throttles it by mistake (down to the hogs' quota, a thirty-second of its
pace) or stalls under the hogs, not on scheduling noise.

hog-producer never offers more than 8 MiB/s either: held back by its quota
it never comes near that, and a broker that does not throttle it is not
made to write gigabytes.

About 2 minutes on two cores (Kafka's part and highwater's about 55 s
each).
"""

import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import unittest
from concurrent.futures import ThreadPoolExecutor

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, Producer, TopicPartition

import broker_pair
from broker_pair import SASL_LISTENERS, java_env
from kafka_process import run
from highwater_process import wait_for

HIGHWATER = None
SOURCE_DIR = None
BROKERS = broker_pair.Pair()  # Kafka first: what it does is what highwater must do
WORK_DIR = None
WORKERS = set()  # the client processes running, stopped with the brokers
FAILED_LOGS = {}  # broker name -> the end of its log, for the brokers a test failed on (printed at the end)
FIGURES = {}  # broker name -> the figures measured on it, or the error that stopped the measurement

# The fixed test logins (the JAAS users of both brokers).
PASSWORDS = {"admin": "admin-secret", "alice": "alice-secret", "bob": "bob-secret", "carol": "carol-secret"}
JAAS = ("org.apache.kafka.common.security.plain.PlainLoginModule required "
        + " ".join('user_%s="%s"' % kv for kv in PASSWORDS.items()) + ";")

# What both brokers run with besides their listeners (the quota windows are left to their defaults).
SHARED_SETTINGS = [
    ("sasl.enabled.mechanisms", "PLAIN"),
    ("listener.name.sasl_plaintext.plain.sasl.jaas.config", JAAS),
    ("num.partitions", "1"),
    ("offsets.topic.num.partitions", "1"),
    ("offsets.topic.replication.factor", "1"),
    ("group.initial.rebalance.delay.ms", "0"),
]

KiB = 1024
MiB = 1024 * KiB

PRODUCE_QUOTA = 256 * KiB   # producer_byte_rate of user alice (a user-level quota)
FETCH_QUOTA = 256 * KiB     # consumer_byte_rate of client id hog-consumer (a client-id-level quota)
TOLERANCE = 0.10            # the hogs' rates: their quota +-10%
QUOTA_WINDOW_S = 11         # quota.window.num (11) x quota.window.size.seconds (1), both brokers' defaults
WARMUP_S = 8.0              # the hogs' excluded start: between their first burst and the next (see above)
MEASURED_S = 3 * QUOTA_WINDOW_S
HOG_RUN_S = WARMUP_S + MEASURED_S + 0.5

VALUE_SIZE = 1 * KiB
BATCH_SIZE = 16 * KiB       # the producers' batch.size, and the filler's: the size of a Produce request's records
IN_FLIGHT = 5               # max.in.flight.requests.per.connection
QUEUE_KIB = 2048            # queue.buffering.max.kbytes: the producers keep it full
FETCH_BYTES = 64 * KiB      # the consumer's fetch.max.bytes and max.partition.fetch.bytes
FILL_BYTES = 32 * MiB       # what the consumer's topic holds
OFFER_LIMIT = 32 * PRODUCE_QUOTA  # what a producer here offers per second at most (free-producer's pace)

FREE_WARMUP_S = 1.0         # free-producer's excluded start (connection, metadata) in each of its runs
FREE_MEASURED_S = 5.0
FREE_DURING_AT_S = 14.0     # its second run starts 14 s into the hogs' run: measured 15-20 s, between their bursts
FREE_MIN_BASELINE = 4 * PRODUCE_QUOTA
FREE_MIN_SHARE = 0.5

STATS_MS = 250

HOG_PRODUCER = {"user": "alice", "client.id": "hog-producer", "topic": "quota-produce"}
HOG_CONSUMER = {"user": "bob", "client.id": "hog-consumer", "topic": "quota-fetch"}
FREE_PRODUCER = {"user": "carol", "client.id": "free-producer", "topic": "quota-free"}
FILLER_ID = "quota-filler"

PRODUCER_CONF = {"acks": 1, "linger.ms": 5, "batch.size": BATCH_SIZE,
                 "max.in.flight.requests.per.connection": IN_FLIGHT, "queue.buffering.max.kbytes": QUEUE_KIB}
CONSUMER_CONF = {"enable.auto.commit": False, "enable.partition.eof": True, "fetch.max.bytes": FETCH_BYTES,
                 "max.partition.fetch.bytes": FETCH_BYTES,
                 "message.max.bytes": FETCH_BYTES}  # (librdkafka wants fetch.max.bytes >= message.max.bytes)




def rate_text(bytes_per_s):
    return "%d B/s (%.1f KiB/s)" % (bytes_per_s, bytes_per_s / KiB)


class Broker(broker_pair.Broker):
    """broker_pair's, with PLAIN logins on its SASL_PLAINTEXT listener (admin's for the admin) and quotas."""
    passwords = PASSWORDS
    admin_user = "admin"

    def fill(self, topic, size):
        """Writes size bytes of VALUE_SIZE records to topic as admin (client id quota-filler, no quota)."""
        count = size // VALUE_SIZE
        failed = collections.Counter()
        p = Producer({**self.conf("admin"), **PRODUCER_CONF, "client.id": FILLER_ID,
                      "queue.buffering.max.kbytes": 16 * 1024})
        value = b"f" * VALUE_SIZE
        report = lambda err, msg: err is not None and failed.update([err.name()])
        for _ in range(count):
            while True:
                try:
                    p.produce(topic, value, on_delivery=report)
                    break
                except BufferError:
                    p.poll(0.05)
            p.poll(0)
        left = p.flush(120)
        if left or failed:
            raise AssertionError("%s: filling %s: %d records undelivered, delivery errors %s"
                                 % (self.name, topic, left, dict(failed)))
        c = Consumer({**self.conf("admin"), "group.id": "quota-fill-check"})
        try:
            _, high = c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
        finally:
            c.close()
        if high != count:
            raise AssertionError("%s: %s holds %d records, not the %d written" % (self.name, topic, high, count))

    def configs(self, *args):
        """Runs Kafka's kafka-configs (ConfigCommand) as admin against this broker: its output."""
        config = os.path.join(self.dir, "admin-client.properties")
        if not os.path.exists(config):
            with open(config, "w") as f:
                f.write("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
                        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                        'username="admin" password="%s";\n' % PASSWORDS["admin"])
        cmd = [os.path.join(SOURCE_DIR, "scripts/kafka-run-class.sh"), "kafka.admin.ConfigCommand",
               "--bootstrap-server", self.bootstrap, "--command-config", config] + list(args)
        code, out, err = run(cmd, 60, java_env())
        if code != 0:
            raise AssertionError("%s: kafka-configs %s exited %d:\n%s%s" % (self.name, " ".join(args), code, out, err))
        return out

    def quotas(self, entity_type, name):
        """The quotas kafka-configs --describe shows for one entity: {key: value}."""
        out = self.configs("--describe", "--entity-type", entity_type, "--entity-name", name)
        # "Quota configs for user-principal 'alice' are producer_byte_rate=262144.0"
        m = re.search(r" are (.*)$", out, re.M)
        return {k: float(v) for k, v in re.findall(r"(\w+)=([0-9.E+-]+)", m.group(1))} if m else {}

    def set_quota(self, entity_type, name, key, value):
        """Sets one quota with kafka-configs and describes it until the broker answers it."""
        self.configs("--alter", "--add-config", "%s=%d" % (key, value), "--entity-type", entity_type,
                     "--entity-name", name)
        last = [None]

        def shown():
            last[0] = self.quotas(entity_type, name)
            return last[0].get(key) == value

        try:
            wait_for(shown, 30, "the quota")
        except AssertionError:
            raise AssertionError("%s: kafka-configs --describe --entity-type %s --entity-name %s shows %s, not %s=%d"
                                 % (self.name, entity_type, name, last[0], key, value))


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
    WORK_DIR = tempfile.mkdtemp(prefix="hw-py-quota-")
    try:
        BROKERS.start(WORK_DIR, lambda d: KafkaBroker(SOURCE_DIR, d, SHARED_SETTINGS),
                      lambda d: HighwaterBroker(HIGHWATER, d, SHARED_SETTINGS + SASL_LISTENERS, "SASL_PLAINTEXT"))
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


# The clients, each a process of its own: this file run with --worker, its task as JSON on stdin (the login
# included, so that no password is on a command line), its figures as JSON on stdout.

def worker_main():
    task = json.load(sys.stdin)
    samples, throttles, errors = [], [], []

    def on_stats(text):
        # The broker entries (nodeid >= 0; not the bootstrap ones): bytes written, bytes read, the largest throttle
        # time in the statistics' window.
        d = json.loads(text)
        nodes = [b for b in d["brokers"].values() if b["nodeid"] >= 0]
        samples.append((d["ts"] / 1e6, sum(b["txbytes"] for b in nodes), sum(b["rxbytes"] for b in nodes),
                        max([b["throttle"]["max"] for b in nodes] or [0])))

    conf = {**task["conf"], "statistics.interval.ms": STATS_MS, "stats_cb": on_stats,
            "throttle_cb": lambda e: throttles.append((time.monotonic(), e.throttle_time)),
            "error_cb": lambda e: errors.append(e.name())}
    # The clients start together: each at its task's time on the machine's monotonic clock (librdkafka's too).
    delay = task["start_at"] - time.monotonic()
    if delay > 0:
        time.sleep(delay)
    start = time.monotonic()
    end = start + task["run_s"]
    samples.append((start, 0, 0, 0))  # a client made now has sent and received nothing yet
    out = {"start": start, "samples": samples, "throttles": throttles, "errors": errors}
    if task["role"] == "producer":
        client = Producer(conf)
        value = b"q" * VALUE_SIZE
        failed = collections.Counter()

        def report(err, msg):
            if err is not None and err.code() not in (KafkaError._PURGE_QUEUE, KafkaError._PURGE_INFLIGHT):
                failed[err.name()] += 1

        offered = 0
        while True:
            now = time.monotonic()
            if now >= end:
                break
            if offered >= task["offer_limit"] * (now - start):
                client.poll(0.002)
                continue
            try:
                client.produce(task["topic"], value, on_delivery=report)
                offered += VALUE_SIZE
            except BufferError:  # the queue is full: as fast as it can is as fast as the broker takes it
                client.poll(0.02)
                continue
            client.poll(0)
        serve = lambda: client.poll(0.05)
        out.update(offered=offered, delivery_errors=failed)
    else:
        client = Consumer(conf)
        client.assign([TopicPartition(task["topic"], 0, OFFSET_BEGINNING)])
        consumed, eof_at = 0, None
        while time.monotonic() < end:
            for m in client.consume(num_messages=1000, timeout=0.05):
                if not m.error():
                    consumed += len(m.value())
                elif m.error().code() == KafkaError._PARTITION_EOF:
                    eof_at = eof_at or time.monotonic() - start
                else:
                    errors.append(m.error().name())
        serve = lambda: client.consume(num_messages=1000, timeout=0.05)
        out.update(consumed=consumed, eof_at=eof_at)
    # The statistics that close the run.
    deadline = time.monotonic() + 10
    while (not samples or samples[-1][0] < end) and time.monotonic() < deadline:
        serve()
    if task["role"] == "producer":
        client.purge()
        client.flush(10)
    else:
        client.close()
    json.dump(out, sys.stdout)


def run_workers(tasks):
    """Runs one client process per task (all at once) and returns their figures, in order."""
    def one(task):
        p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             cwd=os.path.dirname(os.path.abspath(__file__)))
        WORKERS.add(p)
        try:
            timeout = task["start_at"] - time.monotonic() + task["run_s"] + 60
            out, err = p.communicate(json.dumps(task), timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
            raise AssertionError("client %s did not finish in time:\n%s" % (task["conf"]["client.id"], err[-3000:]))
        finally:
            WORKERS.discard(p)
        if p.returncode != 0:
            raise AssertionError("client %s exited %d:\n%s" % (task["conf"]["client.id"], p.returncode, err[-3000:]))
        return json.loads(out)

    pool = ThreadPoolExecutor(max_workers=len(tasks))
    try:
        return [f.result() for f in [pool.submit(one, t) for t in tasks]]
    finally:
        stop_workers()  # (on a failure: the others need not run to their end)
        pool.shutdown(wait=True)


def task(broker, client, role, start_at, run_s, offer_limit=OFFER_LIMIT):
    conf = {**broker.conf(client["user"]), "client.id": client["client.id"]}
    if role == "producer":
        conf.update(PRODUCER_CONF)
    else:
        conf.update(CONSUMER_CONF, **{"group.id": "quota-" + client["client.id"]})
    return {"role": role, "conf": conf, "topic": client["topic"], "start_at": start_at, "run_s": run_s,
            "offer_limit": offer_limit}


def sample_at(run, t, what):
    """The first statistics of run at or after t seconds into it."""
    for s in run["samples"]:
        if s[0] >= run["start"] + t:
            return s
    raise AssertionError("%s: no statistics %.1f s into its run (it ran %.1f s)"
                         % (what, t, (run["samples"][-1][0] - run["start"]) if run["samples"] else 0))


def window(run, index, begin_s, end_s, what):
    """The rate of bytes (index 1: written, 2: read) between begin_s and end_s into run, from its statistics:
    (bytes per second, the interval it covers, relative to the run's start)."""
    a, b = sample_at(run, begin_s, what), sample_at(run, end_s, what)
    return (b[index] - a[index]) / (b[0] - a[0]), (a[0] - run["start"], b[0] - run["start"])


def throttled(run):
    """How often throttle_cb reported a throttle time > 0, the largest (ms), and the largest of the statistics."""
    times = [t for _, t in run["throttles"] if t > 0]
    return len(times), round(max(times, default=0) * 1000), max((s[3] for s in run["samples"]), default=0)


def per_second(run, index):
    """The KiB run sent (index 1) or received (2) in each second of it, from its statistics."""
    out, k = [], 0
    while True:
        try:
            a, b = sample_at(run, k, ""), sample_at(run, k + 1, "")
        except AssertionError:
            return out
        out.append(round((b[index] - a[index]) / KiB))
        k += 1


def hog_figures(run, index, quota, entity, what):
    rate, interval = window(run, index, WARMUP_S, WARMUP_S + MEASURED_S, what)
    events, largest, stats_largest = throttled(run)
    return {"rate": rate, "quota": quota, "ratio": rate / quota, "interval": interval, "entity": entity,
            "per second": per_second(run, index),
            "throttle events": events, "largest throttle ms": largest, "stats throttle max ms": stats_largest,
            "client errors": sorted(set(run["errors"])), "delivery errors": dict(run.get("delivery_errors", {})),
            "eof at": run.get("eof_at"), "consumed": run.get("consumed")}


def measure(broker):
    """Runs the hogs and the free producer on broker: their figures."""
    broker.create_topics([HOG_PRODUCER["topic"], HOG_CONSUMER["topic"], FREE_PRODUCER["topic"]])
    broker.fill(HOG_CONSUMER["topic"], FILL_BYTES)
    broker.set_quota("users", HOG_PRODUCER["user"], "producer_byte_rate", PRODUCE_QUOTA)
    broker.set_quota("clients", HOG_CONSUMER["client.id"], "consumer_byte_rate", FETCH_QUOTA)
    # The quotas are shown; the broker applies them a moment after. free-producer's baseline (7 s) runs before the
    # hogs start, their first 8 s are warm-up, and their being throttled at all is asserted.

    free_run_s = FREE_WARMUP_S + FREE_MEASURED_S + 0.3
    baseline, = run_workers([task(broker, FREE_PRODUCER, "producer", time.monotonic() + 1, free_run_s)])
    at = time.monotonic() + 1.5  # the client processes start meanwhile
    producer, consumer, during = run_workers([
        task(broker, HOG_PRODUCER, "producer", at, HOG_RUN_S),
        task(broker, HOG_CONSUMER, "consumer", at, HOG_RUN_S),
        task(broker, FREE_PRODUCER, "producer", at + FREE_DURING_AT_S, free_run_s)])

    figures = {
        "producer": hog_figures(producer, 1, PRODUCE_QUOTA, "user alice", "hog-producer"),
        "consumer": hog_figures(consumer, 2, FETCH_QUOTA, "client-id hog-consumer", "hog-consumer"),
    }
    base_rate, _ = window(baseline, 1, FREE_WARMUP_S, FREE_WARMUP_S + FREE_MEASURED_S, "free-producer")
    during_rate, _ = window(during, 1, FREE_WARMUP_S, FREE_WARMUP_S + FREE_MEASURED_S, "free-producer")
    events = [throttled(baseline), throttled(during)]
    figures["free"] = {
        "baseline": base_rate, "during": during_rate, "share": during_rate / base_rate if base_rate else 0,
        "during interval": (during["start"] - producer["start"] + FREE_WARMUP_S,
                            during["start"] - producer["start"] + FREE_WARMUP_S + FREE_MEASURED_S),
        "throttle events": sum(e[0] for e in events), "largest throttle ms": max(e[1] for e in events),
        "stats throttle max ms": max(e[2] for e in events),
        "client errors": sorted(set(baseline["errors"] + during["errors"])),
        "delivery errors": dict(collections.Counter(baseline["delivery_errors"])
                                + collections.Counter(during["delivery_errors"]))}
    return figures


class QuotaTest(unittest.TestCase):
    """The measurement runs once per broker, Kafka first, before the tests; each test asserts one part of it."""
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        for broker in BROKERS:
            try:
                FIGURES[broker.name] = measure(broker)
            except Exception:  # noqa: BLE001 (reported by each test; the other broker is still measured)
                FIGURES[broker.name] = traceback.format_exc()

    def setUp(self):
        if len(BROKERS) != 2:
            self.skipTest("the brokers did not start")

    def on_each(self, check, *args):
        """check(broker, *args) on Kafka, then on highwater, each in its own subtest."""
        for broker in BROKERS:
            with self.subTest(broker=broker.name):
                try:
                    check(broker, *args)
                except Exception:
                    if broker.name not in FAILED_LOGS:
                        FAILED_LOGS[broker.name] = broker.log_tail()
                    raise

    def figures(self, broker, part):
        f = FIGURES.get(broker.name)
        if not isinstance(f, dict):
            self.fail("%s: the measurement failed:\n%s" % (broker.name, f))
        return f[part]

    def check_hog(self, broker, part, client, key):
        f = self.figures(broker, part)
        what = "%s: %s (%s, %s %d B/s)" % (broker.name, client, f["entity"], key, f["quota"])
        counted = "Produce request bytes sent" if part == "producer" else "Fetch response bytes received"
        low, high = 1 - TOLERANCE, 1 + TOLERANCE
        note = ""
        if f["eof at"] is not None:
            note = ("; it read the whole topic (%d MiB) %.1f s into its run, so it was not held back"
                    % (f["consumed"] // MiB, f["eof at"]))
        if not low <= f["ratio"] <= high:
            self.fail("%s: %s %s from %.1f s to %.1f s into its run, %.2fx its quota; expected %.2fx to %.2fx "
                      "(throttle events: %d)%s. KiB in each second of its run: %s"
                      % (what, counted, rate_text(f["rate"]), f["interval"][0], f["interval"][1], f["ratio"], low,
                         high, f["throttle events"], note, f["per second"]))
        self.assertGreater(f["throttle events"], 0,
                           "%s: throttle_cb never reported a throttle time > 0 (it %s %s)"
                           % (what, counted, rate_text(f["rate"])))
        self.assertEqual((f["client errors"], f["delivery errors"]), ([], {}),
                         "%s: its errors (client, delivery)" % what)

    def test_producer_held_to_its_quota(self):
        self.on_each(self.check_hog, "producer", "hog-producer", "producer_byte_rate")

    def test_consumer_held_to_its_quota(self):
        self.on_each(self.check_hog, "consumer", "hog-consumer", "consumer_byte_rate")

    def test_client_without_quota_keeps_its_throughput(self):
        self.on_each(self.check_free)

    def check_free(self, broker):
        f = self.figures(broker, "free")
        what = "%s: free-producer (user carol, no quota)" % broker.name
        if f["baseline"] < FREE_MIN_BASELINE:
            self.fail("%s sent %s alone (paced at %s); expected at least %s, %d times the hogs' quota, or the hogs' "
                      "figures say nothing" % (what, rate_text(f["baseline"]), rate_text(OFFER_LIMIT),
                                               rate_text(FREE_MIN_BASELINE), FREE_MIN_BASELINE // PRODUCE_QUOTA))
        if f["share"] < FREE_MIN_SHARE:
            self.fail("%s sent %s alone and %s while the hogs ran (%.1f-%.1f s into their run): %.2f of its "
                      "baseline; expected at least %.2f" % (what, rate_text(f["baseline"]), rate_text(f["during"]),
                                                            f["during interval"][0], f["during interval"][1],
                                                            f["share"], FREE_MIN_SHARE))
        self.assertEqual((f["throttle events"], f["stats throttle max ms"]), (0, 0),
                         "%s: throttle_cb's reports with a time > 0, and the largest throttle time (ms) in its "
                         "statistics" % what)
        self.assertEqual((f["client errors"], f["delivery errors"]), ([], {}),
                         "%s: its errors (client, delivery)" % what)


def figures_table():
    """The figures of both brokers, as a text table."""
    if not FIGURES:
        return "\nClient quotas: nothing measured"
    lines = ["", "Client quotas, measured (bytes as librdkafka counts them on the connection: Produce requests "
                 "sent, Fetch responses received)",
             "%-9s  %-13s  %-22s  %10s  %12s  %6s  %15s  %10s  %s"
             % ("broker", "client", "quota on", "quota B/s", "measured B/s", "ratio", "throttle events",
                "max ms", "interval (s into the run)")]
    for name in ("kafka", "highwater"):
        f = FIGURES.get(name)
        if not isinstance(f, dict):
            lines.append("%-9s  (no figures: %s)" % (name, (f or "not measured").strip().splitlines()[-1]))
            continue
        for client, part in (("hog-producer", "producer"), ("hog-consumer", "consumer")):
            h = f[part]
            lines.append("%-9s  %-13s  %-22s  %10d  %12d  %6.3f  %15d  %10d  %.1f-%.1f%s"
                         % (name, client, h["entity"], h["quota"], h["rate"], h["ratio"], h["throttle events"],
                            h["largest throttle ms"], h["interval"][0], h["interval"][1],
                            "" if h["eof at"] is None else "  (read the whole topic at %.1f s)" % h["eof at"]))
    lines += ["", "%-9s  %-13s  %14s  %14s  %8s  %15s  %s"
              % ("broker", "client", "alone B/s", "with hogs B/s", "share", "throttle events", "with hogs (s)")]
    for name in ("kafka", "highwater"):
        f = FIGURES.get(name)
        if isinstance(f, dict):
            u = f["free"]
            lines.append("%-9s  %-13s  %14d  %14d  %8.3f  %15d  %.1f-%.1f"
                         % (name, "free-producer", u["baseline"], u["during"], u["share"], u["throttle events"],
                            u["during interval"][0], u["during interval"][1]))
    lines += ["", "KiB in each second of the hogs' runs (measured: %.0f-%.0f s):" % (WARMUP_S, WARMUP_S + MEASURED_S)]
    for name in ("kafka", "highwater"):
        f = FIGURES.get(name)
        if isinstance(f, dict):
            for client, part in (("hog-producer", "producer"), ("hog-consumer", "consumer")):
                lines.append("%-9s  %-13s  %s" % (name, client, " ".join(str(k) for k in f[part]["per second"])))
    return "\n".join(lines)


def main():
    global HIGHWATER, SOURCE_DIR
    if sys.argv[1:2] == ["--worker"]:
        worker_main()
        return
    args, rest = broker_pair.parse_arguments()
    HIGHWATER, SOURCE_DIR = args.highwater, args.source_dir

    def report(seconds):
        for name, tail in FAILED_LOGS.items():
            print("\n--- the end of %s's log ---\n%s" % (name, tail), file=sys.stderr)
        print(figures_table(), file=sys.stderr)
    broker_pair.run_tests(rest, close_brokers, report)


if __name__ == "__main__":
    main()
