"""Clusters of one broker kind, started and stopped as a unit.

A cluster is N nodes, each a combined broker+controller process
(process.roles=broker,controller) with its own data dir under the round's
work dir. Apache Kafka and Highwater get the same server.properties; only
the way a node is formatted and spawned differs. Owned by the round loop in
cli.py (single thread)."""

import base64
import os
import signal
import subprocess
import time
import uuid

from .security import SCRAM_LISTENER

# Node i: the client listener (PLAINTEXT, SSL or SASL_PLAINTEXT) on
# BASE_PORT+10i, CONTROLLER one above, the SCRAM listener
# (scram_connections) two above, the PLAINTEXT inter-broker listener of the
# SASL modes three above; distinct from the tests.
BASE_PORT = 19092


class Node:
    def __init__(self, node_id, port, dir_):
        self.node_id = node_id
        self.port = port
        self.controller_port = port + 1
        self.scram_port = port + 2
        self.inter_broker_port = port + 3  # the SASL modes' PLAINTEXT listener
        # Where the harness's own requests (kafka_wire) go: the client
        # listener, or the PLAINTEXT inter-broker one when clients log in.
        self.harness_port = port
        self.dir = dir_
        self.data_dir = os.path.join(dir_, "data")
        self.props_path = os.path.join(dir_, "server.properties")
        self.log_path = os.path.join(dir_, "server.log")
        self.proc = None


def cluster_id():
    """A random cluster id in Kafka's form (URL-safe base64 of 16 bytes).
    Never starting with '-', as Kafka's own Uuid.randomUuid ensures: the
    storage tool would read such an id as an option and refuse to format."""
    while True:
        cid = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not cid.startswith("-"):
            return cid


