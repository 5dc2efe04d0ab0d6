#!/usr/bin/env python3
"""A small OAuth 2 / OpenID Connect identity provider for tests.

It issues signed JWT access tokens for the client credentials grant and
publishes the keys that verify them, over HTTPS with a certificate from
scripts/make-certs.sh (so only the test's own CA trusts it). Test fixtures
only: never point it at anything but a test.

    oidc_provider.py --cert CHAIN.pem --key KEY.pem [--key-password P]
                     [--port-file FILE] [--client ID:SECRET ...]
                     [--issuer URL] [--audience AUD] [--lifetime S] [--http]

It binds 127.0.0.1 on a port the kernel picks, prints
"oidc_provider: listening on https://127.0.0.1:PORT" and writes PORT to
--port-file (atomically, once it accepts). --issuer defaults to the
server's own base URL. SIGHUP rotates the RS256 key.

Endpoints:
  POST /token      grant_type=client_credentials; the client's id and secret
                   in HTTP Basic (as sent verbatim or form-urlencoded) or as
                   form fields client_id/client_secret; optional scope.
                   Answers {"access_token", "token_type": "Bearer",
                   "expires_in"}; an unknown client or a wrong secret gets
                   401 invalid_client, another grant 400
                   unsupported_grant_type.
  GET  /jwks       {"keys": [...]}: every published key with its kid (any
                   query string is ignored but counted, so brokers given
                   /jwks?for=NAME can be told apart in the stats).
  GET  /.well-known/openid-configuration   issuer, token and jwks URLs.
Test control (JSON bodies, answers JSON):
  POST /admin/rotate    {"alg": "RS256"|"ES256", "retire": bool,
                         "publish": bool}: a new key with a new kid signs
                        from now on; "retire" drops the previous one from
                        the JWKS; "publish": false signs with a key the
                        JWKS does not show (as an IdP that has not yet
                        published it). Answers {"kid"}.
  POST /admin/publish   {"kid"}: adds a held-back key to the JWKS.
  POST /admin/jwks_failure  {"for": NAME, "mode"}: how /jwks?for=NAME fails
                        from now on (the fetch is still counted): "hangup"
                        (the connection closed unanswered, as an endpoint
                        that cannot be reached), "garbage" (200 with a body
                        that is no key set), "status" (503), or "none".
  POST /admin/settings  defaults for every token: issuer, audience (a
                        string or a list), lifetime (exp - iat, seconds),
                        issued_ago (iat and nbf that many seconds back:
                        issued_ago > lifetime makes expired tokens),
                        sub_claim, scope_claim, scope, alg, extra_claims
                        (claims added last; a null value removes one).
  POST /admin/clients   {"id", "secret", ...}: adds or replaces a client;
                        any setting above overrides the default for its
                        tokens, and "subject" is its subject claim's value
                        (default: its id).
  GET  /admin/stats     {"token_requests", "token_refusals",
                         "tokens_by_client": {id: tokens issued},
                         "jwks_fetches": [[unix time, query]...],
                         "kids": {alg: kid signing now}, "published"}.
"""

import argparse
import base64
import json
import os
import signal
import ssl
import sys
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

JWKS_FAILURES = ("hangup", "garbage", "status", "none")
SETTING_KEYS = ("issuer", "audience", "lifetime", "issued_ago", "sub_claim", "scope_claim", "scope", "alg",
                "extra_claims")


class SigningKey:
    def __init__(self, alg, kid):
        self.alg = alg
        self.kid = kid
        if alg == "RS256":
            self.private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            jwk = RSAAlgorithm.to_jwk(self.private.public_key(), as_dict=True)
        elif alg == "ES256":
            self.private = ec.generate_private_key(ec.SECP256R1())
            jwk = ECAlgorithm.to_jwk(self.private.public_key(), as_dict=True)
        else:
            raise ValueError("unsupported alg " + alg)
        jwk.pop("key_ops", None)  # "use" says it: a key set should not carry both
        self.jwk = dict(jwk, kid=kid, use="sig", alg=alg)


