// topology: a streams group's topology configured against the topic image
// (see topology.h). Where Kafka walks a HashMap or HashSet and the walk
// decides an answer (which partition count a repartition topic gets first,
// which topic a message names), the walk is replayed on the Java models.
#include "broker/group/streams/topology.h"

#include <algorithm>

#include "broker/group/consumer/java_hash_map.h"
#include "broker/group/consumer/java_keys.h"
#include "broker/group/consumer/java_strings.h"

namespace hw::broker::group::streams {

using consumer::java_hash_map;
using consumer::java_hash_set;
using consumer::java_string_key;
using protocol::error_code;

namespace {

// What Kafka throws while configuring: a TopicConfigurationException (the
// topology is kept with a status), or a failure of the whole heartbeat.
struct configuration_error {
  topic_configuration_error error;
};
struct failure {
  topology_failure failed;
};

[[noreturn]] void invalid(std::string message) {
  throw failure{{error_code::streams_invalid_topology, std::move(message)}};
}
[[noreturn]] void illegal_state(std::string message) {
  throw failure{{error_code::unknown_server_error, std::move(message)}};
}
[[noreturn]] void incorrectly_partitioned(std::string message) {
  throw configuration_error{{topology_status::incorrectly_partitioned_topics, std::move(message)}};
}

// Kafka's summary of a topic list: at most three, then how many more.
std::string summarize(const std::vector<std::string>& topics) {
  if (topics.empty()) return "<none>";
  std::string out;
  for (size_t i = 0; i < topics.size() && i < 3; ++i) out += (i ? ", " : "") + topics[i];
  if (topics.size() > 3) out += " and " + std::to_string(topics.size() - 3) + " additional topics";
  return out;
}

// Java's TreeMap<String, Integer>.toString().
std::string tree_map_text(std::map<std::string, int32_t> counts) {
  std::vector<std::pair<std::string, int32_t>> sorted(counts.begin(), counts.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return consumer::java_string_compare(a.first, b.first) < 0; });
  std::string out = "{";
  for (size_t i = 0; i < sorted.size(); ++i)
    out += (i ? ", " : "") + sorted[i].first + "=" + std::to_string(sorted[i].second);
  return out + "}";
}

using name_set = java_hash_set<std::string, java_string_key>;
using count_map = java_hash_map<std::string, int32_t, java_string_key>;

class configurator {
 public:
  configurator(const topology& t, const partition_count_of& image) : t_(t), image_(image) {
    // Kafka keeps the subtopologies in a HashMap by id (Collectors.toMap).
    java_hash_map<std::string, size_t, java_string_key> by_id;
    for (size_t i = 0; i < t.subtopologies.size(); ++i) {
      if (!by_id.put(t.subtopologies[i].id, i)) illegal_state("Duplicate key " + t.subtopologies[i].id);
    }
    by_id.for_each([&](const std::string&, const size_t& i) { order_.push_back(&t.subtopologies[i]); });
  }

  configured_topology run(int64_t metadata_hash) {
    configured_topology out;
    out.epoch = t_.epoch;
    out.metadata_hash = metadata_hash;
    try {
      check_source_topics();
      decide_repartition_counts();
      enforce_copartitioning();
      decide_changelog_counts();
      std::map<std::string, configured_subtopology> configured;
      for (const auto* s : order_) configured.emplace(s->id, configure(*s));
      out.to_create = missing_internal_topics(configured);
      if (!out.to_create.empty()) {
        std::vector<std::string> names;
        for (const auto& topic : out.to_create) names.push_back(topic.name);
        out.error = topic_configuration_error{topology_status::missing_internal_topics,
                                              "Internal topics are missing: " + summarize(names)};
      }
      out.subtopologies = std::move(configured);
    } catch (configuration_error& e) {
      out.subtopologies.reset();
      out.to_create.clear();
      out.error = std::move(e.error);
    }
    return out;
  }

 private:
  // A topic's partitions: the image's, else a count decided for an
  // internal topic that does not exist yet.
  std::optional<int32_t> partitions(const std::string& topic) const {
    if (auto n = image_(topic)) return n;
    if (const int32_t* d = decided_.find(topic)) return *d;
    return std::nullopt;
  }

  void check_source_topics() const {
    std::vector<std::string> missing;
    for (const auto* s : order_)
      for (const auto& topic : s->source_topics)
        if (!image_(topic)) missing.push_back(topic);
    std::sort(missing.begin(), missing.end(),
              [](const std::string& a, const std::string& b) { return consumer::java_string_compare(a, b) < 0; });
    missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
    if (!missing.empty()) {
      throw configuration_error{{topology_status::missing_source_topics,
                                 "Source topics " + summarize(missing) + " are missing."}};
    }
  }

