// delegation_token_control: CreateDelegationToken, RenewDelegationToken and
// ExpireDelegationToken as Kafka's DelegationTokenControlManager answers
// them (every refusal's code), the records they generate, the HMAC (HMAC-SHA512
// of the id under the secret) that names a token afterwards, the sweep of
// expired tokens, and that replaying the records is what the next request
// and a snapshot see.

#include <gtest/gtest.h>

#include "controller/delegation_token_control.h"
#include "controller/feature_control.h"
#include "controller/metadata/delta.h"
#include "controller/metadata/image_records.h"
#include "protocol/sasl/scram.h"

namespace hw::controller {
namespace {

constexpr int64_t k_now = 1'700'000'000'000;
constexpr int64_t k_day = 24LL * 3600 * 1000;

std::shared_ptr<const metadata_image> image_at(metadata_version mv) {
  std::string error;
  auto image = replay_all(std::make_shared<const metadata_image>(), feature_control::bootstrap_records(mv, 1),
                          storage::offset(0), leader_epoch(1), &error);
  EXPECT_TRUE(image) << error;
  return image;
}

struct harness {
  delegation_token_control control{delegation_token_settings{"the-secret", 7 * k_day, k_day}};
  std::shared_ptr<const metadata_image> image = image_at(latest_production_metadata_version);

