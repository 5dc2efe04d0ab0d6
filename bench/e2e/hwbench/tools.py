"""Running the client programs: Apache Kafka's tools (through
scripts/kafka-run-class.sh) and the project's hw_loadgen."""

import json
import os
import re
import shlex
import subprocess
import time


_SECRET = re.compile(r"(password=)[^\s,\]'\"]+")


def redact(text):
    """A command line as it may be logged or reported: the values of
    password= keys (sasl.password, SCRAM's password=) hidden."""
    return _SECRET.sub(r"\1[hidden]", text)


class ToolError(Exception):
    """A client program failed, hung or printed something unexpected. Keeps
    the command and the tail of its output for the report."""

    def __init__(self, message, command=None, output=""):
        super().__init__(message)
        self.command = command
        self.output = output

    def as_dict(self):
        return {"error": str(self), "command": self.command, "output_tail": self.output[-3000:]}


class Tools:
    """Paths and the one way every client program is run (with a timeout),
    secured as the session's security (security.py) says: one per mode."""

    def __init__(self, repo, loadgen, log, security):
        self.repo = repo
        self.loadgen_path = loadgen
        self.log = log
        self.security = security

    def run(self, argv, timeout_s, env=None):
        """Runs argv to completion; returns (stdout, stderr, seconds). A
        non-zero exit or a timeout is a ToolError."""
        argv = [str(a) for a in argv]
        cmd = redact(" ".join(shlex.quote(a) for a in argv))
        self.log(f"    $ {cmd}")
        full_env = dict(os.environ, **(env or {}))
        start = time.monotonic()
        try:
            p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, env=full_env)
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            err = (e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
            raise ToolError(f"timed out after {timeout_s} s", cmd, out + err) from None
        seconds = time.monotonic() - start
        if p.returncode != 0:
            raise ToolError(f"exit code {p.returncode}", cmd, p.stdout + p.stderr)
        return p.stdout, p.stderr, seconds

    def kafka_tool(self, main_class, args, timeout_s):
        """A Kafka class as it is (the storage tool)."""
        argv = [os.path.join(self.repo, "scripts", "kafka-run-class.sh"), main_class] + list(args)
        return self.run(argv, timeout_s)

    def kafka_client(self, main_class, args, timeout_s):
        """A Kafka tool that connects to the brokers: with the security's
        --command-config."""
        return self.kafka_tool(main_class, list(args) + self.security.java_args(), timeout_s)

    def _loadgen_argv(self, command, args, secured=True):
        # The security's -X first: a command's own -X after them wins.
        # Not secured: towards the SASL modes' PLAINTEXT listener.
        own = self.security.loadgen_args() if secured else []
        return [self.loadgen_path, command] + own + [str(a) for a in args]

    def loadgen(self, command, args, timeout_s, secured=True):
        """Runs hw_loadgen and returns its JSON answer."""
        argv = self._loadgen_argv(command, args, secured)
        out, err, _ = self.run(argv, timeout_s)
        try:
            return json.loads(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            raise ToolError("hw_loadgen printed no JSON", redact(" ".join(argv)), out + err) from None

    def loadgen_popen(self, command, args, secured=True):
        """Starts hw_loadgen without waiting (the start-up probe); the argv
        returned is redacted, for messages."""
        argv = self._loadgen_argv(command, args, secured)
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        return [redact(str(a)) for a in argv], proc
