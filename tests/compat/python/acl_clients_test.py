"""ACLs with real clients, against highwater and Apache Kafka 4.3.1 alike.

Run by ctest as compat_python_acl_tests:
    <venv>/bin/python acl_clients_test.py --highwater <highwater binary> --source-dir <repository>

Both brokers run one configuration: a SASL_PLAINTEXT listener with PLAIN
users admin, alice and bob, the StandardAuthorizer, and User:admin and
User:ANONYMOUS (the brokers' own traffic on their PLAINTEXT and controller
listeners) as super users. Kafka runs through scripts/kafka-server.sh on
ports it binds itself, highwater on ports it picks (--port-file). Each test
does the same to both, Kafka first: it asserts what the clients must see on
each broker, then that they saw the same on both.

- AdminClient as admin: create_acls with literal, prefixed, wildcard,
  cluster, transactional id and host-specific DENY bindings; describe_acls
  and delete_acls through filters (ANY, MATCH, by name, pattern, principal,
  host, operation, permission), as sets of (type, name, pattern, principal,
  host, operation, permission); the bindings Kafka refuses
  (INVALID_REQUEST, with its reason) and the odd ones it takes. bob is
  refused all three calls (CLUSTER_AUTHORIZATION_FAILED; librdkafka drops
  DescribeAcls' error code, so Kafka's AclCommand lists as bob too) until
  he has ALTER on the cluster.
- A producer as bob (acks=all, with and without idempotence) sends while
  admin takes its WRITE away and gives it back: deliveries fail with
  TOPIC_AUTHORIZATION_FAILED, then succeed again, and the topic holds every
  acknowledged record and none of the refused ones.
- A consumer in a group as bob loses READ on its topic (the consumer
  reports TOPIC_AUTHORIZATION_FAILED and is served nothing new), gets it
  back and reads every record as produced; losing READ on its group it
  reports GROUP_AUTHORIZATION_FAILED.
- Metadata: bob sees exactly the topics he may describe, through
  confluent-kafka and kcat.
- A consumer-protocol member (group.protocol=consumer) as bob subscribing
  with a regular expression is given the partitions of the matching topics
  he may describe, and of no other.
- AllowEveryoneAclTest runs on a second pair, started for it alone, with
  allow.everyone.if.no.acl.found=true besides: with no ACL on a topic, its
  group or the cluster, bob (named by no ACL) creates topics, writes,
  reads in a group, lists, describes configs, lists groups and describes
  and creates ACLs. One ACL for alice on a topic's name, on a prefix of it
  or on every topic ("*") closes the topic to him (his producer and
  consumer, which were using it, are refused with
  TOPIC_AUTHORIZATION_FAILED and served nothing; his metadata and
  describe_configs no longer show it) while a topic no ACL applies to
  stays open; deleting the ACLs opens them again. One on the cluster
  closes its configs and the ACLs to him, ListGroups then shows him the
  groups no ACL applies to, and his idempotent producer still gets its
  producer id (WRITE on topics by resource type).

Every test starts and ends with no ACLs on either broker.
"""

import collections
import os
import re
import shutil
import tempfile
import time

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import (AclBinding, AclBindingFilter, AclOperation, AclPermissionType, AdminClient,
                                   ConfigResource, NewTopic, ResourcePatternType, ResourceType)

import broker_pair
from broker_pair import SASL_LISTENERS, java_env
from kafka_process import run
from highwater_process import wait_for

HIGHWATER = None
SOURCE_DIR = None
BROKERS = broker_pair.Pair()  # Kafka first: what it does is what highwater must do
OPEN_BROKERS = broker_pair.Pair()  # the same with allow.everyone.if.no.acl.found=true (AllowEveryoneAclTest)
WORK_DIR = None
FAILURE_LOGS = []  # (test, broker, the end of its log) for each failed test, printed at the end

# The fixed test logins (the JAAS users of both brokers).
PASSWORDS = {"admin": "admin-secret", "alice": "alice-secret", "bob": "bob-secret"}
JAAS = ("org.apache.kafka.common.security.plain.PlainLoginModule required "
        + " ".join('user_%s="%s"' % kv for kv in PASSWORDS.items()) + ";")

# What both brokers run with besides their listeners.
SHARED_SETTINGS = [
    ("sasl.enabled.mechanisms", "PLAIN"),
    ("listener.name.sasl_plaintext.plain.sasl.jaas.config", JAAS),
    ("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"),
    ("super.users", "User:admin;User:ANONYMOUS"),
    ("num.partitions", "1"),
    ("offsets.topic.num.partitions", "1"),
    ("offsets.topic.replication.factor", "1"),
    ("transaction.state.log.num.partitions", "1"),
    ("transaction.state.log.replication.factor", "1"),
    ("transaction.state.log.min.isr", "1"),
    ("group.initial.rebalance.delay.ms", "0"),
    # A consumer whose group READ goes notices when its session ends (its heartbeats are refused): short ones.
    ("group.min.session.timeout.ms", "1000"),
]

# AllowEveryoneAclTest's brokers: a resource no ACL applies to is open to everyone.
OPEN_SETTINGS = SHARED_SETTINGS + [("allow.everyone.if.no.acl.found", "true")]

TOPIC_AUTHZ = "TOPIC_AUTHORIZATION_FAILED"
GROUP_AUTHZ = "GROUP_AUTHORIZATION_FAILED"
CLUSTER_AUTHZ = "CLUSTER_AUTHORIZATION_FAILED"
INVALID_REQUEST = "INVALID_REQUEST"

# librdkafka calls the cluster resource (type 4) BROKER; the rows below say CLUSTER.
RESOURCE_TYPES = {"ANY": ResourceType.ANY, "TOPIC": ResourceType.TOPIC, "GROUP": ResourceType.GROUP,
                  "CLUSTER": ResourceType.BROKER, "TRANSACTIONAL_ID": ResourceType.TRANSACTIONAL_ID}
TYPE_NAMES = {v: k for k, v in RESOURCE_TYPES.items()}


# An ACL binding as a row: (type, name, pattern, principal, host, operation, permission).
def acl(restype, name, pattern, principal, operation, permission="ALLOW", host="*"):
    return (restype, name, pattern, principal, host, operation, permission)


def binding(row):
    restype, name, pattern, principal, host, operation, permission = row
    return AclBinding(RESOURCE_TYPES[restype], name, ResourcePatternType[pattern], principal, host,
                      AclOperation[operation], AclPermissionType[permission])


def row_of(b):
    return (TYPE_NAMES.get(b.restype, b.restype.name), b.name, b.resource_pattern_type.name, b.principal, b.host,
            b.operation.name, b.permission_type.name)


def acl_filter(restype="ANY", name=None, pattern="ANY", principal=None, host=None, operation="ANY",
               permission="ANY"):
    return AclBindingFilter(RESOURCE_TYPES[restype], name, ResourcePatternType[pattern], principal, host,
                            AclOperation[operation], AclPermissionType[permission])


