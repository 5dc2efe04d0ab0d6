"""The round loop: for each round, each security mode (--security) and in
it each broker kind in turn on a fresh data dir (Kafka, Highwater, Kafka,
Highwater, ...), start-up probe, workloads, resources, stop; then the
report."""

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from . import procstat, profile, report, security, workloads
from .brokers import make_cluster
from .tools import ToolError, Tools

# Record counts are picked so that on a quiet 2-core machine each workload
# takes roughly 5-20 s and three rounds of both brokers fit in 15 minutes
# (measured: 500k/2M records took 7.5 min for 3 rounds on a quiet machine).
SIZES = {
    "full": {"partitions": 6, "records_1k": 1_000_000, "records_100b": 4_000_000, "order_records": 300_000,
             "e2e_records": 6000, "e2e_rate": 1000, "e2e_seconds": 10, "loadgen_producers": 3, "loadgen_seconds": 10,
             "loadgen_compression": "none", "idle_wait_s": 5, "lag_rate": 5000, "lag_seconds": 10,
             "txn_transactions": 1000, "wide_partitions": 24, "wide_records": 2_400_000, "wide_consumers": 4,
             "fetch_passes": 5, "scram_connections": 16, "scram_seconds": 10,
             "scram_warmup_seconds": 3},
    # --nodes 3: every record is written three times on the same two cores
    # (and Kafka runs three JVMs), so fewer records keep a round in minutes.
    "replicated": {"partitions": 6, "records_1k": 300_000, "records_100b": 1_000_000, "order_records": 100_000,
                   "e2e_records": 2000, "e2e_rate": 1000, "e2e_seconds": 10, "loadgen_producers": 3,
                   "loadgen_seconds": 10, "loadgen_compression": "none", "idle_wait_s": 5, "lag_rate": 5000,
                   "lag_seconds": 10, "txn_transactions": 500, "wide_partitions": 24, "wide_records": 600_000,
                   "wide_consumers": 4, "fetch_passes": 5, "scram_connections": 16, "scram_seconds": 10,
                   "scram_warmup_seconds": 3},
    "quick": {"partitions": 6, "records_1k": 100_000, "records_100b": 300_000, "order_records": 100_000,
              "e2e_records": 500,
              "e2e_rate": 500, "e2e_seconds": 3, "loadgen_producers": 3, "loadgen_seconds": 3,
              "loadgen_compression": "none", "idle_wait_s": 2, "lag_rate": 2000, "lag_seconds": 4,
              "txn_transactions": 200, "wide_partitions": 24, "wide_records": 300_000, "wide_consumers": 4,
              "fetch_passes": 5, "scram_connections": 16, "scram_seconds": 3,
              "scram_warmup_seconds": 1},
}

# Names --only takes for several workloads at once. "security": the lines
# of the security issue's goals (TLS producer and consumers, broker CPU per
# GB, new SCRAM connections) and what they read, for
# `--security plaintext,tls` runs that fit in minutes.
WORKLOAD_SETS = {
    "security": ["producer_1k_acks1", "producer_1k_acksall_idempotent", "consumer_1k", "loadgen_produce",
                 "loadgen_consume", "scram_connections"],
    # The authorization issue's producer and consumer lines, for
    # `--security sasl,acls` runs.
    "authorization": ["producer_1k_acks1", "producer_1k_acksall_idempotent", "consumer_1k", "loadgen_produce",
                      "loadgen_consume"],
    # The group protocols issue's rebalance lines (bench/RESULTS-rebalance.md).
    "rebalance": ["rebalance_classic", "rebalance_consumer"],
}


