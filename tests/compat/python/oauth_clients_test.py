"""SASL/OAUTHBEARER with OIDC tokens, against Apache Kafka 4.3.1 and highwater alike.

    <venv>/bin/python oauth_clients_test.py --highwater <highwater binary> --source-dir <repository>

HW_SKIP_HIGHWATER_OAUTH=1 runs Apache Kafka alone (no --highwater needed).
ctest's compat_python_oauth_tests runs both.

An identity provider for tests (tests/support/oidc_provider.py) runs over
HTTPS with a certificate from scripts/make-certs.sh. Each broker gets one
configuration (Kafka through scripts/kafka-server.sh on ports it binds
itself, highwater through --override on ports it picks): a SASL_PLAINTEXT
listener offering OAUTHBEARER, validated by
OAuthBearerValidatorCallbackHandler against the provider's JWKS endpoint,
with an expected audience and issuer, a 10 s clock skew, the principal
taken from the client_id claim (sasl.oauthbearer.sub.claim.name) and scopes
from scp (sasl.oauthbearer.scope.claim.name), the JWKS refreshed every 4 s.
KAFKA_OPTS carries -Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=<the
JWKS URL> and the test CA as the JVM's default trust store
(-Djavax.net.ssl.trustStore, -Password, -Type): the listener's JAAS options
cannot carry ssl.truststore.* here, because the broker's own login on that
listener (the unsecured login handler by default) refuses options it does
not know and the broker would not start. Each broker fetches the JWKS at
/jwks?for=<its name>, so the provider can tell their fetches apart. Each
test does the same to both, Kafka first, asserts what the clients must see
and that they saw the same on both:

- confluent-kafka (sasl.oauthbearer.method=oidc, the CA in
  https.ca.location) produces and reads in a group, with RS256 and ES256
  tokens; Kafka's Java console producer and consumer do the same with
  OAuthBearerLoginCallbackHandler and sasl.oauthbearer.token.endpoint.url
  (one trusting the CA through JAAS options, one through
  javax.net.ssl.trustStore).
- Refusals: tokens for another audience, from another issuer, and expired
  (beyond the clock skew) are refused by the broker with
  {"status":"invalid_token"}, as confluent-kafka and the Java consumer
  report it (confluent-kafka refuses an expired token itself, before any
  broker sees it); a wrong client secret is refused by the provider (401)
  before any broker is asked.
- The SASL exchange itself, spoken on a raw socket (SaslHandshake v1,
  SaslAuthenticate v1) with tokens from the provider: the answer to the
  client's first message (error code, message, bytes and the session
  lifetime: the token's remaining lifetime), to its final %x01 after a
  refusal, and whether the next request is served, for good tokens (RS256,
  ES256, a scope list, extensions, an authorization id that is the
  principal), one expired within the clock skew (taken, with a session of
  0 ms: the next request closes the connection), each refusal above, exp
  before iat, no iat, no principal claim, an empty scope, a tampered
  signature, an unknown kid, and an authorization id that is not the
  token's principal. HW_OAUTH_KEEP_WORK_DIR=1 keeps the brokers' logs.
- Key rotation: a new key with a new kid (the old one retired) signs the
  next tokens and the broker takes them (it fetches the JWKS again for an
  unknown kid; Kafka refuses the first login that named it, so a client
  retries); a key signing before the provider publishes it is refused
  until it is published, then taken after the periodic refresh; between
  logins the broker fetches the JWKS every refresh interval.
- The broker's own login: a pair started for BrokerLoginTest alone whose
  controller listener offers OAUTHBEARER too; each broker's connection to
  its controller logs in with a token it gets from the provider
  (OAuthBearerLoginCallbackHandler, sasl.oauthbearer.token.endpoint.url,
  client credentials of its own), so it starts and serves only if that
  works.
- The JWKS endpoint failing mid-run (the connection closed unanswered, as
  an endpoint that cannot be reached, then a page that is no key set): the
  broker logs that the refresh failed, keeps its last good keys and serves
  the tokens they verify; a key published meanwhile is refused until the
  endpoint is back, then taken.
- A three-node highwater cluster (ClusterTest, highwater alone) whose
  replication and controller connections offer OAUTHBEARER alone and
  re-authenticate every 5 s, each node logging in with client credentials
  of its own (tokens of 30 s): replicas in sync, a node stopped and started
  again rejoins every ISR, each node fetches new tokens before its first
  expire, and no node refuses a login.
"""

import base64
import collections
import json
import os
import re
import shutil
import socket
import struct
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

from confluent_kafka import Consumer, KafkaException, Producer

import broker_pair
from broker_pair import SASL_LISTENERS, java_env
from highwater_process import Highwater, wait_for
from idp_process import IdentityProvider
from kafka_process import run

HIGHWATER = None
SOURCE_DIR = None
WORK_DIR = None
IDP = None
BROKERS = broker_pair.Pair()  # Kafka first: what it does is what highwater must do
FAILURE_LOGS = []
SKIP_HIGHWATER = os.environ.get("HW_SKIP_HIGHWATER_OAUTH") == "1"
STARTED_AT = 0  # when the brokers were up: their JWKS fetches since then are checked

STORE_PASSWORD = "oauth-store-secret"  # the test's own throwaway CA and trust store
AUDIENCE = "highwater"
REFRESH_MS = 4000
CLOCK_SKEW_S = 10
INVALID_TOKEN = '{"status":"invalid_token"}'

