"""Re-authentication (KIP-368) under real clients, against Apache Kafka 4.3.1 and highwater alike.

    <venv>/bin/python reauth_clients_test.py --highwater <highwater binary> --source-dir <repository>

HW_SKIP_HIGHWATER_REAUTH=1 runs Apache Kafka alone (no --highwater needed).
ctest's compat_python_reauth_tests runs both.

Both brokers get one configuration (Kafka through scripts/kafka-server.sh on
ports it binds itself, highwater through --override on ports it picks): a
SASL_PLAINTEXT listener offering SCRAM-SHA-512, whose logins last
MAX_REAUTH_MS (listener.name.sasl_plaintext.scram-sha-512.connections.max.reauth.ms,
set for that mechanism alone), and OAUTHBEARER, validated by
OAuthBearerValidatorCallbackHandler against the JWKS of the test identity
provider (tests/support/oidc_provider.py, HTTPS with a certificate from
scripts/make-certs.sh), with no connections.max.reauth.ms: an OAUTHBEARER
login lasts as long as its token. The provider's tokens live TOKEN_LIFETIME_S
(its /admin/settings). Each test does the same to both, Kafka first, asserts
what the clients must see, and that they saw the same on both:

- Continuous clients, all at once on each broker: a confluent-kafka
  producer (acks=all, idempotent) and a consumer in a group over SCRAM for
  SCRAM_RUN_S, the same pair over OAUTHBEARER with OIDC tokens (their own
  provider clients, sasl.oauthbearer.method=oidc) for OAUTH_RUN_S, and
  Kafka's Java console producer and consumer over SCRAM for about
  JAVA_RUN_S. No client may report an error or a warning, every record
  produced is read exactly once and in order, the broker must close no
  connection for an expired login, and each client must have
  re-authenticated on each of its connections once a lifetime. The
  re-authentications are counted the same way on both brokers, on the
  clients' side: librdkafka's statistics (per connection, SaslHandshake
  requests sent beyond the connections made) and the Java clients' own
  "Finished re-authentication" lines (SaslClientAuthenticator at DEBUG); and
  on the brokers' side, which must count as many: highwater's metrics
  (successful/failed_reauthentication_total per mechanism,
  expired_connections_killed_count), Kafka's log (SaslServerAuthenticator's
  "Beginning re-authentication" and SocketServer's "Disconnecting expired
  channel", at DEBUG). The OIDC clients' token requests are counted at the
  provider (/admin/stats). The figures of both are printed.
- Clients that do not re-authenticate, on raw sockets, all at once on each
  broker (SaslHandshake v1, SaslAuthenticate v1, then Metadata v4): SCRAM,
  told the listener's lifetime; SCRAM through SaslAuthenticate v0 and through
  SaslHandshake v0's raw tokens (told nothing); an OIDC token of
  RAW_TOKEN_LIFETIME_S (told the token's remaining lifetime). Each asks at a
  quarter, a half and three quarters of its login's life (answered) and
  half a second after its end (the connection must close unanswered, and
  not before that request), and the broker must count each close. Besides:
  a SCRAM client that logs in again only after its login ended (a
  SaslHandshake is still a re-authentication then) and carries on until its
  second login ends; one that re-authenticates at once and sends another
  SaslHandshake within the second (ILLEGAL_SASL_STATE, the connection
  served still) and renews after it; and a Fetch that waits past the login's
  end with a Metadata request queued behind it, both sent before the end
  (Kafka answers the Fetch, then closes at the Metadata request; so must
  highwater).

HW_REAUTH_KEEP_WORK_DIR=1 keeps the brokers' logs and the clients' output;
HW_REAUTH_RDKAFKA_DEBUG=broker,security,... writes librdkafka's debug lines there too.
"""

import base64
import hashlib
import hmac
import json
import logging
import os
import re
import select
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import (AdminClient, NewTopic, ScramCredentialInfo, ScramMechanism,
                                   UserScramCredentialUpsertion)

import broker_pair
from broker_pair import SASL_LISTENERS, java_env as client_java_env
from highwater_process import wait_for
from idp_process import IdentityProvider
from kafka_process import run

HIGHWATER = None
SOURCE_DIR = None
WORK_DIR = None
IDP = None
BROKERS = broker_pair.Pair()  # Kafka first: what it does is what highwater must do
FAILURE_LOGS = []
SKIP_HIGHWATER = os.environ.get("HW_SKIP_HIGHWATER_REAUTH") == "1"
RDKAFKA_DEBUG = os.environ.get("HW_REAUTH_RDKAFKA_DEBUG")  # librdkafka's debug contexts, e.g. broker,security

STORE_PASSWORD = "reauth-store-secret"  # the test's own throwaway CA and trust store
AUDIENCE = "highwater"
USER, SCRAM_PASSWORD = "alice", "alice-reauth-secret"
MAX_REAUTH_MS = 3000        # a SCRAM-SHA-512 login's life
# The provider's tokens, and so an OAUTHBEARER login's life. librdkafka renews a login at 90% of its life, and
# fetches a new token at 80% of the token's, checked once a second: with tokens shorter than about 12 s it often
# logs in again with the old token (and is given what is left of it, well under a second), then once more within a
# second, which brokers refuse (ILLEGAL_SASL_STATE, a re-authentication less than a second after the last one).
TOKEN_LIFETIME_S = 15
RAW_TOKEN_LIFETIME_S = 4    # the raw OIDC client's token
SCRAM_RUN_S = 20
OAUTH_RUN_S = 28            # two renewals on each connection
JAVA_RUN_S = 20
RATE = 100                  # records a second, each confluent-kafka producer
JAVA_RECORDS = 200          # JAVA_RUN_S's worth, fed to the console producer
# The consumers' long polls (fetch.wait.max.ms, fetch.max.wait.ms). A broker checks a request's login when it
# processes it, after the requests ahead of it on the connection: a request sent just before the client renews its
# login but queued behind a Fetch that waits longer than what is left (3000 ms less 90%, 300 ms, for librdkafka) is
# processed after the end and closes the connection. Kept well below that.
FETCH_WAIT_MS = 100

# The provider's clients (test-only fixtures): id -> (secret, settings of their tokens).
CLIENTS = {
    "reauth-producer": ("reauth-producer-secret", {}),
    "reauth-consumer": ("reauth-consumer-secret", {}),
    "raw-oidc": ("raw-oidc-secret", {"lifetime": RAW_TOKEN_LIFETIME_S}),
}
OAUTH = "org.apache.kafka.common.security.oauthbearer."


