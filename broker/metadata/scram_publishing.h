#pragma once
// The metadata publisher's part for SCRAM logins: after a batch is
// replayed, a batch that added, replaced or removed a credential (or a
// snapshot, which replaces the whole image) hands the new image's
// credentials to the store the SASL servers read; any other batch leaves
// the store's table as it was. Here rather than inside the publisher so
// that a unit test drives it with replayed records.

#include "broker/security/scram_credential_store.h"
#include "controller/metadata/delta.h"
#include "controller/metadata/image.h"

namespace hw::broker {

// True when the store was updated.
inline bool publish_scram_credentials(const controller::metadata_delta& delta, bool snapshot,
                                      const controller::metadata_image& after, scram_credential_store& store) {
  if (!delta.scram_changed() && !snapshot) return false;
  store.update(after.scram);
  return true;
}

}  // namespace hw::broker
