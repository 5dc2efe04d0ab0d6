#!/usr/bin/env python3
"""KRaft metadata quorum benchmark (issue 6): commit latency and failover time
of three controller-only voters on 127.0.0.1, Highwater and Apache Kafka 4.3.1.

A commit is IncrementalAlterConfigs v1 setting the cluster-default
log.retention.bytes to a new value, sent to the leader's controller
listener: the leader answers once the ConfigRecord is committed by a
majority (fsync on), so a round trip is commit latency + one loopback RTT.
Run through bench/quorum/run (which builds the Release binary).
"""

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# kafka_wire, shared with the end-to-end benchmark.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from clusters import ELECTION_TIMEOUT_MS, FETCH_TIMEOUT_MS, highwater_cluster, kafka_cluster  # noqa: E402
from kafka_wire import (NOT_CONTROLLER, connection, incremental_alter_configs_v1,  # noqa: E402
                        parse_incremental_alter_configs_v1)

KEY = "log.retention.bytes"


class value_source:
    """Distinct increasing config values, shared by every client thread."""

    def __init__(self):
        self.lock = threading.Lock()
        self.next = 1 << 30

    def take(self):
        with self.lock:
            self.next += 1
            return self.next


def percentile(sorted_values, p):
    if not sorted_values:
        return None
    k = min(len(sorted_values) - 1, max(0, int(round(p / 100.0 * len(sorted_values) + 0.5)) - 1))
    return sorted_values[k]


def latency_summary(samples_ms):
    s = sorted(samples_ms)
    return {
        "count": len(s),
        "p50_ms": percentile(s, 50),
        "p99_ms": percentile(s, 99),
        "p99_9_ms": percentile(s, 99.9),
        "max_ms": s[-1] if s else None,
        "mean_ms": statistics.fmean(s) if s else None,
    }


def commit(conn, values):
    return conn.call(incremental_alter_configs_v1(KEY, str(values.take())), parse_incremental_alter_configs_v1)


def commit_until_ok(port, values, deadline_s=30.0, retry_s=0.01):
    """Commits one value on the node at `port`, asking again while it answers
    NOT_CONTROLLER (a new leader before its epoch's first entry commits) or
    the connection fails; the error of the last answer (0 on success)."""
    deadline = time.monotonic() + deadline_s
    last = None
    conn = None
    while time.monotonic() < deadline:
        try:
            if conn is None:
                conn = connection(port, timeout=max(0.5, deadline - time.monotonic()))
            last = commit(conn, values)
            if last != NOT_CONTROLLER:
                break
        except (OSError, ValueError) as e:
            last = str(e)
            if conn:
                conn.close()
            conn = None
        time.sleep(retry_s)
    if conn:
        conn.close()
    return last


def run_sequential(cl, leader, values, n, warmup):
    conn = connection(cl.ports[leader], timeout=30)
    errors = {}
    samples = []
    slow = []  # commits over 1 s: which value, when (UTC), to find them in the nodes' logs
    started = None
    try:
        for i in range(warmup + n):
            sent_at = time.time()
            t0 = time.perf_counter_ns()
            v = values.take()
            err = conn.call(incremental_alter_configs_v1(KEY, str(v)), parse_incremental_alter_configs_v1)
            dt = (time.perf_counter_ns() - t0) / 1e6
            if dt > 1000:
                slow.append({"index": i, "value": v, "ms": dt, "error": err,
                             "sent_utc": datetime.datetime.fromtimestamp(sent_at, datetime.timezone.utc)
                             .strftime("%H:%M:%S.%f")[:-3]})
            if err != 0:
                errors[err] = errors.get(err, 0) + 1
                continue
            if i == warmup - 1:
                started = time.monotonic()
            if i >= warmup:
                samples.append(dt)
    finally:
        conn.close()
    out = latency_summary(samples)
    out["wall_s"] = time.monotonic() - started if started else None
    out["commits_per_s"] = len(samples) / out["wall_s"] if out["wall_s"] else None
    out["errors"] = {str(k): v for k, v in errors.items()}
    out["over_1s"] = slow
    return out