def exactly(row):
    """The filter that matches row alone."""
    restype, name, pattern, principal, host, operation, permission = row
    return acl_filter(restype, name, pattern, principal, host, operation, permission)


def outcome(future, timeout_s=20):
    """A future's result, or the name of the error it failed with."""
    try:
        return future.result(timeout_s)
    except KafkaException as e:
        return ("error", e.args[0].name())


def error_text(future, timeout_s=20):
    try:
        future.result(timeout_s)
        return None
    except KafkaException as e:
        return e.args[0].str()


class Broker(broker_pair.Broker):
    """broker_pair's, with PLAIN logins on its SASL_PLAINTEXT listener (admin's for the admin) and its ACLs."""
    passwords = PASSWORDS
    admin_user = "admin"

    def described(self, flt=None, client=None):
        """The rows describe_acls answers for flt (everything by default)."""
        client = self.admin if client is None else client  # (a client with nothing queued is falsy)
        found = client.describe_acls(acl_filter() if flt is None else flt).result(20)
        return {row_of(b) for b in found}

    def wait_described(self, want, flt=None, timeout_s=15):
        """Waits until describe_acls answers exactly want: both brokers apply ACL changes after answering."""
        last = [None]

        def settled():
            last[0] = self.described(flt)
            return last[0] == want

        try:
            wait_for(settled, timeout_s, "the ACLs to settle")
        except AssertionError:
            raise AssertionError("%s: describe_acls still answers %s, not %s" % (self.name, sorted(last[0]),
                                                                                  sorted(want)))

    def grant(self, rows):
        """Creates rows as admin and waits until the broker applies them."""
        for row, f in zip(rows, self.admin.create_acls([binding(r) for r in rows]).values()):
            result = outcome(f)
            if result is not None:
                raise AssertionError("%s: create_acls(%s) failed: %s" % (self.name, row, result))
        for row in rows:
            self.wait_described({row}, exactly(row))

    def revoke(self, rows, wait=True):
        """Deletes rows as admin; with wait, until the broker no longer applies them."""
        for f in self.admin.delete_acls([exactly(r) for r in rows]).values():
            f.result(20)
        if wait:
            for row in rows:
                self.wait_described(set(), exactly(row))

    def revoke_all(self):
        for f in self.admin.delete_acls([acl_filter()]).values():
            f.result(20)
        self.wait_described(set())

    def read_all(self, topic):
        """Every value in partition 0 of topic, read as admin up to its high watermark."""
        c = Consumer({**self.conf("admin"), "group.id": "acl-test-reader", "enable.auto.commit": False,
                      "enable.partition.eof": True})
        try:
            _, high = c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
            c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
            out = []
            deadline = time.monotonic() + 20
            while len(out) < high and time.monotonic() < deadline:
                for m in c.consume(num_messages=1000, timeout=0.2):
                    if not m.error():
                        out.append(m.value().decode())
            if len(out) < high:
                raise AssertionError("%s: read %d of the %d records in %s" % (self.name, len(out), high, topic))
            return out
        finally:
            c.close()


class KafkaBroker(Broker, broker_pair.KafkaBroker):
    pass


class HighwaterBroker(Broker, broker_pair.HighwaterBroker):
    pass


def start_brokers(brokers, directory, settings):
    """Starts Kafka and highwater with settings into brokers (Kafka first); on a failure stops what started."""
    brokers.start(directory, lambda d: KafkaBroker(SOURCE_DIR, d, settings),
                  lambda d: HighwaterBroker(HIGHWATER, d, settings + SASL_LISTENERS, "SASL_PLAINTEXT"))


def setUpModule():
    global WORK_DIR
    WORK_DIR = tempfile.mkdtemp(prefix="hw-py-acl-")
    try:
        start_brokers(BROKERS, WORK_DIR, SHARED_SETTINGS)
    except Exception:
        close_brokers()
        raise


def tearDownModule():
    close_brokers()


def close_brokers():
    global WORK_DIR
    OPEN_BROKERS.stop()
    BROKERS.stop()
    if WORK_DIR:
        shutil.rmtree(WORK_DIR, ignore_errors=True)
        WORK_DIR = None


class AclTest(broker_pair.PairTest):
    brokers = BROKERS  # the pair a test runs on (the same list object: filled by setUpModule)
    failure_logs = FAILURE_LOGS

    def setUp(self):
        super().setUp()
        for broker in self.brokers:
            broker.revoke_all()

    def tearDown(self):
        super().tearDown()
        for broker in self.brokers:
            broker.revoke_all()


# The ACLs of AdminAclTest: indices in the comments of the filters below.
ADMIN_ROWS = [
    acl("TOPIC", "acl-orders", "LITERAL", "User:bob", "READ"),                               # 0
    acl("TOPIC", "acl-orders", "LITERAL", "User:bob", "WRITE"),                              # 1
    acl("TOPIC", "acl-pay-", "PREFIXED", "User:bob", "DESCRIBE"),                            # 2
    acl("GROUP", "acl-group", "LITERAL", "User:bob", "READ"),                                # 3
    acl("CLUSTER", "kafka-cluster", "LITERAL", "User:bob", "IDEMPOTENT_WRITE"),              # 4
    acl("TRANSACTIONAL_ID", "acl-tx", "LITERAL", "User:bob", "WRITE"),                       # 5
    acl("TOPIC", "acl-orders", "LITERAL", "User:alice", "WRITE", "DENY", host="10.1.2.3"),   # 6
    acl("TOPIC", "*", "LITERAL", "User:alice", "DESCRIBE"),                                  # 7
]

# describe_acls filters and the ADMIN_ROWS each matches.
DESCRIBE_FILTERS = [
    (acl_filter(), range(8)),
    # MATCH: the literal name, the wildcard and the prefixes of the name.
    (acl_filter("TOPIC", "acl-orders", "MATCH"), (0, 1, 6, 7)),
    (acl_filter("TOPIC", "acl-pay-eu", "MATCH"), (2, 7)),
    (acl_filter("ANY", "acl-group", "MATCH"), (3, 7)),
    (acl_filter("TOPIC", None, "MATCH"), (0, 1, 2, 6, 7)),
    (acl_filter("GROUP", "acl-group-2", "MATCH"), ()),
    # The exact name of any pattern type, or of one.
    (acl_filter("TOPIC", "acl-pay-", "ANY"), (2,)),
    (acl_filter("TOPIC", "acl-orders", "LITERAL"), (0, 1, 6)),
    (acl_filter("TOPIC", "*", "LITERAL"), (7,)),
    (acl_filter("TOPIC", "acl-pay-eu", "PREFIXED"), ()),
    (acl_filter(pattern="PREFIXED"), (2,)),
    (acl_filter("CLUSTER"), (4,)),
    (acl_filter("CLUSTER", "other-cluster", "LITERAL"), ()),
    (acl_filter("TOPIC", "", "LITERAL"), ()),
    (acl_filter(principal="User:bob"), (0, 1, 2, 3, 4, 5)),
    (acl_filter(principal="bob"), ()),
    (acl_filter(host="10.1.2.3"), (6,)),
    (acl_filter(operation="WRITE"), (1, 5, 6)),
    (acl_filter(permission="DENY"), (6,)),
    (acl_filter("TOPIC", principal="User:alice", operation="DESCRIBE", permission="ALLOW"), (7,)),
]

