// make_assignor (assignor.h): the assignors by the names clients ask for.
// Apart from assignor.cc so that the interface does not sit above its own
// implementations.
#include "broker/group/consumer/assignor.h"
#include "broker/group/consumer/range_assignor.h"
#include "broker/group/consumer/uniform_assignor.h"

namespace hw::broker::group::consumer {

std::unique_ptr<const assignor> make_assignor(std::string_view name, jdk_release jdk) {
  if (name == uniform_assignor::kName) return std::make_unique<uniform_assignor>(jdk);
  if (name == range_assignor::kName) return std::make_unique<range_assignor>();
  return nullptr;
}

}  // namespace hw::broker::group::consumer