# --- the brokers ---------------------------------------------------------------------------------------------

def jwks_url(broker_name):
    return IDP.jwks_url + "?for=" + broker_name


def broker_settings(name):
    """What both brokers run with besides their listeners: one SASL_PLAINTEXT listener, SCRAM-SHA-512 logins
    limited by connections.max.reauth.ms (for that mechanism alone), OAUTHBEARER logins by their tokens."""
    listener = "listener.name.sasl_plaintext."
    return [
        (listener + "sasl.enabled.mechanisms", "SCRAM-SHA-512,OAUTHBEARER"),
        (listener + "scram-sha-512.sasl.jaas.config",
         "org.apache.kafka.common.security.scram.ScramLoginModule required;"),
        (listener + "scram-sha-512.connections.max.reauth.ms", str(MAX_REAUTH_MS)),
        # No JAAS options: the broker's own (unsecured) OAUTHBEARER login on the listener refuses unknown ones.
        (listener + "oauthbearer.sasl.jaas.config", OAUTH + "OAuthBearerLoginModule required ;"),
        (listener + "oauthbearer.sasl.server.callback.handler.class", OAUTH + "OAuthBearerValidatorCallbackHandler"),
        ("sasl.oauthbearer.jwks.endpoint.url", jwks_url(name)),
        ("sasl.oauthbearer.expected.audience", AUDIENCE),
        ("sasl.oauthbearer.expected.issuer", IDP.base),
        ("sasl.oauthbearer.sub.claim.name", "client_id"),
        ("num.partitions", "1"),
        ("offsets.topic.num.partitions", "1"),
        ("offsets.topic.replication.factor", "1"),
        ("transaction.state.log.num.partitions", "1"),
        ("transaction.state.log.replication.factor", "1"),
        ("transaction.state.log.min.isr", "1"),
        ("group.initial.rebalance.delay.ms", "0"),
    ]


def jvm_trust():
    """The JVM system properties that make the test's CA the one trusted by default."""
    return ("-Djavax.net.ssl.trustStore=%s -Djavax.net.ssl.trustStorePassword=%s -Djavax.net.ssl.trustStoreType=PKCS12"
            % (os.path.join(WORK_DIR, "certs", "truststore.p12"), STORE_PASSWORD))


def broker_env(name):
    return {"KAFKA_OPTS": "-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=%s %s" % (jwks_url(name), jvm_trust())}


def log4j_config(name, levels):
    """scripts/kafka-log4j2.properties with some loggers at other levels ({logger: level}): a file for
    KAFKA_LOG4J_OPTS."""
    with open(os.path.join(SOURCE_DIR, "scripts/kafka-log4j2.properties")) as f:
        text = f.read()
    for i, (logger, level) in enumerate(sorted(levels.items())):
        text += "\nlogger.reauth%d.name = %s\nlogger.reauth%d.level = %s\n" % (i, logger, i, level)
    path = os.path.join(WORK_DIR, name + "-log4j2.properties")
    with open(path, "w") as f:
        f.write(text)
    return "-Dlog4j2.configurationFile=" + path


# Each broker's bootstrap is its SASL_PLAINTEXT listener; plaintext is its PLAINTEXT one, for the setup's admin
# client. evidence() is what the broker itself says of re-authentications and expired logins, cumulative.
class KafkaBroker(broker_pair.KafkaBroker):
    AUTHENTICATOR = "org.apache.kafka.common.security.authenticator.SaslServerAuthenticator"

    def __init__(self, directory):
        env = dict(broker_env(self.name),
                   KAFKA_LOG4J_OPTS=log4j_config("kafka", {self.AUTHENTICATOR: "DEBUG",
                                                           "kafka.network.Processor": "DEBUG"}))
        super().__init__(SOURCE_DIR, directory, broker_settings(self.name), env)
        host, port = self.bootstrap.rsplit(":", 1)
        self.plaintext = "%s:%d" % (host, int(port) - 3)  # scripts/kafka-server.sh: PLAINTEXT on p, ours on p + 3

    def evidence(self):
        with open(self.log_path(), errors="replace") as f:
            text = f.read()
        return {"re-authentications": text.count("Beginning re-authentication: "),
                "expired connections closed": text.count("Disconnecting expired channel: ")}


class HighwaterBroker(broker_pair.HighwaterBroker):
    def __init__(self, directory):
        overrides = broker_settings(self.name) + SASL_LISTENERS + [
            ("highwater.metrics.port", "0"),
            ("highwater.metrics.host", "127.0.0.1")]
        super().__init__(HIGHWATER, directory, overrides, "SASL_PLAINTEXT", broker_env(self.name))
        self.plaintext = self.process.listeners["PLAINTEXT"]

    def metric(self, text, name, **labels):
        wanted = ",".join('%s="%s"' % kv for kv in sorted(labels.items()))
        m = re.search(r"^kafka_server_socket_server_metrics_%s\{%s\} (\S+)$" % (name, re.escape(wanted)), text,
                      re.MULTILINE)
        return int(float(m.group(1))) if m else 0

    def evidence(self):
        with urllib.request.urlopen("http://%s/metrics" % self.process.listeners["METRICS"], timeout=10) as r:
            text = r.read().decode()
        out = {}
        for mechanism in ("SCRAM-SHA-512", "OAUTHBEARER"):
            out["re-authentications " + mechanism] = self.metric(
                text, "successful_reauthentication_total", listener="SASL_PLAINTEXT", mechanism=mechanism)
            out["failed re-authentications " + mechanism] = self.metric(
                text, "failed_reauthentication_total", listener="SASL_PLAINTEXT", mechanism=mechanism)
        out["re-authentications"] = out["re-authentications SCRAM-SHA-512"] + out["re-authentications OAUTHBEARER"]
        out["expired connections closed"] = self.metric(text, "expired_connections_killed_count",
                                                        listener="SASL_PLAINTEXT")
        return out


