"""The workloads run against one started cluster, in order. Each is a
function (session) -> dict of metrics; a failure raises ToolError, which the
round loop records as a finding. CPU per GB is added by the round loop for
every workload that reports the bytes it moved."""

import json
import os
import re
import sys
import threading
import time

from . import procstat, security
from .tools import ToolError

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import kafka_wire  # noqa: E402

# Workload name -> (kind of record sizes key, record size, acks) for the
# producer-perf-test runs; consumers read the acks=1 topics back.
PRODUCER_RUNS = [
    ("producer_1k_acks1", 1024, "1"),
    ("producer_100b_acks1", 100, "1"),
    ("producer_1k_acksall_idempotent", 1024, "all"),
    ("producer_100b_acksall_idempotent", 100, "all"),
]
CONSUMER_RUNS = [
    ("consumer_1k", "producer_1k_acks1", 1024),
    ("consumer_100b", "producer_100b_acks1", 100),
]
# Transactions: ProducerPerformance committing every 100 ms, then a
# read_committed ConsumerPerformance over what it wrote; and committing
# every second.
TXN_ID = "perf-transactional"
TRANSACTIONAL_PRODUCER = ("producer_1k_transactional", 1024, "all")
TRANSACTIONAL_PRODUCER_1S = ("producer_1k_transactional_1s", 1024, "all")
READ_COMMITTED_CONSUMER = ("consumer_1k_read_committed", "producer_1k_transactional", 1024)

TOOL_TIMEOUT_S = 240
# The start-up probe's topic (auto-created by its first produce); the acls
# sessions' first authorized produce goes to it too.
PROBE_TOPIC = "startup-probe"


class Session:
    """One started cluster of one kind in one round, with what the
    workloads need: the tools, the sizes and the topics already filled."""

    def __init__(self, cluster, tools, sizes, log):
        self.cluster = cluster
        self.tools = tools
        self.sizes = sizes
        self.log = log
        self.findings = []  # non-fatal problems seen in a workload's output
        self.produced = {}  # topic -> records acknowledged
        self.tls = tools.security.ssl_context()  # the harness's own requests to the client listener

    def create_topic(self, topic, partitions):
        """Creates the topic (hw_loadgen, CreateTopics); the seconds that took."""
        t0 = time.monotonic()
        self.tools.loadgen("create-topic", ["--bootstrap", self.cluster.bootstrap, "--topic", topic,
                                            "--partitions", partitions,
                                            "--replication-factor", self.cluster.replication_factor], 60)
        took = time.monotonic() - t0
        self.last_usable_s = took
        if len(self.cluster.nodes) > 1:
            # Each node learns of the topic from the metadata log a moment
            # after CreateTopics returns (in both kinds); a client asking a
            # node that has not yet would be told UNKNOWN_TOPIC_OR_PARTITION.
            wait_for(f"{topic} known to every node", lambda: whole_everywhere(self, topic, partitions), 60)
            self.last_usable_s = time.monotonic() - t0
        return took

    def records_for(self, size):
        return self.sizes["records_1k"] if size >= 1024 else self.sizes["records_100b"]


def idle_rss_100_partitions(s):
    """Resident memory of an idle broker holding a 100-partition topic."""
    created_ms = s.create_topic("idle100", 100) * 1000.0
    time.sleep(s.sizes["idle_wait_s"])
    return {"idle_rss_mib": procstat.total_status_mib(s.cluster.pids(), "VmRSS"),
            "create_topic_100_partitions_ms": created_ms,
            "create_topic_100_partitions_everywhere_ms": s.last_usable_s * 1000.0}


_PERF_SUMMARY = re.compile(
    r"(\d+) records sent, ([\d.]+) records/sec \(([\d.]+) MB/sec\), ([\d.]+) ms avg latency, ([\d.]+) ms max latency, "
    r"(\d+) ms 50th, (\d+) ms 95th, (\d+) ms 99th, (\d+) ms 99.9th")


def note_client_warnings(s, workload, tool, output):
    """A client that logged warnings or errors (retries, exceptions) is a
    finding even when the run completed."""
    bad = [line for line in output.splitlines()
           if " WARN " in line or " ERROR " in line or "Exception" in line]
    if bad:
        kinds = sorted({m.group(1) for m in (re.search(r"Error: (\w+)", b) for b in bad) if m})
        s.findings.append({"workload": workload,
                           "error": f"{tool} logged {len(bad)} warning/error lines"
                                    + (f" ({', '.join(kinds)})" if kinds else ""),
                           "output_tail": "\n".join(bad[:4])})


