"""Optional profiling around each workload (`--perf DIR`) and the
per-workload readings that need no profiler: the CPU the client programs
spent and the broker's peak RSS during the workload.

With --perf, `perf record` samples the whole machine (-a) while a workload
runs, so the broker, the client (Java tools: JIT frames named from the
perf map the JVM writes at exit) and anything else on the shared machine
land in one file per round, broker and workload. Read the split with
`perf report -i F --sort comm,dso` and the broker's entries with
`perf report -i F --comm highwater --children`. Owned by the round loop
(single thread)."""

import os
import resource
import signal
import subprocess

# The JVM flags that make the Java tools write /tmp/perf-<pid>.map at exit,
# so perf can name their JIT-compiled frames.
JAVA_PERF_MAP_OPTS = "-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -XX:+PreserveFramePointer"


def children_cpu_seconds():
    """User + system CPU of every child process reaped so far: the client
    tools each workload runs (they are run to completion)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def reset_peak_rss(pids):
    """Resets VmHWM to the current RSS (Linux >= 4.0: clear_refs 5) so that
    the next reading is the peak of what ran in between. False if not
    allowed."""
    ok = True
    for pid in pids:
        try:
            with open(f"/proc/{pid}/clear_refs", "w") as f:
                f.write("5")
        except OSError:
            ok = False
    return ok


class Recorder:
    """One `perf record -a` at a time, started before a workload and stopped
    (SIGINT, which makes perf write its file) after it."""

    def __init__(self, out_dir, frequency=199, stack_bytes=8192):
        self.out_dir = out_dir
        self.frequency = frequency
        self.stack_bytes = stack_bytes
        self.proc = None
        os.makedirs(out_dir, exist_ok=True)

    def start(self, label):
        path = os.path.join(self.out_dir, f"{label}.perf.data")
        argv = ["perf", "record", "-a", "-F", str(self.frequency), "--call-graph",
                f"dwarf,{self.stack_bytes}", "-o", path]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=open(path + ".log", "w"),
                                     stdin=subprocess.DEVNULL)
        return path

    def stop(self):
        if not self.proc:
            return
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None
