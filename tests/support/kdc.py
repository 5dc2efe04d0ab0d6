#!/usr/bin/env python3
"""A Kerberos KDC for tests: MIT krb5kdc with a realm made in a temporary directory.

    kdc.py start <dir> [--realm EXAMPLE.COM] [--principal NAME[:keytab]]...
    kdc.py stop <dir>

or, from Python, KDC(directory, realm, principals) with start() and stop().

start makes <dir> (emptied first): kdc.conf and the database (kdb5_util
create -s, a stash file), a principal for each --principal with a random
key (kadmin.local addprinc -randkey) exported to its keytab (ktadd; the
keytab is <dir>/<name with '/' as '_'>.keytab unless named), then runs
krb5kdc on 127.0.0.1 on a port picked free and checked once it runs (if
another process took it meanwhile, krb5kdc exits and another port is tried),
TCP only, and writes <dir>/krb5.conf naming that KDC (no DNS, no reverse
lookups, host names as written). It prints the environment for clients as
KEY=value lines: KRB5_CONFIG, KRB5_KDC_PROFILE, KRB5CCNAME (a cache in
<dir>), KDC_PORT, REALM. Nothing outside <dir> is read or written: every
tool runs with KRB5_CONFIG and KRB5_KDC_PROFILE pointing into it. stop kills
the KDC (its pid file) and removes <dir>.

The default principals are kafka/localhost (the broker), alice, bob, and
other/localhost (a service that is not the broker). A missing krb5kdc,
kdb5_util or kadmin.local makes start exit with code 77 and say which (the
callers' tests skip on it).
"""

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

DEFAULT_PRINCIPALS = ["kafka/localhost", "alice", "bob", "other/localhost"]
TOOLS = {"krb5kdc": "/usr/sbin/krb5kdc", "kdb5_util": "/usr/sbin/kdb5_util", "kadmin.local": "/usr/sbin/kadmin.local"}


class Unavailable(Exception):
    """The MIT KDC tools are not installed."""


def missing_tools():
    return [name for name, path in TOOLS.items() if not os.access(path, os.X_OK)]


def keytab_name(principal):
    return principal.replace("/", "_") + ".keytab"


