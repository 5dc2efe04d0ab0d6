"""The rebalance benchmark: a member joins a group of 20 consuming 120 partitions.

Run by the harness (workloads.rebalance_*) with the venv's Python (confluent-kafka, librdkafka 2.16, which
speaks both group protocols):
    <venv>/bin/python bench/e2e/rebalance.py --bootstrap H:P --topic T --protocol consumer|classic [-X k=v ...]

A producer writes to every partition of the topic in turn at a steady rate (--rate records/s, each value the
send time). --members consumers (threads, one client each) in a fresh group read it, with the group protocol
--protocol: `consumer` (KIP-848: the coordinator computes the assignment; uniform assignor) or `classic`
(JoinGroup/SyncGroup with librdkafka's default eager range assignor). Once every partition is assigned and
each has delivered a record sent in the last second, the rate is measured for --baseline-s seconds; then, after a random wait of up
to --jitter-s (so that the join meets the members' heartbeat cycle anywhere), one more member subscribes
(time T0). The rebalance is over when the assignment covers every partition once, the
new member holds its share (at least partitions // (members + 1)), and every partition has delivered a record
sent after T0 (the ones the new member took, to it).

It prints one JSON object: rebalance_ms (T0 to the end), moved (partitions the new member took), stalled
(partitions that delivered nothing for more than a second between T0 and the end), max_stall_ms (the longest
such gap), baseline_records_per_s, dip_records_per_s (the slowest 500 ms window from T0 to the end, per
second) and dip_ratio (dip / baseline).
"""

import argparse
import json
import random
import sys
import threading
import time
import uuid

from confluent_kafka import Consumer, Producer


class Group:
    """The members and what they delivered, shared by their threads."""

    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.owners = {}              # member -> set of partitions
        self.last_sent = {}           # partition -> send time (s) of the last record delivered
        self.last_seen = {}           # partition -> when (s) it last delivered
        self.seen_by = {}             # partition -> member that last delivered it
        self.gaps = {}                # partition -> longest gap (s) since the tracking began
        self.tracking_from = None
        self.delivered = []           # delivery times (s), for the windows
        self.stopping = False
        self.group = f"rebalance-{args.protocol}-{uuid.uuid4().hex[:8]}"

    def settings(self, member):
        s = {"bootstrap.servers": self.args.bootstrap, "group.id": self.group, "client.id": f"member-{member}",
             "group.protocol": self.args.protocol, "auto.offset.reset": "latest", "enable.auto.commit": True,
             "fetch.wait.max.ms": 100}
        s.update(self.args.settings)
        return s

    def run_member(self, member):
        def on_assign(_c, parts):
            with self.lock:
                self.owners.setdefault(member, set()).update(p.partition for p in parts)

        def on_revoke(_c, parts):
            with self.lock:
                self.owners.setdefault(member, set()).difference_update(p.partition for p in parts)

        consumer = Consumer(self.settings(member))
        consumer.subscribe([self.args.topic], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_revoke)
        while not self.stopping:
            messages = consumer.consume(500, 0.05)
            now = time.time()
            with self.lock:
                for m in messages:
                    if m.error():
                        continue
                    p = m.partition()
                    sent = float(m.value().decode())
                    if self.tracking_from is not None:
                        since = max(self.last_seen.get(p, self.tracking_from), self.tracking_from)
                        self.gaps[p] = max(self.gaps.get(p, 0.0), now - since)
                    self.last_sent[p] = max(self.last_sent.get(p, 0.0), sent)
                    self.last_seen[p] = now
                    self.seen_by[p] = member
                    self.delivered.append(now)
        consumer.close()

    def snapshot(self):
        with self.lock:
            owners = {m: set(ps) for m, ps in self.owners.items()}
            return owners, dict(self.last_sent), dict(self.seen_by)


def produce(args, stop):
    producer = Producer(dict({"bootstrap.servers": args.bootstrap, "linger.ms": 5, "acks": 1}, **args.settings))
    interval = 1.0 / args.rate
    next_at = time.monotonic()
    p = 0
    while not stop.is_set():
        producer.produce(args.topic, str(time.time()).encode(), partition=p)
        p = (p + 1) % args.partitions
        producer.poll(0)
        next_at += interval
        delay = next_at - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    producer.flush(10)