# The provider's clients (test-only fixtures): id -> (secret, settings of their tokens).
CLIENTS = {
    "app": ("app-secret", {"subject": "svc-app"}),
    "es-app": ("es-app-secret", {"alg": "ES256"}),
    "wrong-aud": ("wrong-aud-secret", {"audience": "someone-else"}),
    "wrong-iss": ("wrong-iss-secret", {"issuer": "https://issuer.invalid"}),
    "expired": ("expired-secret", {"issued_ago": 300, "lifetime": 180}),    # expired 2 minutes ago
    "in-skew": ("in-skew-secret", {"issued_ago": 62, "lifetime": 60}),      # 2 s ago, within the skew
    "exp-before-iat": ("exp-before-iat-secret", {"lifetime": -1, "issued_ago": -30}),
    "no-iat": ("no-iat-secret", {"extra_claims": {"iat": None}}),
    "no-principal": ("no-principal-secret", {"extra_claims": {"client_id": None}}),
    "empty-scope": ("empty-scope-secret", {"extra_claims": {"scp": ""}}),
    "scoped": ("scoped-secret", {"extra_claims": {"scp": ["kafka.read", "kafka.write"]}}),
    # The brokers' own logins in BrokerLoginTest, one client each.
    "broker-kafka": ("broker-kafka-secret", {}),
    "broker-highwater": ("broker-highwater-secret", {}),
}
OAUTH = "org.apache.kafka.common.security.oauthbearer."


def jwks_url(broker_name):
    """The provider's JWKS URL as broker_name is given it: the query string tells the brokers' fetches apart."""
    return IDP.jwks_url + "?for=" + broker_name


def jwks_fetches(broker_name, since=0):
    return [t for t, query in IDP.stats()["jwks_fetches"] if query == "for=" + broker_name and t >= since]


def broker_settings(name):
    """What both brokers run with besides their listeners."""
    # No JAAS options: on a listener offering OAUTHBEARER the broker logs in too, by default with the unsecured
    # login handler, which fails on any option it does not know (ssl.truststore.* included). The JWKS endpoint's
    # CA comes from the JVM's javax.net.ssl.trustStore instead (broker_env).
    jaas = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required ;"
    return [
        ("sasl.enabled.mechanisms", "OAUTHBEARER"),
        ("listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config", jaas),
        ("listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class",
         "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler"),
        ("sasl.oauthbearer.jwks.endpoint.url", jwks_url(name)),
        ("sasl.oauthbearer.expected.audience", AUDIENCE),
        ("sasl.oauthbearer.expected.issuer", IDP.base),
        ("sasl.oauthbearer.jwks.endpoint.refresh.ms", str(REFRESH_MS)),
        ("sasl.oauthbearer.clock.skew.seconds", str(CLOCK_SKEW_S)),
        ("sasl.oauthbearer.sub.claim.name", "client_id"),
        ("sasl.oauthbearer.scope.claim.name", "scp"),
        ("num.partitions", "1"),
        ("offsets.topic.num.partitions", "1"),
        ("offsets.topic.replication.factor", "1"),
        ("transaction.state.log.num.partitions", "1"),
        ("transaction.state.log.replication.factor", "1"),
        ("transaction.state.log.min.isr", "1"),
        ("group.initial.rebalance.delay.ms", "0"),
    ]


def broker_env(name, own_login=False):
    urls = jwks_url(name) + ("," + IDP.token_url if own_login else "")
    return {"KAFKA_OPTS": "-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=%s %s" % (urls, jvm_trust())}


def own_login_settings(name):
    """BrokerLoginTest's: the controller listener offers OAUTHBEARER too, and the broker's own connections to it
    log in with tokens from the provider (client credentials of broker-<name>), as a client would."""
    jaas = OAUTH + "OAuthBearerLoginModule required ;"
    return [
        ("sasl.mechanism.controller.protocol", "OAUTHBEARER"),
        ("listener.name.controller.sasl.enabled.mechanisms", "OAUTHBEARER"),
        ("listener.name.controller.oauthbearer.sasl.jaas.config", jaas),
        ("listener.name.controller.oauthbearer.sasl.server.callback.handler.class",
         OAUTH + "OAuthBearerValidatorCallbackHandler"),
        ("listener.name.controller.oauthbearer.sasl.login.callback.handler.class",
         OAUTH + "OAuthBearerLoginCallbackHandler"),
        ("sasl.oauthbearer.token.endpoint.url", IDP.token_url),
        ("sasl.oauthbearer.client.credentials.client.id", "broker-" + name),
        ("sasl.oauthbearer.client.credentials.client.secret", CLIENTS["broker-" + name][0]),
        ("sasl.oauthbearer.scope", "kafka"),
    ]


def jvm_trust():
    """The JVM system properties that make the test's CA the one trusted by default."""
    return ("-Djavax.net.ssl.trustStore=%s -Djavax.net.ssl.trustStorePassword=%s -Djavax.net.ssl.trustStoreType=PKCS12"
            % (os.path.join(WORK_DIR, "certs", "truststore.p12"), STORE_PASSWORD))


class KafkaBroker(broker_pair.KafkaBroker):
    def __init__(self, directory, own_login=False):
        settings = broker_settings(self.name)
        if own_login:
            # scripts/kafka-server.sh puts CONTROLLER on PLAINTEXT; a later line of server.properties wins.
            settings += [("listener.security.protocol.map",
                          "PLAINTEXT:PLAINTEXT,CONTROLLER:SASL_PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT")]
            settings += own_login_settings(self.name)
        super().__init__(SOURCE_DIR, directory, settings, broker_env(self.name, own_login))


class HighwaterBroker(broker_pair.HighwaterBroker):
    def __init__(self, directory, own_login=False):
        def with_controller(controller):
            # The controller listener needs a port named in advance (the voter): broker_pair names one.
            return broker_settings(self.name) + own_login_settings(self.name) + [
                ("listeners", "SASL_PLAINTEXT://127.0.0.1:0,PLAINTEXT://127.0.0.1:0,CONTROLLER://" + controller),
                ("listener.security.protocol.map",
                 "PLAINTEXT:PLAINTEXT,CONTROLLER:SASL_PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT"),
                ("controller.listener.names", "CONTROLLER"), ("controller.quorum.voters", "1@" + controller),
                ("inter.broker.listener.name", "PLAINTEXT")]
        overrides = with_controller if own_login else broker_settings(self.name) + SASL_LISTENERS
        super().__init__(HIGHWATER, directory, overrides, "SASL_PLAINTEXT", broker_env(self.name, own_login))


