"""Real clients over highwater's secured listeners.

Run by ctest as compat_python_security_tests:
    <venv>/bin/python security_clients_test.py --highwater <highwater binary> --source-dir <repository>

One broker, started once for the whole run, with a PLAINTEXT listener (for
setup and between brokers), SSL, MTLS (SSL with client certificates
required), and SASL_PLAINTEXT and SASL_SSL with PLAIN, SCRAM-SHA-256 and
SCRAM-SHA-512. Certificates come from scripts/make-certs.sh (a second,
untrusted authority in other/); the SCRAM users are made through
AdminClient.alter_user_scram_credentials (kafka-configs otherwise).

Three clients, each over SSL, mTLS and the six SASL combinations, produce
records to a fresh topic and read exactly them back: confluent-kafka-python
(a consumer in a group), kcat, and Kafka's Java console producer and
consumer (scripts/kafka-run-class.sh). Each is then refused, with its own
error and within a deadline, for a wrong password (PLAIN, SCRAM-SHA-512),
an unknown user (PLAIN, SCRAM-SHA-256), an mTLS connection without a client
certificate and a server certificate it does not trust; the broker's log
must show the same refusal.

A REAUTH listener (SASL_PLAINTEXT) limits each login to 1.5 s
(connections.max.reauth.ms, KIP-368): confluent-kafka-python and the Java
console producer send records over several lifetimes, re-authenticate on
their connections (the broker's metrics count it) and lose nothing.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from highwater_process import Highwater, wait_for

HIGHWATER = None
SOURCE_DIR = None
ENV = None  # the one broker and its certificates, made by setUpModule
LAST_BROKER_LOG = ""

STORE_PASSWORD = "store-secret-9c2"
PLAIN_PASSWORD = "alice-plain-secret"
SCRAM_PASSWORD = "alice-scram-secret"
RECORDS = 50
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")

PLAIN_TOLD = "Authentication failed: Invalid username or password"
REAUTH_LIFETIME_MS = 1500


def scram_told(mechanism):
    # What Kafka's SaslServerAuthenticator tells a client whose SCRAM proof or user is wrong.
    return "Authentication failed during authentication due to invalid credentials with SASL mechanism " + mechanism


def run(cmd, timeout_s, stdin_text="", env=None):
    """Runs cmd to its end, killed at the deadline (exit code 124): (code, stdout, stderr)."""
    try:
        p = subprocess.run(cmd, input=stdin_text, capture_output=True, text=True, timeout=timeout_s, env=env)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        text = lambda b: b.decode(errors="replace") if isinstance(b, bytes) else (b or "")
        return 124, text(e.stdout), text(e.stderr) + "\n[killed after %ds]" % timeout_s


@dataclass(frozen=True)
class Case:
    """How a client connects: the listener, its protocol, a login, certificates."""
    name: str
    listener: str
    protocol: str
    mechanism: str = ""
    user: str = "alice"
    password: str = ""
    client_cert: bool = False
    trusted_ca: bool = True

    @property
    def tls(self):
        return self.protocol in ("SSL", "SASL_SSL")


def sasl_case(listener, mechanism, **kw):
    password = PLAIN_PASSWORD if mechanism == "PLAIN" else SCRAM_PASSWORD
    tag = "sasl" if listener == "SASL_PLAINTEXT" else "saslssl"
    return Case("%s-%s" % (tag, mechanism.lower()), listener, listener, mechanism, password=password, **kw)


CASES = [Case("ssl", "SSL", "SSL"), Case("mtls", "MTLS", "SSL", client_cert=True)] + [
    sasl_case(listener, m) for listener in ("SASL_PLAINTEXT", "SASL_SSL") for m in SASL_MECHANISMS]


@dataclass(frozen=True)
class Refusal:
    """A connection the broker must refuse, and how each client reports it."""
    case: Case
    rdkafka_codes: tuple  # librdkafka's error callback
    rdkafka_text: str
    kcat_texts: tuple     # how kcat's first "% ERROR: ..." line starts
    java_text: str        # the exception Kafka's console tools log
    broker_text: str      # a pattern for the broker's "Failed authentication" line


def sasl_refusal(name, listener, mechanism, user, password, why):
    told = PLAIN_TOLD if mechanism == "PLAIN" else scram_told(mechanism)
    return Refusal(Case(name, listener, listener, mechanism, user=user, password=password),
                   (KafkaError._AUTHENTICATION,), "SASL authentication error: " + told,
                   ("% ERROR: Local: Authentication failure: ",), "SaslAuthenticationException: " + told,
                   re.escape(told + "; " + why))


REFUSALS = [
    sasl_refusal("plain-wrong-password", "SASL_PLAINTEXT", "PLAIN", "alice", "not-alices",
                 "wrong password for user alice"),
    sasl_refusal("plain-unknown-user", "SASL_SSL", "PLAIN", "mallory", PLAIN_PASSWORD, "unknown user mallory"),
    sasl_refusal("scram512-wrong-password", "SASL_SSL", "SCRAM-SHA-512", "alice", "not-alices",
                 "invalid client credentials"),
    sasl_refusal("scram256-unknown-user", "SASL_PLAINTEXT", "SCRAM-SHA-256", "mallory", SCRAM_PASSWORD,
                 "no SCRAM-SHA-256 credential for user mallory"),
    # TLS 1.3: the client's side of the handshake completes before the
    # server's alert, so it sees the refusal on its first read.
    Refusal(Case("mtls-no-certificate", "MTLS", "SSL"), (KafkaError._TRANSPORT,),
            "tlsv13 alert certificate required", ("% ERROR: Local: Broker transport failure: ",),
            "SslAuthenticationException: Failed to process post-handshake messages",
            "SSL handshake failed: peer did not return a certificate"),
    # librdkafka reports its own verification failure as _SSL, or as
    # _TRANSPORT when the server's answer is already there on its first
    # SSL_connect (a race on loopback). OpenSSL clients alert unknown_ca,
    # Java certificate_unknown.
    Refusal(Case("untrusted-server", "SSL", "SSL", trusted_ca=False), (KafkaError._SSL, KafkaError._TRANSPORT),
            "certificate verify failed", ("% ERROR: Local: SSL error: ", "% ERROR: Local: Broker transport failure: "),
            "SslAuthenticationException: SSL handshake failed",
            "SSL handshake failed: (tlsv1 alert unknown ca|sslv3 alert certificate unknown)"),
]


class Broker(Highwater):
    """The run's one broker (Environment.overrides), with its metrics and log."""

    def __init__(self, directory, overrides):
        super().__init__(HIGHWATER, directory, overrides)

    def metrics(self):
        """The broker's Prometheus text (highwater.metrics.port)."""
        import urllib.request
        with urllib.request.urlopen("http://%s/metrics" % self.listeners["METRICS"], timeout=10) as r:
            return r.read().decode()

    def refusals_logged(self, pattern):
        pattern = re.compile("Failed authentication with .*" + pattern)
        return sum(1 for line in self.log().splitlines() if pattern.search(line))



