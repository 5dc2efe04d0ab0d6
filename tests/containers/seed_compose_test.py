"""Seed 002 §20, scripted, through a real container runtime and `docker compose`.

Run by ctest as containers_seed_compose (label containers):
    <venv>/bin/python seed_compose_test.py --build-dir <build dir> --source-dir <repo>

What it does, in order (each step checks what the seed says should be seen):
 1. builds the image from docker/Dockerfile with the binaries the build dir
    already holds (BINARIES=prebuilt: the project is not compiled twice);
 2. `docker compose up -d` with docker/docker-compose.yml, unchanged;
 3. §20.2's commands exactly, through `docker exec kafka-r1 /opt/kafka/bin/...`;
 4. a producer on the host (acks=all, idempotent) at
    localhost:19092,localhost:29092,localhost:39092 while:
    `docker stop kafka-r3` (the ISR shrinks to 2, writes go on),
    `docker stop kafka-r2` (acks=all is refused),
    `docker start kafka-r2 kafka-r3` (the ISR is back to 3),
    and the leader's container stopped (a new leader; every acknowledged
    record is then consumed);
 5. §20.7–20.8: a committed and an aborted transaction from the host, read
    with the console consumer in both isolation levels;
 6. `docker compose down` then `up -d`, volumes kept: topics and records stay;
 7. Kafka's own Java tools from the host against the same cluster, their
    output compared line by line with the native tools' for the same commands.

Needs the container runtime scripts/install-containers.sh sets up (podman's
Docker API, the docker CLI and its compose plugin, a Debian 12 base image).
Prints what it measured (image size, time from `up -d` to the first
acknowledged produce, the tool comparison) for the closing notes.
"""

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition

ARGS = None
HOST_BOOTSTRAP = "localhost:19092,localhost:29092,localhost:39092"
TOPIC = "reliable-events"
BASE_IMAGE = "localhost/debian:bookworm-minbase"


def log(*parts):
    print("[containers +%.1fs]" % (time.monotonic() - START), *parts, flush=True)


