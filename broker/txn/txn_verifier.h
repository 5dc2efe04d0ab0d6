#pragma once
// The partition side of KIP-890 (Kafka's AddPartitionsToTxnManager): before
// a partition leader appends the first transactional write of a producer
// epoch (Produce, or the group coordinator's TxnOffsetCommit), it asks the
// transaction coordinator, with AddPartitionsToTxn v4+ on the inter-broker
// listener, whether the partition is in that producer's ongoing
// transaction (verify-only, transactions v1 clients) or to add it (a
// transactions v2 client, which no longer adds partitions itself). A write
// the coordinator does not vouch for is refused, so a late write cannot
// open a transaction nobody will end.
//
// Ownership and threads: owned by the broker node; verify() from any
// coroutine. Its connections live on its own strand.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "broker/asio.h"
#include "broker/network/node_clients.h"
#include "broker/txn/txn_metadata.h"
#include "protocol/error_code.h"

namespace hw::broker {
class metadata_publisher;
}  // namespace hw::broker

namespace hw::broker::txn {

struct verifier_options {
  std::string listener;  // inter.broker.listener.name
  int32_t self = -1;     // node.id, for the client id
  int32_t num_txn_partitions = 50;  // transaction.state.log.num.partitions
  std::chrono::milliseconds request_timeout{30000};  // request.timeout.ms
  // add.partitions.to.txn.retry.backoff.ms / .max.ms (wait_to_retry).
  std::chrono::milliseconds add_retry_backoff{20};
  std::chrono::milliseconds add_retry_backoff_max{100};
  // How this node's connections to the peers' inter-broker listener are protected.
  client_security security;
};

// What the write's request version lets its client understand (Kafka's
// TransactionSupportedOperation).
enum class verify_operation {
  verify_old_client,     // verify only; TRANSACTION_ABORTABLE becomes INVALID_TXN_STATE
  verify_generic_error,  // verify only; the client knows TRANSACTION_ABORTABLE
  add_partition,         // transactions v2: the coordinator adds the partition
};

struct verify_request {
  std::string transactional_id;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  txn_partitions partitions;
  verify_operation operation = verify_operation::verify_old_client;
};

// The partitions the coordinator did not vouch for, with why (Kafka's
// mapping: PRODUCER_FENCED is INVALID_PRODUCER_EPOCH; an unreachable
// coordinator NETWORK_EXCEPTION; none known COORDINATOR_NOT_AVAILABLE).
using verify_errors = std::map<txn_topic_partition, protocol::error_code>;

class txn_verifier {
 public:
  txn_verifier(asio::any_io_executor executor, metadata_publisher& metadata, verifier_options options);
  ~txn_verifier();

  asio::awaitable<verify_errors> verify(verify_request request);
  // Kafka's retry of an add the coordinator refused with
  // CONCURRENT_TRANSACTIONS: when `errors` holds one, the request is an
  // add and add_retry_backoff_max (and the request timeout) since
  // `started` allow another attempt, waits the backoff and returns true.
  // The caller then takes fresh verification guards for those partitions
  // (a marker may have spent the first ones meanwhile) and asks again.
  asio::awaitable<bool> wait_to_retry(const verify_request& request, const verify_errors& errors,
                                      std::chrono::steady_clock::time_point started) const;

  // Closes the connections; calls in flight fail with NETWORK_EXCEPTION.
  void stop();

 private:
  asio::awaitable<verify_errors> run(verify_request request);

  asio::strand<asio::any_io_executor> strand_;
  metadata_publisher& metadata_;
  verifier_options options_;
  node_clients clients_;
  bool stopped_ = false;
};

}  // namespace hw::broker::txn