class KDC:
    def __init__(self, directory, realm="EXAMPLE.COM", principals=None):
        self.dir = os.path.abspath(directory)
        self.realm = realm
        self.principals = principals or DEFAULT_PRINCIPALS
        self.port = None
        self.krb5_conf = os.path.join(self.dir, "krb5.conf")
        self.kdc_conf = os.path.join(self.dir, "kdc.conf")
        self.pid_file = os.path.join(self.dir, "krb5kdc.pid")

    def keytab(self, principal):
        return os.path.join(self.dir, keytab_name(principal))

    def env(self):
        """What a process that talks to this KDC needs in its environment."""
        return {"KRB5_CONFIG": self.krb5_conf, "KRB5_KDC_PROFILE": self.kdc_conf,
                "KRB5CCNAME": "FILE:" + os.path.join(self.dir, "ccache"), "KDC_PORT": str(self.port),
                "REALM": self.realm}

    def _run(self, args, timeout=60):
        env = dict(os.environ, KRB5_CONFIG=self.krb5_conf, KRB5_KDC_PROFILE=self.kdc_conf)
        p = subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout)
        if p.returncode != 0:
            raise RuntimeError("%s failed (%d): %s%s" % (" ".join(args[:2]), p.returncode, p.stdout, p.stderr))
        return p.stdout

    def _write_confs(self, port):
        db = os.path.join(self.dir, "principal")
        with open(self.kdc_conf, "w") as f:
            f.write("""[kdcdefaults]
 kdc_listen = 127.0.0.1:{port}
 kdc_tcp_listen = 127.0.0.1:{port}

[realms]
 {realm} = {{
  database_name = {db}
  key_stash_file = {dir}/stash
  acl_file = {dir}/kadm5.acl
  kdc_listen = 127.0.0.1:{port}
  kdc_tcp_listen = 127.0.0.1:{port}
  max_life = 1h
  max_renewable_life = 1d
  supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
 }}

[logging]
 kdc = FILE:{dir}/krb5kdc.log
""".format(port=port, realm=self.realm, db=db, dir=self.dir))
        with open(self.krb5_conf, "w") as f:
            f.write("""[libdefaults]
 default_realm = {realm}
 dns_lookup_kdc = false
 dns_lookup_realm = false
 dns_canonicalize_hostname = false
 rdns = false
 udp_preference_limit = 1
 ticket_lifetime = 1h
 forwardable = true
 default_ccache_name = FILE:{dir}/ccache

[realms]
 {realm} = {{
  kdc = 127.0.0.1:{port}
 }}

[domain_realm]
 localhost = {realm}
 .localhost = {realm}
""".format(realm=self.realm, port=port, dir=self.dir))

    def start(self, timeout_s=30):
        missing = missing_tools()
        if missing:
            raise Unavailable("MIT Kerberos KDC tools missing: %s (install krb5-kdc and krb5-admin-server)"
                              % ", ".join(missing))
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self._write_confs(0)
        open(os.path.join(self.dir, "kadm5.acl"), "w").close()
        # The master key is random: nothing ever types it.
        self._run([TOOLS["kdb5_util"], "create", "-s", "-r", self.realm, "-P", os.urandom(16).hex()])
        for principal in self.principals:
            self._run([TOOLS["kadmin.local"], "-r", self.realm, "-q", "addprinc -randkey %s" % principal])
            self._run([TOOLS["kadmin.local"], "-r", self.realm, "-q",
                       "ktadd -k %s %s" % (self.keytab(principal), principal)])
        errors = []
        for _ in range(5):
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            self._write_confs(port)
            env = dict(os.environ, KRB5_CONFIG=self.krb5_conf, KRB5_KDC_PROFILE=self.kdc_conf)
            with open(os.path.join(self.dir, "krb5kdc.out"), "w") as out:
                proc = subprocess.Popen([TOOLS["krb5kdc"], "-n", "-r", self.realm, "-P", self.pid_file], env=env,
                                        stdout=subprocess.DEVNULL, stderr=out, start_new_session=True)
            with open(self.pid_file + ".proc", "w") as f:
                f.write(str(proc.pid))
            deadline = time.monotonic() + timeout_s
            while time.monotonic() < deadline and proc.poll() is None:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=1):
                        self.port = port
                        self.proc = proc
                        return self
                except OSError:
                    time.sleep(0.05)
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            with open(os.path.join(self.dir, "krb5kdc.out")) as f:
                errors.append("port %d: %s" % (port, f.read().strip()))
        raise RuntimeError("krb5kdc did not start:\n" + "\n".join(errors))

    def stop(self):
        for name in (self.pid_file + ".proc",):
            try:
                with open(name) as f:
                    pid = int(f.read().strip())
                os.kill(pid, signal.SIGTERM)
                if getattr(self, "proc", None) is not None and self.proc.pid == pid:
                    self.proc.wait(10)
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline:
                    try:
                        os.kill(pid, 0)
                    except OSError:
                        break
                    try:
                        if os.waitpid(pid, os.WNOHANG)[0] == pid:
                            break
                    except ChildProcessError:
                        pass
                    time.sleep(0.05)
                else:
                    os.kill(pid, signal.SIGKILL)
            except (OSError, ValueError):
                pass
        shutil.rmtree(self.dir, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["start", "stop"])
    parser.add_argument("dir")
    parser.add_argument("--realm", default="EXAMPLE.COM")
    parser.add_argument("--principal", action="append")
    a = parser.parse_args()
    kdc = KDC(a.dir, a.realm, a.principal)
    if a.command == "stop":
        kdc.stop()
        return 0
    try:
        kdc.start()
    except Unavailable as e:
        print(e, file=sys.stderr)
        return 77
    except Exception as e:
        print(e, file=sys.stderr)
        kdc.stop()
        return 1
    for key, value in kdc.env().items():
        print("%s=%s" % (key, value))
    return 0


if __name__ == "__main__":
    sys.exit(main())
