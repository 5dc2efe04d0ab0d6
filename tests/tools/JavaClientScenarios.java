// Java client scenarios for capturing golden protocol bytes (see
// tests/tools/capture_fixtures.sh).  Runs with the Apache Kafka client jars
// fetched by scripts/fetch-kafka.sh, as a single-file source program:
//
//   scripts/kafka-run-class.sh tests/tools/JavaClientScenarios.java <bootstrap> <scenario> [args]
//
// Scenarios:
//   admin <topic>...               CreateTopics, Metadata, DescribeCluster, ...
//   produce <topic> <codec>        idempotent producer (4.x default), acks=all,
//                                  a few keyed records with headers
//   produce-plain <topic>          enable.idempotence=false, acks=1
//   consume <topic> <group> <n>    classic group protocol: FindCoordinator,
//                                  JoinGroup, SyncGroup, OffsetFetch, ListOffsets,
//                                  Fetch, Heartbeat, OffsetCommit, LeaveGroup
//   consume-848 <topic> <group> <n> group.protocol=consumer (KIP-848)
//   transactional <topic> <group>  InitProducerId, TxnOffsetCommit, EndTxn (with
//                                  transaction protocol v2, the 4.x default, the
//                                  client sends no AddPartitionsToTxn/AddOffsetsToTxn)
//   admin-groups <topic> <group>...  ListGroups, DescribeGroups/ConsumerGroupDescribe,
//                                  OffsetFetch, CreatePartitions, DeleteRecords,
//                                  DeleteTopics, and CreateTopics failing with
//                                  TOPIC_ALREADY_EXISTS
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class JavaClientScenarios {
    static final long FIXED_TS = 1700000000000L; // deterministic record timestamps

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: JavaClientScenarios <bootstrap> <scenario> [args]");
            System.exit(2);
        }
        String bootstrap = args[0];
        String scenario = args[1];
        switch (scenario) {
            case "admin": admin(bootstrap, List.of(args).subList(2, args.length)); break;
            case "produce": produce(bootstrap, args[2], args[3], true); break;
            case "produce-plain": produce(bootstrap, args[2], "none", false); break;
            case "consume": consume(bootstrap, args[2], args[3], Integer.parseInt(args[4]), "classic"); break;
            case "consume-848": consume(bootstrap, args[2], args[3], Integer.parseInt(args[4]), "consumer"); break;
            case "transactional": transactional(bootstrap, args[2], args[3]); break;
            case "admin-groups": adminGroups(bootstrap, args[2], List.of(args).subList(3, args.length)); break;
            default:
                System.err.println("unknown scenario " + scenario);
                System.exit(2);
        }
    }

    static void admin(String bootstrap, List<String> topics) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "hw-java-admin");
        try (Admin admin = Admin.create(p)) {
            List<NewTopic> nts = new ArrayList<>();
            for (String t : topics) nts.add(new NewTopic(t, 1, (short) 1));
            admin.createTopics(nts).all().get(30, TimeUnit.SECONDS);
            admin.listTopics().names().get(30, TimeUnit.SECONDS);
            admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS);
            admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
            admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, topics.get(0))))
                 .all().get(30, TimeUnit.SECONDS);
            TopicPartition tp0 = new TopicPartition(topics.get(0), 0);
            admin.listOffsets(Map.of(tp0, OffsetSpec.latest())).all().get(30, TimeUnit.SECONDS);
        }
    }

    static void adminGroups(String bootstrap, String topic, List<String> groups) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "hw-java-admin");
        try (Admin admin = Admin.create(p)) {
            admin.listGroups().all().get(30, TimeUnit.SECONDS);
            admin.describeConsumerGroups(groups).all().get(30, TimeUnit.SECONDS);
            for (String g : groups)
                admin.listConsumerGroupOffsets(g).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            try {  // error path: TOPIC_ALREADY_EXISTS
                admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException expected) {
                System.err.println("expected: " + expected.getCause());
            }
            String scratch = topic + "-scratch";
            admin.createTopics(List.of(new NewTopic(scratch, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            admin.createPartitions(Map.of(scratch, org.apache.kafka.clients.admin.NewPartitions.increaseTo(2)))
                 .all().get(30, TimeUnit.SECONDS);
            admin.deleteRecords(Map.of(new TopicPartition(topic, 0),
                                       org.apache.kafka.clients.admin.RecordsToDelete.beforeOffset(1)))
                 .all().get(30, TimeUnit.SECONDS);
            admin.deleteTopics(List.of(scratch)).all().get(30, TimeUnit.SECONDS);
        }
    }

    static Properties producerProps(String bootstrap, String clientId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.LINGER_MS_CONFIG, "100"); // one batch
        return p;
    }

    static void produce(String bootstrap, String topic, String codec, boolean idempotent) throws Exception {
        Properties p = producerProps(bootstrap, "hw-java-producer-" + codec);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, Boolean.toString(idempotent));
        p.put(ProducerConfig.ACKS_CONFIG, idempotent ? "all" : "1");
        try (KafkaProducer<String, String> prod = new KafkaProducer<>(p)) {
            for (int i = 0; i < 5; i++) {
                RecordHeaders h = new RecordHeaders();
                h.add(new RecordHeader("hdr-a", ("a" + i).getBytes(StandardCharsets.UTF_8)));
                if (i % 2 == 0) h.add(new RecordHeader("hdr-b", null));
                String value = "value-" + codec + "-" + i + " " + "lorem ipsum ".repeat(4);
                prod.send(new ProducerRecord<>(topic, 0, FIXED_TS + i, "key-" + i, value, h));
            }
            // a null key and a null value
            prod.send(new ProducerRecord<>(topic, 0, FIXED_TS + 5, null, "no-key"));
            prod.send(new ProducerRecord<>(topic, 0, FIXED_TS + 6, "tombstone", (String) null));
            prod.flush();
        }
    }

    static void consume(String bootstrap, String topic, String group, int n, String protocol) throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "hw-java-consumer");
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        if (protocol.equals("classic")) p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "300");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "100");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
            c.subscribe(List.of(topic));
            int got = 0;
            long deadline = System.currentTimeMillis() + 30000;
            while (got < n && System.currentTimeMillis() < deadline) {
                ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(200));
                for (ConsumerRecord<String, String> r : recs) got++;
            }
            System.err.println("consumed " + got + " records");
            c.commitSync();
            // keep polling a little so that Heartbeat (classic) / ConsumerGroupHeartbeat show up
            long until = System.currentTimeMillis() + 1500;
            while (System.currentTimeMillis() < until) c.poll(Duration.ofMillis(200));
            Set<TopicPartition> asg = c.assignment();
            c.committed(asg);                    // OffsetFetch
            c.endOffsets(asg);                   // ListOffsets latest
            c.offsetsForTimes(Map.of(new TopicPartition(topic, 0), FIXED_TS + 2)); // ListOffsets by time
        } // close -> LeaveGroup
    }

    @SuppressWarnings("removal")
    static void transactional(String bootstrap, String topic, String group) throws Exception {
        Properties p = producerProps(bootstrap, "hw-java-txn");
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "hw-txn-1");
        try (KafkaProducer<String, String> prod = new KafkaProducer<>(p)) {
            prod.initTransactions();
            prod.beginTransaction();
            for (int i = 0; i < 3; i++)
                prod.send(new ProducerRecord<>(topic, 0, FIXED_TS + i, "txn-key-" + i, "txn-value-" + i));
            prod.flush();
            prod.sendOffsetsToTransaction(
                Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(1)),
                new org.apache.kafka.clients.consumer.ConsumerGroupMetadata(group));
            prod.commitTransaction();
            prod.beginTransaction();
            prod.send(new ProducerRecord<>(topic, 0, FIXED_TS + 9, "txn-key-aborted", "aborted"));
            prod.flush();
            prod.abortTransaction();
        }
    }
}