# --- confluent-kafka ------------------------------------------------------------------------------------------

def rdkafka_conf(broker, client_id, secret=None):
    return {"bootstrap.servers": broker.bootstrap, "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanisms": "OAUTHBEARER", "sasl.oauthbearer.method": "oidc",
            "sasl.oauthbearer.client.id": client_id,
            "sasl.oauthbearer.client.secret": CLIENTS[client_id][0] if secret is None else secret,
            "sasl.oauthbearer.token.endpoint.url": IDP.token_url, "sasl.oauthbearer.scope": "kafka",
            "https.ca.location": os.path.join(WORK_DIR, "certs", "ca.crt"), "log_level": 0}


def rdkafka_told(text):
    """An error as librdkafka reports it, less what differs between brokers (address, timing)."""
    text = re.sub(r"^sasl_plaintext://[^ ]+: ", "", text)
    return re.sub(r" \(after \d+ms in state \w+\)$", "", text)


def rdkafka_login(broker, client_id, secret=None, timeout_s=15, retry=False):
    """None once a metadata request is served to client_id, else the first error it reports. With retry, errors
    before the deadline are only collected (in retry, a list) while the client tries again."""
    errors = []
    p = Producer({**rdkafka_conf(broker, client_id, secret), "error_cb": errors.append})
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and (retry is not False or not errors):
        try:
            p.list_topics(timeout=1)
            p.poll(0.2)  # reports of refused attempts before this one
            if isinstance(retry, list):
                retry.extend(rdkafka_told(e.str()) for e in errors)
            return None
        except KafkaException:
            p.poll(0.1)  # serves error_cb
    return rdkafka_told(errors[0].str()) if errors else "no answer in %ds" % timeout_s


def rdkafka_produce_consume(broker, client_id, topic, count=20):
    """Produces count records as client_id and reads them back in a group: the values read."""
    values = ["%s-%s-%d" % (client_id, topic, i) for i in range(count)]
    p = Producer({**rdkafka_conf(broker, client_id), "acks": "all", "linger.ms": 5})
    for v in values:
        p.produce(topic, v.encode())
    left = p.flush(30)
    if left:
        raise AssertionError("%s: %d records of %s not delivered" % (broker.name, left, client_id))
    c = Consumer({**rdkafka_conf(broker, client_id), "group.id": "oauth-" + topic,
                  "auto.offset.reset": "earliest"})
    try:
        c.subscribe([topic])
        got = []
        deadline = time.monotonic() + 30
        while len(got) < count and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is not None and not m.error():
                got.append(m.value().decode())
        return got
    finally:
        c.close()


# --- Kafka's Java console clients ----------------------------------------------------------------------------

def java_config(client_id, secret=None, jaas_trust=True):
    """A --command-config for client_id: OAuthBearerLoginCallbackHandler against the provider."""
    secret = CLIENTS[client_id][0] if secret is None else secret
    options = ""
    if jaas_trust:
        options = (' ssl.truststore.location="%s" ssl.truststore.password="%s" ssl.truststore.type="PKCS12"'
                   % (os.path.join(WORK_DIR, "certs", "truststore.p12"), STORE_PASSWORD))
    path = os.path.join(WORK_DIR, "java-%s-%s.properties" % (client_id, uuid.uuid4().hex[:6]))
    with open(path, "w") as f:
        f.write("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n"
                "sasl.login.callback.handler.class="
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler\n"
                "sasl.oauthbearer.token.endpoint.url=%s\n"
                "sasl.oauthbearer.client.credentials.client.id=%s\n"
                "sasl.oauthbearer.client.credentials.client.secret=%s\n"
                "sasl.oauthbearer.scope=kafka\n"
                "sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required%s;\n"
                % (IDP.token_url, client_id, secret, options))
    return path


def java_tool(main_class, args, stdin_text=None, jaas_trust=True, timeout_s=90):
    opts = "-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=" + IDP.token_url
    if not jaas_trust:
        opts += " " + jvm_trust()
    return run([os.path.join(SOURCE_DIR, "scripts/kafka-run-class.sh"), main_class] + args, timeout_s,
               java_env(KAFKA_OPTS=opts), stdin_text)


def java_produce(broker, client_id, topic, values, jaas_trust=True):
    return java_tool("org.apache.kafka.tools.ConsoleProducer",
                     ["--bootstrap-server", broker.bootstrap, "--command-config",
                      java_config(client_id, jaas_trust=jaas_trust), "--topic", topic],
                     "".join(v + "\n" for v in values), jaas_trust)


def java_consume(broker, client_id, topic, count, secret=None, jaas_trust=True, timeout_ms=30000):
    return java_tool("org.apache.kafka.tools.consumer.ConsoleConsumer",
                     ["--bootstrap-server", broker.bootstrap, "--command-config",
                      java_config(client_id, secret, jaas_trust), "--topic", topic, "--from-beginning",
                      "--max-messages", str(count), "--timeout-ms", str(timeout_ms)], None, jaas_trust)


def java_refusal(output):
    """What a Java client says of its refused login: the broker's answer, or the token endpoint's."""
    m = re.search(r"failed authentication due to: (.*) \(org\.apache\.kafka\.clients\.NetworkClient\)", output)
    if m:
        return "broker: " + m.group(1)
    m = re.search(r"The response code (\d+) and error response (\{.*?\}) was encountered reading the token "
                  r"endpoint response", output)
    if m:
        return "token endpoint: %s %s" % (m.group(1), m.group(2))
    return None


# --- the SASL exchange on a raw socket ------------------------------------------------------------------------

def kafka_string(s):
    b = s.encode()
    return struct.pack(">h", len(b)) + b