def run(cmd, check=True, timeout=300, input_text=None):
    """Runs a command, returns (rc, stdout, stderr); raises on failure if check."""
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, input=input_text, env=ENV)
    if check and p.returncode != 0:
        raise AssertionError("%s failed (%d):\n%s\n%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return p.returncode, p.stdout, p.stderr


def wait_for(pred, timeout_s, what, interval=0.5):
    deadline = time.monotonic() + timeout_s
    last = None
    while time.monotonic() < deadline:
        last = pred()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError("timed out after %ds waiting for %s" % (timeout_s, what))


def compose(*args, check=True, timeout=300):
    return run(["docker", "compose", "-f", os.path.join(ARGS.source_dir, "docker", "docker-compose.yml")] + list(args),
               check=check, timeout=timeout)


def kexec(container, tool, *args, check=True, timeout=120, input_text=None):
    cmd = ["docker", "exec"] + (["-i"] if input_text is not None else []) + [container, "/opt/kafka/bin/" + tool]
    return run(cmd + list(args), check=check, timeout=timeout, input_text=input_text)


# --- the image ---------------------------------------------------------------

def build_image():
    prebuilt = os.path.join(ARGS.source_dir, "docker", "prebuilt")
    for name in ("highwater", "highwater-tools"):
        # Without debug sections (a sanitizer build's are most of it); the
        # symbols stay, so reports still name functions.
        run(["strip", "--strip-debug", "-o", os.path.join(prebuilt, name), os.path.join(ARGS.build_dir, name)])
    sanitized = "libasan" in run(["ldd", os.path.join(ARGS.build_dir, "highwater")])[1]
    cmd = ["docker", "build", "-f", os.path.join(ARGS.source_dir, "docker", "Dockerfile"),
           "--build-arg", "BASE_IMAGE=" + BASE_IMAGE, "--build-arg", "BINARIES=prebuilt", "-t", "highwater:latest"]
    if sanitized:
        # The test command's binaries are sanitizer builds: their runtimes go in
        # too. Leak checks need ptrace, which containers refuse; every other
        # test group checks leaks.
        cmd += ["--build-arg", "EXTRA_PACKAGES=libasan8 libubsan1",
                "--build-arg", "ASAN_OPTIONS=abort_on_error=1:detect_leaks=0"]
    started = time.monotonic()
    run(cmd + [ARGS.source_dir], timeout=900)
    # The image this replaced is left untagged; drop such leftovers so that
    # repeated runs do not fill the disk.
    run(["docker", "image", "prune", "-f"], check=False)
    size = json.loads(run(["docker", "image", "inspect", "highwater:latest"])[1])[0]["Size"]
    log("image built in %.0fs, %.1f MB (%s binaries)" % (time.monotonic() - started, size / 1e6,
                                                         "sanitizer" if sanitized else "release"))
    return size


# --- the cluster as the tools describe it --------------------------------------

PARTITION_RE = re.compile(r"\tTopic: (\S+)\tPartition: (\d+)\tLeader: (\S+)\tReplicas: ([\d,]*)\tIsr: ([\d,]*)")


def describe(container="kafka-r1", host=None, check=True):
    """{partition: (leader or None, [replicas], [isr])} from the native kafka-topics --describe."""
    host = host or container.replace("kafka-r", "kafka-")
    rc, out, err = kexec(container, "kafka-topics.sh", "--bootstrap-server", host + ":9092", "--describe",
                         "--topic", TOPIC, check=check, timeout=90)
    if rc != 0:
        return None
    parts = {}
    for m in PARTITION_RE.finditer(out):
        leader = None if m.group(3) == "none" else int(m.group(3))
        parts[int(m.group(2))] = (leader, [int(x) for x in m.group(4).split(",") if x],
                                  [int(x) for x in m.group(5).split(",") if x])
    return parts


def isr_sizes_are(n, container="kafka-r1"):
    def check():
        d = describe(container, check=False)
        return d if d and len(d) == 3 and all(len(isr) == n for _, _, isr in d.values()) else None
    return check


# --- the host producer -------------------------------------------------------

class Writer:
    """acks=all idempotent producer on the host, writing numbered records until
    stopped, remembering which ones were acknowledged."""

    def __init__(self, name):
        self.name = name
        self.acked = set()
        self.failed = 0
        self.sent = 0
        self.stop_flag = threading.Event()
        self.producer = Producer({"bootstrap.servers": HOST_BOOTSTRAP, "acks": "all", "enable.idempotence": True,
                                  "linger.ms": 5, "message.timeout.ms": 120000})
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def on_delivery(self, err, msg):
        if err is None:
            self.acked.add(msg.value().decode())
        else:
            self.failed += 1

    def loop(self):
        while not self.stop_flag.is_set():
            value = "%s-%d" % (self.name, self.sent)
            try:
                self.producer.produce(TOPIC, key=("order-%d" % (self.sent % 10)).encode(), value=value.encode(),
                                      on_delivery=self.on_delivery)
                self.sent += 1
            except BufferError:
                pass
            self.producer.poll(0.01)

    def start(self):
        self.thread.start()
        return self

    def acked_count(self):
        return len(self.acked)

    def stop(self):
        self.stop_flag.set()
        self.thread.join()
        left = self.producer.flush(150)
        assert left == 0, "%d records of %s never got an answer" % (left, self.name)


def read_all(isolation="read_committed", expect_at_least=0, timeout_s=90):
    """Every record of the topic from the start, as values."""
    c = Consumer({"bootstrap.servers": HOST_BOOTSTRAP, "group.id": "seed-check-%d" % time.time_ns(),
                  "enable.auto.commit": False, "isolation.level": isolation})
    c.assign([TopicPartition(TOPIC, p, 0) for p in range(3)])
    values = []
    deadline = time.monotonic() + timeout_s
    ends = None
    while time.monotonic() < deadline:
        if ends is None:
            ends = {p: c.get_watermark_offsets(TopicPartition(TOPIC, p), timeout=10)[1] for p in range(3)}
        m = c.poll(0.5)
        if m is not None and m.error() is None:
            values.append(m.value().decode())
        positions = {tp.partition: tp.offset for tp in c.position([TopicPartition(TOPIC, p) for p in range(3)])}
        if len(values) >= expect_at_least and all(positions[p] >= ends[p] for p in range(3)):
            break
    c.close()
    return values


# --- the steps ---------------------------------------------------------------

HOST_PORTS = (19092, 29092, 39092)


def reserve_host_ports():
    """The compose file publishes fixed host ports inside Linux's ephemeral
    range (32768-60999 by default), so any outgoing connection on the host
    may be handed 39092 as its local port and make `up` fail with "address
    already in use". Where this process may, it reserves them so the kernel
    stops handing them out; either way it waits until each can be bound."""
    path = "/proc/sys/net/ipv4/ip_local_reserved_ports"
    try:
        with open(path) as f:
            current = f.read().strip()
        wanted = [str(p) for p in HOST_PORTS if str(p) not in current.split(",")]
        if wanted:
            with open(path, "w") as f:
                f.write(",".join([x for x in [current] + wanted if x]))
    except OSError as e:
        log("cannot reserve the host ports (%s); waiting for them to be free instead" % e)

    def bindable(port):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("0.0.0.0", port))
            return True
        except OSError:
            return False
        finally:
            s.close()

    def all_free():
        return all(bindable(p) for p in HOST_PORTS)
    try:
        wait_for(all_free, 120, "host ports %s to be free" % (HOST_PORTS,))
    except AssertionError:
        held = [p for p in HOST_PORTS if not bindable(p)]
        out = run(["ss", "-tanp"], check=False)[1] if shutil.which("ss") else ""
        users = [line for line in out.splitlines() if any(":%d " % p in line for p in held)]
        raise AssertionError("host ports %s stay in use:\n%s" % (held, "\n".join(users)))


