#pragma once
// One Highwater process: storage, the metadata quorum (when a controller),
// the broker's metadata, partitions and request handling, and their
// start-up and shutdown order.
//
// Start-up: identify the storage (format it on first start), load every
// partition log, open the metadata log and replay it, take the quorum's
// leadership (one voter), bind the listeners (the controller listener
// serves at once), register the broker with the controller, wait until it
// is unfenced and has applied the metadata and its group coordinator has
// loaded the __consumer_offsets partitions it leads; only then do the
// client listeners accept connections.
// Shutdown: stop accepting and answer what is in flight, then close every
// log (flush, checkpoints, clean-shutdown marker) and the metadata log.
//
// Ownership and threads: created and driven by main's thread; the
// components run on the io_context's threads, started by start().

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "broker/asio.h"
#include "broker/listener/server.h"
#include "config/broker_config.h"

namespace hw::broker {

class broker_node {
 public:
  explicit broker_node(const config::broker_config& config);
  ~broker_node();
  broker_node(const broker_node&) = delete;
  broker_node& operator=(const broker_node&) = delete;

  // An error message when the node cannot start (the process then exits 1).
  std::optional<std::string> start();
  const std::vector<bound_listener>& bound() const;
  // Blocks until SIGTERM/SIGINT-triggered shutdown has finished.
  void run_until_signal();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// `highwater format`: writes meta.properties (cluster.id, node.id, a
// directory id) into every log dir and the metadata log dir. Refuses a dir
// formatted for another cluster or node unless ignore_formatted.
std::optional<std::string> format_storage(const config::broker_config& config, const std::string& cluster_id,
                                          bool ignore_formatted);

}  // namespace hw::broker