class Provider:
    """The provider's state: keys, clients, settings and counters, behind one lock."""

    def __init__(self, issuer, audience, lifetime):
        self.lock = threading.Lock()
        self.settings = {"issuer": issuer, "audience": audience, "lifetime": lifetime, "issued_ago": 0,
                         "sub_claim": "sub", "scope_claim": "scope", "scope": None, "alg": "RS256",
                         "extra_claims": {}}
        self.clients = {}
        self.keys = {}          # kid -> SigningKey, every key made
        self.published = []     # kids in the JWKS, oldest first
        self.active = {}        # alg -> kid signing now
        self.serial = 0
        self.token_requests = 0
        self.token_refusals = 0
        self.tokens_by_client = {}
        self.jwks_fetches = []
        self.jwks_failures = {}  # query ("for=NAME") -> how its fetches fail
        for alg in ("RS256", "ES256"):
            self.rotate(alg)

    def rotate(self, alg="RS256", retire=False, publish=True):
        with self.lock:
            self.serial += 1
            key = SigningKey(alg, "%s-%d-%s" % (alg.lower(), self.serial, uuid.uuid4().hex[:8]))
            self.keys[key.kid] = key
            old = self.active.get(alg)
            self.active[alg] = key.kid
            if retire and old in self.published:
                self.published.remove(old)
            if publish:
                self.published.append(key.kid)
            return key.kid

    def publish(self, kid):
        with self.lock:
            if kid not in self.keys:
                raise KeyError(kid)
            if kid not in self.published:
                self.published.append(kid)

    def jwks(self, query):
        """(failure mode or None, the key set)."""
        with self.lock:
            self.jwks_fetches.append([time.time(), query])
            return self.jwks_failures.get(query), {"keys": [self.keys[k].jwk for k in self.published]}

    def fail_jwks(self, name, mode):
        if mode not in JWKS_FAILURES:
            raise ValueError("unknown failure mode %r" % mode)
        with self.lock:
            if mode == "none":
                self.jwks_failures.pop("for=" + name, None)
            else:
                self.jwks_failures["for=" + name] = mode

    def update_settings(self, values):
        with self.lock:
            for k, v in values.items():
                if k not in SETTING_KEYS:
                    raise KeyError(k)
                self.settings[k] = v

    def set_client(self, spec):
        spec = dict(spec)
        client_id, secret = spec.pop("id"), spec.pop("secret")
        for k in spec:
            if k not in SETTING_KEYS and k != "subject":
                raise KeyError(k)
        with self.lock:
            self.clients[client_id] = (secret, spec)

    def known(self, client_id):
        with self.lock:
            return client_id in self.clients

    def stats(self):
        with self.lock:
            return {"token_requests": self.token_requests, "token_refusals": self.token_refusals,
                    "tokens_by_client": dict(self.tokens_by_client),
                    "jwks_fetches": list(self.jwks_fetches), "kids": dict(self.active),
                    "published": list(self.published)}

    def issue(self, client_id, secret, scope):
        """(status, body): a token for the client, or the OAuth error a real provider answers."""
        with self.lock:
            self.token_requests += 1
            entry = self.clients.get(client_id)
            if entry is None or secret is None or entry[0] != secret:
                self.token_refusals += 1
                return 401, {"error": "invalid_client", "error_description": "Client authentication failed"}
            overrides = entry[1]
            self.tokens_by_client[client_id] = self.tokens_by_client.get(client_id, 0) + 1
            s = dict(self.settings, **{k: v for k, v in overrides.items() if k in SETTING_KEYS})
            key = self.keys[self.active[s["alg"]]]
        issued = int(time.time()) - int(s["issued_ago"])
        claims = {"iss": s["issuer"], "aud": s["audience"], "iat": issued, "nbf": issued,
                  "exp": issued + int(s["lifetime"]),
                  "jti": uuid.uuid4().hex, "client_id": client_id}
        claims[s["sub_claim"]] = overrides.get("subject", client_id)
        granted = scope if scope is not None else s["scope"]
        if granted is not None:
            claims[s["scope_claim"]] = granted
        claims.update(s["extra_claims"])
        claims = {k: v for k, v in claims.items() if v is not None}
        token = jwt.encode(claims, key.private, algorithm=key.alg, headers={"kid": key.kid})
        expires_in = max(issued + int(s["lifetime"]) - int(time.time()), 0)
        return 200, {"access_token": token, "token_type": "Bearer", "expires_in": expires_in}


def basic_credentials(header):
    """(id, secret) from an HTTP Basic Authorization header, or None."""
    if not header or not header.lower().startswith("basic "):
        return None
    try:
        text = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None
    if ":" not in text:
        return None
    return tuple(text.split(":", 1))