  // Kafka's RepartitionTopics: declared counts first, then, round after
  // round, a sink topic takes the largest count known among the sources of
  // the subtopology that writes it.
  void decide_repartition_counts() {
    count_map counts;
    for (const auto* s : order_)
      for (const auto& r : s->repartition_source_topics)
        if (r.partitions != 0) counts.put(r.name, r.partitions);
    bool needed = false;
    do {
      needed = false;
      bool progress = false;
      for (const auto* s : order_) {
        for (const auto& sink : s->repartition_sink_topics) {
          if (counts.contains(sink)) continue;
          std::optional<int32_t> n;
          for (const auto& r : s->repartition_source_topics)
            if (const int32_t* c = counts.find(r.name); c && (!n || *c > *n)) n = *c;
          for (const auto& source : s->source_topics)
            if (auto c = partitions(source); c && (!n || *c > *n)) n = *c;
          if (!n) {
            needed = true;
          } else {
            counts.put(sink, *n);
            progress = true;
          }
        }
      }
      if (!progress && needed) {
        invalid("Failed to compute number of partitions for all repartition topics. There may be loops in the "
                "topology that cannot be resolved.");
      }
    } while (needed);
    for (const auto* s : order_) {
      for (const auto& r : s->repartition_source_topics) {
        if (!counts.contains(r.name)) {
          invalid("Failed to compute number of partitions for all repartition topics, because a repartition source "
                  "topic is never used as a sink topic.");
        }
      }
    }
    counts.for_each([&](const std::string& name, const int32_t& n) { decided_.put(name, n); });
  }

  int32_t count_or_fail(const std::string& topic, const std::string& message) const {
    auto n = partitions(topic);
    if (!n) illegal_state(message + topic);
    return *n;
  }

  // Kafka's CopartitionedTopicsEnforcer over each copartition group.
  void enforce_copartitioning() {
    name_set fixed, flexible;
    for (const auto* s : order_)
      for (const auto& r : s->repartition_source_topics) (r.partitions != 0 ? fixed : flexible).add(r.name);
    for (const auto* s : order_) {
      for (const auto& group : s->copartition_groups) {
        name_set topics;
        for (int16_t i : group.source_topics)
          if (i >= 0 && static_cast<size_t>(i) < s->source_topics.size()) topics.add(s->source_topics[i]);
        for (int16_t i : group.repartition_source_topics)
          if (i >= 0 && static_cast<size_t>(i) < s->repartition_source_topics.size())
            topics.add(s->repartition_source_topics[i].name);
        enforce(topics, fixed, flexible);
      }
    }
  }

  void enforce(const name_set& topics, const name_set& fixed, const name_set& flexible) {
    if (topics.empty()) return;
    const std::string unset = "Number of partitions is not set for topic: ";
    count_map repartition, others;
    topics.for_each([&](const std::string& t) {
      if (fixed.contains(t) || flexible.contains(t)) repartition.put(t, count_or_fail(t, unset));
    });
    topics.for_each([&](const std::string& t) {
      if (!repartition.contains(t)) others.put(t, count_or_fail(t, unset));
    });
    std::map<std::string, int32_t> repartition_counts, other_counts;
    repartition.for_each([&](const std::string& t, const int32_t& n) { repartition_counts[t] = n; });
    others.for_each([&](const std::string& t, const int32_t& n) { other_counts[t] = n; });
    int32_t use = 0;
    if (others.empty()) {
      if (!fixed.empty()) {
        // Every fixed repartition topic of the topology must agree.
        std::optional<int32_t> first;
        fixed.for_each([&](const std::string& t) {
          const int32_t n = count_or_fail(t, unset);
          if (!first) first = n;
          else if (n != *first) {
            incorrectly_partitioned("Following topics do not have the same number of partitions: [" +
                                    tree_map_text(repartition_counts) + "]");
          }
        });
        use = *first;
      } else {
        for (const auto& [t, n] : repartition_counts) use = std::max(use, n);
        if (use == 0) {
          std::string names;
          repartition.for_each([&](const std::string& t, const int32_t&) { names += (names.empty() ? "" : ", ") + t; });
          invalid("All topics in the copartition group had undefined partition number: [" + names + "]");
        }
      }
    } else {
      std::optional<int32_t> first;
      others.for_each([&](const std::string&, const int32_t& n) {
        if (!first) first = n;
        else if (n != *first) {
          incorrectly_partitioned("Following topics do not have the same number of partitions: [" +
                                  tree_map_text(other_counts) + "]");
        }
      });
      use = *first;
    }
    repartition.for_each([&](const std::string& t, const int32_t& n) {
      decided_.put(t, use);
      if (fixed.contains(t) && n != use) {
        incorrectly_partitioned("Number of partitions [" + std::to_string(n) + "] of repartition topic [" + t +
                                "] doesn't match number of partitions [" + std::to_string(use) +
                                "] of the source topic.");
      }
    });
  }

