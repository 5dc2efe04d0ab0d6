// hw_loadgen: the end-to-end benchmark's own load generator on librdkafka,
// so that a broker is measured with a native client that is not the limit.
// Every command prints one JSON object on stdout; errors go to stderr and
// make the exit code non-zero.
//
//   hw_loadgen probe        --bootstrap B --topic T [--timeout-ms 120000] [--acks 1|all]
//                           [--message-timeout-ms 500]
//   hw_loadgen create-topic --bootstrap B --topic T --partitions N [--replication-factor R]
//   hw_loadgen produce      --bootstrap B --topic T [--producers 3] [--record-size 1024]
//                           [--seconds 10 | --records N] [--acks 1|all] [--compression none|lz4]
//                           [--linger-ms 5] [--batch-bytes 1000000] [--idempotence true|false]
//   hw_loadgen consume      --bootstrap B --topic T --records N [--consumers 1] [--timeout-ms 30000]
//   hw_loadgen fetch        --bootstrap B --topic T --records N [--readers 4] [--timeout-ms 30000]
//   hw_loadgen e2e          --bootstrap B --topic T [--rate 1000] [--seconds 10] [--record-size 1024]
//   hw_loadgen txn          --bootstrap B --topic T [--transactions 500] [--records-per-txn 100]
//                           [--record-size 1024] [--transactional-id hw-loadgen-txn]
//   hw_loadgen scram        --bootstrap B [--connections 16] [--seconds 10] [--cache-salted-password true|false]
//                           [--wait-ms 60000] -X security.protocol=sasl_plaintext|sasl_ssl
//                           -X sasl.mechanism=SCRAM-SHA-512 -X sasl.username=U -X sasl.password=P
//
// Every command also takes -X key=value (repeatable): librdkafka settings
// given to each of its clients after the command's own, e.g.
// -X security.protocol=ssl -X ssl.ca.location=ca.crt. The commands that
// speak the protocol themselves (fetch, scram) read the same keys:
// security.protocol, ssl.ca.location, ssl.endpoint.identification.algorithm
// (https, the default, or none) and sasl.* (scram: SCRAM-SHA-256/512;
// fetch: PLAIN, on SASL_PLAINTEXT or SASL_SSL).
//
// Single-threaded main; `produce` runs one producer instance per thread, each

#include <csignal>
#include <cstdio>

#include "bench/e2e/loadgen.h"

using namespace hw::loadgen;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: hw_loadgen probe|create-topic|produce|consume|fetch|e2e|txn|scram --bootstrap HOST:PORT "
                 "[-X key=value ...] ...\n");
    return 2;
  }
  // A write to a connection the broker closed fails with EPIPE rather than
  // killing the process (OpenSSL writes with write(), not MSG_NOSIGNAL).
  std::signal(SIGPIPE, SIG_IGN);
  try {
    const std::string cmd = argv[1];
    const flags f(argc, argv, 2);
    if (cmd == "probe") return cmd_probe(f);
    if (cmd == "create-topic") return cmd_create_topic(f);
    if (cmd == "produce") return cmd_produce(f);
    if (cmd == "consume") return cmd_consume(f);
    if (cmd == "fetch") return cmd_fetch(f);
    if (cmd == "e2e") return cmd_e2e(f);
    if (cmd == "txn") return cmd_txn(f);
    if (cmd == "scram") return cmd_scram(f);
    std::fprintf(stderr, "unknown command %s\n", cmd.c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hw_loadgen: %s\n", e.what());
    return 1;
  }
}