def producer_perf(name, size, acks, extra_args=()):
    def run(s):
        topic = name.replace("_", "-")
        records = s.records_for(size)
        s.create_topic(topic, s.sizes["partitions"])
        props = [f"acks={acks}", f"enable.idempotence={'true' if acks == 'all' else 'false'}"]
        out, err, _ = s.tools.kafka_client(
            "org.apache.kafka.tools.ProducerPerformance",
            ["--bootstrap-server", s.cluster.bootstrap, "--topic", topic, "--num-records", records,
             "--record-size", size, "--throughput", "-1"] + list(extra_args) + ["--command-property"] + props,
            TOOL_TIMEOUT_S)
        m = None
        for m in _PERF_SUMMARY.finditer(out):
            pass
        if not m:
            raise ToolError("no summary line from ProducerPerformance", "ProducerPerformance", out + err)
        sent = int(m.group(1))
        if sent != records:
            raise ToolError(f"{sent} of {records} records sent", "ProducerPerformance", out + err)
        note_client_warnings(s, name, "ProducerPerformance", out + err)
        s.produced[topic] = records
        return {"records_per_s": float(m.group(2)), "mb_per_s": float(m.group(3)),
                "latency_avg_ms": float(m.group(4)), "latency_p50_ms": float(m.group(6)),
                "latency_p99_ms": float(m.group(8)), "latency_p999_ms": float(m.group(9)),
                "bytes": records * size}
    return run


def consumer_perf(name, source, size, props=()):
    def run(s):
        topic = source.replace("_", "-")
        if topic not in s.produced:
            raise ToolError(f"nothing to consume: {source} did not complete", "ConsumerPerformance")
        records = s.produced[topic]
        out, err, _ = s.tools.kafka_client(
            "org.apache.kafka.tools.ConsumerPerformance",
            ["--bootstrap-server", s.cluster.bootstrap, "--topic", topic, "--num-records", records,
             "--group", f"perf-{name}", "--timeout", "30000"] +
            [a for p in props for a in ("--command-property", p)],
            TOOL_TIMEOUT_S)
        lines = [line for line in out.splitlines() if line.strip()]
        header = next((i for i, line in enumerate(lines) if line.startswith("start.time")), None)
        if header is None or header + 1 >= len(lines):
            raise ToolError("no result line from ConsumerPerformance", "ConsumerPerformance", out + err)
        keys = [k.strip() for k in lines[header].split(",")]
        row = dict(zip(keys, (v.strip() for v in lines[header + 1].split(","))))
        consumed = int(row["data.consumed.in.nMsg"])
        if consumed != records:
            raise ToolError(f"consumed {consumed} of {records} records", "ConsumerPerformance", out + err)
        return {"records_per_s": float(row["fetch.nMsg.sec"]), "mb_per_s": float(row["fetch.MB.sec"]),
                "records_per_s_with_join": float(row["nMsg.sec"]),
                "group_join_ms": float(row["rebalance.time.ms"]), "bytes": records * size}
    return run


_E2E_AVG = re.compile(r"Avg latency: ([\d.]+) ms")
_E2E_PCT = re.compile(r"Percentiles: 50th = (\d+), 99th = (\d+), 99.9th = (\d+)")


def order_java_producer(s):
    """Not a benchmark, a check: one Java producer (acks=1, up to 5 requests
    in flight, no retries needed) writes increasing numbers; every partition
    must hold them in increasing order, as Kafka appends a connection's
    requests one after the other."""
    topic, records = "order-check", s.sizes["order_records"]
    s.create_topic(topic, s.sizes["partitions"])
    out, err, _ = s.tools.kafka_client(
        "org.apache.kafka.tools.ProducerPerformance",
        ["--bootstrap-server", s.cluster.bootstrap, "--topic", topic, "--num-records", records,
         "--payload-monotonic", "--throughput", "-1", "--command-property", "acks=1", "enable.idempotence=false"],
        TOOL_TIMEOUT_S)
    note_client_warnings(s, "order_java_producer", "ProducerPerformance", out + err)
    out, err, _ = s.tools.kafka_client(
        "org.apache.kafka.tools.consumer.ConsoleConsumer",
        ["--bootstrap-server", s.cluster.bootstrap, "--topic", topic, "--from-beginning",
         "--max-messages", records, "--timeout-ms", "30000", "--formatter-property", "print.partition=true"],
        TOOL_TIMEOUT_S)
    last, n, out_of_order, first = {}, 0, 0, None
    for line in out.splitlines():
        if not line.startswith("Partition:"):
            continue
        partition, value = line.split("\t", 1)
        value, n = int(value), n + 1
        if value < last.get(partition, -1):
            out_of_order += 1
            first = first or f"{partition}: {value} after {last[partition]}"
        last[partition] = max(last.get(partition, -1), value)
    if n != records:
        raise ToolError(f"read back {n} of {records} records", "ConsoleConsumer", out[-2000:] + err)
    if out_of_order:
        s.findings.append({"workload": "order_java_producer",
                           "error": f"{out_of_order} of {records} records out of order within their partition "
                                    f"(first: {first})"})
    return {"records": n, "out_of_order": out_of_order}


