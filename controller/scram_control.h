#pragma once
// SCRAM control: the SCRAM credentials of the image (KIP-554), written by
// UserScramCredentialRecord and RemoveUserScramCredentialRecord, and
// AlterUserScramCredentials as Kafka's ScramControlManager answers it.
//
// Per user (not per mechanism) one change a request: a user named twice,
// in deletions or upsertions or both, gets DUPLICATE_RESOURCE and nothing
// of it is written. An empty name is UNACCEPTABLE_CREDENTIAL, a mechanism
// other than SCRAM-SHA-256 (1) and SCRAM-SHA-512 (2) is
// UNSUPPORTED_SASL_MECHANISM, iterations outside [4096, 16384] are
// UNACCEPTABLE_CREDENTIAL, deleting a credential the image does not hold is
// RESOURCE_NOT_FOUND, and below metadata.version 3.5-IV2 every user gets
// UNSUPPORTED_VERSION. Users are independent: the valid ones are written
// even when others are refused.
//
// The client sends the salt and the salted password (it ran PBKDF2); the
// stored and server keys are derived here (protocol/sasl/scram.h, OpenSSL),
// so the password never leaves the client and the salted password never
// reaches the log. Messages never carry a secret.
//
// Results: deletions, then upsertions, then refusals, each by user name.
// (Kafka lists each group in its HashMap's order, which a client cannot
// rely on.)
//
// Owner: the controller strand, through quorum_controller. Stateless
// beyond the image it is handed.

#include "controller/controller_result.h"
#include "controller/metadata/image.h"
#include "protocol/messages/alter_user_scram_credentials.h"

namespace hw::controller {

class scram_control {
 public:
  static constexpr int32_t max_iterations = 16384;  // Kafka's ScramControlManager.MAX_ITERATIONS

  static controller_result<msg::alter_user_scram_credentials_response> alter_credentials(
      const metadata_image& image, const msg::alter_user_scram_credentials_request& request);
};

}  // namespace hw::controller