class Environment:
    """The certificates, the broker and the SCRAM users: made once per run."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="hw-py-sec-")
        self.broker = None
        try:
            self.start()
        except BaseException:
            self.close()
            raise

    def start(self):
        self.certs = os.path.join(self.dir, "certs")
        self.other = os.path.join(self.certs, "other")  # an authority the broker does not use
        for where, client in ((self.certs, "alice"), (self.other, "mallory")):
            code, out, err = run([os.path.join(SOURCE_DIR, "scripts/make-certs.sh"), where, "--password",
                                  STORE_PASSWORD, "--hosts", "localhost", "--clients", client], 120)
            if code != 0:
                raise AssertionError("make-certs.sh failed:\n" + out + err)
        data = os.path.join(self.dir, "broker")
        os.mkdir(data)
        self.broker = Broker(data, self.overrides())
        self.admin = AdminClient({"bootstrap.servers": self.broker.listeners["PLAINTEXT"]})
        self.make_scram_users()

    def overrides(self):
        plain_jaas = ('org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="%s";'
                      % PLAIN_PASSWORD)
        scram_jaas = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
        listeners = ("PLAINTEXT", "SSL", "MTLS", "SASL_PLAINTEXT", "SASL_SSL", "REAUTH")
        out = [
            ("listeners", ",".join("%s://127.0.0.1:0" % l for l in listeners)),
            ("listener.security.protocol.map",
             "PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL,"
             "REAUTH:SASL_PLAINTEXT"),
            ("listener.name.reauth.connections.max.reauth.ms", str(REAUTH_LIFETIME_MS)),
            ("highwater.metrics.port", "0"),
            ("highwater.metrics.host", "127.0.0.1"),
            ("inter.broker.listener.name", "PLAINTEXT"),
            ("ssl.keystore.type", "PKCS12"),
            ("ssl.keystore.location", os.path.join(self.certs, "localhost.keystore.p12")),
            ("ssl.keystore.password", STORE_PASSWORD),
            ("listener.name.mtls.ssl.client.auth", "required"),
            ("listener.name.mtls.ssl.truststore.type", "PKCS12"),
            ("listener.name.mtls.ssl.truststore.location", os.path.join(self.certs, "truststore.p12")),
            ("listener.name.mtls.ssl.truststore.password", STORE_PASSWORD),
            ("group.initial.rebalance.delay.ms", "0"),
        ]
        for listener in ("sasl_plaintext", "sasl_ssl", "reauth"):
            prefix = "listener.name.%s." % listener
            out += [(prefix + "sasl.enabled.mechanisms", ",".join(SASL_MECHANISMS)),
                    (prefix + "plain.sasl.jaas.config", plain_jaas),
                    (prefix + "scram-sha-256.sasl.jaas.config", scram_jaas),
                    (prefix + "scram-sha-512.sasl.jaas.config", scram_jaas)]
        return out

    def make_scram_users(self):
        # One request per mechanism: as Kafka's controller does, the broker
        # refuses a user named twice in one request (DUPLICATE_RESOURCE).
        if hasattr(self.admin, "alter_user_scram_credentials"):
            from confluent_kafka.admin import ScramCredentialInfo, ScramMechanism, UserScramCredentialUpsertion
            for mechanism, iterations in ((ScramMechanism.SCRAM_SHA_256, 4096), (ScramMechanism.SCRAM_SHA_512, 8192)):
                upsertion = UserScramCredentialUpsertion(
                    "alice", ScramCredentialInfo(mechanism, iterations), SCRAM_PASSWORD.encode())
                for f in self.admin.alter_user_scram_credentials([upsertion]).values():
                    f.result(20)
        else:
            for mechanism, iterations in (("SCRAM-SHA-256", 4096), ("SCRAM-SHA-512", 8192)):
                code, out, err = java_tool(
                    "kafka.admin.ConfigCommand",
                    ["--bootstrap-server", self.broker.listeners["PLAINTEXT"], "--alter", "--entity-type", "users",
                     "--entity-name", "alice", "--add-config",
                     "%s=[iterations=%d,password=%s]" % (mechanism, iterations, SCRAM_PASSWORD)])
                if code != 0:
                    raise AssertionError("kafka-configs failed:\n" + out + err)
        # The credentials reach the SASL listeners through the metadata log:
        # wait until both logins work.
        for case in CASES:
            if case.mechanism.startswith("SCRAM") and case.listener == "SASL_PLAINTEXT":
                wait_for(lambda: rdkafka_login_error(self.rdkafka_conf(case)) is None, 30,
                         "a %s login" % case.mechanism)

    def rdkafka_conf(self, case):
        """librdkafka's keys for case: what confluent-kafka and kcat (-X) both take."""
        conf = {"bootstrap.servers": self.broker.listeners[case.listener], "security.protocol": case.protocol}
        if case.mechanism:
            conf.update({"sasl.mechanisms": case.mechanism, "sasl.username": case.user,
                         "sasl.password": case.password})
        if case.tls:
            conf["ssl.ca.location"] = os.path.join(self.certs if case.trusted_ca else self.other, "ca.crt")
        if case.client_cert:
            conf.update({"ssl.certificate.location": os.path.join(self.certs, "alice.crt"),
                         "ssl.key.location": os.path.join(self.certs, "alice.key.pem"),
                         "ssl.key.password": STORE_PASSWORD})
        return conf

    def java_config(self, case):
        """Kafka's client keys for case, in a properties file for --command-config."""
        lines = ["security.protocol=" + case.protocol]
        if case.mechanism:
            module = ("plain.PlainLoginModule" if case.mechanism == "PLAIN" else "scram.ScramLoginModule")
            lines += ["sasl.mechanism=" + case.mechanism,
                      'sasl.jaas.config=org.apache.kafka.common.security.%s required username="%s" password="%s";'
                      % (module, case.user, case.password)]
        if case.tls:
            lines += ["ssl.truststore.type=PKCS12",
                      "ssl.truststore.location=" + os.path.join(self.certs if case.trusted_ca else self.other,
                                                                "truststore.p12"),
                      "ssl.truststore.password=" + STORE_PASSWORD]
        if case.client_cert:
            lines += ["ssl.keystore.type=PKCS12",
                      "ssl.keystore.location=" + os.path.join(self.certs, "alice.keystore.p12"),
                      "ssl.keystore.password=" + STORE_PASSWORD]
        path = os.path.join(self.dir, "java-%s.properties" % case.name)
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def create_topics(self, names):
        fs = self.admin.create_topics([NewTopic(n, num_partitions=1, replication_factor=1) for n in names],
                                      operation_timeout=15)
        for f in fs.values():
            f.result(30)

    def high_watermark(self, topic):
        c = Consumer({"bootstrap.servers": self.broker.listeners["PLAINTEXT"], "group.id": "py-sec-unused"})
        try:
            return c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)[1]
        finally:
            c.close()

    def close(self):
        global LAST_BROKER_LOG
        if self.broker:
            self.admin = None  # before the broker goes, or librdkafka logs reconnect failures
            self.broker.stop()
            LAST_BROKER_LOG = self.broker.log()
        shutil.rmtree(self.dir, ignore_errors=True)