def e2e_latency_kafka_tool(s):
    """Kafka's EndToEndLatency: one 1 KiB record at a time, acks=1, produce
    to consume round trip (its percentiles are whole milliseconds)."""
    topic = "e2e-tool"
    s.create_topic(topic, s.sizes["partitions"])
    out, err, _ = s.tools.kafka_client(
        "org.apache.kafka.tools.EndToEndLatency",
        ["--bootstrap-server", s.cluster.bootstrap, "--topic", topic, "--num-records", s.sizes["e2e_records"],
         "--producer-acks", "1", "--record-size", "1024"],
        TOOL_TIMEOUT_S)
    avg, pct = _E2E_AVG.search(out), _E2E_PCT.search(out)
    if not avg or not pct:
        raise ToolError("no latency summary from EndToEndLatency", "EndToEndLatency", out + err)
    return {"latency_avg_ms": float(avg.group(1)), "latency_p50_ms": float(pct.group(1)),
            "latency_p99_ms": float(pct.group(2)), "latency_p999_ms": float(pct.group(3))}


def e2e_latency_loadgen(s):
    """hw_loadgen at a fixed rate: produce (acks=1, no linger) to consume
    latency of every record, in microseconds."""
    topic = "e2e-loadgen"
    s.create_topic(topic, s.sizes["partitions"])
    r = s.tools.loadgen("e2e", ["--bootstrap", s.cluster.bootstrap, "--topic", topic,
                                "--rate", s.sizes["e2e_rate"], "--seconds", s.sizes["e2e_seconds"],
                                "--record-size", 1024], TOOL_TIMEOUT_S)
    if r["received"] != r["sent"]:
        raise ToolError(f"received {r['received']} of {r['sent']} records", "hw_loadgen e2e", str(r))
    lat = r["latency_ms"]
    return {"records": r["received"], "latency_p50_ms": lat["p50"], "latency_p99_ms": lat["p99"],
            "latency_p999_ms": lat["p999"], "latency_max_ms": lat["max"],
            "ack_latency_p50_ms": r["ack_latency_ms"]["p50"], "ack_latency_p99_ms": r["ack_latency_ms"]["p99"]}


def loadgen_produce(s):
    """hw_loadgen: several librdkafka producers as hard as they go."""
    topic = "loadgen"
    s.create_topic(topic, s.sizes["partitions"])
    r = s.tools.loadgen("produce", ["--bootstrap", s.cluster.bootstrap, "--topic", topic,
                                    "--producers", s.sizes["loadgen_producers"], "--record-size", 1024,
                                    "--seconds", s.sizes["loadgen_seconds"], "--acks", "1",
                                    "--compression", s.sizes["loadgen_compression"]], TOOL_TIMEOUT_S)
    if r["failed"]:
        raise ToolError(f"{r['failed']} records failed: {r['first_error']}", "hw_loadgen produce", str(r))
    s.produced[topic] = r["records"]
    lat = r["latency_ms"]
    return {"records_per_s": r["records_per_s"], "mb_per_s": r["mb_per_s"], "latency_p50_ms": lat["p50"],
            "latency_p99_ms": lat["p99"], "latency_p999_ms": lat["p999"], "bytes": r["bytes"]}


def loadgen_consume(s):
    """hw_loadgen: one librdkafka consumer reads back what loadgen_produce wrote."""
    if "loadgen" not in s.produced:
        raise ToolError("nothing to consume: loadgen_produce did not complete", "hw_loadgen consume")
    want = s.produced["loadgen"]
    r = s.tools.loadgen("consume", ["--bootstrap", s.cluster.bootstrap, "--topic", "loadgen",
                                    "--records", want], TOOL_TIMEOUT_S)
    if r["records"] != want:
        raise ToolError(f"consumed {r['records']} of {want} records", "hw_loadgen consume", str(r))
    return {"records_per_s": r["records_per_s"], "mb_per_s": r["mb_per_s"], "bytes": r["bytes"]}