def parse_args(argv):
    p = argparse.ArgumentParser(prog="bench/e2e/run", description=__doc__)
    p.add_argument("--repo", required=True, help="repository root")
    p.add_argument("--build-dir", required=True, help="Release build dir holding highwater and bench/hw_loadgen")
    p.add_argument("--rounds", type=int, default=None, help="rounds per broker (default 3, --quick 1)")
    p.add_argument("--quick", action="store_true", help="1 round, small record counts (development)")
    p.add_argument("--nodes", type=int, default=1,
                   help="nodes per cluster (combined broker+controller); from 3 on, topics get replication factor 3, "
                        "min.insync.replicas=2, and the replication workloads run")
    p.add_argument("--brokers", default="kafka,highwater", help="broker kinds, in the order they run per round")
    p.add_argument("--only", default="",
                   help="comma-separated workload names to run, or sets of them: "
                        + ", ".join(f"{k} ({'+'.join(v)})" for k, v in WORKLOAD_SETS.items()))
    p.add_argument("--security", default="plaintext",
                   help="comma-separated modes, each a session of every round: plaintext (the default), tls "
                        "(SSL client and inter-broker listeners; results to RESULTS-tls*.md, with the cost of TLS "
                        "when plaintext ran too), sasl (SASL_PLAINTEXT/PLAIN client listener, PLAINTEXT "
                        "inter-broker listener, no authorizer) or acls (sasl plus StandardAuthorizer and 1,000 ACLs; "
                        "results to RESULTS-acls*.md, with the cost of authorization when sasl ran too)")
    p.add_argument("--work-dir", default=None, help="where data dirs go (default: a new dir under $TMPDIR)")
    p.add_argument("--output", default=None, help="where RESULTS.md/results.json go (default bench/, --quick: work dir)")
    p.add_argument("--records-1k", type=int, default=None)
    p.add_argument("--records-100b", type=int, default=None)
    p.add_argument("--compression", choices=["none", "lz4"], default=None, help="hw_loadgen compression")
    p.add_argument("--keep-data", action="store_true", help="keep each round's data dirs")
    p.add_argument("--perf", default=None, metavar="DIR",
                   help="perf record -a around each workload into DIR (profiling; skews the figures)")
    args = p.parse_args(argv)
    args.sizes = dict(SIZES["quick" if args.quick else "replicated" if args.nodes >= 3 else "full"])
    if args.records_1k:
        args.sizes["records_1k"] = args.records_1k
    if args.records_100b:
        args.sizes["records_100b"] = args.records_100b
    if args.compression:
        args.sizes["loadgen_compression"] = args.compression
    if args.rounds is None:
        args.rounds = 1 if args.quick else 3
    args.only = [w for name in args.only.split(",") if name for w in WORKLOAD_SETS.get(name, [name])]
    args.security = [m for m in args.security.split(",") if m]
    unknown = [m for m in args.security if m not in security.MODES]
    if unknown or not args.security or len(set(args.security)) != len(args.security):
        p.error(f"--security takes {' or '.join(security.MODES)}, comma-separated, each once")
    return args


def log(msg):
    print(f"[{datetime.datetime.now().strftime('%H:%M:%S')}] {msg}", flush=True)


def measure_startup(cluster, tools):
    """Spawns the cluster and returns ms from spawn to the first acknowledged
    produce (hw_loadgen probe retries with short timeouts). In the SASL
    modes the probe goes to the PLAINTEXT inter-broker listener (as
    ANONYMOUS, a super user in acls sessions, whose ACLs are made after
    it), so that sasl and acls sessions measure the same start-up."""
    spawned = cluster.start()
    secured = not tools.security.sasl
    bootstrap = cluster.bootstrap if secured else cluster.harness_bootstrap
    argv, probe = tools.loadgen_popen("probe", ["--bootstrap", bootstrap, "--topic", workloads.PROBE_TOPIC,
                                                "--timeout-ms", 120000], secured)
    out, err = probe.communicate(timeout=150)
    if probe.returncode != 0:
        raise ToolError("start-up probe failed", " ".join(argv), out + err + "\n" + cluster.log_tail())
    answer = json.loads(out.strip().splitlines()[-1])
    acked = answer["acked_epoch_ms"] / 1000.0
    return {"startup_to_first_produce_ms": (acked - spawned) * 1000.0, "probe_attempts": answer["attempts"],
            "rss_after_start_mib": procstat.total_status_mib(cluster.pids(), "VmRSS")}


