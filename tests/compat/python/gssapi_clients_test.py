"""SASL/GSSAPI (Kerberos), against Apache Kafka 4.3.1 and highwater alike.

    <venv>/bin/python gssapi_clients_test.py --highwater <binary> --probe <gssapi_probe> --source-dir <repository>

HW_SKIP_HIGHWATER_GSSAPI=1 runs Apache Kafka alone (no --highwater needed).
ctest's compat_python_gssapi_tests runs both.

A KDC made for the run (tests/support/kdc.py: MIT krb5kdc on a free
127.0.0.1 port, realm EXAMPLE.COM, keytabs for kafka/localhost, alice, bob,
carol, dave and other/localhost) serves both brokers, configured alike: a
SASL_PLAINTEXT listener offering GSSAPI only, advertised as localhost (the
clients' service principal is kafka/<the host they connect to>), the
controller listener on SASL_PLAINTEXT with GSSAPI too, so that the broker's
own connection to its controller (registration, heartbeats) logs in with the
broker's keytab; the Krb5LoginModule JAAS entry (useKeyTab, storeKey,
keyTab, principal kafka/localhost@EXAMPLE.COM) per listener;
sasl.kerberos.service.name=kafka; sasl.kerberos.principal.to.local.rules
mapping bob@EXAMPLE.COM to robert, two-part names (the brokers' own) to
their first part, alice and carol to themselves, and no one else (no
DEFAULT); the StandardAuthorizer with
super users kafka (the broker's own short name), ANONYMOUS, alice and
robert, so that a client is served only under the short name the rules
give it. Kafka reads the KDC from -Djava.security.krb5.conf in KAFKA_OPTS,
highwater from KRB5_CONFIG. Each test does the same to both, Kafka first,
asserts what the clients must see and that they saw the same on both:

- kcat (Debian's librdkafka 2.0.2, GSSAPI through Cyrus SASL, its
  sasl.kerberos.kinit.cmd run against the KDC) as alice produces records
  and reads exactly them back;
- Kafka's Java console producer and consumer as bob (Krb5LoginModule with
  his keytab) do the same: bob is served as User:robert;
- carol (User:carol, not a super user) is refused
  TOPIC_AUTHORIZATION_FAILED;
- the exchange spoken on a raw socket (gssapi_probe, the broker's own
  client side): each SaslAuthenticate answer (error, message, size of the
  bytes, session lifetime) and whether Metadata is served after it, for a
  good login, an authorization id other than the principal, a first token
  that is no GSS-API token, a ticket for another service (other/localhost),
  and dave, whom no rule maps (answered as a success, then the next request
  closes the connection, as Kafka fails to build his principal); kcat
  asking for that service is refused too;
- a highwater whose keytab is missing, or holds no key for its principal,
  refuses to start and says which listener and file (Kafka's own start-up
  refusal, which names neither, is in the README).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import re
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../support"))

import broker_pair  # noqa: E402
import kdc as kdc_support  # noqa: E402
from kafka_process import run  # noqa: E402

HIGHWATER = None
PROBE = None
SOURCE_DIR = None
WORK_DIR = None
KDC = None
BROKERS = broker_pair.Pair()  # Kafka first: what it does is what highwater must do
FAILURE_LOGS = []
SKIP_HIGHWATER = os.environ.get("HW_SKIP_HIGHWATER_GSSAPI") == "1"
REALM = "EXAMPLE.COM"
SERVICE = "kafka/localhost@" + REALM
PRINCIPALS = ["kafka/localhost", "alice", "bob", "carol", "dave", "other/localhost"]
# bob is robert; a two-part name (the brokers' own) is its first part; alice and carol are themselves; no rule maps
# dave.
RULES = "RULE:[1:$1@$0](bob@EXAMPLE\\.COM)s/.*/robert/,RULE:[2:$1],RULE:[1:$1](alice|carol)"
KCAT = shutil.which("kcat")


def jaas(keytab, principal):
    return ('com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab="%s" '
            'principal="%s";' % (keytab, principal))


def broker_settings(client_keytab=None):
    """client_keytab: the SASL_PLAINTEXT listener's, when not the broker's (the controller's stays good)."""
    keytab = KDC.keytab("kafka/localhost")
    return [
        ("sasl.enabled.mechanisms", "GSSAPI"),
        ("sasl.mechanism.controller.protocol", "GSSAPI"),
        ("listener.name.sasl_plaintext.gssapi.sasl.jaas.config", jaas(client_keytab or keytab, SERVICE)),
        ("listener.name.controller.gssapi.sasl.jaas.config", jaas(keytab, SERVICE)),
        ("sasl.kerberos.service.name", "kafka"),
        ("sasl.kerberos.principal.to.local.rules", RULES),
        ("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"),
        ("super.users", "User:kafka;User:ANONYMOUS;User:alice;User:robert"),
        ("num.partitions", "1"),
        ("offsets.topic.num.partitions", "1"),
        ("offsets.topic.replication.factor", "1"),
        ("transaction.state.log.num.partitions", "1"),
        ("transaction.state.log.replication.factor", "1"),
        ("transaction.state.log.min.isr", "1"),
        ("group.initial.rebalance.delay.ms", "0"),
    ]


def kerberos_env(cache_name):
    """What a process needs to reach the KDC, with a ticket cache of its own."""
    return {"KRB5_CONFIG": KDC.krb5_conf, "KRB5CCNAME": "FILE:" + os.path.join(KDC.dir, "cc-" + cache_name),
            "KRB5RCACHEDIR": KDC.dir,
            "KAFKA_OPTS": "-Djava.security.krb5.conf=%s -Dsun.security.krb5.disableReferrals=true" % KDC.krb5_conf}


class KafkaBroker(broker_pair.KafkaBroker):
    def __init__(self, directory):
        def settings(port):
            # Later lines of server.properties win: the controller listener on SASL_PLAINTEXT, the client listener
            # (port + 3) advertised as localhost (the clients' service principal names that host).
            return broker_settings() + [
                ("listener.security.protocol.map",
                 "PLAINTEXT:PLAINTEXT,CONTROLLER:SASL_PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT"),
                ("advertised.listeners", "PLAINTEXT://127.0.0.1:%d,SASL_PLAINTEXT://localhost:%d" % (port, port + 3))]
        super().__init__(SOURCE_DIR, directory, settings, kerberos_env("kafka-broker"))
        self.bootstrap = self.bootstrap.replace("127.0.0.1:", "localhost:")


def highwater_overrides(controller, keytab=None):
    return broker_settings(keytab) + [
        ("listeners", "SASL_PLAINTEXT://localhost:0,PLAINTEXT://127.0.0.1:0,CONTROLLER://" + controller),
        ("listener.security.protocol.map",
         "PLAINTEXT:PLAINTEXT,CONTROLLER:SASL_PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT"),
        ("controller.listener.names", "CONTROLLER"), ("controller.quorum.voters", "1@" + controller),
        ("inter.broker.listener.name", "PLAINTEXT")]


class HighwaterBroker(broker_pair.HighwaterBroker):
    def __init__(self, directory):
        # The voter's address is named before the broker binds it: a localhost port the kernel called free.
        super().__init__(HIGHWATER, directory, highwater_overrides, "SASL_PLAINTEXT", kerberos_env("highwater-broker"),
                         controller_host="localhost")


# --- clients --------------------------------------------------------------------------------------------------

def kcat(broker, user, args, stdin_text="", service="kafka", timeout_s=30):
    options = ["-b", broker.bootstrap, "-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=GSSAPI",
               "-X", "sasl.kerberos.service.name=" + service, "-X", "sasl.kerberos.keytab=" + KDC.keytab(user),
               "-X", "sasl.kerberos.principal=%s@%s" % (user, REALM), "-X", "topic.request.required.acks=all"]
    env = dict(os.environ, **kerberos_env("kcat-" + user + "-" + service))
    return run([KCAT] + options + args, timeout_s, env, stdin_text)


def kcat_errors(err):
    return [line for line in err.splitlines() if line.startswith("% ERROR: ")]


def java_tool(main_class, args, config, stdin_text=None, timeout_s=90):
    env = dict(os.environ, **kerberos_env("java"))
    env.setdefault("KAFKA_JVM_PERFORMANCE_OPTS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.awt.headless=true")
    env.setdefault("KAFKA_HEAP_OPTS", "-Xmx256m")
    path = os.path.join(WORK_DIR, "client-%s.properties" % uuid.uuid4().hex[:8])
    with open(path, "w") as f:
        for key, value in config.items():
            f.write("%s=%s\n" % (key, value))
    return run([os.path.join(SOURCE_DIR, "scripts/kafka-run-class.sh"), main_class] + args + ["--command-config", path],
               timeout_s, env, stdin_text)


def java_config(user):
    return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "GSSAPI", "sasl.kerberos.service.name": "kafka",
            "sasl.jaas.config": jaas(KDC.keytab(user), "%s@%s" % (user, REALM))}