def rdkafka_login_error(conf, timeout_s=5):
    """None once a metadata request is served with conf, else the first error reported."""
    errors = []
    p = Producer({**conf, "error_cb": errors.append, "log_level": 0})
    try:
        p.list_topics(timeout=timeout_s)
        return None
    except KafkaException as e:
        return errors[0] if errors else e.args[0]


def java_tool(main_class, args, stdin_text="", timeout_s=90):
    # Short-lived client JVMs: C1 only and the serial collector start in
    # about half the CPU time, which matters with two at once on two cores.
    env = dict(os.environ)
    env.setdefault("KAFKA_JVM_PERFORMANCE_OPTS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.awt.headless=true")
    env.setdefault("KAFKA_HEAP_OPTS", "-Xmx256m")
    return run([os.path.join(SOURCE_DIR, "scripts/kafka-run-class.sh"), main_class] + args, timeout_s, stdin_text, env)


def values_for(client, case):
    # About 1 KB each, so a case's records take several TLS records.
    return ["%s-%s-%03d-%s" % (client, case.name, i, "v" * 1000) for i in range(RECORDS)]


def setUpModule():
    global ENV
    ENV = Environment()


def tearDownModule():
    close_environment()


def close_environment():
    global ENV
    if ENV:
        env, ENV = ENV, None
        env.close()


