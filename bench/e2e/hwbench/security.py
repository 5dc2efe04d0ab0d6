"""How clients reach the brokers in a session (--security): plaintext, as
the benchmark always ran; TLS on every broker's client listener (which is
also the inter-broker listener) with the certificates scripts/make-certs.sh
makes once per run; SASL/PLAIN (sasl) on the client listener, logged in as
a user who is no super user, with a PLAINTEXT inter-broker listener of its
own; or that and an authorizer with 1,000 ACLs (acls), so that sasl
against acls isolates the cost of authorization. Apache Kafka and
Highwater get the same properties (Kafka's keys); the Java tools a
--command-config file, hw_loadgen librdkafka's -X keys, the harness's own
requests (bench/lib/kafka_wire.py) a Python ssl context, or in the SASL
modes the PLAINTEXT inter-broker listener (as ANONYMOUS, a super user with
the authorizer). The controller listener stays PLAINTEXT in every mode.

Also the SCRAM listener of the scram_connections workload, added when that
workload runs: SASL_PLAINTEXT in plaintext and SASL sessions, SASL_SSL in
TLS ones, SCRAM-SHA-512 only."""

import os
import ssl
import subprocess

MODES = ("plaintext", "tls", "sasl", "acls")
SASL_MODES = ("sasl", "acls")
STORE_PASSWORD = "bench-secret"  # the key and trust stores'
CERT_HOSTS = "localhost,127.0.0.1"
SCRAM_LISTENER = "SCRAM"  # its port: the client listener's + 2
SCRAM_MECHANISM = "SCRAM-SHA-512"
SCRAM_USER = "bench"
SCRAM_PASSWORD = "bench-scram-secret"
SCRAM_ITERATIONS = 4096  # Kafka's default (and minimum), for both brokers
# The SASL modes: the client listener's PLAIN user (the same name as the
# SCRAM one: the ACLs of the acls mode serve both logins).
PLAIN_USER = "bench"
PLAIN_PASSWORD = "bench-plain-secret"
# Their inter-broker listener (PLAINTEXT, ANONYMOUS): its port is the
# client listener's + 3.
INTER_BROKER_LISTENER = "PLAINTEXT"
AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
SUPER_USERS = "User:ANONYMOUS"  # the brokers' own traffic on the PLAINTEXT and CONTROLLER listeners
ACL_COUNT = 1000
CLUSTER_RESOURCE = "kafka-cluster"


def bench_acls():
    """What User:bench needs to run every workload unchanged (their topics,
    groups, transactional ids in workloads.py and the Java tools' default
    group names), allowed from any host: (resource type, name, pattern,
    principal, host, operation, permission)."""
    user = f"User:{PLAIN_USER}"
    topics = [("producer-", "PREFIXED"), ("loadgen", "PREFIXED"), ("e2e-", "PREFIXED"),
              ("startup-probe", "LITERAL"), ("idle100", "LITERAL"), ("order-check", "LITERAL"),
              ("replication-lag", "LITERAL"), ("failover", "LITERAL")]
    out = [("TOPIC", name, pattern, user, "*", op, "ALLOW")
           for name, pattern in topics for op in ("READ", "WRITE", "CREATE", "DESCRIBE", "DESCRIBE_CONFIGS")]
    # ConsumerPerformance --group perf-<workload>; the console consumer's
    # console-consumer-<n>; EndToEndLatency's test-group-<ms>; hw_loadgen's
    # hw-loadgen and hw-loadgen-e2e.
    out += [("GROUP", name, "PREFIXED", user, "*", "READ", "ALLOW")
            for name in ("perf-", "console-consumer-", "test-group-", "hw-loadgen")]
    out += [("TRANSACTIONAL_ID", name, "PREFIXED", user, "*", op, "ALLOW")
            for name in ("perf-transactional", "hw-loadgen") for op in ("WRITE", "DESCRIBE")]
    # The idempotent producers' InitProducerId; scram_connections'
    # kafka-configs (AlterUserScramCredentials).
    out += [("CLUSTER", CLUSTER_RESOURCE, "LITERAL", user, "*", op, "ALLOW") for op in ("IDEMPOTENT_WRITE", "ALTER")]
    return out


