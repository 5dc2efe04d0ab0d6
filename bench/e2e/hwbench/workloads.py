"""The workloads run against one started cluster, in order. Each is a
function (session) -> dict of metrics; a failure raises ToolError, which the
round loop records as a finding. CPU per GB is added by the round loop for
every workload that reports the bytes it moved."""

import re
import time

from . import procstat
from .tools import ToolError

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

TOOL_TIMEOUT_S = 240


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

    def create_topic(self, topic, partitions):
        self.tools.loadgen("create-topic", ["--bootstrap", self.cluster.bootstrap, "--topic", topic,
                                            "--partitions", partitions,
                                            "--replication-factor", self.cluster.replication_factor], 60)

    def records_for(self, size):
        return self.sizes["records_1k"] if size >= 1024 else self.sizes["records_100b"]


def idle_rss_100_partitions(s):
    """Resident memory of an idle broker holding a 100-partition topic."""
    t0 = time.monotonic()
    s.create_topic("idle100", 100)
    created_ms = (time.monotonic() - t0) * 1000.0
    time.sleep(s.sizes["idle_wait_s"])
    return {"idle_rss_mib": procstat.total_status_mib(s.cluster.pids(), "VmRSS"),
            "create_topic_100_partitions_ms": created_ms}


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


def producer_perf(name, size, acks):
    def run(s):
        topic = name.replace("_", "-")
        records = s.records_for(size)
        s.create_topic(topic, s.sizes["partitions"])
        props = [f"acks={acks}", f"enable.idempotence={'true' if acks == 'all' else 'false'}"]
        out, err, _ = s.tools.kafka_tool(
            "org.apache.kafka.tools.ProducerPerformance",
            ["--bootstrap-server", s.cluster.bootstrap, "--topic", topic, "--num-records", records,
             "--record-size", size, "--throughput", "-1", "--command-property"] + props,
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


def consumer_perf(name, source, size):
    def run(s):
        topic = source.replace("_", "-")
        if topic not in s.produced:
            raise ToolError(f"nothing to consume: {source} did not complete", "ConsumerPerformance")
        records = s.produced[topic]
        out, err, _ = s.tools.kafka_tool(
            "org.apache.kafka.tools.ConsumerPerformance",
            ["--bootstrap-server", s.cluster.bootstrap, "--topic", topic, "--num-records", records,
             "--group", f"perf-{topic}", "--timeout", "30000"],
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
    out, err, _ = s.tools.kafka_tool(
        "org.apache.kafka.tools.ProducerPerformance",
        ["--bootstrap-server", s.cluster.bootstrap, "--topic", topic, "--num-records", records,
         "--payload-monotonic", "--throughput", "-1", "--command-property", "acks=1", "enable.idempotence=false"],
        TOOL_TIMEOUT_S)
    note_client_warnings(s, "order_java_producer", "ProducerPerformance", out + err)
    out, err, _ = s.tools.kafka_tool(
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
    out, err, _ = s.tools.kafka_tool(
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


def all_workloads():
    """(name, function) in the order they run on a fresh cluster."""
    runs = [("idle_rss_100_partitions", idle_rss_100_partitions)]
    runs += [(name, producer_perf(name, size, acks)) for name, size, acks in PRODUCER_RUNS]
    runs += [(name, consumer_perf(name, source, size)) for name, source, size in CONSUMER_RUNS]
    runs += [("order_java_producer", order_java_producer), ("e2e_latency_kafka_tool", e2e_latency_kafka_tool), ("e2e_latency_loadgen", e2e_latency_loadgen),
             ("loadgen_produce", loadgen_produce), ("loadgen_consume", loadgen_consume)]
    return runs