# One delete_acls request: its filters and the ADMIN_ROWS each deletes.
DELETE_FILTERS = [
    (acl_filter("TOPIC", "acl-orders", "LITERAL", "User:alice", permission="DENY"), (6,)),
    (acl_filter("TRANSACTIONAL_ID"), (5,)),
    (acl_filter("GROUP", "acl-nothing", "LITERAL"), ()),
    (acl_filter("TOPIC", "acl-pay-eu", "MATCH"), (2, 7)),
]
REMAINING = (0, 1, 3, 4)

# Bindings confluent-kafka lets through that Kafka refuses (INVALID_REQUEST, with its reason), and odd ones it
# takes, all in one create_acls request.
ODD_ROWS = [
    (acl("TOPIC", "", "LITERAL", "User:bob", "READ"), INVALID_REQUEST),
    (acl("TRANSACTIONAL_ID", "", "PREFIXED", "User:bob", "WRITE"), INVALID_REQUEST),
    (acl("CLUSTER", "other-cluster", "LITERAL", "User:bob", "DESCRIBE"), INVALID_REQUEST),
    (acl("CLUSTER", "kafka", "PREFIXED", "User:bob", "ALTER"), INVALID_REQUEST),
    (acl("TOPIC", "acl-odd", "LITERAL", "bob", "READ"), INVALID_REQUEST),
    (acl("TOPIC", "acl-odd", "LITERAL", "", "READ"), INVALID_REQUEST),
    (acl("TOPIC", "acl-odd", "LITERAL", "User:bob", "READ", host=""), None),
    (acl("TOPIC", "acl-odd", "LITERAL", "User:bob", "WRITE", host="not a host"), None),
    (acl("TOPIC", "acl-odd", "LITERAL", "User:bob", "IDEMPOTENT_WRITE"), None),
    (acl("TOPIC", "acl-odd", "LITERAL", "Group:bob", "READ"), None),
    (acl("TOPIC", "acl-odd", "LITERAL", "User:", "READ"), None),
    (acl("TOPIC", "*", "PREFIXED", "User:bob", "READ"), None),
    (acl("GROUP", "acl-odd", "LITERAL", "User:bob", "CLUSTER_ACTION"), None),
    (acl("CLUSTER", "kafka-cluster", "PREFIXED", "User:bob", "ALTER"), None),
]


def rows_at(indices):
    return {ADMIN_ROWS[i] for i in indices}


class AdminAclTest(AclTest):
    """create_acls, describe_acls and delete_acls through confluent-kafka's AdminClient."""

    def test_create_describe_and_delete_as_admin(self):
        self.on_both(self.create_describe_delete)

    def create_describe_delete(self, broker):
        seen = {}
        fs = broker.admin.create_acls([binding(r) for r in ADMIN_ROWS])
        seen["created"] = [outcome(f) for f in fs.values()]
        self.assertEqual(seen["created"], [None] * len(ADMIN_ROWS), "create_acls' results")
        broker.wait_described(set(ADMIN_ROWS))

        seen["described"] = []
        for flt, indices in DESCRIBE_FILTERS:
            got = broker.described(flt)
            self.assertEqual(got, rows_at(indices), "describe_acls(%s)" % flt)
            seen["described"].append(sorted(got))

        fs = broker.admin.delete_acls([flt for flt, _ in DELETE_FILTERS])
        seen["deleted"] = []
        for (flt, indices), f in zip(DELETE_FILTERS, fs.values()):
            got = {row_of(b) for b in f.result(20)}
            self.assertEqual(got, rows_at(indices), "delete_acls(%s)" % flt)
            seen["deleted"].append(sorted(got))
        broker.wait_described(rows_at(REMAINING))

        got = {row_of(b) for b in list(broker.admin.delete_acls([acl_filter()]).values())[0].result(20)}
        self.assertEqual(got, rows_at(REMAINING), "delete_acls(everything)")
        seen["deleted"].append(sorted(got))
        broker.wait_described(set())
        return seen

    def test_invalid_and_odd_bindings(self):
        self.on_both(self.odd_bindings)

    def odd_bindings(self, broker):
        fs = broker.admin.create_acls([binding(r) for r, _ in ODD_ROWS])
        futures = list(fs.values())
        results = [(row, outcome(f), error_text(f)) for (row, _), f in zip(ODD_ROWS, futures)]
        self.assertEqual([(row, got) for row, got, _ in results],
                         [(row, None if code is None else ("error", code)) for row, code in ODD_ROWS],
                         "create_acls' results, binding by binding; the reasons given: %s"
                         % [reason for _, _, reason in results])
        # Only the accepted ones were written, each as it was given.
        broker.wait_described({row for row, code in ODD_ROWS if code is None})
        return results

    def test_bob_is_refused(self):
        self.on_both(self.bob_refused)

    def bob_refused(self, broker):
        # bob may not describe the cluster: creating and deleting are refused whole and change nothing.
        # librdkafka drops DescribeAcls' error code: its refusal reaches confluent-kafka as an empty list, so
        # Kafka's AclCommand (its Java AdminClient reports the code) lists too.
        broker.grant([ADMIN_ROWS[0]])
        bob = AdminClient(broker.conf("bob"))
        seen = {"create": outcome(list(bob.create_acls([binding(ADMIN_ROWS[1])]).values())[0]),
                "delete": outcome(list(bob.delete_acls([acl_filter()]).values())[0]),
                "describe": sorted(broker.described(client=bob)),
                "AclCommand --list": acl_command_refusal(broker, "bob")}
        self.assertEqual(seen, {"create": ("error", CLUSTER_AUTHZ), "delete": ("error", CLUSTER_AUTHZ),
                                "describe": [], "AclCommand --list": "ClusterAuthorizationException"},
                         "bob's ACL calls")
        self.assertEqual(broker.described(), {ADMIN_ROWS[0]}, "the ACLs after bob's calls")
        # ALTER on the cluster (which implies DESCRIBE) lets bob describe, create and delete.
        alter = acl("CLUSTER", "kafka-cluster", "LITERAL", "User:bob", "ALTER")
        broker.grant([alter])
        seen["describe with ALTER"] = sorted(broker.described(client=bob))
        self.assertEqual(set(seen["describe with ALTER"]), {ADMIN_ROWS[0], alter})
        seen["create with ALTER"] = outcome(list(bob.create_acls([binding(ADMIN_ROWS[1])]).values())[0])
        self.assertEqual(seen["create with ALTER"], None)
        broker.wait_described({ADMIN_ROWS[0], ADMIN_ROWS[1], alter})
        deleted = list(bob.delete_acls([exactly(ADMIN_ROWS[0])]).values())[0].result(20)
        seen["delete with ALTER"] = sorted(row_of(b) for b in deleted)
        self.assertEqual(seen["delete with ALTER"], [ADMIN_ROWS[0]])
        broker.wait_described({ADMIN_ROWS[1], alter})
        return seen


