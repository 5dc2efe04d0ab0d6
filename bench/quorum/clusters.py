"""Three controller-only KRaft voters on 127.0.0.1, Highwater or Apache Kafka.

A cluster owns its node processes (spawned with subprocess, stdout+stderr to
<dir>/node-N/out.log) and is driven from the benchmark's main thread.
"""

import base64
import os
import signal
import socket
import subprocess
import time
import uuid

from kafka_wire import connection, describe_quorum_v2, parse_describe_quorum_v2

ELECTION_TIMEOUT_MS = 1000
FETCH_TIMEOUT_MS = 2000


def free_port():
    """A loopback port free right now. Another process may take it before a
    node binds it: cluster.start_all() then starts again on fresh ports."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(pid, port):
    """True when process pid itself listens on 127.0.0.1:port (not merely
    someone: the port may have been taken by another process)."""
    inodes = set()
    try:
        with open("/proc/net/tcp") as f:
            for row in f.readlines()[1:]:
                cols = row.split()
                if cols[1] == "0100007F:%04X" % port and cols[3] == "0A":
                    inodes.add("socket:[%s]" % cols[9])
        fds = os.listdir("/proc/%d/fd" % pid)
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink("/proc/%d/fd/%s" % (pid, fd)) in inodes:
                return True
        except OSError:
            pass
    return False


class port_taken(RuntimeError):
    """A node exited because its port was taken before it could bind it."""


def random_cluster_id():
    # Kafka's tools parse an id starting with '-' as an option: draw again.
    while True:
        cid = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not cid.startswith("-"):
            return cid


class cluster:
    """Common part: ports, node dirs, processes, DescribeQuorum polling."""

    kind = "?"

    def __init__(self, work_dir, n=3):
        self.work_dir = work_dir
        self.n = n
        self.choose_ports()
        self.dirs = [os.path.join(work_dir, "node-%d" % (i + 1)) for i in range(n)]
        self.procs = [None] * n
        self.cluster_id = random_cluster_id()
        for d in self.dirs:
            os.makedirs(os.path.join(d, "data"), exist_ok=True)

    def choose_ports(self):
        self.ports = []
        while len(self.ports) < self.n:
            p = free_port()
            if p not in self.ports:
                self.ports.append(p)
        self.voters = ",".join("%d@127.0.0.1:%d" % (i + 1, p) for i, p in enumerate(self.ports))

    def configure(self):
        """Writes whatever names the ports (called again with fresh ports)."""

    def command(self, i):
        raise NotImplementedError

    def env(self):
        return dict(os.environ)

    def start(self, i, timeout=120.0):
        path = os.path.join(self.dirs[i], "out.log")
        log = open(path, "ab")
        log_start = log.tell()
        self.procs[i] = subprocess.Popen(self.command(i), stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, cwd=self.dirs[i], env=self.env())
        log.close()
        deadline = time.monotonic() + timeout
        while not listening(self.procs[i].pid, self.ports[i]):
            if self.procs[i].poll() is not None:
                with open(path, "rb") as f:
                    f.seek(log_start)
                    if b"Address already in use" in f.read():
                        raise port_taken("%s node %d: port %d taken" % (self.kind, i + 1, self.ports[i]))
                raise RuntimeError("%s node %d exited during start-up (code %s); see %s/out.log"
                                   % (self.kind, i + 1, self.procs[i].returncode, self.dirs[i]))
            if time.monotonic() > deadline:
                raise RuntimeError("%s node %d not listening after %.0fs" % (self.kind, i + 1, timeout))
            time.sleep(0.05)

    def start_all(self, tries=5):
        """Starts every node; when one lost its port to another process,
        all of them start again on fresh ports (one new voter string)."""
        for attempt in range(tries):
            try:
                for i in range(self.n):
                    self.start(i)
                return
            except port_taken:
                if attempt == tries - 1:
                    raise
                for p in self.procs:
                    if p and p.poll() is None:
                        p.send_signal(signal.SIGKILL)
                        p.wait(30)
                self.choose_ports()
                self.configure()

    def kill(self, i):
        """SIGKILL node i; returns the monotonic time just before the signal."""
        t = time.monotonic()
        self.procs[i].send_signal(signal.SIGKILL)
        self.procs[i].wait(30)
        return t

    def exit_codes(self):
        return [p.poll() if p else None for p in self.procs]

    def stop_all(self, timeout=30.0):
        for p in self.procs:
            if p and p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for i, p in enumerate(self.procs):
            if not p:
                continue
            try:
                p.wait(timeout)
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGKILL)
                p.wait(10)

    def describe(self, i, timeout=1.0):
        """DescribeQuorum on node i: (error, leader id, epoch, hw, voter ends) or None."""
        try:
            c = connection(self.ports[i], timeout)
        except OSError:
            return None
        try:
            return c.call(describe_quorum_v2(), parse_describe_quorum_v2)
        except (OSError, ValueError):
            return None
        finally:
            c.close()

    def find_leader(self, candidates=None, timeout=60.0, min_epoch=-1):
        """(index, epoch, hw, ends) of the node that answers as leader."""
        candidates = list(range(self.n)) if candidates is None else candidates
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for i in candidates:
                d = self.describe(i)
                if d and d[0] == 0 and d[1] == i + 1 and d[2] > min_epoch:
                    return i, d[2], d[3], d[4]
            time.sleep(0.01)
        raise RuntimeError("%s: no leader among nodes %s after %.0fs" % (self.kind, [c + 1 for c in candidates],
                                                                           timeout))

    def wait_caught_up(self, timeout=60.0):
        """Waits until the leader sees every voter's log end at its high watermark."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                i, epoch, hw, ends = self.find_leader(timeout=max(0.1, deadline - time.monotonic()))
            except RuntimeError:
                break
            if len(ends) == self.n and all(e >= hw for e in ends):
                return i
            time.sleep(0.05)
        raise RuntimeError("%s: voters did not catch up with the leader in %.0fs" % (self.kind, timeout))

    def version(self):
        return ""