def run_concurrent(cl, leader, values, clients, per_client):
    results = [None] * clients
    start = threading.Barrier(clients + 1)

    def worker(k):
        lat, errors = [], {}
        conn = None
        try:
            conn = connection(cl.ports[leader], timeout=30)
            commit(conn, values)  # warm-up, not counted
        except Exception:
            start.abort()  # the others and the main thread see a broken barrier
            raise
        try:
            start.wait()
            for _ in range(per_client):
                t0 = time.perf_counter_ns()
                err = commit(conn, values)
                dt = (time.perf_counter_ns() - t0) / 1e6
                if err == 0:
                    lat.append(dt)
                else:
                    errors[err] = errors.get(err, 0) + 1
        except Exception as e:  # reported, not hidden
            errors[repr(e)] = errors.get(repr(e), 0) + 1
        finally:
            conn.close()
            results[k] = (lat, errors)

    def guarded(k):
        try:
            worker(k)
        except Exception as e:
            results[k] = ([], {repr(e): 1})

    threads = [threading.Thread(target=guarded, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    start.wait()
    t0 = time.monotonic()
    for t in threads:
        t.join()
    wall = time.monotonic() - t0
    lat = [x for r in results for x in r[0]]
    errors = {}
    for r in results:
        for k, v in r[1].items():
            errors[str(k)] = errors.get(str(k), 0) + v
    out = latency_summary(lat)
    out["clients"] = clients
    out["wall_s"] = wall
    out["commits_per_s"] = len(lat) / wall if wall > 0 else None
    out["errors"] = errors
    return out


def run_failover(cl, values, rounds, poll_s, log):
    out = []
    for r in range(rounds):
        leader = cl.wait_caught_up()
        _, epoch, _, _ = cl.find_leader([leader])
        # The leader is writing when it dies: a few commits just before.
        for _ in range(5):
            commit_until_ok(cl.ports[leader], values)
        others = [i for i in range(cl.n) if i != leader]
        killed_at = cl.kill(leader)
        elected_at, new_leader, new_epoch = None, None, None
        deadline = killed_at + 60
        while time.monotonic() < deadline:
            tick = time.monotonic()
            for i in others:
                d = cl.describe(i, timeout=0.5)
                if d and d[0] == 0 and d[1] == i + 1 and d[2] > epoch:
                    elected_at, new_leader, new_epoch = time.monotonic(), i, d[2]
                    break
            if new_leader is not None:
                break
            time.sleep(max(0.0, poll_s - (time.monotonic() - tick)))
        row = {"round": r + 1, "killed": leader + 1, "old_epoch": epoch}
        # A node we did not kill that is gone (e.g. a signal from outside the benchmark).
        gone = {i + 1: cl.procs[i].poll() for i in others if cl.procs[i].poll() is not None}
        if gone:
            row["other_nodes_exited"] = gone
        if new_leader is None:
            row["error"] = "no new leader within 60 s" + (
                "; nodes that exited meanwhile (node: exit code): %s" % gone if gone else "")
            out.append(row)
            log("  round %d: %s" % (r + 1, row["error"]))
            cl.start(leader)
            for i in others:
                if cl.procs[i].poll() is not None:
                    cl.start(i)
            continue
        err = commit_until_ok(cl.ports[new_leader], values, deadline_s=60, retry_s=poll_s)
        committed_at = time.monotonic()
        row.update({
            "new_leader": new_leader + 1,
            "new_epoch": new_epoch,
            "elected_ms": (elected_at - killed_at) * 1000,
            "first_commit_ms": (committed_at - killed_at) * 1000 if err == 0 else None,
            "commit_error": None if err == 0 else str(err),
        })
        out.append(row)
        log("  round %d: killed node %d (epoch %d) -> node %d leads epoch %d after %.0f ms, first commit after %s ms"
            % (r + 1, leader + 1, epoch, new_leader + 1, new_epoch, row["elected_ms"],
               "%.0f" % row["first_commit_ms"] if row["first_commit_ms"] is not None else "-"))
        cl.start(leader)
        for i in others:  # bring back what died without us
            if cl.procs[i].poll() is not None:
                log("  node %d exited with code %s during the round (not killed by the benchmark); restarting it"
                    % (i + 1, cl.procs[i].returncode))
                row.setdefault("other_nodes_exited", {})[i + 1] = cl.procs[i].returncode
                cl.start(i)
    elected = [x["elected_ms"] for x in out if x.get("elected_ms") is not None]
    committed = [x["first_commit_ms"] for x in out if x.get("first_commit_ms") is not None]
    return {
        "rounds": out,
        "elected_median_ms": statistics.median(elected) if elected else None,
        "elected_max_ms": max(elected) if elected else None,
        "first_commit_median_ms": statistics.median(committed) if committed else None,
        "first_commit_max_ms": max(committed) if committed else None,
        "failed_rounds": len(out) - len(committed),
    }


def bench_one(cl, args, log):
    res = {"kind": cl.kind}
    t_start = time.monotonic()
    if cl.kind == "kafka":
        log("formatting 3 Kafka controllers ...")
        cl.format()
    cl.start_all()
    try:
        res["startup_to_leader_s"] = None
        leader, epoch, _, _ = cl.find_leader(timeout=120)
        res["startup_to_leader_s"] = time.monotonic() - t_start
        values = value_source()
        err = commit_until_ok(cl.ports[leader], values, deadline_s=60)
        if err != 0:
            raise RuntimeError("%s: the first commit on the leader failed: %s" % (cl.kind, err))
        leader = cl.wait_caught_up()
        log("%s: node %d leads (epoch %d); %d sequential commits ..." % (cl.kind, leader + 1, epoch, args.commits))
        res["sequential"] = run_sequential(cl, leader, values, args.commits, args.warmup)
        log("  p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms" % (
            res["sequential"]["p50_ms"], res["sequential"]["p99_ms"], res["sequential"]["p99_9_ms"],
            res["sequential"]["max_ms"]))
        per_client = max(1, args.concurrent_commits // args.clients)
        log("%s: %d clients x %d commits ..." % (cl.kind, args.clients, per_client))
        res["concurrent"] = run_concurrent(cl, leader, values, args.clients, per_client)
        log("  %.0f commits/s, p50 %.2f ms, p99 %.2f ms" % (
            res["concurrent"]["commits_per_s"], res["concurrent"]["p50_ms"], res["concurrent"]["p99_ms"]))
        log("%s: %d failover rounds ..." % (cl.kind, args.rounds))
        res["failover"] = run_failover(cl, values, args.rounds, args.poll_ms / 1000.0, log)
        res["exit_codes_before_stop"] = cl.exit_codes()
    finally:
        cl.stop_all()
    res["exit_codes"] = cl.exit_codes()
    return res


def fsync_probe(work, n=200):
    """Latency of 200-byte append + fsync in the work dir: the disk both brokers wait on."""
    path = os.path.join(work, "fsync-probe")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    samples = []
    try:
        for _ in range(n):
            os.write(fd, b"x" * 200)
            t0 = time.perf_counter_ns()
            os.fsync(fd)
            samples.append((time.perf_counter_ns() - t0) / 1e6)
    finally:
        os.close(fd)
        os.remove(path)
    return latency_summary(samples)


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt(v, digits=2):
    if v is None:
        return "-"
    if isinstance(v, float):
        return ("%." + str(digits) + "f") % v
    return str(v)


def machine():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            kb = int(f.readline().split()[1])
            mem = "%.1f GiB" % (kb / 1024 / 1024)
    except (OSError, ValueError, IndexError):
        pass
    return "%d cores (%s), %s memory, Linux %s" % (os.cpu_count() or 0, cpu, mem, platform.release())


def tables(results):
    """Markdown tables of a run (also printed on stdout)."""
    kinds = [k for k in ("highwater", "kafka") if k in results["brokers"]]
    hw = results["brokers"].get("highwater", {})
    ka = results["brokers"].get("kafka", {})
    both = "highwater" in kinds and "kafka" in kinds
    lines = []
    head = "| measure | " + " | ".join(kinds) + (" | ratio HW/Kafka |" if both else " |")
    sep = "|---|" + "---|" * len(kinds) + ("---|" if both else "")
    lines += [head, sep]

    def row(label, get, digits=2):
        vals = []
        for k in kinds:
            try:
                vals.append(get(results["brokers"][k]))
            except (KeyError, TypeError):
                vals.append(None)
        cells = [fmt(v, digits) for v in vals]
        if both:
            cells.append(fmt(ratio(vals[0], vals[1]), 3))
        lines.append("| " + label + " | " + " | ".join(cells) + " |")

    row("sequential commit p50 (ms)", lambda r: r["sequential"]["p50_ms"])
    row("sequential commit p99 (ms)", lambda r: r["sequential"]["p99_ms"])
    row("sequential commit p99.9 (ms)", lambda r: r["sequential"]["p99_9_ms"])
    row("sequential commit max (ms)", lambda r: r["sequential"]["max_ms"])
    row("sequential commits/s (N / wall time)", lambda r: r["sequential"]["commits_per_s"], 0)
    row("sequential commits over 1 s", lambda r: len(r["sequential"]["over_1s"]), 0)
    row("8 clients: commits/s", lambda r: r["concurrent"]["commits_per_s"], 0)
    row("8 clients: p50 (ms)", lambda r: r["concurrent"]["p50_ms"])
    row("8 clients: p99 (ms)", lambda r: r["concurrent"]["p99_ms"])
    row("failover: kill -> new leader, median (ms)", lambda r: r["failover"]["elected_median_ms"], 0)
    row("failover: kill -> new leader, max (ms)", lambda r: r["failover"]["elected_max_ms"], 0)
    row("failover: kill -> first commit, median (ms)", lambda r: r["failover"]["first_commit_median_ms"], 0)
    row("failover: kill -> first commit, max (ms)", lambda r: r["failover"]["first_commit_max_ms"], 0)
    row("start-up: spawn -> leader elected (s)", lambda r: r["startup_to_leader_s"])

    rounds = []
    for k in kinds:
        r = results["brokers"][k]
        for x in r.get("failover", {}).get("rounds", []):
            note = x.get("error") or ""
            if x.get("other_nodes_exited") and "exited" not in note:
                note += "other nodes exited (node: code): %s" % x["other_nodes_exited"]
            rounds.append("| %s | %d | %s | %s | %s | %s | %s | %s |" % (
                k, x["round"], x["killed"], fmt(x.get("new_leader")),
                "%s -> %s" % (x["old_epoch"], fmt(x.get("new_epoch"))), fmt(x.get("elected_ms"), 0),
                fmt(x.get("first_commit_ms"), 0) if not x.get("commit_error") else "error " + x["commit_error"], note))
    lines += ["", "Failover rounds (SIGKILL of the leader; poll every %d ms):" % results["params"]["poll_ms"], "",
              "| broker | round | killed | new leader | epoch | kill -> leader (ms) | kill -> commit (ms) | note |",
              "|---|---|---|---|---|---|---|---|"] + rounds

    goals = ["", "Goals:", "", "| goal | target | highwater | met |", "|---|---|---|---|"]
    if hw.get("sequential"):
        p99 = hw["sequential"]["p99_ms"]
        goals.append("| sequential commit p99 | < 10 ms | %s ms | %s |" % (fmt(p99), "yes" if p99 < 10 else "**MISSED**"))
    if hw.get("failover"):
        limit = 2 * ELECTION_TIMEOUT_MS
        for label, key in (("kill -> new leader, max", "elected_max_ms"),
                           ("kill -> first commit, max", "first_commit_max_ms")):
            v = hw["failover"][key]
            met = v is not None and v < limit and hw["failover"]["failed_rounds"] == 0
            goals.append("| failover %s | < %d ms (2x election timeout) | %s ms | %s |" % (
                label, limit, fmt(v, 0), "yes" if met else "**MISSED**"))
    lines += goals
    slow = [(k, x) for k in kinds for x in results["brokers"][k].get("sequential", {}).get("over_1s", [])]
    if slow:
        lines += ["", "Sequential commits over 1 s (value sent, when, answer):", ""]
        for k, x in slow:
            lines.append("- %s: commit #%d (value %d) sent %s UTC, answered after %.0f ms with error %s" % (
                k, x["index"], x["value"], x["sent_utc"], x["ms"], x["error"]))
    if ka.get("error") or hw.get("error"):
        lines += ["", "Errors:"]
        for k in kinds:
            if results["brokers"][k].get("error"):
                lines.append("- %s: %s" % (k, results["brokers"][k]["error"]))
    return "\n".join(lines)


def results_section(results):
    p = results["params"]
    return "\n".join([
        "# Metadata quorum (issue 6)",
        "",
        "- Date: %s" % results["date"],
        "- Command: `%s`" % results["command"],
        "- Machine: %s; **shared**: other work of this session (builds, tests) ran on the same 2 cores during "
        "the run, so figures are noisy; load average (1, 5, 15 min) at start %s, at end %s" % (
            results["machine"], results["loadavg_start"], results["loadavg_end"]),
        "- Highwater %s, Release build; Apache Kafka 4.3.1 (JVM %s, Kafka's G1 options)" % (
            results["highwater_commit"], p["kafka_heap"]),
        "- 3 controller-only voters on 127.0.0.1 per broker (static `controller.quorum.voters`), fresh data dirs "
        "in %s, fsync on (both defaults), election timeout %d ms, fetch timeout %d ms; Kafka's "
        "`controller.quorum.append.linger.ms` %s" % (
            p["work_dir_fs"], ELECTION_TIMEOUT_MS, FETCH_TIMEOUT_MS, p["kafka_linger"]),
        "- Disk: 200-byte append + fsync in the work dir, p50/p99/max %s/%s/%s ms before the run, %s/%s/%s ms "
        "after" % tuple(fmt(results[k][m]) for k in ("fsync_probe_before", "fsync_probe_after")
                        for m in ("p50_ms", "p99_ms", "max_ms")),
        "- A commit: IncrementalAlterConfigs v1 (cluster-default broker config %s set to a new value) on the "
        "leader's controller listener, answered once the ConfigRecord is committed (Highwater also waits until "
        "its own metadata image has applied it); one Python client per connection (its own overhead, ~0.1 ms, "
        "is in the figures)" % KEY,
        "- Sequential: %d commits, one in flight, after %d warm-up; concurrent: %d clients x %d commits" % (
            p["commits"], p["warmup"], p["clients"], p["concurrent_commits"] // p["clients"]),
        "- Failover: %d rounds; SIGKILL of the leader, DescribeQuorum v2 on the other two every %d ms until "
        "one answers as leader with a higher epoch, then IncrementalAlterConfigs on it until it succeeds "
        "(retried every %d ms on NOT_CONTROLLER); the killed node restarts and every voter catches up before "
        "the next round" % (p["rounds"], p["poll_ms"], p["poll_ms"]),
        "",
        tables(results),
        "",
    ])


def update_results_md(path, section):
    """Replaces the '# Metadata quorum (issue 6)' section of RESULTS.md (up to
    the next top-level heading) or appends it."""
    text = open(path).read() if os.path.exists(path) else ""
    marker = "# Metadata quorum (issue 6)"
    start = text.find("\n" + marker + "\n")
    if text.startswith(marker + "\n"):
        start = 0
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        begin = start if start == 0 else start + 1
        end = text.find("\n# ", begin + len(marker))
        tail = "" if end < 0 else text[end + 1:]
        text = text[:begin] + section + ("\n" + tail if tail else "")
    with open(path, "w") as f:
        f.write(text)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repo", required=True)
    p.add_argument("--build-dir", required=True)
    p.add_argument("--brokers", default="highwater,kafka", help="which to run, in order")
    p.add_argument("--commits", type=int, default=2000, help="sequential commits (N)")
    p.add_argument("--warmup", type=int, default=50)
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--concurrent-commits", type=int, default=4000, help="total over the concurrent clients")
    p.add_argument("--rounds", type=int, default=5, help="failover rounds (R)")
    p.add_argument("--poll-ms", type=int, default=10)
    p.add_argument("--kafka-heap", default="-Xmx512m")
    p.add_argument("--kafka-linger-ms", type=int, default=None,
                   help="set Kafka's controller.quorum.append.linger.ms (default: Kafka's own, 25)")
    p.add_argument("--work-dir", default=None, help="where node data goes (default: a fresh temp dir, removed)")
    p.add_argument("--keep", action="store_true", help="keep the work dir")
    p.add_argument("--out", default=None, help="results.json path (default bench/quorum/results.json)")
    p.add_argument("--results-md", default=None, help="update this RESULTS.md's quorum section (e.g. bench/RESULTS.md)")
    p.add_argument("--quick", action="store_true", help="200 commits, 800 concurrent, 2 rounds")
    args = p.parse_args()
    if args.quick:  # smaller defaults; explicit flags still win
        for name, value in (("commits", 200), ("concurrent_commits", 800), ("rounds", 2), ("warmup", 20)):
            if getattr(args, name) == p.get_default(name):
                setattr(args, name, value)

    def log(msg):
        print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)

    work = args.work_dir or tempfile.mkdtemp(prefix="hw-qbench-")
    os.makedirs(work, exist_ok=True)
    fs = subprocess.run(["df", "-T", work], capture_output=True, text=True).stdout.splitlines()[-1].split()
    commit = subprocess.run(["git", "-C", args.repo, "rev-parse", "--short=10", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    results = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": os.environ.get("HW_BENCH_COMMAND", " ".join(sys.argv)),
        "machine": machine(),
        "highwater_commit": commit,
        "loadavg_start": [round(x, 2) for x in os.getloadavg()],
        "params": {
            "commits": args.commits, "warmup": args.warmup, "clients": args.clients,
            "concurrent_commits": args.concurrent_commits, "rounds": args.rounds, "poll_ms": args.poll_ms,
            "election_timeout_ms": ELECTION_TIMEOUT_MS, "fetch_timeout_ms": FETCH_TIMEOUT_MS,
            "kafka_heap": args.kafka_heap,
            "kafka_linger": "%d ms (set)" % args.kafka_linger_ms if args.kafka_linger_ms is not None
            else "left at Kafka's default (25 ms)",
            "work_dir_fs": "%s (%s)" % (fs[1], fs[-1]) if len(fs) >= 7 else work,
        },
        "brokers": {},
    }
    results["fsync_probe_before"] = fsync_probe(work)
    log("disk: append+fsync p50 %.2f ms, p99 %.2f ms, max %.2f ms" % tuple(
        results["fsync_probe_before"][m] for m in ("p50_ms", "p99_ms", "max_ms")))
    status = 0
    for kind in args.brokers.split(","):
        d = os.path.join(work, kind)
        if kind == "highwater":
            cl = highwater_cluster(d, os.path.join(args.build_dir, "highwater"))
        elif kind == "kafka":
            extra = [] if args.kafka_linger_ms is None else ["controller.quorum.append.linger.ms=%d" % args.kafka_linger_ms]
            cl = kafka_cluster(d, args.repo, heap=args.kafka_heap, extra_props=extra)
        else:
            p.error("unknown broker kind " + kind)
        log("%s: 3 voters on ports %s, data in %s" % (kind, cl.ports, d))
        try:
            results["brokers"][kind] = bench_one(cl, args, log)
        except Exception as e:  # a failed broker is reported, and the other still runs
            status = 1
            log("%s FAILED: %s" % (kind, e))
            results["brokers"][kind] = {"kind": kind, "error": str(e), "exit_codes": cl.exit_codes()}
            cl.stop_all()
    results["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    results["fsync_probe_after"] = fsync_probe(work)
    out = args.out or os.path.join(args.repo, "bench", "quorum", "results.json")
    with open(out, "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    print(tables(results))
    print("\nresults: %s" % out)
    if args.results_md:
        update_results_md(args.results_md, results_section(results))
        print("updated %s" % args.results_md)
    slow = any(r.get("sequential", {}).get("over_1s") for r in results["brokers"].values())
    if args.keep or status or slow:  # the nodes' logs explain failures and stalls
        print("work dir kept: %s" % work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
