#include "config/group_configs_describe.h"

#include <algorithm>
#include <cassert>

namespace hw::config {
namespace {

bool wanted(const describe_options& o, std::string_view name) {
  return o.keys.empty() || std::find(o.keys.begin(), o.keys.end(), name) != o.keys.end();
}

described_config describe_key(const group_config_key& key, const config_map& group,
                              const broker_config_layers& broker, const describe_options& options) {
  described_config c;
  c.name = std::string(key.name);
  c.value = group_config_text(key, group, broker);
  c.type = described_type_of(key.type);
  if (options.include_documentation) c.documentation = std::string(key.doc);
  std::vector<described_synonym> synonyms;
  // A group value is listed as Kafka parsed it ("FALSE" shows as false).
  if (auto it = group.find(key.name); it != group.end())
    synonyms.push_back({c.name, c.value, config_source::group_config});
  if (!key.broker_synonym.empty()) {
    auto from_broker = broker_synonyms(key.broker_synonym, broker, false);
    synonyms.insert(synonyms.end(), from_broker.begin(), from_broker.end());
  } else {
    synonyms.push_back({c.name, std::string(key.default_value), config_source::default_config});
  }
  c.source = synonyms.front().source;
  if (options.include_synonyms) c.synonyms = std::move(synonyms);
  return c;
}

}  // namespace

std::vector<described_config> describe_group_configs(const config_map& group, const broker_config_layers& broker,
                                                     const describe_options& options) {
  std::vector<described_config> out;
  for (std::string_view name : group_config_describe_order()) {
    if (!wanted(options, name)) continue;
    const group_config_key* key = find_group_key(name);
    assert(key && "the describe order names only known keys");
    out.push_back(describe_key(*key, group, broker, options));
  }
  return out;
}

}  // namespace hw::config