def loadgen_fill_wide(s):
    """Fills the topic loadgen_consume_parallel reads: hw_loadgen produce
    (3 librdkafka producers, 1 KiB, acks=1) of a fixed record count over
    many partitions. Measured like the other producer lines."""
    topic = "loadgen-wide"
    # Each producer writes an equal share.
    want = s.sizes["wide_records"] // s.sizes["loadgen_producers"] * s.sizes["loadgen_producers"]
    s.create_topic(topic, s.sizes["wide_partitions"])
    r = s.tools.loadgen("produce", ["--bootstrap", s.cluster.bootstrap, "--topic", topic,
                                    "--producers", s.sizes["loadgen_producers"], "--record-size", 1024,
                                    "--records", want, "--acks", "1", "--compression", "none"], TOOL_TIMEOUT_S)
    if r["failed"] or r["records"] != want:
        raise ToolError(f"wrote {r['records']} of {want} records: {r['first_error']}", "hw_loadgen produce", str(r))
    s.produced[topic] = r["records"]
    return {"records_per_s": r["records_per_s"], "mb_per_s": r["mb_per_s"], "bytes": r["bytes"]}


def loadgen_consume_parallel(s):
    """hw_loadgen: several librdkafka consumers at once (one thread and
    client instance each, the partitions split between them) read what
    loadgen_fill_wide wrote, so that the clients together ask more of the
    broker than one consumer's fetch loop does."""
    topic = "loadgen-wide"
    if topic not in s.produced:
        raise ToolError("nothing to consume: loadgen_fill_wide did not complete", "hw_loadgen consume")
    want = s.produced[topic]
    r = s.tools.loadgen("consume", ["--bootstrap", s.cluster.bootstrap, "--topic", topic, "--records", want,
                                    "--consumers", s.sizes["wide_consumers"]], TOOL_TIMEOUT_S)
    if r["records"] != want:
        raise ToolError(f"consumed {r['records']} of {want} records", "hw_loadgen consume", str(r))
    return {"records_per_s": r["records_per_s"], "mb_per_s": r["mb_per_s"], "bytes": r["bytes"]}


def loadgen_fetch_parallel(s):
    """hw_loadgen fetch: readers that cost the client little (one blocking
    connection each, Fetch v12 one at a time over their share of the
    partitions, batch headers read, records not decoded) read what
    loadgen_fill_wide wrote: on two cores the librdkafka consumers take
    four to five times the broker's CPU per GB, so only a reader this cheap
    leaves the broker as the bound."""
    topic = "loadgen-wide"
    if topic not in s.produced:
        raise ToolError("nothing to read: loadgen_fill_wide did not complete", "hw_loadgen fetch")
    want = s.produced[topic]
    records = bytes_ = fetches = 0
    seconds = 0.0
    # The readers take well under a second per pass on Highwater: several
    # passes make a reading long enough to measure.
    for _ in range(s.sizes["fetch_passes"]):
        r = s.tools.loadgen("fetch", ["--bootstrap", s.cluster.bootstrap, "--topic", topic, "--records", want,
                                      "--readers", s.sizes["wide_consumers"]], TOOL_TIMEOUT_S)
        if r["records"] != want:
            raise ToolError(f"read {r['records']} of {want} records", "hw_loadgen fetch", str(r))
        records, bytes_, fetches, seconds = (records + r["records"], bytes_ + r["bytes"], fetches + r["fetches"],
                                             seconds + r["seconds"])
    return {"records_per_s": records / seconds, "mb_per_s": bytes_ / seconds / 1e6, "bytes": bytes_,
            "fetches": fetches}