def run_workload(session, name, fn, recorder=None, label=None):
    """Runs one workload; adds the broker's CPU (and per GB), the clients'
    CPU and the broker's peak RSS during it (VmHWM reset before, when the
    kernel allows it)."""
    pids = session.cluster.pids()
    peak_reset = profile.reset_peak_rss(pids)
    if recorder:
        recorder.start(label)
        time.sleep(1)  # perf -a takes a moment to set up
    cpu0, t0, client0 = procstat.total_cpu_seconds(pids), time.monotonic(), profile.children_cpu_seconds()
    try:
        m = fn(session)
        # A workload that restarted a node (leader_failover) has no CPU figure.
        same_processes = session.cluster.pids() == pids
        cpu = procstat.total_cpu_seconds(pids) - cpu0 if same_processes else None
        client = profile.children_cpu_seconds() - client0  # before perf itself is reaped
    finally:
        if recorder:
            recorder.stop()
    m["wall_s"] = round(time.monotonic() - t0, 2)
    m["client_cpu_s"] = round(client, 2)
    if cpu is None:
        return m
    m["broker_cpu_s"] = round(cpu, 2)
    if peak_reset:
        m["broker_peak_rss_mib"] = round(procstat.total_status_mib(pids, "VmHWM"), 1)
    if m.get("bytes"):
        m["cpu_s_per_gb"] = cpu / (m["bytes"] / 1e9)
        # Per GB too: a workload of fixed duration (hw_loadgen produce, and
        # the consume that reads it back) moves more bytes on the faster
        # broker, so the client's total CPU alone compares unequal amounts.
        m["client_cpu_s_per_gb"] = client / (m["bytes"] / 1e9)
    return m


def settle_disk():
    """Waits for the page cache's dirty data to reach the disk: what the
    previous broker or workload wrote back would otherwise slow the next
    one's writes and fsyncs (creating a topic right after a broker's start
    took 0.2 s or 1.2 s depending on it)."""
    os.sync()


def selected(args, name):
    return not args.only or name in args.only


def run_session(kind, round_no, args, tools):
    """One broker kind, one round, one security mode (tools.security), fresh
    data dir. Returns the round's record."""
    mode = tools.security.mode
    label = f"round{round_no}-{kind}" if mode == "plaintext" else f"round{round_no}-{mode}-{kind}"
    work = os.path.join(args.work_dir, label)
    shutil.rmtree(work, ignore_errors=True)
    settle_disk()
    rec = {"broker": kind, "round": round_no, "security": mode, "metrics": {}, "errors": [], "findings": []}
    cluster = make_cluster(kind, work, args.nodes, args.sizes["partitions"], tools, log,
                           os.path.join(args.build_dir, "highwater"), selected(args, "scram_connections"))
    log(f"round {round_no}: {kind}, {mode} ({args.nodes} node(s), data in {work})")
    stage = "startup"
    try:
        rec["metrics"]["startup"] = measure_startup(cluster, tools)
        log(f"  startup: {rec['metrics']['startup']['startup_to_first_produce_ms']:.0f} ms to first produce")
        if tools.security.acls:
            # Not a workload: the ACLs every workload of the session runs under.
            stage = "acls"
            rec["metrics"]["acls"] = workloads.install_acls(cluster, tools, security.acl_set())
            log("  ACLs: " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                      for k, v in rec["metrics"]["acls"].items()))
        session = workloads.Session(cluster, tools, args.sizes, log)
        recorder = profile.Recorder(args.perf) if args.perf else None
        peak_rss = procstat.total_status_mib(cluster.pids(), "VmHWM")
        for name, fn in workloads.all_workloads(args.nodes):
            if not selected(args, name):
                continue
            dead = cluster.dead_nodes()
            if dead:
                rec["errors"].append({"workload": name, "error": f"{kind} exited before this workload "
                                      f"(exit code {dead[0].proc.returncode})", "output_tail": cluster.log_tail()})
                break
            log(f"  {name}")
            settle_disk()
            try:
                m = run_workload(session, name, fn, recorder, f"{label}-{name}")
                rec["metrics"][name] = m
                peak_rss = max(peak_rss, m.get("broker_peak_rss_mib", 0))
                log("    " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in m.items()))
            except ToolError as e:
                err = dict(e.as_dict(), workload=name, broker_log_tail=cluster.log_tail(20))
                rec["errors"].append(err)
                log(f"    FAILED: {e} ({e.command})\n{e.output[-1500:]}")
            except (OSError, ValueError, KeyError) as e:  # a harness bug: keep going, keep it visible
                rec["errors"].append({"workload": name, "error": f"harness error: {e!r}"})
                log(f"    HARNESS ERROR: {e!r}")
        rec["findings"] += session.findings
        if not cluster.dead_nodes():
            # Each workload reset VmHWM: the round's peak is the largest of theirs.
            rec["metrics"]["resources"] = {
                "peak_rss_mib": max(peak_rss, procstat.total_status_mib(cluster.pids(), "VmHWM"))}
    except (ToolError, subprocess.TimeoutExpired) as e:
        err = e.as_dict() if isinstance(e, ToolError) else {"error": str(e)}
        rec["errors"].append(dict(err, workload=stage, broker_log_tail=cluster.log_tail(40)))
        log(f"  FAILED ({stage}): {e}")
    finally:
        rec["stop"] = cluster.stop()
        for s in rec["stop"]:
            if s["killed"] or (kind == "highwater" and s["exit_code"] != 0):
                rec["findings"].append({"workload": "stop", "error": f"node {s['node']} stop: {s}",
                                        "output_tail": cluster.log_tail(20)})
        logs = os.path.join(args.work_dir, "logs")
        os.makedirs(logs, exist_ok=True)
        for n in cluster.nodes:
            if os.path.exists(n.log_path):
                shutil.copy(n.log_path, os.path.join(logs, f"{label}-node{n.node_id}.log"))
        if not args.keep_data:
            shutil.rmtree(work, ignore_errors=True)
    return rec