class RawSasl:
    """SaslHandshake v1 and SaslAuthenticate v1 (non-flexible), as a client speaks them."""

    def __init__(self, bootstrap):
        host, port = bootstrap.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=15)
        self.correlation = 0

    def request(self, api_key, version, body):
        self.correlation += 1
        header = struct.pack(">hhi", api_key, version, self.correlation) + kafka_string("oauth-probe")
        frame = header + body
        self.sock.sendall(struct.pack(">i", len(frame)) + frame)
        size = struct.unpack(">i", self.read(4))[0]
        data = self.read(size)
        if struct.unpack(">i", data[:4])[0] != self.correlation:
            raise AssertionError("correlation id mismatch")
        return data[4:]

    def read(self, n):
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise ConnectionError("closed after %d of %d bytes" % (len(out), n))
            out += chunk
        return out

    def handshake(self):
        data = self.request(17, 1, kafka_string("OAUTHBEARER"))
        return struct.unpack(">h", data[:2])[0]

    def authenticate(self, auth_bytes):
        """(error_code, error_message, auth_bytes, session_lifetime_ms)."""
        data = self.request(36, 1, struct.pack(">i", len(auth_bytes)) + auth_bytes)
        code, mlen = struct.unpack(">hh", data[:4])
        pos = 4
        message = None
        if mlen >= 0:
            message = data[pos:pos + mlen].decode()
            pos += mlen
        blen = struct.unpack(">i", data[pos:pos + 4])[0]
        pos += 4
        answer = data[pos:pos + blen].decode(errors="replace")
        pos += blen
        lifetime = struct.unpack(">q", data[pos:pos + 8])[0]
        return code, message, answer, lifetime

    def api_versions(self):
        """Whether an ApiVersions v0 request after the login is answered, or how the connection ended."""
        try:
            data = self.request(18, 0, b"")
            return "answered, error %d" % struct.unpack(">h", data[:2])[0]
        except (ConnectionError, socket.timeout) as e:
            return "connection ended"

    def close(self):
        self.sock.close()


def client_first(token, authzid="", extensions=()):
    """The OAUTHBEARER client's first message (RFC 7628): gs2 header, auth, extensions."""
    kv = "".join("%s=%s\x01" % e for e in extensions)
    return ("n,%s,\x01auth=Bearer %s\x01%s\x01" % ("a=" + authzid if authzid else "", token, kv)).encode()


def sasl_exchange(broker, token, authzid="", extensions=()):
    """What the broker answers token: the first SaslAuthenticate's (code, message, bytes, lifetime), and on a
    refusal the answer to the client's final %x01 (or how the connection ended)."""
    raw = RawSasl(broker.bootstrap)
    try:
        if raw.handshake() != 0:
            raise AssertionError("%s: SaslHandshake OAUTHBEARER refused" % broker.name)
        first = raw.authenticate(client_first(token, authzid, extensions))
        outcome = {"first": list(first[:3]), "session_lifetime": session_lifetime(token, first[3])}
        if first[0] == 0 and not first[2]:
            outcome["then"] = raw.api_versions()
        if first[0] == 0 and first[2]:
            try:
                outcome["after_ctrl_a"] = list(raw.authenticate(b"\x01")[:3])
            except (ConnectionError, socket.timeout) as e:
                outcome["after_ctrl_a"] = "connection ended: %s" % e
        return outcome
    except ConnectionError as e:
        return {"first": "connection ended: %s" % e}
    finally:
        raw.close()


