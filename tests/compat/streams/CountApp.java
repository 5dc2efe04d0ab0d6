// A small Kafka Streams application for the streams group compat test
// (tests/compat/python/streams_group_test.py): it counts the values of an input
// topic. Each record is re-keyed by its value (a repartition topic), grouped and
// counted into a persistent (RocksDB) key-value store (a changelog topic), and
// every count is written to the output topic as (value, count as a decimal
// string).
//
// Usage: java -cp <kafka-streams libs>/*:<classes> CountApp [<properties file> ...] [key=value ...]
//
// The files are read first, in order, then the key=value arguments override them. Keys of
// this program (everything else is a StreamsConfig key):
//   countapp.input.topic       the topic read (required)
//   countapp.output.topic      the topic written (required)
//   countapp.store             the name of the count store (default word-counts;
//                              its changelog is <application.id>-<store>-changelog)
//   countapp.repartition       the name of the repartition (default by-word;
//                              the topic is <application.id>-<name>-repartition)
//   countapp.close.timeout.ms  how long close() may take at shutdown (default 20000)
// Defaults it sets unless told otherwise: group.protocol=streams,
// processing.guarantee=exactly_once_v2, commit.interval.ms=100,
// num.stream.threads=1, state.dir a new temporary directory.
//
// On standard output, one line per event, flushed at once:
//   STATE <new> <old>      each change of the KafkaStreams state
//   ERROR <exception>      an exception that ended a stream thread (the
//                          client then shuts down: state ERROR, exit code 1)
//   CLOSED <true|false> <state>  close() returned (true: within its timeout),
//                          leaving the client in <state> (NOT_RUNNING)
// SIGTERM closes the application (a shutdown hook) and the JVM exits.
// Its logs go where the log4j2 configuration given to the JVM says.

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;

public final class CountApp {
  private static final String PREFIX = "countapp.";

  private CountApp() {}

  /** Prints one line to standard output at once (the driver reads it as it comes). */
  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }

  /** An exception and its root cause (when the exception's message does not already say it), on one line. */
  private static String describe(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String text = e.toString();
    if (root != e && (e.getMessage() == null || root.getMessage() == null
        || !e.getMessage().contains(root.getMessage()))) {
      text += " <- root cause: " + root;
    }
    return text.replace('\n', ' ');
  }

  /** The files named in args, in order, then the key=value arguments over them. */
  private static Properties settings(String[] args) throws IOException {
    Properties given = new Properties();
    for (String arg : args) {
      if (arg.indexOf('=') <= 0) {
        try (InputStream in = new FileInputStream(arg)) {
          given.load(in);
        }
      }
    }
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq > 0) {
        given.setProperty(arg.substring(0, eq), arg.substring(eq + 1));
      }
    }
    return given;
  }

  private static String required(Properties p, String key) {
    String value = p.getProperty(key);
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException("CountApp: " + key + " is not set");
    }
    return value;
  }

  static Topology topology(String input, String output, String store, String repartition) {
    StreamsBuilder builder = new StreamsBuilder();
    builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()))
        // The value becomes the key: the counts are by value, so the records
        // go through a repartition topic to the task that owns the value.
        .selectKey((key, value) -> value)
        .groupByKey(Grouped.with(repartition, Serdes.String(), Serdes.String()))
        .count(Materialized.<String, Long>as(Stores.persistentTimestampedKeyValueStore(store))
            .withKeySerde(Serdes.String())
            .withValueSerde(Serdes.Long()))
        .toStream()
        .mapValues(count -> Long.toString(count))
        .to(output, Produced.with(Serdes.String(), Serdes.String()));
    return builder.build();
  }

  public static void main(String[] args) throws Exception {
    Properties given = settings(args);
    String input = required(given, PREFIX + "input.topic");
    String output = required(given, PREFIX + "output.topic");
    String store = given.getProperty(PREFIX + "store", "word-counts");
    String repartition = given.getProperty(PREFIX + "repartition", "by-word");
    long closeTimeoutMs = Long.parseLong(given.getProperty(PREFIX + "close.timeout.ms", "20000"));

    Properties config = new Properties();
    config.setProperty(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
    config.setProperty(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    config.setProperty(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "100");
    config.setProperty(StreamsConfig.NUM_STREAM_THREADS_CONFIG, "1");
    for (String key : given.stringPropertyNames()) {
      if (!key.startsWith(PREFIX)) {
        config.setProperty(key, given.getProperty(key));
      }
    }
    if (config.getProperty(StreamsConfig.STATE_DIR_CONFIG) == null) {
      config.setProperty(StreamsConfig.STATE_DIR_CONFIG,
          Files.createTempDirectory("countapp-state-").toString());
    }

    Topology topology = topology(input, output, store, repartition);
    System.err.println("CountApp: " + config);
    System.err.println(topology.describe());

    KafkaStreams streams = new KafkaStreams(topology, config);
    CountDownLatch done = new CountDownLatch(1);
    AtomicBoolean failed = new AtomicBoolean(false);
    streams.setStateListener((now, before) -> {
      say("STATE " + now + " " + before);
      if (now == KafkaStreams.State.ERROR) {
        failed.set(true);
        done.countDown();
      }
    });
    streams.setUncaughtExceptionHandler(e -> {
      say("ERROR " + describe(e));
      e.printStackTrace();
      return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    });

    AtomicBoolean closed = new AtomicBoolean(false);
    Runnable close = () -> {
      if (closed.compareAndSet(false, true)) {
        boolean clean = streams.close(Duration.ofMillis(closeTimeoutMs));
        // The state as close() left it: the listener's last STATE line may not
        // come out before the JVM halts.
        say("CLOSED " + clean + " " + streams.state());
      }
    };
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      done.countDown();
      close.run();
    }, "countapp-shutdown"));

    streams.start();
    done.await();
    if (failed.get()) {
      close.run();
      System.exit(1);
    }
  }
}