class Handler(BaseHTTPRequestHandler):
    server_version = "TestIdP/1"
    provider = None  # set by serve()
    base_url = ""

    def log_message(self, fmt, *args):  # quiet: tests read /admin/stats instead
        pass

    def answer(self, status, body, headers=()):
        self.answer_raw(status, json.dumps(body).encode(), "application/json", headers)

    def answer_raw(self, status, data, content_type, headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def do_GET(self):
        path = urllib.parse.urlsplit(self.path).path
        if path == "/jwks":
            failure, keys = self.provider.jwks(urllib.parse.urlsplit(self.path).query)
            if failure == "hangup":
                self.close_connection = True  # nothing written: the client reads an end of stream
            elif failure == "garbage":
                self.answer_raw(200, b"<html><body>maintenance</body></html>", "text/html")
            elif failure == "status":
                self.answer(503, {"error": "temporarily_unavailable"})
            else:
                self.answer(200, keys)
        elif path == "/.well-known/openid-configuration":
            self.answer(200, {"issuer": self.provider.settings["issuer"], "token_endpoint": self.base_url + "/token",
                              "jwks_uri": self.base_url + "/jwks", "grant_types_supported": ["client_credentials"],
                              "id_token_signing_alg_values_supported": ["RS256", "ES256"]})
        elif path == "/admin/stats":
            self.answer(200, self.provider.stats())
        else:
            self.answer(404, {"error": "not_found"})

    def do_POST(self):
        path = urllib.parse.urlsplit(self.path).path
        raw = self.body()
        if path == "/token":
            self.token(raw)
            return
        try:
            args = json.loads(raw or b"{}")
            if path == "/admin/rotate":
                kid = self.provider.rotate(args.get("alg", "RS256"), bool(args.get("retire", False)),
                                           bool(args.get("publish", True)))
                self.answer(200, {"kid": kid})
            elif path == "/admin/publish":
                self.provider.publish(args["kid"])
                self.answer(200, {})
            elif path == "/admin/jwks_failure":
                self.provider.fail_jwks(args["for"], args["mode"])
                self.answer(200, {})
            elif path == "/admin/settings":
                self.provider.update_settings(args)
                self.answer(200, {})
            elif path == "/admin/clients":
                self.provider.set_client(args)
                self.answer(200, {})
            else:
                self.answer(404, {"error": "not_found"})
        except (KeyError, ValueError, TypeError) as e:
            self.answer(400, {"error": "invalid_request", "error_description": repr(e)})

    def token(self, raw):
        form = urllib.parse.parse_qs(raw.decode("utf-8", "replace"), keep_blank_values=True)
        field = lambda name: form.get(name, [None])[0]
        if field("grant_type") != "client_credentials":
            self.answer(400, {"error": "unsupported_grant_type",
                              "error_description": "only client_credentials is supported"})
            return
        creds = basic_credentials(self.headers.get("Authorization"))
        if creds is not None:
            client_id, secret = creds
            if not self.provider.known(client_id):  # RFC 6749 2.3.1: form-urlencoded before Basic
                client_id, secret = urllib.parse.unquote_plus(client_id), urllib.parse.unquote_plus(secret)
        else:
            client_id, secret = field("client_id"), field("client_secret")
        status, body = self.provider.issue(client_id, secret, field("scope"))
        headers = [("WWW-Authenticate", 'Basic realm="test-idp"')] if status == 401 else []
        self.answer(status, body, headers)


class TLSServer(ThreadingHTTPServer):
    daemon_threads = True
    ssl_context = None

    def get_request(self):
        sock, addr = super().get_request()
        if self.ssl_context is not None:
            # The handshake runs in the request's thread, so one stalled client cannot hold the others up.
            sock = self.ssl_context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
            sock.settimeout(30)
        return sock, addr

    def handle_error(self, request, client_address):
        pass  # a client that hangs up mid-handshake (e.g. one that does not trust us) is not our error


def serve(args):
    server = TLSServer(("127.0.0.1", 0), Handler)
    port = server.server_address[1]
    scheme = "http" if args.http else "https"
    if not args.http:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.cert, args.key, password=args.key_password)
        server.ssl_context = ctx
    base_url = "%s://127.0.0.1:%d" % (scheme, port)
    provider = Provider(args.issuer or base_url, args.audience, args.lifetime)
    for spec in args.client:
        client_id, secret = spec.split(":", 1)
        provider.set_client({"id": client_id, "secret": secret})
    Handler.provider, Handler.base_url = provider, base_url
    signal.signal(signal.SIGHUP, lambda *_: provider.rotate("RS256"))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % port)
        os.replace(tmp, args.port_file)
    print("oidc_provider: listening on %s" % base_url, flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()


def main():
    p = argparse.ArgumentParser(description="A small OAuth/OIDC identity provider for tests.")
    p.add_argument("--cert", help="certificate chain (PEM)")
    p.add_argument("--key", help="private key (PEM, possibly encrypted)")
    p.add_argument("--key-password", default=os.environ.get("HW_CERT_PASSWORD"))
    p.add_argument("--port-file")
    p.add_argument("--client", action="append", default=[], help="ID:SECRET (repeatable)")
    p.add_argument("--issuer", help="the iss claim (default: this server's base URL)")
    p.add_argument("--audience", default="highwater")
    p.add_argument("--lifetime", type=int, default=3600, help="token lifetime in seconds")
    p.add_argument("--http", action="store_true", help="plain HTTP instead of HTTPS")
    args = p.parse_args()
    if not args.http and not (args.cert and args.key):
        p.error("--cert and --key are needed for HTTPS (or --http)")
    serve(args)


if __name__ == "__main__":
    main()