def probe(broker, user, *extra):
    code, out, err = run([PROBE, "--connect", broker.bootstrap, "--keytab", KDC.keytab(user), "--principal",
                          "%s@%s" % (user, REALM)] + list(extra), 60,
                         dict(os.environ, **kerberos_env("probe-" + user)))
    if code != 0:
        raise AssertionError("gssapi_probe failed (%d): %s%s" % (code, out, err))
    return out.splitlines()


# --- the tests ------------------------------------------------------------------------------------------------

def setUpModule():
    global WORK_DIR, KDC
    WORK_DIR = tempfile.mkdtemp(prefix="hw-gssapi-")
    KDC = kdc_support.KDC(os.path.join(WORK_DIR, "kdc"), REALM, PRINCIPALS)
    try:
        KDC.start()
    except kdc_support.Unavailable as e:
        KDC = None
        raise unittest.SkipTest(str(e))
    # One after the other, Kafka first.
    BROKERS.start(WORK_DIR, KafkaBroker, None if SKIP_HIGHWATER else HighwaterBroker, workers=1)


def tearDownModule():
    close_all()


def close_all():
    global KDC
    BROKERS.stop()
    if KDC:
        KDC.stop()
        KDC = None
    if WORK_DIR and os.environ.get("HW_GSSAPI_KEEP_WORK_DIR") != "1":
        shutil.rmtree(WORK_DIR, ignore_errors=True)


