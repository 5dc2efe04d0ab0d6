#include "broker/admin/streams_topic_creator.h"

#include <chrono>

#include "broker/admin/topic_creation.h"
#include "broker/services.h"
#include "protocol/error_code.h"

namespace hw::broker {

using protocol::msg::create_topics_request;

void streams_topic_creator::create(const std::vector<group::streams::internal_topic>& topics, int64_t error_ttl_ms,
                                   int64_t now_ms) {
  std::vector<group::streams::internal_topic> wanted;
  {
    std::lock_guard lock(mutex_);
    for (const auto& t : topics) {
      auto e = errors_.find(t.name);
      if (e != errors_.end() && e->second.until_ms > now_ms) continue;
      if (in_flight_.insert(t.name).second) wanted.push_back(t);
    }
  }
  if (wanted.empty()) return;
  asio::co_spawn(executor_, run(std::move(wanted), error_ttl_ms), asio::detached);
}

asio::awaitable<void> streams_topic_creator::run(std::vector<group::streams::internal_topic> topics,
                                                 int64_t error_ttl_ms) {
  create_topics_request request;
  for (const auto& t : topics) {
    create_topics_request::creatable_topic c;
    c.name = t.name;
    c.num_partitions = t.partitions;
    c.replication_factor = t.replication_factor.value_or(-1);
    for (const auto& [key, value] : t.configs) {
      create_topics_request::creatable_topic_config config;
      config.name = key;
      config.value = value;
      c.configs.push_back(std::move(config));
    }
    request.topics.push_back(std::move(c));
  }
  request.timeout_ms = 30000;
  std::map<std::string, std::string> failed;
  try {
    auto response =
        co_await create_topics(services_, std::move(request), 7, std::chrono::milliseconds(30000), true, nullptr);
    for (const auto& r : response.topics) {
      if (r.error_code == 0) continue;
      const auto code = static_cast<protocol::error_code>(r.error_code);
      failed[r.name] = r.error_message && !r.error_message->empty() ? *r.error_message
                                                                     : std::string(protocol::error_name(code));
    }
  } catch (const std::exception& e) {
    for (const auto& t : topics) failed[t.name] = e.what();
  }
  const int64_t now_ms = services_.now_ms ? services_.now_ms() : 0;
  std::lock_guard lock(mutex_);
  for (const auto& t : topics) in_flight_.erase(t.name);
  for (auto& [name, message] : failed) errors_[name] = {std::move(message), now_ms + error_ttl_ms};
  std::erase_if(errors_, [now_ms](const auto& e) { return e.second.until_ms <= now_ms; });
}

std::map<std::string, std::string> streams_topic_creator::errors(const std::vector<std::string>& names,
                                                                 int64_t now_ms) {
  std::lock_guard lock(mutex_);
  std::map<std::string, std::string> out;
  for (const auto& name : names) {
    auto e = errors_.find(name);
    if (e != errors_.end() && e->second.until_ms > now_ms) out.emplace(name, e->second.message);
  }
  return out;
}

}  // namespace hw::broker
