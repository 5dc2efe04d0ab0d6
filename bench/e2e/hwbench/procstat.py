"""Resource readings of a running process from /proc (Linux only)."""

import os

_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """User + system CPU time of pid (all its threads), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read()
    # The command name may hold spaces; the fields after it are fixed.
    rest = stat[stat.rindex(")") + 2:].split()
    utime, stime = int(rest[11]), int(rest[12])
    return (utime + stime) / _TICKS


def status_kib(pid, key):
    """A kB field of /proc/<pid>/status (VmRSS, VmHWM, ...), 0 if absent."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def total_cpu_seconds(pids):
    return sum(cpu_seconds(p) for p in pids)


def total_status_mib(pids, key):
    return sum(status_kib(p, key) for p in pids) / 1024.0


def machine():
    """Core count, memory and CPU model of this machine."""
    model = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    mem_kib = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem_kib = int(line.split()[1])
    return {
        "cores": os.cpu_count(),
        "memory_gib": round(mem_kib / 1024 / 1024, 1),
        "cpu_model": model,
        "kernel": os.uname().release,
    }