class GssapiTest(broker_pair.PairTest):
    brokers, failure_logs = BROKERS, FAILURE_LOGS
    SAME = "highwater saw otherwise than Kafka"


@unittest.skipIf(KCAT is None, "kcat is not installed (scripts/install-deps.sh installs it)")
class KcatTest(GssapiTest):
    def test_round_trip(self):
        def scenario(broker):
            topic = "kcat-" + uuid.uuid4().hex[:8]
            values = ["alice-%03d" % i for i in range(20)]
            code, out, err = kcat(broker, "alice", ["-P", "-t", topic], "".join(v + "\n" for v in values))
            self.assertEqual(code, 0, out + err)
            code, out, err = kcat(broker, "alice", ["-C", "-t", topic, "-e", "-o", "beginning"])
            self.assertEqual(code, 0, out + err)
            self.assertEqual(out.splitlines(), values)
            return len(values)
        self.on_both(scenario)

    def test_a_name_the_rules_leave_unprivileged(self):
        """carol maps to User:carol: not a super user, so her records are refused."""
        def scenario(broker):
            code, out, err = kcat(broker, "carol", ["-P", "-t", "carol-" + uuid.uuid4().hex[:8]], "x\n")
            failed = [l for l in err.splitlines() if "Delivery failed" in l]
            self.assertTrue(failed and failed[0].endswith("Broker: Topic authorization failed"), out + err)
            return failed[0]
        self.on_both(scenario)

    def test_a_ticket_for_another_service(self):
        """kcat asking for other/localhost gets a ticket the broker cannot read: refused."""
        def scenario(broker):
            code, out, err = kcat(broker, "alice", ["-P", "-t", "never"], "x\n", service="other")
            errors = kcat_errors(err)
            self.assertEqual(code, 1, out + err)
            self.assertTrue(errors, err)
            # The port and the client's timing are the run's own.
            return [re.sub(r"\(after \d+ms", "(after N ms", re.sub(r"localhost:\d+", "localhost:PORT", e))
                    for e in errors if "Authentication failed" in e][:1]
        seen = self.on_both(scenario)
        for broker, errors in seen.items():
            self.assertTrue(errors and "due to invalid credentials with SASL mechanism GSSAPI" in errors[0],
                            "%s: %s" % (broker, errors))


