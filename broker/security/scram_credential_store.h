#pragma once
// The SCRAM credentials the SASL servers check logins against: the metadata
// image's (UserScramCredentialRecord, KIP-554), as an immutable table
// swapped whole when the metadata publisher applies a batch that changed
// it. Readers on any strand take the current table with one atomic load
// and keep it as long as they look; the publisher's strand is the only
// writer.
//
// Owner: the metadata publisher (update); any thread (find).

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "broker/security/scram.h"

namespace hw::broker {

class scram_credential_store {
 public:
  scram_credential_store();

  // The credential of `user` for `mechanism`, none when it has none.
  std::optional<scram_credential> find(scram_mechanism mechanism, const std::string& user) const;
  // The whole table, as of the last update.
  std::shared_ptr<const protocol::scram_credential_table> snapshot() const { return table_.load(); }

  // Replaces the table (the publisher's strand).
  void update(protocol::scram_credential_table table);

 private:
  std::atomic<std::shared_ptr<const protocol::scram_credential_table>> table_;
};

}  // namespace hw::broker
