"""bench/RESULTS.md and bench/results.json from the rounds' records:
medians with min and max per broker, the Highwater/Kafka ratio of the
medians, and the goals with whether each is met. A run with TLS sessions
(--security tls, or plaintext,tls) writes RESULTS-tls*.md instead, with the
TLS goals and, when plaintext sessions ran too, the cost of TLS for each
broker (TLS median / plaintext median). A run with acls sessions writes
RESULTS-acls*.md: their tables and, when sasl sessions (the same SASL
login, no authorizer) ran too, the cost of authorization for each broker
(acls median / sasl median) and the authorization goal."""

import json
import os
import statistics

# (workload, metric, label, better) shown per workload table; better is
# "higher", "lower" or None for a reading that is neither (the ratio is
# always Highwater / Kafka).
TABLE = {
    "startup": ("Start-up", [("startup_to_first_produce_ms", "spawn to first acknowledged produce (ms)", "lower"),
                             ("rss_after_start_mib", "RSS right after start-up (MiB)", "lower")]),
    "idle_rss_100_partitions": ("Idle with 100 partitions",
                                [("idle_rss_mib", "RSS, 100-partition topic, idle (MiB)", "lower"),
                                 ("create_topic_100_partitions_ms", "CreateTopics of those 100 partitions, "
                                  "hw_loadgen round trip (ms)", "lower"),
                                 ("create_topic_100_partitions_everywhere_ms", "CreateTopics until every node "
                                  "names a leader and a whole ISR for all 100 (ms; = the round trip on one node)",
                                  "lower")]),
    "resources": ("Peak memory", [("peak_rss_mib", "peak RSS over the round (VmHWM, MiB)", "lower")]),
}
_THROUGHPUT = [("records_per_s", "records/s", "higher"), ("mb_per_s", "MB/s", "higher")]
_LATENCY = [("latency_p50_ms", "latency p50 (ms)", "lower"), ("latency_p99_ms", "latency p99 (ms)", "lower"),
            ("latency_p999_ms", "latency p99.9 (ms)", "lower")]
# The client's CPU tells whether the client is the limit (it shares the
# cores): a Java tool's includes its JVM start and JIT compilation.
_CPU = [("cpu_s_per_gb", "broker CPU s per GB moved", "lower"),
        ("broker_cpu_s", "broker CPU s over the workload", "lower"),
        ("client_cpu_s", "client CPU s over the workload", None),
        ("client_cpu_s_per_gb", "client CPU s per GB moved", None)]
for _name, _title in [("producer_1k_acks1", "Producer, 1 KiB records, acks=1 (kafka-producer-perf-test)"),
                      ("producer_100b_acks1", "Producer, 100 B records, acks=1 (kafka-producer-perf-test)"),
                      ("producer_1k_acksall_idempotent",
                       "Producer, 1 KiB records, acks=all, idempotent (kafka-producer-perf-test)"),
                      ("producer_100b_acksall_idempotent",
                       "Producer, 100 B records, acks=all, idempotent (kafka-producer-perf-test)")]:
    TABLE[_name] = (_title, _THROUGHPUT + _LATENCY + _CPU)
TABLE["producer_1k_transactional"] = ("Producer, 1 KiB records, transactions committed every 100 ms "
                                      "(kafka-producer-perf-test --transactional-id)", _THROUGHPUT + _LATENCY + _CPU)
TABLE["producer_1k_transactional_1s"] = ("Producer, 1 KiB records, transactions committed every second "
                                         "(kafka-producer-perf-test --transactional-id)",
                                         _THROUGHPUT + _LATENCY + _CPU)
TABLE["consumer_1k_read_committed"] = ("Consumer, read_committed, over the transactional producer's records "
                                       "(kafka-consumer-perf-test)",
                                       _THROUGHPUT + [("group_join_ms", "group join (ms)", "lower")] + _CPU)
TABLE["loadgen_txn"] = ("Transactions back to back (hw_loadgen txn: librdkafka, 100 records of 1 KiB each)",
                        _THROUGHPUT + [("transactions_per_s", "transactions/s", "higher"),
                                       ("commit_p50_ms", "commit p50 (ms)", "lower"),
                                       ("commit_p99_ms", "commit p99 (ms)", "lower"),
                                       ("commit_max_ms", "commit max (ms)", "lower"),
                                       ("transaction_p50_ms", "whole transaction p50 (ms)", "lower"),
                                       ("transaction_p99_ms", "whole transaction p99 (ms)", "lower")] + _CPU)
TABLE["consumer_1k"] = ("Consumer, 1 KiB records (kafka-consumer-perf-test)",
                        _THROUGHPUT + [("group_join_ms", "group join (ms)", "lower")] + _CPU)
TABLE["consumer_100b"] = ("Consumer, 100 B records (kafka-consumer-perf-test)",
                          _THROUGHPUT + [("group_join_ms", "group join (ms)", "lower")] + _CPU)
