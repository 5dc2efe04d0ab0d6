"""docker/docker-compose-sasl-ssl.yml through a real container runtime.

Run by ctest as containers_sasl_ssl_compose (label containers):
    <venv>/bin/python sasl_ssl_compose_test.py --build-dir <build dir> --source-dir <repo>

 1. the image from the build dir's binaries (as seed_compose_test.py);
 2. docker/make-secrets.sh into a temporary directory (the CA, each node's
    PKCS12 key store, the password file, the JAAS file), mounted with
    HW_SECRETS_DIR;
 3. `docker compose up -d`: three nodes whose quorum and inter-broker
    traffic is mutual TLS (the nodes are super users by their certificates)
    and whose clients are on SASL_SSL, nothing on PLAINTEXT, with Kafka's
    StandardAuthorizer;
 4. from the host (confluent-kafka, librdkafka): PLAIN admin (a super user)
    writes with acks=all to a replication factor 3 topic; a SCRAM-SHA-512
    user made with AlterUserScramCredentials does not see it until admin
    grants it READ on the topics and groups of its prefix (README's recipe),
    then reads every record back, and its write is refused
    TOPIC_AUTHORIZATION_FAILED; a wrong password and a client that does not
    trust the CA are refused; no password shows in the containers' logs.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka.admin import (AclBinding, AclOperation, AclPermissionType, AdminClient, ResourcePatternType,
                                   ResourceType, ScramCredentialInfo, ScramMechanism, UserScramCredentialUpsertion)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seed_compose_test as seed  # noqa: E402  (the image build and host-port helpers)

BOOTSTRAP = "localhost:19094,localhost:29094,localhost:39094"
TOPIC = "secure-events"
CONTAINERS = ("kafka-s1", "kafka-s2", "kafka-s3")


def compose(*args, check=True, timeout=300):
    path = os.path.join(seed.ARGS.source_dir, "docker", "docker-compose-sasl-ssl.yml")
    return seed.run(["docker", "compose", "-f", path] + list(args), check=check, timeout=timeout)


def client_conf(secrets, mechanism="PLAIN", user="admin", password="admin-secret", ca=None):
    return {
        "bootstrap.servers": BOOTSTRAP,
        "security.protocol": "SASL_SSL",
        "ssl.ca.location": ca or os.path.join(secrets, "ca.crt"),
        "sasl.mechanism": mechanism,
        "sasl.username": user,
        "sasl.password": password,
    }


def produce(secrets, n):
    acked = []
    errors = []
    p = Producer(dict(client_conf(secrets), **{"acks": "all", "enable.idempotence": True,
                                               "message.timeout.ms": 120000}))

    def on_delivery(err, msg):
        (errors if err else acked).append(err or msg.value())
    for i in range(n):
        p.produce(TOPIC, value=b"secure-%d" % i, on_delivery=on_delivery)
    seed.wait_for(lambda: p.flush(1) == 0, 150, "the writes to be acknowledged")
    assert not errors and len(acked) == n, "acknowledged %d of %d: %s" % (len(acked), n, errors[:3])


def refused(conf, what):
    """True when a client so configured cannot get metadata (its error names why)."""
    seen = []
    c = Consumer(dict(conf, **{"group.id": "refused", "error_cb": lambda e: seen.append(str(e))}))
    try:
        try:
            c.list_topics(timeout=10)
            return False, seen
        except KafkaException as e:
            seen.append(str(e))
            return True, seen
    finally:
        c.close()


def main():
    seed.START = time.monotonic()
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--source-dir", required=True)
    seed.ARGS = parser.parse_args()
    seed.ENV = dict(os.environ)
    seed.ENV.setdefault("DOCKER_HOST", "unix:///run/podman/podman.sock")
    seed.HOST_PORTS = (19094, 29094, 39094)
    rc, _, err = seed.run(["docker", "compose", "version"], check=False)
    if rc != 0:
        raise SystemExit("no docker compose here (run scripts/install-containers.sh): " + err)
    seed.build_image()
    secrets = tempfile.mkdtemp(prefix="hw-compose-secrets-")
    seed.run([os.path.join(seed.ARGS.source_dir, "docker", "make-secrets.sh"), secrets])
    seed.ENV["HW_SECRETS_DIR"] = secrets
    try:
        compose("down", "-v", check=False)
        seed.reserve_host_ports()
        started = time.monotonic()
        compose("up", "-d")
        n = 200
        produce(secrets, n)
        seed.log("SASL_SSL: %d records acknowledged (acks=all, RF 3) %.1fs after up -d" % (n, time.monotonic() - started))

        admin = AdminClient(client_conf(secrets))
        upsert = UserScramCredentialUpsertion("alice", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192),
                                              b"alice-scram-secret")
        for f in admin.alter_user_scram_credentials([upsert]).values():
            f.result(timeout=30)
        alice = client_conf(secrets, "SCRAM-SHA-512", "alice", "alice-scram-secret")
        # No ACL yet: the authorizer hides the topic from alice.
        md = AdminClient(alice).list_topics(timeout=30)
        assert TOPIC not in md.topics or md.topics[TOPIC].error is not None, \
            "alice sees %s without an ACL" % TOPIC
        # The README's grant: the team's topics and groups by prefix.
        bindings = [AclBinding(ResourceType.TOPIC, "secure-", ResourcePatternType.PREFIXED, "User:alice", "*",
                               AclOperation.READ, AclPermissionType.ALLOW),
                    AclBinding(ResourceType.GROUP, "secure-", ResourcePatternType.PREFIXED, "User:alice", "*",
                               AclOperation.READ, AclPermissionType.ALLOW)]
        for f in admin.create_acls(bindings).values():
            f.result(timeout=30)
        c = Consumer(dict(alice, **{"group.id": "secure-readers", "auto.offset.reset": "earliest"}))
        c.subscribe([TOPIC])
        got = set()
        deadline = time.monotonic() + 90
        while len(got) < n and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is not None and not m.error():
                got.add(m.value())
        c.close()
        assert len(got) == n, "alice (SCRAM-SHA-512) read %d of %d records" % (len(got), n)
        seed.log("SCRAM-SHA-512 user made with AlterUserScramCredentials, granted READ on secure-* topics and "
                 "groups, read all %d records" % n)
        # READ is not WRITE: alice's write is refused.
        refusals = []
        p = Producer(dict(alice, **{"message.timeout.ms": 30000}))
        p.produce(TOPIC, value=b"not alice's", on_delivery=lambda err, msg: refusals.append(err))
        seed.wait_for(lambda: p.flush(1) == 0, 60, "alice's refused write to be reported")
        assert refusals and refusals[0] is not None and refusals[0].code() == KafkaError.TOPIC_AUTHORIZATION_FAILED, \
            "alice wrote without WRITE: %s" % refusals
        seed.log("alice's write refused: %s" % refusals[0].name())

        ok, why = refused(client_conf(secrets, "SCRAM-SHA-512", "alice", "not-alices-password"), "wrong password")
        assert ok and any("Authentication failed" in w for w in why), "a wrong password was not refused: %s" % why
        other = tempfile.mkdtemp(prefix="hw-other-ca-")
        seed.run([os.path.join(seed.ARGS.source_dir, "scripts", "make-certs.sh"), other, "--clients", ""])
        ok, why = refused(client_conf(secrets, ca=os.path.join(other, "ca.crt")), "untrusted CA")
        shutil.rmtree(other, ignore_errors=True)
        assert ok, "a client that does not trust the cluster's CA got metadata"
        seed.log("refused: a wrong SCRAM password, a client without the cluster's CA")

        for name in CONTAINERS:
            _, out, err = seed.run(["docker", "logs", name], check=False)
            for secret in ("admin-secret", "alice-scram-secret", "not-alices-password", open(os.path.join(secrets, "ssl_creds")).read()):
                assert secret not in out + err, "%s's log shows a secret" % name
            assert "Authentication with" not in out + err, "%s could not authenticate to a peer:\n%s" % (name, out + err)
    except BaseException:
        for name in CONTAINERS:
            rc, out, err = seed.run(["docker", "logs", "--tail", "40", name], check=False)
            print("---- last lines of %s ----\n%s%s" % (name, out, err))
        raise
    finally:
        compose("down", "-v", check=False)
        shutil.rmtree(secrets, ignore_errors=True)


if __name__ == "__main__":
    main()
