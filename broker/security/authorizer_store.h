#pragma once
// The authorizer the handlers ask (controller/metadata/acl_authorizer.h),
// built from the metadata image's ACLs and swapped whole when the metadata
// publisher applies a batch that changed them, as the SCRAM credentials
// are (scram_credential_store.h). Until the first image is published there
// is none, and only super users are allowed: a broker authorizes nobody
// else before it has loaded the ACLs from the log. (Its client listeners
// open once it has caught up with the log; its controller listeners serve
// other nodes, super users in a secured cluster, from the start.)
//
// Exists only when `authorizer.class.name` names Kafka's StandardAuthorizer;
// without it every request is allowed, as in Kafka.
//
// Owner: the metadata publisher (update); any thread (current).

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <variant>

#include "config/broker_config.h"
#include "controller/metadata/acl_authorizer.h"

namespace hw::broker {

class authorizer_store {
 public:
  explicit authorizer_store(controller::authorizer_settings settings);

  // Null until the first update.
  std::shared_ptr<const controller::acl_authorizer> current() const { return current_.load(); }
  const controller::authorizer_settings& settings() const { return settings_; }
  // A new authorizer over these ACLs (the publisher's strand).
  void update(const std::map<protocol::uuid, controller::acl_entry>& acls);

 private:
  const controller::authorizer_settings settings_;
  std::atomic<std::shared_ptr<const controller::acl_authorizer>> current_;
};

// Kafka's StandardAuthorizer, the one authorizer served.
inline constexpr std::string_view standard_authorizer = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";

// The store `authorizer.class.name`, `super.users` and
// `allow.everyone.if.no.acl.found` ask for: null without an authorizer; an
// error naming the key for another class or a malformed super user.
std::variant<std::unique_ptr<authorizer_store>, std::string> make_authorizer_store(const config::broker_config& cfg);

}  // namespace hw::broker