TABLE["order_java_producer"] = ("Order check: one Java producer, acks=1, 5 requests in flight (a check, not a benchmark)",
                                [("out_of_order", "records out of order within their partition (must be 0)",
                                  "lower")])
TABLE["e2e_latency_kafka_tool"] = ("End-to-end latency, one record at a time (EndToEndLatency, 1 KiB, acks=1; whole ms)",
                                   [("latency_avg_ms", "latency avg (ms)", "lower")] + _LATENCY)
TABLE["e2e_latency_loadgen"] = ("End-to-end latency at a fixed rate (hw_loadgen e2e, 1 KiB, acks=1, µs resolution)",
                                _LATENCY + [("latency_max_ms", "latency max (ms)", "lower")])
TABLE["loadgen_produce"] = ("Producer as hard as it goes (hw_loadgen produce: librdkafka, 1 KiB, acks=1)",
                            _THROUGHPUT + _LATENCY + _CPU +
                            [("broker_peak_rss_mib", "broker peak RSS during the workload (VmHWM, MiB)", "lower")])
TABLE["loadgen_consume"] = ("Consumer as hard as it goes (hw_loadgen consume: librdkafka, no group)",
                            _THROUGHPUT + _CPU)
TABLE["loadgen_fill_wide"] = ("Producer of a fixed count over many partitions (hw_loadgen produce: librdkafka, 1 KiB, "
                              "acks=1; Sizes: wide_records, wide_partitions)", _THROUGHPUT + _CPU)
TABLE["loadgen_consume_parallel"] = ("Consumers together as hard as they go (hw_loadgen consume --consumers: "
                                     "librdkafka instances on their own threads, no group; Sizes: wide_consumers "
                                     "over what loadgen_fill_wide wrote)", _THROUGHPUT + _CPU)
TABLE["loadgen_fetch_parallel"] = ("Fetch-only readers the broker bounds (hw_loadgen fetch --readers: blocking "
                                   "connections, Fetch v12, batch headers read, records not decoded; Sizes: "
                                   "wide_consumers over what loadgen_fill_wide wrote; bytes are whole batches)",
                                   _THROUGHPUT + [("fetches", "Fetch requests", None)] + _CPU)
TABLE["scram_connections"] = ("New SCRAM-SHA-512-authenticated connections (hw_loadgen scram: Sizes: scram_connections "
                              "threads, each a new connection per login: ApiVersions, SaslHandshake, the two "
                              "SaslAuthenticate rounds, close; on a SASL_PLAINTEXT listener, SASL_SSL over TLS)",
                              [("logins_per_s", "logins/s", "higher"),
                               ("latency_p50_ms", "login p50, connect to the server's signature checked (ms)",
                                "lower"),
                               ("latency_p99_ms", "login p99 (ms)", "lower"),
                               ("broker_cpu_ms_per_login", "broker CPU ms per login", "lower"),
                               ("loadgen_cpu_ms_per_login", "hw_loadgen CPU ms per login", None),
                               ("failures", "failed logins (must be 0)", "lower")])
# Replicated clusters only (--nodes 3).
TABLE["replication_lag"] = ("Replication lag at a steady rate (Sizes: lag_rate; hw_loadgen e2e, 1 KiB, acks=1; followers' "
                            "log ends sampled every 100 ms)",
                            [("lag_records_p50", "largest follower lag, p50 of the samples (records)", "lower"),
                             ("lag_records_p99", "largest follower lag, p99 of the samples (records)", "lower"),
                             ("lag_records_max", "largest follower lag, max (records)", "lower"),
                             ("latency_p50_ms", "end-to-end latency p50 (ms)", "lower"),
                             ("latency_p99_ms", "end-to-end latency p99 (ms)", "lower"),
                             ("ack_latency_p99_ms", "produce acknowledgement p99 (ms)", "lower")])
_REBALANCE = [("rebalance_ms", "join to every partition consumed again, newcomer's share held (ms)", "lower"),
              ("max_stall_ms", "longest a partition delivered nothing meanwhile (ms)", "lower"),
              ("stalled", "partitions that stood still for over a second", "lower"),
              ("dip_ratio", "slowest 500 ms of the rate / the rate before", "higher")]
TABLE["rebalance_classic"] = ("Rebalance, classic protocol (eager range): a member joins 20 consuming 120 "
                              "partitions (bench/e2e/rebalance.py)", _REBALANCE)
TABLE["rebalance_consumer"] = ("Rebalance, consumer protocol (KIP-848, uniform): a member joins 20 consuming 120 "
                               "partitions (bench/e2e/rebalance.py)", _REBALANCE)
TABLE["leader_failover"] = ("Leader failover: SIGKILL of a partition's leader (not the active controller), "
                            "each kind's default broker.session.timeout.ms (9 s)",
                            [("kill_to_new_leader_ms", "kill to a new leader in a survivor's metadata (ms)", "lower"),
                             ("kill_to_first_acksall_produce_ms", "kill to the first acks=all produce accepted (ms)",
                              "lower"),
                             ("restart_to_back_in_isr_ms", "restart to back in the ISR (ms)", "lower")])

