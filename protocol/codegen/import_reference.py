#!/usr/bin/env python3
"""Writes protocol/schema/*.hws from Kafka's JSON reference definitions.

Run by hand when the reference moves to a newer Kafka; the schema files are
the project's source of truth and are reviewed like code. Usage:
  scripts/fetch-kafka.sh
  import_reference.py --reference ../shared/reference/kafka-protocol --out protocol/schema
"""

from __future__ import annotations

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import default_kafka_libs, load_reference_file, newer_than_shared, reference_index  # noqa: E402
from schema import format_message, parse_range  # noqa: E402

# API key → name, the APIs Highwater defines.
APIS = {
    0: "Produce", 1: "Fetch", 2: "ListOffsets", 3: "Metadata", 8: "OffsetCommit",
    9: "OffsetFetch", 10: "FindCoordinator", 11: "JoinGroup", 12: "Heartbeat",
    13: "LeaveGroup", 14: "SyncGroup", 15: "DescribeGroups", 16: "ListGroups",
    17: "SaslHandshake", 18: "ApiVersions", 19: "CreateTopics", 20: "DeleteTopics",
    21: "DeleteRecords", 22: "InitProducerId", 23: "OffsetForLeaderEpoch",
    24: "AddPartitionsToTxn", 25: "AddOffsetsToTxn", 26: "EndTxn", 27: "WriteTxnMarkers",
    28: "TxnOffsetCommit", 29: "DescribeAcls", 30: "CreateAcls", 31: "DeleteAcls",
    32: "DescribeConfigs", 33: "AlterConfigs", 34: "AlterReplicaLogDirs",
    35: "DescribeLogDirs", 36: "SaslAuthenticate", 37: "CreatePartitions",
    38: "CreateDelegationToken", 39: "RenewDelegationToken", 40: "ExpireDelegationToken",
    41: "DescribeDelegationToken",
    42: "DeleteGroups", 43: "ElectLeaders", 44: "IncrementalAlterConfigs",
    45: "AlterPartitionReassignments", 46: "ListPartitionReassignments",
    47: "OffsetDelete", 48: "DescribeClientQuotas", 49: "AlterClientQuotas",
    50: "DescribeUserScramCredentials", 51: "AlterUserScramCredentials",
    52: "Vote", 53: "BeginQuorumEpoch", 54: "EndQuorumEpoch", 55: "DescribeQuorum",
    56: "AlterPartition", 57: "UpdateFeatures", 59: "FetchSnapshot",
    60: "DescribeCluster", 61: "DescribeProducers", 62: "BrokerRegistration",
    63: "BrokerHeartbeat", 64: "UnregisterBroker", 65: "DescribeTransactions",
    66: "ListTransactions", 67: "AllocateProducerIds", 68: "ConsumerGroupHeartbeat",
    69: "ConsumerGroupDescribe", 70: "ControllerRegistration",
    75: "DescribeTopicPartitions", 80: "AddRaftVoter", 81: "RemoveRaftVoter",
    82: "UpdateRaftVoter", 88: "StreamsGroupHeartbeat", 89: "StreamsGroupDescribe",
}

# Schema file → the non-API definitions it holds.
GROUPS = {
    "headers": ["RequestHeader", "ResponseHeader"],
    "consumer_protocol": ["ConsumerProtocolSubscription", "ConsumerProtocolAssignment"],
    "kraft_control_records": ["LeaderChangeMessage", "SnapshotHeaderRecord",
                              "SnapshotFooterRecord", "KRaftVersionRecord", "VotersRecord"],
    "metadata_records": [
        "RegisterBrokerRecord", "UnregisterBrokerRecord", "TopicRecord", "PartitionRecord",
        "ConfigRecord", "PartitionChangeRecord", "FenceBrokerRecord", "UnfenceBrokerRecord",
        "RemoveTopicRecord", "DelegationTokenRecord", "UserScramCredentialRecord",
        "FeatureLevelRecord", "ClientQuotaRecord", "ProducerIdsRecord",
        "BrokerRegistrationChangeRecord", "AccessControlEntryRecord",
        "RemoveAccessControlEntryRecord", "NoOpRecord", "ZkMigrationStateRecord",
        "RemoveUserScramCredentialRecord", "BeginTransactionRecord", "EndTransactionRecord",
        "AbortTransactionRecord", "RemoveDelegationTokenRecord", "RegisterControllerRecord",
        "ClearElrRecord"],
    "group_coordinator_records": [
        "OffsetCommitKey", "OffsetCommitValue", "GroupMetadataKey", "GroupMetadataValue",
        "ConsumerGroupMetadataKey", "ConsumerGroupMetadataValue",
        "ConsumerGroupPartitionMetadataKey", "ConsumerGroupPartitionMetadataValue",
        "ConsumerGroupMemberMetadataKey", "ConsumerGroupMemberMetadataValue",
        "ConsumerGroupTargetAssignmentMetadataKey", "ConsumerGroupTargetAssignmentMetadataValue",
        "ConsumerGroupTargetAssignmentMemberKey", "ConsumerGroupTargetAssignmentMemberValue",
        "ConsumerGroupCurrentMemberAssignmentKey", "ConsumerGroupCurrentMemberAssignmentValue",
        "ConsumerGroupRegularExpressionKey", "ConsumerGroupRegularExpressionValue",
        "StreamsGroupMetadataKey", "StreamsGroupMetadataValue",
        "StreamsGroupTopologyKey", "StreamsGroupTopologyValue",
        "StreamsGroupMemberMetadataKey", "StreamsGroupMemberMetadataValue",
        "StreamsGroupTargetAssignmentMetadataKey", "StreamsGroupTargetAssignmentMetadataValue",
        "StreamsGroupTargetAssignmentMemberKey", "StreamsGroupTargetAssignmentMemberValue",
        "StreamsGroupCurrentMemberAssignmentKey", "StreamsGroupCurrentMemberAssignmentValue"],
    "transaction_records": ["TransactionLogKey", "TransactionLogValue"],
    "producer_snapshot": ["ProducerSnapshot"],
    "quorum_state": ["QuorumStateData"],
}

# Where the project's definition deliberately differs from the reference.
# The comparison test applies the same overrides (with their reasons).
OVERRIDES = {
    # Request header v0 (no client id) is still parsed, as the issue asks.
    "RequestHeader": {"versions": "0-2"},
}


def snake(name: str) -> str:
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", s)
    return s.lower()


def plan() -> dict[str, list[str]]:
    """Schema file stem → reference names, in file order."""
    files: dict[str, list[str]] = {}
    for key, api in sorted(APIS.items()):
        files[f"{key:02d}_{snake(api)}"] = [api + "Request", api + "Response"]
    files.update(GROUPS)
    return files


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reference", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--kafka-libs", default=default_kafka_libs(),
                    help="folder holding the kafka-clients jar (scripts/fetch-kafka.sh)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    index = reference_index(args.reference, args.kafka_libs)
    if not newer_than_shared(index):
        print("no kafka-clients jar found: run scripts/fetch-kafka.sh first", file=sys.stderr)
        return 1
    for stem, names in plan().items():
        chunks = []
        for name in names:
            path = index.get(name)
            if path is None:
                print(f"missing reference definition {name}", file=sys.stderr)
                return 1
            m = load_reference_file(path)
            if name in OVERRIDES and "versions" in OVERRIDES[name]:
                m.versions = parse_range(OVERRIDES[name]["versions"])
            chunks.append(format_message(m))
        with open(os.path.join(args.out, stem + ".hws"), "w", encoding="utf-8") as fh:
            fh.write("\n".join(chunks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