def step_up(first_time):
    if first_time:
        compose("down", "-v", check=False)
    reserve_host_ports()
    started = time.monotonic()
    compose("up", "-d")
    log("docker compose up -d returned")
    return started


def first_acknowledged_produce(started):
    p = Producer({"bootstrap.servers": HOST_BOOTSTRAP, "acks": "all", "message.timeout.ms": 5000})
    acked = []

    def try_once():
        p.produce("startup-probe", value=b"x", on_delivery=lambda err, msg: acked.append(err is None))
        p.flush(10)
        return any(acked)
    wait_for(try_once, 180, "a first acknowledged produce", interval=0.2)
    return time.monotonic() - started


def step_20_2():
    rc, out, err = kexec("kafka-r1", "kafka-topics.sh", "--bootstrap-server", "kafka-1:9092", "--create",
                         "--topic", TOPIC, "--partitions", "3", "--replication-factor", "3",
                         "--config", "min.insync.replicas=2")
    assert out.strip() == "Created topic %s." % TOPIC, out + err
    d = wait_for(isr_sizes_are(3), 60, "every partition's ISR to be 3")
    rc, out, err = kexec("kafka-r1", "kafka-topics.sh", "--bootstrap-server", "kafka-1:9092", "--describe",
                         "--topic", TOPIC)
    first = out.splitlines()[0]
    # The exact layout is compared with Kafka's own tool at the end (step_java_vs_native).
    assert "PartitionCount: 3\tReplicationFactor: 3" in first and "min.insync.replicas=2" in first, out
    log("§20.2 describe:\n" + out.rstrip())
    return d


def step_20_3_to_20_5(writer):
    wait_for(lambda: writer.acked_count() > 200, 60, "acknowledged writes")
    run(["docker", "stop", "kafka-r3"])
    wait_for(isr_sizes_are(2), 90, "the ISR to shrink to 2 after docker stop kafka-r3")
    before = writer.acked_count()
    wait_for(lambda: writer.acked_count() > before + 200, 60, "acks=all writes to go on with ISR 2")
    log("§20.3: ISR 2, writes go on (%d acknowledged)" % writer.acked_count())

    writer.stop()
    run(["docker", "stop", "kafka-r2"])
    probe = Producer({"bootstrap.servers": HOST_BOOTSTRAP, "acks": "all", "enable.idempotence": False,
                      "message.timeout.ms": 8000, "retries": 1000})
    results = []
    for i in range(30):
        probe.produce(TOPIC, value=b"refused-%d" % i, partition=i % 3,
                      on_delivery=lambda err, msg: results.append(err))
    probe.flush(30)
    assert len(results) == 30 and all(e is not None for e in results), \
        "acks=all writes were acknowledged with two of three nodes down: %s" % results
    log("§20.4: with kafka-r2 and kafka-r3 down, 30 of 30 acks=all writes refused (%s)" %
        sorted({e.name() for e in results}))

    run(["docker", "start", "kafka-r2", "kafka-r3"])
    wait_for(isr_sizes_are(3), 180, "the ISR to grow back to 3")
    log("§20.4: ISR back to 3 after docker start kafka-r2 kafka-r3")

    writer2 = Writer("after-restart").start()
    wait_for(lambda: writer2.acked_count() > 200, 90, "writes after the restart")
    d = describe()
    leader = d[0][0]
    victim = "kafka-r%d" % leader
    other = "kafka-r%d" % (1 if leader != 1 else 2)
    run(["docker", "stop", victim])
    new = wait_for(lambda: (lambda x: x if x and x[0][0] not in (None, leader) else None)(describe(other, check=False)),
                   90, "a new leader for partition 0")
    assert new[0][0] in d[0][2], "the new leader %d was not in the ISR %s" % (new[0][0], d[0][2])
    before = writer2.acked_count()
    wait_for(lambda: writer2.acked_count() > before + 200, 90, "writes to go on under the new leader")
    log("§20.5: %s (leader of partition 0) stopped; new leader %d from ISR %s" % (victim, new[0][0], d[0][2]))
    run(["docker", "start", victim])
    wait_for(isr_sizes_are(3, other), 180, "the ISR to grow back to 3 after the leader's restart")
    writer2.stop()
    return writer2