# (label, workload, metric, op, target): ratio Highwater/Kafka of the medians.
GOALS = [("producer throughput, 1 KiB, acks=1", "producer_1k_acks1", "records_per_s", ">=", 1.5),
         ("producer throughput, 100 B, acks=1", "producer_100b_acks1", "records_per_s", ">=", 1.5),
         ("producer throughput, 1 KiB, acks=all idempotent", "producer_1k_acksall_idempotent", "records_per_s", ">=", 1.5),
         ("producer throughput, 100 B, acks=all idempotent", "producer_100b_acksall_idempotent", "records_per_s",
          ">=", 1.5),
         ("producer throughput, hw_loadgen", "loadgen_produce", "records_per_s", ">=", 1.5),
         ("consumer throughput, 1 KiB", "consumer_1k", "records_per_s", ">=", 1.5),
         ("consumer throughput, 100 B", "consumer_100b", "records_per_s", ">=", 1.5),
         ("consumer throughput, hw_loadgen", "loadgen_consume", "records_per_s", ">=", 1.5),
         ("consumer throughput, hw_loadgen consumers in parallel", "loadgen_consume_parallel", "records_per_s",
          ">=", 1.5),
         ("fetch-only readers throughput (broker-bound)", "loadgen_fetch_parallel", "records_per_s", ">=", 1.5)]
# Broker CPU per GB served on every consume line (issue 32).
GOALS += [(f"broker CPU s per GB, {label}", workload, "cpu_s_per_gb", "<=", 0.3)
          for label, workload in [("consumer 1 KiB", "consumer_1k"), ("consumer 100 B", "consumer_100b"),
                                  ("hw_loadgen consume", "loadgen_consume"),
                                  ("hw_loadgen consumers in parallel", "loadgen_consume_parallel"),
                                  ("fetch-only readers", "loadgen_fetch_parallel"),
                                  ("read_committed consumer 1 KiB", "consumer_1k_read_committed")]]
GOALS += [("p99 end-to-end latency (EndToEndLatency)", "e2e_latency_kafka_tool", "latency_p99_ms", "<=", 0.5),
          ("p99 end-to-end latency (hw_loadgen e2e)", "e2e_latency_loadgen", "latency_p99_ms", "<=", 0.5),
          ("producer throughput, 1 KiB, transactional", "producer_1k_transactional", "records_per_s", ">=", 1.5),
          ("producer throughput, 1 KiB, transactional, 1 s transactions", "producer_1k_transactional_1s",
           "records_per_s", ">=", 1.5),
          ("read_committed consumer throughput, 1 KiB", "consumer_1k_read_committed", "records_per_s", ">=", 1.5),
          ("transaction commit p99 (hw_loadgen txn)", "loadgen_txn", "commit_p99_ms", "<=", 0.5),
          ("consumer-protocol rebalance, a member joins 20 on 120 partitions", "rebalance_consumer", "rebalance_ms",
           "<=", 0.5),
          ("peak RSS", "resources", "peak_rss_mib", "<=", 0.2),
          ("start-up to first produce", "startup", "startup_to_first_produce_ms", "<=", 0.1)]
# The security issue's goal for new connections, on every listener kind.
_SCRAM_GOAL = ("new SCRAM-SHA-512-authenticated connections/s", "scram_connections", "logins_per_s", ">=", 2.0)
GOALS.append(_SCRAM_GOAL)
# Replicated clusters (issue 13): RF 3, min.insync.replicas=2, three combined nodes.
GOALS_REPLICATED = [
    ("producer throughput, 1 KiB, acks=all idempotent, RF 3", "producer_1k_acksall_idempotent", "records_per_s",
     ">=", 1.5),
    ("producer throughput, 100 B, acks=all idempotent, RF 3", "producer_100b_acksall_idempotent", "records_per_s",
     ">=", 1.5),
    ("p99 end-to-end latency (EndToEndLatency), RF 3", "e2e_latency_kafka_tool", "latency_p99_ms", "<=", 0.5),
    ("p99 end-to-end latency (hw_loadgen e2e), RF 3", "e2e_latency_loadgen", "latency_p99_ms", "<=", 0.5),
    ("broker CPU s per GB, 1 KiB, acks=all idempotent, RF 3", "producer_1k_acksall_idempotent", "cpu_s_per_gb",
     "<=", 0.3),
    ("broker CPU s per GB, 100 B, acks=all idempotent, RF 3", "producer_100b_acksall_idempotent", "cpu_s_per_gb",
     "<=", 0.3),
    ("broker CPU s per GB, hw_loadgen produce, RF 3", "loadgen_produce", "cpu_s_per_gb", "<=", 0.3),
    ("producer throughput, 1 KiB, transactional, RF 3", "producer_1k_transactional", "records_per_s", ">=", 1.5),
    ("producer throughput, 1 KiB, transactional, 1 s transactions, RF 3", "producer_1k_transactional_1s",
     "records_per_s", ">=", 1.5),
    ("read_committed consumer throughput, 1 KiB, RF 3", "consumer_1k_read_committed", "records_per_s", ">=", 1.5),
    ("transaction commit p99 (hw_loadgen txn), RF 3", "loadgen_txn", "commit_p99_ms", "<=", 0.5),
    ("kill of a leader to the first acks=all produce", "leader_failover", "kill_to_first_acksall_produce_ms", "<", 1.0),
    ("CreateTopics, 100 partitions, RF 3", "idle_rss_100_partitions", "create_topic_100_partitions_ms", "<=", 1.0),
    _SCRAM_GOAL]