def git_commit(repo):
    """The commit benchmarked, '-dirty' when the tree has uncommitted changes
    (HW_BENCH_SOURCE_COMMIT names it for a source tree outside git)."""
    if os.environ.get("HW_BENCH_SOURCE_COMMIT"):
        return os.environ["HW_BENCH_SOURCE_COMMIT"]
    try:
        out = subprocess.run(["git", "-C", repo, "describe", "--always", "--dirty", "--abbrev=10"],
                             capture_output=True, text=True)
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def build_type(build_dir):
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith("CMAKE_BUILD_TYPE:"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    args.work_dir = args.work_dir or tempfile.mkdtemp(prefix="hw-bench-")
    os.makedirs(args.work_dir, exist_ok=True)
    output = args.output or (args.work_dir if args.quick else os.path.join(args.repo, "bench"))
    certs = security.make_certificates(args.repo, args.work_dir, log) if "tls" in args.security else None
    tools = {mode: Tools(args.repo, os.path.join(args.build_dir, "bench", "hw_loadgen"), log,
                         security.Security(mode, certs, args.work_dir))
             for mode in args.security}
    kinds = [k for k in args.brokers.split(",") if k]
    if args.perf:
        os.environ["KAFKA_OPTS"] = (os.environ.get("KAFKA_OPTS", "") + " " + profile.JAVA_PERF_MAP_OPTS).strip()
    meta = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": os.environ.get("HW_BENCH_COMMAND", "bench/e2e/run " + " ".join(sys.argv[1:])).strip(),
        "machine": procstat.machine(),
        "highwater_commit": git_commit(args.repo),
        "highwater_build_type": build_type(args.build_dir),
        "kafka_version": os.environ.get("KAFKA_VERSION", "4.3.1"),
        "kafka_heap": "-Xmx1g",
        "nodes": args.nodes, "rounds": args.rounds, "quick": args.quick, "sizes": args.sizes,
        "security": args.security, "security_detail": {m: t.security.describe() for m, t in tools.items()},
        "only": args.only,
        "work_dir": args.work_dir,
        # Other work on the machine skews everything; say how busy it was.
        "load_average_start": [round(x, 2) for x in os.getloadavg()],
    }
    log(f"work dir {args.work_dir}; results to {output}")
    started = time.monotonic()
    rounds = []
    for r in range(1, args.rounds + 1):
        # Modes interleaved like the kinds, so that the machine's drift
        # over the run weighs on plaintext and TLS alike.
        for mode in args.security:
            for kind in kinds:
                rounds.append(run_session(kind, r, args, tools[mode]))
                # Partial results survive an interrupted run.
                report.write(output, meta, rounds)
    meta["total_seconds"] = round(time.monotonic() - started, 1)
    meta["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    paths = report.write(output, meta, rounds)
    log(f"done in {meta['total_seconds']:.0f} s: {', '.join(paths)}")
    return 0
