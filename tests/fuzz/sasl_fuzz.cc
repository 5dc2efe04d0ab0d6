// Arbitrary bytes through broker/security's parsers: the first byte picks
// one, the rest is its input. SCRAM: a client-first and (after the first
// NUL, if any) a client-final message against a server holding a
// credential; PLAIN: one message; JAAS: a sasl.jaas.config value and a JAAS
// file; base64 decoding (and its round trip); a whole session. Checks that
// nothing crashes, that no malformed input authenticates, and that decoded
// base64 round-trips.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "broker/security/jaas.h"
#include "broker/security/oauthbearer_server.h"
#include "broker/security/plain_server.h"
#include "broker/security/sasl_session.h"
#include "broker/security/scram.h"
#include "broker/security/scram_server.h"
#include "protocol/sasl/jws.h"
#include "protocol/sasl/oauthbearer.h"

namespace {

using namespace hw::broker;

void check(bool ok) {
  if (!ok) std::abort();
}

std::span<const uint8_t> bytes(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

const scram_credential& credential() {
  static const scram_credential c = scram::make_credential(scram_mechanism::sha256, "pencil",
                                                           *scram::unbase64("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096);
  return c;
}

void scram_exchange(std::string_view input) {
  scram_server server(
      scram_mechanism::sha256,
      [](const std::string& u) -> std::optional<scram_credential> {
        if (u == "user") return credential();
        return std::nullopt;
      },
      [] { return std::string("srvnonce"); });
  size_t nul = input.find('\0');
  sasl_step first = server.evaluate(bytes(input.substr(0, nul)));
  if (first.failed || nul == std::string_view::npos) return;
  sasl_step last = server.evaluate(bytes(input.substr(nul + 1)));
  // A proof that passes needs the password: random input never has it.
  check(last.failed || !server.complete() || server.user() == "user");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 9) {
    case 0: scram_exchange(input); break;
    case 1: {
      plain_server p([](const std::string& u) -> std::optional<std::string> {
        if (u == "alice") return std::string("alice-secret");
        return std::nullopt;
      });
      sasl_step step = p.evaluate(bytes(input));
      check(step.failed || input.find("alice-secret") != std::string_view::npos);
      break;
    }
    case 2: {
      jaas_parse_result r = parse_jaas_config(input);
      check(!r.ok() || !r.entries.empty());  // a parsed value names a login module
      plain_users(r.entries);
      break;
    }
    case 3: parse_jaas_file(input); break;
    case 4: {
      auto decoded = scram::unbase64(input);
      // Java's decoder, like ours, ignores the unused bits of the last
      // character, so only the decoded bytes round-trip.
      if (decoded) check(scram::unbase64(scram::base64(*decoded)) == decoded);
      scram::unescape_user(input);
      break;
    }
    case 5: {
      // Requests in the order the first bytes say, PLAIN tokens from the
      // rest; only alice's password may authenticate, and only as alice.
      sasl_session s({"PLAIN"}, [](const std::string&) -> std::unique_ptr<sasl_server> {
        return std::make_unique<plain_server>([](const std::string& u) -> std::optional<std::string> {
          if (u == "alice") return std::string("alice-secret");
          return std::nullopt;
        });
      });
      const std::string_view token = input.substr(std::min<size_t>(8, input.size()));
      std::string why;
      for (char c : input.substr(0, 8)) {
        if (!s.admit(static_cast<int16_t>(c), &why)) break;
        if (c == 17) s.handshake("PLAIN", 1);
        if (c == 36) s.authenticate(bytes(token));
      }
      check(!s.authenticated() ||
            (s.principal().name() == "alice" && token.find("alice-secret") != std::string_view::npos));
      break;
    }
    case 6: {
      // A client-first message (and, after the first NUL, a second
      // message) against unsecured tokens checked at a fixed time.
      namespace oauth = hw::protocol::oauthbearer;
      oauthbearer_server server([](std::string_view token) {
        return oauth::validate_unsecured(token, oauth::unsecured_validator_options{}, 1'700'000'000'000);
      });
      const size_t nul = input.find('\0');
      sasl_step first = server.evaluate(bytes(input.substr(0, nul)));
      if (!first.failed && !server.complete() && nul != std::string_view::npos)
        server.evaluate(bytes(input.substr(nul + 1)));
      // Whoever logs in is named by an unexpired token's claim.
      check(!server.complete() || (!server.user().empty() && *server.credential_expiry_ms() > 1'700'000'000'000));
      break;
    }
    case 7: {
      // A key set (up to the first NUL) and a token (the rest): no key set
      // of random bytes verifies a random signature.
      namespace jws = hw::protocol::jws;
      const size_t nul = input.find('\0');
      auto keys = jws::parse_key_set(input.substr(0, nul));
      const std::string_view token = nul == std::string_view::npos ? input : input.substr(nul + 1);
      jws::key_set none;
      auto out = jws::validate(token, none, jws::validator_options{}, 1'700'000'000'000);
      check(std::holds_alternative<hw::protocol::oauthbearer::token_failure>(out.result));
      if (auto* set = std::get_if<jws::key_set>(&keys)) jws::validate(token, *set, jws::validator_options{}, 0);
      break;
    }
    case 8: {
      namespace oauth = hw::protocol::oauthbearer;
      auto decoded = oauth::base64url_decode(input);
      if (decoded) check(oauth::base64url_decode(oauth::base64url_encode(*decoded)) == decoded);
      oauth::parse_json_object(input);
      oauth::parse_client_first(input);
      break;
    }
  }
  return 0;
}