# Over TLS (the security issue): client and inter-broker listeners SSL, the
# SCRAM listener SASL_SSL. Labels get ", RF 3" on replicated clusters.
GOALS_TLS = [
    ("TLS producer throughput, 1 KiB, acks=all idempotent", "producer_1k_acksall_idempotent", "records_per_s",
     ">=", 1.5),
    ("TLS consumer throughput, 1 KiB", "consumer_1k", "records_per_s", ">=", 1.5),
    ("TLS consumer throughput, hw_loadgen", "loadgen_consume", "records_per_s", ">=", 1.5),
    ("broker CPU s per GB over TLS, producer 1 KiB, acks=all idempotent", "producer_1k_acksall_idempotent",
     "cpu_s_per_gb", "<=", 0.5),
    ("broker CPU s per GB over TLS, hw_loadgen produce", "loadgen_produce", "cpu_s_per_gb", "<=", 0.5),
    ("broker CPU s per GB over TLS, consumer 1 KiB", "consumer_1k", "cpu_s_per_gb", "<=", 0.5),
    ("broker CPU s per GB over TLS, hw_loadgen consume", "loadgen_consume", "cpu_s_per_gb", "<=", 0.5),
    ("new SCRAM-SHA-512-authenticated connections/s over TLS (SASL_SSL)", "scram_connections", "logins_per_s",
     ">=", 2.0)]
# What the cost of TLS is shown for, per workload that ran in both modes.
COST_METRICS = [("startup_to_first_produce_ms", "start-up to first produce (ms)"),
                ("records_per_s", "records/s"), ("logins_per_s", "logins/s"),
                ("cpu_s_per_gb", "broker CPU s per GB"), ("broker_cpu_ms_per_login", "broker CPU ms per login"),
                ("latency_p99_ms", "latency p99 (ms)")]


# The authorization issue: for each workload that ran in sasl and acls
# sessions, each broker's acls/sasl of its throughput (records/s, else
# MB/s); Highwater's slowdown (1 - that ratio) under 3% and no more than
# Kafka's. A slowdown below zero (faster with the authorizer than without:
# the run's noise) counts as zero for Kafka's side of the comparison.
AUTHZ_THROUGHPUT = ("records_per_s", "mb_per_s")
AUTHZ_MAX_SLOWDOWN = 0.03
AUTHZ_GOAL = "authorization slowdown under 3% and no more than Kafka's"
AUTHZ_TARGET = "slowdown < 3% and <= Kafka's"
# The ACLs made before an acls session's workloads (workloads.install_acls).
ACL_SETUP = [("acls", "ACLs (DescribeAcls of every node)"),
             ("create_acls_ms", "one CreateAcls of them all, round trip (ms)"),
             ("described_everywhere_ms", "until every node's DescribeAcls answers them all (ms)"),
             ("first_authorized_produce_ms", "until a produce as the bench user is acknowledged (ms)")]


def _stats(values):
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values),
            "values": values}


def summarize(rounds):
    """{workload: {metric: {broker: stats}}} plus the ratio of the medians."""
    out = {}
    for rec in rounds:
        for workload, metrics in rec["metrics"].items():
            for metric, value in metrics.items():
                if isinstance(value, (int, float)):
                    out.setdefault(workload, {}).setdefault(metric, {}).setdefault(rec["broker"], []).append(value)
    summary = {}
    for workload, metrics in out.items():
        for metric, by_broker in metrics.items():
            entry = {b: _stats(v) for b, v in by_broker.items()}
            k, h = entry.get("kafka"), entry.get("highwater")
            if k and h and k["median"]:
                entry["ratio"] = h["median"] / k["median"]
            summary.setdefault(workload, {})[metric] = entry
    return summary


