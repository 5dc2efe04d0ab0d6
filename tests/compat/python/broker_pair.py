"""Apache Kafka 4.3.1 and highwater side by side: the scaffolding of the Python compat tests that run one scenario
on both brokers, Kafka first, and compare what the clients saw.

Brokers. Broker is what a test needs of either broker: its client bootstrap address, an AdminClient (admin,
dropped by close_clients() before the broker stops), topics created with their leaders awaited (create_topic,
create_topics), the versions ApiVersions v0 advertises (api_versions, on a socket of its own), PLAIN logins on its
SASL_PLAINTEXT listener (conf(user), with passwords set) and the end of its log (log_tail). KafkaBroker runs
scripts/kafka-server.sh through kafka_process.start_kafka (with or without its SASL_PLAINTEXT listener);
HighwaterBroker runs the binary through highwater_process.Highwater with --override pairs (the settings and one of
PLAINTEXT_LISTENER or SASL_LISTENERS, or a function of a controller address named before the start). A test adds
its own methods in a subclass of Broker and mixes it into both: class KafkaBroker(MyBroker, broker_pair.KafkaBroker).

Pair is the list of the brokers started, Kafka first: start() runs both at once (Kafka's JVM takes a few seconds,
highwater starts meanwhile), or the one --only names, and stops what started when either fails; stop() stops them.

PairTest is the unittest base: a test is skipped when the pair did not start, the end of each broker's log is kept
for the report when it failed, on_both(scenario) runs scenario(broker) on each in a subtest of its own and asserts
that they saw the same, and timing() records how long a step took.

parse_arguments() reads the command line every such file takes (--highwater, --source-dir, and as asked --only,
--tools or a file's own), run_tests() runs the tests (the brokers closed whatever happens, a SIGTERM unwinding like
^C) and exits with their outcome; print_timings() and print_failure_logs() print the usual report.
"""

import argparse
import collections
import os
import signal
import socket
import struct
import sys
import time
import unittest
from concurrent.futures import ThreadPoolExecutor

from confluent_kafka.admin import AdminClient, NewTopic

from highwater_process import Highwater, wait_for
from kafka_process import start_kafka, stop_kafka

# highwater's client listeners: PLAINTEXT alone, or SASL_PLAINTEXT for the clients and PLAINTEXT for the broker's
# own traffic (Kafka's scripts/kafka-server.sh runs the same: see kafka_process.start_kafka).
PLAINTEXT_LISTENER = [("listeners", "PLAINTEXT://127.0.0.1:0")]
SASL_LISTENERS = [("listeners", "SASL_PLAINTEXT://127.0.0.1:0,PLAINTEXT://127.0.0.1:0"),
                  ("inter.broker.listener.name", "PLAINTEXT")]


def file_tail(path, lines=80):
    """The last lines of a file (or why it cannot be read), for a failure report."""
    try:
        with open(path, errors="replace") as f:
            return "".join(collections.deque(f, lines))
    except OSError as e:
        return str(e)