# Filler names: most share a first letter (or more) with the bench topics
# and groups, so that a prefix lookup has neighbours; a few do not.
_FILLER_TOPIC_WORDS = ("payments", "producer-archive", "ledger", "loadtest", "events", "e2e-replay", "orders",
                       "inventory", "fraud", "reports", "metrics", "clicks", "shipments", "idle-audit")
_FILLER_GROUP_WORDS = ("perf-audit", "pipeline", "console-archive", "hw-legacy", "test-runner", "billing",
                       "analytics")
_FILLER_USERS = 50


def filler_acls(count):
    """count ACLs of other users (User:team-0..49) on other names: in turn
    a LITERAL topic, a PREFIXED topic, a LITERAL group, a PREFIXED group;
    READ, WRITE or DESCRIBE; one in ten a DENY. Deterministic."""
    ops_topic = ("READ", "WRITE", "DESCRIBE")
    ops_group = ("READ", "DESCRIBE")
    out = []
    for i in range(count):
        user = f"User:team-{i % _FILLER_USERS}"
        permission = "DENY" if (i // 4) % 10 == 9 else "ALLOW"
        kind = i % 4
        if kind < 2:
            word = _FILLER_TOPIC_WORDS[(i // 4) % len(_FILLER_TOPIC_WORDS)]
            name = f"{word}-{i}" + ("-" if kind == 1 else "")
            out.append(("TOPIC", name, "LITERAL" if kind == 0 else "PREFIXED", user, "*",
                        ops_topic[(i // 4) % len(ops_topic)], permission))
        else:
            word = _FILLER_GROUP_WORDS[(i // 4) % len(_FILLER_GROUP_WORDS)]
            name = f"{word}-{i}" + ("-" if kind == 3 else "")
            out.append(("GROUP", name, "LITERAL" if kind == 2 else "PREFIXED", user, "*",
                        ops_group[(i // 4) % len(ops_group)], permission))
    return out


def acl_set(total=ACL_COUNT):
    """The acls mode's ACLs: bench's, then filler up to total."""
    mine = bench_acls()
    return mine + filler_acls(total - len(mine))


def make_certificates(repo, work_dir, log):
    """A CA and a key store for the brokers (one certificate naming
    localhost and 127.0.0.1 serves every node), made once per run; the
    directory."""
    certs = os.path.join(work_dir, "certs")
    log(f"certificates in {certs}")
    subprocess.run([os.path.join(repo, "scripts", "make-certs.sh"), certs, "--password", STORE_PASSWORD,
                    "--hosts", CERT_HOSTS], check=True, stdout=subprocess.DEVNULL)
    return certs


class Security:
    """One mode's settings for brokers and clients. Read-only once made."""

    def __init__(self, mode, certs_dir=None, config_dir=None):
        if mode not in MODES:
            raise ValueError(f"unknown security mode {mode}")
        self.mode = mode
        self.tls = mode == "tls"
        self.sasl = mode in SASL_MODES
        self.acls = mode == "acls"
        self.certs = certs_dir
        # The client listener's name is its protocol, as Kafka's default map has it.
        self.client_listener = "SSL" if self.tls else "SASL_PLAINTEXT" if self.sasl else "PLAINTEXT"
        # In the SASL modes the brokers' own traffic (and the harness's
        # requests) go through a PLAINTEXT listener of their own.
        self.inter_broker_listener = INTER_BROKER_LISTENER if self.sasl else self.client_listener
        self.scram_protocol = "SASL_SSL" if self.tls else "SASL_PLAINTEXT"
        self.java_config = None
        if self.tls or self.sasl:
            name = "client-ssl.properties" if self.tls else f"client-{mode}.properties"
            self.java_config = os.path.join(config_dir, name)
            with open(self.java_config, "w") as f:
                for k, v in self.java_client_properties().items():
                    f.write(f"{k}={v}\n")

    @property
    def ca(self):
        return os.path.join(self.certs, "ca.crt")

    def broker_properties(self, scram_listener):
        """The ssl.* keys every node gets (its listener, and the trust store
        its own inter-broker connections check the others with), and the
        SCRAM listener's SASL keys."""
        props = {}
        if self.tls:
            props.update({
                "ssl.keystore.type": "PKCS12",
                "ssl.keystore.location": os.path.join(self.certs, "localhost.keystore.p12"),
                "ssl.keystore.password": STORE_PASSWORD,
                "ssl.truststore.type": "PKCS12",
                "ssl.truststore.location": os.path.join(self.certs, "truststore.p12"),
                "ssl.truststore.password": STORE_PASSWORD,
            })
        if self.sasl:
            props.update({
                "sasl.enabled.mechanisms": "PLAIN",
                f"listener.name.{self.client_listener.lower()}.plain.sasl.jaas.config":
                    f'org.apache.kafka.common.security.plain.PlainLoginModule required '
                    f'user_{PLAIN_USER}="{PLAIN_PASSWORD}";',
            })
        if scram_listener:
            # Beside PLAIN on the client listener, SCRAM on its own.
            mechanisms_key = (f"listener.name.{SCRAM_LISTENER.lower()}.sasl.enabled.mechanisms" if self.sasl
                              else "sasl.enabled.mechanisms")
            props.update({
                mechanisms_key: SCRAM_MECHANISM,
                f"listener.name.{SCRAM_LISTENER.lower()}.{SCRAM_MECHANISM.lower()}.sasl.jaas.config":
                    "org.apache.kafka.common.security.scram.ScramLoginModule required;",
            })
        if self.acls:
            props.update({"authorizer.class.name": AUTHORIZER, "super.users": SUPER_USERS})
        return props

    def java_client_properties(self):
        if self.sasl:
            return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
                    "sasl.jaas.config": f'org.apache.kafka.common.security.plain.PlainLoginModule required '
                                        f'username="{PLAIN_USER}" password="{PLAIN_PASSWORD}";'}
        return {"security.protocol": "SSL", "ssl.truststore.type": "PKCS12",
                "ssl.truststore.location": os.path.join(self.certs, "truststore.p12"),
                "ssl.truststore.password": STORE_PASSWORD}

    def java_args(self):
        """What a Java tool (ProducerPerformance, ConfigCommand, ...) is given."""
        return ["--command-config", self.java_config] if self.java_config else []

    def loadgen_args(self):
        """librdkafka's keys, for every hw_loadgen command (its own TLS in
        fetch and scram reads the same ones; fetch logs in with PLAIN as
        librdkafka does)."""
        if self.sasl:
            return ["-X", "security.protocol=sasl_plaintext", "-X", "sasl.mechanism=PLAIN",
                    "-X", f"sasl.username={PLAIN_USER}", "-X", f"sasl.password={PLAIN_PASSWORD}"]
        if not self.tls:
            return []
        return ["-X", "security.protocol=ssl", "-X", f"ssl.ca.location={self.ca}"]

    def scram_loadgen_args(self):
        """hw_loadgen scram's login on the SCRAM listener (after loadgen_args,
        so its security.protocol wins)."""
        return ["-X", f"security.protocol={self.scram_protocol.lower()}", "-X", f"sasl.mechanism={SCRAM_MECHANISM}",
                "-X", f"sasl.username={SCRAM_USER}", "-X", f"sasl.password={SCRAM_PASSWORD}"]

    def ssl_context(self):
        """For the harness's own requests to the client listener; None for
        plaintext (and the SASL modes, whose harness requests go to the
        PLAINTEXT inter-broker listener). Checks the certificate and the
        address it names."""
        if not self.tls:
            return None
        return ssl.create_default_context(cafile=self.ca)

    def describe(self):
        """One line for the report."""
        if self.sasl:
            text = (f"SASL/PLAIN: SASL_PLAINTEXT client listener, user {PLAIN_USER} (no super user); PLAINTEXT "
                    f"inter-broker listener (ANONYMOUS: replication, the start-up probe and the harness's own "
                    f"requests), controller listener PLAINTEXT")
            if self.acls:
                text += (f"; authorizer {AUTHORIZER.rsplit('.', 1)[1]}, super.users={SUPER_USERS}, "
                         f"{ACL_COUNT:,} ACLs (LITERAL and PREFIXED: what {PLAIN_USER} needs, the rest other "
                         f"users' on other names)")
            else:
                text += ", no authorizer"
            return text
        if not self.tls:
            return "plaintext: PLAINTEXT client and inter-broker listener"
        return (f"TLS: SSL client and inter-broker listener (PKCS12 key store, {CERT_HOSTS}, CA from "
                f"scripts/make-certs.sh, the same for both brokers), controller listener PLAINTEXT")