def evaluate_goals(summary, nodes=1, mode="plaintext"):
    goals = []
    if mode == "tls":
        table = [(label + (", RF 3" if nodes >= 3 and metric != "logins_per_s" else ""), w, metric, op, target)
                 for label, w, metric, op, target in GOALS_TLS]
    else:
        table = GOALS_REPLICATED if nodes >= 3 else GOALS
    for label, workload, metric, op, target in table:
        ratio = summary.get(workload, {}).get(metric, {}).get("ratio")
        met = None if ratio is None else {">=": ratio >= target, "<=": ratio <= target, "<": ratio < target}[op]
        goals.append({"goal": label, "workload": workload, "metric": metric, "target": f"{op} {target}x",
                      "ratio": ratio, "met": met})
    return goals


def mode_cost(base, other, base_mode, mode, metrics=COST_METRICS):
    """Per workload and metric that both summaries have: each broker's
    medians in the base mode and in the other, and other / base."""
    rows = []
    for workload in list(TABLE) + sorted(set(other) - set(TABLE)):
        for metric, label in metrics:
            b, o = base.get(workload, {}).get(metric), other.get(workload, {}).get(metric)
            if not b or not o:
                continue
            row = {"workload": workload, "metric": metric, "label": label}
            for broker in ("kafka", "highwater"):
                bm = (b.get(broker) or {}).get("median")
                om = (o.get(broker) or {}).get("median")
                row[broker] = {base_mode: bm, mode: om,
                               "ratio": om / bm if bm and om is not None else None}
            rows.append(row)
    return rows


def tls_cost(plain, tls):
    """Per workload and COST_METRICS metric that both summaries have: each
    broker's plaintext and TLS medians and TLS / plaintext."""
    return mode_cost(plain, tls, "plaintext", "tls")


def authorization_cost(sasl, acls):
    """The cost of authorization: mode_cost of the sasl and acls sessions,
    throughput in MB/s too."""
    metrics = COST_METRICS[:2] + [("mb_per_s", "MB/s")] + COST_METRICS[2:]
    return mode_cost(sasl, acls, "sasl", "acls", metrics)


def paired_ratio(rounds, workload, metric, broker):
    """The median over rounds of acls/sasl of the same round's sessions
    (which ran minutes apart, so the machine's drift over the run weighs
    less than on the ratio of the medians); None without a pair."""
    by_round = {}
    for r in rounds:
        if r["broker"] == broker and r.get("security") in ("sasl", "acls"):
            value = r["metrics"].get(workload, {}).get(metric)
            if isinstance(value, (int, float)):
                by_round.setdefault(r["round"], {})[r["security"]] = value
    ratios = [p["acls"] / p["sasl"] for p in by_round.values() if p.get("sasl") and "acls" in p]
    return statistics.median(ratios) if ratios else None


def authorization_goals(sasl, acls, rounds=()):
    """The authorization goal: one line per workload with a throughput in
    both summaries (AUTHZ_THROUGHPUT: records/s, else MB/s), then the
    whole, met when every workload's is. A line's ratio is Highwater's
    acls/sasl of the medians; met when Highwater's slowdown (1 - ratio) is
    under AUTHZ_MAX_SLOWDOWN and no more than Kafka's (counted as 0 when
    Kafka ran faster with the authorizer). The median of the rounds' own
    acls/sasl (paired_ratio) is given beside it."""
    rows = []
    for workload in list(TABLE) + sorted(set(acls) - set(TABLE)):
        metric = next((m for m in AUTHZ_THROUGHPUT if m in sasl.get(workload, {}) and m in acls.get(workload, {})),
                      None)
        if metric is None:
            continue
        ratios = {}
        for broker in ("kafka", "highwater"):
            base = (sasl[workload][metric].get(broker) or {}).get("median")
            with_acls = (acls[workload][metric].get(broker) or {}).get("median")
            ratios[broker] = with_acls / base if base and with_acls is not None else None
        k, h = ratios["kafka"], ratios["highwater"]
        met = None if k is None or h is None else (1 - h < AUTHZ_MAX_SLOWDOWN and 1 - h <= max(1 - k, 0.0))
        rows.append({"goal": f"{AUTHZ_GOAL}: {workload}", "workload": workload, "metric": metric,
                     "target": AUTHZ_TARGET, "ratio": h, "kafka_ratio": k,
                     "highwater_slowdown": None if h is None else 1 - h,
                     "kafka_slowdown": None if k is None else 1 - k, "met": met,
                     "kafka_paired_ratio": paired_ratio(rounds, workload, metric, "kafka"),
                     "highwater_paired_ratio": paired_ratio(rounds, workload, metric, "highwater")})
    verdicts = [r["met"] for r in rows]
    whole = (None if not rows or (None in verdicts and False not in verdicts) else
             all(v is True for v in verdicts))
    return [{"goal": f"{AUTHZ_GOAL} (every workload below)", "workload": None, "metric": None,
             "target": AUTHZ_TARGET, "ratio": None, "kafka_ratio": None, "met": whole}] + rows


def _slowdown(ratio):
    return "–" if ratio is None else f"{(1 - ratio) * 100:+.1f}%"


def _ratio(r):
    return "–" if r is None else f"{r:.3g}x"