  template <class R>
  R apply(controller_result<R> result) {
    std::string error;
    auto next = replay_all(image, result.records, storage::offset(100), leader_epoch(1), &error);
    EXPECT_TRUE(next) << error;
    if (next) image = next;
    return result.response;
  }
  msg::create_delegation_token_response create(msg::create_delegation_token_request r, int64_t now = k_now,
                                               const std::string& requester = "alice") {
    return apply(control.create(*image, r, "User", requester, now));
  }
  msg::renew_delegation_token_response renew(const std::vector<uint8_t>& hmac, int64_t period, int64_t now,
                                             const std::string& who = "User:alice") {
    msg::renew_delegation_token_request r;
    r.hmac = hmac;
    r.renew_period_ms = period;
    return apply(control.renew(*image, r, who, now));
  }
  msg::expire_delegation_token_response expire(const std::vector<uint8_t>& hmac, int64_t period, int64_t now,
                                               const std::string& who = "User:alice") {
    msg::expire_delegation_token_request r;
    r.hmac = hmac;
    r.expiry_time_period_ms = period;
    return apply(control.expire(*image, r, who, now));
  }
};

msg::create_delegation_token_request with_renewers(std::vector<std::pair<std::string, std::string>> renewers,
                                                   int64_t max_life = -1) {
  msg::create_delegation_token_request r;
  for (auto& [type, name] : renewers) {
    auto& x = r.renewers.emplace_back();
    x.principal_type = type;
    x.principal_name = name;
  }
  r.max_lifetime_ms = max_life;
  return r;
}

TEST(DelegationTokenControl, CreateWritesTheTokenAndAnswersItsHmac) {
  harness h;
  auto r = h.create(with_renewers({{"User", "bob"}}));
  ASSERT_EQ(r.error_code, 0);
  EXPECT_EQ(r.principal_type, "User");
  EXPECT_EQ(r.principal_name, "alice");
  EXPECT_EQ(r.token_requester_principal_name, "alice");
  EXPECT_EQ(r.issue_timestamp_ms, k_now);
  EXPECT_EQ(r.expiry_timestamp_ms, k_now + k_day);
  EXPECT_EQ(r.max_timestamp_ms, k_now + 7 * k_day);
  EXPECT_EQ(r.token_id.size(), 22u);  // a uuid's text
  EXPECT_EQ(r.hmac, delegation_token_hmac("the-secret", r.token_id));
  EXPECT_EQ(r.hmac.size(), 64u);
  const auto& t = h.image->delegation_tokens.at(r.token_id);
  EXPECT_EQ(t.owner, "User:alice");
  EXPECT_EQ(t.requester, "User:alice");
  EXPECT_EQ(t.renewers, std::vector<std::string>{"User:bob"});
  // A shorter life asked for is kept; the expiry never passes the maximum.
  auto short_lived = h.create(with_renewers({}, 3600'000));
  EXPECT_EQ(short_lived.max_timestamp_ms, k_now + 3600'000);
  EXPECT_EQ(short_lived.expiry_timestamp_ms, k_now + 3600'000);
  // Another owner (KIP-373: the broker checked CREATE_TOKENS).
  msg::create_delegation_token_request other;
  other.owner_principal_type = "User";
  other.owner_principal_name = "carol";
  auto theirs = h.create(other);
  EXPECT_EQ(theirs.principal_name, "carol");
  EXPECT_EQ(h.image->delegation_tokens.at(theirs.token_id).owner, "User:carol");
  EXPECT_EQ(h.image->delegation_tokens.at(theirs.token_id).requester, "User:alice");
  // A snapshot holds the tokens.
  std::string error;
  auto reloaded = replay_all(std::make_shared<const metadata_image>(), image_records(*h.image), storage::offset(0),
                             leader_epoch(1), &error);
  ASSERT_TRUE(reloaded) << error;
  EXPECT_EQ(reloaded->delegation_tokens, h.image->delegation_tokens);
}

TEST(DelegationTokenControl, Refusals) {
  harness h;
  EXPECT_EQ(h.create(with_renewers({{"Group", "x"}})).error_code,
            static_cast<int16_t>(error_code::invalid_principal_type));
  EXPECT_TRUE(h.image->delegation_tokens.empty());
  delegation_token_control disabled{delegation_token_settings{std::nullopt, k_day, k_day}};
  EXPECT_EQ(disabled.create(*h.image, {}, "User", "alice", k_now).response.error_code,
            static_cast<int16_t>(error_code::delegation_token_auth_disabled));
  // Below metadata.version 3.6-IV2.
  harness old;
  old.image = image_at(metadata_version{13});
  EXPECT_EQ(old.create({}).error_code, static_cast<int16_t>(error_code::unsupported_version));
  // An HMAC of no token; a wrong secret's HMAC of a real id.
  auto made = h.create({});
  EXPECT_EQ(h.renew(std::vector<uint8_t>(64, 1), -1, k_now).error_code,
            static_cast<int16_t>(error_code::delegation_token_not_found));
  EXPECT_EQ(h.renew(delegation_token_hmac("other", made.token_id), -1, k_now).error_code,
            static_cast<int16_t>(error_code::delegation_token_not_found));
  // Neither owner nor renewer.
  EXPECT_EQ(h.renew(made.hmac, -1, k_now, "User:mallory").error_code,
            static_cast<int16_t>(error_code::delegation_token_owner_mismatch));
  EXPECT_EQ(h.expire(made.hmac, -1, k_now, "User:mallory").error_code,
            static_cast<int16_t>(error_code::delegation_token_owner_mismatch));
  // Past its expiry.
  EXPECT_EQ(h.renew(made.hmac, -1, k_now + k_day + 1).error_code,
            static_cast<int16_t>(error_code::delegation_token_expired));
  EXPECT_EQ(h.expire(made.hmac, 1000, k_now + k_day + 1).error_code,
            static_cast<int16_t>(error_code::delegation_token_expired));
}

TEST(DelegationTokenControl, RenewAndExpireMoveTheExpiry) {
  harness h;
  auto made = h.create(with_renewers({{"User", "bob"}}));
  // A renewer renews, up to delegation.token.expiry.time.ms from now.
  auto renewed = h.renew(made.hmac, 2 * k_day, k_now + 1000, "User:bob");
  EXPECT_EQ(renewed.error_code, 0);
  EXPECT_EQ(renewed.expiry_timestamp_ms, k_now + 1000 + k_day);
  EXPECT_EQ(h.image->delegation_tokens.at(made.token_id).expiry_ms, k_now + 1000 + k_day);
  // Never past the maximum.
  auto brief = h.create(with_renewers({}, k_day + k_day / 2));
  auto capped = h.renew(brief.hmac, -1, k_now + k_day - 1);
  EXPECT_EQ(capped.error_code, 0);
  EXPECT_EQ(capped.expiry_timestamp_ms, k_now + k_day + k_day / 2);
  // Expire later: a new expiry; at once: the token is gone.
  auto sooner = h.expire(made.hmac, 5000, k_now + 2000);
  EXPECT_EQ(sooner.expiry_timestamp_ms, k_now + 7000);
  auto gone = h.expire(made.hmac, -1, k_now + 3000);
  EXPECT_EQ(gone.error_code, 0);
  EXPECT_EQ(gone.expiry_timestamp_ms, k_now + 3000);
  EXPECT_FALSE(h.image->delegation_tokens.contains(made.token_id));
  EXPECT_TRUE(h.image->delegation_tokens.contains(brief.token_id));
}

TEST(DelegationTokenControl, SweepRemovesExpiredTokensOnly) {
  harness h;
  auto soon = h.create(with_renewers({}, 1000));
  auto later = h.create({});
  EXPECT_TRUE(h.control.sweep(*h.image, k_now + 1000).empty());  // expiring at, not before
  auto removals = h.control.sweep(*h.image, k_now + 1001);
  ASSERT_EQ(removals.size(), 1u);
  std::string error;
  auto next = replay_all(h.image, removals, storage::offset(200), leader_epoch(1), &error);
  ASSERT_TRUE(next) << error;
  EXPECT_FALSE(next->delegation_tokens.contains(soon.token_id));
  EXPECT_TRUE(next->delegation_tokens.contains(later.token_id));
}

}  // namespace
}  // namespace hw::controller