class highwater_cluster(cluster):
    kind = "highwater"

    def __init__(self, work_dir, binary, n=3):
        super().__init__(work_dir, n)
        self.binary = binary

    def env(self):
        e = dict(os.environ)
        e["CLUSTER_ID"] = self.cluster_id
        return e

    def command(self, i):
        o = lambda kv: ["--override", kv]
        return ([self.binary] + o("process.roles=controller") + o("node.id=%d" % (i + 1)) +
                o("listeners=CONTROLLER://127.0.0.1:%d" % self.ports[i]) + o("controller.listener.names=CONTROLLER") +
                o("controller.quorum.voters=" + self.voters) + o("log.dirs=" + os.path.join(self.dirs[i], "data")) +
                o("controller.quorum.election.timeout.ms=%d" % ELECTION_TIMEOUT_MS) +
                o("controller.quorum.fetch.timeout.ms=%d" % FETCH_TIMEOUT_MS))


class kafka_cluster(cluster):
    kind = "kafka"

    def __init__(self, work_dir, repo, heap="-Xmx512m", extra_props=(), n=3):
        super().__init__(work_dir, n)
        self.run_class = os.path.join(repo, "scripts", "kafka-run-class.sh")
        self.heap = heap
        self.extra_props = list(extra_props)
        self.configure()

    def configure(self):
        self.props = []
        for i in range(self.n):
            path = os.path.join(self.dirs[i], "controller.properties")
            lines = [
                "process.roles=controller",
                "node.id=%d" % (i + 1),
                "controller.quorum.voters=" + self.voters,
                "listeners=CONTROLLER://127.0.0.1:%d" % self.ports[i],
                "controller.listener.names=CONTROLLER",
                "listener.security.protocol.map=CONTROLLER:PLAINTEXT",
                "log.dirs=" + os.path.join(self.dirs[i], "data"),
                "controller.quorum.election.timeout.ms=%d" % ELECTION_TIMEOUT_MS,
                "controller.quorum.fetch.timeout.ms=%d" % FETCH_TIMEOUT_MS,
            ] + self.extra_props
            with open(path, "w") as f:
                f.write("\n".join(lines) + "\n")
            self.props.append(path)

    def env(self):
        e = dict(os.environ)
        e["KAFKA_HEAP_OPTS"] = self.heap
        return e

    def format(self):
        for i in range(self.n):
            r = subprocess.run([self.run_class, "kafka.tools.StorageTool", "format", "--cluster-id", self.cluster_id,
                                "--config", self.props[i]], capture_output=True, text=True, env=self.env(),
                               timeout=180)
            if r.returncode != 0:
                raise RuntimeError("kafka-storage format of node %d failed: %s %s" % (i + 1, r.stdout, r.stderr))

    def command(self, i):
        # kafka-run-class.sh execs java: the pid is the JVM's.
        return [self.run_class, "kafka.Kafka", self.props[i]]