def make_scram_user(broker):
    """alice's SCRAM-SHA-512 credential, through the PLAINTEXT listener; then waits until she can log in."""
    admin = AdminClient({"bootstrap.servers": broker.plaintext})
    upsertion = UserScramCredentialUpsertion(USER, ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096),
                                             SCRAM_PASSWORD.encode())
    for f in admin.alter_user_scram_credentials([upsertion]).values():
        f.result(30)

    def logs_in():
        p = Producer({**scram_conf(broker), "log_level": 0})
        try:
            p.list_topics(timeout=2)
            return True
        except Exception:  # noqa: BLE001 (not yet: the credential travels through the metadata log)
            return False
    wait_for(logs_in, 30, "%s: alice's SCRAM-SHA-512 login" % broker.name)
    fs = admin.create_topics([NewTopic(t, num_partitions=1, replication_factor=1) for t in TOPICS],
                             operation_timeout=15)
    for f in fs.values():
        f.result(30)
    # An idempotent producer first, so that the runs' producers do not meet a broker still getting its first block
    # of producer ids (Kafka answers COORDINATOR_LOAD_IN_PROGRESS meanwhile, which librdkafka logs as a warning).
    p = Producer({"bootstrap.servers": broker.plaintext, "enable.idempotence": True, "acks": "all", "log_level": 0})
    p.produce("reauth-warm-up", b"first")
    if p.flush(30):
        raise AssertionError("%s: the warm-up record was not delivered" % broker.name)


IDLE_TOPIC = "reauth-idle"  # never written: a Fetch from it waits its max_wait_ms
TOPICS = ["reauth-scram", "reauth-oauth", "reauth-java", IDLE_TOPIC]


# --- confluent-kafka -----------------------------------------------------------------------------------------

def scram_conf(broker):
    return {"bootstrap.servers": broker.bootstrap, "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanisms": "SCRAM-SHA-512", "sasl.username": USER, "sasl.password": SCRAM_PASSWORD}


def oauth_conf(broker, client_id):
    return {"bootstrap.servers": broker.bootstrap, "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanisms": "OAUTHBEARER", "sasl.oauthbearer.method": "oidc",
            "sasl.oauthbearer.client.id": client_id, "sasl.oauthbearer.client.secret": CLIENTS[client_id][0],
            "sasl.oauthbearer.token.endpoint.url": IDP.token_url, "sasl.oauthbearer.scope": "kafka",
            "https.ca.location": os.path.join(WORK_DIR, "certs", "ca.crt")}


class Warnings(logging.Handler):
    """librdkafka's log lines at WARNING and above, kept."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


class ClientReport:
    """One librdkafka client's errors, warnings and statistics (the last report)."""

    def __init__(self, name):
        self.name = name
        self.errors = []
        self.stats = None
        self.stats_at = 0.0
        self.logger = logging.getLogger("rdkafka." + name)
        self.logger.propagate = False
        self.logger.setLevel(logging.DEBUG)
        self.kept = Warnings()
        self.logger.addHandler(self.kept)

    @property
    def warnings(self):
        return self.kept.lines

    def conf(self):
        conf = {"error_cb": self.errors.append, "stats_cb": self.on_stats, "statistics.interval.ms": 500,
                "logger": self.logger, "client.id": self.name}
        if RDKAFKA_DEBUG:
            # Every line of librdkafka's debug contexts, in the work directory.
            debug = logging.FileHandler(os.path.join(WORK_DIR, "rdkafka-%s.log" % self.name))
            debug.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
            self.logger.addHandler(debug)
            conf["debug"] = RDKAFKA_DEBUG
        return conf

    def on_stats(self, text):
        self.stats = json.loads(text)
        self.stats_at = time.monotonic()

    def connections(self):
        """Per broker connection (librdkafka's broker entries, the bootstrap one and the group coordinator's
        included): logins begun (SaslHandshake sent), connections made and lost."""
        out = []
        for name, b in sorted((self.stats or {}).get("brokers", {}).items()):
            out.append({"broker": name, "handshakes": b.get("req", {}).get("SaslHandshake", 0),
                        "connects": b.get("connects", 0), "disconnects": b.get("disconnects", 0)})
        return out

    def reauthentications(self):
        return sum(max(c["handshakes"] - c["connects"], 0) for c in self.connections())

    def summary(self):
        conns = self.connections()
        return {"re-authentications": self.reauthentications(),
                "connections": sum(c["connects"] for c in conns),
                "disconnects": sum(c["disconnects"] for c in conns)}


def await_final_stats(report, poll, after):
    """Serves poll until a statistics report newer than `after` (a monotonic time) has arrived."""
    def fresh():
        poll()
        return report.stats_at > after
    wait_for(fresh, 10, "%s's statistics" % report.name)


def produce_consume(producer_conf, consumer_conf, name, topic, seconds):
    """A producer (acks=all, idempotent) sending RATE records a second to topic for `seconds` while a consumer in
    a group reads them: what each saw."""
    producer_report, consumer_report = ClientReport(name + "-producer"), ClientReport(name + "-consumer")
    producer = Producer({**producer_conf, **producer_report.conf(), "acks": "all", "enable.idempotence": True,
                         "linger.ms": 5})
    consumer = Consumer({**consumer_conf, **consumer_report.conf(), "group.id": "reauth-" + name,
                         "auto.offset.reset": "earliest", "fetch.wait.max.ms": FETCH_WAIT_MS})
    produced, acked, failed, got, bad = [], [], [], [], []
    done_producing = threading.Event()

    def delivered(err, msg):
        (failed if err else acked).append(str(err) if err else msg.value().decode())

    def consume():
        consumer.subscribe([topic])
        deadline = None
        while True:
            if done_producing.is_set():
                deadline = deadline or time.monotonic() + 30
                if len(got) >= len(produced) or time.monotonic() > deadline:
                    break
            for m in consumer.consume(num_messages=500, timeout=0.2):
                if m.error():
                    bad.append(str(m.error()))
                else:
                    got.append(m.value().decode())

    reader = threading.Thread(target=consume, name=name + "-consumer")
    reader.start()
    try:
        start = time.monotonic()
        i = 0
        while time.monotonic() < start + seconds:
            value = "%s-%06d" % (name, i)
            producer.produce(topic, value.encode(), on_delivery=delivered)
            produced.append(value)
            i += 1
            # Paced by the schedule, serving the producer's callbacks meanwhile.
            while time.monotonic() < start + i / RATE:
                producer.poll(start + i / RATE - time.monotonic())
        left = producer.flush(30)
        ended = time.monotonic()
    finally:
        done_producing.set()
        reader.join(60)
    await_final_stats(producer_report, lambda: producer.poll(0.1), ended)
    await_final_stats(consumer_report, lambda: consumer.poll(0.1), time.monotonic())
    consumer.close()
    return {"produced": produced, "acked": acked, "failed": failed, "unsent": left, "got": got,
            "consumer errors": bad, "producer": producer_report, "consumer": consumer_report,
            "seconds": ended - start}


# --- Kafka's Java console clients ----------------------------------------------------------------------------