def loadgen_txn(s):
    """hw_loadgen txn: one librdkafka transactional producer, transactions of
    100 records of 1 KiB back to back; commit and transaction latencies."""
    topic = "loadgen-txn"
    s.create_topic(topic, s.sizes["partitions"])
    r = s.tools.loadgen("txn", ["--bootstrap", s.cluster.bootstrap, "--topic", topic,
                                "--transactions", s.sizes["txn_transactions"], "--records-per-txn", 100,
                                "--record-size", 1024, "--transactional-id", "hw-loadgen-txn"], TOOL_TIMEOUT_S)
    if r["error"] or r["transactions"] != s.sizes["txn_transactions"]:
        raise ToolError(f"{r['transactions']} transactions committed: {r['error']}", "hw_loadgen txn", str(r))
    return {"records_per_s": r["records_per_s"], "mb_per_s": r["mb_per_s"],
            "transactions_per_s": r["transactions_per_s"], "commit_p50_ms": r["commit_ms"]["p50"],
            "commit_p99_ms": r["commit_ms"]["p99"], "commit_max_ms": r["commit_ms"]["max"],
            "transaction_p50_ms": r["transaction_ms"]["p50"], "transaction_p99_ms": r["transaction_ms"]["p99"],
            "bytes": r["bytes"]}


def scram_connections(s):
    """New SCRAM-SHA-512-authenticated connections per second: a user made
    with kafka-configs (4096 iterations, Kafka's default), then hw_loadgen
    scram, sizes["scram_connections"] threads each logging in again and
    again on the SCRAM listeners of every node in turn (a new connection
    per login: ApiVersions, SaslHandshake, the two SaslAuthenticate
    rounds, the server's signature checked, close) for
    sizes["scram_seconds"], after sizes["scram_warmup_seconds"] of the same
    not measured. Every login must succeed. The client caches the
    salted password (hw_loadgen scram: PBKDF2 once per run), so the broker,
    not the client's key derivation, bounds the rate."""
    s.tools.kafka_client(
        "kafka.admin.ConfigCommand",
        ["--bootstrap-server", s.cluster.bootstrap, "--alter", "--entity-type", "users",
         "--entity-name", security.SCRAM_USER, "--add-config",
         f"{security.SCRAM_MECHANISM}=[iterations={security.SCRAM_ITERATIONS},password={security.SCRAM_PASSWORD}]"],
        TOOL_TIMEOUT_S)
    login = s.tools.security.scram_loadgen_args()
    # Each node learns of the credential from the metadata log a moment
    # after kafka-configs returns: hw_loadgen waits for a login on every
    # listener. Then a warm-up, not measured, so that the JVM's JIT has
    # compiled Kafka's login path as it would have on a broker that has run
    # for a while.
    s.tools.loadgen("scram", ["--bootstrap", s.cluster.scram_bootstrap, "--connections", s.sizes["scram_connections"],
                              "--seconds", s.sizes["scram_warmup_seconds"], "--wait-ms", 60000] + login, 120)
    pids = s.cluster.pids()
    cpu0 = procstat.total_cpu_seconds(pids)
    r = s.tools.loadgen("scram", ["--bootstrap", s.cluster.scram_bootstrap,
                                  "--connections", s.sizes["scram_connections"],
                                  "--seconds", s.sizes["scram_seconds"]] + login, TOOL_TIMEOUT_S)
    broker_cpu = procstat.total_cpu_seconds(pids) - cpu0
    if r["failures"] or not r["logins"]:
        raise ToolError(f"{r['failures']} failed logins, {r['logins']} completed: {r['first_error']}",
                        "hw_loadgen scram", str(r))
    return {"logins_per_s": r["logins_per_s"], "logins": r["logins"], "failures": r["failures"],
            "latency_p50_ms": r["latency_ms"]["p50"], "latency_p99_ms": r["latency_ms"]["p99"],
            "broker_cpu_ms_per_login": broker_cpu * 1000.0 / r["logins"],
            "loadgen_cpu_ms_per_login": r["client_cpu_s"] * 1000.0 / r["logins"],
            "connections": r["connections"], "listener": s.tools.security.scram_protocol}


# --- replicated clusters (--nodes 3) ---------------------------------------

def _call(port, request, parse, tls=None):
    conn = kafka_wire.connection(port, timeout=5.0, tls=tls)
    try:
        return conn.call(request, parse)
    finally:
        conn.close()


def partitions_of(s, port, topic):
    """{partition: (error, leader, replicas, isr)} as the node whose
    harness listener (Node.harness_port: the client listener, or the SASL
    modes' PLAINTEXT one) is on port answers Metadata; {} when it does not
    know the topic (yet)."""
    try:
        md = _call(port, kafka_wire.metadata_v1([topic]), kafka_wire.parse_metadata_v1, s.tls)
    except (OSError, ValueError):
        return {}
    parts = md.get(topic)
    return parts if isinstance(parts, dict) else {}