def wait(what, predicate, timeout_s, describe):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.01)
    raise SystemExit(f"rebalance benchmark: {what} within {timeout_s} s ({describe()})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--partitions", type=int, default=120)
    parser.add_argument("--members", type=int, default=20)
    parser.add_argument("--protocol", choices=["consumer", "classic"], required=True)
    parser.add_argument("--rate", type=float, default=2400.0, help="records/s over all partitions")
    parser.add_argument("--baseline-s", type=float, default=5.0)
    parser.add_argument("--jitter-s", type=float, default=5.0,
                        help="the join comes up to this long after the baseline, at random (the default heartbeat "
                             "interval of both protocols' members is at most 5 s)")
    parser.add_argument("--timeout-s", type=float, default=120.0)
    parser.add_argument("-X", dest="settings", action="append", default=[], help="librdkafka key=value")
    args = parser.parse_args()
    args.settings = dict(kv.split("=", 1) for kv in args.settings)

    stop_producing = threading.Event()
    producer = threading.Thread(target=produce, args=(args, stop_producing))
    producer.start()
    group = Group(args)
    threads = []

    def add_member():
        t = threading.Thread(target=group.run_member, args=(len(threads),))
        threads.append(t)
        t.start()

    try:
        for _ in range(args.members):
            add_member()
        all_partitions = set(range(args.partitions))

        def settled(since, newcomer=None):
            owners, last_sent, seen_by = group.snapshot()
            held = [p for ps in owners.values() for p in ps]
            if len(held) != args.partitions or set(held) != all_partitions:
                return False
            if newcomer is not None and len(owners.get(newcomer, ())) < args.partitions // (args.members + 1):
                return False
            for p in all_partitions:
                if last_sent.get(p, 0.0) < since:
                    return False
                if newcomer is not None and p in owners.get(newcomer, ()) and seen_by.get(p) != newcomer:
                    return False
            return True

        def state():
            owners, last_sent, _ = group.snapshot()
            held = sorted(p for ps in owners.values() for p in ps)
            now = time.time()
            quiet = [p for p in all_partitions if last_sent.get(p, 0.0) < now - 1.0]
            return (f"{len(held)} partitions held, {len(set(held))} distinct, by "
                    f"{sum(1 for ps in owners.values() if ps)} members; {len(quiet)} quiet for a second")

        wait("the first members did not settle", lambda: settled(time.time() - 1.0), args.timeout_s, state)
        with group.lock:
            group.delivered.clear()
        time.sleep(args.baseline_s)
        with group.lock:
            baseline = len(group.delivered) / args.baseline_s
        # The join comes at a random moment of the members' heartbeat cycle
        # (they heartbeat in step, having settled together).
        time.sleep(random.uniform(0.0, args.jitter_s))
        with group.lock:
            group.delivered.clear()
            t0 = time.time()
            group.tracking_from = t0
        newcomer = args.members
        add_member()
        wait("the group did not settle after a member joined", lambda: settled(t0, newcomer), args.timeout_s, state)
        end = time.time()
        with group.lock:
            delivered = list(group.delivered)
            gaps = dict(group.gaps)
            moved = len(group.owners.get(newcomer, ()))
            last_seen = dict(group.last_seen)
        # A partition still quiet at the end counts its silence so far.
        for p in range(args.partitions):
            gaps[p] = max(gaps.get(p, 0.0), end - max(last_seen.get(p, t0), t0))
        window = 0.5
        counts = []
        at = t0
        while at + window <= max(end, t0 + window):
            counts.append(sum(1 for d in delivered if at <= d < at + window))
            at += window
        dip = min(counts) / window if counts else 0.0
        print(json.dumps({
            "rebalance_ms": (end - t0) * 1000.0,
            "moved": moved,
            "stalled": sum(1 for g in gaps.values() if g > 1.0),
            "max_stall_ms": max(gaps.values()) * 1000.0,
            "baseline_records_per_s": baseline,
            "dip_records_per_s": dip,
            "dip_ratio": dip / baseline if baseline else 0.0,
        }))
    finally:
        group.stopping = True
        stop_producing.set()
        for t in threads:
            t.join()
        producer.join()


if __name__ == "__main__":
    sys.exit(main())
