"""How clients reach the brokers in a session (--security): plaintext, as
the benchmark always ran, or TLS on every broker's client listener (which
is also the inter-broker listener) with the certificates
scripts/make-certs.sh makes once per run. Apache Kafka and Highwater get
the same properties (Kafka's keys); the Java tools a --command-config
file, hw_loadgen librdkafka's -X keys, the harness's own requests
(bench/lib/kafka_wire.py) a Python ssl context. The controller listener
stays PLAINTEXT in both modes.

Also the SCRAM listener of the scram_connections workload, added when that
workload runs: SASL_PLAINTEXT in plaintext sessions, SASL_SSL in TLS ones,
SCRAM-SHA-512 only."""

import os
import ssl
import subprocess

MODES = ("plaintext", "tls")
STORE_PASSWORD = "bench-secret"  # the key and trust stores'
CERT_HOSTS = "localhost,127.0.0.1"
SCRAM_LISTENER = "SCRAM"  # its port: the client listener's + 2
SCRAM_MECHANISM = "SCRAM-SHA-512"
SCRAM_USER = "bench"
SCRAM_PASSWORD = "bench-scram-secret"
SCRAM_ITERATIONS = 4096  # Kafka's default (and minimum), for both brokers


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
        self.certs = certs_dir
        # The client listener's name is its protocol, as Kafka's default map has it.
        self.client_listener = "SSL" if self.tls else "PLAINTEXT"
        self.scram_protocol = "SASL_SSL" if self.tls else "SASL_PLAINTEXT"
        self.java_config = None
        if self.tls:
            self.java_config = os.path.join(config_dir, "client-ssl.properties")
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
        if scram_listener:
            props.update({
                "sasl.enabled.mechanisms": SCRAM_MECHANISM,
                f"listener.name.{SCRAM_LISTENER.lower()}.{SCRAM_MECHANISM.lower()}.sasl.jaas.config":
                    "org.apache.kafka.common.security.scram.ScramLoginModule required;",
            })
        return props

    def java_client_properties(self):
        return {"security.protocol": "SSL", "ssl.truststore.type": "PKCS12",
                "ssl.truststore.location": os.path.join(self.certs, "truststore.p12"),
                "ssl.truststore.password": STORE_PASSWORD}

    def java_args(self):
        """What a Java tool (ProducerPerformance, ConfigCommand, ...) is given."""
        return ["--command-config", self.java_config] if self.tls else []

    def loadgen_args(self):
        """librdkafka's keys, for every hw_loadgen command (its own TLS in
        fetch and scram reads the same ones)."""
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
        plaintext. Checks the certificate and the address it names."""
        if not self.tls:
            return None
        return ssl.create_default_context(cafile=self.ca)

    def describe(self):
        """One line for the report."""
        if not self.tls:
            return "plaintext: PLAINTEXT client and inter-broker listener"
        return (f"TLS: SSL client and inter-broker listener (PKCS12 key store, {CERT_HOSTS}, CA from "
                f"scripts/make-certs.sh, the same for both brokers), controller listener PLAINTEXT")