def wait_for(what, predicate, timeout_s, interval_s=0.01):
    """Polls predicate until it is true; the seconds it took, or a ToolError."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout_s:
        if predicate():
            return time.monotonic() - t0
        time.sleep(interval_s)
    raise ToolError(f"{what}: not within {timeout_s} s", "harness")


def whole_everywhere(s, topic, partitions, nodes=None):
    """Every node (of nodes) names a leader for every partition and an
    ISR of all the replicas."""
    for n in nodes or s.cluster.nodes:
        parts = partitions_of(s, n.harness_port, topic)
        if len(parts) != partitions:
            return False
        for err, leader, replicas, isr in parts.values():
            if err or leader < 0 or sorted(isr) != sorted(replicas):
                return False
    return True


def log_ends(s, topic, partitions):
    """{node id: {partition: log end offset}}: ListOffsets with the
    debugging replica id, which every replica answers with its own log end."""
    out = {}
    for n in s.cluster.nodes:
        try:
            answer = _call(n.harness_port, kafka_wire.list_offsets_v1(topic, list(range(partitions))),
                           kafka_wire.parse_list_offsets_v1, s.tls)
        except (OSError, ValueError):
            continue
        out[n.node_id] = {p: off for p, (err, off) in answer.items() if err == 0}
    return out


def _percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q / 100.0 * len(values)))] if values else None


def replication_lag(s):
    """Followers' lag at a steady rate: hw_loadgen e2e writes 1 KiB records
    (acks=1) at a fixed rate while every 100 ms each node is asked its log
    end for every partition (ListOffsets, debugging replica id); a sample's
    lag is the largest (leader's log end - a follower's) over the
    partitions, in records, as Kafka's ReplicaFetcherManager MaxLag counts
    it. The nodes are asked one after another (a fraction of a millisecond
    apart), the same for both brokers."""
    topic, partitions = "replication-lag", s.sizes["partitions"]
    s.create_topic(topic, partitions)
    leaders = {p: v[1] for p, v in partitions_of(s, s.cluster.nodes[0].harness_port, topic).items()}
    argv, proc = s.tools.loadgen_popen("e2e", ["--bootstrap", s.cluster.bootstrap, "--topic", topic,
                                               "--rate", s.sizes["lag_rate"], "--seconds", s.sizes["lag_seconds"],
                                               "--record-size", 1024])
    samples = []
    started = time.monotonic()
    while proc.poll() is None:
        time.sleep(0.1)
        if time.monotonic() - started < 2:  # hw_loadgen's warm-up
            continue
        ends = log_ends(s, topic, partitions)
        lag = 0
        for p, leader in leaders.items():
            top = ends.get(leader, {}).get(p)
            if top is None:
                continue
            for node_id, theirs in ends.items():
                if node_id != leader and p in theirs:
                    lag = max(lag, top - theirs[p])
        samples.append(lag)
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise ToolError(f"exit code {proc.returncode}", " ".join(map(str, argv)), out + err)
    r = json.loads(out.strip().splitlines()[-1])
    if r["received"] != r["sent"]:
        raise ToolError(f"received {r['received']} of {r['sent']} records", "hw_loadgen e2e", str(r))
    if not samples:
        raise ToolError("no lag sample taken", "harness")
    return {"lag_records_p50": _percentile(samples, 50), "lag_records_p99": _percentile(samples, 99),
            "lag_records_max": max(samples), "samples": len(samples),
            "latency_p50_ms": r["latency_ms"]["p50"], "latency_p99_ms": r["latency_ms"]["p99"],
            "ack_latency_p99_ms": r["ack_latency_ms"]["p99"]}


def describe_acls_count(port):
    """How many ACLs the node whose harness listener is on port answers
    DescribeAcls with (any filter): what its authorizer has applied. None
    when it does not answer (yet)."""
    try:
        err, _, bindings = _call(port, kafka_wire.describe_acls_v3(), kafka_wire.parse_describe_acls_v3)
    except (OSError, ValueError):
        return None
    return len(bindings) if err == 0 else None


def install_acls(cluster, tools, bindings):
    """The acls sessions' ACLs, made before the workloads: one CreateAcls
    of them all on the first node's PLAINTEXT listener (as ANONYMOUS, a
    super user), every creation checked; then DescribeAcls of every node
    until each answers exactly that many (a node's authorizer applies the
    metadata log's ACL records asynchronously), then one produce as the
    bench user on the client listener (hw_loadgen probe, retrying while it
    is refused) must be acknowledged. The milliseconds each step took."""
    t0 = time.monotonic()
    try:
        conn = kafka_wire.connection(cluster.nodes[0].harness_port, timeout=60.0)
        try:
            results = conn.call(kafka_wire.create_acls_v3(bindings), kafka_wire.parse_create_acls_v3)
        finally:
            conn.close()
    except (OSError, ValueError) as e:
        raise ToolError(f"CreateAcls of {len(bindings)} ACLs: {e!r}", "CreateAcls") from None
    created_ms = (time.monotonic() - t0) * 1000.0
    failed = [(b, r) for b, r in zip(bindings, results) if r[0] != 0]
    if len(results) != len(bindings) or failed:
        raise ToolError(f"CreateAcls: {len(results)} results for {len(bindings)} creations, {len(failed)} failed",
                        "CreateAcls", "\n".join(f"{b}: error {r[0]} {r[1]}" for b, r in failed[:10]))
    want = len(bindings)
    counts = {}

    def everywhere():
        for n in cluster.nodes:
            counts[n.node_id] = describe_acls_count(n.harness_port)
        return all(c == want for c in counts.values())

    try:
        wait_for(f"{want} ACLs in every node's DescribeAcls", everywhere, 60, 0.05)
    except ToolError as e:
        e.output = f"DescribeAcls counts by node: {counts}"
        raise
    described_ms = (time.monotonic() - t0) * 1000.0
    r = tools.loadgen("probe", ["--bootstrap", cluster.bootstrap, "--topic", PROBE_TOPIC, "--timeout-ms", 60000], 90)
    return {"acls": want, "create_acls_ms": created_ms, "described_everywhere_ms": described_ms,
            "first_authorized_produce_ms": (time.monotonic() - t0) * 1000.0, "probe_attempts": r["attempts"]}


def active_controller(s):
    """The quorum's leader, asked of each node's controller listener."""
    for n in s.cluster.nodes:
        try:
            err, leader, _, _, _ = _call(n.controller_port, kafka_wire.describe_quorum_v2(),
                                         kafka_wire.parse_describe_quorum_v2)
        except (OSError, ValueError):
            continue
        if err == 0 and leader >= 0:
            return leader
    raise ToolError("no node names the quorum's leader", "DescribeQuorum")


def leader_failover(s):
    """SIGKILL of a partition's leader (a broker that is not the active
    controller, so the quorum keeps its leader), then: how long until a
    surviving node names a new leader (Metadata every 10 ms), and until the
    first acks=all produce is accepted (hw_loadgen probe: one record sent
    right after the kill, librdkafka with short back-offs, bootstrapped on
    the survivors, which moves the record to the new leader once its
    metadata names one). The
    broker is then started again; how long until it is back in the ISR.
    Both kinds use their default broker.session.timeout.ms (9 s), the time
    the controller waits for heartbeats before it fences the broker."""
    topic = "failover"
    controller = active_controller(s)
    victim = next(n for n in s.cluster.nodes if n.node_id != controller)
    others = [n for n in s.cluster.nodes if n is not victim]
    assignment = ":".join(str(n.node_id) for n in [victim] + others)
    s.tools.kafka_client("org.apache.kafka.tools.TopicCommand",
                       ["--bootstrap-server", s.cluster.bootstrap, "--create", "--topic", topic,
                        "--replica-assignment", assignment], 120)
    wait_for("the failover topic led by its first replica, ISR whole",
             lambda: whole_everywhere(s, topic, 1)
             and partitions_of(s, victim.harness_port, topic).get(0, (0, -1))[1] == victim.node_id, 60)
    survivors = ",".join(f"127.0.0.1:{n.port}" for n in others)
    s.tools.loadgen("probe", ["--bootstrap", s.cluster.bootstrap, "--topic", topic, "--acks", "all",
                              "--timeout-ms", 30000], 60)
    new_leader = {}

    def watch():
        while "ms" not in new_leader and time.time() - killed_at < 120:
            for n in others:
                parts = partitions_of(s, n.harness_port, topic)
                if parts and parts[0][1] not in (-1, victim.node_id):
                    new_leader["ms"] = (time.time() - killed_at) * 1000.0
                    new_leader["id"] = parts[0][1]
                    return
            time.sleep(0.01)

    killed_at = time.time()
    s.cluster.kill(victim)
    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        # One record, kept by the client until a leader takes it (librdkafka
        # moves it to the new leader once its metadata names one).
        r = s.tools.loadgen("probe", ["--bootstrap", survivors, "--topic", topic, "--acks", "all",
                                      "--timeout-ms", 120000, "--message-timeout-ms", 60000], 150)
    finally:
        watcher.join()
    first_produce_ms = r["acked_epoch_ms"] - killed_at * 1000.0
    if "ms" not in new_leader:
        raise ToolError("no new leader named within 120 s", "Metadata")
    s.cluster.restart(victim)
    back_s = wait_for("the killed leader back in the ISR",
                      lambda: len(partitions_of(s, others[0].harness_port, topic).get(0, (0, 0, [], []))[3]) == 3,
                      180, 0.05)
    return {"kill_to_new_leader_ms": new_leader["ms"], "kill_to_first_acksall_produce_ms": first_produce_ms,
            "restart_to_back_in_isr_ms": back_s * 1000.0, "probe_attempts": r["attempts"],
            "killed_node": victim.node_id, "active_controller": controller}


REBALANCE_PARTITIONS = 120
REBALANCE_MEMBERS = 20


def python_with_clients():
    """The venv scripts/install-deps.sh fills with confluent-kafka (librdkafka 2.16, both group protocols)."""
    venv = os.environ.get("HW_PY_VENV") or os.path.expanduser("~/.cache/highwater/py-venv")
    return os.path.join(venv, "bin", "python")


def rebalance(protocol):
    """A member joins a group of REBALANCE_MEMBERS consuming a topic of
    REBALANCE_PARTITIONS partitions while a producer writes to every
    partition (bench/e2e/rebalance.py, confluent-kafka): how long until
    the group holds every partition again with the newcomer's share and
    each partition delivers records written after the join, how many
    partitions stood still for over a second, and the dip in the rate.
    `classic`: JoinGroup/SyncGroup (librdkafka's default eager range
    assignor); `consumer`: KIP-848 (the coordinator's uniform assignor)."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rebalance.py")

    def run(s):
        topic = f"rebalance-{protocol}"
        s.create_topic(topic, REBALANCE_PARTITIONS)
        out, err, _ = s.tools.run([python_with_clients(), script, "--bootstrap", s.cluster.bootstrap,
                                   "--topic", topic, "--partitions", REBALANCE_PARTITIONS,
                                   "--members", REBALANCE_MEMBERS, "--protocol", protocol]
                                  + s.tools.security.loadgen_args(), 300)
        try:
            return json.loads(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            raise ToolError("rebalance.py printed no JSON", "rebalance.py", out + err) from None
    return run


def all_workloads(nodes=1):
    """(name, function) in the order they run on a fresh cluster."""
    runs = [("idle_rss_100_partitions", idle_rss_100_partitions)]
    runs += [(name, producer_perf(name, size, acks)) for name, size, acks in PRODUCER_RUNS]
    runs += [(name, consumer_perf(name, source, size)) for name, source, size in CONSUMER_RUNS]
    name, size, acks = TRANSACTIONAL_PRODUCER
    runs += [(name, producer_perf(name, size, acks, ["--transactional-id", TXN_ID,
                                                     "--transaction-duration-ms", "100"]))]
    name, source, size = READ_COMMITTED_CONSUMER
    runs += [(name, consumer_perf(name, source, size, ["isolation.level=read_committed"]))]
    name, size, acks = TRANSACTIONAL_PRODUCER_1S
    runs += [(name, producer_perf(name, size, acks, ["--transactional-id", TXN_ID + "-1s",
                                                     "--transaction-duration-ms", "1000"])),
             ("loadgen_txn", loadgen_txn)]
    runs += [("order_java_producer", order_java_producer), ("e2e_latency_kafka_tool", e2e_latency_kafka_tool), ("e2e_latency_loadgen", e2e_latency_loadgen),
             ("loadgen_produce", loadgen_produce), ("loadgen_consume", loadgen_consume),
             ("loadgen_fill_wide", loadgen_fill_wide), ("loadgen_consume_parallel", loadgen_consume_parallel),
             ("loadgen_fetch_parallel", loadgen_fetch_parallel),
             ("scram_connections", scram_connections),
             ("rebalance_classic", rebalance("classic")), ("rebalance_consumer", rebalance("consumer"))]
    if nodes >= 3:
        # Last: it kills a broker (started again before it ends).
        runs += [("replication_lag", replication_lag), ("leader_failover", leader_failover)]
    return runs