class Cluster:
    """Common part: properties, start/stop, pids. Subclasses say how to format
    a node and which command runs it."""

    kind = None

    def __init__(self, work_dir, nodes, partitions, tools, log, scram_listener=False):
        self.work_dir = work_dir
        self.partitions = partitions
        self.tools = tools
        self.security = tools.security
        self.scram_listener = scram_listener
        self.log = log
        self.nodes = [Node(i + 1, BASE_PORT + 10 * i, os.path.join(work_dir, f"node{i + 1}")) for i in range(nodes)]
        if self.separate_inter_broker_listener:
            for n in self.nodes:
                n.harness_port = n.inter_broker_port
        self.spawned_at = None

    @property
    def separate_inter_broker_listener(self):
        return self.security.inter_broker_listener != self.security.client_listener

    @property
    def bootstrap(self):
        return ",".join(f"127.0.0.1:{n.port}" for n in self.nodes)

    @property
    def harness_bootstrap(self):
        """The listeners the harness's own requests go to (harness_port)."""
        return ",".join(f"127.0.0.1:{n.harness_port}" for n in self.nodes)

    @property
    def scram_bootstrap(self):
        return ",".join(f"127.0.0.1:{n.scram_port}" for n in self.nodes)

    @property
    def replication_factor(self):
        return min(3, len(self.nodes))

    @property
    def min_insync_replicas(self):
        """2 from three nodes on, as the seeds' clusters run: acks=all then
        waits for a follower, and a lost broker leaves writes going."""
        return 2 if len(self.nodes) >= 3 else 1

    def properties(self, node):
        """The same settings for both kinds: combined mode, num.partitions,
        replication factors and min.insync.replicas for the cluster size,
        each kind's default flush policy (no fsync per message or per
        interval), no initial rebalance delay (the consumer benchmark would
        only measure the wait). Timeouts (session, lag, election) are each
        kind's defaults, which are Kafka's. The client listener is also
        the inter-broker one, but in the SASL modes, where the brokers talk
        over a PLAINTEXT listener of their own; the protocols, and the
        SCRAM listener's, come from the session's security (security.py)."""
        voters = ",".join(f"{n.node_id}@127.0.0.1:{n.controller_port}" for n in self.nodes)
        rf = self.replication_factor
        min_isr = self.min_insync_replicas
        client = self.security.client_listener
        listeners = [f"{client}://127.0.0.1:{node.port}"]
        protocols = [f"{client}:{client}", "CONTROLLER:PLAINTEXT"]
        if self.scram_listener:
            listeners.append(f"{SCRAM_LISTENER}://127.0.0.1:{node.scram_port}")
            protocols.append(f"{SCRAM_LISTENER}:{self.security.scram_protocol}")
        inter = self.security.inter_broker_listener
        if self.separate_inter_broker_listener:
            listeners.append(f"{inter}://127.0.0.1:{node.inter_broker_port}")
            protocols.append(f"{inter}:{inter}")
        props = {
            "process.roles": "broker,controller",
            "node.id": node.node_id,
            "controller.quorum.voters": voters,
            "controller.listener.names": "CONTROLLER",
            "listeners": ",".join(listeners + [f"CONTROLLER://127.0.0.1:{node.controller_port}"]),
            "advertised.listeners": ",".join(listeners),
            "listener.security.protocol.map": ",".join(protocols),
            "inter.broker.listener.name": inter,
            "log.dirs": node.data_dir,
            "num.partitions": self.partitions,
            "default.replication.factor": rf,
            "min.insync.replicas": min_isr,
            "offsets.topic.replication.factor": rf,
            "transaction.state.log.replication.factor": rf,
            "transaction.state.log.min.isr": min_isr,
            "group.initial.rebalance.delay.ms": 0,
            "auto.create.topics.enable": "true",
        }
        props.update(self.security.broker_properties(self.scram_listener))
        return props

    def write_properties(self):
        for n in self.nodes:
            os.makedirs(n.dir, exist_ok=True)
            with open(n.props_path, "w") as f:
                for k, v in self.properties(n).items():
                    f.write(f"{k}={v}\n")

    def start(self):
        """Formats every node, then spawns them; returns the spawn time
        (time.time()) from which start-up is measured."""
        self.write_properties()
        cid = cluster_id()
        for n in self.nodes:
            self.format_node(n, cid)
        self.spawned_at = time.time()
        for n in self.nodes:
            self.spawn(n, "w")
        return self.spawned_at

    def spawn(self, node, mode="a"):
        log = open(node.log_path, mode)
        node.proc = subprocess.Popen(self.run_command(node), stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, cwd=node.dir, env=self.run_env())
        log.close()

    def node(self, node_id):
        return self.nodes[node_id - 1]

    def kill(self, node):
        """SIGKILL, as a crashed machine: no controlled shutdown."""
        node.proc.send_signal(signal.SIGKILL)
        node.proc.wait()

    def restart(self, node):
        """Starts a stopped node again on its data (no format)."""
        self.spawn(node)

    def pids(self):
        return [n.proc.pid for n in self.nodes if n.proc]

    def dead_nodes(self):
        return [n for n in self.nodes if n.proc is None or n.proc.poll() is not None]

    def stop(self, timeout_s=60):
        """SIGTERM to every node, SIGKILL after timeout_s; returns one dict
        per node (exit code, seconds to stop, whether it had to be killed)."""
        results = []
        for n in self.nodes:
            if n.proc and n.proc.poll() is None:
                n.proc.send_signal(signal.SIGTERM)
        for n in self.nodes:
            if not n.proc:
                continue
            t0 = time.monotonic()
            killed = False
            try:
                n.proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                n.proc.kill()
                n.proc.wait()
                killed = True
            results.append({"node": n.node_id, "exit_code": n.proc.returncode,
                            "stop_seconds": round(time.monotonic() - t0, 3), "killed": killed})
        return results

    def log_tail(self, lines=30):
        out = []
        for n in self.nodes:
            try:
                with open(n.log_path, errors="replace") as f:
                    out.append(f"--- node {n.node_id} ({n.log_path})\n" + "".join(f.readlines()[-lines:]))
            except OSError:
                pass
        return "\n".join(out)

    def run_env(self):
        return None

    def format_node(self, node, cid):
        raise NotImplementedError

    def run_command(self, node):
        raise NotImplementedError


class KafkaCluster(Cluster):
    """Apache Kafka from the jars of scripts/fetch-kafka.sh, -Xmx1g, Kafka's
    JVM options (scripts/kafka-run-class.sh), log4j at WARN."""

    kind = "kafka"
    heap = "-Xmx1g"

    def format_node(self, node, cid):
        self.tools.kafka_tool("kafka.tools.StorageTool", ["format", "-t", cid, "-c", node.props_path], 120)

    def run_command(self, node):
        # kafka-run-class.sh execs java: the spawned pid is the JVM's.
        return [os.path.join(self.tools.repo, "scripts", "kafka-run-class.sh"), "kafka.Kafka", node.props_path]

    def run_env(self):
        return dict(os.environ, KAFKA_HEAP_OPTS=self.heap)


class HighwaterCluster(Cluster):
    """The highwater binary of the Release build."""

    kind = "highwater"

    def __init__(self, work_dir, nodes, partitions, tools, log, binary, scram_listener=False):
        super().__init__(work_dir, nodes, partitions, tools, log, scram_listener)
        self.binary = binary

    def format_node(self, node, cid):
        self.tools.run([self.binary, "format", "--cluster-id", cid, "--config", node.props_path], 60)

    def run_command(self, node):
        return [self.binary, "--config", node.props_path]


def make_cluster(kind, work_dir, nodes, partitions, tools, log, highwater_binary, scram_listener=False):
    if kind == "kafka":
        return KafkaCluster(work_dir, nodes, partitions, tools, log, scram_listener)
    return HighwaterCluster(work_dir, nodes, partitions, tools, log, highwater_binary, scram_listener)
