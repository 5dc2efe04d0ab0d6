"""One member of a transactional consume-transform-produce chain (KIP-447), with confluent-kafka.

Started by tests/compat/txnetl_test.cc (ConsumerProtocolEtlIT), one process per member:
    <venv>/bin/python etl_member.py --bootstrap H:P[,...] --id <transactional id> [--protocol consumer]

The member reads `--input` in `--group` (read_committed, no auto commit) with the group protocol `--protocol`
(consumer: KIP-848, ConsumerGroupHeartbeat; classic: JoinGroup/SyncGroup with cooperative-sticky) and copies
each batch it polls (up to `--batch` records, 50 by default) in one transaction to the same partition of `--output`, with the
consumer's positions and group metadata, then commits, then waits `--pause-ms` (a test paces the copy
with it, so that faults meet it mid-way). An abortable error (the group moved on, a coordinator
went away) aborts and rewinds to where the batch began; a rebalance while a batch is gathered drops the batch
and rewinds likewise, since the records of a revoked partition belong to their next owner.

It prints one JSON object per line on stdout, flushed:
    {"ready": true}                                     the producer's transactions are initialised
    {"assigned": [[partition, ...]], "revoked": [...]}  each rebalance callback
    {"committed": <records>, "total": <records so far>} each committed transaction
    {"aborted": "<call>: <error>"}                      each abortable error, after the abort
    {"failed": "<call>: <error>"}                       an error a member must never see; it then exits 3
    {"stuck": "<call>"}                                  a transactional call outlived its timeout by 15 s; exits 4
SIGTERM (or SIGINT) finishes the transaction under way, closes the consumer (which leaves the group) and exits 0.

"stuck" is librdkafka's: send_offsets_to_transaction waits for ever when the group coordinator it cached has
been decommissioned (a broker that left the metadata, as a killed node does until it is back), and ignores
its own timeout (confluentinc/librdkafka#5511, #5456, open in 2.16). The application's answer is the one a
process supervisor gives: a new member under the same transactional.id, which fences this one.
"""

import argparse
import json
import os
import signal
import sys
import threading
import time

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition


CALL_TIMEOUT_S = 30  # every transactional call's own timeout (the transaction timeout too)


def say(**fields):
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


class Member:
    def __init__(self, args):
        self.args = args
        self.stopping = False
        self.rebalanced = False
        self.calling = (None, 0.0)  # the transactional call under way and when it began
        threading.Thread(target=self.watch, daemon=True).start()
        common = {"bootstrap.servers": args.bootstrap}
        if os.environ.get("ETL_MEMBER_DEBUG"):  # librdkafka debug contexts, e.g. eos,broker,metadata
            common["debug"] = os.environ["ETL_MEMBER_DEBUG"]
        self.producer = Producer(dict(common, **{"transactional.id": args.id, "linger.ms": 5,
                                                 "transaction.timeout.ms": 30000}))
        settings = dict(common, **{
            "group.id": args.group,
            "group.protocol": args.protocol,
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        })
        if args.protocol == "classic":
            settings.update({"partition.assignment.strategy": "cooperative-sticky", "session.timeout.ms": 10000})
        self.consumer = Consumer(settings)

    def on_assign(self, _consumer, partitions):
        self.rebalanced = True
        say(assigned=sorted(p.partition for p in partitions))

    def on_revoke(self, _consumer, partitions):
        self.rebalanced = True
        say(revoked=sorted(p.partition for p in partitions))

    def rewind(self, first):
        """Seeks each partition of a batch back to its first record; a partition no longer assigned refuses."""
        for partition, offset in first.items():
            try:
                self.consumer.seek(TopicPartition(self.args.input, partition, offset))
            except KafkaException:
                pass

    def watch(self):
        """Ends the process when a transactional call outlives its timeout by 15 s (see "stuck" above)."""
        while True:
            time.sleep(1)
            call, began = self.calling
            if call and time.monotonic() - began > CALL_TIMEOUT_S + 15:
                say(stuck=call)
                os._exit(4)

    def transactional(self, call, what):
        """Runs a transactional call: True when it went through, False after an abortable error (aborted)."""
        self.calling = (call, time.monotonic())
        try:
            what()
            return True
        except KafkaException as e:
            error = e.args[0]
            if not error.txn_requires_abort():
                say(failed=f"{call}: {error}")
                sys.exit(3)
            try:
                self.producer.abort_transaction(CALL_TIMEOUT_S)
            except KafkaException as abort_error:
                say(failed=f"abort after {call}: {abort_error.args[0]}")
                sys.exit(3)
            say(aborted=f"{call}: {error}")
            return False
        finally:
            self.calling = (None, 0.0)

    def run(self):
        self.transactional("init_transactions", lambda: self.producer.init_transactions(CALL_TIMEOUT_S))
        say(ready=True)
        self.consumer.subscribe([self.args.input], on_assign=self.on_assign, on_revoke=self.on_revoke)
        total = 0
        while not self.stopping:
            batch, first, following = [], {}, {}
            self.rebalanced = False
            until = time.monotonic() + 0.2
            while len(batch) < self.args.batch and time.monotonic() < until and not self.rebalanced and not self.stopping:
                message = self.consumer.poll(0.05)
                if message is None or message.error():
                    continue
                batch.append(message)
                first.setdefault(message.partition(), message.offset())
                following[message.partition()] = message.offset() + 1
            if self.rebalanced or (self.stopping and batch):
                self.rewind(first)
                continue
            if not batch:
                continue
            self.producer.begin_transaction()
            for message in batch:
                while True:
                    try:
                        self.producer.produce(self.args.output, message.value(), partition=message.partition())
                        break
                    except BufferError:
                        self.producer.poll(0.01)
            offsets = [TopicPartition(self.args.input, p, o) for p, o in following.items()]
            metadata = self.consumer.consumer_group_metadata()
            done = self.transactional(
                "send_offsets_to_transaction",
                lambda: self.producer.send_offsets_to_transaction(offsets, metadata, CALL_TIMEOUT_S))
            if done:
                done = self.transactional("commit_transaction", lambda: self.producer.commit_transaction(CALL_TIMEOUT_S))
            if done:
                total += len(batch)
                say(committed=len(batch), total=total)
                time.sleep(self.args.pause_ms / 1000)
            else:
                self.rewind(first)
        self.consumer.close()
        self.producer.flush(10)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--id", required=True, help="the producer's transactional.id")
    parser.add_argument("--group", default="etl-group")
    parser.add_argument("--protocol", choices=["consumer", "classic"], default="consumer")
    parser.add_argument("--input", default="etl-in")
    parser.add_argument("--output", default="etl-out")
    parser.add_argument("--batch", type=int, default=50, help="most records per transaction")
    parser.add_argument("--pause-ms", type=int, default=0, help="pause after each committed transaction")
    member = Member(parser.parse_args())

    def stop(_signum, _frame):
        member.stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    member.run()


if __name__ == "__main__":
    main()
