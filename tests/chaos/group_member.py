"""A member of the chaos run's consumer-protocol group (KIP-848), with confluent-kafka (librdkafka 2.16).

Started by the chaos workload (workload.h, protocol_consumer): its first line on stdin is a JSON object,
{"topic": <topic>, "settings": {<librdkafka setting>: <value>, ...}}, with everything the client needs
(bootstrap, group, group.protocol, the listener's security settings). It subscribes to the topic and
prints, one per line on stdout:
    subscribed
    rebalance <partition> ...                 its whole assignment after each change (assigned, revoked, lost)
    read <partition> <offset> <value>         each record
    error <name>                              each error its client reports
    closed                                    after SIGTERM, once close() has left the group
librdkafka's own log goes to stderr.
"""

import json
import signal
import sys

from confluent_kafka import Consumer


def main():
    config = json.loads(sys.stdin.readline())
    out = sys.stdout
    stopping = []
    assignment = set()

    def say(*words):
        out.write(" ".join(str(w) for w in words) + "\n")

    def changed():
        say("rebalance", *sorted(assignment))
        out.flush()

    def on_assign(_consumer, partitions):
        assignment.update(p.partition for p in partitions)
        changed()

    def on_revoke(_consumer, partitions):
        assignment.difference_update(p.partition for p in partitions)
        changed()

    def on_error(error):
        say("error", error.name())

    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    consumer = Consumer(dict(config["settings"], error_cb=on_error))
    consumer.subscribe([config["topic"]], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_revoke)
    say("subscribed")
    out.flush()
    while not stopping:
        for message in consumer.consume(100, 0.1):
            if message.error():
                say("error", message.error().name())
            else:
                say("read", message.partition(), message.offset(), message.value().decode())
        out.flush()
    consumer.close()
    say("closed")
    out.flush()


if __name__ == "__main__":
    main()