class SecurityTest(unittest.TestCase):
    client = ""

    def topics_for(self, cases):
        names = {case: "%s-%s" % (self.client, case.name) for case in cases}
        ENV.create_topics(list(names.values()))
        return names

    def assert_exactly(self, topic, got, want):
        self.assertEqual(len(got), len(want), "records read back from " + topic)
        self.assertEqual(got, want, "values read back from " + topic)
        self.assertEqual(ENV.high_watermark(topic), len(want), "records in " + topic)

    def assert_broker_refused(self, refusal, before, connections):
        """The broker logged the refusal for each client's connection."""
        wait_for(lambda: ENV.broker.refusals_logged(refusal.broker_text) >= before + connections, 10,
                 "the broker to log %d more of: %s" % (connections, refusal.broker_text))


class ConfluentKafkaTest(SecurityTest):
    client = "py"

    def test_round_trips(self):
        topics = self.topics_for(CASES)
        for case in CASES:
            with self.subTest(case=case.name):
                self.round_trip(ENV.rdkafka_conf(case), topics[case], values_for(self.client, case))

    def round_trip(self, conf, topic, values):
        errors, acked, failed = [], [], []
        p = Producer({**conf, "error_cb": errors.append, "acks": "all", "linger.ms": 5})
        for v in values:
            p.produce(topic, v.encode(), on_delivery=lambda err, m: (failed if err else acked).append(err or m))
            p.poll(0)
        self.assertEqual(p.flush(30), 0, "records still unsent, errors: %s" % errors)
        self.assertEqual(failed, [])
        self.assertEqual(len(acked), len(values))

        c = Consumer({**conf, "error_cb": errors.append, "group.id": "py-" + topic,
                      "auto.offset.reset": "earliest"})
        got = []
        try:
            c.subscribe([topic])
            deadline = time.monotonic() + 30
            while len(got) < len(values) and time.monotonic() < deadline:
                for m in c.consume(num_messages=len(values) - len(got), timeout=0.5):
                    if m.error():
                        raise KafkaException(m.error())
                    got.append(m.value().decode())
        finally:
            c.close()
        self.assert_exactly(topic, got, values)
        self.assertEqual(errors, [])

    def test_refusals(self):
        for refusal in REFUSALS:
            with self.subTest(refusal=refusal.case.name):
                conf = {**ENV.rdkafka_conf(refusal.case), "log_level": 0}  # the error callback says it
                before = ENV.broker.refusals_logged(refusal.broker_text)
                self.assert_refused(refusal, "producer", self.producer_first_error(conf))
                self.assert_refused(refusal, "consumer", self.consumer_first_error(conf))
                self.assert_broker_refused(refusal, before, 2)

    def assert_refused(self, refusal, who, outcome):
        error, served = outcome
        self.assertEqual(served, 0, who + " was served")
        self.assertIsNotNone(error, who + " saw no error within the deadline")
        self.assertIn(error.code(), refusal.rdkafka_codes, "%s: %s" % (who, error))
        self.assertIn(refusal.rdkafka_text, error.str(), who)

    @staticmethod
    def producer_first_error(conf, timeout_s=15):
        errors, delivered = [], []
        p = Producer({**conf, "error_cb": errors.append, "message.timeout.ms": timeout_s * 1000})
        p.produce("py-refused", b"never", on_delivery=lambda err, m: err is None and delivered.append(m))
        deadline = time.monotonic() + timeout_s
        while not errors and time.monotonic() < deadline:
            p.poll(0.1)
        p.purge()
        p.flush(1)
        return (errors[0] if errors else None), len(delivered)

    @staticmethod
    def consumer_first_error(conf, timeout_s=15):
        errors, served = [], 0
        c = Consumer({**conf, "error_cb": errors.append, "group.id": "py-refused",
                      "auto.offset.reset": "earliest"})
        try:
            c.subscribe(["py-refused"])
            deadline = time.monotonic() + timeout_s
            while not errors and time.monotonic() < deadline:
                m = c.poll(0.1)
                served += m is not None and not m.error()
        finally:
            c.close()
        return (errors[0] if errors else None), served