def acl_command_refusal(broker, user):
    """The exception Kafka's AclCommand --list reports as user (None if it lists)."""
    config = os.path.join(WORK_DIR, "%s-%s.properties" % (broker.name, user))
    with open(config, "w") as f:
        f.write("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
                "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                'username="%s" password="%s";\n' % (user, PASSWORDS[user]))
    code, out, err = run([os.path.join(SOURCE_DIR, "scripts/kafka-run-class.sh"), "org.apache.kafka.tools.AclCommand",
                          "--bootstrap-server", broker.bootstrap, "--command-config", config, "--list"], 60,
                         java_env())
    m = re.search(r"org\.apache\.kafka\.common\.errors\.(\w+)", out + err)
    if code == 0 and not m:
        return None
    if not m:
        raise AssertionError("%s: AclCommand --list as %s exited %d:\n%s%s" % (broker.name, user, code, out, err))
    return m.group(1)


class ProducerAclTest(AclTest):
    """A producer as bob loses WRITE on its topic mid-run and gets it back."""
    ACKED_BEFORE = 30   # acknowledged records before WRITE goes
    REFUSED = 20        # refusals (delivery reports and produce() calls) before it comes back
    ACKED_AFTER = 30    # acknowledged records sent after it came back

    def test_producer(self):
        self.on_both(self.produce_through_revocation, False)

    def test_idempotent_producer(self):
        self.on_both(self.produce_through_revocation, True)

    def produce_through_revocation(self, broker, idempotent):
        topic = "acl-produce-" + ("idempotent" if idempotent else "plain")
        broker.create_topics([topic])
        write = acl("TOPIC", topic, "LITERAL", "User:bob", "WRITE")
        broker.grant([write])

        sent, acked, refused = [], [], {}        # values; refused: value -> error
        sync_errors, client_errors = collections.Counter(), collections.Counter()
        regranted_at = [None]                    # the first value sent after WRITE came back

        def report(err, msg):
            value = msg.value().decode()
            if err is None:
                acked.append(value)
            else:
                refused[value] = err.name()

        p = Producer({**broker.conf("bob"), "acks": "all", "enable.idempotence": idempotent, "linger.ms": 5,
                      "message.timeout.ms": 30000, "error_cb": lambda e: client_errors.update([e.name()])})
        seq = [0]

        def send_until(done, timeout_s, what):
            # One record every few milliseconds, delivery reports served in between.
            deadline = time.monotonic() + timeout_s
            while not done():
                if time.monotonic() > deadline:
                    raise AssertionError("%s: timed out waiting for %s (sent %d, acknowledged %d, refused %s, "
                                         "produce() refused %s, client errors %s)"
                                         % (broker.name, what, len(sent), len(acked),
                                            collections.Counter(refused.values()), sync_errors, client_errors))
                value = "%s-%05d" % (topic, seq[0])
                seq[0] += 1
                try:
                    p.produce(topic, value.encode(), on_delivery=report)
                    sent.append(value)
                except KafkaException as e:  # the client knows the topic is refused (metadata)
                    sync_errors[e.args[0].name()] += 1
                except BufferError:
                    pass
                p.poll(0.005)

        try:
            send_until(lambda: len(acked) >= self.ACKED_BEFORE, 20, "%d acknowledged records" % self.ACKED_BEFORE)
            broker.revoke([write], wait=False)
            send_until(lambda: refused and len(refused) + sum(sync_errors.values()) >= self.REFUSED, 20,
                       "refused deliveries")
            broker.grant([write])
            regranted_at[0] = seq[0]
            resumed = lambda: sum(1 for v in acked if int(v.rsplit("-", 1)[1]) >= regranted_at[0])
            send_until(lambda: resumed() >= self.ACKED_AFTER, 20,
                       "%d acknowledged records after WRITE came back" % self.ACKED_AFTER)
            self.assertEqual(p.flush(30), 0, "records without a delivery report")
        finally:
            p.purge()
            p.flush(5)

        self.assertEqual(len(acked) + len(refused), len(sent), "delivery reports")
        self.assertEqual(set(refused.values()), {TOPIC_AUTHZ}, "refused deliveries' errors")
        self.assertLessEqual(set(sync_errors), {TOPIC_AUTHZ}, "produce()'s errors")
        self.assertEqual(dict(client_errors), {}, "the producer's errors")

        log = broker.read_all(topic)
        in_log = collections.Counter(log)
        lost = [v for v in acked if v not in in_log]
        self.assertEqual(lost, [], "acknowledged records missing from %s" % topic)
        written = [v for v in refused if v in in_log]
        self.assertEqual(written, [], "refused records written to %s" % topic)
        if idempotent:
            self.assertEqual([v for v, n in in_log.items() if n > 1], [], "duplicates in " + topic)
            self.assertEqual(log, sorted(log), "the order of " + topic)
        return {"refused": sorted(set(refused.values())), "produce() refused": sorted(sync_errors),
                "client errors": sorted(client_errors)}


class ConsumerAclTest(AclTest):
    """A consumer in a group as bob loses READ on its topic, gets it back, then loses READ on its group."""
    BATCH = 20
    REFUSED_S = 1.5  # how long the consumer polls without READ on its topic

    def test_consumer(self):
        self.on_both(self.consume_through_revocation)

    def consume_through_revocation(self, broker):
        topic, group = "acl-consume", "acl-readers"
        broker.create_topics([topic])
        read_topic = acl("TOPIC", topic, "LITERAL", "User:bob", "READ")
        read_group = acl("GROUP", group, "LITERAL", "User:bob", "READ")
        broker.grant([read_topic, read_group])

        producer = Producer({**broker.conf("admin"), "acks": "all"})
        produced = []

        def produce(count):
            for _ in range(count):
                value = "%s-%04d" % (topic, len(produced))
                producer.produce(topic, value.encode())
                produced.append(value)
            self.assertEqual(producer.flush(20), 0, "admin's records")

        got = {}                                   # offset -> values read there (several if read again)
        errors = collections.Counter()             # what the consumer reported, message errors and error_cb
        c = Consumer({**broker.conf("bob"), "group.id": group, "auto.offset.reset": "earliest",
                      "heartbeat.interval.ms": 300, "session.timeout.ms": 2500, "fetch.error.backoff.ms": 100,
                      "topic.metadata.refresh.interval.ms": 1000, "error_cb": lambda e: errors.update([e.name()])})

        def consume_until(done, timeout_s, what):
            deadline = time.monotonic() + timeout_s
            while not done():
                if time.monotonic() > deadline:
                    raise AssertionError("%s: timed out waiting for %s (read %d of %d, errors %s)"
                                         % (broker.name, what, len(got), len(produced), dict(errors)))
                for m in c.consume(num_messages=100, timeout=0.1):
                    if m.error():
                        errors[m.error().name()] += 1
                    else:
                        got.setdefault(m.offset(), []).append(m.value().decode())

        seen = {}
        try:
            produce(self.BATCH)
            c.subscribe([topic])
            consume_until(lambda: len(got) >= self.BATCH, 30, "the first records")

            broker.revoke([read_topic])
            errors.clear()
            # A fetch the broker took before READ went may still be answered with what arrives while it
            # waits: the second batch goes once the consumer has been refused.
            consume_until(lambda: errors[TOPIC_AUTHZ] > 0, 20, TOPIC_AUTHZ)
            produce(self.BATCH)
            # Nothing can be waited for here: the consumer keeps polling (and the broker refusing its
            # fetches) for REFUSED_S, and must be served nothing of the second batch.
            refused_until = time.monotonic() + self.REFUSED_S
            consume_until(lambda: time.monotonic() > refused_until, self.REFUSED_S + 5, "the refusal window")
            seen["without topic READ"] = sorted(errors)
            self.assertEqual(len(got), self.BATCH, "records read without READ on the topic")

            broker.grant([read_topic])
            consume_until(lambda: len(got) >= len(produced), 30, "the records after READ came back")
            self.assertEqual([got[o][0] for o in sorted(got)], produced, "the records read, by offset")
            self.assertEqual(sorted(got), list(range(len(produced))), "the offsets read")
            self.assertTrue(all(len(set(vs)) == 1 for vs in got.values()), "records read again differ")

            broker.revoke([read_group])
            errors.clear()
            produce(5)
            consume_until(lambda: errors[GROUP_AUTHZ] > 0, 20, GROUP_AUTHZ)
            seen["without group READ"] = sorted(errors)
            # A commit needs READ on the group first.
            try:
                c.commit(offsets=[TopicPartition(topic, 0, len(produced))], asynchronous=False)
                seen["commit without group READ"] = None
            except KafkaException as e:
                seen["commit without group READ"] = e.args[0].name()
            self.assertEqual(seen["commit without group READ"], GROUP_AUTHZ)
        finally:
            c.close()
        self.assertIn(TOPIC_AUTHZ, seen["without topic READ"])
        self.assertIn(GROUP_AUTHZ, seen["without group READ"])
        return seen


class RegexAclTest(AclTest):
    """bob in a consumer-protocol group (KIP-848) subscribes with a regular expression that matches three topics:
    the group coordinator gives him the partitions of those he may describe, and of no other (Kafka resolves the
    expression in the member's context); one he may not describe is left out, not refused."""

    def test_regex_subscription(self):
        self.on_both(self.subscribe_by_regex)

    def subscribe_by_regex(self, broker):
        topics, group = ["acl-rx-read", "acl-rx-describe", "acl-rx-hidden"], "acl-rx-group"
        broker.create_topics(topics)
        broker.grant([acl("GROUP", group, "LITERAL", "User:bob", "READ"),
                      acl("TOPIC", "acl-rx-read", "LITERAL", "User:bob", "READ"),
                      acl("TOPIC", "acl-rx-describe", "LITERAL", "User:bob", "DESCRIBE")])
        errors = collections.Counter()
        c = Consumer({**broker.conf("bob"), "group.id": group, "group.protocol": "consumer",
                      "error_cb": lambda e: errors.update([e.name()])})
        try:
            c.subscribe(["^acl-rx-.*"])
            deadline = time.monotonic() + 30
            while len(c.assignment()) < 2:
                if time.monotonic() > deadline:
                    raise AssertionError("%s: timed out waiting for bob's assignment (has %s, errors %s)"
                                         % (broker.name, c.assignment(), dict(errors)))
                c.poll(0.2)
            assigned = sorted(p.topic for p in c.assignment())
        finally:
            c.close()
        self.assertEqual(assigned, ["acl-rx-describe", "acl-rx-read"], "bob's partitions")
        return {"assigned": assigned}


KCAT = shutil.which("kcat")

# The topics of MetadataAclTest, the ACLs bob has on them and which he must see.
VISIBILITY = [
    ("vis-read", [acl("TOPIC", "vis-read", "LITERAL", "User:bob", "READ")], True),
    ("vis-write", [acl("TOPIC", "vis-write", "LITERAL", "User:bob", "WRITE")], True),
    ("vis-alter", [acl("TOPIC", "vis-alter", "LITERAL", "User:bob", "ALTER")], True),
    ("vis-all", [acl("TOPIC", "vis-all", "LITERAL", "User:*", "ALL")], True),
    ("vis-pre-1", [acl("TOPIC", "vis-pre-", "PREFIXED", "User:bob", "DESCRIBE")], True),
    ("vis-pre-2", [], True),
    ("vis-pre-denied", [acl("TOPIC", "vis-pre-denied", "LITERAL", "User:bob", "DESCRIBE", "DENY")], False),
    ("vis-create", [acl("TOPIC", "vis-create", "LITERAL", "User:bob", "CREATE")], False),
    ("vis-other-host", [acl("TOPIC", "vis-other-host", "LITERAL", "User:bob", "DESCRIBE", host="10.9.9.9")], False),
    ("vis-alice", [acl("TOPIC", "vis-alice", "LITERAL", "User:alice", "DESCRIBE")], False),
    ("vis-hidden", [], False),
]


class MetadataAclTest(AclTest):
    """bob's metadata shows the topics he may describe, and only them."""

    def test_visible_topics(self):
        self.on_both(self.visible_topics)

    def visible_topics(self, broker):
        broker.create_topics([t for t, _, _ in VISIBILITY])
        broker.grant([row for _, rows, _ in VISIBILITY for row in rows])
        bob = AdminClient(broker.conf("bob"))
        listed = set(bob.list_topics(timeout=10).topics)
        want = {t for t, _, visible in VISIBILITY if visible}
        self.assertEqual({t for t in listed if t.startswith("vis-")}, want, "bob's topics")
        # The others are what the other tests left: none of them is bob's.
        self.assertEqual(listed - want, set(), "bob's topics")
        seen = {"listed": sorted(listed)}

        # Asked by name, a topic bob may not describe is refused whether it exists or not, and not created.
        seen["by name"] = {}
        for name in [t for t, _, _ in VISIBILITY] + ["vis-missing"]:
            md = bob.list_topics(topic=name, timeout=10)
            if name not in md.topics:
                seen["by name"][name] = "absent"
            else:
                err = md.topics[name].error
                seen["by name"][name] = None if err is None else err.name()
            self.assertEqual(seen["by name"][name], None if name in want else TOPIC_AUTHZ, "bob's metadata of " + name)
        self.assertNotIn("vis-missing", broker.admin.list_topics(timeout=10).topics)

        if KCAT:
            code, out, err = run([KCAT, "-b", broker.bootstrap] + [
                a for k, v in broker.conf("bob").items() if k != "bootstrap.servers" for a in ("-X", "%s=%s" % (k, v))]
                + ["-L"], 30)
            self.assertEqual(code, 0, out + err)
            kcat_topics = {line.split('"')[1] for line in out.splitlines() if line.startswith('  topic "')}
            self.assertEqual(kcat_topics, listed, "kcat -L as bob")
        return seen


def eventually(observe, want, timeout_s, what):
    """observe() once it answers want (an ACL change applies shortly after admin's call returns)."""
    last = [None]

    def settled():
        last[0] = observe()
        return last[0] == want

    try:
        wait_for(settled, timeout_s, what)
    except AssertionError:
        raise AssertionError("timed out waiting for %s: still %r, not %r" % (what, last[0], want))
    return last[0]


def config_outcome(client, restype, name, key):
    """describe_configs of one resource as client: ("ok", the value of key) or the error it failed with."""
    f = list(client.describe_configs([ConfigResource(restype, name)], request_timeout=10).values())[0]
    try:
        entries = f.result(20)
    except KafkaException as e:
        return ("error", e.args[0].name())
    return ("ok", entries[key].value if key in entries else None)


def topics_of(client, prefix=""):
    """The topics client's metadata lists (those starting with prefix)."""
    return {t for t in client.list_topics(timeout=10).topics if t.startswith(prefix)}


def topic_outcome(client, topic):
    """client's metadata of topic asked by name: None, the topic's error, or "absent"."""
    md = client.list_topics(topic=topic, timeout=10)
    if topic not in md.topics:
        return "absent"
    err = md.topics[topic].error
    return None if err is None else err.name()


def groups_of(client, prefix):
    """The groups list_consumer_groups answers client (those starting with prefix)."""
    result = client.list_consumer_groups(request_timeout=10).result(20)
    return sorted(g.group_id for g in result.valid if g.group_id.startswith(prefix))


class BobProducer:
    """bob's producer (acks=all), one record at a time: send() waits for the record's delivery report and
    answers None or the error it failed with (produce()'s own when the client already knows the topic is
    refused). Acknowledged values go to log[topic], in order, so that log holds each topic as written."""

    def __init__(self, broker, log):
        self.broker, self.log = broker, log
        self.seq = 0
        self.client_errors = collections.Counter()
        # Metadata every second: a topic bob was refused comes back to him within a second of its reopening.
        self.p = Producer({**broker.conf("bob"), "acks": "all", "linger.ms": 0, "message.timeout.ms": 10000,
                           "topic.metadata.refresh.interval.ms": 1000,
                           "error_cb": lambda e: self.client_errors.update([e.name()])})

    def send(self, topic, timeout_s=15):
        value = "bob-%s-%04d" % (topic, self.seq)
        self.seq += 1
        report = []
        try:
            self.p.produce(topic, value.encode(), on_delivery=lambda err, msg: report.append(err))
        except KafkaException as e:
            return e.args[0].name()
        deadline = time.monotonic() + timeout_s
        while not report:
            if time.monotonic() > deadline:
                raise AssertionError("%s: no delivery report for bob's %s" % (self.broker.name, value))
            self.p.poll(0.01)
        if report[0] is None:
            self.log[topic].append(value)
            return None
        return report[0].name()

    def send_until(self, topic, want, timeout_s=15):
        """Sends until a record's outcome is want; admin's ACL change applies shortly after his call returns."""
        def attempt():
            got = self.send(topic)
            if got != want:
                self.p.poll(0.05)
            return got
        return eventually(attempt, want, timeout_s, "%s: bob's records to %s" % (self.broker.name, topic))

    def sends(self, topics):
        return {t: self.send(t) for t in topics}

    def close(self):
        self.p.purge()
        self.p.flush(5)


def idempotent_delivery(broker, topic):
    """One record from an idempotent producer as bob: (the error it failed with or None, the client's errors)."""
    errors, report = collections.Counter(), []
    p = Producer({**broker.conf("bob"), "enable.idempotence": True, "message.timeout.ms": 10000,
                  "error_cb": lambda e: errors.update([e.name()])})
    try:
        p.produce(topic, b"idempotent", on_delivery=lambda err, msg: report.append(err))
        deadline = time.monotonic() + 15
        while not report:
            if time.monotonic() > deadline:
                raise AssertionError("%s: no delivery report for bob's idempotent record (errors %s)"
                                     % (broker.name, dict(errors)))
            p.poll(0.01)
    finally:
        p.purge()
        p.flush(5)
    return (None if report[0] is None else report[0].name(), sorted(errors))


class BobReader:
    """bob's consumer of partition 0 of each topic, assigned from the beginning (its group only names it: no
    coordinator is involved), the values it read per topic and the errors it reported. librdkafka names the
    topic of a refusal or not depending on whether Fetch or Metadata told it first: errors are counted by
    name alone."""

    def __init__(self, broker, group, topics):
        self.broker = broker
        self.got = collections.defaultdict(list)
        self.errors = collections.Counter()
        self.c = Consumer({**broker.conf("bob"), "group.id": group, "enable.auto.commit": False,
                           "fetch.error.backoff.ms": 100, "topic.metadata.refresh.interval.ms": 1000,
                           "error_cb": lambda e: self.errors.update([e.name()])})
        self.c.assign([TopicPartition(t, 0, OFFSET_BEGINNING) for t in topics])

    def poll_until(self, done, timeout_s, what):
        deadline = time.monotonic() + timeout_s
        while not done():
            if time.monotonic() > deadline:
                raise AssertionError("%s: timed out waiting for %s (read %s, errors %s)"
                                     % (self.broker.name, what, dict(self.got), dict(self.errors)))
            for m in self.c.consume(num_messages=100, timeout=0.05):
                if m.error():
                    self.errors[m.error().name()] += 1
                else:
                    self.got[m.topic()].append(m.value().decode())

    def wait_refused(self, timeout_s, what):
        """Polls until the consumer reports a TOPIC_AUTHORIZATION_FAILED it had not reported before."""
        before = self.errors[TOPIC_AUTHZ]
        self.poll_until(lambda: self.errors[TOPIC_AUTHZ] > before, timeout_s, what)

    def close(self):
        self.c.close()


# AllowEveryoneAclTest's topics: what alice's ACLs do to them, for bob.
OPEN_LITERAL = "everyone-literal"       # closed by a LITERAL ACL on its name
OPEN_PREFIXED = "everyone-prefixed-1"   # closed by a PREFIXED ACL on "everyone-prefixed-"
OPEN_FREE = "everyone-free"             # no ACL names it: closed only by the wildcard
OPEN_TOPICS = [OPEN_LITERAL, OPEN_PREFIXED, OPEN_FREE]


class AllowEveryoneAclTest(AclTest):
    """allow.everyone.if.no.acl.found=true, on a second pair of brokers: a resource no ACL applies to is open
    to every principal, and any ACL that applies to it (LITERAL on its name, PREFIXED on a start of it, the
    wildcard), whoever it names, closes it to everyone else. bob is neither a super user nor named by any ACL
    here: what he may do follows from which resources have ACLs at all."""
    brokers = OPEN_BROKERS
    REFUSED_S = 1.0  # how long bob's consumer polls a closed topic that has a new record

    @classmethod
    def setUpClass(cls):
        if WORK_DIR is not None:
            start_brokers(OPEN_BROKERS, os.path.join(WORK_DIR, "allow-everyone"), OPEN_SETTINGS)

    @classmethod
    def tearDownClass(cls):
        OPEN_BROKERS.stop()

    def test_no_acls(self):
        self.on_both(self.without_acls)

    def without_acls(self, broker):
        topic, group, count = "everyone-bobs", "everyone-readers", 10
        bob = AdminClient(broker.conf("bob"))
        seen = {}
        # No ACL on the cluster: bob may create a topic (CREATE on the cluster).
        broker.create_topics([topic], client=bob)
        log = collections.defaultdict(list)
        producer = BobProducer(broker, log)
        try:
            seen["produce"] = sorted(set(producer.send(topic) for _ in range(count)), key=str)
        finally:
            producer.close()
        self.assertEqual(seen["produce"], [None], "bob's deliveries to " + topic)

        # A consumer in a group: FindCoordinator, JoinGroup, SyncGroup, OffsetFetch, Fetch, OffsetCommit.
        got, errors = [], collections.Counter()
        c = Consumer({**broker.conf("bob"), "group.id": group, "auto.offset.reset": "earliest",
                      "enable.auto.commit": False, "error_cb": lambda e: errors.update([e.name()])})
        try:
            c.subscribe([topic])
            deadline = time.monotonic() + 30
            while len(got) < count:
                if time.monotonic() > deadline:
                    raise AssertionError("%s: bob's consumer read %d of %d (errors %s)"
                                         % (broker.name, len(got), count, dict(errors)))
                for m in c.consume(num_messages=100, timeout=0.1):
                    if m.error():
                        errors[m.error().name()] += 1
                    else:
                        got.append(m.value().decode())
            seen["commit"] = None
            try:
                c.commit(asynchronous=False)
            except KafkaException as e:
                seen["commit"] = e.args[0].name()
        finally:
            c.close()
        seen["consumer errors"] = sorted(errors)
        self.assertEqual(got, log[topic], "what bob's consumer read")
        self.assertEqual((seen["commit"], seen["consumer errors"]), (None, []), "bob's commit and consumer errors")

        # The internal topic the group's coordinator created is open to him too, like any no ACL applies to.
        # (The other tests' topics may be listed or not, as their ACLs left them.)
        seen["listed"] = sorted(t for t in topics_of(bob) if t == topic or t.startswith("__"))
        self.assertEqual(seen["listed"], ["__consumer_offsets", topic], "bob's topics")
        seen["describe_configs"] = config_outcome(bob, ResourceType.TOPIC, topic, "cleanup.policy")
        self.assertEqual(seen["describe_configs"], ("ok", "delete"), "bob's describe_configs of " + topic)
        return seen

    def test_acls_for_alice_close_topics_to_bob(self):
        self.on_both(self.closed_by_acls_for_alice)

    def closed_by_acls_for_alice(self, broker):
        literal = acl("TOPIC", OPEN_LITERAL, "LITERAL", "User:alice", "READ")
        prefixed = acl("TOPIC", "everyone-prefixed-", "PREFIXED", "User:alice", "WRITE")
        wildcard = acl("TOPIC", "*", "LITERAL", "User:alice", "READ")
        broker.create_topics(OPEN_TOPICS)
        bob = AdminClient(broker.conf("bob"))
        log = collections.defaultdict(list)      # topic -> every value written to it, in order
        producer = BobProducer(broker, log)
        reader = BobReader(broker, "everyone-fetch", OPEN_TOPICS)
        admin_producer = Producer({**broker.conf("admin"), "acks": "all"})

        def admin_writes(tag):
            for t in OPEN_TOPICS:
                admin_producer.produce(t, ("admin-%s-%s" % (t, tag)).encode())
            self.assertEqual(admin_producer.flush(20), 0, "admin's records")
            for t in OPEN_TOPICS:
                log[t].append("admin-%s-%s" % (t, tag))

        def observe(step, open_topics):
            # What bob sees of each topic once the step's first change has shown: his producer's next
            # record, the topic in his metadata (all topics, and by name), describe_configs.
            seen[step] = {"produce": producer.sends(OPEN_TOPICS),
                          "listed": sorted(topics_of(bob) & set(OPEN_TOPICS)),
                          "by name": {t: topic_outcome(bob, t) for t in OPEN_TOPICS},
                          "describe_configs": {t: config_outcome(bob, ResourceType.TOPIC, t, "cleanup.policy")
                                               for t in OPEN_TOPICS}}
            self.assertEqual(seen[step], {
                "produce": {t: None if t in open_topics else TOPIC_AUTHZ for t in OPEN_TOPICS},
                "listed": sorted(open_topics),
                "by name": {t: None if t in open_topics else TOPIC_AUTHZ for t in OPEN_TOPICS},
                "describe_configs": {t: ("ok", "delete") if t in open_topics else ("error", TOPIC_AUTHZ)
                                     for t in OPEN_TOPICS}}, "%s: what bob sees %s" % (broker.name, step))

        seen = {}
        try:
            # No ACLs: bob writes to and reads all three.
            observe("without ACLs", OPEN_TOPICS)
            reader.poll_until(lambda: all(reader.got[t] == log[t] for t in OPEN_TOPICS), 20, "bob's records")

            # alice's ACLs on one topic's name and on a prefix of another's close both to bob (his producer,
            # which knew them, is refused by Produce first); the third stays open.
            broker.grant([literal, prefixed])
            producer.send_until(OPEN_LITERAL, TOPIC_AUTHZ)
            producer.send_until(OPEN_PREFIXED, TOPIC_AUTHZ)
            observe("with alice's literal and prefixed ACLs", [OPEN_FREE])
            # bob's consumer is refused the closed ones (Fetch) and served nothing written there since, while
            # it reads on in the open one.
            reader.wait_refused(20, TOPIC_AUTHZ + " on the closed topics")
            admin_writes("closed")
            reader.poll_until(lambda: reader.got[OPEN_FREE] == log[OPEN_FREE], 20, "the open topic's records")
            window_end = time.monotonic() + self.REFUSED_S
            reader.poll_until(lambda: time.monotonic() > window_end, self.REFUSED_S + 5, "the refusal window")
            seen["read while closed"] = {t: [v for v in reader.got[t] if v.endswith("-closed")]
                                         for t in OPEN_TOPICS}
            self.assertEqual(seen["read while closed"],
                             {OPEN_LITERAL: [], OPEN_PREFIXED: [], OPEN_FREE: ["admin-%s-closed" % OPEN_FREE]},
                             "what bob's consumer read of admin's records written while two topics were closed")

            # A wildcard ACL for alice closes every topic to bob, internal ones included; creating one is
            # CREATE on the cluster, which no ACL names: bob may, and then may not see it.
            broker.grant([wildcard])
            producer.send_until(OPEN_FREE, TOPIC_AUTHZ)
            observe("with alice's wildcard ACL", [])
            seen["with alice's wildcard ACL"]["all listed"] = sorted(topics_of(bob))
            self.assertEqual(seen["with alice's wildcard ACL"]["all listed"], [], "bob's topics")
            reader.wait_refused(20, TOPIC_AUTHZ + " on " + OPEN_FREE)
            made = "everyone-made-under-wildcard"
            seen["bob creates"] = outcome(list(bob.create_topics([NewTopic(made, 1, 1)], operation_timeout=15)
                                               .values())[0])
            self.assertEqual(seen["bob creates"], None, "bob's create_topics under the wildcard")
            broker.wait_leaders([made])
            seen["bob's own"] = topic_outcome(bob, made)
            self.assertEqual(seen["bob's own"], TOPIC_AUTHZ, "bob's metadata of the topic he created")

            # Without the wildcard, the topic no ACL names opens again; then the other two do.
            broker.revoke([wildcard])
            producer.send_until(OPEN_FREE, None)
            observe("without the wildcard", [OPEN_FREE])
            broker.revoke([literal, prefixed])
            producer.send_until(OPEN_LITERAL, None)
            producer.send_until(OPEN_PREFIXED, None)
            observe("without ACLs again", OPEN_TOPICS)
            # bob's consumer reads on where it was refused: every topic as written, refused records nowhere.
            admin_writes("reopened")
            reader.poll_until(lambda: all(reader.got[t] == log[t] for t in OPEN_TOPICS), 20,
                              "every record after the topics reopened")
            seen["consumer errors"] = sorted(reader.errors)
            seen["producer errors"] = sorted(producer.client_errors)
        finally:
            reader.close()
            producer.close()
        self.assertEqual(seen["consumer errors"], [TOPIC_AUTHZ], "bob's consumer's errors")
        self.assertEqual(seen["producer errors"], [], "bob's producer's errors")
        return seen

    def test_cluster_without_acls(self):
        self.on_both(self.cluster_without_acls)

    def cluster_without_acls(self, broker):
        topic, group, free = "everyone-cluster", "everyone-listed", "everyone-idempotent"
        topic_acl = acl("TOPIC", topic, "LITERAL", "User:alice", "READ")
        bobs_acl = acl("GROUP", "everyone-bobs-group", "LITERAL", "User:bob", "READ")
        cluster_acl = acl("CLUSTER", "kafka-cluster", "LITERAL", "User:alice", "DESCRIBE")
        group_acl = acl("GROUP", group, "LITERAL", "User:alice", "READ")
        broker.create_topics([topic, free])
        bob = AdminClient(broker.conf("bob"))
        # A group of bob's: his committed offset (READ on the group and the topic, neither with ACLs).
        c = Consumer({**broker.conf("bob"), "group.id": group, "enable.auto.commit": False})
        try:
            c.commit(offsets=[TopicPartition(topic, 0, 0)], asynchronous=False)
        finally:
            c.close()

        def observe():
            return {"describe_configs(broker 1)": config_outcome(bob, ResourceType.BROKER, "1", "num.partitions"),
                    "list_consumer_groups": groups_of(bob, "everyone-"),
                    "describe_acls": sorted(broker.described(client=bob))}

        seen = {}
        # No ACL on the cluster: bob may describe its configs, list every group and the ACLs, and create ACLs
        # (ALTER on the cluster).
        broker.grant([topic_acl])
        seen["no cluster ACL"] = observe()
        self.assertEqual(seen["no cluster ACL"], {"describe_configs(broker 1)": ("ok", "1"),
                                                  "list_consumer_groups": [group],
                                                  "describe_acls": [topic_acl]}, "what bob sees")
        seen["create_acls"] = outcome(list(bob.create_acls([binding(bobs_acl)]).values())[0])
        self.assertEqual(seen["create_acls"], None, "bob's create_acls")
        broker.wait_described({topic_acl, bobs_acl})

        # An ACL on the cluster for alice closes it to bob: its configs, the ACLs; ListGroups then shows him the
        # groups he may describe, which are those no ACL applies to.
        broker.grant([cluster_acl])
        refused = {"describe_configs(broker 1)": ("error", CLUSTER_AUTHZ), "list_consumer_groups": [group],
                   "describe_acls": []}  # (librdkafka drops DescribeAcls' error code: an empty list)
        seen["alice's cluster ACL"] = eventually(observe, refused, 15, "%s: the cluster closed to bob" % broker.name)
        seen["create_acls with alice's cluster ACL"] = outcome(list(bob.create_acls([binding(bobs_acl)])
                                                                    .values())[0])
        self.assertEqual(seen["create_acls with alice's cluster ACL"], ("error", CLUSTER_AUTHZ), "bob's create_acls")
        # An idempotent producer's InitProducerId needs IDEMPOTENT_WRITE on the cluster, or WRITE on topics by
        # resource type: Kafka asks that first of a made-up topic name, which no ACL covers, so bob may.
        seen["idempotent producer with alice's cluster ACL"] = idempotent_delivery(broker, free)
        self.assertEqual(seen["idempotent producer with alice's cluster ACL"], (None, []),
                         "bob's idempotent producer's delivery and errors")
        # One for alice on the group too, and it leaves bob's list.
        broker.grant([group_acl])
        seen["alice's group ACL"] = eventually(lambda: groups_of(bob, "everyone-"), [], 15,
                                               "%s: %s hidden from bob" % (broker.name, group))

        broker.revoke([cluster_acl, group_acl])
        reopened = dict(seen["no cluster ACL"], describe_acls=sorted([topic_acl, bobs_acl]))
        seen["without them"] = eventually(observe, reopened, 15, "%s: the cluster open to bob again" % broker.name)
        return seen


def main():
    global HIGHWATER, SOURCE_DIR
    args, rest = broker_pair.parse_arguments()
    HIGHWATER, SOURCE_DIR = args.highwater, args.source_dir
    broker_pair.run_tests(rest, close_brokers, lambda seconds: broker_pair.print_failure_logs(FAILURE_LOGS))


if __name__ == "__main__":
    main()
