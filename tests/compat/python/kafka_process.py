"""Apache Kafka 4.3.1 for the Python compat tests that run it beside highwater.

start_kafka(source_dir, directory, settings, log_tail, env=None) runs
scripts/kafka-server.sh with an extra SASL_PLAINTEXT listener and these
properties (env adds to its environment, e.g. KAFKA_OPTS), on a run of
ports it probes (the script binds PLAINTEXT on p, CONTROLLER on p + 1 and
the extra listener on p + 3), starting again on other ports when another
process took one between the probe and Kafka's bind; it answers the extra
listener's bootstrap address. With sasl_listener=False it adds none and
answers the PLAINTEXT listener's. stop_kafka stops it. run() runs a command to
its end or its deadline (stdin_text, if given, is its standard input).
"""

import os
import shutil
import socket
import subprocess


def run(cmd, timeout_s, env=None, stdin_text=None):
    """Runs cmd to its end, killed at the deadline (exit code 124): (code, stdout, stderr)."""
    try:
        p = subprocess.run(cmd, input=stdin_text, capture_output=True, text=True, timeout=timeout_s, env=env)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        text = lambda b: b.decode(errors="replace") if isinstance(b, bytes) else (b or "")
        return 124, text(e.stdout), text(e.stderr) + "\n[killed after %ds]" % timeout_s


def port_run():
    """A port p with p + 1 and p + 3 free too, or None. Only p comes from the kernel: the others are probed by
    binding them as Java's server sockets do (SO_REUSEADDR)."""
    def bindable(port):
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", port))
                return True
            except OSError:
                return False

    for _ in range(20):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            p = s.getsockname()[1]
        if p + 3 <= 65535 and bindable(p + 1) and bindable(p + 3):
            return p
    return None


def start_kafka(source_dir, directory, settings, log_tail, env=None, sasl_listener=True):
    """Starts Kafka in directory with settings ((key, value) pairs, or a function of the port p that gives them);
    its SASL_PLAINTEXT bootstrap address (without sasl_listener, its PLAINTEXT one, the only client listener).
    log_tail(lines) reads the end of its log for the failure message. env adds to the script's environment (e.g.
    KAFKA_OPTS for the JVM's system properties)."""
    script = os.path.join(source_dir, "scripts/kafka-server.sh")
    errors = []
    for _ in range(3):
        port = port_run()
        if port is None:
            errors.append("no run of free ports")
            continue
        listed = settings(port) if callable(settings) else settings
        run_env = dict(os.environ, **(env or {}), HW_KAFKA_EXTRA_LISTENERS="SASL_PLAINTEXT:SASL_PLAINTEXT",
                       HW_KAFKA_EXTRA_PROPS="\n".join("%s=%s" % kv for kv in listed), HW_KAFKA_START_TIMEOUT="120")
        if not sasl_listener:
            del run_env["HW_KAFKA_EXTRA_LISTENERS"]
        shutil.rmtree(directory, ignore_errors=True)
        code, out, err = run([script, "start", directory, str(port)], 150, run_env)
        if code == 0:
            return "127.0.0.1:%d" % (port + 3 if sasl_listener else port)
        errors.append("kafka-server.sh start on %d: %s%s\n%s" % (port, out, err, log_tail(40)))
        stop_kafka(source_dir, directory)
    raise AssertionError("Apache Kafka 4.3.1 did not start (scripts/kafka-server.sh):\n" + "\n".join(errors))


def stop_kafka(source_dir, directory):
    run([os.path.join(source_dir, "scripts/kafka-server.sh"), "stop", directory], 40,
        dict(os.environ, HW_KAFKA_STOP_TIMEOUT="20"))