KCAT = shutil.which("kcat")


@unittest.skipIf(KCAT is None, "kcat is not installed (scripts/install-deps.sh installs it)")
class KcatTest(SecurityTest):
    client = "kcat"

    @staticmethod
    def kcat(case, args, stdin_text="", timeout_s=30):
        options = []
        for key, value in ENV.rdkafka_conf(case).items():
            options += ["-b", value] if key == "bootstrap.servers" else ["-X", "%s=%s" % (key, value)]
        return run([KCAT] + options + args, timeout_s, stdin_text)

    def test_round_trips(self):
        topics = self.topics_for(CASES)
        for case in CASES:
            with self.subTest(case=case.name):
                topic, values = topics[case], values_for(self.client, case)
                code, out, err = self.kcat(case, ["-P", "-t", topic], "".join(v + "\n" for v in values))
                self.assertEqual(code, 0, out + err)
                code, out, err = self.kcat(case, ["-C", "-t", topic, "-e", "-o", "beginning"])
                self.assertEqual(code, 0, out + err)
                self.assert_exactly(topic, out.splitlines(), values)

    def test_refusals(self):
        # kcat's producer reports the connection's error and exits 1 once
        # every broker is down; its consumer only times out on metadata.
        for refusal in REFUSALS:
            with self.subTest(refusal=refusal.case.name):
                before = ENV.broker.refusals_logged(refusal.broker_text)
                code, out, err = self.kcat(refusal.case, ["-P", "-t", "kcat-refused"], "never\n")
                self.assertEqual(code, 1, out + err)
                errors = [l for l in err.splitlines() if l.startswith("% ERROR: ")]
                self.assertTrue(errors, err)
                self.assertTrue(errors[0].startswith(refusal.kcat_texts), err)
                self.assertIn(refusal.rdkafka_text, errors[0])
                self.assertTrue(errors[-1].endswith("brokers are down: terminating"), err)
                self.assert_broker_refused(refusal, before, 1)