def step_20_7_to_20_8():
    def transaction(commit, values):
        p = Producer({"bootstrap.servers": HOST_BOOTSTRAP, "transactional.id": "transaction-lab-01"})
        p.init_transactions(60)
        p.begin_transaction()
        for partition, value in values:
            p.produce(TOPIC, key=b"order-1001", value=value.encode(), partition=partition)
        if commit:
            p.commit_transaction(60)
        else:
            # Written first, then aborted: the records are in the log, and
            # only the abort marker keeps read_committed from them.
            assert p.flush(60) == 0
            p.abort_transaction(60)
    transaction(True, [(0, "OrderCreated"), (1, "InventoryReserved")])
    transaction(False, [(0, "OrderCancelled"), (1, "InventoryReleased")])

    def console(level):
        rc, out, err = kexec("kafka-r1", "kafka-console-consumer.sh", "--bootstrap-server", "kafka-1:9092",
                             "--topic", TOPIC, "--from-beginning", "--property", "print.key=true",
                             "--timeout-ms", "10000", "--consumer-property", "isolation.level=" + level,
                             check=False, timeout=120)
        return [line for line in out.splitlines() if line.startswith("order-1001\t")]
    uncommitted = console("read_uncommitted")
    committed = console("read_committed")
    want_committed = ["order-1001\tOrderCreated", "order-1001\tInventoryReserved"]
    want_all = want_committed + ["order-1001\tOrderCancelled", "order-1001\tInventoryReleased"]
    assert sorted(uncommitted) == sorted(want_all), uncommitted
    assert sorted(committed) == sorted(want_committed), committed
    log("§20.8: read_uncommitted sees %d transactional records, read_committed %d" % (len(uncommitted), len(committed)))


def step_graceful_stop_and_health():
    """SIGTERM from `docker stop` is a controlled shutdown well within Docker's
    default 10 s grace. Asked with -t 10: Debian 12's podman (4.3) gives
    containers created through its Docker API a grace of 0 s unless told
    (fixed in podman 4.7), so there the seed's plain `docker stop` is a
    SIGKILL, which the steps above survive too."""
    for c in ("kafka-r1", "kafka-r2", "kafka-r3"):
        run(["docker", "exec", c, "/etc/kafka/docker/healthcheck"])
    started = time.monotonic()
    run(["docker", "stop", "-t", "10", "kafka-r2"])
    took = time.monotonic() - started
    state = json.loads(run(["docker", "inspect", "kafka-r2"])[1])[0]["State"]
    _, out, err = run(["docker", "logs", "--tail", "20", "kafka-r2"])
    assert state["ExitCode"] == 0, "kafka-r2 exited %d after docker stop:\n%s%s" % (state["ExitCode"], out, err)
    assert "Highwater shut down" in out + err, out + err
    assert took < 10, "docker stop took %.1fs" % took
    log("docker stop -t 10 kafka-r2: controlled shutdown in %.1fs, exit code 0; healthchecks passed" % took)
    run(["docker", "start", "kafka-r2"])
    wait_for(isr_sizes_are(3), 180, "the ISR to grow back to 3 after the graceful stop")


def step_down_up(expected_values):
    compose("down")
    started = step_up(first_time=False)
    wait_for(isr_sizes_are(3), 180, "the cluster after docker compose down / up")
    values = read_all(expect_at_least=len(expected_values))
    missing = expected_values - set(values)
    assert not missing, "%d acknowledged records lost across down/up, e.g. %s" % (len(missing), sorted(missing)[:5])
    log("down/up: topic and %d records still there (%.1fs to ISR 3)" % (len(values), time.monotonic() - started))


