// The orders Kafka's tool prints partitions in. The admin client puts the
// response's partitions in a HashMap; the tool splits that map's entries, in
// its iteration order, into a HashSet of elected partitions, a HashSet of
// those needing no election and a HashMap of failures, and prints each in
// its own iteration order (TopicPartition's hash, java.h's HashMap model).

#include <algorithm>
#include <map>

#include "tools/commands/java.h"
#include "tools/commands/leader_election.h"

namespace hw::tools::election {
namespace {

constexpr int16_t k_election_not_needed = 84;

std::string joined(const std::vector<topic_partition>& partitions) {
  std::string out;
  for (const auto& tp : partitions) out += (out.empty() ? "" : ", ") + tp.str();
  return out;
}

}  // namespace

std::vector<topic_partition> hash_set_order(const std::vector<topic_partition>& added,
                                            std::optional<int32_t> capacity) {
  java::hash_order set(capacity);
  for (size_t i = 0; i < added.size(); ++i) set.put(java::topic_partition_hash(added[i].topic, added[i].partition), i);
  std::vector<topic_partition> out;
  for (size_t i : set.order()) out.push_back(added[i]);
  return out;
}

std::vector<std::pair<std::string, std::vector<int32_t>>> request_topics(const std::vector<topic_partition>& partitions) {
  std::vector<std::pair<std::string, std::vector<int32_t>>> topics;
  for (const auto& tp : partitions) {
    auto it = std::find_if(topics.begin(), topics.end(), [&](const auto& t) { return t.first == tp.topic; });
    if (it == topics.end()) it = topics.insert(topics.end(), {tp.topic, {}});
    it->second.push_back(tp.partition);
  }
  return topics;
}

std::string exception_text(int16_t code, const std::optional<std::string>& message) {
  // Errors.forCode: a code the client does not know is UNKNOWN_SERVER_ERROR.
  const std::string cls = java_exception_class(code);
  if (cls.ends_with(".UnknownServerException")) code = -1;
  // Errors.exception(message): the default message only when none was sent.
  const std::string text = message ? *message : error_message(code);
  return cls + ": " + text;
}

election_report report(const std::string& election_type, const std::vector<partition_result>& results) {
  // The admin client's HashMap: a partition answered twice keeps its first
  // place and its last answer.
  std::vector<topic_partition> answered;
  std::map<std::pair<std::string, int32_t>, const partition_result*> answer;
  for (const auto& r : results) {
    auto [it, added] = answer.insert_or_assign({r.partition.topic, r.partition.partition}, &r);
    if (added) answered.push_back(r.partition);
  }
  auto answer_of = [&](const topic_partition& tp) { return *answer.at({tp.topic, tp.partition}); };
  std::vector<topic_partition> elected, not_needed, failed;
  for (const auto& tp : hash_set_order(answered)) {
    const int16_t code = answer_of(tp).error_code;
    (code == 0 ? elected : code == k_election_not_needed ? not_needed : failed).push_back(tp);
  }
  election_report out;
  if (!elected.empty())
    out.lines.push_back("Successfully completed leader election (" + election_type + ") for partitions " +
                        joined(hash_set_order(elected)));
  if (!not_needed.empty())
    out.lines.push_back("Valid replica already elected for partitions " + joined(hash_set_order(not_needed)));
  for (const auto& tp : hash_set_order(failed)) {
    const auto& r = answer_of(tp);
    out.lines.push_back("Error completing leader election (" + election_type + ") for partition: " + tp.str() + ": " +
                        exception_text(r.error_code, r.error_message));
  }
  out.failed = failed.size();
  return out;
}

}  // namespace hw::tools::election
