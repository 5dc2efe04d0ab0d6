// scram_credential_store: an atomic pointer to an immutable table.
#include "broker/security/scram_credential_store.h"

#include <utility>

namespace hw::broker {

scram_credential_store::scram_credential_store()
    : table_(std::make_shared<const protocol::scram_credential_table>()) {}

std::optional<scram_credential> scram_credential_store::find(scram_mechanism mechanism,
                                                             const std::string& user) const {
  const auto table = table_.load();
  auto users = table->find(mechanism);
  if (users == table->end()) return std::nullopt;
  auto it = users->second.find(user);
  if (it == users->second.end()) return std::nullopt;
  return it->second;
}

void scram_credential_store::update(protocol::scram_credential_table table) {
  table_.store(std::make_shared<const protocol::scram_credential_table>(std::move(table)));
}

}  // namespace hw::broker