def preferred_replicas_in_isr():
    """True once every partition of every topic (the internal ones too) has
    its first replica in its ISR: only then can a preferred election of all
    partitions succeed, on Kafka as here (a preferred replica still catching
    up is PREFERRED_LEADER_NOT_AVAILABLE, and the tool exits 1)."""
    rc, out, _ = kexec("kafka-r1", "kafka-topics.sh", "--bootstrap-server", "kafka-1:9092", "--describe",
                       check=False, timeout=90)
    if rc != 0:
        return False
    parts = PARTITION_RE.findall(out)
    return bool(parts) and all(replicas.split(",")[0] in isr.split(",") for _, _, _, replicas, isr in parts)


def step_preferred_election():
    """Seed 001's leader switch: the native kafka-leader-election.sh in the
    image moves every partition's leadership back to its first replica
    (the leader stops of the steps above left some elsewhere)."""
    wait_for(preferred_replicas_in_isr, 180, "every partition's first replica back in its ISR")
    before = describe()
    moved = [p for p, (leader, replicas, _) in before.items() if leader != replicas[0]]
    rc, out, err = kexec("kafka-r1", "kafka-leader-election.sh", "--bootstrap-server", "kafka-1:9092",
                         "--election-type", "PREFERRED", "--all-topic-partitions", check=False)
    assert rc == 0, out + err
    if moved:
        assert "Successfully completed leader election (PREFERRED) for partitions" in out, out + err
    after = describe()
    assert all(leader == replicas[0] for leader, replicas, _ in after.values()), after
    log("preferred election (native, in the image): %d partition(s) of %s moved back to their first replica"
        % (len(moved), TOPIC))


def step_dump_log_vs_java():
    """Seed 001's kafka-dump-log.sh --print-data-log on a segment in the
    volume: the native tool in the image, and Kafka's DumpLogSegments on a
    copy of the same file from the host, print the same lines."""
    segment = "/var/lib/kafka/data/%s-0/00000000000000000000.log" % TOPIC
    rc_n, out_n, err_n = kexec("kafka-r1", "kafka-dump-log.sh", "--files", segment, "--print-data-log", check=False)
    copy_dir = tempfile.mkdtemp(prefix="hw-dump-")
    try:
        run(["docker", "cp", "kafka-r1:" + segment, copy_dir])
        copy = os.path.join(copy_dir, os.path.basename(segment))
        java = os.path.join(ARGS.source_dir, "scripts", "kafka-run-class.sh")
        rc_j, out_j, err_j = run([java, "org.apache.kafka.tools.DumpLogSegments", "--files", copy, "--print-data-log"],
                                 check=False, timeout=180)
    finally:
        shutil.rmtree(copy_dir, ignore_errors=True)
    lines_n = out_n.splitlines()
    lines_j = [l.replace(copy, segment) for l in out_j.splitlines() if not re.match(r"^\[[0-9.]+s\]\[", l)]
    assert rc_n == 0 and rc_j == 0, (rc_n, err_n, rc_j, err_j)
    assert lines_n == lines_j, "kafka-dump-log.sh differs from Java's:\n%s" % "\n".join(
        "%s | %s" % pair for pair in zip(lines_j, lines_n) if pair[0] != pair[1])
    batches = sum(1 for l in lines_n if l.startswith("baseOffset:"))
    log("kafka-dump-log.sh --print-data-log on %s: %d lines (%d batches) identical to Java's" % (
        segment, len(lines_n), batches))