def _num(v):
    if v is None:
        return "–"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.3g}"


def _cell(s):
    if not s:
        return "no result"
    if s["n"] == 1:
        return _num(s["median"])
    return f"{_num(s['median'])} ({_num(s['min'])}–{_num(s['max'])})"


# Per report mode: the title's end, the base mode its cost compares with
# and the cost section's title and note.
_MODE_TITLES = {"plaintext": "", "tls": " over TLS", "sasl": " over SASL/PLAIN",
                "acls": " over SASL/PLAIN with an authorizer and 1,000 ACLs"}
_COST_TEXT = {
    "tls": ("plaintext", "the cost of TLS", "## The cost of TLS (same run, same certificates)",
            "Each broker's median over its plaintext sessions and over its TLS sessions of this run; "
            "TLS/plaintext above 1 means more (of records/s: better; of CPU or latency: worse)."),
    "sasl": ("plaintext", "the cost of SASL", "## The cost of SASL/PLAIN (same run)",
             "Each broker's median over its plaintext sessions and over its SASL sessions of this run; "
             "sasl/plaintext above 1 means more (of records/s: better; of CPU or latency: worse)."),
    "acls": ("sasl", "the cost of authorization", "## The cost of authorization (same run, same SASL login)",
             "Each broker's median over its sasl sessions (SASL/PLAIN as the bench user, no authorizer) and over "
             "its acls sessions (the same, with StandardAuthorizer and 1,000 ACLs) of this run; acls/sasl below 1 "
             "of records/s or MB/s is the slowdown authorization costs (above 1 of CPU or latency: worse)."),
}