def claims_of(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def session_lifetime(token, lifetime_ms):
    """A SaslAuthenticate response's session_lifetime_ms in words that do not change from run to run."""
    if lifetime_ms == 0:
        return "0"
    left_ms = claims_of(token).get("exp", 0) * 1000 - time.time() * 1000
    if abs(lifetime_ms - left_ms) < 5000:
        return "the token's remaining lifetime"
    return "%d ms (the token has %d ms left)" % (lifetime_ms, left_ms)


def tampered(token):
    """token with one character of its payload changed, its signature kept."""
    head, _, sig = token.split(".")
    claims = claims_of(token)
    claims["client_id"] = "admin"
    payload = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    return "%s.%s.%s" % (head, payload, sig)


# --- the run ---------------------------------------------------------------------------------------------------

def make_certs(directory):
    code, out, err = run([os.path.join(SOURCE_DIR, "scripts/make-certs.sh"), directory, "--password",
                          STORE_PASSWORD, "--hosts", "localhost", "--clients", ""], 60)
    if code != 0:
        raise AssertionError("make-certs.sh failed:\n" + out + err)


def setUpModule():
    global WORK_DIR, IDP, STARTED_AT
    WORK_DIR = tempfile.mkdtemp(prefix="hw-py-oauth-")
    try:
        certs = os.path.join(WORK_DIR, "certs")
        make_certs(certs)
        IDP = IdentityProvider(SOURCE_DIR, WORK_DIR, certs, STORE_PASSWORD, AUDIENCE, CLIENTS)
        BROKERS.start(WORK_DIR, KafkaBroker, None if SKIP_HIGHWATER else HighwaterBroker)
        STARTED_AT = time.time()
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
        if os.environ.get("HW_OAUTH_KEEP_WORK_DIR") == "1":
            print("work directory kept: " + WORK_DIR, file=sys.stderr)
        else:
            shutil.rmtree(WORK_DIR, ignore_errors=True)
        WORK_DIR = None


class OAuthTest(broker_pair.PairTest):
    brokers, failure_logs = BROKERS, FAILURE_LOGS

    def on_both(self, scenario, *args, brokers=None):
        seen = super().on_both(scenario, *args, brokers=brokers)
        if SKIP_HIGHWATER:
            print("\n  (highwater skipped: HW_SKIP_HIGHWATER_OAUTH=1)", file=sys.stderr)
        return seen


class ProduceConsumeTest(OAuthTest):
    def test_confluent_kafka(self):
        def scenario(broker):
            seen = {}
            for client_id in ("app", "es-app"):  # RS256 and ES256 tokens
                topic = "oauth-py-" + client_id
                got = rdkafka_produce_consume(broker, client_id, topic)
                self.assertEqual(got, ["%s-%s-%d" % (client_id, topic, i) for i in range(20)],
                                 "%s: what %s read back" % (broker.name, client_id))
                seen[client_id] = len(got)
            return seen
        self.on_both(scenario)

    def test_java_console_clients(self):
        def scenario(broker):
            seen = {}
            for jaas_trust in (True, False):  # the CA through JAAS options, or javax.net.ssl.trustStore
                topic = "oauth-java-%s" % ("jaas" if jaas_trust else "jvm")
                values = ["%s-%d" % (topic, i) for i in range(10)]
                code, out, err = java_produce(broker, "app", topic, values, jaas_trust)
                self.assertEqual(code, 0, "%s: console producer:\n%s%s" % (broker.name, out, err))
                self.assertNotIn(" ERROR ", err, "%s: console producer" % broker.name)
                code, out, err = java_consume(broker, "app", topic, len(values), jaas_trust=jaas_trust)
                self.assertEqual(code, 0, "%s: console consumer:\n%s%s" % (broker.name, out, err))
                self.assertEqual(out.split(), values, "%s: console consumer:\n%s" % (broker.name, err))
                seen[topic] = out.split()
            return seen
        self.on_both(scenario)


class RefusalTest(OAuthTest):
    def test_confluent_kafka(self):
        def scenario(broker):
            seen = {c: rdkafka_login(broker, c) for c in ("wrong-aud", "wrong-iss", "expired")}
            seen["wrong secret"] = rdkafka_login(broker, "app", secret="not-the-secret")
            want = {"wrong-aud": "SASL authentication error: " + INVALID_TOKEN,
                    "wrong-iss": "SASL authentication error: " + INVALID_TOKEN,
                    "wrong secret": 'Failed to acquire SASL OAUTHBEARER token: {"error": "invalid_client", '
                                    '"error_description": "Client authentication failed"}'}
            for client, told in want.items():
                self.assertEqual(seen[client], told, "%s: %s" % (broker.name, client))
            # librdkafka refuses an expired token itself, before it connects.
            self.assertRegex(seen["expired"], r"^Failed to acquire SASL OAUTHBEARER token: Must supply an "
                                              r"unexpired token: now=\d+ms, exp=\d+ms$")
            seen["expired"] = re.sub(r"\d+", "N", seen["expired"])
            seen["a good one after them"] = rdkafka_login(broker, "app")
            self.assertIsNone(seen["a good one after them"], broker.name)
            return seen
        self.on_both(scenario)

    def test_java_console_consumer(self):
        def scenario(broker):
            cases = [("wrong-aud", None), ("wrong-iss", None), ("expired", None), ("app", "not-the-secret")]
            with ThreadPoolExecutor(max_workers=2) as pool:
                runs = list(pool.map(lambda c: java_consume(broker, c[0], "oauth-refused", 1, c[1],
                                                            timeout_ms=10000), cases))
            seen = {}
            for (client, secret), (code, out, err) in zip(cases, runs):
                name = "wrong secret" if secret else client
                seen[name] = java_refusal(out + err)
                self.assertIsNotNone(seen[name], "%s: %s:\n%s%s" % (broker.name, name, out, err))
            for name in ("wrong-aud", "wrong-iss", "expired"):
                self.assertEqual(seen[name], "broker: " + INVALID_TOKEN, "%s: %s" % (broker.name, name))
            self.assertEqual(seen["wrong secret"],
                             'token endpoint: 401 {"invalid_client" - "Client authentication failed"}')
            return seen
        self.on_both(scenario)

    def test_sasl_exchange(self):
        """The broker's own answers, byte for byte, on a raw socket."""
        good = [("RS256", "app"), ("ES256", "es-app"), ("within the clock skew", "in-skew"), ("a scope list", "scoped")]
        refused = [("wrong audience", "wrong-aud"), ("wrong issuer", "wrong-iss"), ("expired", "expired"),
                   ("exp before iat", "exp-before-iat"),
                   ("no iat", "no-iat"), ("no principal claim", "no-principal"), ("empty scope", "empty-scope")]
        tokens = {name: IDP.token(client) for name, client in good + refused}
        tokens["tampered signature"] = tampered(IDP.token("app"))
        unknown = IDP.post("/admin/rotate", {"alg": "ES256", "publish": False})["kid"]
        tokens["unknown kid"] = IDP.token("es-app")
        app = IDP.token("app")

        def scenario(broker):
            seen = {name: sasl_exchange(broker, tokens[name]) for name in tokens}
            for name, _ in good:
                self.assertEqual(seen[name]["first"], [0, "", ""], "%s: %s" % (broker.name, name))
                if name != "within the clock skew":
                    self.assertEqual(seen[name]["session_lifetime"], "the token's remaining lifetime", name)
                    self.assertEqual(seen[name]["then"], "answered, error 0", "%s: %s" % (broker.name, name))
            # Accepted, but the session it opens has already ended: the next request closes the connection.
            self.assertEqual(seen["within the clock skew"]["session_lifetime"], "0", broker.name)
            self.assertEqual(seen["within the clock skew"]["then"], "connection ended", broker.name)
            for name in [n for n, _ in refused] + ["tampered signature", "unknown kid"]:
                self.assertEqual(seen[name]["first"], [0, "", INVALID_TOKEN], "%s: %s" % (broker.name, name))
                self.assertEqual(seen[name]["after_ctrl_a"], [58, INVALID_TOKEN, ""], "%s: %s"
                                 % (broker.name, name))
            seen["authzid = principal"] = sasl_exchange(broker, app, authzid="app")
            self.assertEqual(seen["authzid = principal"]["first"], [0, "", ""], broker.name)
            seen["authzid = sub, not the principal claim"] = sasl_exchange(broker, app, authzid="svc-app")
            self.assertEqual(seen["authzid = sub, not the principal claim"]["first"],
                             [58, "Authentication failed: Client requested an authorization id (svc-app) that is "
                                  "different from the token's principal name (app)", ""], broker.name)
            seen["extensions"] = sasl_exchange(broker, app, extensions=[("logicalCluster", "lkc-1"),
                                                                        ("traceId", "abc")])
            self.assertEqual(seen["extensions"]["first"], [0, "", ""], broker.name)
            print("\n  %s's answers:" % broker.name, file=sys.stderr)
            for name, outcome in seen.items():
                print("    %-40s %s" % (name, json.dumps(outcome)), file=sys.stderr)
            return seen
        try:
            self.on_both(scenario)
        finally:
            IDP.post("/admin/publish", {"kid": unknown})  # es-app's tokens name it from now on


class RotationTest(OAuthTest):
    def test_rotation(self):
        def scenario(broker):
            seen = {}
            # A new RS256 key with a new kid, the old one retired: the next tokens name a kid the broker has not
            # seen. Kafka refuses the login that named it and fetches the JWKS at once; librdkafka retries.
            rotated_at = time.time()
            new_kid = IDP.post("/admin/rotate", {"alg": "RS256", "retire": True})["kid"]
            refusals = []
            seen["new kid"] = rdkafka_login(broker, "app", timeout_s=20, retry=refusals)
            self.assertIsNone(seen["new kid"], "%s: a token signed with %s" % (broker.name, new_kid))
            print("\n  %s: the first token naming the new kid: %s" % (broker.name, "refused (%s), then taken"
                  % refusals[0] if refusals else "taken at once"), file=sys.stderr)
            self.assertTrue(jwks_fetches(broker.name, rotated_at), "%s: no JWKS fetch after the rotation"
                            % broker.name)
            got = rdkafka_produce_consume(broker, "app", "oauth-rotated", 5)
            self.assertEqual(len(got), 5, broker.name)
            # A key that signs before the provider publishes it: refused, however often the client asks...
            held = IDP.post("/admin/rotate", {"alg": "RS256", "retire": True, "publish": False})["kid"]
            token = IDP.token("app")
            seen["unpublished kid"] = sasl_exchange(broker, token)["first"]
            self.assertEqual(seen["unpublished kid"], [0, "", INVALID_TOKEN], broker.name)
            seen["unpublished kid, asked again"] = sasl_exchange(broker, token)["first"]
            self.assertEqual(seen["unpublished kid, asked again"], [0, "", INVALID_TOKEN], broker.name)
            # ...then taken once it is published, by the next periodic refresh at the latest.
            IDP.post("/admin/publish", {"kid": held})
            published_at = time.monotonic()
            wait_for(lambda: sasl_exchange(broker, token)["first"] == [0, "", ""],
                     REFRESH_MS / 1000 * 2 + 5, "%s to take kid %s once published" % (broker.name, held))
            taken_after = time.monotonic() - published_at
            seen["published kid taken within two refresh intervals"] = taken_after < 2 * REFRESH_MS / 1000 + 1
            print("\n  %s: %s taken %.1f s after it was published (refresh every %.0f s)"
                  % (broker.name, held, taken_after, REFRESH_MS / 1000), file=sys.stderr)
            seen["then a client"] = rdkafka_login(broker, "app")
            self.assertIsNone(seen["then a client"], broker.name)
            return seen
        self.on_both(scenario)

    def test_periodic_refresh(self):
        """The broker fetches the JWKS every sasl.oauthbearer.jwks.endpoint.refresh.ms, logins or not (and at
        once for an unknown kid, in between)."""
        for broker in BROKERS:
            with self.subTest(broker=broker.name):
                fetches = jwks_fetches(broker.name, STARTED_AT)
                fetches.append(time.time())  # the time since the last one counts too
                gaps = [b - a for a, b in zip(fetches, fetches[1:])]
                self.assertGreaterEqual(len(gaps), 3, "%s: JWKS fetches %s" % (broker.name, fetches))
                self.assertLessEqual(max(gaps), REFRESH_MS / 1000 * 1.5 + 1, "%s: the gaps between JWKS fetches %s"
                                     % (broker.name, [round(g, 1) for g in gaps]))


REFRESH_ERROR = re.compile(r"OAuth JWKS refresh of \S+ encountered an error")


def refresh_errors(broker):
    """How many failed JWKS refreshes broker has logged (Kafka's words and highwater's begin alike)."""
    try:
        with open(broker.log_path(), errors="replace") as f:
            return len(REFRESH_ERROR.findall(f.read()))
    except OSError:
        return 0


class JwksOutageTest(OAuthTest):
    def test_outage(self):
        """The JWKS endpoint fails mid-run, closing the connection unanswered (as one that cannot be reached) or
        answering a page that is no key set: the broker says so, keeps its last good keys and serves the tokens
        they verify; a key published meanwhile is taken once the endpoint is back."""
        def scenario(broker):
            seen = {}
            # The key signing now (another broker's run may have rotated it) is known before the endpoint fails.
            wait_for(lambda: sasl_exchange(broker, IDP.token("app"))["first"] == [0, "", ""],
                     REFRESH_MS / 1000 * 2 + 5, "%s to know the key signing now" % broker.name)
            try:
                for mode in ("hangup", "garbage"):
                    errors_before = refresh_errors(broker)
                    IDP.post("/admin/jwks_failure", {"for": broker.name, "mode": mode})
                    wait_for(lambda: refresh_errors(broker) > errors_before, 30,
                             "%s to log a failed JWKS refresh (%s)" % (broker.name, mode))
                    seen[mode + ": the failure logged"] = True
                    seen[mode + ": a token the last good keys verify"] = sasl_exchange(broker, IDP.token("app"))["first"]
                    self.assertEqual(seen[mode + ": a token the last good keys verify"], [0, "", ""],
                                     "%s (%s)" % (broker.name, mode))
                    seen[mode + ": a client"] = rdkafka_login(broker, "app")
                    self.assertIsNone(seen[mode + ": a client"], "%s (%s)" % (broker.name, mode))
                # A key that signs from now on while the endpoint is down cannot be learnt: refused until it is up.
                new_kid = IDP.post("/admin/rotate", {"alg": "RS256", "retire": True})["kid"]
                token = IDP.token("app")
                seen["a new kid while down"] = sasl_exchange(broker, token)["first"]
                self.assertEqual(seen["a new kid while down"], [0, "", INVALID_TOKEN], broker.name)
                IDP.post("/admin/jwks_failure", {"for": broker.name, "mode": "none"})
                back_at = time.monotonic()
                wait_for(lambda: sasl_exchange(broker, token)["first"] == [0, "", ""], REFRESH_MS / 1000 * 2 + 15,
                         "%s to take kid %s once its JWKS endpoint is back" % (broker.name, new_kid))
                print("\n  %s: %s taken %.1f s after the endpoint came back (refresh every %.0f s)"
                      % (broker.name, new_kid, time.monotonic() - back_at, REFRESH_MS / 1000), file=sys.stderr)
                seen["the new kid once the endpoint is back"] = "taken"
                seen["then a client"] = rdkafka_login(broker, "app")
                self.assertIsNone(seen["then a client"], broker.name)
            finally:
                IDP.post("/admin/jwks_failure", {"for": broker.name, "mode": "none"})
            return seen
        self.on_both(scenario)


class Endpoint:
    """A bootstrap address, where the helpers above take a broker."""

    def __init__(self, name, bootstrap):
        self.name, self.bootstrap = name, bootstrap


class HighwaterCluster:
    """Three highwater nodes, each a broker and a controller, whose every connection to one another logs in with
    OAUTHBEARER: the INTERNAL listener (replication, inter.broker.listener.name) and CONTROLLER (registration,
    heartbeats, the quorum) offer OAUTHBEARER alone, validate against the provider's JWKS and re-authenticate
    every 5 s; each node logs in with client credentials of its own (broker-node-N), whose tokens last 30 s, so
    it fetches new ones while the test runs. Clients use SASL_PLAINTEXT as in the other tests."""

    NODES = 3
    TOKEN_LIFETIME_S = 30

    def __init__(self, directory):
        self.dir = directory
        self.names = ["node-%d" % (i + 1) for i in range(self.NODES)]
        for name in self.names:
            CLIENTS["broker-" + name] = ("%s-secret" % name, {"lifetime": self.TOKEN_LIFETIME_S})
            IDP.post("/admin/clients", {"id": "broker-" + name, "secret": CLIENTS["broker-" + name][0],
                                        "lifetime": self.TOKEN_LIFETIME_S})
        self.nodes = [None] * self.NODES
        self.overrides = []
        # One cluster id for all three, as an operator sets it (each would make its own otherwise).
        self.env = {"CLUSTER_ID": base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")}
        errors = []
        # The voters' ports are named in advance: ones the kernel called free, again on others when a node could
        # not start (its port taken meanwhile).
        for attempt in range(3):
            holders = [socket.socket() for _ in range(self.NODES)]
            for h in holders:
                h.bind(("127.0.0.1", 0))
            ports = [h.getsockname()[1] for h in holders]
            for h in holders:
                h.close()
            voters = ",".join("%d@127.0.0.1:%d" % (i + 1, p) for i, p in enumerate(ports))
            self.overrides = [self.node_overrides(i, voters, ports[i]) for i in range(self.NODES)]
            self.attempt_dir = "%s-%d" % (directory, attempt)
            with ThreadPoolExecutor(max_workers=self.NODES) as pool:
                starts = [pool.submit(self.start_node, i) for i in range(self.NODES)]
            failures = [str(f.exception()) for f in starts if f.exception() is not None]
            if not failures:
                return
            errors.extend(failures)
            self.stop()
        raise AssertionError("the cluster did not start:\n" + "\n".join(errors))

    def node_overrides(self, i, voters, controller_port):
        name = self.names[i]
        replace = {"offsets.topic.replication.factor": "3", "transaction.state.log.replication.factor": "3",
                   "transaction.state.log.min.isr": "2", "num.partitions": "3"}
        settings = [(k, replace.get(k, v)) for k, v in broker_settings(name)]
        settings += [
            ("node.id", str(i + 1)), ("process.roles", "broker,controller"),
            ("controller.listener.names", "CONTROLLER"), ("controller.quorum.voters", voters),
            ("listeners", "SASL_PLAINTEXT://127.0.0.1:0,INTERNAL://127.0.0.1:0,CONTROLLER://127.0.0.1:%d"
             % controller_port),
            ("listener.security.protocol.map",
             "SASL_PLAINTEXT:SASL_PLAINTEXT,INTERNAL:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT"),
            ("inter.broker.listener.name", "INTERNAL"),
            ("sasl.mechanism.inter.broker.protocol", "OAUTHBEARER"),
            ("sasl.mechanism.controller.protocol", "OAUTHBEARER"),
            ("sasl.oauthbearer.token.endpoint.url", IDP.token_url),
            ("sasl.oauthbearer.client.credentials.client.id", "broker-" + name),
            ("sasl.oauthbearer.client.credentials.client.secret", CLIENTS["broker-" + name][0]),
            ("sasl.oauthbearer.scope", "kafka"),
            ("default.replication.factor", "3"), ("min.insync.replicas", "2"),
            ("replica.lag.time.max.ms", "3000"), ("broker.session.timeout.ms", "4000"),
            ("broker.heartbeat.interval.ms", "500")]
        for listener in ("internal", "controller"):
            prefix = "listener.name.%s." % listener
            settings += [
                (prefix + "sasl.enabled.mechanisms", "OAUTHBEARER"),
                (prefix + "oauthbearer.sasl.jaas.config", OAUTH + "OAuthBearerLoginModule required ;"),
                (prefix + "oauthbearer.sasl.server.callback.handler.class", OAUTH + "OAuthBearerValidatorCallbackHandler"),
                (prefix + "oauthbearer.sasl.login.callback.handler.class", OAUTH + "OAuthBearerLoginCallbackHandler"),
                (prefix + "connections.max.reauth.ms", "5000")]
        return settings

    def start_node(self, i):
        directory = os.path.join(self.attempt_dir, self.names[i])
        os.makedirs(directory, exist_ok=True)
        self.nodes[i] = Highwater(HIGHWATER, directory, self.overrides[i], start_timeout_s=60,
                                  env=dict(broker_env(self.names[i], own_login=True), **self.env))

    def endpoint(self, i):
        return Endpoint(self.names[i], self.nodes[i].listeners["SASL_PLAINTEXT"])

    def stop_node(self, i):
        if self.nodes[i] is not None:
            self.nodes[i].stop()

    def stop(self):
        for i in range(self.NODES):
            self.stop_node(i)

    def logs(self):
        for i, node in enumerate(self.nodes):
            if node is not None:
                yield self.names[i], node.log()


class ClusterTest(OAuthTest):
    def test_brokers_authenticate_to_each_other_with_tokens(self):
        if SKIP_HIGHWATER:
            self.skipTest("highwater skipped: HW_SKIP_HIGHWATER_OAUTH=1")
        cluster = HighwaterCluster(os.path.join(WORK_DIR, "cluster"))
        try:
            self.check_cluster(cluster)
        except BaseException:
            for name, log in cluster.logs():
                FAILURE_LOGS.append((self.id(), name, "".join(collections.deque(log.splitlines(True), 80))))
            raise
        finally:
            cluster.stop()

    def check_cluster(self, cluster):
        from confluent_kafka.admin import AdminClient, NewTopic
        first = cluster.endpoint(0)
        admin = AdminClient(rdkafka_conf(first, "app"))
        topic = "oauth-cluster"
        admin.create_topics([NewTopic(topic, num_partitions=3, replication_factor=3,
                                      config={"min.insync.replicas": "2"})])[topic].result(30)

        def isr_sizes():
            try:
                partitions = admin.list_topics(topic, timeout=5).topics[topic].partitions
                return sorted(len(p.isrs) for p in partitions.values())
            except KafkaException:
                return []
        # Every follower fetches from its leaders over INTERNAL: in sync only if those logins work.
        wait_for(lambda: isr_sizes() == [3, 3, 3], 60, "every replica in sync")
        self.assertEqual(len(rdkafka_produce_consume(first, "app", topic, 30)), 30)

        # Node 3 goes and comes back: it logs in to the controllers and the leaders again, and catches up.
        cluster.stop_node(2)
        wait_for(lambda: isr_sizes() == [2, 2, 2], 60, "node 3 out of the ISRs")
        p = Producer({**rdkafka_conf(first, "app"), "acks": "all"})
        for n in range(30):
            p.produce(topic, ("while node 3 is down %d" % n).encode())
        self.assertEqual(p.flush(30), 0, "records produced while node 3 is down")
        cluster.start_node(2)
        wait_for(lambda: isr_sizes() == [3, 3, 3], 60, "node 3 back in every ISR")

        # Each node logs in with tokens of its own (one per listener it connects through), and fetches new ones
        # before those expire (30 s).
        def issued():
            by_client = IDP.stats()["tokens_by_client"]
            return {name: by_client.get("broker-" + name, 0) for name in cluster.names}
        first = issued()
        self.assertTrue(all(first.values()), "tokens each node fetched: %s" % first)
        wait_for(lambda: all(n > first[name] for name, n in issued().items()), HighwaterCluster.TOKEN_LIFETIME_S + 15,
                 "every node to fetch new tokens (%s so far)" % first)
        print("\n  tokens each node fetched: %s, then %s" % (first, issued()), file=sys.stderr)
        self.assertEqual(isr_sizes(), [3, 3, 3], "the ISRs once the nodes' first tokens expired")
        self.assertEqual(len(rdkafka_produce_consume(cluster.endpoint(2), "app", topic + "-after", 10)), 10)
        for name, log in cluster.logs():
            refused = [line for line in log.splitlines()
                       if "token refused" in line or "uthentication failed" in line]
            self.assertEqual(refused, [], "%s refused a login" % name)


class BrokerLoginTest(OAuthTest):
    """A pair started for this test alone whose controller listener offers OAUTHBEARER too: each broker's own
    connection to its controller (registration, heartbeats) logs in with a token it gets from the provider through
    OAuthBearerLoginCallbackHandler and sasl.oauthbearer.token.endpoint.url, so it starts and serves only if that
    login works."""

    def test_broker_login(self):
        pair = []
        failed = False
        try:
            own_highwater = None if SKIP_HIGHWATER else lambda d: HighwaterBroker(d, True)
            pair, failures = broker_pair.start_each(WORK_DIR, lambda d: KafkaBroker(d, True), own_highwater,
                                                    suffix="-own-login")
            self.assertFalse(failures, "\n".join(failures))

            def scenario(broker):
                seen = {}
                issued = IDP.stats()["tokens_by_client"].get("broker-" + broker.name, 0)
                seen["the broker asked the provider for tokens"] = issued >= 1
                self.assertTrue(seen["the broker asked the provider for tokens"], broker.name)
                got = rdkafka_produce_consume(broker, "app", "oauth-own-login", 5)
                seen["records read back"] = len(got)
                self.assertEqual(len(got), 5, broker.name)
                return seen
            self.on_both(scenario, brokers=pair)
        except BaseException:
            failed = True  # not counted among the problems until the test has ended
            raise
        finally:
            failed = failed or self.problems() > self.problems_before
            for broker in pair:
                if failed:
                    FAILURE_LOGS.append((self.id() + " (own login)", broker.name, broker.log_tail()))
                broker.stop()


def main():
    global HIGHWATER, SOURCE_DIR
    args, rest = broker_pair.parse_arguments(skip_variable="HW_SKIP_HIGHWATER_OAUTH")
    HIGHWATER, SOURCE_DIR = args.highwater, args.source_dir
    broker_pair.run_tests(rest, close_all, lambda seconds: broker_pair.print_failure_logs(FAILURE_LOGS))


if __name__ == "__main__":
    main()