def step_java_vs_native():
    """The same commands through Kafka's Java tools from the host, and the
    native ones both from the host and inside the image (docker exec): the
    lines must be the same, in the same order (but for the one listing
    whose order Java itself does not fix), with the same exit status."""
    native = os.path.join(ARGS.build_dir, "highwater-tools")
    java = os.path.join(ARGS.source_dir, "scripts", "kafka-run-class.sh")
    commands = [
        ("kafka-topics.sh", "org.apache.kafka.tools.TopicCommand", ["--describe", "--topic", TOPIC]),
        ("kafka-topics.sh", "org.apache.kafka.tools.TopicCommand", ["--list"]),
        ("kafka-topics.sh", "org.apache.kafka.tools.TopicCommand", ["--describe", "--under-replicated-partitions"]),
        ("kafka-get-offsets.sh", "org.apache.kafka.tools.GetOffsetShell", ["--topic", TOPIC]),
        ("kafka-consumer-groups.sh", "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", ["--list"]),
        ("kafka-features.sh", "org.apache.kafka.tools.FeatureCommand", ["describe"]),
        ("kafka-configs.sh", "kafka.admin.ConfigCommand",
         ["--describe", "--entity-type", "topics", "--entity-name", TOPIC]),
        ("kafka-configs.sh", "kafka.admin.ConfigCommand", ["--describe", "--entity-type", "brokers", "--entity-name", "1"]),
        ("kafka-transactions.sh", "org.apache.kafka.tools.TransactionsCommand", ["list"]),
        ("kafka-transactions.sh", "org.apache.kafka.tools.TransactionsCommand",
         ["describe-producers", "--topic", TOPIC, "--partition", "0"]),
        # Elected by step_preferred_election already: nothing left to move.
        ("kafka-leader-election.sh", "org.apache.kafka.tools.LeaderElectionCommand",
         ["--election-type", "PREFERRED", "--topic", TOPIC, "--partition", "0"]),
    ]
    same = 0
    report = []
    for tool, main_class, args in commands:
        full = ["--bootstrap-server", HOST_BOOTSTRAP.split(",")[0]] + args
        rc_j, out_j, _ = run([java, main_class] + full, check=False, timeout=180)
        out_j = "\n".join(l for l in out_j.splitlines() if not re.match(r"^\[[0-9.]+s\]\[", l))
        runs = [("host", run([native, tool] + full, check=False)),
                ("image", kexec("kafka-r1", tool, "--bootstrap-server", "kafka-1:9092", *args, check=False))]
        # kafka-consumer-groups --list prints the admin client's HashMap of
        # listings: two group ids in one bucket come out in the order their
        # coordinators answered, which varies from run to run for Java
        # itself. Only that listing is compared as a set.
        order_free = tool == "kafka-consumer-groups.sh" and args == ["--list"]

        def lines(text):
            return sorted(text.splitlines()) if order_free else text.splitlines()
        for where, (rc_n, out_n, err_n) in runs:
            ok = rc_n == rc_j and lines(out_n) == lines(out_j)
            same += ok
            report.append("%s %s (native in the %s): %s (%d lines)" % (
                tool, " ".join(args), where, "identical" if ok else "DIFFERENT", len(out_j.splitlines())))
            if not ok:
                report.append("  java (rc %d):\n    %s\n  native (rc %d):\n    %s\n    %s" % (
                    rc_j, "\n    ".join(out_j.splitlines()), rc_n, "\n    ".join(out_n.splitlines()), err_n.strip()))
    log("Java vs native tools:\n" + "\n".join(report))
    assert same == 2 * len(commands), "%d of %d runs printed differently" % (2 * len(commands) - same, 2 * len(commands))


def main():
    global ARGS, ENV, START
    START = time.monotonic()
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--source-dir", required=True)
    ARGS = parser.parse_args()
    ENV = dict(os.environ)
    ENV.setdefault("DOCKER_HOST", "unix:///run/podman/podman.sock")
    rc, _, err = run(["docker", "compose", "version"], check=False)
    if rc != 0:
        raise SystemExit("no docker compose here (run scripts/install-containers.sh): " + err)

    size = build_image()
    try:
        started = step_up(first_time=True)
        to_first_ack = first_acknowledged_produce(started)
        log("docker compose up -d to the first acknowledged produce: %.1fs" % to_first_ack)
        step_20_2()
        writer = Writer("before-stops").start()
        writer2 = step_20_3_to_20_5(writer)
        expected = writer.acked | writer2.acked
        values = set(read_all(expect_at_least=len(expected)))
        missing = expected - values
        assert not missing, "%d acknowledged records not consumed, e.g. %s" % (len(missing), sorted(missing)[:5])
        log("§20.5: all %d acknowledged records consumed" % len(expected))
        step_20_7_to_20_8()
        step_graceful_stop_and_health()
        step_down_up(expected)
        step_preferred_election()
        step_java_vs_native()
        step_dump_log_vs_java()
        log("RESULT image %.1f MB; up -d to first ack %.1fs" % (size / 1e6, to_first_ack))
    except BaseException:
        for c in ("kafka-r1", "kafka-r2", "kafka-r3"):
            rc, out, err = run(["docker", "logs", "--tail", "40", c], check=False)
            print("---- last lines of %s ----\n%s%s" % (c, out, err))
        raise
    finally:
        compose("down", "-v", check=False)


if __name__ == "__main__":
    main()