def _markdown(meta, rounds, summary, goals, mode="plaintext", cost=None):
    m = meta["machine"]
    title = "# End-to-end benchmark: Highwater vs Apache Kafka" + _MODE_TITLES.get(mode, f" ({mode})")
    base_mode, cost_name, cost_title, cost_note = _COST_TEXT.get(mode, ("plaintext", "", "", ""))
    lines = [title, ""]
    lines += [f"- Date: {meta['date_utc']}",
              f"- Command: `{meta['command']}`",
              f"- Machine: {m['cores']} cores ({m['cpu_model']}), {m['memory_gib']} GiB memory, Linux {m['kernel']}",
              f"- Highwater {meta['highwater_commit']}, {meta['highwater_build_type']} build; Apache Kafka "
              f"{meta['kafka_version']} (JVM {meta['kafka_heap']}, Kafka's G1 options)",
              f"- {meta['nodes']} node(s) per cluster, combined broker+controller (KRaft)"
              + (", every topic replication factor 3 and min.insync.replicas=2 (internal topics too)"
                 if meta["nodes"] >= 3 else "") + f", {meta['rounds']} round(s) "
              f"per broker interleaved (Kafka, Highwater, Kafka, ...), fresh data dir per round on the same disk, "
              f"{meta['sizes']['partitions']} partitions per topic, each broker's default flush policy (no fsync)",
              f"- Sizes: {json.dumps(meta['sizes'])}"
              + (f"; workloads (--only): {', '.join(meta['only'])}" if meta.get("only") else ""),
              f"- Security: {(meta.get('security_detail') or {}).get(mode, mode)}"
              + (f"; {base_mode} sessions of the same run, interleaved, for {cost_name}"
                 if cost is not None else ""),
              f"- Total run time: {meta.get('total_seconds', '(incomplete)')} s; load average (1, 5, 15 min) "
              f"at start {meta.get('load_average_start')}, at end {meta.get('load_average_end', '(incomplete)')}",
              ""]
    if meta.get("quick"):
        lines += ["**Quick mode (development): 1 round, small counts; not a result.**", ""]
    lines += ["Cells: median (min–max) over the rounds. Ratio: Highwater median / Kafka median.", ""]
    if mode == "acls":
        lines += _authorization_goals_markdown(goals)
    else:
        lines += ["## Goals", "", "| goal | target (Highwater/Kafka) | ratio | met |", "|---|---|---|---|"]
        for g in goals:
            met = "no result" if g["met"] is None else ("yes" if g["met"] else "**MISSED**")
            ratio = _ratio(g["ratio"])
            lines.append(f"| {g['goal']} | {g['target']} | {ratio} | {met} |")
        lines.append("")
    for workload, (title, metrics) in TABLE.items():
        data = summary.get(workload)
        if not data and meta.get("only") and workload not in meta["only"]:
            continue  # not asked for (--only)
        lines += [f"## {title}", ""]
        if not data:
            lines += ["No result (see Errors).", ""]
            continue
        lines += ["| metric | Kafka | Highwater | Highwater/Kafka |", "|---|---|---|---|"]
        for metric, label, better in metrics:
            e = data.get(metric)
            if not e:
                continue
            ratio = ("–" if e.get("ratio") is None else
                     f"{_ratio(e['ratio'])}" + (f" ({better} is better)" if better else ""))
            lines.append(f"| {label} | {_cell(e.get('kafka'))} | {_cell(e.get('highwater'))} | {ratio} |")
        lines.append("")
    if mode == "acls" and summary.get("acls"):
        lines += ["## The ACLs of the acls sessions", "",
                  "Made after start-up, before the workloads: one CreateAcls on the first node's PLAINTEXT listener "
                  "(as ANONYMOUS, a super user), then DescribeAcls of every node until each answers them all, then "
                  "a produce as the bench user on the client listener.", "",
                  "| | Kafka | Highwater |", "|---|---|---|"]
        for metric, label in ACL_SETUP:
            e = summary["acls"].get(metric)
            if e:
                lines.append(f"| {label} | {_cell(e.get('kafka'))} | {_cell(e.get('highwater'))} |")
        lines.append("")
    if cost is not None:
        shown = {"tls": "TLS"}.get(mode, mode)
        lines += [cost_title, "", cost_note, "",
                  f"| workload | metric | Kafka {base_mode} | Kafka {shown} | Kafka {shown}/{base_mode} | "
                  f"Highwater {base_mode} | Highwater {shown} | Highwater {shown}/{base_mode} |",
                  "|---|---|---|---|---|---|---|---|"]
        for row in cost:
            k, h = row["kafka"], row["highwater"]
            lines.append(f"| {row['workload']} | {row['label']} | {_num(k[base_mode])} | {_num(k[mode])} | "
                         f"{_ratio(k['ratio'])} | {_num(h[base_mode])} | {_num(h[mode])} | {_ratio(h['ratio'])} |")
        if not cost:
            lines.append("| (no workload completed in both modes) | | | | | | | |")
        lines.append("")
    lines += ["## How to read this", "",
              "- Kafka's perf tools (Java) run on the same cores as the broker; when a tool is the bottleneck the "
              "records/s of both brokers converge. Broker CPU s per GB (utime+stime of the broker process over the "
              "workload, JVM start of the tool included) shows what the broker itself spent; `hw_loadgen` "
              "(librdkafka) is the client that pushes harder. Client CPU s is utime+stime of the client "
              "programs the workload ran (reaped children of the harness; a Java tool's JVM start and JIT "
              "included): far above the broker's, the client is the limit.",
              "- Consumer records/s and MB/s are ConsumerPerformance's fetch.* figures (after the group join); "
              "the join time is shown on its own row.",
              "- Which lines the broker bounds: on two cores a librdkafka or Java consumer spends several times "
              "the broker's CPU per GB, so every consumer line but `hw_loadgen fetch` (readers that do not decode "
              "records) measures mostly the client; their broker CPU per GB still shows what the broker spent. "
              "Sending records costs any broker the kernel's `sendfile` path, about 0.3 s per GB on this machine "
              "(bench/PROFILE.md), a floor under both brokers' consume CPU.",
              "- EndToEndLatency prints whole milliseconds, so a median of 0 or 1 is its resolution; `hw_loadgen e2e` "
              "measures each record in microseconds (send stamp in the record, same process receives it).",
              "- Start-up: both brokers are formatted first (not timed); the clock starts at spawn (for Kafka the "
              "spawned process is scripts/kafka-run-class.sh, which execs the JVM) and stops when `hw_loadgen probe` "
              "has a produce acknowledged, which includes the auto-creation of its 6-partition topic.",
              "- Peak RSS is VmHWM over the whole round (every workload); idle RSS is VmRSS a few seconds after a "
              "100-partition topic was created on a fresh broker.",
              "- New SCRAM connections: `hw_loadgen scram` caches the salted password (RFC 5802 lets a client; "
              "Kafka's Java client does not), so the client spends a few HMACs per login rather than 4096 "
              "PBKDF2 rounds and the brokers bound the rate; broker CPU per login is the brokers' CPU over the "
              "measurement (every node's) divided by the logins. Over TLS each login is a full TLS handshake "
              "(no session resumption).", ""]
    if mode in ("sasl", "acls"):
        lines[-1:-1] = [
            "- SASL sessions: clients log in with SASL/PLAIN as `bench` on the client listener (the Java tools "
            "through --command-config, hw_loadgen through librdkafka's sasl.* keys); the brokers' own traffic, "
            "the start-up probe and the harness's own requests use the PLAINTEXT inter-broker listener. In acls "
            "sessions `bench` is no super user: each of its requests is authorized against the 1,000 ACLs."]
    if mode == "acls":
        lines[-1:-1] = [
            f"- The authorization goal: slowdown = 1 - acls/sasl of a broker's medians; Highwater's must be "
            f"under {AUTHZ_MAX_SLOWDOWN:.0%} and no more than Kafka's (Kafka's counted as 0 when it ran faster "
            f"with the authorizer than without, which is noise). Compare it with the spread (min–max) of the "
            f"rounds in the tables: a slowdown smaller than the rounds' spread is not measured."]
    errors = [(r, e) for r in rounds for e in r["errors"] + r["findings"]]
    lines += ["## Errors and findings", ""]
    if not errors:
        lines += ["None: every workload completed with the expected record counts on both brokers.", ""]
    for r, e in errors:
        where = f"round {r['round']}, {r['broker']}" + (f", {r['security']}" if mode != "plaintext" else "")
        lines += [f"- {where}, {e.get('workload')}: {e['error']}"]
        if e.get("command"):
            lines += [f"  - command: `{e['command']}`"]
        tail = (e.get("output_tail") or "").strip()
        if tail:
            lines += ["", "```", tail[-1500:], "```", ""]
    lines.append("")
    return "\n".join(lines)