def java_env():
    return client_java_env(KAFKA_LOG4J_OPTS=log4j_config(
        "java-client", {"org.apache.kafka.common.security.authenticator.SaslClientAuthenticator": "DEBUG",
                        "org.apache.kafka.clients.NetworkClient": "INFO"}))


def java_config(name, extra=""):
    path = os.path.join(WORK_DIR, "java-%s.properties" % name)
    with open(path, "w") as f:
        f.write("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n"
                'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required '
                'username="%s" password="%s";\n%s' % (USER, SCRAM_PASSWORD, extra))
    return path


def java_clients(broker, topic):
    """Kafka's console producer, fed JAVA_RECORDS lines over JAVA_RUN_S, and console consumer (in a group) reading
    them as they come, over SCRAM-SHA-512: what each printed."""
    tool = os.path.join(SOURCE_DIR, "scripts/kafka-run-class.sh")
    config = java_config(broker.name + "-producer")
    consumer_config = java_config(broker.name + "-consumer", "fetch.max.wait.ms=%d\n" % FETCH_WAIT_MS)
    values = ["java-%s-%04d" % (broker.name, i) for i in range(JAVA_RECORDS)]
    outputs = {}
    procs = {}
    for role, args in (
            ("producer", ["org.apache.kafka.tools.ConsoleProducer", "--bootstrap-server", broker.bootstrap,
                          "--command-config", config, "--topic", topic]),
            ("consumer", ["org.apache.kafka.tools.consumer.ConsoleConsumer", "--bootstrap-server", broker.bootstrap,
                          "--command-config", consumer_config, "--topic", topic, "--group",
                          "reauth-java-" + broker.name, "--from-beginning", "--max-messages", str(JAVA_RECORDS),
                          "--timeout-ms", "30000"])):
        outputs[role] = (open(os.path.join(WORK_DIR, "java-%s-%s.out" % (broker.name, role)), "w+"),
                         open(os.path.join(WORK_DIR, "java-%s-%s.err" % (broker.name, role)), "w+"))
        procs[role] = subprocess.Popen([tool] + args, stdin=subprocess.PIPE if role == "producer" else None,
                                       stdout=outputs[role][0], stderr=outputs[role][1], text=True, env=java_env())
    start = time.monotonic()
    feeder = procs["producer"].stdin
    try:
        for i, v in enumerate(values):
            # Paced by the schedule: a line every JAVA_RUN_S / JAVA_RECORDS seconds, the producer exiting early
            # ends it.
            until = start + i * JAVA_RUN_S / JAVA_RECORDS
            while time.monotonic() < until and procs["producer"].poll() is None:
                try:
                    procs["producer"].wait(until - time.monotonic())
                except subprocess.TimeoutExpired:
                    pass
            feeder.write(v + "\n")
            feeder.flush()
    except BrokenPipeError:
        pass
    finally:
        try:
            feeder.close()
        except BrokenPipeError:
            pass
    result = {}
    for role in ("producer", "consumer"):
        try:
            code = procs[role].wait(60)
        except subprocess.TimeoutExpired:
            procs[role].kill()
            code = procs[role].wait(10)
        out, err = outputs[role]
        out.seek(0), err.seek(0)
        result[role] = {"code": code, "out": out.read(), "err": err.read()}
        out.close(), err.close()
    result["values"] = values
    return result


def java_reauthentications(err):
    return err.count("Finished re-authentication with session expiration")


def java_problems(err):
    """The Java client's own WARN and ERROR lines (its log is at WARN but for the authenticator), and whatever its
    NetworkClient logs at INFO (a connection the broker closed, requests cancelled with it)."""
    return [l for l in err.splitlines() if re.match(r"^\[[^]]*\] (WARN|ERROR) ", l)
            or re.match(r"^\[[^]]*\] INFO .*\(org\.apache\.kafka\.clients\.NetworkClient\)$", l)]


# --- raw clients that never re-authenticate -------------------------------------------------------------------

def kafka_string(s):
    b = s.encode()
    return struct.pack(">h", len(b)) + b


class Closed(Exception):
    pass


class RawClient:
    """Requests with non-flexible headers (v1) on a plain socket, one at a time."""

    def __init__(self, bootstrap):
        host, port = bootstrap.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=10)
        self.correlation = 0

    def send(self, api_key, version, body):
        """Sends a request without waiting for its answer: its correlation id."""
        self.correlation += 1
        frame = struct.pack(">hhi", api_key, version, self.correlation) + kafka_string("reauth-probe") + body
        try:
            self.sock.sendall(struct.pack(">i", len(frame)) + frame)
        except OSError as e:
            raise Closed("the send failed: %s" % e)
        return self.correlation

    def receive(self, correlation):
        data = self.read(struct.unpack(">i", self.read(4))[0])
        if struct.unpack(">i", data[:4])[0] != correlation:
            raise AssertionError("correlation id mismatch")
        return data[4:]

    def request(self, api_key, version, body):
        return self.receive(self.send(api_key, version, body))

    def read(self, n):
        out = b""
        while len(out) < n:
            try:
                chunk = self.sock.recv(n - len(out))
            except (ConnectionResetError, socket.timeout) as e:
                raise Closed(str(e))
            if not chunk:
                raise Closed("closed after %d of %d bytes" % (len(out), n))
            out += chunk
        return out

    def idle_until(self, when):
        """Waits until the monotonic time `when`, or until the broker closes the connection or sends something
        unasked: None, or what happened (and when, as a monotonic time)."""
        while True:
            left = when - time.monotonic()
            if left <= 0:
                return None
            readable, _, _ = select.select([self.sock], [], [], left)
            if readable:
                try:
                    peeked = self.sock.recv(1, socket.MSG_PEEK)
                except ConnectionResetError:
                    peeked = b""
                return ("closed" if not peeked else "unasked bytes", time.monotonic())

    def handshake(self, mechanism, version=1):
        return struct.unpack(">h", self.request(17, version, kafka_string(mechanism))[:2])[0]

    def authenticate(self, auth_bytes, version=1):
        """(error_code, error_message, auth_bytes, session_lifetime_ms or None before v1)."""
        data = self.request(36, version, struct.pack(">i", len(auth_bytes)) + auth_bytes)
        code, mlen = struct.unpack(">hh", data[:4])
        pos = 4
        message = None
        if mlen >= 0:
            message = data[pos:pos + mlen].decode()
            pos += mlen
        blen = struct.unpack(">i", data[pos:pos + 4])[0]
        pos += 4
        answer = data[pos:pos + blen]
        pos += blen
        lifetime = struct.unpack(">q", data[pos:pos + 8])[0] if version >= 1 else None
        return code, message, answer, lifetime

    def raw_token(self, token):
        """A SASL token as the frames after a SaslHandshake v0 carry it (size-delimited, no header): the answer in
        SaslAuthenticate's shape."""
        try:
            self.sock.sendall(struct.pack(">i", len(token)) + token)
        except OSError as e:
            raise Closed("the send failed: %s" % e)
        return 0, None, self.read(struct.unpack(">i", self.read(4))[0]), None

    @staticmethod
    def fetch_body(topic, max_wait_ms):
        """Fetch v4 from offset 0 of partition 0 of topic, waiting up to max_wait_ms for a byte."""
        return (struct.pack(">iiiib", -1, max_wait_ms, 1, 1 << 20, 0) + struct.pack(">i", 1) + kafka_string(topic)
                + struct.pack(">iiqi", 1, 0, 0, 1 << 20))

    def metadata(self):
        """Metadata v4 for no topics: "answered" or "closed, unanswered"."""
        try:
            self.request(3, 4, struct.pack(">i?", 0, False))
            return "answered"
        except Closed:
            return "closed, unanswered"

    def close(self):
        self.sock.close()


