// kafka-storage.sh format --add-scram: Kafka's ScramParser forms and
// refusals (messages checked against Kafka 4.3.1's StorageTool), the
// records derived through protocol/sasl/scram.h, the bootstrap line with
// the keys redacted, and bootstrap.checkpoint as the controller reads it
// (Kafka's own file of the same arguments: tests/controller/fixtures/).

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "controller/bootstrap_metadata.h"
#include "protocol/sasl/scram.h"
#include "tools/commands/storage_scram.h"
#include "tools/commands/storage_tool.h"

namespace hw::tools {
namespace {

using protocol::scram_mechanism;
using record = protocol::msg::user_scram_credential_record;

std::string refusal(const std::string& argument) {
  std::vector<record> out;
  std::string error;
  EXPECT_FALSE(scram_records({argument}, &out, &error)) << argument;
  return error;
}

record one(const std::string& argument) {
  std::vector<record> out;
  std::string error;
  EXPECT_TRUE(scram_records({argument}, &out, &error)) << argument << ": " << error;
  return out.empty() ? record{} : out.front();
}

std::vector<uint8_t> bytes(std::string_view s) { return {s.begin(), s.end()}; }

TEST(StorageScram, PasswordFormDerivesTheKeysWithARandomSaltAndKafkasDefaultIterations) {
  const record a = one("SCRAM-SHA-256=[name=alice,password=alice-secret]");
  EXPECT_EQ(a.name, "alice");
  EXPECT_EQ(a.mechanism, 1);
  EXPECT_EQ(a.iterations, 4096);
  ASSERT_FALSE(a.salt.empty());
  const auto expected = protocol::scram::make_credential(scram_mechanism::sha256, "alice-secret", a.salt, 4096);
  EXPECT_EQ(a.stored_key, expected.stored_key);
  EXPECT_EQ(a.server_key, expected.server_key);
  // A fresh salt each time.
  EXPECT_NE(one("SCRAM-SHA-256=[name=alice,password=alice-secret]").salt, a.salt);
}

TEST(StorageScram, SaltIterationsAndQuotedValues) {
  const record c = one("SCRAM-SHA-512=[name=carol,iterations=8192,salt=\"N3E=\",password=\"pw\"]");
  EXPECT_EQ(c.mechanism, 2);
  EXPECT_EQ(c.iterations, 8192);
  EXPECT_EQ(c.salt, (std::vector<uint8_t>{55, 113}));
  EXPECT_EQ(c.stored_key, protocol::scram::make_credential(scram_mechanism::sha512, "pw", c.salt, 8192).stored_key);
  // Java's decoder takes base64 without its padding; the last of a key wins.
  const record d = one("SCRAM-SHA-256=[name=x,name=dave,salt=N3E,password=p]");
  EXPECT_EQ(d.name, "dave");
  EXPECT_EQ(d.salt, (std::vector<uint8_t>{55, 113}));
  // password wins over saltedpassword when both are there.
  const record e = one("SCRAM-SHA-256=[name=e,salt=N3E=,password=p,saltedpassword=YCE=]");
  EXPECT_EQ(e.stored_key, protocol::scram::make_credential(scram_mechanism::sha256, "p", e.salt, 4096).stored_key);
  // The bounds are inclusive.
  EXPECT_EQ(one("SCRAM-SHA-256=[name=f,iterations=16384,password=p]").iterations, 16384);
}

TEST(StorageScram, SaltedPasswordFormTakesTheKeysFromIt) {
  const record b = one("SCRAM-SHA-512=[name=bob,iterations=8192,salt=\"N3E=\",saltedpassword=\"YCE=\"]");
  const auto expected =
      protocol::scram::credential_from_salted(scram_mechanism::sha512, std::vector<uint8_t>{0x60, 0x21},
                                              std::vector<uint8_t>{55, 113}, 8192);
  EXPECT_EQ(b.salt, expected.salt);
  EXPECT_EQ(b.stored_key, expected.stored_key);
  EXPECT_EQ(b.server_key, expected.server_key);
}

TEST(StorageScram, RefusalsWithKafkasMessages) {
  EXPECT_EQ(refusal("SCRAM-SHA-256"), "Failed to find equals sign in SCRAM argument 'SCRAM-SHA-256'");
  EXPECT_EQ(refusal(" SCRAM-SHA-256 "), "Failed to find equals sign in SCRAM argument 'SCRAM-SHA-256'");
  EXPECT_EQ(refusal("SCRAM-SHA-1=[name=a,password=b]"), "The add-scram mechanism SCRAM-SHA-1 is not supported.");
  EXPECT_EQ(refusal("scram-sha-256=[name=a,password=b]"), "The add-scram mechanism scram-sha-256 is not supported.");
  EXPECT_EQ(refusal("SCRAM-SHA-256=name=a,password=b]"), "Expected configuration string to start with [");
  EXPECT_EQ(refusal("SCRAM-SHA-256=[name=a,password=b"), "Expected configuration string to end with ]");
  EXPECT_EQ(refusal("SCRAM-SHA-256=[name=a,password=b],  "), "Expected configuration string to end with ]");
  EXPECT_EQ(refusal("SCRAM-SHA-256=[password=b]"), "You must supply 'name' to add-scram");
  EXPECT_EQ(refusal("SCRAM-SHA-256=[,]"), "You must supply 'name' to add-scram");
  EXPECT_EQ(refusal("SCRAM-SHA-256=[name=a]"), "You must supply one of 'password' or 'saltedpassword' to add-scram");
  EXPECT_EQ(refusal("SCRAM-SHA-256=[name=a,saltedpassword=YCE=]"),
            "You must supply 'salt' with 'saltedpassword' to add-scram");
  EXPECT_EQ(refusal("SCRAM-SHA-256=[name=a,salt=%%%,password=b]"), "Failed to decode given salt: %%%");
  EXPECT_EQ(refusal("SCRAM-SHA-256=[name=a,salt=N3=,password=b]"), "Failed to decode given salt: N3=");
  EXPECT_EQ(refusal("SCRAM-SHA-256=[name=a,iterations=x1,password=b]"), "Failed to parse iterations count: x1");
  EXPECT_EQ(refusal("SCRAM-SHA-256=[name=a,iterations=100,password=b]"),
            "The 'iterations' value must be >= 4096 for add-scram using SCRAM_SHA_256");
  EXPECT_EQ(refusal("SCRAM-SHA-512=[name=a,iterations=20000,password=b]"),
            "The 'iterations' value must be <= 16384 for add-scram using SCRAM_SHA_512");
  EXPECT_EQ(refusal("SCRAM-SHA-256=[name=a,password=b,foo=1,bar=2]"), "Unknown SCRAM configurations: bar, foo");
  EXPECT_EQ(refusal("SCRAM-SHA-256=[name=a,,password=b]"), "No equals sign found in SCRAM component: ");
  EXPECT_EQ(refusal("SCRAM-SHA-256=[]"), "No equals sign found in SCRAM component: ");
  // The split at commas comes before any unquoting.
  EXPECT_EQ(refusal("SCRAM-SHA-256=[name=a,password=\"b,b\"]"), "No equals sign found in SCRAM component: b\"");
}

TEST(StorageScram, AnUndecodableSaltedPasswordIsNotQuoted) {
  // Kafka prints the value ("Failed to decode given saltedPassword: ...").
  const std::string error = refusal("SCRAM-SHA-256=[name=a,salt=N3E=,saltedpassword=@@secret@@]");
  EXPECT_EQ(error, "Failed to decode given saltedPassword");
  EXPECT_EQ(error.find("secret"), std::string::npos);
}

TEST(StorageScram, TheFirstBadArgumentStopsTheRest) {
  std::vector<record> out;
  std::string error;
  EXPECT_FALSE(scram_records({"SCRAM-SHA-256=[name=a,iterations=1,password=b]", "nonsense"}, &out, &error));
  EXPECT_EQ(error, "The 'iterations' value must be >= 4096 for add-scram using SCRAM_SHA_256");
}

TEST(StorageScram, BootstrapLineShowsTheSaltButNoKey) {
  const record b = one("SCRAM-SHA-512=[name=bob,iterations=8192,salt=\"N3E=\",saltedpassword=\"YCE=\"]");
  const std::string line = bootstrap_metadata_string(30, {{"group.version", 1}}, {b});
  EXPECT_EQ(line,
            "BootstrapMetadata(records=[ApiMessageAndVersion(FeatureLevelRecord(name='metadata.version', featureLevel=30) "
            "at version 0), ApiMessageAndVersion(FeatureLevelRecord(name='group.version', featureLevel=1) at version 0), "
            "ApiMessageAndVersion(UserScramCredentialRecord(name='bob', mechanism=2, salt=[55, 113], "
            "storedKey=[redacted], serverKey=[redacted], iterations=8192) at version 0)], metadataVersionLevel=30, "
            "source=format command)");
  const record a = one("SCRAM-SHA-256=[name=a,password=p]");
  EXPECT_NE(scram_record_string(a).find("salt=["), std::string::npos);
  EXPECT_EQ(scram_record_string(a).find(std::to_string(static_cast<int8_t>(a.stored_key[0])) + ", " +
                                        std::to_string(static_cast<int8_t>(a.stored_key[1]))),
            std::string::npos);
}

// Kafka 4.3.1's bootstrap.checkpoint of
//   --add-scram 'SCRAM-SHA-256=[name=alice,password=alice-secret]'
//   -S 'SCRAM-SHA-512=[name=bob,iterations=8192,salt="N3E=",saltedpassword="YCE="]'
const std::string k_kafka_bootstrap =
    std::string(HW_SOURCE_DIR) + "/tests/controller/fixtures/kafka_4_3_1_bootstrap/bootstrap.checkpoint";

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(StorageScram, KafkasBootstrapFileHoldsTheCredentialsTheParserMakes) {
  const auto kafka = read_file(k_kafka_bootstrap);
  ASSERT_FALSE(kafka.empty());
  controller::bootstrap_metadata m;
  std::string error;
  ASSERT_TRUE(controller::decode_bootstrap_metadata(kafka, "fixture", &m, &error)) << error;
  EXPECT_EQ(m.features.at("metadata.version"), 30);
  ASSERT_EQ(m.scram.size(), 2u);
  // alice's random salt is Kafka's; the keys are what our PBKDF2 makes of it.
  const record& alice = m.scram[0];
  EXPECT_EQ(alice.name, "alice");
  EXPECT_EQ(alice.iterations, 4096);
  const auto a = protocol::scram::make_credential(scram_mechanism::sha256, "alice-secret", alice.salt, 4096);
  EXPECT_EQ(alice.stored_key, a.stored_key);
  EXPECT_EQ(alice.server_key, a.server_key);
  const record bob = one("SCRAM-SHA-512=[name=bob,iterations=8192,salt=\"N3E=\",saltedpassword=\"YCE=\"]");
  EXPECT_EQ(m.scram[1], bob);

  // Our file of the same records and Kafka's feature levels: the same
  // records in the same layout (only the clock in the batches differs).
  const std::map<std::string, int16_t> kafka_features{{"eligible.leader.replicas.version", 1}, {"group.version", 1},
                                                      {"share.version", 1},   {"streams.version", 1},
                                                      {"transaction.version", 2}, {"kraft.version", 0}};
  const auto ours = bootstrap_file_bytes(30, kafka_features, {alice, bob}, 1'700'000'000'000);
  EXPECT_EQ(ours.size(), kafka.size());
  controller::bootstrap_metadata back;
  ASSERT_TRUE(controller::decode_bootstrap_metadata(ours, "ours", &back, &error)) << error;
  EXPECT_EQ(back.features, m.features);
  EXPECT_EQ(back.scram, m.scram);
  EXPECT_TRUE(back.other_records.empty());
}

}  // namespace
}  // namespace hw::tools