class JavaToolsTest(GssapiTest):
    def test_round_trip_as_a_mapped_principal(self):
        """bob is mapped to robert (a super user): produce and read back with Kafka's console clients."""
        def scenario(broker):
            topic = "java-" + uuid.uuid4().hex[:8]
            values = ["bob-%03d" % i for i in range(10)]
            code, out, err = java_tool("org.apache.kafka.tools.ConsoleProducer",
                                       ["--bootstrap-server", broker.bootstrap, "--topic", topic], java_config("bob"),
                                       "".join(v + "\n" for v in values))
            self.assertEqual(code, 0, out + err)
            code, out, err = java_tool("org.apache.kafka.tools.consumer.ConsoleConsumer",
                                       ["--bootstrap-server", broker.bootstrap, "--topic", topic, "--from-beginning",
                                        "--max-messages", str(len(values)), "--timeout-ms", "30000"],
                                       java_config("bob"))
            self.assertEqual(code, 0, out + err)
            self.assertEqual([l for l in out.splitlines() if l.startswith("bob-")], values)
            return len(values)
        self.on_both(scenario)


class RawExchangeTest(GssapiTest):
    """What each broker answers, step by step (gssapi_probe)."""

    def test_answers(self):
        def scenario(broker):
            seen = {
                "alice": probe(broker, "alice"),
                "alice asking to be bob": probe(broker, "alice", "--authzid", "bob@" + REALM),
                "not a GSS-API token": probe(broker, "alice", "--garbage"),
                "a ticket for other/localhost": probe(broker, "alice", "--service", "other"),
                "dave, whom no rule maps": probe(broker, "dave"),
            }
            print("\n  %s:" % broker.name, file=sys.stderr)
            for case, lines in seen.items():
                print("    %-30s %s" % (case, " | ".join(lines)), file=sys.stderr)
            # The tokens' sizes are the Kerberos implementations' own (Java's, MIT's): whether there is one counts.
            return {case: [re.sub(r"bytes=(\d+)", lambda m: "bytes=" + ("0" if m.group(1) == "0" else "some"), l)
                           for l in lines] for case, lines in seen.items()}
        seen = self.on_both(scenario)
        good = ["handshake error=0", "authenticate error=0 message= bytes=some lifetime=0",
                "authenticate error=0 message= bytes=some lifetime=0",
                "authenticate error=0 message= bytes=0 lifetime=0", "metadata answered"]
        refused = ["handshake error=0", "authenticate error=58 message=Authentication failed during authentication "
                   "due to invalid credentials with SASL mechanism GSSAPI bytes=0 lifetime=0"]
        # A name no rule maps logs in, then the next request closes the connection unanswered.
        nameless = good[:-1] + ["metadata closed"]
        self.assertEqual(seen["kafka"], {"alice": good, "alice asking to be bob": good,
                                         "not a GSS-API token": refused, "a ticket for other/localhost": refused,
                                         "dave, whom no rule maps": nameless})


class BadKeytabTest(GssapiTest):
    """highwater refuses to start without its key, naming the listener and the keytab."""

    def start(self, keytab, name):
        directory = os.path.join(WORK_DIR, "bad-" + name)
        os.makedirs(directory)
        args = [HIGHWATER]
        for key, value in highwater_overrides(broker_pair.free_address("localhost"), keytab):
            args += ["--override", "%s=%s" % (key, value)]
        p = subprocess.run(args, cwd=directory, capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, **kerberos_env("bad")))
        return p.returncode, p.stdout + p.stderr

    @unittest.skipIf(SKIP_HIGHWATER, "highwater is not run")
    def test_missing_keytab(self):
        missing = os.path.join(WORK_DIR, "no-such.keytab")
        code, out = self.start(missing, "missing")
        self.assertNotEqual(code, 0, out)
        self.assertIn("Listener SASL_PLAINTEXT", out)
        self.assertIn(missing, out)
        self.assertIn("cannot be read", out)

    @unittest.skipIf(SKIP_HIGHWATER, "highwater is not run")
    def test_keytab_without_the_principal(self):
        code, out = self.start(KDC.keytab("alice"), "alice")
        self.assertNotEqual(code, 0, out)
        self.assertIn("Listener SASL_PLAINTEXT", out)
        self.assertIn(KDC.keytab("alice"), out)
        self.assertIn("no key for " + SERVICE, out)


def main():
    global HIGHWATER, PROBE, SOURCE_DIR
    args, rest = broker_pair.parse_arguments(skip_variable="HW_SKIP_HIGHWATER_GSSAPI",
                                             more=lambda parser: parser.add_argument("--probe", required=True))
    HIGHWATER, PROBE, SOURCE_DIR = args.highwater, os.path.abspath(args.probe), args.source_dir
    broker_pair.run_tests(rest, close_all, lambda seconds: broker_pair.print_failure_logs(FAILURE_LOGS))


if __name__ == "__main__":
    main()