class JavaToolsTest(SecurityTest):
    client = "java"
    PRODUCER = "org.apache.kafka.tools.ConsoleProducer"
    CONSUMER = "org.apache.kafka.tools.consumer.ConsoleConsumer"

    @classmethod
    def produce(cls, case, topic, values):
        return java_tool(cls.PRODUCER, ["--bootstrap-server", ENV.broker.listeners[case.listener],
                                        "--command-config", ENV.java_config(case), "--topic", topic],
                         "".join(v + "\n" for v in values))

    @classmethod
    def consume(cls, case, topic, count):
        return java_tool(cls.CONSUMER, ["--bootstrap-server", ENV.broker.listeners[case.listener],
                                        "--command-config", ENV.java_config(case), "--topic", topic,
                                        "--from-beginning", "--max-messages", str(count), "--timeout-ms", "30000"])

    @staticmethod
    def parallel(task, items):
        # Each JVM takes 1.5-2 s to start: two at a time (CI machines have two cores).
        with ThreadPoolExecutor(max_workers=2) as pool:
            return list(pool.map(task, items))

    @staticmethod
    def printed(out):
        # Without the JVM's own log lines ("[0.002s][warning]...").
        return [l for l in out.splitlines() if l and not l.startswith("[")]

    def test_round_trips(self):
        topics = self.topics_for(CASES)

        def both(case):
            values = values_for(self.client, case)
            return values, self.produce(case, topics[case], values), self.consume(case, topics[case], len(values))

        for case, (values, produced, consumed) in zip(CASES, self.parallel(both, CASES)):
            with self.subTest(case=case.name):
                code, out, err = produced
                self.assertEqual(code, 0, out + err)
                self.assertNotIn(" ERROR ", err)
                code, out, err = consumed
                self.assertEqual(code, 0, out + err)
                self.assertIn("Processed a total of %d messages" % len(values), err)
                self.assert_exactly(topics[case], self.printed(out), values)

    def test_refusals(self):
        counts = {r.case.name: ENV.broker.refusals_logged(r.broker_text) for r in REFUSALS}

        def both(refusal):
            return (self.produce(refusal.case, "java-refused", ["never"]),
                    self.consume(refusal.case, "java-refused", 1))

        for refusal, (produced, consumed) in zip(REFUSALS, self.parallel(both, REFUSALS)):
            with self.subTest(refusal=refusal.case.name):
                # Kafka's console tools log the failed send or poll and exit 0.
                code, out, err = produced
                self.assertEqual(code, 0, out + err)
                self.assertIn("Error when sending message to topic java-refused", err)
                self.assertIn("org.apache.kafka.common.errors." + refusal.java_text, err)
                code, out, err = consumed
                self.assertEqual(code, 0, out + err)
                self.assertIn("Error processing message, terminating consumer process", err)
                self.assertIn("org.apache.kafka.common.errors." + refusal.java_text, err)
                self.assertIn("Processed a total of 0 messages", err)
                self.assertEqual(self.printed(out), [])
                self.assert_broker_refused(refusal, counts[refusal.case.name], 2)