def recv_exactly(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise AssertionError("the broker closed the connection")
        data += chunk
    return data


def free_address(host="127.0.0.1"):
    """host:port with a port the kernel called free on 127.0.0.1 (an address named before the broker binds it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return "%s:%d" % (host, probe.getsockname()[1])


def java_env(**more):
    """The environment of a short-lived Java client (scripts/kafka-run-class.sh), with more variables."""
    # C1 only and the serial collector start in about half the CPU time.
    return dict(os.environ, KAFKA_HEAP_OPTS="-Xmx256m",
                KAFKA_JVM_PERFORMANCE_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.awt.headless=true", **more)


class Broker:
    """What a test needs of either broker. A subclass sets passwords ({user: password}) for PLAIN logins on the
    SASL_PLAINTEXT listener (conf(user)), and admin_user for an admin logged in as that user."""
    name = ""
    passwords = {}
    admin_user = None

    def __init__(self, directory):
        self.dir = directory
        self.bootstrap = None
        self._admin = None

    def conf(self, user=None):
        """A client's settings: the bootstrap address, and with user a PLAIN login over SASL_PLAINTEXT."""
        if user is None:
            return {"bootstrap.servers": self.bootstrap}
        return {"bootstrap.servers": self.bootstrap, "security.protocol": "SASL_PLAINTEXT",
                "sasl.mechanisms": "PLAIN", "sasl.username": user, "sasl.password": self.passwords[user]}

    @property
    def admin(self):
        if self._admin is None:
            self._admin = AdminClient(self.conf(self.admin_user))
        return self._admin

    def close_clients(self):
        self._admin = None  # before the broker goes, or librdkafka logs reconnect failures

    def create_topic(self, name, partitions):
        """Creates name and waits until the metadata has a leader for each of its partitions."""
        self.admin.create_topics([NewTopic(name, partitions, 1)], operation_timeout=15)[name].result(20)

        def led():
            md = self.admin.list_topics(topic=name, timeout=10).topics.get(name)
            return (md is not None and md.error is None and len(md.partitions) == partitions
                    and all(p.leader >= 0 for p in md.partitions.values()))
        wait_for(led, 20, "%s: the leaders of %s" % (self.name, name))

    def create_topics(self, names, client=None):
        """Creates names (one partition each) through admin, or client, and waits for their leaders."""
        client = self.admin if client is None else client
        fs = client.create_topics([NewTopic(n, num_partitions=1, replication_factor=1) for n in names],
                                  operation_timeout=15)
        for f in fs.values():
            f.result(20)
        self.wait_leaders(names)

    def wait_leaders(self, names):
        # A new topic's leader may lag its creation: wait until admin's metadata has one for each.
        wait_for(lambda: all(t in md.topics and md.topics[t].error is None and md.topics[t].partitions
                             and md.topics[t].partitions[0].leader >= 0
                             for md in [self.admin.list_topics(timeout=10)] for t in names), 15,
                 "%s: the leaders of %s" % (self.name, names))

    def api_versions(self, keys, client_id="hw-compat-test"):
        """{key: (min, max) or None} from an ApiVersions v0 request on a socket of its own."""
        host, port = self.bootstrap.rsplit(":", 1)
        client = client_id.encode()
        body = struct.pack(">hhih", 18, 0, 1, len(client)) + client
        with socket.create_connection((host, int(port)), timeout=10) as s:
            s.sendall(struct.pack(">i", len(body)) + body)
            size = struct.unpack(">i", recv_exactly(s, 4))[0]
            data = recv_exactly(s, size)
        _, error, count = struct.unpack_from(">ihi", data, 0)
        if error:
            raise AssertionError("%s: ApiVersions v0 answered error %d" % (self.name, error))
        offered = {}
        for i in range(count):
            key, low, high = struct.unpack_from(">hhh", data, 10 + 6 * i)
            offered[key] = (low, high)
        return {key: offered.get(key) for key in keys}

    def log_path(self):
        raise NotImplementedError

    def log_tail(self, lines=80):
        return file_tail(self.log_path(), lines)

    def stop(self):
        raise NotImplementedError


class KafkaBroker(Broker):
    """Apache Kafka 4.3.1 in directory (scripts/kafka-server.sh) with settings ((key, value) pairs, or a function of
    its port run, see kafka_process.start_kafka); env adds to the script's environment. Its bootstrap is its
    SASL_PLAINTEXT listener, or without sasl_listener its PLAINTEXT one."""
    name = "kafka"

    def __init__(self, source_dir, directory, settings, env=None, sasl_listener=True):
        super().__init__(directory)
        self.source_dir = source_dir
        self.bootstrap = start_kafka(source_dir, directory, settings, self.log_tail, env, sasl_listener)

    def log_path(self):
        return os.path.join(self.dir, "kafka.log")

    def stop(self):
        self.close_clients()
        stop_kafka(self.source_dir, self.dir)


class HighwaterBroker(Broker):
    """highwater (binary) in directory with overrides ((key, value) pairs: its settings and listeners, such as
    PLAINTEXT_LISTENER or SASL_LISTENERS); env adds to its environment. Its bootstrap is the listener named
    client_listener. overrides may be a function of a controller address (controller_host and a port named before
    the start, for controller.quorum.voters): then it starts in directory-0 on a port the kernel called free, and
    again (directory-1, directory-2) on another when it could not start (the port taken meanwhile)."""
    name = "highwater"

    def __init__(self, binary, directory, overrides, client_listener="PLAINTEXT", env=None,
                 controller_host="127.0.0.1"):
        if callable(overrides):
            errors = []
            for attempt in range(3):
                attempt_dir = "%s-%d" % (directory, attempt)
                os.makedirs(attempt_dir)
                try:
                    self.process = Highwater(binary, attempt_dir, overrides(free_address(controller_host)), env=env)
                    break
                except AssertionError as e:
                    errors.append(str(e))
            else:
                raise AssertionError("\n".join(errors))
        else:
            os.makedirs(directory)
            self.process = Highwater(binary, directory, overrides, env=env)
        super().__init__(self.process.dir)
        self.bootstrap = self.process.listeners[client_listener]

    def log_path(self):
        return self.process.log_path

    def stop(self):
        self.close_clients()
        self.process.stop()


def start_each(directory, kafka, highwater=None, only=None, suffix="", workers=2):
    """Starts kafka(directory/kafka<suffix>) and highwater(directory/highwater<suffix>) (callables of a directory
    that give a started Broker), those of them that are not None and that only ("kafka", "highwater" or None for
    both) names, workers at a time: (the brokers that started, Kafka first; the failures' messages)."""
    kinds = [(start, name) for start, name in ((kafka, "kafka"), (highwater, "highwater"))
             if start is not None and only in (None, name)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        starts = [pool.submit(start, os.path.join(directory, name + suffix)) for start, name in kinds]
    brokers, failures = [], []
    for start in starts:
        try:
            brokers.append(start.result())
        except Exception as e:  # noqa: BLE001 (the other broker must still be stopped)
            failures.append(str(e))
    return brokers, failures


class Pair(list):
    """The brokers started, Kafka first: what it does is what highwater must do. wanted is how many start() was
    asked for (a test runs once all of them are up)."""
    wanted = 0

    def start(self, directory, kafka, highwater=None, only=None, workers=2):
        """Starts them as start_each does (Kafka's JVM takes a few seconds to start: highwater starts meanwhile);
        when one fails, stops what started and raises an AssertionError with every failure."""
        brokers, failures = start_each(directory, kafka, highwater, only, workers=workers)
        self.wanted = len(brokers) + len(failures)
        self.extend(brokers)
        if failures:
            self.stop()
            raise AssertionError("\n".join(failures))

    def started(self):
        return bool(self) and len(self) == self.wanted

    def stop(self):
        while self:
            self.pop().stop()


class PairTest(unittest.TestCase):
    """A test of scenarios run on each broker of a pair. A subclass sets brokers (the Pair it runs on, filled by
    setUpModule or setUpClass), failure_logs (a list that gets (test, broker, the end of its log) after a failure)
    and timings (a list for (test, broker, seconds, what), or None: not kept)."""
    maxDiff = None
    brokers = Pair()
    failure_logs = []
    timings = None
    SAME = "what the clients saw on highwater (first) and on Kafka (second)"

    def setUp(self):
        if not self.brokers.started():
            self.skipTest("the brokers did not start")
        self.problems_before = self.problems()

    def problems(self):
        # The run's failures and errors so far, a failed subtest's included.
        result = getattr(getattr(self, "_outcome", None), "result", None)
        return len(result.failures) + len(result.errors) if result else 0

    def failed(self):
        """Whether the test failed so far (a subtest included)."""
        return self.problems() > self.problems_before

    def tearDown(self):
        if self.failed():
            for broker in self.brokers:
                self.failure_logs.append((self.id(), broker.name, broker.log_tail()))

    def on_both(self, scenario, *args, brokers=None):
        """Runs scenario(broker, *args) on Kafka, then on highwater (or on brokers), each in its own subtest (a
        scenario asserts what its clients must see); then what they saw must be the same on both. What each saw,
        by broker name."""
        seen = {}
        for broker in self.brokers if brokers is None else brokers:
            with self.subTest(broker=broker.name):
                start = time.monotonic()
                seen[broker.name] = scenario(broker, *args)
                self.scenario_ran(broker, seen[broker.name], time.monotonic() - start)
        if len(seen) == 2:
            self.assertEqual(seen["highwater"], seen["kafka"], self.SAME)
        return seen

    def scenario_ran(self, broker, seen, seconds):
        """Called after each scenario that ran to its end: its time is kept (with timings)."""
        self.timing(broker, "the scenario", seconds)

    def timing(self, broker, what, seconds):
        if self.timings is not None:
            self.timings.append((self.id().rsplit(".", 1)[-1], broker.name, seconds, what))


def parse_arguments(only=False, tools=False, skip_variable=None, more=None):
    """The command line: --highwater (the binary), --source-dir (the repository: by default the one holding this
    file); with only, --only kafka|highwater (--highwater then needed unless --only kafka); with tools, --tools
    (highwater-tools, by default beside --highwater); with skip_variable, --highwater needed unless that variable
    is 1 (Kafka alone); otherwise --highwater is required. more(parser) adds a file's own arguments. Returns (args,
    the arguments left for unittest), args' paths absolute and args.only and args.tools None when not given."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--highwater", required=not only and not skip_variable)
    if more:
        more(parser)
    parser.add_argument("--source-dir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
    if tools:
        parser.add_argument("--tools", help="highwater-tools (default: beside --highwater)")
    if only:
        parser.add_argument("--only", choices=["kafka", "highwater"])
    args, rest = parser.parse_known_args()
    args.only = getattr(args, "only", None)
    if only and args.only != "kafka" and not args.highwater:
        parser.error("--highwater is needed unless --only kafka")
    if skip_variable and not args.highwater and os.environ.get(skip_variable) != "1":
        parser.error("--highwater is needed (or %s=1 to run Apache Kafka alone)" % skip_variable)
    args.highwater = os.path.abspath(args.highwater) if args.highwater else None
    args.source_dir = os.path.abspath(args.source_dir)
    given_tools = getattr(args, "tools", None)
    args.tools = None
    if tools and (given_tools or args.highwater):
        args.tools = os.path.abspath(given_tools or os.path.join(os.path.dirname(args.highwater), "highwater-tools"))
    return args, rest


def run_tests(argv, close, report=None):
    """Runs the tests (unittest.main with argv, verbose), then close() whatever happens, then report(seconds the
    run took) if given; exits 0 if they all passed, 1 otherwise."""
    # An ASan build's leak report at exit says nothing about what the tests check.
    os.environ.setdefault("ASAN_OPTIONS", "detect_leaks=0")

    # A SIGTERM (ctest's timeout) unwinds like ^C, so the brokers, the clients' processes and the temporary
    # directory still go.
    def interrupted(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupted)
    started = time.monotonic()
    try:
        result = unittest.main(argv=[sys.argv[0]] + argv, verbosity=2, exit=False).result
    finally:
        close()
    if report:
        report(time.monotonic() - started)
    sys.exit(0 if result.wasSuccessful() else 1)


def print_timings(timings, seconds, width=45):
    """Prints timings ((test, broker, seconds, what)) under the run's time, to stderr."""
    print("\nTimings (%.0f s in all):" % seconds, file=sys.stderr)
    for test, broker, took, what in timings:
        print("  %-*s %-9s %6.1f s  %s" % (width, test, broker, took, what), file=sys.stderr)


def print_failure_logs(failure_logs):
    """Prints the end of each log kept for a failed test ((test, broker, the end of its log)), to stderr."""
    for test, name, tail in failure_logs:
        print("\n--- %s: the end of %s's log ---\n%s" % (test, name, tail), file=sys.stderr)
