"""End-to-end benchmark harness: Highwater against Apache Kafka, same machine,
same settings, interleaved rounds. Modules: procstat (resources from /proc),
brokers (cluster start/stop per broker kind), security (--security: TLS and
SCRAM settings of brokers and clients), tools (running Kafka's tools and
hw_loadgen), workloads (one function per workload), report (RESULTS.md and
results.json), cli (the round loop)."""
