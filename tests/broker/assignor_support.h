#pragma once
// Shared by the assignor tests: topic ids whose Java hash order is their
// number, member specs, running an assignor and reading its answer.

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "broker/group/consumer/assignor.h"

namespace hw::broker::group::consumer::testing {

// Topic k (1..15): Java's HashMap puts it in bucket k of a 16-bucket table
// (its Uuid.hashCode is 0x10000000 ^ k), so small sets of these topics
// iterate in ascending k, as do the member ids "m1".."m9".
inline protocol::uuid topic(uint8_t k) {
  protocol::uuid u;
  u.bytes[0] = 0x10;
  u.bytes[15] = k;
  return u;
}

inline std::set<int32_t> range_of(int32_t first, int32_t end) {
  std::set<int32_t> out;
  for (int32_t p = first; p < end; ++p) out.insert(p);
  return out;
}

inline member_spec member(std::string id, std::vector<protocol::uuid> topics, topic_partitions assignment = {}) {
  member_spec m;
  m.member_id = std::move(id);
  m.subscribed_topic_ids = std::move(topics);
  m.assignment = std::move(assignment);
  return m;
}

// A group whose owners follow the members' assignments and whose type
// follows their subscriptions.
inline group_spec group_of(std::vector<member_spec> members) {
  group_spec g;
  g.subscription = subscription_type_of(members);
  g.owners = owners_of(members);
  g.members = std::move(members);
  return g;
}

inline assignment_result run_assignor(std::string_view name, const group_spec& group,
                                      const topic_describer& topics) {
  auto a = make_assignor(name);
  EXPECT_NE(a, nullptr) << name;
  if (!a) return assignor_error{"no such assignor"};
  return a->assign(group, topics);
}

// The answer, or a failed expectation and an empty answer.
inline group_assignment answer_of(const assignment_result& result) {
  if (const auto* error = std::get_if<assignor_error>(&result)) {
    ADD_FAILURE() << "the assignor failed: " << error->message;
    return {};
  }
  const auto& answer = std::get<group_assignment>(result);
  for (const auto& [id, listing] : answer.listings)
    EXPECT_EQ(partitions_of(listing), answer.members.at(id)) << id << "'s listing lists other partitions";
  EXPECT_EQ(answer.members.size(), answer.listings.size());
  return answer;
}

inline std::string error_of(const assignment_result& result) {
  const auto* error = std::get_if<assignor_error>(&result);
  EXPECT_NE(error, nullptr) << "the assignor answered instead of failing";
  return error ? error->message : "";
}

}  // namespace hw::broker::group::consumer::testing
