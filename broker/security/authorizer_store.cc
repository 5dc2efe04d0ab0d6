#include "broker/security/authorizer_store.h"

namespace hw::broker {

authorizer_store::authorizer_store(controller::authorizer_settings settings) : settings_(std::move(settings)) {}

void authorizer_store::update(const std::map<protocol::uuid, controller::acl_entry>& acls) {
  current_.store(std::make_shared<const controller::acl_authorizer>(acls, settings_));
}

std::variant<std::unique_ptr<authorizer_store>, std::string> make_authorizer_store(const config::broker_config& cfg) {
  const std::string& name = cfg.get_string("authorizer.class.name");
  if (name.empty()) return std::unique_ptr<authorizer_store>();
  if (name != standard_authorizer)
    return "Invalid value " + name + " for configuration authorizer.class.name: Highwater runs " +
           std::string(standard_authorizer) + " (ACLs in the metadata log) or no authorizer";
  controller::authorizer_settings settings;
  auto users = controller::parse_super_users(cfg.get_string("super.users"));
  if (auto* error = std::get_if<std::string>(&users))
    return "Invalid value for configuration super.users: " + *error;
  settings.super_users = std::get<0>(std::move(users));
  settings.allow_everyone_if_no_acl_found = cfg.get_bool("allow.everyone.if.no.acl.found");
  return std::make_unique<authorizer_store>(std::move(settings));
}

}  // namespace hw::broker
