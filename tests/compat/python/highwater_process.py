"""A highwater broker for the Python compat tests, and waiting on a condition.

Highwater(binary, directory, overrides, env=None) starts the binary in
`directory` with --override key=value for each pair and --port-file (env
adds to its environment, e.g. KAFKA_OPTS), waits for the port file (the
broker writes it once listening; an earlier start's is removed first) and reads one NAME://host:port line per
bound listener into `listeners`. stop() sends SIGTERM and kills it if it
has not gone after the grace period.
"""

import os
import signal
import subprocess
import time


def wait_for(pred, timeout_s, what):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.02)
    raise AssertionError("timed out waiting for " + what)


class Highwater:
    def __init__(self, binary, directory, overrides, start_timeout_s=30, env=None):
        self.dir = directory
        self.log_path = os.path.join(directory, "highwater.log")
        port_file = os.path.join(directory, "ports")
        if os.path.exists(port_file):
            os.remove(port_file)  # an earlier start's: its ports are gone
        args = [binary, "--port-file", port_file]
        for key, value in overrides:
            args += ["--override", "%s=%s" % (key, value)]
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen(args, cwd=directory, stdout=log, stderr=subprocess.STDOUT,
                                         env=dict(os.environ, **env) if env else None)
        try:
            wait_for(lambda: os.path.exists(port_file) or self.proc.poll() is not None, start_timeout_s,
                     "the port file")
        except AssertionError:
            self.stop()
            raise AssertionError("highwater wrote no port file:\n" + self.log())
        if self.proc.poll() is not None:
            raise AssertionError("highwater exited:\n" + self.log())
        self.listeners = {}
        with open(port_file) as f:
            for line in f:
                name, address = line.strip().split("://", 1)
                self.listeners[name] = address

    def log(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def stop(self, grace_s=15):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(grace_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