def scram_login(raw, version=1, handshake_version=1):
    """A SCRAM-SHA-512 login as alice (RFC 5802) through SaslAuthenticate `version`, or after a SaslHandshake v0 as
    raw tokens: the session lifetime told (None before SaslAuthenticate v1); raises on a refusal."""
    if raw.handshake("SCRAM-SHA-512", handshake_version) != 0:
        raise AssertionError("SaslHandshake SCRAM-SHA-512 refused")
    exchange = (lambda token: raw.authenticate(token, version)) if handshake_version else raw.raw_token
    nonce = base64.b64encode(os.urandom(18)).decode()
    first_bare = "n=%s,r=%s" % (USER, nonce)
    code, message, server_first, _ = exchange(("n,," + first_bare).encode())
    if code != 0:
        raise AssertionError("client-first refused: %d %s" % (code, message))
    fields = dict(kv.split("=", 1) for kv in server_first.decode().split(","))
    salted = hashlib.pbkdf2_hmac("sha512", SCRAM_PASSWORD.encode(), base64.b64decode(fields["s"]), int(fields["i"]))
    client_key = hmac.new(salted, b"Client Key", hashlib.sha512).digest()
    without_proof = "c=biws,r=" + fields["r"]
    auth_message = ",".join((first_bare, server_first.decode(), without_proof)).encode()
    signature = hmac.new(hashlib.sha512(client_key).digest(), auth_message, hashlib.sha512).digest()
    proof = base64.b64encode(bytes(a ^ b for a, b in zip(client_key, signature))).decode()
    code, message, server_final, lifetime = exchange((without_proof + ",p=" + proof).encode())
    if code != 0:
        raise AssertionError("client-final refused: %d %s" % (code, message))
    server_key = hmac.new(salted, b"Server Key", hashlib.sha512).digest()
    verifier = base64.b64encode(hmac.new(server_key, auth_message, hashlib.sha512).digest()).decode()
    if server_final.decode() != "v=" + verifier:
        raise AssertionError("the server's signature is wrong: %r" % server_final)
    return lifetime


def oauth_login(raw, token):
    if raw.handshake("OAUTHBEARER") != 0:
        raise AssertionError("SaslHandshake OAUTHBEARER refused")
    code, message, answer, lifetime = raw.authenticate(("n,,\x01auth=Bearer %s\x01\x01" % token).encode())
    if code != 0 or answer:
        raise AssertionError("token refused: %d %s %r" % (code, message, answer))
    return lifetime


def timeline(raw, logged_in, expiry_s):
    """Metadata at a quarter, a half and three quarters of a login that ends expiry_s after `logged_in` (a
    monotonic time), then half a second after its end: how each was met, the idle waits between them watched
    for a close the broker did not wait for."""
    out = []
    for label, at in (("25%", expiry_s / 4), ("50%", expiry_s / 2), ("75%", expiry_s * 3 / 4),
                      ("end + 0.5 s", expiry_s + 0.5)):
        early = raw.idle_until(logged_in + at)
        if early:
            out.append([label, "%s by the broker %.1f s into the login, before the request"
                        % (early[0], early[1] - logged_in)])
            break
        outcome = raw.metadata()
        out.append([label, outcome])
        if outcome != "answered":
            break
    return out


