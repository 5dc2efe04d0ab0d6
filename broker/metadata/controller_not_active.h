#pragma once
// NOT_CONTROLLER written into a controller response of any shape: at the top
// level when the response has an error code there (heartbeats,
// registrations, ElectLeaders), else in each per-resource result
// (CreateTopics, DeleteTopics, CreatePartitions, (Incremental)AlterConfigs,
// AlterClientQuotas),
// as Kafka's controller answers a request it is no longer the one to serve.

#include <cstdint>

#include "protocol/error_code.h"

namespace hw::broker {

namespace detail {
template <class T>
void set_not_controller_fields(T& x) {
  x.error_code = static_cast<int16_t>(protocol::error_code::not_controller);
  if constexpr (requires { x.error_message = {}; }) x.error_message = {};
}
template <class V>
void set_not_controller_each(V& items) {
  for (auto& item : items) set_not_controller_fields(item);
}
}  // namespace detail

template <class R>
void mark_not_controller(R& r) {
  if constexpr (requires { r.error_code; }) {
    detail::set_not_controller_fields(r);
  } else if constexpr (requires { r.topics.begin()->error_code; }) {
    detail::set_not_controller_each(r.topics);
  } else if constexpr (requires { r.responses.begin()->error_code; }) {
    detail::set_not_controller_each(r.responses);
  } else if constexpr (requires { r.results.begin()->error_code; }) {
    detail::set_not_controller_each(r.results);
  } else if constexpr (requires { r.filter_results.begin()->error_code; }) {
    detail::set_not_controller_each(r.filter_results);
  } else if constexpr (requires { r.entries.begin()->error_code; }) {
    detail::set_not_controller_each(r.entries);
  } else {
    static_assert(sizeof(R) == 0, "a controller response without an error code");
  }
}

}  // namespace hw::broker