def _authorization_goals_markdown(goals):
    lines = ["## Goals", "",
             "Slowdown: 1 - acls/sasl of a broker's median throughput (records/s, else MB/s); negative when the "
             "broker ran faster with the authorizer. \"Per round\": the median of each round's own acls/sasl "
             "(its sasl and acls sessions ran minutes apart), less sensitive to the machine's drift over the run.",
             "",
             "| goal | target | Kafka acls/sasl (slowdown) | Highwater acls/sasl (slowdown) | met |",
             "|---|---|---|---|---|"]
    for g in goals:
        met = "no result" if g["met"] is None else ("yes" if g["met"] else "**MISSED**")
        if g["workload"] is None:
            lines.append(f"| {g['goal']} | {g['target']} | | | {met} |")
            continue
        cells = []
        for ratio, paired in ((g["kafka_ratio"], g.get("kafka_paired_ratio")),
                              (g["ratio"], g.get("highwater_paired_ratio"))):
            cells.append(f"{_ratio(ratio)} ({_slowdown(ratio)}; per round {_ratio(paired)})")
        lines.append(f"| {g['goal']} ({g['metric']}) | {g['target']} | {cells[0]} | {cells[1]} | {met} |")
    lines.append("")
    return lines


def _reports(modes):
    """(mode, base mode or None) of each report a run writes: TLS with its
    plaintext sessions as the base; acls with its sasl sessions (else sasl
    with its plaintext ones); plaintext when none of those ran."""
    out = []
    if "tls" in modes:
        out.append(("tls", "plaintext" if "plaintext" in modes else None))
    if "acls" in modes:
        out.append(("acls", "sasl" if "sasl" in modes else None))
    elif "sasl" in modes:
        out.append(("sasl", "plaintext" if "plaintext" in modes else None))
    return out or [("plaintext", None)]


def write(output_dir, meta, rounds):
    """RESULTS.md and results.json for single nodes; a replicated run
    (--nodes N) writes RESULTS-N-nodes.md and results-N-nodes.json beside
    them, so that neither run overwrites the other. A run with TLS
    sessions writes RESULTS-tls[-N-nodes].md and results-tls[-N-nodes].json
    (the plaintext files stay): the TLS sessions' tables and goals, and the
    plaintext sessions of the same run as the cost of TLS; one with acls
    sessions RESULTS-acls[-N-nodes].md and results-acls[-N-nodes].json:
    their tables, the sasl sessions of the same run as the cost of
    authorization, and the authorization goal (sasl sessions alone:
    RESULTS-sasl*, no goals). The JSON keeps every session's record.
    Returns the paths written."""
    os.makedirs(output_dir, exist_ok=True)
    modes = meta.get("security") or ["plaintext"]
    paths = []
    for mode, base in _reports(modes):
        summary = summarize([r for r in rounds if r.get("security", "plaintext") == mode])
        base_summary = (summarize([r for r in rounds if r.get("security", "plaintext") == base])
                        if base else None)
        if mode == "acls":
            goals = authorization_goals(base_summary or {}, summary, rounds)
        elif mode == "sasl":
            goals = []
        else:
            goals = evaluate_goals(summary, meta["nodes"], mode)
        document = {"meta": meta, "goals": goals, "summary": summary}
        cost = None
        if base:
            document[f"{base}_summary"] = base_summary
            if mode == "tls":
                cost = document["tls_cost"] = tls_cost(base_summary, summary)
            elif mode == "acls":
                cost = document["authorization_cost"] = authorization_cost(base_summary, summary)
            else:
                cost = document[f"{mode}_cost"] = mode_cost(base_summary, summary, base, mode)
        document["rounds"] = rounds
        suffix = ("" if mode == "plaintext" else f"-{mode}") + (f"-{meta['nodes']}-nodes" if meta["nodes"] > 1 else "")
        json_path = os.path.join(output_dir, f"results{suffix}.json")
        md_path = os.path.join(output_dir, f"RESULTS{suffix}.md")
        with open(json_path, "w") as f:
            json.dump(document, f, indent=1)
            f.write("\n")
        with open(md_path, "w") as f:
            f.write(_markdown(meta, rounds, summary, goals, mode, cost))
        paths += [md_path, json_path]
    return paths
