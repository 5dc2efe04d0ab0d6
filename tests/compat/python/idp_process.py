"""The test identity provider (tests/support/oidc_provider.py) as a process
for the Python compat tests, and its control endpoints.

IdentityProvider(source_dir, directory, certs, password, audience, clients,
settings=None) starts it over HTTPS with the certificate scripts/make-certs.sh
made in `certs` (its key's password `password`), waits for its port, applies
`settings` (defaults for every token, /admin/settings) and registers
`clients` ({id: (secret, settings of its tokens)}). token(id) fetches an
access token as a client would; stats() and tokens_issued(id) read what it
served; stop() ends it.
"""

import base64
import json
import os
import ssl
import subprocess
import sys
import urllib.request

from highwater_process import wait_for


class IdentityProvider:
    def __init__(self, source_dir, directory, certs, password, audience, clients, settings=None):
        self.dir = directory
        self.clients = clients
        port_file = os.path.join(directory, "idp.port")
        self.log_path = os.path.join(directory, "idp.log")
        script = os.path.join(source_dir, "tests/support/oidc_provider.py")
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen(
                [sys.executable, script, "--cert", os.path.join(certs, "localhost.chain.pem"),
                 "--key", os.path.join(certs, "localhost.key.pem"), "--port-file", port_file,
                 "--audience", audience],
                stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ, HW_CERT_PASSWORD=password))
        wait_for(lambda: os.path.exists(port_file) or self.proc.poll() is not None, 20, "the provider's port")
        if self.proc.poll() is not None:
            raise AssertionError("the identity provider exited:\n" + open(self.log_path).read())
        with open(port_file) as f:
            self.base = "https://127.0.0.1:%d" % int(f.read())
        self.token_url = self.base + "/token"
        self.jwks_url = self.base + "/jwks"
        self.ssl = ssl.create_default_context(cafile=os.path.join(certs, "ca.crt"))
        if settings:
            self.post("/admin/settings", settings)
        for client_id, (secret, client_settings) in clients.items():
            self.post("/admin/clients", dict(client_settings, id=client_id, secret=secret))

    def post(self, path, body):
        req = urllib.request.Request(self.base + path, json.dumps(body).encode(), method="POST")
        with urllib.request.urlopen(req, context=self.ssl, timeout=10) as r:
            return json.loads(r.read())

    def stats(self):
        with urllib.request.urlopen(self.base + "/admin/stats", context=self.ssl, timeout=10) as r:
            return json.loads(r.read())

    def tokens_issued(self, client_id):
        return self.stats()["tokens_by_client"].get(client_id, 0)

    def token(self, client_id):
        """An access token for client_id, fetched as a client would."""
        secret = self.clients[client_id][0]
        basic = base64.b64encode(("%s:%s" % (client_id, secret)).encode()).decode()
        req = urllib.request.Request(self.token_url, b"grant_type=client_credentials", method="POST",
                                     headers={"Authorization": "Basic " + basic,
                                              "Content-Type": "application/x-www-form-urlencoded"})
        with urllib.request.urlopen(req, context=self.ssl, timeout=10) as r:
            return json.loads(r.read())["access_token"]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