class ReauthenticationTest(SecurityTest):
    """Clients that log in again on their connections as their logins expire."""
    client = "reauth"
    CASES = [Case("reauth-plain", "REAUTH", "SASL_PLAINTEXT", "PLAIN", password=PLAIN_PASSWORD),
             Case("reauth-scram-sha-512", "REAUTH", "SASL_PLAINTEXT", "SCRAM-SHA-512", password=SCRAM_PASSWORD)]
    SPAN_S = 5  # over three lifetimes
    JAVA_SPAN_S = 8  # the JVM's start takes the first two seconds of it

    @staticmethod
    def counted(name, mechanism=None):
        labels = 'listener="REAUTH"' + (',mechanism="%s"' % mechanism if mechanism else "")
        text = ENV.broker.metrics()
        m = re.search(r"^kafka_server_socket_server_metrics_%s\{%s\} (\S+)$" % (name, re.escape(labels)), text,
                      re.MULTILINE)
        return float(m.group(1)) if m else 0.0

    def assert_renewed(self, case, before):
        renewed = self.counted("successful_reauthentication_total", case.mechanism) - before
        self.assertGreaterEqual(renewed, 2, "re-authentications of %s" % case.name)
        self.assertEqual(self.counted("failed_reauthentication_total", case.mechanism), 0)
        self.assertEqual(self.counted("expired_connections_killed_count"), 0, ENV.broker.log()[-3000:])

    def test_confluent_kafka_renews_its_login(self):
        topics = self.topics_for(self.CASES)
        for case in self.CASES:
            with self.subTest(case=case.name):
                before = self.counted("successful_reauthentication_total", case.mechanism)
                values = ["renewed-py-%d" % i for i in range(10)]
                acked, errors = [], []
                p = Producer({**ENV.rdkafka_conf(case), "error_cb": errors.append, "acks": "all"})
                for v in values:
                    p.produce(topics[case], v.encode(),
                              on_delivery=lambda err, m: acked.append(err or m.value().decode()))
                    p.poll(self.SPAN_S / len(values))
                    time.sleep(self.SPAN_S / len(values))
                self.assertEqual(p.flush(30), 0)
                self.assertEqual(errors, [])
                self.assertEqual(acked, values, "records lost on " + topics[case])
                self.assert_renewed(case, before)

    def test_java_producer_renews_its_login(self):
        case = Case("reauth-plain-java", "REAUTH", "SASL_PLAINTEXT", "PLAIN", password=PLAIN_PASSWORD)
        topic = self.topics_for([case])[case]
        before = self.counted("successful_reauthentication_total", case.mechanism)
        values = ["renewed-java-%d" % i for i in range(10)]
        feeder = "for v in %s; do echo $v; sleep %.2f; done" % (" ".join(values), self.JAVA_SPAN_S / len(values))
        config = ENV.java_config(case)
        proc = subprocess.run(
            "(%s) | %s org.apache.kafka.tools.ConsoleProducer --bootstrap-server %s --command-config %s --topic %s"
            % (feeder, os.path.join(SOURCE_DIR, "scripts/kafka-run-class.sh"), ENV.broker.listeners[case.listener],
               config, topic), shell=True, capture_output=True, text=True, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertNotIn(" ERROR ", proc.stderr)
        self.assertEqual(ENV.high_watermark(topic), len(values), "records lost on " + topic)
        self.assert_renewed(case, before)


def main():
    global HIGHWATER, SOURCE_DIR
    parser = argparse.ArgumentParser()
    parser.add_argument("--highwater", required=True)
    parser.add_argument("--source-dir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
    args, rest = parser.parse_known_args()
    HIGHWATER = os.path.abspath(args.highwater)
    SOURCE_DIR = os.path.abspath(args.source_dir)

    # A SIGTERM (ctest's timeout) unwinds like ^C, so the broker and the
    # temporary directory still go.
    def interrupted(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupted)
    try:
        result = unittest.main(argv=[sys.argv[0]] + rest, verbosity=2, exit=False).result
    finally:
        close_environment()
    if not result.wasSuccessful():
        print("\n--- broker log ---\n" + LAST_BROKER_LOG, file=sys.stderr)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
