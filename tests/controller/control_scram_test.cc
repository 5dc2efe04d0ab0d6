// scram_control: AlterUserScramCredentials as Kafka's ScramControlManager
// answers it (codes and texts of every refusal), the records it generates,
// and that replaying them is what the next request and Describe see.

#include <gtest/gtest.h>

#include "controller/feature_control.h"
#include "controller/metadata/delta.h"
#include "controller/metadata/image_records.h"
#include "controller/scram_control.h"
#include "protocol/sasl/scram.h"

namespace hw::controller {
namespace {

using protocol::scram_mechanism;
using request = msg::alter_user_scram_credentials_request;
using response = msg::alter_user_scram_credentials_response;
namespace scram = protocol::scram;

constexpr int8_t sha256 = 1;
constexpr int8_t sha512 = 2;

std::shared_ptr<const metadata_image> image_at(metadata_version mv) {
  std::string error;
  auto image = replay_all(std::make_shared<const metadata_image>(), feature_control::bootstrap_records(mv, 1),
                          storage::offset(0), leader_epoch(1), &error);
  EXPECT_TRUE(image) << error;
  return image;
}

struct scram_harness {
  std::shared_ptr<const metadata_image> image = image_at(latest_production_metadata_version);

  response alter(const request& r) {
    auto result = scram_control::alter_credentials(*image, r);
    std::string error;
    auto next = replay_all(image, result.records, storage::offset(100), leader_epoch(1), &error);
    EXPECT_TRUE(next) << error;
    if (next) image = next;
    return result.response;
  }
};

request::scram_credential_upsertion upsert(const std::string& name, int8_t mechanism, int32_t iterations,
                                           const std::string& password = "secret") {
  request::scram_credential_upsertion u;
  u.name = name;
  u.mechanism = mechanism;
  u.iterations = iterations;
  u.salt = {'s', 'a', 'l', 't', 'y'};
  if (auto m = protocol::scram_mechanism_from_type(mechanism))
    u.salted_password = scram::salted_password(*m, password, u.salt, iterations);
  else
    u.salted_password = {1, 2, 3};
  return u;
}

request::scram_credential_deletion del(const std::string& name, int8_t mechanism) {
  request::scram_credential_deletion d;
  d.name = name;
  d.mechanism = mechanism;
  return d;
}

// (user, code, message) per result, in the response's order.
struct outcome {
  std::string user;
  error_code code;
  std::optional<std::string> message;
  bool operator==(const outcome&) const = default;
};
std::ostream& operator<<(std::ostream& os, const outcome& o) {
  return os << o.user << ":" << static_cast<int>(o.code) << ":" << o.message.value_or("null");
}
std::vector<outcome> outcomes(const response& r) {
  std::vector<outcome> out;
  for (const auto& x : r.results) out.push_back({x.user, static_cast<error_code>(x.error_code), x.error_message});
  return out;
}

TEST(ScramControl, UpsertionStoresTheKeysDerivedFromTheSaltedPassword) {
  scram_harness h;
  request r;
  r.upsertions = {upsert("alice", sha256, 8192, "alice-secret"), upsert("bob", sha512, 4096, "bob-secret")};
  auto result = scram_control::alter_credentials(*h.image, r);
  ASSERT_EQ(result.records.size(), 2u);
  // Nothing changes until the records are replayed.
  EXPECT_TRUE(h.image->scram.empty());
  EXPECT_EQ(outcomes(result.response),
            (std::vector<outcome>{{"alice", error_code::none, std::nullopt}, {"bob", error_code::none, std::nullopt}}));
  h.alter(r);
  const auto* alice = h.image->scram_credential(scram_mechanism::sha256, "alice");
  ASSERT_TRUE(alice);
  // What a login with the password checks against: the same credential
  // as one made from the password itself.
  EXPECT_EQ(*alice, scram::make_credential(scram_mechanism::sha256, "alice-secret", r.upsertions[0].salt, 8192));
  const auto* bob = h.image->scram_credential(scram_mechanism::sha512, "bob");
  ASSERT_TRUE(bob);
  EXPECT_EQ(*bob, scram::make_credential(scram_mechanism::sha512, "bob-secret", r.upsertions[1].salt, 4096));
  EXPECT_FALSE(h.image->scram_credential(scram_mechanism::sha512, "alice"));
  // The records carry no salted password: only salt, keys and iterations.
  auto* record = std::get_if<msg::user_scram_credential_record>(&result.records[0]);
  ASSERT_TRUE(record);
  EXPECT_NE(record->stored_key, r.upsertions[0].salted_password);
  EXPECT_NE(record->server_key, r.upsertions[0].salted_password);
}

TEST(ScramControl, DeletionRemovesOneMechanismAndAnUnknownOneIsNotFound) {
  scram_harness h;
  request add;
  add.upsertions = {upsert("alice", sha256, 4096)};
  h.alter(add);
  add.upsertions = {upsert("alice", sha512, 4096)};
  h.alter(add);
  request r;
  r.deletions = {del("alice", sha512), del("bob", sha256)};
  EXPECT_EQ(outcomes(h.alter(r)),
            (std::vector<outcome>{
                {"alice", error_code::none, std::nullopt},
                {"bob", error_code::resource_not_found, "Attempt to delete a user credential that does not exist"}}));
  EXPECT_TRUE(h.image->scram_credential(scram_mechanism::sha256, "alice"));
  EXPECT_FALSE(h.image->scram_credential(scram_mechanism::sha512, "alice"));
  // The mechanism already deleted is not found the second time.
  r.deletions = {del("alice", sha512)};
  EXPECT_EQ(outcomes(h.alter(r)),
            (std::vector<outcome>{{"alice", error_code::resource_not_found,
                                   "Attempt to delete a user credential that does not exist"}}));
}

TEST(ScramControl, RefusalsCarryKafkasCodesAndTexts) {
  scram_harness h;
  request r;
  r.upsertions = {upsert("", sha256, 4096),        upsert("unknown", 0, 4096), upsert("three", 3, 4096),
                  upsert("few", sha256, 4095),     upsert("many", sha512, 16385), upsert("min", sha256, 4096),
                  upsert("max", sha512, 16384)};
  r.deletions = {del("", sha256), del("nomech", 7)};
  EXPECT_EQ(outcomes(h.alter(r)),
            (std::vector<outcome>{
                {"max", error_code::none, std::nullopt},
                {"min", error_code::none, std::nullopt},
                {"", error_code::unacceptable_credential, "Username must not be empty"},
                {"few", error_code::unacceptable_credential, "Too few iterations"},
                {"many", error_code::unacceptable_credential, "Too many iterations"},
                {"nomech", error_code::unsupported_sasl_mechanism, "Unknown SCRAM mechanism"},
                {"three", error_code::unsupported_sasl_mechanism, "Unknown SCRAM mechanism"},
                {"unknown", error_code::unsupported_sasl_mechanism, "Unknown SCRAM mechanism"},
            }));
  EXPECT_EQ(h.image->scram_credential(scram_mechanism::sha256, "min")->iterations, 4096);
  EXPECT_EQ(h.image->scram_credential(scram_mechanism::sha512, "max")->iterations, 16384);
  EXPECT_FALSE(h.image->scram_credential(scram_mechanism::sha256, "few"));
}

TEST(ScramControl, AUserTwiceInOneRequestIsADuplicateAndNothingOfItIsWritten) {
  scram_harness h;
  request add;
  add.upsertions = {upsert("alice", sha256, 4096), upsert("bob", sha256, 4096)};
  h.alter(add);
  const std::string twice = "A user credential cannot be altered twice in the same request";
  request r;
  // Deleted and upserted (even another mechanism), upserted twice, deleted twice.
  r.deletions = {del("alice", sha256), del("bob", sha256), del("bob", sha512)};
  r.upsertions = {upsert("alice", sha512, 4096), upsert("carol", sha256, 4096), upsert("carol", sha512, 4096),
                  upsert("carol", sha256, 8192)};
  auto result = scram_control::alter_credentials(*h.image, r);
  EXPECT_TRUE(result.records.empty());
  EXPECT_EQ(outcomes(result.response), (std::vector<outcome>{{"alice", error_code::duplicate_resource, twice},
                                                             {"bob", error_code::duplicate_resource, twice},
                                                             {"carol", error_code::duplicate_resource, twice}}));
  // A user refused first keeps that refusal: later mentions add nothing.
  r.deletions = {del("dave", sha256)};
  r.upsertions = {upsert("dave", sha256, 4096)};
  EXPECT_EQ(outcomes(scram_control::alter_credentials(*h.image, r).response),
            (std::vector<outcome>{{"dave", error_code::resource_not_found,
                                   "Attempt to delete a user credential that does not exist"}}));
}

TEST(ScramControl, BeforeMetadataVersion35Iv2EveryUserIsUnsupported) {
  scram_harness h;
  h.image = image_at(metadata_version{10});  // 3.5-IV1
  request r;
  r.upsertions = {upsert("alice", sha256, 4096)};
  r.deletions = {del("bob", sha256)};
  auto result = scram_control::alter_credentials(*h.image, r);
  EXPECT_TRUE(result.records.empty());
  const std::string text = "The current metadata.version does not support SCRAM";
  EXPECT_EQ(outcomes(result.response), (std::vector<outcome>{{"alice", error_code::unsupported_version, text},
                                                             {"bob", error_code::unsupported_version, text}}));
  h.image = image_at(metadata_version{11});  // 3.5-IV2
  EXPECT_EQ(scram_control::alter_credentials(*h.image, r).records.size(), 1u);
}

TEST(ScramControl, CredentialsSurviveASnapshot) {
  scram_harness h;
  request r;
  r.upsertions = {upsert("alice", sha256, 8192), upsert("bob", sha512, 4096)};
  h.alter(r);
  r.upsertions = {upsert("alice", sha512, 5000)};
  h.alter(r);
  std::string error;
  auto rebuilt = image_from_record_values(image_record_values(*h.image), storage::offset(100), leader_epoch(1), &error);
  ASSERT_TRUE(rebuilt) << error;
  EXPECT_EQ(rebuilt->scram, h.image->scram);
  EXPECT_EQ(rebuilt->scram_credential(scram_mechanism::sha512, "alice")->iterations, 5000);
}

}  // namespace
}  // namespace hw::controller
