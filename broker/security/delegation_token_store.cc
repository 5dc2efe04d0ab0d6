#include "broker/security/delegation_token_store.h"

#include "controller/delegation_token_control.h"

namespace hw::broker {

delegation_token_store::delegation_token_store(std::optional<std::string> secret_key)
    : secret_(secret_key && !secret_key->empty() ? std::move(secret_key) : std::nullopt),
      table_(std::make_shared<const table>()) {}

std::optional<scram_server::token_login> delegation_token_store::login(scram_mechanism mechanism,
                                                                       const std::string& token_id) const {
  const auto current = table_.load();
  auto it = current->find(token_id);
  if (it == current->end()) return std::nullopt;
  auto c = it->second.credentials.find(mechanism);
  if (c == it->second.credentials.end()) return std::nullopt;
  // The owner's name (the principal's type is User, as Kafka's token
  // logins are).
  const std::string& owner = it->second.info.owner;
  const size_t colon = owner.find(':');
  return scram_server::token_login{c->second, colon == std::string::npos ? owner : owner.substr(colon + 1),
                                   it->second.info.expiry_ms};
}

void delegation_token_store::update(const std::map<std::string, controller::delegation_token, std::less<>>& tokens) {
  if (!secret_) return;
  const auto before = table_.load();
  auto next = std::make_shared<table>();
  for (const auto& [id, info] : tokens) {
    auto old = before->find(id);
    if (old != before->end()) {
      entry kept = old->second;
      kept.info = info;  // a renewal changes the expiry only
      next->emplace(id, std::move(kept));
      continue;
    }
    entry e;
    e.info = info;
    e.hmac = controller::delegation_token_hmac(*secret_, id);
    const std::string password = scram::base64(e.hmac);
    for (scram_mechanism m : {scram_mechanism::sha256, scram_mechanism::sha512})
      e.credentials.emplace(m, scram::make_credential(m, password, scram_min_iterations));
    next->emplace(id, std::move(e));
  }
  table_.store(std::move(next));
}

}  // namespace hw::broker