def claims_of(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def handshake_answer(raw, mechanism="SCRAM-SHA-512"):
    """A SaslHandshake v1's answer: [error code, the mechanisms listed]."""
    data = raw.request(17, 1, kafka_string(mechanism))
    code, count = struct.unpack(">hi", data[:6])
    pos, mechanisms = 6, []
    for _ in range(max(count, 0)):
        n = struct.unpack(">h", data[pos:pos + 2])[0]
        mechanisms.append(data[pos + 2:pos + 2 + n].decode())
        pos += 2 + n
    return [code, mechanisms]


def raw_probes(broker):
    """Every raw client of the test on broker, side by side: what each was told and how its requests were met."""
    def scram_told():
        raw = RawClient(broker.bootstrap)
        try:
            told = scram_login(raw)
            logged_in = time.monotonic()
            return {"told": told, "timeline": timeline(raw, logged_in, told / 1000)}
        finally:
            raw.close()

    def scram_v0():
        raw = RawClient(broker.bootstrap)
        try:
            scram_login(raw, version=0)
            logged_in = time.monotonic()
            # Nothing told: the listener's connections.max.reauth.ms is the login's life if it applies.
            return {"told": "nothing (v0)", "timeline": timeline(raw, logged_in, MAX_REAUTH_MS / 1000)}
        finally:
            raw.close()

    def handshake_v0():
        raw = RawClient(broker.bootstrap)
        try:
            scram_login(raw, handshake_version=0)
            logged_in = time.monotonic()
            return {"told": "nothing (raw tokens)", "timeline": timeline(raw, logged_in, MAX_REAUTH_MS / 1000)}
        except Closed as e:
            return {"login": "connection closed (%s)" % e}
        finally:
            raw.close()

    def oidc():
        token = IDP.token("raw-oidc")
        raw = RawClient(broker.bootstrap)
        try:
            told = oauth_login(raw, token)
            logged_in = time.monotonic()
            left_ms = claims_of(token)["exp"] * 1000 - time.time() * 1000
            return {"told": "the token's remaining lifetime" if abs(told - left_ms) < 500
                    else "%d ms (the token had %d ms left)" % (told, left_ms),
                    "timeline": timeline(raw, logged_in, told / 1000)}
        finally:
            raw.close()

    def late_login():
        raw = RawClient(broker.bootstrap)
        try:
            first = scram_login(raw)
            logged_in = time.monotonic()
            early = raw.idle_until(logged_in + first / 1000 + 0.5)
            if early:
                return {"after the first login ended": "%s by the broker" % early[0]}
            try:
                second = scram_login(raw)
            except Closed as e:
                return {"after the first login ended": "a new login: connection closed (%s)" % e}
            relogged_in = time.monotonic()
            return {"after the first login ended": "a new login, told %d ms" % second,
                    "timeline of the second": timeline(raw, relogged_in, second / 1000)}
        finally:
            raw.close()

    def too_soon():
        # A re-authentication at once, then another SaslHandshake within the second: a broker takes at most one a
        # second (KIP-368). What is it answered, is the connection still served, and may it renew after the second?
        raw = RawClient(broker.bootstrap)
        try:
            scram_login(raw)
            renewed = time.monotonic()
            out = {"a re-authentication at once": "told %d ms" % scram_login(raw)}
            out["a SaslHandshake within the second"] = handshake_answer(raw)
            out["then Metadata"] = raw.metadata()
            early = raw.idle_until(renewed + 1.2)
            if early:
                out["then"] = "%s by the broker" % early[0]
                return out
            out["a re-authentication after the second"] = "told %d ms" % scram_login(raw)
            out["then Metadata again"] = raw.metadata()
            return out
        except Closed as e:
            out["then"] = "connection closed (%s)" % e
            return out
        finally:
            raw.close()

    def behind_a_fetch():
        # A Fetch that waits past the login's end, and a Metadata request sent right behind it, both before the end.
        raw = RawClient(broker.bootstrap)
        try:
            told = scram_login(raw)
            logged_in = time.monotonic()
            early = raw.idle_until(logged_in + told / 1000 - 0.8)
            if early:
                return {"before the requests": "%s by the broker" % early[0]}
            fetch = raw.send(1, 4, RawClient.fetch_body(IDLE_TOPIC, 1600))
            metadata = raw.send(3, 4, struct.pack(">i?", 0, False))
            out = {}
            for name, correlation in (("Fetch waiting 1.6 s, sent 0.8 s before the end", fetch),
                                      ("Metadata sent right behind it", metadata)):
                try:
                    raw.receive(correlation)
                    out[name] = "answered %s the end" % ("before" if time.monotonic() < logged_in + told / 1000
                                                         else "after")
                except Closed:
                    out[name] = "closed, unanswered"
            return out
        finally:
            raw.close()

    probes = {"SCRAM, SaslAuthenticate v1": scram_told, "SCRAM, SaslAuthenticate v0": scram_v0,
              "SCRAM, SaslHandshake v0 and raw tokens": handshake_v0, "OIDC token, SaslAuthenticate v1": oidc,
              "SCRAM, a new login after the first ended": late_login,
              "SCRAM, re-authentications less than a second apart": too_soon,
              "SCRAM, requests queued behind a Fetch that waits past the end": behind_a_fetch}
    before = broker.evidence()["expired connections closed"]
    with ThreadPoolExecutor(max_workers=len(probes)) as pool:
        futures = {name: pool.submit(fn) for name, fn in probes.items()}
        seen = {name: f.result() for name, f in futures.items()}
    # Each close is the broker's, for an expired login (its log or its metrics).
    closes = sum(1 for outcome in seen.values() for events in outcome.values()
                 if isinstance(events, list) and events and events[-1] == ["end + 0.5 s", "closed, unanswered"])
    closes += seen["SCRAM, requests queued behind a Fetch that waits past the end"].get(
        "Metadata sent right behind it") == "closed, unanswered"
    try:
        wait_for(lambda: broker.evidence()["expired connections closed"] - before >= closes, 10, "")
    except AssertionError:
        pass  # the count is compared below
    seen["connections closed for an expired login (the broker's count)"] = (
        broker.evidence()["expired connections closed"] - before)
    return seen


# --- the run ---------------------------------------------------------------------------------------------------

def make_certs(directory):
    code, out, err = run([os.path.join(SOURCE_DIR, "scripts/make-certs.sh"), directory, "--password",
                          STORE_PASSWORD, "--hosts", "localhost", "--clients", ""], 60)
    if code != 0:
        raise AssertionError("make-certs.sh failed:\n" + out + err)


def setUpModule():
    global WORK_DIR, IDP
    WORK_DIR = tempfile.mkdtemp(prefix="hw-py-reauth-")
    try:
        certs = os.path.join(WORK_DIR, "certs")
        make_certs(certs)
        IDP = IdentityProvider(SOURCE_DIR, WORK_DIR, certs, STORE_PASSWORD, AUDIENCE, CLIENTS,
                               {"lifetime": TOKEN_LIFETIME_S})
        BROKERS.start(WORK_DIR, KafkaBroker, None if SKIP_HIGHWATER else HighwaterBroker)
        for broker in BROKERS:
            make_scram_user(broker)
    except Exception:
        close_all()
        raise


def tearDownModule():
    close_all()


def close_all():
    global WORK_DIR, IDP
    BROKERS.stop()
    if IDP:
        IDP.stop()
        IDP = None
    if WORK_DIR:
        if os.environ.get("HW_REAUTH_KEEP_WORK_DIR") == "1":
            print("work directory kept: " + WORK_DIR, file=sys.stderr)
        else:
            shutil.rmtree(WORK_DIR, ignore_errors=True)
        WORK_DIR = None


class ReauthTest(broker_pair.PairTest):
    brokers, failure_logs = BROKERS, FAILURE_LOGS

    def on_both(self, scenario, *args, brokers=None):
        seen = super().on_both(scenario, *args, brokers=brokers)
        if SKIP_HIGHWATER:
            print("\n  (highwater skipped: HW_SKIP_HIGHWATER_REAUTH=1)", file=sys.stderr)
        return seen


class ContinuousClientsTest(ReauthTest):
    """The continuous clients run once per broker, all at once (Kafka's, then highwater's); each test then looks
    at what one kind of client saw."""
    RUNS = {}  # broker name -> what the clients and the broker said

    @classmethod
    def setUpClass(cls):
        for broker in BROKERS:
            cls.RUNS[broker.name] = cls.run_all(broker)
        print_figures(cls.RUNS)

    @staticmethod
    def run_all(broker):
        before = broker.evidence()
        tokens_before = {c: IDP.tokens_issued(c) for c in ("reauth-producer", "reauth-consumer")}
        start = time.monotonic()
        with ThreadPoolExecutor(max_workers=3) as pool:
            scram = pool.submit(produce_consume, scram_conf(broker), scram_conf(broker), "scram-" + broker.name,
                                "reauth-scram", SCRAM_RUN_S)
            oauth = pool.submit(produce_consume, oauth_conf(broker, "reauth-producer"),
                                oauth_conf(broker, "reauth-consumer"), "oauth-" + broker.name, "reauth-oauth",
                                OAUTH_RUN_S)
            java = pool.submit(java_clients, broker, "reauth-java")
            runs = {"scram": scram, "oauth": oauth, "java": java}
            results = {}
            for kind, f in runs.items():
                try:
                    results[kind] = f.result()
                except Exception as e:  # noqa: BLE001 (reported by the test of that kind)
                    results[kind] = e
        after = broker.evidence()
        results["broker"] = {k: after[k] - before.get(k, 0) for k in after}
        results["tokens"] = {c: IDP.tokens_issued(c) - n for c, n in tokens_before.items()}
        results["seconds"] = time.monotonic() - start
        return results

    def result(self, broker, kind):
        r = self.RUNS[broker.name][kind]
        if isinstance(r, Exception):
            raise r
        return r

    def assert_records(self, broker, r):
        self.assertEqual(r["failed"], [], "%s: failed deliveries" % broker.name)
        self.assertEqual(r["unsent"], 0, "%s: records never delivered" % broker.name)
        self.assertEqual(sorted(r["acked"]), r["produced"], "%s: records acknowledged" % broker.name)
        self.assertEqual(r["consumer errors"], [], "%s: consumer errors" % broker.name)
        self.assertEqual(len(r["got"]), len(r["produced"]), "%s: records read" % broker.name)
        self.assertEqual(r["got"], r["produced"], "%s: records read, in order, exactly once" % broker.name)
        for report in (r["producer"], r["consumer"]):
            self.assertEqual(report.errors, [], "%s: %s's errors" % (broker.name, report.name))
            self.assertEqual(report.warnings, [], "%s: %s's warnings" % (broker.name, report.name))

    def assert_reauthenticated(self, broker, r, lifetime_s, seconds):
        # librdkafka renews each connection's login at 90% of its life. The producer keeps one connection for the
        # whole run, the consumer two (the partition's leader and the group coordinator), made in its first
        # seconds: each must have been renewed once a lifetime at least, less the first 3 s.
        per_connection = int((seconds - 3) / lifetime_s)
        for report, connections in ((r["producer"], 1), (r["consumer"], 2)):
            self.assertGreaterEqual(report.reauthentications(), per_connection * connections,
                                    "%s: %s's re-authentications: %s" % (broker.name, report.name,
                                                                         report.connections()))

    def test_1_scram_confluent_kafka(self):
        def scenario(broker):
            r = self.result(broker, "scram")
            self.assert_records(broker, r)
            self.assert_reauthenticated(broker, r, MAX_REAUTH_MS / 1000, SCRAM_RUN_S)
            evidence = self.RUNS[broker.name]["broker"]
            self.assertEqual(evidence["expired connections closed"], 0, broker.name)
            if broker.name == "highwater":
                self.assertEqual(evidence["failed re-authentications SCRAM-SHA-512"], 0)
            return {"records": "every one read once, in order", "errors": 0, "re-authenticated": True}
        self.on_both(scenario)

    def test_2_oauth_confluent_kafka(self):
        def scenario(broker):
            r = self.result(broker, "oauth")
            self.assert_records(broker, r)
            self.assert_reauthenticated(broker, r, TOKEN_LIFETIME_S, OAUTH_RUN_S)
            evidence = self.RUNS[broker.name]["broker"]
            self.assertEqual(evidence["expired connections closed"], 0, broker.name)
            # Each client gets a token at start and again before each expires.
            tokens = self.RUNS[broker.name]["tokens"]
            for client, issued in tokens.items():
                self.assertGreaterEqual(issued, 1 + int((OAUTH_RUN_S - 3) / TOKEN_LIFETIME_S), "%s: tokens for %s"
                                        % (broker.name, client))
            if broker.name == "highwater":
                self.assertEqual(evidence["failed re-authentications OAUTHBEARER"], 0)
                self.assertGreaterEqual(evidence["re-authentications OAUTHBEARER"],
                                        r["producer"].reauthentications() + r["consumer"].reauthentications())
            return {"records": "every one read once, in order", "errors": 0, "re-authenticated": True,
                    "new tokens": True}
        self.on_both(scenario)

    def test_3_java_console_clients(self):
        def scenario(broker):
            r = self.result(broker, "java")
            produced, consumed = r["producer"], r["consumer"]
            self.assertEqual(produced["code"], 0, "%s: console producer:\n%s" % (broker.name, produced["err"][-3000:]))
            self.assertEqual(consumed["code"], 0, "%s: console consumer:\n%s" % (broker.name, consumed["err"][-3000:]))
            self.assertEqual(java_problems(produced["err"]), [], "%s: console producer" % broker.name)
            self.assertEqual(java_problems(consumed["err"]), [], "%s: console consumer" % broker.name)
            self.assertEqual(consumed["out"].split(), r["values"], "%s: what the console consumer printed"
                             % broker.name)
            enough = int(JAVA_RUN_S / (MAX_REAUTH_MS / 1000)) - 3  # at 85-95% of the life, from the JVM's start
            for role in ("producer", "consumer"):
                self.assertGreaterEqual(java_reauthentications(r[role]["err"]), enough, "%s: console %s"
                                        % (broker.name, role))
            return {"records": "every one read once, in order", "errors": 0, "re-authenticated": True}
        self.on_both(scenario)

    def test_4_broker_counts_agree(self):
        """The broker counted the re-authentications its clients made: at least those, and no more than one more a
        connection (one begun after the client's last report)."""
        def scenario(broker):
            run_ = self.RUNS[broker.name]
            clients = clients_reauthentications(run_)
            counted = run_["broker"]["re-authentications"]
            self.assertGreaterEqual(counted, sum(clients.values()), "%s: %s" % (broker.name, clients))
            self.assertLessEqual(counted, sum(clients.values()) + 12, "%s: %s" % (broker.name, clients))
            return {"the broker counted the clients' re-authentications": True}
        self.on_both(scenario)


def clients_reauthentications(run_):
    out = {}
    for kind in ("scram", "oauth"):
        r = run_[kind]
        if not isinstance(r, Exception):
            out[kind + " producer"] = r["producer"].reauthentications()
            out[kind + " consumer"] = r["consumer"].reauthentications()
    r = run_["java"]
    if not isinstance(r, Exception):
        for role in ("producer", "consumer"):
            out["java " + role] = java_reauthentications(r[role]["err"])
    return out


def print_figures(runs):
    lines = ["\n  re-authentication under continuous clients:"]
    for name, run_ in runs.items():
        lines.append("    %s (%.0f s):" % (name, run_["seconds"]))
        for kind in ("scram", "oauth"):
            r = run_[kind]
            if isinstance(r, Exception):
                lines.append("      %s: %s" % (kind, r))
                continue
            lines.append("      %s: %d produced, %d acknowledged, %d read in %.0f s; producer %s; consumer %s"
                         % (kind, len(r["produced"]), len(r["acked"]), len(r["got"]), r["seconds"],
                            json.dumps(r["producer"].summary()), json.dumps(r["consumer"].summary())))
        r = run_["java"]
        if isinstance(r, Exception):
            lines.append("      java: %s" % r)
        else:
            lines.append("      java: %d fed, %d printed; re-authentications: producer %d, consumer %d"
                         % (len(r["values"]), len(r["consumer"]["out"].split()),
                            java_reauthentications(r["producer"]["err"]), java_reauthentications(r["consumer"]["err"])))
        lines.append("      tokens issued: %s" % json.dumps(run_["tokens"]))
        lines.append("      the clients' re-authentications: %s (%d)"
                     % (json.dumps(clients_reauthentications(run_)), sum(clients_reauthentications(run_).values())))
        lines.append("      the broker's: %s" % json.dumps(run_["broker"]))
    print("\n".join(lines), file=sys.stderr)


class RawClientsTest(ReauthTest):
    """Raw clients that do not re-authenticate, all at once on each broker (Kafka's, then highwater's); each test then
    looks at some of them."""
    SEEN = {}  # broker name -> what each raw client saw

    @classmethod
    def setUpClass(cls):
        for broker in BROKERS:
            cls.SEEN[broker.name] = raw_probes(broker)
            print("\n  %s's raw clients:" % broker.name, file=sys.stderr)
            for name, outcome in cls.SEEN[broker.name].items():
                print("    %-62s %s" % (name, json.dumps(outcome)), file=sys.stderr)

    ENDED = [["25%", "answered"], ["50%", "answered"], ["75%", "answered"], ["end + 0.5 s", "closed, unanswered"]]

    def test_a_request_after_the_end_closes_the_connection(self):
        def scenario(broker):
            seen = self.SEEN[broker.name]
            mine = {k: seen[k] for k in ("SCRAM, SaslAuthenticate v1", "OIDC token, SaslAuthenticate v1",
                                         "SCRAM, a new login after the first ended")}
            self.assertEqual(mine["SCRAM, SaslAuthenticate v1"], {"told": MAX_REAUTH_MS, "timeline": self.ENDED},
                             broker.name)
            self.assertEqual(mine["OIDC token, SaslAuthenticate v1"],
                             {"told": "the token's remaining lifetime", "timeline": self.ENDED}, broker.name)
            # A SaslHandshake after the end is still a re-authentication.
            self.assertEqual(mine["SCRAM, a new login after the first ended"],
                             {"after the first login ended": "a new login, told %d ms" % MAX_REAUTH_MS,
                              "timeline of the second": self.ENDED}, broker.name)
            return mine
        self.on_both(scenario)

    def test_clients_told_nothing_are_closed_too(self):
        """SaslAuthenticate v0 and SaslHandshake v0's raw tokens tell no lifetime; the login lasts
        connections.max.reauth.ms all the same."""
        def scenario(broker):
            seen = self.SEEN[broker.name]
            mine = {k: seen[k] for k in ("SCRAM, SaslAuthenticate v0", "SCRAM, SaslHandshake v0 and raw tokens")}
            self.assertEqual(mine["SCRAM, SaslAuthenticate v0"], {"told": "nothing (v0)", "timeline": self.ENDED},
                             broker.name)
            self.assertEqual(mine["SCRAM, SaslHandshake v0 and raw tokens"],
                             {"told": "nothing (raw tokens)", "timeline": self.ENDED}, broker.name)
            return mine
        self.on_both(scenario)

    def test_reauthentications_less_than_a_second_apart(self):
        def scenario(broker):
            seen = self.SEEN[broker.name]["SCRAM, re-authentications less than a second apart"]
            self.assertEqual(seen, {"a re-authentication at once": "told %d ms" % MAX_REAUTH_MS,
                                    "a SaslHandshake within the second": [34, []],  # ILLEGAL_SASL_STATE
                                    "then Metadata": "answered",
                                    "a re-authentication after the second": "told %d ms" % MAX_REAUTH_MS,
                                    "then Metadata again": "answered"}, broker.name)
            return seen
        self.on_both(scenario)

    def test_the_broker_counts_the_closes(self):
        def scenario(broker):
            seen = self.SEEN[broker.name]
            self.assertEqual(seen["connections closed for an expired login (the broker's count)"], 6, broker.name)
            return seen["connections closed for an expired login (the broker's count)"]
        self.on_both(scenario)

    def test_requests_queued_behind_a_fetch_that_waits_past_the_end(self):
        """Kafka processes a connection's requests one at a time: a Fetch received before the end and answered after
        it is answered; the request queued behind it, received before the end too, is processed after the end and
        closes the connection."""
        name = "SCRAM, requests queued behind a Fetch that waits past the end"
        kafka = {"Fetch waiting 1.6 s, sent 0.8 s before the end": "answered after the end",
                 "Metadata sent right behind it": "closed, unanswered"}

        def scenario(broker):
            seen = self.SEEN[broker.name][name]
            if broker.name == "kafka":
                self.assertEqual(seen, kafka)
            return seen
        self.on_both(scenario)


def main():
    global HIGHWATER, SOURCE_DIR
    args, rest = broker_pair.parse_arguments(skip_variable="HW_SKIP_HIGHWATER_REAUTH")
    HIGHWATER, SOURCE_DIR = args.highwater, args.source_dir
    broker_pair.run_tests(rest, close_all, lambda seconds: broker_pair.print_failure_logs(FAILURE_LOGS))


if __name__ == "__main__":
    main()