  // A subtopology's largest source: its task count and its changelogs'
  // partition count.
  std::optional<int32_t> largest_source(const subtopology& s, const std::string& missing) const {
    std::optional<int32_t> most;
    auto take = [&](const std::string& topic) {
      const int32_t n = count_or_fail(topic, missing);
      if (!most || n > *most) most = n;
    };
    for (const auto& topic : s.source_topics) take(topic);
    for (const auto& r : s.repartition_source_topics) take(r.name);
    return most;
  }

  void decide_changelog_counts() {
    std::vector<std::pair<std::string, int32_t>> changelogs;
    for (const auto* s : order_) {
      auto most = largest_source(*s, "No partition count for source topic ");
      if (!most) invalid("No source topics found for subtopology " + s->id);
      for (const auto& c : s->state_changelog_topics) changelogs.emplace_back(c.name, *most);
    }
    for (const auto& [name, n] : changelogs) decided_.put(name, n);
  }

  internal_topic configured_internal(const topic_info& info) const {
    internal_topic out;
    out.name = info.name;
    if (info.partitions == 0) {
      const int32_t* d = decided_.find(info.name);
      if (!d) illegal_state("Number of partitions must be set for topic " + info.name);
      out.partitions = *d;
    } else {
      out.partitions = info.partitions;
    }
    if (info.replication_factor != 0) out.replication_factor = info.replication_factor;
    out.configs = info.configs;
    return out;
  }

  configured_subtopology configure(const subtopology& s) const {
    configured_subtopology out;
    auto most = largest_source(s, "Number of partitions must be set for topic ");
    if (!most) illegal_state("Subtopology does not contain any source topics");
    out.tasks = *most;
    out.source_topics = {s.source_topics.begin(), s.source_topics.end()};
    for (const auto& r : s.repartition_source_topics) out.repartition_source_topics[r.name] = configured_internal(r);
    out.repartition_sink_topics = {s.repartition_sink_topics.begin(), s.repartition_sink_topics.end()};
    for (const auto& c : s.state_changelog_topics) out.state_changelog_topics[c.name] = configured_internal(c);
    return out;
  }

  // The internal topics not in the image, in the order of Kafka's HashMap;
  // one that exists with another partition count is refused.
  std::vector<internal_topic> missing_internal_topics(const std::map<std::string, configured_subtopology>& configured) {
    java_hash_map<std::string, internal_topic, java_string_key> wanted;
    // Each subtopology's internal topics in the order of its own HashMaps
    // (filled in the order the topology lists them).
    std::map<std::string, const subtopology*> declared;
    for (const auto* s : order_) declared[s->id] = s;
    for (const auto& [id, s] : configured) {
      const subtopology& d = *declared.at(id);
      auto add = [&](const std::vector<topic_info>& listed, const std::map<std::string, internal_topic>& topics) {
        java_hash_map<std::string, const internal_topic*, java_string_key> by_name;
        for (const auto& info : listed) by_name.put(info.name, &topics.at(info.name));
        by_name.for_each([&](const std::string& name, const internal_topic* const& topic) { wanted.put(name, *topic); });
      };
      add(d.repartition_source_topics, s.repartition_source_topics);
      add(d.state_changelog_topics, s.state_changelog_topics);
    }
    name_set required;
    for (const auto* s : order_) {
      for (const auto& topic : s->source_topics) required.add(topic);
      for (const auto& r : s->repartition_source_topics) required.add(r.name);
      for (const auto& c : s->state_changelog_topics) required.add(c.name);
    }
    required.for_each([&](const std::string& topic) {
      auto existing = image_(topic);
      if (!existing) return;
      const internal_topic* expected = wanted.find(topic);
      if (!expected) return;
      const int32_t n = expected->partitions;
      wanted.erase(topic);
      if (*existing != n) {
        incorrectly_partitioned("Existing topic " + topic + " has different number of partitions: expected " +
                                std::to_string(n) + ", found " + std::to_string(*existing));
      }
    });
    std::vector<internal_topic> out;
    wanted.for_each([&](const std::string&, const internal_topic& topic) { out.push_back(topic); });
    return out;
  }

  const topology& t_;
  const partition_count_of& image_;
  std::vector<const subtopology*> order_;  // Kafka's HashMap order of the subtopologies
  count_map decided_;                      // partition counts decided for internal topics
};

}  // namespace

std::variant<configured_topology, topology_failure> configure_topics(const topology& t, int64_t metadata_hash,
                                                                     const partition_count_of& image) {
  try {
    configurator c(t, image);
    return c.run(metadata_hash);
  } catch (failure& f) {
    return std::move(f.failed);
  }
}

std::set<std::string> required_topics(const topology& t) {
  std::set<std::string> out;
  for (const auto& s : t.subtopologies) {
    out.insert(s.source_topics.begin(), s.source_topics.end());
    for (const auto& r : s.repartition_source_topics) out.insert(r.name);
    for (const auto& c : s.state_changelog_topics) out.insert(c.name);
  }
  return out;
}

}  // namespace hw::broker::group::streams
